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
    /// Rewrite an older-format session as the current version (atomically; the original is
    /// kept as `<file>.bak-v<N>`).
    Migrate(MigrateArgs),
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
    /// Also write a repaired copy beside the file (the file itself is never changed):
    /// a readable header and every usable entry; unusable lines go to `<copy>.rejected`.
    #[arg(long)]
    pub repair: bool,
}

#[derive(Debug, Args)]
pub struct MigrateArgs {
    /// The session file (`.jsonl`).
    pub file: PathBuf,
    /// Wait for another writer to finish instead of failing.
    #[arg(long)]
    pub wait: bool,
}
