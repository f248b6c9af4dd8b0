//! Flags of the commands over what compaction removed and what it keeps: `recall`, `search`,
//! `undo`, `dropped`, `pin`, `unpin`.

use std::path::PathBuf;

use clap::Args;

use super::flags::{SessionArgs, estimator_names};

#[derive(Debug, Args)]
pub struct RecallArgs {
    /// The session file (`.jsonl`).
    pub file: PathBuf,
    /// The entry id (as placeholders, `search` and `dropped` show it).
    pub id: String,
    /// Print JSON (with the entry's exact line) instead of the content.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct SearchArgs {
    #[command(flatten)]
    pub session: SessionArgs,
    /// The text to find (case-insensitive, literal).
    pub query: String,
    /// At most this many hits.
    #[arg(long, default_value_t = 20)]
    pub limit: usize,
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct UndoArgs {
    #[command(flatten)]
    pub session: SessionArgs,
    /// Token estimator for the report (`estimator`).
    #[arg(long, value_name = "NAME", value_parser = estimator_names())]
    pub estimator: Option<String>,
    /// Show what would come back; write nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// Wait for another process writing the session instead of failing.
    #[arg(long)]
    pub wait: bool,
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct DroppedArgs {
    #[command(flatten)]
    pub session: SessionArgs,
    /// Token estimator (`estimator`).
    #[arg(long, value_name = "NAME", value_parser = estimator_names())]
    pub estimator: Option<String>,
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
#[command(group(clap::ArgGroup::new("source").required(true).args(["entry", "text"])))]
pub struct PinArgs {
    #[command(flatten)]
    pub session: SessionArgs,
    /// Pin the text of this entry (a user message, usually).
    #[arg(long, value_name = "ID")]
    pub entry: Option<String>,
    /// Pin this text, verbatim.
    #[arg(long, value_name = "TEXT")]
    pub text: Option<String>,
    /// Wait for another process writing the session instead of failing.
    #[arg(long)]
    pub wait: bool,
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct UnpinArgs {
    #[command(flatten)]
    pub session: SessionArgs,
    /// Ids of the pins to remove (or of the entries they were pinned from).
    #[arg(required = true, value_name = "ID")]
    pub ids: Vec<String>,
    /// Wait for another process writing the session instead of failing.
    #[arg(long)]
    pub wait: bool,
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
}
