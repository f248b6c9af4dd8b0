//! Flags of the commands about the tool itself: `config`, `man`, `completions`.

use std::path::PathBuf;

use clap::Args;

use super::flags::CompactionFlags;

/// Flags of `compaction config`.
#[derive(Debug, Args)]
pub struct ConfigArgs {
    #[command(flatten)]
    pub compaction: CompactionFlags,
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
}

/// Flags of `compaction man`.
#[derive(Debug, Args)]
pub struct ManArgs {
    /// The command whose page to print (`run` prints compaction-run(1)); default: the
    /// overview page, compaction(1).
    #[arg(value_name = "COMMAND")]
    pub command: Option<String>,
    /// Write the pages into this folder instead of printing one: every page, or only
    /// COMMAND's.
    #[arg(long, value_name = "DIR", value_hint = clap::ValueHint::DirPath)]
    pub dir: Option<PathBuf>,
    /// With --dir: replace pages that exist there (regular files only); without it an
    /// existing page is refused and no page is written.
    #[arg(long, requires = "dir")]
    pub force: bool,
}

/// Flags of `compaction completions`.
#[derive(Debug, Args)]
pub struct CompletionsArgs {
    /// The shell to complete for.
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
}
