//! Flags of the commands that convert files: `migrate`, `import`, `export`.

use std::path::PathBuf;

use clap::{Args, ValueEnum};

use super::flags::SessionArgs;

/// The transcript formats `compaction import` reads.
#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum ImportFormat {
    /// A Claude Code transcript (`~/.claude/projects/*/SESSION.jsonl`).
    ClaudeCode,
    /// A Codex CLI rollout (`~/.codex/sessions/**/rollout-*.jsonl`).
    Codex,
    /// A Cursor agent transcript (`~/.cursor/projects/*/agent-transcripts/*.jsonl`).
    Cursor,
    /// A Google Antigravity trajectory (`brain/*/.system_generated/logs/transcript_full.jsonl`).
    Antigravity,
}

#[derive(Debug, Args)]
pub struct ImportArgs {
    /// The transcript (`.jsonl`).
    pub file: PathBuf,
    /// Where to write the pi session [default: beside the transcript, `NAME.pi.jsonl`].
    #[arg(short, long, value_name = "PATH")]
    pub output: Option<PathBuf>,
    /// The transcript's format [default: detected from its lines].
    #[arg(long, value_enum)]
    pub format: Option<ImportFormat>,
    /// Replace the output file if it exists.
    #[arg(long)]
    pub force: bool,
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
}

/// The transcript formats `compaction export` writes.
#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum ExportFormat {
    /// A Claude Code session, resumed with `claude --resume ID`.
    ClaudeCode,
    /// A Codex CLI rollout, resumed with `codex resume ID`.
    Codex,
}

#[derive(Debug, Args)]
pub struct ExportArgs {
    #[command(flatten)]
    pub session: SessionArgs,
    /// The agent to write for.
    #[arg(long, value_enum)]
    pub format: ExportFormat,
    /// Where to write [default: where the agent finds its sessions: Claude Code's
    /// `$CLAUDE_CONFIG_DIR/projects/<project>/ID.jsonl` (`~/.claude` without the variable),
    /// Codex's `$CODEX_HOME/sessions/YYYY/MM/DD/rollout-…-ID.jsonl` (`~/.codex`)].
    #[arg(short, long, value_name = "PATH")]
    pub output: Option<PathBuf>,
    /// The project directory the agent resumes in [default: the session header's `cwd`].
    #[arg(long, value_name = "DIR")]
    pub cwd: Option<PathBuf>,
    /// Replace the output file if it exists.
    #[arg(long)]
    pub force: bool,
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct MigrateArgs {
    /// The session file (`.jsonl`).
    pub file: PathBuf,
    /// Wait for another writer to finish instead of failing.
    #[arg(long)]
    pub wait: bool,
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
}
