//! The prune stage of the orchestration: plan a prune with the core, let extensions change
//! or cancel it, and append its `context_edit` entries and its `compaction.prune` record in
//! one write.
//!
//! [`Compactor::run`] calls these for the `prune` and `hybrid` strategies (and
//! `compaction prune` runs it with `prune`); [`Compactor::plan_prune`] is the dry run.
//! When a summary follows the prune (`hybrid`), the summary is planned over the session
//! with the prune added in memory only ([`with_pending_prune`]), and both entries are
//! appended after the summary succeeded.
//!
//! Invariant: the session file changes by at most the appended lines, and a prune is
//! written only when it saves at least `prune.minimumSavings` (or an extension chose the
//! set); otherwise the file is byte-identical.

use compaction_core::context::build_context;
use compaction_core::entry::Entry;
use compaction_core::prune::select::plan_prune_of;
use compaction_core::prune::{PruneDecision, PrunePlan, plan_prune};
use compaction_core::session::Session;
use compaction_core::tokens::{context_tokens, estimate_context_tokens};
use compaction_core::trigger::should_compact;
use serde_json::{Map, Value};
use tokio_util::sync::CancellationToken;

use crate::compactor::{CompactError, Compactor};
use crate::extension::{BeforePruneEvent, ExtensionWarning, PruneHookDecision};
use crate::reason::CompactionReason;
use crate::store::{NewEntry, Parent, SessionStore};

/// The id the prune entry has in the in-memory session a summary is planned on, before
/// the store gives it its real id.
const PENDING_PRUNE_ID: &str = "compaction.prune.pending";

/// A prune that was written.
#[derive(Debug, Clone)]
pub struct PruneOutcome {
    /// The appended `compaction.prune` entry.
    pub entry: Entry,
    /// The appended `context_edit` entries, one per pruned output, in plan order.
    pub edits: Vec<Entry>,
    /// What was pruned.
    pub plan: PrunePlan,
    /// The estimate of the context at the leaf before the prune.
    pub tokens_before: u64,
    /// The estimate of the context after it (the rebuilt context, measured the same way).
    pub tokens_after: u64,
    /// The last reply's recorded usage before the prune (shown apart, never compared).
    pub recorded_usage: Option<u64>,
    /// The extension that chose the set, if one did.
    pub decided_by: Option<String>,
}

impl Compactor<'_> {
    /// The dry run of the prune stage at `leaf` (extensions are not asked).
    pub fn plan_prune(&self, session: &Session, leaf: Option<usize>) -> PrunePlan {
        let context = build_context(session, leaf);
        plan_prune(session, &context, &self.settings.prune, self.estimator)
    }

    /// Plans the prune at `leaf` and asks the extensions' `before_prune`. Errors:
    /// [`CompactError::NothingToPrune`] when the saving is below the minimum (or an
    /// extension's set is empty), [`CompactError::Cancelled`] when an extension cancels.
    pub(crate) async fn decide_prune(
        &self,
        session: &Session,
        leaf: Option<usize>,
        reason: CompactionReason,
        cancel: &CancellationToken,
    ) -> Result<(PrunePlan, Vec<ExtensionWarning>), CompactError> {
        let context = build_context(session, leaf);
        let plan = plan_prune(session, &context, &self.settings.prune, self.estimator);
        if plan.decision != PruneDecision::Prune || self.extensions.is_empty() {
            return match plan.decision {
                PruneDecision::Prune => Ok((plan, Vec::new())),
                PruneDecision::BelowMinimum | PruneDecision::Nothing => {
                    Err(CompactError::NothingToPrune {
                        saved: plan.tokens_saved,
                        minimum: plan.minimum_savings,
                    })
                }
            };
        }
        let settings = serde_json::to_value(self.settings).unwrap_or_default();
        let event = BeforePruneEvent {
            session,
            plan: &plan,
            reason,
            settings: &settings,
            cancel: cancel.clone(),
        };
        let hooks = self.extensions.decide_prune(&event).await;
        match hooks.decision {
            PruneHookDecision::Continue => Ok((plan, hooks.warnings)),
            PruneHookDecision::Cancel { reason, extension } => {
                Err(CompactError::Cancelled { reason, extension, warnings: hooks.warnings })
            }
            PruneHookDecision::Prune { entry_ids, .. } => {
                let chosen = plan_prune_of(
                    session,
                    &context,
                    &self.settings.prune,
                    self.estimator,
                    &entry_ids,
                );
                if chosen.candidates.is_empty() {
                    return Err(CompactError::NothingToPrune {
                        saved: 0,
                        minimum: plan.minimum_savings,
                    });
                }
                Ok((chosen, hooks.warnings))
            }
        }
    }

    /// Whether the trigger still fires once `plan` is applied at `leaf`.
    pub(crate) fn fires_after_prune(
        &self,
        session: &Session,
        leaf: Option<usize>,
        plan: &PrunePlan,
    ) -> bool {
        let (pruned, leaf) = with_pending_prune(session, leaf, plan);
        let context = build_context(&pruned, leaf);
        let tokens = context_tokens(&pruned, &context, self.estimator).tokens;
        let messages = u64::try_from(context.items.len()).unwrap_or(u64::MAX);
        should_compact(tokens, messages, self.context_window, self.settings).fire
    }

    /// Appends the prune entry for `plan` under `leaf` and measures the context after it.
    pub(crate) fn append_prune(
        &self,
        store: &mut SessionStore,
        leaf: Option<usize>,
        plan: PrunePlan,
        at_file_leaf: bool,
    ) -> Result<PruneOutcome, CompactError> {
        let parent = match leaf {
            Some(index) => Parent::Id(store.session().entries()[index].id.clone()),
            None => Parent::Root,
        };
        let record = plan.record();
        let mut news: Vec<NewEntry> = record
            .context_edits()
            .into_iter()
            .map(|fields| NewEntry::new("context_edit", fields))
            .collect();
        news.push(NewEntry::new("custom", record.entry_fields()));
        if let Some(first) = news.first_mut() {
            first.parent = parent;
        }
        let (mut entries, _) = self.append_all_following(store, news, at_file_leaf, false)?;
        let entry = entries.pop().ok_or_else(|| CompactError::Changed {
            path: store.path().to_path_buf(),
            reason: "no entry was written".to_owned(),
        })?;
        let edits = entries;
        let session = store.session();
        let context = build_context(session, session.index_of(&entry.id));
        let tokens_after = estimate_context_tokens(session, &context, self.estimator);
        Ok(PruneOutcome {
            entry,
            edits,
            tokens_before: plan.tokens_before,
            recorded_usage: plan.recorded_usage,
            tokens_after,
            plan,
            decided_by: None,
        })
    }

    /// Appends the prune a summary was planned over (if any); returns the parent for the
    /// compaction entry.
    pub(crate) fn append_pending_prune(
        &self,
        store: &mut SessionStore,
        leaf: Option<usize>,
        pending: Option<PrunePlan>,
        at_file_leaf: bool,
    ) -> Result<(Parent, Option<PruneOutcome>), CompactError> {
        match pending {
            Some(plan) => {
                let pruned = self.append_prune(store, leaf, plan, at_file_leaf)?;
                Ok((Parent::Id(pruned.entry.id.clone()), Some(pruned)))
            }
            None => {
                let parent = match leaf {
                    Some(index) => Parent::Id(store.session().entries()[index].id.clone()),
                    None => Parent::Root,
                };
                Ok((parent, None))
            }
        }
    }
}

/// A copy of `session` with the entries a prune for `plan` writes (its context edits, then
/// its record) added under `leaf` in memory only, and the index of the record (the new
/// leaf).
pub fn with_pending_prune(
    session: &Session,
    leaf: Option<usize>,
    plan: &PrunePlan,
) -> (Session, Option<usize>) {
    let mut copy = session.clone();
    let record = plan.record();
    let mut pending: Vec<(String, &str, Map<String, Value>)> = record
        .context_edits()
        .into_iter()
        .enumerate()
        .map(|(number, fields)| {
            (format!("{PENDING_PRUNE_ID}.edit{number}"), "context_edit", fields)
        })
        .collect();
    pending.push((PENDING_PRUNE_ID.to_owned(), "custom", record.entry_fields()));
    let mut parent =
        leaf.map_or(Value::Null, |index| Value::from(session.entries()[index].id.clone()));
    for (id, entry_type, mut fields) in pending {
        fields.insert("type".into(), Value::from(entry_type));
        fields.insert("id".into(), Value::from(id.clone()));
        fields.insert("parentId".into(), parent);
        fields.insert("timestamp".into(), Value::from("1970-01-01T00:00:00.000Z"));
        let line = copy.entries().len() + 2;
        let pushed = compaction_core::Entry::from_value(line, &Value::Object(fields))
            .map_err(|error| error.to_string())
            .and_then(|entry| copy.push(entry));
        if pushed.is_err() {
            // Only when the session already has an entry with a pending id: plan unpruned.
            return (session.clone(), leaf);
        }
        parent = Value::from(id);
    }
    let index = copy.index_of(PENDING_PRUNE_ID);
    (copy, index)
}

/// Points a compaction's `firstKeptEntryId` at the written prune entry (or edit) when it named the
/// pending one.
pub(crate) fn relink(
    mut fields: Map<String, Value>,
    pruned: Option<&PruneOutcome>,
) -> Map<String, Value> {
    let Some(pruned) = pruned else { return fields };
    let written = match fields.get("firstKeptEntryId").and_then(Value::as_str) {
        Some(PENDING_PRUNE_ID) => Some(pruned.entry.id.clone()),
        Some(id) => id
            .strip_prefix(PENDING_PRUNE_ID)
            .and_then(|rest| rest.strip_prefix(".edit"))
            .and_then(|number| number.parse::<usize>().ok())
            .and_then(|number| pruned.edits.get(number))
            .map(|edit| edit.id.clone()),
        None => None,
    };
    if let Some(id) = written {
        fields.insert("firstKeptEntryId".into(), Value::from(id));
    }
    fields
}
