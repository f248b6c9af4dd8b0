//! What a compaction is asked and what it answers: the request, the progress
//! events, the outcome of [`Compactor::run`] and the draft of [`Compactor::draft`].

use compaction_core::entry::Entry;
use compaction_core::prune::Strategy;
use compaction_core::quality::QualityReport;

use crate::extension::ExtensionWarning;
use crate::prune::PruneOutcome;
use crate::reason::CompactionReason;
use crate::summarizer::{SummaryKind, SummaryProgress, SummaryUsage};

/// What to compact.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CompactRequest {
    /// The leaf to compact at; `None` is the current leaf.
    pub leaf: Option<String>,
    /// Extra focus for the summary.
    pub instructions: Option<String>,
    /// Why the compaction runs (told to extensions).
    pub reason: CompactionReason,
    /// Prune, summarize or both; `None` uses the settings' `strategy`.
    pub strategy: Option<Strategy>,
}

/// Progress of a running compaction.
#[derive(Debug, Clone, PartialEq)]
pub enum CompactionProgress {
    /// A summarizer call starts (`call` counts from 1 up to `calls`).
    Call {
        /// This call, counting from 1.
        call: usize,
        /// All calls the run will make.
        calls: usize,
        /// Which kind it is.
        kind: SummaryKind,
    },
    /// Progress inside a summarizer call.
    Summarizer(SummaryProgress),
    /// The quality gate rejected the summary; it is written again once, told what is
    /// missing.
    QualityRetry {
        /// What the rejected summary lacked.
        missing: Vec<String>,
    },
    /// The summarizer's summary was unusable twice; `summarizer` writes it instead
    /// (`fallbackToOffline`).
    Fallback {
        /// The summarizer that takes over.
        summarizer: String,
        /// What was wrong with the last summary.
        reason: Vec<String>,
    },
    /// The summarizer's server was asked for its window before planning.
    SummaryWindow {
        /// The window in effect and where it came from.
        note: String,
    },
    /// The server said its window is smaller than the one the requests were planned for;
    /// the compaction is planned again for it.
    WindowLearned {
        /// The server's window, in tokens.
        window: u64,
        /// The window the first plan used.
        planned: u64,
    },
    /// The summary budget was capped to a quarter of the window the server revealed, so
    /// that the requests fit it (`maxSummaryTokens` does not).
    BudgetCapped {
        /// The summary budget used, in tokens.
        max_summary_tokens: u64,
    },
    /// The deadline in effect, when it is not `timeoutSeconds` as set: raised for a server
    /// on this machine to what the planned requests may take.
    Deadline {
        /// The deadline in effect.
        limit: std::time::Duration,
        /// `timeoutSeconds`.
        configured: std::time::Duration,
        /// Why, in words for the user.
        reason: String,
    },
}

/// A compaction that was written.
#[derive(Debug, Clone)]
pub struct CompactOutcome {
    /// The last appended entry: the `compaction` entry, or the `compaction.prune` entry
    /// when pruning alone was enough. The new leaf either way.
    pub entry: Entry,
    /// The strategy that ran.
    pub strategy: Strategy,
    /// The prune, when one was written (before the compaction, if both ran).
    pub pruned: Option<PruneOutcome>,
    /// Whether a `compaction` entry was written.
    pub summarized: bool,
    /// The estimate of the context at the leaf before (before the prune, when one ran).
    pub tokens_before: u64,
    /// The estimate of the context after (the rebuilt context at the new leaf), measured
    /// the same way as [`tokens_before`](Self::tokens_before).
    pub tokens_after: u64,
    /// The last reply's recorded usage at the leaf before, when one can be trusted (the
    /// `compaction` entry's `tokensBefore` is pi's count from it); shown apart from the
    /// estimates, never compared with them.
    pub recorded_usage: Option<u64>,
    /// Usage summed over every summarizer call.
    pub usage: SummaryUsage,
    /// How many summarizer calls were made.
    pub summarizer_calls: usize,
    /// The extension that supplied the compaction (the entry has `fromHook: true`).
    pub decided_by: Option<String>,
    /// Extensions that failed and were skipped.
    pub warnings: Vec<ExtensionWarning>,
    /// The quality gate's verdict (`None` when an extension wrote the summary or nothing
    /// was summarized).
    pub quality: Option<QualityReport>,
}

/// A compaction computed but not written (see [`Compactor::draft`](super::Compactor::draft)).
#[derive(Debug, Clone)]
pub struct CompactionDraft {
    /// The fields of the `compaction` entry, without `type`, `id`, `parentId` and
    /// `timestamp`: `summary`, `firstKeptEntryId`, `tokensBefore`, `details`, `fromHook`
    /// and, when a summarizer ran, `usage`.
    pub fields: serde_json::Map<String, serde_json::Value>,
    /// The entry the compaction belongs under (the leaf); `None` for an empty path.
    pub parent_id: Option<String>,
    /// The entry's `tokensBefore`: pi's count of the context (the last reply's recorded
    /// usage plus the estimate of later messages), kept for pi; not comparable with
    /// [`tokens_after`](Self::tokens_after).
    pub tokens_before: u64,
    /// The estimate of the context at the leaf before: the "before" of
    /// [`tokens_after`](Self::tokens_after).
    pub estimated_tokens_before: u64,
    /// Estimated context tokens after (kept messages + the summary); `None` when an
    /// extension supplied the entry (then known only once it is appended).
    pub tokens_after: Option<u64>,
    /// Usage summed over every summarizer call.
    pub usage: SummaryUsage,
    /// How many summarizer calls were made.
    pub summarizer_calls: usize,
    /// The extension that supplied the compaction.
    pub decided_by: Option<String>,
    /// Extensions that failed and were skipped.
    pub warnings: Vec<ExtensionWarning>,
    /// The quality gate's verdict (`None` when an extension wrote the summary).
    pub quality: Option<QualityReport>,
}
