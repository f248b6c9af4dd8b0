//! The prune stage of the orchestration: plan a prune with the core, append the
//! `compaction.prune` entry.
//!
//! [`Compactor::prune`] is called by [`Compactor::run`] for the `prune` and `hybrid`
//! strategies and by `compaction prune`; [`Compactor::plan_prune`] is its dry run.
//! Invariant: the session file changes by at most the one appended `custom` line, and only
//! when the plan saves at least `prune.minimumSavings`; otherwise it is byte-identical.

use compaction_core::context::build_context;
use compaction_core::entry::Entry;
use compaction_core::prune::{PruneDecision, PrunePlan, plan_prune};
use compaction_core::session::Session;
use tokio_util::sync::CancellationToken;

use crate::compact::{CompactError, CompactRequest, Compactor};
use crate::extension::ExtensionWarning;
use crate::store::{NewEntry, Parent, SessionStore};

/// A prune that was written.
#[derive(Debug, Clone)]
pub struct PruneOutcome {
    /// The appended `compaction.prune` entry.
    pub entry: Entry,
    /// What was pruned.
    pub plan: PrunePlan,
    /// Context tokens at the leaf before the prune.
    pub tokens_before: u64,
    /// Context tokens after it (the rebuilt context, measured).
    pub tokens_after: u64,
    /// Extensions that failed and were skipped.
    pub warnings: Vec<ExtensionWarning>,
}

impl Compactor<'_> {
    /// The dry run of [`Compactor::prune`] at `leaf`.
    pub fn plan_prune(&self, session: &Session, leaf: Option<usize>) -> PrunePlan {
        let context = build_context(session, leaf);
        plan_prune(session, &context, &self.settings.prune, self.estimator)
    }

    /// Prunes old tool outputs at the request's leaf and appends the `compaction.prune`
    /// entry. [`CompactError::NothingToPrune`] when the saving is below the minimum.
    pub async fn prune(
        &self,
        store: &mut SessionStore,
        request: &CompactRequest,
        cancel: &CancellationToken,
    ) -> Result<PruneOutcome, CompactError> {
        let leaf = store.session().resolve_leaf(request.leaf.as_deref())?;
        let plan = self.plan_prune(store.session(), leaf);
        if plan.decision != PruneDecision::Prune {
            return Err(CompactError::NothingToPrune {
                saved: plan.tokens_saved,
                minimum: plan.minimum_savings,
            });
        }
        let warnings = Vec::new();
        if cancel.is_cancelled() {
            return Err(CompactError::Summarizer(crate::error::SummarizerError::Cancelled {
                attempts: 0,
                elapsed: std::time::Duration::ZERO,
            }));
        }
        let parent = match leaf {
            Some(index) => Parent::Id(store.session().entries()[index].id.clone()),
            None => Parent::Root,
        };
        let new = NewEntry::new("custom", plan.record().entry_fields()).with_parent(parent);
        let entry = store.append(new)?;
        let session = store.session();
        let context = build_context(session, session.index_of(&entry.id));
        let tokens_after =
            compaction_core::tokens::context_tokens(session, &context, self.estimator).tokens;
        Ok(PruneOutcome { entry, tokens_before: plan.tokens_before, tokens_after, plan, warnings })
    }
}
