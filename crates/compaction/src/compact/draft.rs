//! The summary stage without the append, and the append itself: [`Compactor::draft`] plans,
//! asks the extensions and summarizes through the gate; `append_following` writes the entry,
//! re-attaching it when another program appended to the compacted branch meanwhile; the
//! extensions are told afterwards.

use compaction_core::entry::Entry;
use compaction_core::plan::PlannedCompaction;
use compaction_core::session::Session;
use compaction_core::user_messages::with_kept_user_messages;

use tokio_util::sync::CancellationToken;

use crate::error::SummarizerError;
use crate::extension::{
    AfterCompactEvent, BeforeCompactEvent, CompactionDecision, ExtensionWarning,
};
use crate::store::{FileChange, NewEntry, Parent, SessionStore, StoreError};
use crate::summarizer::SummaryUsage;

use super::{
    CompactError, CompactRequest, CompactionDraft, CompactionProgress, CompactionReason, Compactor,
};

impl Compactor<'_> {
    /// Computes the compaction at the request's leaf without writing anything: plans, asks
    /// the extensions, summarizes and checks that the context shrinks, within
    /// [`Compactor::deadline`]. The summary stage of [`Compactor::run`] (strategy
    /// `summarize`: no prune is planned, since a prune would have to be written first); a
    /// host that appends entries itself (pi, through its extension API) appends
    /// [`CompactionDraft::fields`] under [`CompactionDraft::parent_id`].
    pub async fn draft(
        &self,
        session: &Session,
        request: &CompactRequest,
        cancel: &CancellationToken,
        progress: &(dyn Fn(CompactionProgress) + Send + Sync),
    ) -> Result<CompactionDraft, CompactError> {
        let leaf = session.resolve_leaf(request.leaf.as_deref())?;
        let sample = self.tokenizer_sample(session, leaf, request.instructions.as_deref());
        self.prepare_summarizer(&sample, cancel, progress).await?;
        let limit = self.deadline_for(session, leaf, request.instructions.as_deref(), progress);
        let deadline = tokio::time::Instant::now() + limit;
        self.draft_at((session, leaf, None), request, (deadline, limit), cancel, progress).await
    }

    /// Plans at `leaf` of `session` (the file's session, or its view with a pending prune),
    /// asks the extensions and summarizes; writes nothing. `measured` is the estimate of the
    /// context at `leaf` when the caller has taken it ([`Compactor::measure_at`]).
    pub(super) async fn draft_at(
        &self,
        (session, leaf, measured): (&Session, Option<usize>, Option<u64>),
        request: &CompactRequest,
        (deadline, limit): (tokio::time::Instant, std::time::Duration),
        cancel: &CancellationToken,
        progress: &(dyn Fn(CompactionProgress) + Send + Sync),
    ) -> Result<CompactionDraft, CompactError> {
        let plan = self.plan(session, leaf, request.instructions.as_deref());
        let mut planned = plan.compaction?;
        let estimated_tokens_before = measured.unwrap_or_else(|| self.measure_at(session, leaf).0);
        let parent_id = leaf.map(|index| session.entries()[index].id.clone());
        let mut instructions = request.instructions.clone();
        let mut warnings = Vec::new();
        if !self.extensions.is_empty() {
            let settings = serde_json::to_value(self.settings).unwrap_or_default();
            let event = BeforeCompactEvent {
                session,
                preparation: &planned.preparation,
                custom_instructions: request.instructions.as_deref(),
                reason: request.reason,
                settings: &settings,
                cancel: cancel.clone(),
            };
            let hooks =
                tokio::time::timeout_at(deadline, self.extensions.decide_compaction(&event))
                    .await
                    .map_err(|_elapsed| CompactError::TimedOut { limit })?;
            warnings = hooks.warnings;
            match hooks.decision {
                CompactionDecision::Cancelled { reason, extension } => {
                    return Err(CompactError::Cancelled { reason, extension, warnings });
                }
                CompactionDecision::Replaced { replacement, extension } => {
                    return Ok(CompactionDraft {
                        tokens_before: replacement.tokens_before,
                        estimated_tokens_before,
                        fields: without_type(replacement.entry_fields()),
                        parent_id,
                        tokens_after: None,
                        usage: SummaryUsage::default(),
                        summarizer_calls: 0,
                        decided_by: Some(extension),
                        warnings,
                        quality: None,
                    });
                }
                CompactionDecision::BuiltIn { instructions: merged } => {
                    if merged != instructions {
                        // Added instructions take room in every request: plan again.
                        instructions = merged;
                        planned = self.plan(session, leaf, instructions.as_deref()).compaction?;
                    }
                }
            }
        }
        let gated = self
            .gate_within_window(
                (session, leaf, estimated_tokens_before),
                planned,
                instructions,
                (deadline, limit),
                cancel,
                progress,
            )
            .await?;
        let (planned, summary, usage, calls, quality) =
            (gated.planned, gated.summary, gated.usage, gated.calls, gated.report);
        let usage_value = usage.stored();
        // The verbatim user messages go after the gated summary (and any Must Keep
        // section), before the file lists, in `keepUserMessagesTokens` and the room the
        // stored summary leaves of its budget: the same rule for every summarizer.
        let summary = self.with_user_words(&planned, &summary, estimated_tokens_before);
        let mut fields = planned.preparation.entry_fields(&summary, usage_value);
        if let Some(serde_json::Value::Object(details)) = fields.get_mut("details") {
            details
                .insert("quality".to_owned(), serde_json::to_value(&quality).unwrap_or_default());
        }
        let stored_summary =
            fields.get("summary").and_then(serde_json::Value::as_str).unwrap_or_default();
        let tokens_before = planned.preparation.tokens_before;
        // The context after holds the kept messages, the summary and, with pins, the pins
        // message after it (which the kept tokens do not count).
        let pins_message = if planned.pins.is_empty() {
            0
        } else {
            self.estimator.text_tokens(&compaction_core::pins::pins_message_text(&planned.pins))
        };
        let tokens_after = planned.preparation.kept_tokens
            + self.estimator.text_tokens(stored_summary)
            + pins_message;
        if tokens_after >= estimated_tokens_before {
            return Err(CompactError::NotReducing {
                before: estimated_tokens_before,
                after: tokens_after,
                pins: planned.pin_sizes(self.estimator),
            });
        }
        if cancel.is_cancelled() {
            return Err(SummarizerError::Cancelled {
                attempts: 0,
                elapsed: std::time::Duration::ZERO,
            }
            .into());
        }
        Ok(CompactionDraft {
            fields: without_type(fields),
            parent_id,
            tokens_before,
            estimated_tokens_before,
            tokens_after: Some(tokens_after),
            usage,
            summarizer_calls: calls,
            decided_by: None,
            warnings,
            quality: Some(quality),
        })
    }

    /// `summary` with the verbatim user messages appended
    /// ([`PlannedCompaction::user_messages_after`]), so that the context still shrinks below
    /// `before` tokens: the room they may take from the summary's budget is narrowed by what
    /// an estimate of the joined text overshoots (estimates are not exactly additive), and
    /// at worst the summary goes without them: the user's words never make a compaction
    /// that shrinks the context one that is refused.
    fn with_user_words(&self, planned: &PlannedCompaction, summary: &str, before: u64) -> String {
        let stored_tokens =
            |text: &str| self.estimator.text_tokens(&planned.preparation.stored_summary(text));
        let stored = planned.preparation.stored_summary(summary);
        let kept = planned.preparation.kept_tokens;
        let mut growth = before
            .saturating_sub(kept)
            .saturating_sub(self.estimator.text_tokens(&stored))
            .saturating_sub(1);
        for _ in 0..4 {
            let section =
                planned.user_messages_after(&stored, growth, self.estimator, &self.redactor);
            let with = with_kept_user_messages(summary, section.as_ref());
            let after = kept + stored_tokens(&with);
            if after < before {
                return with;
            }
            growth = growth.saturating_sub(after - before + 1 + growth / 16);
        }
        with_kept_user_messages(summary, None)
    }

    /// The most tokens a summary of `planned` may take for the compaction to leave the
    /// context smaller than `before` tokens (its estimate at the leaf): `before` less the
    /// kept messages, the file lists the entry appends and a margin for estimates that do
    /// not add up exactly. `None` below [`MIN_SUMMARY_ROOM`]: no useful summary fits there,
    /// the budget stays as set, and a summary that does not shrink the context is refused.
    pub(super) fn summary_room(&self, planned: &PlannedCompaction, before: u64) -> Option<u64> {
        let lists = self.estimator.text_tokens(&planned.preparation.stored_summary(""));
        let room = before
            .saturating_sub(planned.preparation.kept_tokens)
            .saturating_sub(lists)
            .saturating_sub(ESTIMATE_MARGIN);
        (room >= MIN_SUMMARY_ROOM).then_some(room)
    }

    /// The gated summary of `planned`. When the server answers that a request exceeds a
    /// window smaller than the one the plan was made for (llama-cpp-python reveals its window
    /// only this way), the compaction is planned once more for the window it named; an
    /// overflow that remains becomes [`CompactError::WindowTooSmall`], which says where the
    /// window is set.
    #[allow(clippy::too_many_arguments)]
    async fn gate_within_window(
        &self,
        (session, leaf, before): (&Session, Option<usize>, u64),
        mut planned: compaction_core::plan::PlannedCompaction,
        instructions: Option<String>,
        (deadline, limit): (tokio::time::Instant, std::time::Duration),
        cancel: &CancellationToken,
        progress: &(dyn Fn(CompactionProgress) + Send + Sync),
    ) -> Result<super::gate::Gated, CompactError> {
        let first_window = self.summarizer.context_window();
        let sent_before = self.summarizer.requests_sent();
        let usage_before = self.summarizer.usage_received();
        let mut replanned = false;
        loop {
            let window = self.summarizer.context_window();
            let outcome = {
                let gating = self.summarize_gated(
                    (session, leaf, before),
                    planned,
                    instructions.clone(),
                    cancel,
                    progress,
                );
                tokio::time::timeout_at(deadline, gating)
                    .await
                    .map_err(|_elapsed| CompactError::TimedOut { limit })?
            };
            let (error, server) = match outcome {
                Ok(mut gated) => {
                    // Every request the summarizer sent counts, those of a plan made again
                    // and of discarded answers too.
                    if let (Some(before), Some(after)) =
                        (sent_before, self.summarizer.requests_sent())
                    {
                        let sent =
                            usize::try_from(after.saturating_sub(before)).unwrap_or(usize::MAX);
                        gated.calls = sent + gated.fallback_calls;
                        if let Some(fallback) = gated.report.fallback.as_mut() {
                            fallback.requests = sent;
                        }
                    }
                    // Likewise the usage: every reply received, discarded ones too.
                    if let (Some(before), Some(after)) =
                        (usage_before, self.summarizer.usage_received())
                    {
                        gated.usage = after.since(&before).add(&gated.fallback_usage);
                    }
                    return Ok(gated);
                }
                Err(CompactError::Summarizer(SummarizerError::ContextOverflow {
                    message,
                    window: server,
                    attempts,
                    elapsed,
                })) => (
                    SummarizerError::ContextOverflow { message, window: server, attempts, elapsed },
                    server,
                ),
                Err(CompactError::Unusable { summarizer, problems, attempts, requests }) => {
                    // Every request the summarizer sent, as for a summary that passed.
                    let sent = match (sent_before, self.summarizer.requests_sent()) {
                        (Some(before), Some(after)) => {
                            usize::try_from(after.saturating_sub(before)).unwrap_or(usize::MAX)
                        }
                        _ => requests,
                    };
                    return Err(CompactError::Unusable {
                        summarizer,
                        problems,
                        attempts,
                        requests: sent,
                    });
                }
                Err(other) => return Err(other),
            };
            let learned = self.summarizer.context_window();
            if !replanned
                && let (Some(server), Some(before), Some(now)) = (server, window, learned)
                && now < before
            {
                replanned = true;
                progress(CompactionProgress::WindowLearned { window: server, planned: before });
                // The summary budget is capped to a quarter of the window the plan is made
                // for (see `summary_output_tokens_for`): say so when that lowered it.
                let budget = self.settings.summary_output_tokens_for(Some(now));
                if budget < self.settings.summary_output_tokens_for(Some(before)) {
                    progress(CompactionProgress::BudgetCapped { max_summary_tokens: budget });
                }
                if let Ok(again) = self.plan(session, leaf, instructions.as_deref()).compaction {
                    planned = again;
                    continue;
                }
            }
            // A window too small for any request ends here, with the overflow told.
            return Err(CompactError::WindowTooSmall {
                error,
                planned: first_window.unwrap_or(self.context_window),
                server,
            });
        }
    }

    /// Tells the extensions a compaction entry was written.
    pub(super) async fn after_compact(
        &self,
        entry: &Entry,
        decided_by: Option<&str>,
        reason: CompactionReason,
        cancel: &CancellationToken,
    ) -> Vec<ExtensionWarning> {
        if self.extensions.is_empty() {
            return Vec::new();
        }
        let settings = serde_json::to_value(self.settings).unwrap_or_default();
        let value = entry.to_value().unwrap_or_default();
        let event = AfterCompactEvent {
            entry: &value,
            from_extension: decided_by.is_some(),
            decided_by,
            reason,
            settings: &settings,
            cancel: cancel.clone(),
        };
        self.extensions.after_compact(&event).await
    }

    /// Appends the compaction entry. When another program appended complete lines that
    /// continue the compacted branch (and the compaction was asked at the file's leaf), the
    /// entry is attached to the new leaf instead; with `recount`, its `tokensBefore` then
    /// counts the new messages too. Returns the entry and the tokens the new messages add.
    pub(crate) fn append_following(
        &self,
        store: &mut SessionStore,
        new: NewEntry,
        at_file_leaf: bool,
        recount: bool,
    ) -> Result<(Entry, u64), CompactError> {
        let (mut entries, grown_by) =
            self.append_all_following(store, vec![new], at_file_leaf, recount)?;
        let entry = entries.pop().ok_or_else(|| CompactError::Changed {
            path: store.path().to_path_buf(),
            reason: "no entry was written".to_owned(),
        })?;
        Ok((entry, grown_by))
    }

    /// [`Compactor::append_following`] for a chain of entries written as one: the first
    /// names its parent, each later one has [`Parent::Leaf`] (the entry before it in the
    /// chain). All of them are written, or none.
    pub(crate) fn append_all_following(
        &self,
        store: &mut SessionStore,
        news: Vec<NewEntry>,
        at_file_leaf: bool,
        recount: bool,
    ) -> Result<(Vec<Entry>, u64), CompactError> {
        let refused = |store: &SessionStore, reason: String| CompactError::Changed {
            path: store.path().to_path_buf(),
            reason,
        };
        match store.append_all(news.clone()) {
            Ok(entries) => return Ok((entries, 0)),
            Err(StoreError::Changed { change: change @ FileChange::Grew { .. }, .. }) => {
                if !at_file_leaf {
                    return Err(refused(
                        store,
                        format!("{change}, and the compaction was asked at another leaf"),
                    ));
                }
            }
            Err(StoreError::Changed { change, .. }) => {
                return Err(refused(store, change.to_string()));
            }
            Err(error) => return Err(error.into()),
        }
        let Some(Parent::Id(compacted_leaf)) = news.first().map(|new| new.parent.clone()) else {
            return Err(refused(store, "another program appended to it".to_owned()));
        };
        let before = self.context_tokens_at(store.session(), &compacted_leaf);
        store.reload()?;
        let session = store.session();
        let Some(new_leaf) = session.leaf() else {
            return Err(refused(store, "its entries are gone".to_owned()));
        };
        let path = session.path(new_leaf);
        let entries = session.entries();
        let Some(position) = path.iter().position(|&index| entries[index].id == compacted_leaf)
        else {
            return Err(refused(
                store,
                "another program appended entries on another branch".to_owned(),
            ));
        };
        if path[position + 1..].iter().any(|&index| entries[index].kind.as_compaction().is_some()) {
            return Err(refused(store, "another program compacted it meanwhile".to_owned()));
        }
        let new_leaf_id = entries[new_leaf].id.clone();
        let grown_by = self.context_tokens_at(session, &new_leaf_id).saturating_sub(before);
        let retry: Vec<NewEntry> = news
            .into_iter()
            .enumerate()
            .map(|(position, new)| {
                let mut fields = new.fields;
                if recount && let Some(tokens) = fields.get_mut("tokensBefore") {
                    let counted = tokens.as_u64().unwrap_or_default() + grown_by;
                    *tokens = serde_json::Value::from(counted);
                }
                let new = NewEntry { fields, ..new };
                if position == 0 { new.with_parent(Parent::Id(new_leaf_id.clone())) } else { new }
            })
            .collect();
        match store.append_all(retry) {
            Ok(entries) => Ok((entries, grown_by)),
            Err(StoreError::Changed { change, .. }) => Err(refused(store, change.to_string())),
            Err(error) => Err(error.into()),
        }
    }

    /// Context tokens at the entry `id` (0 when it does not exist).
    fn context_tokens_at(&self, session: &Session, id: &str) -> u64 {
        let Some(index) = session.index_of(id) else {
            return 0;
        };
        let context = compaction_core::context::build_context(session, Some(index));
        compaction_core::tokens::context_tokens(session, &context, self.estimator).tokens
    }
}

/// The least room, in tokens, worth fitting a summary into (see [`Compactor::summary_room`]).
const MIN_SUMMARY_ROOM: u64 = 256;

/// Tokens by which the estimate of a joined text may exceed the sum of its parts'.
const ESTIMATE_MARGIN: u64 = 8;

pub(super) fn without_type(
    mut fields: serde_json::Map<String, serde_json::Value>,
) -> serde_json::Map<String, serde_json::Value> {
    fields.shift_remove("type");
    fields
}
