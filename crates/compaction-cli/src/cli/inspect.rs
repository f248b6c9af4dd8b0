//! Flags of the commands that read a session and write nothing: `stats`, `context`, `tree`,
//! `check`, `leaves`, `tokens`.

use std::path::PathBuf;

use clap::{Args, ValueEnum};

use super::flags::{SessionArgs, estimator_names};

#[derive(Debug, Args)]
pub struct StatsArgs {
    #[command(flatten)]
    pub session: SessionArgs,
    /// Token estimator: heuristic, pi, o200k or cl100k (default: from settings).
    #[arg(long, value_name = "NAME", value_parser = estimator_names())]
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
    /// Print JSON instead of text (same as `--format json`).
    #[arg(long)]
    pub json: bool,
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
    /// With --repair: attach each entry whose parent is not in the copy to the entry before
    /// it, so the copy passes `check` (this changes what pi shows on those branches).
    #[arg(long, requires = "repair")]
    pub reattach: bool,
}

#[derive(Debug, Args)]
pub struct LeavesArgs {
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
    #[arg(long, value_name = "NAME", value_parser = estimator_names())]
    pub estimator: Option<String>,
    /// For a session, use this entry as the leaf.
    #[arg(long, value_name = "ID")]
    pub leaf: Option<String>,
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
}
