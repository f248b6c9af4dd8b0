//! Flags of `compaction eval`.

use std::path::PathBuf;

use clap::{Args, ValueEnum};

use super::flags::{CompactionFlags, SummarizerFlags};

/// Flags of `compaction eval`.
#[derive(Debug, Args)]
pub struct EvalArgs {
    /// Probe files (JSON: the session they are about and its probes; see docs/eval.md), or
    /// folders searched for `*.probes.json`.
    #[arg(required = true, value_name = "PROBES")]
    pub probes: Vec<PathBuf>,
    /// The real-transcript corpus that `transcript` probe files name (default: the
    /// environment variable COMPACTION_TRANSCRIPTS, else ../shared/transcripts beside the
    /// repository of the current directory).
    #[arg(long, value_name = "DIR")]
    pub transcripts: Option<PathBuf>,
    /// Which part of the corpus to run: dev, test, or all (probe files in the `session`
    /// form are outside the split and run only with all).
    #[arg(long, value_enum, default_value = "all")]
    pub part: EvalPart,
    /// How many successive compactions to run, each count from scratch (comma-separated).
    #[arg(long, value_delimiter = ',', default_value = "1,2,3", value_name = "N,…")]
    pub compactions: Vec<usize>,
    #[command(flatten)]
    pub compaction: CompactionFlags,
    #[command(flatten)]
    pub summarizer: SummarizerFlags,
    /// List every probe the context no longer answers.
    #[arg(long)]
    pub show_misses: bool,
    /// Print the summary of the last compaction of every run.
    #[arg(long)]
    pub show_summaries: bool,
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
}

/// The part of the real-transcript corpus `compaction eval` runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum EvalPart {
    Dev,
    Test,
    All,
}

impl EvalPart {
    pub fn as_str(self) -> &'static str {
        match self {
            EvalPart::Dev => "dev",
            EvalPart::Test => "test",
            EvalPart::All => "all",
        }
    }
}
