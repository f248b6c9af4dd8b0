//! Command-line flags (clap definitions only; no I/O here): the command list here, each
//! group of commands' flags in its own file (`inspect`, `convert`, `compact`, `history`,
//! `eval`, `setup`, `store`), the flags they share in `flags`.

use clap::{Parser, Subcommand};

mod compact;
mod convert;
mod eval;
mod flags;
mod history;
mod inspect;
mod setup;
mod store;

pub use compact::{BranchArgs, PlanArgs, PruneArgs, ReasonArg, RunArgs, SummarizeArgs};
pub use convert::{ExportArgs, ExportFormat, ImportArgs, ImportFormat, MigrateArgs};
pub use eval::{EvalArgs, EvalPart};
pub use flags::{CompactionFlags, ExtensionFlags, SessionArgs, SummarizerFlags};
pub use history::{DroppedArgs, PinArgs, RecallArgs, SearchArgs, UndoArgs, UnpinArgs};
pub use inspect::{
    CheckArgs, ContextArgs, ContextFormat, LeavesArgs, StatsArgs, TokensArgs, TreeArgs,
};
pub use setup::{CompletionsArgs, ConfigArgs, ManArgs};
pub use store::{StoreArgs, StoreCommand, WorkerArgs};

/// Context compaction for pi-format agent sessions.
#[derive(Debug, Parser)]
#[command(name = "compaction", version = crate::VERSION, about, propagate_version = true)]
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
    /// Rewrite an older-format session as the current version, keeping a backup.
    Migrate(MigrateArgs),
    /// Convert a Claude Code transcript or a Codex CLI rollout into a pi session
    /// (secrets redacted), so compaction, recall and eval work on it.
    Import(ImportArgs),
    /// Write a session's context after its latest compaction as a Claude Code session or a
    /// Codex rollout (secrets redacted), which the agent then resumes.
    Export(ExportArgs),
    /// Show what a compaction would do, without doing it. Sends nothing anywhere unless
    /// --ask-server is given.
    Plan(PlanArgs),
    /// Compact a session: summarize the older part and append a compaction entry.
    Run(RunArgs),
    /// Summarize the branch left behind when moving to another entry (with --summarize);
    /// without it, show what would be summarized and write nothing.
    ///
    /// pi's format has no record of a current position: the leaf is the last entry of the
    /// file, and a move becomes real only when the next entry is appended under the target.
    /// With --summarize, a `branch_summary` entry is appended under the target and becomes
    /// the leaf. Without it, nothing is written; pass `--leaf ID` to later commands
    /// (context, plan, run) to work from the target.
    Branch(BranchArgs),
    /// Compute a compaction (or, with --branch-to, a branch summary) and print the entry
    /// fields without writing anything: for hosts such as pi that append entries themselves.
    Summarize(SummarizeArgs),
    /// List the leaves of the session tree with their last message.
    Leaves(LeavesArgs),
    /// Count tokens of text (stdin or a file) or of every message of a session.
    Tokens(TokensArgs),
    /// Print a shell completion script (bash, zsh, fish, elvish, powershell).
    ///
    /// Install for bash: `compaction completions bash > ~/.local/share/bash-completion/completions/compaction`
    Completions(CompletionsArgs),
    /// Print a manual page (roff): `compaction(1)`, or one command's with its name.
    ///
    /// Install every page: `compaction man --dir ~/.local/share/man/man1`
    Man(ManArgs),
    /// Replace old tool outputs by placeholders (no LLM call); the originals stay recallable.
    Prune(PruneArgs),
    /// Print the original content of an entry (a pruned output, a summarized message).
    Recall(RecallArgs),
    /// Find text in what the context no longer shows (summarized and pruned entries).
    Search(SearchArgs),
    /// Take back the last compaction or prune, append-only, and show what came back.
    Undo(UndoArgs),
    /// List every compaction and prune on the path with what each removed.
    Dropped(DroppedArgs),
    /// Print every effective compaction setting with its value and where it came from
    /// (default, which settings file, environment variable, flag).
    Config(ConfigArgs),
    /// Score how well compaction keeps what matters: probe questions checked against the
    /// context after 1, 2 and 3 successive compactions (see docs/eval.md).
    Eval(EvalArgs),
    /// Pin an instruction: it reaches the model word for word after every compaction.
    Pin(PinArgs),
    /// Remove pins (by pin id, or by the id of the entry a pin was copied from).
    Unpin(UnpinArgs),
    /// Sessions in a database: import pi files, export one back, list them (see
    /// docs/stores.md). Other commands take `sqlite:DB#ID` or `postgres://USER@HOST:PORT/DB#ID`
    /// where they take a session file.
    Store(StoreArgs),
    /// Compact every session of a store whose context crosses the trigger, again and again
    /// (many workers may share a store; see docs/stores.md). Stops cleanly on SIGTERM.
    Worker(WorkerArgs),
}

#[cfg(test)]
mod tests;
