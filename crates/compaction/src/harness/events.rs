//! What the harness reports ([`HarnessEvent`]) and how it fails ([`HarnessError`]), and
//! how a model's error says it overflowed the window ([`ModelError`]).

use compaction_core::entry::Entry;

use crate::compact::CompactError;
pub use crate::compact::CompactionReason;
use crate::error::SummarizerError;
use crate::extension::ExtensionWarning;
use crate::navigate::NavigateError;
use crate::store::StoreError;

/// What the harness reports while it works.
#[derive(Debug, Clone, PartialEq)]
pub enum HarnessEvent {
    /// A compaction starts.
    CompactionStarted {
        /// Why the compaction runs.
        reason: CompactionReason,
        /// Context tokens when it started.
        tokens: u64,
    },
    /// Old tool outputs were replaced by placeholders (a `compaction.prune` entry), before
    /// the `CompactionFinished` of the same compaction. A summary may follow (`hybrid`).
    Pruned(PrunedEvent),
    /// A compaction ended: the appended entry, or why none was written.
    CompactionFinished {
        /// Why the compaction ran.
        reason: CompactionReason,
        /// The written entry, or the error as text.
        result: Result<CompactedEvent, String>,
    },
    /// Automatic compaction was skipped (backoff or a stalled compaction).
    CompactionSkipped {
        /// Why it was skipped, in words for the user.
        reason: String,
    },
    /// A branch summary starts (navigation with `summarize`).
    BranchSummaryStarted {
        /// The entry moved to.
        target: String,
    },
    /// A navigation ended: the `branch_summary` entry (if one was written), or an error.
    BranchSummaryFinished {
        /// The `branch_summary` entry written (`None` when none was), or the error as text.
        result: Result<Option<Entry>, String>,
    },
    /// An extension failed, timed out or answered garbage during the compaction or
    /// navigation just reported as finished; the built-in path ran in its place.
    ExtensionWarning(ExtensionWarning),
    /// After a compaction, recently modified files were re-read into the context (a
    /// `custom_message` entry; `preserveRecentFiles`), or skipped.
    FilesRestored(crate::restore::RestoreOutcome),
}

/// A written prune, as reported in events.
#[derive(Debug, Clone, PartialEq)]
pub struct PrunedEvent {
    /// The appended `compaction.prune` entry.
    pub entry: Entry,
    /// Ids of the tool results replaced by placeholders.
    pub entry_ids: Vec<String>,
    /// The estimate of the context before.
    pub tokens_before: u64,
    /// The estimate of the context after (the same measure as `tokens_before`).
    pub tokens_after: u64,
}

/// A written compaction, as reported in events: the last entry appended (the
/// `compaction` entry, or the `compaction.prune` entry when pruning alone was enough).
#[derive(Debug, Clone, PartialEq)]
pub struct CompactedEvent {
    /// The appended entry.
    pub entry: Entry,
    /// The estimate of the context before.
    pub tokens_before: u64,
    /// The estimate of the context after (the same measure as `tokens_before`).
    pub tokens_after: u64,
    /// The quality gate's verdict (`None` when an extension wrote the summary).
    pub quality: Option<compaction_core::quality::QualityReport>,
}

/// Why a harness operation failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum HarnessError {
    /// Writing to the session failed.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// A compaction failed (manual, or the one overflow recovery needed).
    #[error(transparent)]
    Compact(#[from] CompactError),
    /// Navigation failed.
    #[error(transparent)]
    Navigate(#[from] NavigateError),
    /// A pin or unpin was refused; nothing was written.
    #[error(transparent)]
    Pin(#[from] crate::pins::PinError),
    /// The compaction was aborted; nothing was written.
    #[error("the compaction was aborted; the session was not changed")]
    Aborted,
    /// A compaction did not bring the context below the trigger; automatic compaction is
    /// off until a manual compaction succeeds or the model changes.
    #[error(
        "compaction left {tokens} tokens, still above the trigger ({limit} for a {window}-token \
         window); the kept recent messages alone are too big. Lower keepRecentTokens (now \
         {keep_recent_tokens}) or minTurnsToKeep; automatic compaction is paused"
    )]
    CompactionIneffective {
        /// Context tokens after the compaction.
        tokens: u64,
        /// The trigger's limit the context is still above.
        limit: u64,
        /// The context window in tokens.
        window: u64,
        /// Recent tokens kept verbatim.
        keep_recent_tokens: u64,
    },
    /// The model rejected the request as too long. `after_compaction` is true when the
    /// harness had already compacted in this turn (before the call, or to recover from a
    /// first overflow), so it did not try again; false when there was nothing to compact.
    #[error("the model's context window was exceeded{}: {source}", if *.after_compaction { " again after compacting" } else { "" })]
    ContextOverflow {
        /// Whether the session had just been compacted for this turn.
        after_compaction: bool,
        /// The model call's error.
        #[source]
        source: Box<dyn std::error::Error + Send + Sync>,
    },
    /// The message could not be turned into JSON; nothing was written.
    #[error("the message cannot be stored: {0}")]
    Message(#[source] serde_json::Error),
    /// Reading the agent's input or writing its output failed.
    #[error("terminal input/output failed: {0}")]
    Terminal(#[source] std::io::Error),
    /// The model call failed for another reason.
    #[error("the model call failed: {0}")]
    Model(#[source] Box<dyn std::error::Error + Send + Sync>),
}

/// An error of a model call that the harness can classify.
pub trait ModelError: std::error::Error + Send + Sync + 'static {
    /// Whether the request did not fit the model's context window.
    fn is_context_overflow(&self) -> bool;
}

impl ModelError for SummarizerError {
    fn is_context_overflow(&self) -> bool {
        matches!(self, SummarizerError::ContextOverflow { .. })
    }
}
