//! Command-line flags (clap definitions only; no I/O here).

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

/// Context compaction for pi-format agent sessions.
#[derive(Debug, Parser)]
#[command(name = "compaction", version, about, propagate_version = true)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Summarize a session: entry counts, path, leaves, context size, diagnostics.
    Stats(StatsArgs),
    /// Print the context the model would receive at a leaf.
    Context(ContextArgs),
    /// Draw the session tree.
    Tree(TreeArgs),
    /// Report every problem in a session file (exit 1 when there are problems).
    Check(CheckArgs),
    /// Count tokens of text (stdin or a file) or of every message of a session.
    Tokens(TokensArgs),
}

/// A session file and an optional leaf.
#[derive(Debug, Args)]
pub struct SessionArgs {
    /// The session file (`.jsonl`).
    pub file: PathBuf,
    /// Use this entry as the leaf instead of the last entry of the file.
    #[arg(long, value_name = "ID")]
    pub leaf: Option<String>,
}

#[derive(Debug, Args)]
pub struct StatsArgs {
    #[command(flatten)]
    pub session: SessionArgs,
    /// Token estimator: heuristic, pi, o200k or cl100k (default: from settings).
    #[arg(long, value_name = "NAME")]
    pub estimator: Option<String>,
    /// Context window in tokens (default: settings, then the model table, then 128000).
    #[arg(long, value_name = "TOKENS")]
    pub context_window: Option<u64>,
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ContextFormat {
    /// A JSON array of the messages sent to the model.
    Json,
    /// Readable text, one block per message.
    Text,
}

#[derive(Debug, Args)]
pub struct ContextArgs {
    #[command(flatten)]
    pub session: SessionArgs,
    /// Output format.
    #[arg(long, value_enum, default_value_t = ContextFormat::Text)]
    pub format: ContextFormat,
}

#[derive(Debug, Args)]
pub struct TreeArgs {
    /// The session file (`.jsonl`).
    pub file: PathBuf,
    /// Show every entry instead of collapsing long linear runs.
    #[arg(long)]
    pub full: bool,
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct CheckArgs {
    /// The session file (`.jsonl`).
    pub file: PathBuf,
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct TokensArgs {
    /// A session file, a text file, or `-` (the default) for standard input.
    pub file: Option<PathBuf>,
    /// Token estimator: heuristic, pi, o200k or cl100k (default: from settings).
    #[arg(long, value_name = "NAME")]
    pub estimator: Option<String>,
    /// For a session, use this entry as the leaf.
    #[arg(long, value_name = "ID")]
    pub leaf: Option<String>,
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
}
