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
//!
//! Stages, one module each: `request` (what is asked and answered), `draft` (plan, hooks,
//! summary, append), `gate` (the quality gate) and `chunks` (the summarizer calls); this
//! module holds [`Compactor::run`], which prunes first by the strategy and hands the summary
//! stage to `draft`. The [`Compactor`] itself, its [`CompactError`] and the
//! [`CompactionReason`] live in [`crate::compactor`] and [`crate::reason`], which the
//! extensions and the prune stage use without depending on this module.

mod chunks;
mod draft;
mod figures;
mod gate;
mod request;

pub(crate) use crate::compactor::DeadlineText;
pub use crate::compactor::{CompactError, Compactor};
pub use crate::reason::CompactionReason;
pub use chunks::{ChunkJob, MAX_OVERFLOW_SPLITS, merge_summaries};
pub use figures::{recorded_usage_note, token_change};
pub use request::{CompactOutcome, CompactRequest, CompactionDraft, CompactionProgress};

use compaction_core::plan::{CompactionPlan, PlanInputs, plan_compaction};
use compaction_core::prune::{PrunePlan, Strategy};
use compaction_core::serialize::SerializeOptions;
use compaction_core::session::Session;
use compaction_core::settings::CompactionSettings;
use std::time::Duration;

use tokio_util::sync::CancellationToken;

use crate::extension::ExtensionWarning;
use crate::store::{NewEntry, SessionStore};
use crate::summarizer::SummaryUsage;

/// Prompt tokens per second assumed for a summarizer on this machine when scaling the
/// deadline. llama-cpp-python on a 2-core CPU read a 7,400-token prompt in 80 s (93 tokens/s);
/// this is about half that.
pub const LOCAL_PROMPT_TOKENS_PER_SECOND: u64 = 50;

/// Output tokens per second assumed for a summarizer on this machine when scaling the
/// deadline: CPU-only models measured 12 to 39 tokens/s.
pub const LOCAL_OUTPUT_TOKENS_PER_SECOND: u64 = 10;

/// Bytes of transcript a server's tokenizer is measured on.
const TOKENIZER_SAMPLE_BYTES: usize = 16 * 1024;

/// Where the summary stage starts: the leaf, a prune planned but not written yet, and the
/// time limit of the whole compaction.
struct SummarizeStage {
    leaf: Option<usize>,
    at_file_leaf: bool,
    pending: Option<PrunePlan>,
    deadline: tokio::time::Instant,
    limit: std::time::Duration,
}

/// The longest deadline a compaction gets: ten years.
pub const MAX_TIMEOUT_SECONDS: u64 = 10 * 365 * 24 * 3600;

impl Compactor<'_> {
    /// The longest one compaction or branch summary may take (`timeoutSeconds`), at least
    /// one second and at most [`MAX_TIMEOUT_SECONDS`] (a larger value, such as
    /// `--timeout 9223372036854775807`, means "no practical limit", never an overflow when the
    /// deadline is computed).
    pub fn deadline(&self) -> Duration {
        Duration::from_secs(self.settings.timeout_seconds.clamp(1, MAX_TIMEOUT_SECONDS))
    }

    /// Lets the summarizer ask its server what it can tell (its window, how its tokenizer
    /// counts `sample`: see [`Compactor::tokenizer_sample`]) before anything is planned,
    /// within the configured deadline and until `cancel`; reports the answer.
    pub async fn prepare_summarizer(
        &self,
        sample: &str,
        cancel: &CancellationToken,
        progress: &(dyn Fn(CompactionProgress) + Send + Sync),
    ) -> Result<(), CompactError> {
        let limit = self.deadline();
        let asking = tokio::time::timeout(limit, self.summarizer.prepare(sample, self.estimator));
        let note = tokio::select! {
            biased;
            () = cancel.cancelled() => {
                return Err(crate::error::SummarizerError::Cancelled {
                    attempts: 0,
                    elapsed: Duration::ZERO,
                }
                .into());
            }
            note = asking => note.map_err(|_elapsed| CompactError::TimedOut { limit })?,
        };
        if let Some(note) = note {
            progress(CompactionProgress::SummaryWindow { note });
        }
        Ok(())
    }

    /// Text to measure a server's tokenizer on: the start (up to 16 KiB) of the first
    /// transcript chunk the plan at `leaf` would send; empty when there is nothing to plan,
    /// or when the summarizer does not read it ([`crate::summarizer::Summarizer::reads_sample`]).
    pub fn tokenizer_sample(
        &self,
        session: &Session,
        leaf: Option<usize>,
        instructions: Option<&str>,
    ) -> String {
        if !self.summarizer.reads_sample() {
            return String::new();
        }
        let Ok(planned) = self.plan(session, leaf, instructions).compaction else {
            return String::new();
        };
        let chunk = planned.history_chunks().first().or(planned.turn_prefix_chunks().first());
        let mut sample = chunk.cloned().unwrap_or_default();
        if sample.len() > TOKENIZER_SAMPLE_BYTES {
            let mut cut = TOKENIZER_SAMPLE_BYTES;
            while !sample.is_char_boundary(cut) {
                cut -= 1;
            }
            sample.truncate(cut);
        }
        sample
    }

    /// The deadline for compacting at `leaf`: [`Compactor::deadline`], raised for a
    /// summarizer on this machine (`runs_locally`) while `timeoutSeconds` is at its default
    /// to what the planned requests may take there: each request's input read at
    /// [`LOCAL_PROMPT_TOKENS_PER_SECOND`] and up to 1,500 tokens of output (or
    /// `maxSummaryTokens`, when smaller) written at [`LOCAL_OUTPUT_TOKENS_PER_SECOND`], with
    /// half as much again for the quality gate's retry. A raised deadline is reported through
    /// `progress` ([`CompactionProgress::Deadline`]).
    pub fn deadline_for(
        &self,
        session: &Session,
        leaf: Option<usize>,
        instructions: Option<&str>,
        progress: &(dyn Fn(CompactionProgress) + Send + Sync),
    ) -> Duration {
        let configured = self.deadline();
        let default_timeout = CompactionSettings::default().timeout_seconds;
        if !self.summarizer.runs_locally() || self.settings.timeout_seconds != default_timeout {
            return configured;
        }
        let Ok(planned) = self.plan(session, leaf, instructions).compaction else {
            return configured;
        };
        let inputs: Vec<u64> = planned
            .history_chunks()
            .iter()
            .chain(planned.turn_prefix_chunks())
            .map(|chunk| self.estimator.text_tokens(chunk))
            .collect();
        self.local_deadline(&inputs, self.settings.max_summary_tokens, progress)
    }

    /// The deadline for requests of `inputs` transcript tokens each, with up to `output`
    /// tokens of reply, to a summarizer on this machine while `timeoutSeconds` is at its
    /// default (see [`Compactor::deadline_for`]); [`Compactor::deadline`] otherwise, or when
    /// that is longer. A raised deadline is reported through `progress`.
    pub(crate) fn local_deadline(
        &self,
        inputs: &[u64],
        output: u64,
        progress: &(dyn Fn(CompactionProgress) + Send + Sync),
    ) -> Duration {
        let configured = self.deadline();
        let default_timeout = CompactionSettings::default().timeout_seconds;
        if !self.summarizer.runs_locally() || self.settings.timeout_seconds != default_timeout {
            return configured;
        }
        let framing = self.estimator.text_tokens(compaction_core::prompts::SYSTEM_PROMPT)
            + self.estimator.text_tokens(compaction_core::prompts::UPDATE_PROMPT);
        let output = output.min(1500);
        let requests = inputs.len();
        let seconds: u64 = inputs
            .iter()
            .map(|tokens| {
                let input = tokens + framing + output;
                input / LOCAL_PROMPT_TOKENS_PER_SECOND + output / LOCAL_OUTPUT_TOKENS_PER_SECOND
            })
            .sum();
        let scaled = Duration::from_secs(seconds.saturating_add(seconds / 2));
        if scaled <= configured {
            return configured;
        }
        progress(CompactionProgress::Deadline {
            limit: scaled,
            configured,
            reason: format!(
                "a server on this machine: {} planned; set timeoutSeconds to choose the \
                 deadline yourself",
                compaction_core::plural::plural(requests, "request")
            ),
        });
        scaled
    }

    pub(crate) fn serialize_options(&self) -> SerializeOptions {
        SerializeOptions {
            tool_result_max_chars: usize::try_from(self.settings.tool_result_max_chars)
                .unwrap_or(usize::MAX),
            redactor: self.redactor.clone(),
        }
    }

    /// The estimate of the context at `leaf` (the measure of every before/after figure a
    /// report shows), and the last reply's recorded usage there when one can be trusted.
    pub fn measure_at(&self, session: &Session, leaf: Option<usize>) -> (u64, Option<u64>) {
        let context = compaction_core::context::build_context(session, leaf);
        let recorded = compaction_core::tokens::context_tokens(session, &context, self.estimator);
        let estimate =
            compaction_core::tokens::estimate_context_tokens(session, &context, self.estimator);
        (estimate, recorded.usage_entry_id.is_some().then_some(recorded.usage_tokens))
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
        let leaf = store.session().resolve_leaf(request.leaf.as_deref())?;
        let sample = self.tokenizer_sample(store.session(), leaf, request.instructions.as_deref());
        self.prepare_summarizer(&sample, cancel, progress).await?;
        let limit =
            self.deadline_for(store.session(), leaf, request.instructions.as_deref(), progress);
        let deadline = tokio::time::Instant::now() + limit;
        let strategy = request.strategy.unwrap_or(self.settings.strategy);
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
                        recorded_usage: pruned.recorded_usage,
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
        let (estimated_before, recorded_usage) = self.measure_at(store.session(), leaf);
        let with_prune = pending
            .as_ref()
            .map(|plan| crate::prune::with_pending_prune(store.session(), leaf, plan));
        let (session, plan_leaf) = match &with_prune {
            Some((session, leaf)) => (session, *leaf),
            None => (store.session(), leaf),
        };
        // Without a pending prune the draft is planned on the same context just measured.
        let measured = with_prune.is_none().then_some(estimated_before);
        let drafting = self.draft_at(
            (session, plan_leaf, measured),
            request,
            (deadline, limit),
            cancel,
            progress,
        );
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
        let recount = draft.tokens_after.is_some();
        let (entry, _) = self.append_following(store, new, follows, recount)?;
        let session = store.session();
        let (tokens_after, _) = self.measure_at(session, session.index_of(&entry.id));
        warnings.extend(
            self.after_compact(&entry, draft.decided_by.as_deref(), request.reason, cancel).await,
        );
        Ok(CompactOutcome {
            entry,
            strategy: Strategy::Summarize,
            tokens_before: estimated_before,
            pruned,
            summarized: true,
            tokens_after,
            recorded_usage,
            usage: draft.usage,
            summarizer_calls: draft.summarizer_calls,
            decided_by: draft.decided_by,
            warnings,
            quality: draft.quality,
        })
    }
}
