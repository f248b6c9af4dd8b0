//! Flags of the commands that compact: `plan`, `run`, `prune`, `summarize`, `branch`.

use std::path::PathBuf;

use clap::{Args, ValueEnum};

use super::flags::{
    AskServerFlag, CompactionFlags, ExtensionFlags, SessionArgs, SummarizerFlags, estimator_names,
};

#[derive(Debug, Args)]
pub struct PlanArgs {
    #[command(flatten)]
    pub session: SessionArgs,
    #[command(flatten)]
    pub compaction: CompactionFlags,
    #[command(flatten)]
    pub summarizer: SummarizerFlags,
    /// Custom instructions for the summary (counted in the request size).
    #[arg(long, value_name = "TEXT")]
    pub instructions: Option<String>,
    #[command(flatten)]
    pub ask: AskServerFlag,
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct RunArgs {
    #[command(flatten)]
    pub session: SessionArgs,
    #[command(flatten)]
    pub compaction: CompactionFlags,
    #[command(flatten)]
    pub summarizer: SummarizerFlags,
    /// Custom instructions: what the summary should focus on.
    #[arg(long, value_name = "TEXT")]
    pub instructions: Option<String>,
    /// summarize, prune, or hybrid (prune first, summarize only when still above the
    /// trigger); default: `strategy` from settings, else hybrid.
    #[arg(long, value_enum, value_name = "NAME")]
    pub strategy: Option<StrategyArg>,
    #[command(flatten)]
    pub extension: ExtensionFlags,
    /// Only plan (same as `compaction plan`): sends nothing anywhere unless --ask-server is
    /// given too.
    #[arg(long)]
    pub dry_run: bool,
    #[command(flatten)]
    pub ask: AskServerFlag,
    /// Write the compacted session to this new file (a copy) instead of appending in place;
    /// it appears only once the compaction is written, and never replaces the input.
    #[arg(long, short, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// With --output: replace an existing output file (atomically, after success).
    #[arg(long, requires = "output")]
    pub force: bool,
    /// Wait for another process writing the session instead of failing.
    #[arg(long)]
    pub wait: bool,
    /// Fail (writing nothing) when the quality gate rejects the summary twice, instead of
    /// appending a Must Keep section (`strictQuality`).
    #[arg(long)]
    pub strict: bool,
    /// After compacting, re-read the most recently modified files (`preserveRecentFiles`,
    /// within `restoreFileTokens` each and `restoreTotalTokens` in all) from the session's
    /// `cwd` into the context, as a `custom_message` entry.
    #[arg(long)]
    pub restore_files: bool,
    /// No progress display.
    #[arg(long, short)]
    pub quiet: bool,
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
}

/// How `run` reduces the context.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum StrategyArg {
    /// Summarize only.
    Summarize,
    /// Prune old tool outputs only (no LLM call).
    Prune,
    /// Prune first; summarize when the context still fires the trigger.
    Hybrid,
}

impl From<StrategyArg> for compaction_core::prune::Strategy {
    fn from(value: StrategyArg) -> Self {
        match value {
            StrategyArg::Summarize => compaction_core::prune::Strategy::Summarize,
            StrategyArg::Prune => compaction_core::prune::Strategy::Prune,
            StrategyArg::Hybrid => compaction_core::prune::Strategy::Hybrid,
        }
    }
}

#[derive(Debug, Args)]
pub struct PruneArgs {
    #[command(flatten)]
    pub session: SessionArgs,
    /// Token estimator: heuristic, pi, o200k or cl100k (`estimator`).
    #[arg(long, value_name = "NAME", value_parser = estimator_names())]
    pub estimator: Option<String>,
    #[command(flatten)]
    pub extension: ExtensionFlags,
    /// Show what would be pruned; write nothing.
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
pub struct SummarizeArgs {
    #[command(flatten)]
    pub session: SessionArgs,
    /// Custom instructions: what the summary should focus on.
    #[arg(long, value_name = "TEXT")]
    pub instructions: Option<String>,
    /// Summarize the branch left when moving to --branch-to instead of compacting.
    #[arg(long, value_name = "ID", conflicts_with = "leaf")]
    pub branch_to: Option<String>,
    /// The leaf being left (default: the last entry of the file).
    #[arg(long, value_name = "ID", requires = "branch_to")]
    pub branch_from: Option<String>,
    /// Use --instructions as the whole branch prompt instead of adding them to it.
    #[arg(long, requires_all = ["instructions", "branch_to"])]
    pub replace_instructions: bool,
    /// Why the host compacts, as process extensions are told it.
    #[arg(long, value_enum, default_value_t = ReasonArg::Manual, conflicts_with = "branch_to")]
    pub reason: ReasonArg,
    #[command(flatten)]
    pub compaction: CompactionFlags,
    #[command(flatten)]
    pub summarizer: SummarizerFlags,
    #[command(flatten)]
    pub extension: ExtensionFlags,
    /// Wait for a process writing the session through this tool instead of failing.
    #[arg(long)]
    pub wait: bool,
    /// No progress display.
    #[arg(long, short)]
    pub quiet: bool,
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
}

/// Why a host such as pi compacts (`summarize --reason`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ReasonArg {
    /// Asked for by the user (`/compact`).
    Manual,
    /// The context crossed the trigger threshold.
    Threshold,
    /// The model rejected a request as too long.
    Overflow,
}

#[derive(Debug, Args)]
pub struct BranchArgs {
    /// The session file (`.jsonl`).
    pub file: PathBuf,
    /// The entry to continue from.
    #[arg(long, value_name = "ID")]
    pub to: String,
    /// The leaf being left (default: the current leaf).
    #[arg(long, value_name = "ID")]
    pub from: Option<String>,
    /// Append a `branch_summary` of the abandoned branch under the target; it becomes the
    /// leaf, so pi continues from the target. Without this flag nothing is written.
    #[arg(long)]
    pub summarize: bool,
    /// Custom instructions for the branch summary.
    #[arg(long, value_name = "TEXT")]
    pub instructions: Option<String>,
    /// Use --instructions as the whole prompt instead of adding them to the built-in one.
    #[arg(long, requires = "instructions")]
    pub replace_instructions: bool,
    #[command(flatten)]
    pub compaction: CompactionFlags,
    #[command(flatten)]
    pub summarizer: SummarizerFlags,
    #[command(flatten)]
    pub extension: ExtensionFlags,
    /// Show what would be summarized; write nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// Wait for another process writing the session instead of failing.
    #[arg(long)]
    pub wait: bool,
    /// No progress display.
    #[arg(long, short)]
    pub quiet: bool,
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
}
