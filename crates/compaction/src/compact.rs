//! The one orchestration path for compaction: prune → plan → summarize → append.
//!
//! Manual runs (`compaction run`, `compaction prune`), automatic and overflow compaction in
//! the harness, and extension-driven compaction all call [`Compactor::run`]; hosts that
//! append entries themselves (`compaction summarize`) call [`Compactor::draft`], the summary
//! stage without the append. By the
//! request's [`Strategy`] it first prunes old tool outputs (`prune`, `hybrid`; see
//! [`crate::prune`]), and summarizes (`summarize`, or `hybrid` when the pruned context
//! still fires the trigger): it plans with the core (the same plan `compaction plan`
//! prints) over the pruned view, summarizes the history chunk by chunk — each chunk
//! updating the running summary — while the split turn's prefix is summarized
//! concurrently, builds the `compaction` entry and appends it through the store.
//!
//! Every summary it writes itself — LLM or offline — passes the quality gate
//! ([`compaction_core::quality`]) first: a rejected summary gets one retry that says what
//! is missing, then a deterministic Must Keep section (or, with `strictQuality`, the
//! compaction fails). The verdict is recorded in the entry's `details.quality`. With
//! `keepUserMessagesTokens`, the plan's verbatim user messages section
//! ([`compaction_core::user_messages`]) is appended to the gated summary, before the file
//! lists; the summarizer never sees it (it is taken off the previous summary).
//!
//! Invariant: the session file changes only by the appended lines (a `compaction.prune`
//! entry, a `compaction` entry, or the prune then the compaction), and only after every
//! summarizer call succeeded and the result is known to shrink the context; any error or
//! cancellation leaves the file byte-identical.
//!
//! Another program (pi) may append to the session while a compaction runs, without taking the
//! lock. The store notices before appending. When the new lines are complete and continue the
//! compacted branch (the leaf that was compacted is an ancestor of the new leaf, with no
//! compaction in between), the summary still covers exactly the entries it summarized and the
//! cut is still valid, so the entry is attached to the new leaf: the new messages stay in the
//! context after the kept ones, and no summarizer call is repeated. Otherwise (an incomplete
//! line, another branch, a rewrite, a compaction by someone else) nothing is written and
//! [`CompactError::Changed`] says why.

use compaction_core::entry::Entry;
use compaction_core::plan::{
    CompactionPlan, PlanError, PlanInputs, PlannedCompaction, plan_compaction,
};
use compaction_core::prepare::NothingToCompact;
use compaction_core::prune::{PrunePlan, Strategy};
use compaction_core::quality::{
    GateFacts, Problem, QualityReport, QualityStatus, check_summary, describe, repair,
    resolved_by_user_messages, retry_instructions,
};
use compaction_core::serialize::{Redactor, SerializeOptions};
use compaction_core::session::{Session, UnknownEntryId};
use compaction_core::settings::CompactionSettings;
use compaction_core::tokens::TokenEstimator;
use compaction_core::user_messages::with_kept_user_messages;
use std::time::Duration;

use futures_util::future::try_join;
use tokio_util::sync::CancellationToken;

use crate::error::SummarizerError;
use crate::extension::{
    AfterCompactEvent, BeforeCompactEvent, CompactionDecision, ExtensionWarning, Extensions,
};
use crate::prune::PruneOutcome;
use crate::store::{FileChange, NewEntry, Parent, SessionStore, StoreError};
use crate::summarizer::{
    Summarizer, SummaryKind, SummaryProgress, SummaryRequest, SummaryUsage, render_user_prompt,
};
use compaction_core::budget::split_in_two;

/// Why a compaction runs.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum CompactionReason {
    /// Asked for by the user (`compaction run`, `/compact`).
    #[default]
    Manual,
    /// The trigger fired before a model call.
    Threshold,
    /// The model rejected a request as too long.
    Overflow,
}

impl CompactionReason {
    /// The name extensions and logs see: `manual`, `threshold` or `overflow`.
    pub fn as_str(self) -> &'static str {
        match self {
            CompactionReason::Manual => "manual",
            CompactionReason::Threshold => "threshold",
            CompactionReason::Overflow => "overflow",
        }
    }
}

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
    /// Context tokens before (before the prune, when one ran).
    pub tokens_before: u64,
    /// Estimated context tokens after (summary + kept messages, or the pruned context).
    pub tokens_after: u64,
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

/// A compaction computed but not written (see [`Compactor::draft`]).
#[derive(Debug, Clone)]
pub struct CompactionDraft {
    /// The fields of the `compaction` entry, without `type`, `id`, `parentId` and
    /// `timestamp`: `summary`, `firstKeptEntryId`, `tokensBefore`, `details`, `fromHook`
    /// and, when a summarizer ran, `usage`.
    pub fields: serde_json::Map<String, serde_json::Value>,
    /// The entry the compaction belongs under (the leaf); `None` for an empty path.
    pub parent_id: Option<String>,
    /// Context tokens before.
    pub tokens_before: u64,
    /// Estimated context tokens after; `None` when an extension supplied the entry (then
    /// known only once it is appended).
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

/// Why a compaction did not happen. The session file is unchanged in every case.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CompactError {
    /// There is nothing to compact (not a failure: callers usually exit 0).
    #[error("nothing to compact: {0}")]
    Nothing(#[from] NothingToCompact),
    /// Pruning would save less than `prune.minimumSavings` (not a failure).
    #[error(
        "nothing worth pruning: the old tool outputs would save {saved} tokens, less than \
         the {minimum} a prune needs (prune.minimumSavings)"
    )]
    NothingToPrune {
        /// Tokens the prune saves.
        saved: u64,
        /// The smallest saving worth a prune.
        minimum: u64,
    },
    /// An extension cancelled the compaction (not a failure: callers usually exit 0).
    #[error("compaction cancelled by extension `{extension}`: {reason}")]
    Cancelled {
        /// Why, in words for the user.
        reason: String,
        /// The name of the extension.
        extension: String,
        /// Extensions that failed and were skipped.
        warnings: Vec<ExtensionWarning>,
    },
    /// The summary model's window cannot hold a request.
    #[error(transparent)]
    NoRoom(#[from] compaction_core::budget::NoRoomForTranscript),
    /// The leaf asked for does not exist.
    #[error(transparent)]
    UnknownLeaf(#[from] UnknownEntryId),
    /// A summarizer call failed (after its own retries).
    #[error("summarizing failed: {0}")]
    Summarizer(#[from] SummarizerError),
    /// The summary would not make the context smaller.
    #[error(
        "compaction refused: the context would grow from {before} to about {after} tokens \
         (the summary plus the kept messages); lower keepRecentTokens, maxSummaryTokens or \
         keepUserMessagesTokens"
    )]
    NotReducing {
        /// Context tokens before.
        before: u64,
        /// Estimated context tokens after.
        after: u64,
    },
    /// The compaction did not finish within its deadline (`timeoutSeconds`); the
    /// summarizer requests under way were abandoned and nothing was written.
    #[error("{}", DeadlineText("the compaction", *.limit))]
    TimedOut {
        /// The deadline that expired.
        limit: Duration,
    },
    /// The store could not append the entry.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// Another program wrote to the session while it was being compacted, in a way the
    /// compaction cannot follow; nothing was written. Running the compaction again helps.
    #[error(
        "session {path} changed while it was being compacted: {reason}; nothing was written, \
         run the compaction again"
    )]
    Changed {
        /// The session file (or other file) concerned.
        path: std::path::PathBuf,
        /// Why, in words for the user.
        reason: String,
    },
    /// The quality gate rejected the summary twice and `strictQuality` is on.
    #[error(
        "the summary was rejected {attempts} time{}: {}",
        if *attempts == 1 { "" } else { "s" },
        missing.join("; ")
    )]
    QualityRejected {
        /// What the last summary lacked.
        missing: Vec<String>,
        /// Summarizer attempts made.
        attempts: u32,
    },
}

/// Says which deadline expired and how to change it.
pub(crate) struct DeadlineText(pub(crate) &'static str, pub(crate) Duration);

impl std::fmt::Display for DeadlineText {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} did not finish within its deadline of {} s; raise it with the \
             `timeoutSeconds` setting or `--timeout SECONDS`",
            self.0,
            self.1.as_secs()
        )
    }
}

impl From<PlanError> for CompactError {
    fn from(error: PlanError) -> Self {
        match error {
            PlanError::NothingToCompact(nothing) => CompactError::Nothing(nothing),
            PlanError::NoRoom(no_room) => CompactError::NoRoom(no_room),
        }
    }
}

/// Where the summary stage starts: the leaf, a prune planned but not written yet, and the
/// time limit of the whole compaction.
struct SummarizeStage {
    leaf: Option<usize>,
    at_file_leaf: bool,
    pending: Option<PrunePlan>,
    deadline: tokio::time::Instant,
    limit: std::time::Duration,
}

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

impl Compactor<'_> {
    /// The longest one compaction or branch summary may take (`timeoutSeconds`).
    pub fn deadline(&self) -> Duration {
        Duration::from_secs(self.settings.timeout_seconds.max(1))
    }

    fn serialize_options(&self) -> SerializeOptions {
        SerializeOptions {
            tool_result_max_chars: usize::try_from(self.settings.tool_result_max_chars)
                .unwrap_or(usize::MAX),
            redactor: self.redactor.clone(),
        }
    }

    /// The dry run at `leaf`: exactly what [`Compactor::run`] would do there.
    pub fn plan(
        &self,
        session: &Session,
        leaf: Option<usize>,
        instructions: Option<&str>,
    ) -> CompactionPlan {
        let serialize = self.serialize_options();
        let inputs = PlanInputs {
            settings: self.settings,
            context_window: self.context_window,
            summary_window: self.summarizer.context_window(),
            estimator: self.estimator,
            serialize: &serialize,
            instructions,
        };
        plan_compaction(session, leaf, &inputs)
    }

    /// Compacts the session in `store` and appends the `compaction` entry.
    ///
    /// Everything before the append (extension hooks, every summarizer call) must finish
    /// within [`Compactor::deadline`]; past it the work under way is dropped (requests
    /// aborted, extension processes killed) and [`CompactError::TimedOut`] is returned with
    /// the file unchanged.
    pub async fn run(
        &self,
        store: &mut SessionStore,
        request: &CompactRequest,
        cancel: &CancellationToken,
        progress: &(dyn Fn(CompactionProgress) + Send + Sync),
    ) -> Result<CompactOutcome, CompactError> {
        let limit = self.deadline();
        let deadline = tokio::time::Instant::now() + limit;
        let strategy = request.strategy.unwrap_or(self.settings.strategy);
        let leaf = store.session().resolve_leaf(request.leaf.as_deref())?;
        let at_file_leaf = leaf == store.session().leaf();
        let mut warnings = Vec::new();
        let mut pending = None;
        if strategy != Strategy::Summarize {
            let deciding = self.decide_prune(store.session(), leaf, request.reason, cancel);
            let decided = tokio::time::timeout_at(deadline, deciding)
                .await
                .map_err(|_elapsed| CompactError::TimedOut { limit })?;
            match decided {
                Ok((plan, hook_warnings)) => {
                    warnings.extend(hook_warnings);
                    pending = Some(plan);
                }
                Err(error) if strategy == Strategy::Prune => return Err(error),
                Err(CompactError::NothingToPrune { .. }) => {}
                Err(CompactError::Cancelled { warnings: hook_warnings, .. }) => {
                    warnings.extend(hook_warnings);
                }
                Err(error) => return Err(error),
            }
            if let Some(plan) = pending.take() {
                if strategy == Strategy::Prune
                    || !self.fires_after_prune(store.session(), leaf, &plan)
                {
                    let pruned = self.append_prune(store, leaf, plan, at_file_leaf)?;
                    return Ok(CompactOutcome {
                        entry: pruned.entry.clone(),
                        strategy,
                        tokens_before: pruned.tokens_before,
                        tokens_after: pruned.tokens_after,
                        pruned: Some(pruned),
                        summarized: false,
                        usage: SummaryUsage::default(),
                        summarizer_calls: 0,
                        decided_by: None,
                        warnings,
                        quality: None,
                    });
                }
                pending = Some(plan);
            }
        }
        let stage = SummarizeStage { leaf, at_file_leaf, pending, deadline, limit };
        let mut outcome =
            self.summarize_stage(store, stage, request, warnings, cancel, progress).await?;
        outcome.strategy = strategy;
        Ok(outcome)
    }

    /// Summarizes at the stage's leaf (over the pruned view when it holds a prune that is
    /// not written yet) and appends the prune, then the compaction.
    async fn summarize_stage(
        &self,
        store: &mut SessionStore,
        stage: SummarizeStage,
        request: &CompactRequest,
        mut warnings: Vec<ExtensionWarning>,
        cancel: &CancellationToken,
        progress: &(dyn Fn(CompactionProgress) + Send + Sync),
    ) -> Result<CompactOutcome, CompactError> {
        let SummarizeStage { leaf, at_file_leaf, pending, deadline, limit } = stage;
        let with_prune = pending
            .as_ref()
            .map(|plan| crate::prune::with_pending_prune(store.session(), leaf, plan));
        let (session, plan_leaf) = match &with_prune {
            Some((session, leaf)) => (session, *leaf),
            None => (store.session(), leaf),
        };
        let drafting =
            self.draft_at(session, plan_leaf, request, (deadline, limit), cancel, progress);
        let draft = match drafting.await {
            Ok(draft) => draft,
            Err(CompactError::Cancelled { reason, extension, warnings: hook_warnings }) => {
                warnings.extend(hook_warnings);
                return Err(CompactError::Cancelled { reason, extension, warnings });
            }
            Err(error) => return Err(error),
        };
        warnings.extend(draft.warnings);
        drop(with_prune);
        let (parent, pruned) = self.append_pending_prune(store, leaf, pending, at_file_leaf)?;
        let fields = crate::prune::relink(draft.fields, pruned.as_ref());
        let new = NewEntry::new("compaction", fields).with_parent(parent);
        let follows = at_file_leaf || pruned.is_some();
        let (entry, tokens_before, tokens_after) = match draft.tokens_after {
            Some(tokens_after) => {
                let (entry, grown_by) = self.append_following(store, new, follows, true)?;
                (entry, draft.tokens_before + grown_by, tokens_after + grown_by)
            }
            // An extension's entry: count the context once it is appended.
            None => {
                let (entry, _) = self.append_following(store, new, follows, false)?;
                let session = store.session();
                let context =
                    compaction_core::context::build_context(session, session.index_of(&entry.id));
                let tokens =
                    compaction_core::tokens::context_tokens(session, &context, self.estimator);
                (entry, draft.tokens_before, tokens.tokens)
            }
        };
        warnings.extend(
            self.after_compact(&entry, draft.decided_by.as_deref(), request.reason, cancel).await,
        );
        Ok(CompactOutcome {
            entry,
            strategy: Strategy::Summarize,
            tokens_before: pruned.as_ref().map_or(tokens_before, |p| p.tokens_before),
            pruned,
            summarized: true,
            tokens_after,
            usage: draft.usage,
            summarizer_calls: draft.summarizer_calls,
            decided_by: draft.decided_by,
            warnings,
            quality: draft.quality,
        })
    }

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
        let limit = self.deadline();
        let deadline = tokio::time::Instant::now() + limit;
        let leaf = session.resolve_leaf(request.leaf.as_deref())?;
        self.draft_at(session, leaf, request, (deadline, limit), cancel, progress).await
    }

    /// Plans at `leaf` of `session` (the file's session, or its view with a pending prune),
    /// asks the extensions and summarizes; writes nothing.
    async fn draft_at(
        &self,
        session: &Session,
        leaf: Option<usize>,
        request: &CompactRequest,
        (deadline, limit): (tokio::time::Instant, std::time::Duration),
        cancel: &CancellationToken,
        progress: &(dyn Fn(CompactionProgress) + Send + Sync),
    ) -> Result<CompactionDraft, CompactError> {
        let plan = self.plan(session, leaf, request.instructions.as_deref());
        let mut planned = plan.compaction?;
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
        let gating = self.summarize_gated(session, leaf, planned, instructions, cancel, progress);
        let gated = tokio::time::timeout_at(deadline, gating)
            .await
            .map_err(|_elapsed| CompactError::TimedOut { limit })??;
        let (planned, summary, usage, calls, quality) =
            (gated.planned, gated.summary, gated.usage, gated.calls, gated.report);
        let usage_value = serde_json::to_value(usage).ok();
        // The verbatim user messages go after the gated summary (and any Must Keep
        // section), before the file lists: computed by the plan, the same for every
        // summarizer.
        let summary = with_kept_user_messages(&summary, planned.kept_user_messages.as_ref());
        let mut fields = planned.preparation.entry_fields(&summary, usage_value);
        if let Some(serde_json::Value::Object(details)) = fields.get_mut("details") {
            details
                .insert("quality".to_owned(), serde_json::to_value(&quality).unwrap_or_default());
        }
        let stored_summary =
            fields.get("summary").and_then(serde_json::Value::as_str).unwrap_or_default();
        let tokens_before = planned.preparation.tokens_before;
        let tokens_after =
            planned.preparation.kept_tokens + self.estimator.text_tokens(stored_summary);
        if tokens_after >= tokens_before {
            return Err(CompactError::NotReducing { before: tokens_before, after: tokens_after });
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
            tokens_after: Some(tokens_after),
            usage,
            summarizer_calls: calls,
            decided_by: None,
            warnings,
            quality: Some(quality),
        })
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
        let refused = |store: &SessionStore, reason: String| CompactError::Changed {
            path: store.path().to_path_buf(),
            reason,
        };
        match store.append(new.clone()) {
            Ok(entry) => return Ok((entry, 0)),
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
        let Parent::Id(compacted_leaf) = new.parent.clone() else {
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
        let mut fields = new.fields;
        if recount && let Some(tokens) = fields.get_mut("tokensBefore") {
            let counted = tokens.as_u64().unwrap_or_default() + grown_by;
            *tokens = serde_json::Value::from(counted);
        }
        let retry = NewEntry { fields, ..new }.with_parent(Parent::Id(new_leaf_id));
        match store.append(retry) {
            Ok(entry) => Ok((entry, grown_by)),
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

    /// Summarizes and passes the result through the quality gate: one retry told what is
    /// missing, then a repair (or, with `strictQuality`, an error).
    async fn summarize_gated(
        &self,
        session: &Session,
        leaf: Option<usize>,
        planned: PlannedCompaction,
        instructions: Option<String>,
        cancel: &CancellationToken,
        progress: &(dyn Fn(CompactionProgress) + Send + Sync),
    ) -> Result<Gated, CompactError> {
        let must_keep = planned.preparation.must_keep();
        let pins = planned.pins.clone();
        let facts = GateFacts {
            must_keep: &must_keep,
            pins: &pins,
            checkpoint: !planned.history_chunks.is_empty(),
        };
        let first = self
            .summarize_attempt(&planned, instructions.as_deref(), None, cancel, progress)
            .await?;
        let section = planned.kept_user_messages.as_ref().map(|kept| kept.section.clone());
        let mut problems = first.problems(&facts, section.as_deref());
        let mut gated = Gated {
            planned,
            summary: first.text,
            usage: first.usage,
            calls: first.calls,
            report: QualityReport {
                status: QualityStatus::Passed,
                attempts: 1,
                missing: Vec::new(),
                first_attempt_missing: Vec::new(),
            },
        };
        if problems.is_empty() {
            return Ok(gated);
        }
        if self.summarizer.follows_instructions() {
            let retry_text = retry_instructions(&problems);
            let retry = match instructions.as_deref() {
                Some(given) => format!("{given}\n\n{retry_text}"),
                None => retry_text.clone(),
            };
            // The added instructions take room in the requests: plan again. When they do
            // not fit, there is no retry and the repair follows.
            if let Ok(replanned) = self.plan(session, leaf, Some(&retry)).compaction {
                progress(CompactionProgress::QualityRetry { missing: describe(&problems) });
                let second = self
                    .summarize_attempt(
                        &replanned,
                        instructions.as_deref(),
                        Some(&retry_text),
                        cancel,
                        progress,
                    )
                    .await?;
                gated.report.first_attempt_missing = describe(&problems);
                gated.report.attempts = 2;
                gated.usage = gated.usage.add(&second.usage);
                gated.calls += second.calls;
                problems = second.problems(&facts, section.as_deref());
                gated.summary = second.text;
                gated.planned = replanned;
                if problems.is_empty() {
                    return Ok(gated);
                }
            }
        }
        gated.report.missing = describe(&problems);
        if self.settings.strict_quality {
            return Err(CompactError::QualityRejected {
                missing: gated.report.missing,
                attempts: gated.report.attempts,
            });
        }
        gated.summary = repair(&gated.summary, &problems, &facts);
        gated.report.status = QualityStatus::Repaired;
        Ok(gated)
    }

    /// One summarization for the gate. A model that answered with nothing, or whose
    /// summary stayed cut off at the output limit, gave a summary the gate rejects (retry,
    /// then repair) like any other; other errors pass through.
    async fn summarize_attempt(
        &self,
        planned: &PlannedCompaction,
        instructions: Option<&str>,
        retry: Option<&str>,
        cancel: &CancellationToken,
        progress: &(dyn Fn(CompactionProgress) + Send + Sync),
    ) -> Result<Attempt, SummarizerError> {
        let calls = planned.history_chunks.len() + planned.turn_prefix_chunks.len();
        let failed = |truncated| Attempt {
            text: String::new(),
            usage: SummaryUsage::default(),
            calls,
            truncated,
        };
        match self.summarize_with_retry(planned, instructions, retry, cancel, progress).await {
            Ok((text, usage, calls)) => Ok(Attempt { text, usage, calls, truncated: false }),
            Err(SummarizerError::EmptyOutput { .. }) => Ok(failed(false)),
            Err(SummarizerError::Truncated { .. }) => Ok(failed(true)),
            Err(other) => Err(other),
        }
    }

    /// Tells the extensions a compaction entry was written.
    async fn after_compact(
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

    /// Runs every summarizer call of a plan and merges the results.
    pub async fn summarize(
        &self,
        planned: &PlannedCompaction,
        instructions: Option<&str>,
        cancel: &CancellationToken,
        progress: &(dyn Fn(CompactionProgress) + Send + Sync),
    ) -> Result<(String, SummaryUsage, usize), SummarizerError> {
        self.summarize_with_retry(planned, instructions, None, cancel, progress).await
    }

    /// [`Compactor::summarize`] with `retry` (what a rejected summary lacked) added to the
    /// history summary's instructions, or to the turn prefix's when there is no history.
    async fn summarize_with_retry(
        &self,
        planned: &PlannedCompaction,
        instructions: Option<&str>,
        retry: Option<&str>,
        cancel: &CancellationToken,
        progress: &(dyn Fn(CompactionProgress) + Send + Sync),
    ) -> Result<(String, SummaryUsage, usize), SummarizerError> {
        let with_retry = match (instructions, retry) {
            (Some(given), Some(retry)) => Some(format!("{given}\n\n{retry}")),
            (None, Some(retry)) => Some(retry.to_owned()),
            (given, None) => given.map(str::to_owned),
        };
        let (history_instructions, prefix_instructions) = if planned.history_chunks.is_empty() {
            (instructions, with_retry.as_deref())
        } else {
            (with_retry.as_deref(), instructions)
        };
        let preparation = &planned.preparation;
        let calls = planned.history_chunks.len() + planned.turn_prefix_chunks.len();
        // The pins go into one of the two summaries that are joined, so they appear once:
        // the history's, or the turn prefix's when only a split turn is summarized.
        let pins = planned.pin_texts();
        let (history_pins, prefix_pins): (&[String], &[String]) =
            if planned.history_chunks.is_empty() { (&[], &pins) } else { (&pins, &[]) };
        let history = ChunkJob {
            kind: SummaryKind::History,
            chunks: &planned.history_chunks,
            messages: &preparation.messages_to_summarize,
            previous_summary: preparation.previous_summary.clone(),
            instructions: history_instructions,
            pins: history_pins,
            replace_instructions: false,
            max_output_tokens: self.settings.max_summary_tokens,
            first_call: 1,
            calls,
        };
        let prefix = ChunkJob {
            kind: SummaryKind::TurnPrefix,
            chunks: &planned.turn_prefix_chunks,
            messages: &preparation.turn_prefix_messages,
            previous_summary: None,
            instructions: prefix_instructions,
            pins: prefix_pins,
            first_call: planned.history_chunks.len() + 1,
            ..history.clone()
        };
        let ((history, history_usage, history_calls), (prefix, prefix_usage, prefix_calls)) =
            try_join(
                self.run_job(history, cancel, progress),
                self.run_job(prefix, cancel, progress),
            )
            .await?;
        let summary = merge_summaries(history.as_deref(), prefix.as_deref());
        Ok((summary, history_usage.add(&prefix_usage), history_calls + prefix_calls))
    }

    /// Splits messages into transcript chunks that fit this compactor's summarizer.
    pub fn chunk_transcript(
        &self,
        messages: &[compaction_core::AgentMessage],
        shape: compaction_core::plan::RequestShape<'_>,
    ) -> Result<Vec<String>, compaction_core::budget::NoRoomForTranscript> {
        compaction_core::plan::chunk_transcript(
            messages,
            &self.serialize_options(),
            self.summarizer.context_window(),
            self.estimator,
            shape,
        )
    }

    /// Summarizes chunks in order, each updating the running summary. Returns the summary,
    /// the usage summed over every call, and the number of calls made.
    ///
    /// Two answers count as failures of a call and are handled here for every summarizer:
    /// a chunk the model rejects as too long for its window is split in two and each half
    /// summarized in turn (at most [`MAX_OVERFLOW_SPLITS`] times in a row per chunk), and a
    /// summary cut off at the output limit is asked for once more with a larger budget
    /// that still fits the window, then fails with [`SummarizerError::Truncated`].
    pub async fn run_job(
        &self,
        job: ChunkJob<'_>,
        cancel: &CancellationToken,
        progress: &(dyn Fn(CompactionProgress) + Send + Sync),
    ) -> Result<(Option<String>, SummaryUsage, usize), SummarizerError> {
        let mut running = job.previous_summary.clone();
        let mut usage = SummaryUsage::default();
        let mut calls = 0;
        let max_output = u32::try_from(job.max_output_tokens).unwrap_or(u32::MAX);
        let forward = |p: SummaryProgress| progress(CompactionProgress::Summarizer(p));
        for (number, chunk) in job.chunks.iter().enumerate() {
            progress(CompactionProgress::Call {
                call: job.first_call + number,
                calls: job.calls,
                kind: job.kind,
            });
            // Every text that reaches the summarizer is redacted here (the transcript
            // chunks already are, by the serializer): the user's instructions, the pins and
            // the summary carried in, which may quote secrets from an earlier compaction.
            let redact = |text: &str| self.redactor.redact(text).into_owned();
            // Pieces still to summarize, in order, with how many splits made each.
            let mut pending: Vec<(&str, u32)> = vec![(chunk.as_str(), 0)];
            while let Some((piece, splits)) = pending.pop() {
                let mut request = SummaryRequest::new(job.kind, piece, max_output);
                request.language = self.settings.summary_language.clone();
                match (job.instructions, job.replace_instructions) {
                    (Some(instructions), true) => {
                        request.task_override = Some(redact(instructions));
                    }
                    (instructions, _) => request.instructions = instructions.map(redact),
                }
                request.pins = job.pins.iter().map(|pin| redact(pin)).collect();
                if number == 0 && splits == 0 {
                    request.messages = job.messages.to_vec();
                }
                request.previous_summary = running.as_deref().map(redact);
                let outcome = self.summarize_complete(request, cancel, &forward).await;
                let halves = match &outcome {
                    Err(SummarizerError::ContextOverflow { .. })
                        if splits < MAX_OVERFLOW_SPLITS =>
                    {
                        split_in_two(piece)
                    }
                    Ok(_) | Err(_) => None,
                };
                if let Some((first, second)) = halves {
                    calls += outcome.as_ref().err().map_or(0, |error| error.attempts()) as usize;
                    forward(SummaryProgress::Retrying {
                        attempt: 1,
                        delay: Duration::ZERO,
                        reason: "the request exceeded the model's context window; \
                                 summarizing the chunk in two halves"
                            .to_owned(),
                    });
                    // Popped from the end: the first half runs first.
                    pending.push((second, splits + 1));
                    pending.push((first, splits + 1));
                    continue;
                }
                let (response, call_usage, call_count) = outcome?;
                usage = usage.add(&call_usage);
                calls += call_count;
                running = Some(response.text);
            }
        }
        Ok((running, usage, calls))
    }

    /// One summarizer call that must end with a complete summary: a reply cut off at the
    /// output limit is asked for once more with a larger budget, when the summary model's
    /// window and output limit allow one. Returns the response, the usage of every request
    /// made and their number.
    async fn summarize_complete(
        &self,
        mut request: SummaryRequest,
        cancel: &CancellationToken,
        progress: &(dyn Fn(SummaryProgress) + Send + Sync),
    ) -> Result<(crate::summarizer::SummaryResponse, SummaryUsage, usize), SummarizerError> {
        let first = self.summarizer.summarize(&request, cancel, progress).await?;
        if !first.truncated {
            let usage = first.usage;
            return Ok((first, usage, 1));
        }
        let limit = request.max_output_tokens;
        let larger = self.larger_output_budget(&request).filter(|&larger| larger > limit);
        let Some(larger) = larger else {
            return Err(SummarizerError::Truncated { max_output_tokens: limit, attempts: 1 });
        };
        progress(SummaryProgress::Retrying {
            attempt: 1,
            delay: Duration::ZERO,
            reason: format!(
                "the summary was cut off at the output limit of {limit} tokens; \
                 asking again with {larger}"
            ),
        });
        request.max_output_tokens = larger;
        let second = self.summarizer.summarize(&request, cancel, progress).await?;
        if second.truncated {
            return Err(SummarizerError::Truncated { max_output_tokens: larger, attempts: 2 });
        }
        let usage = first.usage.add(&second.usage);
        Ok((second, usage, 2))
    }

    /// The output budget for asking again after a truncated summary: twice the budget, but
    /// no more than the summary model's output limit and what its window leaves after the
    /// request's input (estimated, with a tenth added for estimation error).
    fn larger_output_budget(&self, request: &SummaryRequest) -> Option<u32> {
        let doubled = u64::from(request.max_output_tokens).saturating_mul(2);
        let mut budget = doubled.min(self.summarizer.max_output_tokens().unwrap_or(u64::MAX));
        if let Some(window) = self.summarizer.context_window() {
            let input = self.estimator.text_tokens(&request.system_prompt)
                + self.estimator.text_tokens(&render_user_prompt(request))
                + REQUEST_FRAMING_TOKENS;
            let room = window.saturating_sub(input + input / 10);
            budget = budget.min(room);
        }
        u32::try_from(budget).ok()
    }
}

/// How many times in a row one transcript chunk may be halved after the model rejected it
/// as too long for its window (so a chunk becomes at most 2^3 = 8 requests).
pub const MAX_OVERFLOW_SPLITS: u32 = 3;

/// Tokens counted for a request's message framing besides its texts.
const REQUEST_FRAMING_TOKENS: u64 = 64;

/// One summarization as the quality gate sees it.
struct Attempt {
    text: String,
    usage: SummaryUsage,
    calls: usize,
    /// The summarizer stopped at its output limit (even after asking with a larger one).
    truncated: bool,
}

impl Attempt {
    /// What the summary lacks; a fact in the user's words that `kept_user_messages` (the
    /// section appended after it) quotes is not missing.
    fn problems(&self, facts: &GateFacts<'_>, kept_user_messages: Option<&str>) -> Vec<Problem> {
        let mut problems = check_summary(&self.text, self.truncated, facts);
        // With no text at all, a cut-off summary is reported as both.
        if self.truncated && !problems.contains(&Problem::Truncated) {
            problems.push(Problem::Truncated);
        }
        match kept_user_messages {
            Some(section) => resolved_by_user_messages(problems, section, facts),
            None => problems,
        }
    }
}

/// A summary that went through the quality gate, with the plan it was written for.
struct Gated {
    planned: PlannedCompaction,
    summary: String,
    usage: SummaryUsage,
    calls: usize,
    report: QualityReport,
}

/// A sequence of summarizer calls over the chunks of one transcript.
#[derive(Debug, Clone)]
pub struct ChunkJob<'a> {
    /// Which kind it is.
    pub kind: SummaryKind,
    /// Transcript chunks, in order.
    pub chunks: &'a [String],
    /// The structured messages behind the chunks (given to the first call).
    pub messages: &'a [compaction_core::AgentMessage],
    /// The summary the first chunk updates.
    pub previous_summary: Option<String>,
    /// Custom instructions for the summary.
    pub instructions: Option<&'a str>,
    /// The pinned instructions every call carries, verbatim (the summary repeats them).
    pub pins: &'a [String],
    /// Use `instructions` as the task prompt instead of appending them.
    pub replace_instructions: bool,
    /// The output budget in tokens.
    pub max_output_tokens: u64,
    /// Number of the first call, for progress (from 1).
    pub first_call: usize,
    /// Calls in the whole operation, for progress.
    pub calls: usize,
}

/// Joins the history summary and the split turn's prefix summary.
pub fn merge_summaries(history: Option<&str>, prefix: Option<&str>) -> String {
    match (history.map(str::trim), prefix.map(str::trim)) {
        (Some(history), Some(prefix)) => format!(
            "{history}\n\n---\n\n**Earlier in the turn that is still in progress:**\n\n{prefix}"
        ),
        (Some(history), None) => history.to_owned(),
        (None, Some(prefix)) => {
            format!("**Earlier in the turn that is still in progress:**\n\n{prefix}")
        }
        (None, None) => String::new(),
    }
}

fn without_type(
    mut fields: serde_json::Map<String, serde_json::Value>,
) -> serde_json::Map<String, serde_json::Value> {
    fields.shift_remove("type");
    fields
}
