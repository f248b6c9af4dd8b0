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
    /// Write a realistic generated session (a development tool for fixtures and benchmarks).
    #[command(hide = true)]
    Generate(GenerateArgs),
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
pub struct GenerateArgs {
    /// Seed of the generator; the same flags always give the same file.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Number of entries after the header.
    #[arg(long, default_value_t = 1000)]
    pub entries: usize,
    /// Keep the session linear (no branches, no branch summaries).
    #[arg(long)]
    pub no_branches: bool,
    /// Never append compactions.
    #[arg(long)]
    pub no_compactions: bool,
    /// Target mean entry size in bytes (tool outputs are scaled to reach it).
    #[arg(long, value_name = "BYTES", default_value_t = compaction_core::generate::DEFAULT_AVERAGE_ENTRY_BYTES)]
    pub average_entry_bytes: usize,
    /// Estimated context tokens above which a compaction is appended.
    #[arg(long, value_name = "TOKENS", default_value_t = 120_000)]
    pub compaction_threshold: u64,
    /// Multiplier for the chance of events between turns (branches, labels, changes, …).
    #[arg(long, value_name = "FACTOR", default_value_t = 1.0)]
    pub event_scale: f64,
    /// Write to this file instead of standard output.
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,
}
