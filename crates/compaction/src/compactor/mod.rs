//! What every compaction runs with ([`Compactor`]) and how it fails ([`CompactError`]).
//!
//! The orchestration ([`crate::compact`]: `run`, `draft`, the deadline) and the prune stage
//! ([`crate::prune`]) both add methods to the [`Compactor`]; it lives here so that neither
//! depends on the other for it, and so that the prune stage does not depend on the
//! orchestration that calls it.

mod error;

pub use error::CompactError;
pub(crate) use error::DeadlineText;

use compaction_core::serialize::Redactor;
use compaction_core::settings::CompactionSettings;
use compaction_core::tokens::TokenEstimator;

use crate::extension::Extensions;
use crate::summarizer::Summarizer;

/// Everything a compaction needs besides the session.
pub struct Compactor<'a> {
    /// Writes the summaries.
    pub summarizer: &'a dyn Summarizer,
    /// The compaction settings in effect.
    pub settings: &'a CompactionSettings,
    /// The chat model's context window.
    pub context_window: u64,
    /// Counts tokens.
    pub estimator: &'a dyn TokenEstimator,
    /// Secrets to redact besides the built-in patterns (API keys in use).
    pub redactor: Redactor,
    /// Hooks asked before and told after every compaction and branch summary.
    pub extensions: &'a Extensions,
}

impl std::fmt::Debug for Compactor<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Compactor")
            .field("summarizer", &self.summarizer.label())
            .field("context_window", &self.context_window)
            .field("estimator", &self.estimator.name())
            .finish_non_exhaustive()
    }
}
