//! Moving to another entry of the session tree, summarizing the branch left behind.
//!
//! The same shape as compaction: plan with the core (collect the abandoned entries, choose
//! the messages under the token budget), summarize through the same [`Summarizer`](crate::summarizer::Summarizer) and the
//! same chunking, then append one `branch_summary` entry as a child of the target with
//! `fromId` = the old leaf ([`Compactor::navigate`]; [`Compactor::draft_branch_summary`] is
//! the same path without the append, for hosts that append entries themselves). Invariant: with nothing to summarize nothing is written, and a
//! failed or cancelled summary leaves the session file byte-identical.

use compaction_core::branch::{
    BranchCollection, BranchPreparation, branch_summary_entry_fields, collect_branch_entries,
    prepare_branch_entries,
};
use compaction_core::entry::Entry;
use compaction_core::files::{FileOperations, file_lists_appendix};
use compaction_core::session::{Session, UnknownEntryId};

use crate::compact::{ChunkJob, CompactionProgress, Compactor};
use crate::error::SummarizerError;
use crate::extension::{
    AfterBranchSummaryEvent, BeforeBranchSummaryEvent, BranchSummaryDecision, ExtensionWarning,
};
use crate::store::{NewEntry, Parent, SessionStore, StoreError};
use crate::summarizer::{SummaryKind, SummaryUsage};
use compaction_core::plan::RequestShape;
use compaction_core::prompts::PromptTask;
use tokio_util::sync::CancellationToken;

/// Where to go and what to do with the branch left behind.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct NavigateRequest {
    /// The entry to continue from.
    pub target: String,
    /// The leaf being left; `None` is the current leaf.
    pub from: Option<String>,
    /// Whether to summarize the abandoned branch.
    pub summarize: bool,
    /// Extra focus for the summary.
    pub instructions: Option<String>,
    /// Use `instructions` instead of the built-in branch prompt.
    pub replace_instructions: bool,
    /// Token budget for the branch's messages; `None` is window − reserve.
    pub token_budget: Option<u64>,
}

/// The dry run of a navigation.
#[derive(Debug, Clone, PartialEq)]
pub struct BranchPlan {
    /// The leaf left behind.
    pub old_leaf: usize,
    /// The entry moved to.
    pub target: usize,
    /// The branch entries collected for the summary.
    pub collection: BranchCollection,
    /// What to summarize and where the cut is.
    pub preparation: BranchPreparation,
    /// The token budget of the summary input.
    pub token_budget: u64,
}

/// What a navigation did.
#[derive(Debug, Clone)]
pub struct NavigateOutcome {
    /// The plan that was carried out.
    pub plan: BranchPlan,
    /// The appended `branch_summary` entry, when one was written.
    pub entry: Option<Entry>,
    /// Tokens the summarizer calls used.
    pub usage: SummaryUsage,
    /// The extension that supplied the summary (the entry has `fromHook: true`).
    pub decided_by: Option<String>,
    /// Extensions that failed and were skipped.
    pub warnings: Vec<ExtensionWarning>,
}

/// A branch summary computed but not written (see [`Compactor::draft_branch_summary`]).
#[derive(Debug, Clone)]
pub struct BranchSummaryDraft {
    /// The navigation's plan (abandoned entries, messages under the budget).
    pub plan: BranchPlan,
    /// The leaf being left (the entry's `fromId`).
    pub from_id: String,
    /// The entry the summary belongs under.
    pub target_id: String,
    /// The fields of the `branch_summary` entry without `type`, `id`, `parentId` and
    /// `timestamp`; `None` when there is nothing to write (no summary asked for, or no
    /// messages on the abandoned branch).
    pub fields: Option<serde_json::Map<String, serde_json::Value>>,
    /// Usage summed over every summarizer call.
    pub usage: SummaryUsage,
    /// The extension that supplied the summary.
    pub decided_by: Option<String>,
    /// Extensions that failed and were skipped.
    pub warnings: Vec<ExtensionWarning>,
}

/// Why a navigation failed. The session file is unchanged in every case.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum NavigateError {
    /// The entry to move to, or to move from, does not exist.
    #[error(transparent)]
    UnknownEntry(#[from] UnknownEntryId),
    /// The target is the leaf already.
    #[error("entry `{0}` is already the current leaf")]
    AlreadyThere(String),
    /// The session has no entries to navigate.
    #[error("the session has no entries")]
    Empty,
    /// The summary model's window cannot hold a request.
    #[error(transparent)]
    NoRoom(#[from] compaction_core::budget::NoRoomForTranscript),
    /// An extension cancelled the branch summary (nothing written; not a failure).
    #[error("branch summary cancelled by extension `{extension}`: {reason}")]
    Cancelled {
        /// Why, in words for the user.
        reason: String,
        /// The name of the extension.
        extension: String,
        /// Extensions that failed and were skipped.
        warnings: Vec<ExtensionWarning>,
    },
    /// A summarizer call failed (after its own retries).
    #[error("summarizing the branch failed: {0}")]
    Summarizer(#[from] SummarizerError),
    /// The branch summary did not finish within its deadline (`timeoutSeconds`); nothing
    /// was written.
    #[error("{}", crate::compact::DeadlineText("the branch summary", *.limit))]
    TimedOut {
        /// The deadline that expired.
        limit: std::time::Duration,
    },
    /// The store could not append the entry.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// The branch summary was cut off at the output limit (after the retry with a larger
    /// budget, when the window left room for one).
    #[error(
        "the branch summary was cut off at the output limit of {max_output_tokens} tokens \
         ({}); raise branchMaxSummaryTokens (branch --max-summary-tokens)",
        compaction_core::plural::plural(*attempts, "request")
    )]
    Truncated {
        /// The output limit of the last request.
        max_output_tokens: u32,
        /// Requests made for it.
        attempts: u32,
    },
    /// The summarizer's reply is no summary (empty, a refusal, an echo of the request);
    /// nothing was written.
    #[error("{summarizer} gave no usable branch summary: {}; nothing was written", problems.join("; "))]
    Unusable {
        /// The summarizer's label.
        summarizer: String,
        /// What was wrong with the reply.
        problems: Vec<String>,
    },
}

/// The words put before a branch summary in the entry.
pub const BRANCH_SUMMARY_PREAMBLE: &str =
    "Work done on another branch of this session before the user came back here:";

impl Compactor<'_> {
    /// Plans the move from `request.from` (or the current leaf) to `request.target`.
    pub fn plan_navigation(
        &self,
        session: &Session,
        request: &NavigateRequest,
    ) -> Result<BranchPlan, NavigateError> {
        let old_leaf = match &request.from {
            Some(id) => session.index_of(id).ok_or_else(|| UnknownEntryId(id.clone()))?,
            None => session.leaf().ok_or(NavigateError::Empty)?,
        };
        let target = session
            .index_of(&request.target)
            .ok_or_else(|| UnknownEntryId(request.target.clone()))?;
        if target == old_leaf {
            return Err(NavigateError::AlreadyThere(request.target.clone()));
        }
        let collection = collect_branch_entries(session, old_leaf, target);
        let token_budget = request
            .token_budget
            .unwrap_or_else(|| self.context_window.saturating_sub(self.settings.reserve_tokens));
        let estimate =
            |message: &compaction_core::AgentMessage| self.estimator.message_tokens(message);
        let mut preparation =
            prepare_branch_entries(session, &collection.entries, token_budget, &estimate);
        // The file lists leave redacted, as a compaction's do.
        (preparation.read_files, preparation.modified_files) = FileOperations::redacted_lists(
            &preparation.read_files,
            &preparation.modified_files,
            &self.redactor,
        );
        Ok(BranchPlan { old_leaf, target, collection, preparation, token_budget })
    }

    /// Computes the branch summary of a navigation without writing anything: plans, asks
    /// the extensions and summarizes the abandoned branch when asked and there is something
    /// to summarize, within [`Compactor::deadline`]. [`Compactor::navigate`] appends what
    /// this returns; a host that appends entries itself appends
    /// [`BranchSummaryDraft::fields`] under [`BranchSummaryDraft::target_id`].
    pub async fn draft_branch_summary(
        &self,
        session: &Session,
        request: &NavigateRequest,
        cancel: &CancellationToken,
        progress: &(dyn Fn(CompactionProgress) + Send + Sync),
    ) -> Result<BranchSummaryDraft, NavigateError> {
        let started = tokio::time::Instant::now();
        let plan = self.plan_navigation(session, request)?;
        // Scaled for a server on this machine, as a compaction's deadline is: the branch
        // read in requests of at most half the summary window each.
        let limit = if request.summarize && !plan.preparation.messages.is_empty() {
            let tokens: u64 =
                plan.preparation.messages.iter().map(|m| self.estimator.message_tokens(m)).sum();
            let per_request = self.summarizer.context_window().map_or(tokens, |w| w / 2).max(1);
            let requests = tokens.div_ceil(per_request).max(1);
            let inputs = vec![tokens / requests; usize::try_from(requests).unwrap_or(1)];
            self.local_deadline(&inputs, self.settings.branch_max_summary_tokens, progress)
        } else {
            self.deadline()
        };
        let deadline = started + limit;
        let timed_out = |_elapsed| NavigateError::TimedOut { limit };
        let from_id = session.entries()[plan.old_leaf].id.clone();
        let target_id = session.entries()[plan.target].id.clone();
        if !request.summarize || plan.preparation.messages.is_empty() {
            return Ok(BranchSummaryDraft {
                plan,
                from_id,
                target_id,
                fields: None,
                usage: SummaryUsage::default(),
                decided_by: None,
                warnings: Vec::new(),
            });
        }
        // Redacted like every text a server is sent.
        let sample: String = compaction_core::serialize::serialize_messages(
            &plan.preparation.messages,
            &self.serialize_options(),
        )
        .chars()
        .take(16 * 1024)
        .collect();
        match self.prepare_summarizer(&sample, cancel, progress).await {
            Ok(()) => {}
            Err(crate::compact::CompactError::Summarizer(error)) => return Err(error.into()),
            Err(crate::compact::CompactError::TimedOut { limit }) => {
                return Err(NavigateError::TimedOut { limit });
            }
            // `prepare_summarizer` fails only by cancellation or its deadline.
            Err(other) => {
                return Err(NavigateError::Summarizer(SummarizerError::Config {
                    message: other.to_string(),
                }));
            }
        }
        let mut instructions = request.instructions.clone();
        let mut warnings = Vec::new();
        if !self.extensions.is_empty() {
            let settings = serde_json::to_value(self.settings).unwrap_or_default();
            let common_ancestor_id =
                plan.collection.common_ancestor.map(|index| session.entries()[index].id.clone());
            let event = BeforeBranchSummaryEvent {
                session,
                old_leaf_id: &from_id,
                target_id: &target_id,
                common_ancestor_id: common_ancestor_id.as_deref(),
                entries: &plan.collection.entries,
                messages: &plan.preparation.messages,
                message_entry_ids: &plan.preparation.entry_ids,
                read_files: &plan.preparation.read_files,
                modified_files: &plan.preparation.modified_files,
                custom_instructions: request.instructions.as_deref(),
                settings: &settings,
                cancel: cancel.clone(),
            };
            let hooks =
                tokio::time::timeout_at(deadline, self.extensions.decide_branch_summary(&event))
                    .await
                    .map_err(timed_out)?;
            warnings = hooks.warnings;
            match hooks.decision {
                BranchSummaryDecision::Cancelled { reason, extension } => {
                    return Err(NavigateError::Cancelled { reason, extension, warnings });
                }
                BranchSummaryDecision::Replaced { replacement, extension } => {
                    let mut fields = replacement.entry_fields(&from_id);
                    fields.shift_remove("type");
                    return Ok(BranchSummaryDraft {
                        plan,
                        from_id,
                        target_id,
                        fields: Some(fields),
                        usage: SummaryUsage::default(),
                        decided_by: Some(extension),
                        warnings,
                    });
                }
                BranchSummaryDecision::BuiltIn { instructions: merged } => instructions = merged,
            }
        }
        let max_output = self.summarizer.output_budget(
            self.settings.branch_output_tokens_for(self.summarizer.context_window()),
        );
        let instructions = instructions.as_deref();
        // The summary is appended at the target, so it carries the pins in force there (a
        // pin made on the branch being left does not apply on the target's path).
        let pins: Vec<String> = compaction_core::pins::active_pins(session, Some(plan.target))
            .into_iter()
            .map(|pin| pin.text)
            .collect();
        let shape = RequestShape {
            task: PromptTask::Branch,
            instructions,
            pins: &pins,
            max_output_tokens: max_output,
            carried_summary_tokens: max_output,
        };
        let chunks = self.chunk_transcript(&plan.preparation.messages, shape)?;
        let job = ChunkJob {
            kind: SummaryKind::Branch,
            chunks: &chunks,
            messages: &plan.preparation.messages,
            // A branch summary goes where the user arrives, not before what it settles.
            after: &[],
            previous_summary: None,
            instructions,
            pins: &pins,
            replace_instructions: request.replace_instructions,
            max_output_tokens: max_output,
            first_call: 1,
            calls: chunks.len(),
            planned_window: self.summarizer.context_window(),
        };
        let outcome = tokio::time::timeout_at(deadline, self.run_job(job, cancel, progress))
            .await
            .map_err(timed_out)?;
        let (summary, usage, _calls) = match outcome {
            Err(SummarizerError::Truncated { max_output_tokens, attempts }) => {
                return Err(NavigateError::Truncated { max_output_tokens, attempts });
            }
            other => other?,
        };
        let summary = summary.unwrap_or_default();
        // A reply that is no summary is never stored (the gate's unusable checks).
        let nothing = compaction_core::must_keep::MustKeep::default();
        let facts = compaction_core::quality::GateFacts {
            must_keep: &nothing,
            pins: &[],
            checkpoint: false,
            summarized_tokens: chunks.iter().map(|chunk| self.estimator.text_tokens(chunk)).sum(),
        };
        let unusable: Vec<String> =
            compaction_core::quality::check_summary(&summary, false, &facts)
                .iter()
                .filter(|problem| {
                    if self.summarizer.follows_instructions() {
                        problem.is_unusable()
                    } else {
                        problem.is_unreadable()
                    }
                })
                .map(ToString::to_string)
                .collect();
        if !unusable.is_empty() {
            return Err(NavigateError::Unusable {
                summarizer: self.summarizer.label(),
                problems: unusable,
            });
        }
        let text = format!(
            "{BRANCH_SUMMARY_PREAMBLE}\n\n{}{}",
            summary.trim(),
            file_lists_appendix(&plan.preparation.read_files, &plan.preparation.modified_files)
        );
        if cancel.is_cancelled() {
            return Err(SummarizerError::Cancelled {
                attempts: 0,
                elapsed: std::time::Duration::ZERO,
            }
            .into());
        }
        let mut fields = branch_summary_entry_fields(
            &text,
            &from_id,
            &plan.preparation.details(),
            usage.stored(),
            false,
        );
        fields.shift_remove("type");
        Ok(BranchSummaryDraft {
            plan,
            from_id,
            target_id,
            fields: Some(fields),
            usage,
            decided_by: None,
            warnings,
        })
    }

    /// Navigates: plans, summarizes the abandoned branch when asked and there is something
    /// to summarize ([`Compactor::draft_branch_summary`]), and appends the `branch_summary`
    /// entry under the target.
    pub async fn navigate(
        &self,
        store: &mut SessionStore,
        request: &NavigateRequest,
        cancel: &CancellationToken,
        progress: &(dyn Fn(CompactionProgress) + Send + Sync),
    ) -> Result<NavigateOutcome, NavigateError> {
        let draft = self.draft_branch_summary(store.session(), request, cancel, progress).await?;
        let Some(fields) = draft.fields else {
            return Ok(NavigateOutcome {
                plan: draft.plan,
                entry: None,
                usage: draft.usage,
                decided_by: None,
                warnings: draft.warnings,
            });
        };
        let entry = store.append(
            NewEntry::new("branch_summary", fields).with_parent(Parent::Id(draft.target_id)),
        )?;
        let mut warnings = draft.warnings;
        warnings
            .extend(self.after_branch_summary(&entry, draft.decided_by.as_deref(), cancel).await);
        Ok(NavigateOutcome {
            plan: draft.plan,
            entry: Some(entry),
            usage: draft.usage,
            decided_by: draft.decided_by,
            warnings,
        })
    }

    /// Tells the extensions a branch summary entry was written.
    async fn after_branch_summary(
        &self,
        entry: &Entry,
        decided_by: Option<&str>,
        cancel: &CancellationToken,
    ) -> Vec<ExtensionWarning> {
        if self.extensions.is_empty() {
            return Vec::new();
        }
        let settings = serde_json::to_value(self.settings).unwrap_or_default();
        let value = entry.to_value().unwrap_or_default();
        let event = AfterBranchSummaryEvent {
            entry: &value,
            from_extension: decided_by.is_some(),
            decided_by,
            settings: &settings,
            cancel: cancel.clone(),
        };
        self.extensions.after_branch_summary(&event).await
    }
}
