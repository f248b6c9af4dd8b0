//! The agent-loop harness: a session that compacts itself while an agent runs.
//!
//! [`CompactingSession`] owns one session file and keeps the agent's current leaf in memory
//! (pi's format records none). Before each model call, [`CompactingSession::prepare_next_turn`]
//! asks the trigger whether to compact and returns the messages to send;
//! [`CompactingSession::run_turn`] wraps a whole model call and recovers once from a
//! context-overflow error. Every compaction — threshold, overflow or manual — goes through
//! [`Compactor::run`], the one orchestration path, with the session's extensions.
//!
//! Invariants: at most one automatic compaction per turn; a compaction that leaves the
//! context above the trigger stops automatic compaction until [`CompactingSession::compact`]
//! succeeds or the model changes; after [`HarnessSettings::max_consecutive_failures`] failed
//! automatic compactions nothing is retried until the context changes; a failed model reply
//! is never appended; an aborted compaction writes nothing.

pub mod chat;
pub mod history;

use std::future::Future;
use std::sync::{Arc, Mutex};

use compaction_core::AgentMessage;
use compaction_core::context::build_context;
use compaction_core::entry::Entry;
use compaction_core::serialize::Redactor;
use compaction_core::settings::CompactionSettings;
use compaction_core::tokens::{TokenEstimator, context_tokens};
use compaction_core::trigger::should_compact;
use serde_json::{Map, Value};
use tokio::sync::broadcast;
use tokio_util::sync::CancellationToken;

pub use crate::compact::CompactionReason;
use crate::compact::{CompactError, CompactOutcome, CompactRequest, Compactor};
use crate::error::SummarizerError;
use crate::extension::{ExtensionWarning, Extensions};
use crate::navigate::{NavigateError, NavigateRequest};
use crate::store::{NewEntry, Parent, SessionStore, StoreError};
use crate::summarizer::Summarizer;

/// The chat model the agent talks to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChatModel {
    /// Provider name recorded in `model_change` entries and assistant messages.
    pub provider: String,
    /// The model id.
    pub model_id: String,
    /// The model's context window in tokens.
    pub context_window: u64,
}

impl ChatModel {
    /// A model whose window is `window` when given, else the model table's (or the default).
    pub fn new(
        provider: impl Into<String>,
        model_id: impl Into<String>,
        window: Option<u64>,
    ) -> Self {
        let model_id = model_id.into();
        let context_window = compaction_core::models::context_window(Some(&model_id), window);
        Self { provider: provider.into(), model_id, context_window }
    }
}

/// Harness knobs besides the compaction settings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HarnessSettings {
    /// Failed automatic compactions in a row after which the harness waits for the context
    /// to change before trying again (3).
    pub max_consecutive_failures: u32,
    /// Capacity of the event channel; slow subscribers miss the oldest events (64).
    pub event_capacity: usize,
    /// The most characters one `recall` or `search` tool call returns (8000); a longer
    /// original is paged with `offset`.
    pub history_tool_max_chars: usize,
}

impl Default for HarnessSettings {
    fn default() -> Self {
        Self { max_consecutive_failures: 3, event_capacity: 64, history_tool_max_chars: 8000 }
    }
}

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
    /// Context tokens before.
    pub tokens_before: u64,
    /// Estimated context tokens after.
    pub tokens_after: u64,
}

/// A written compaction, as reported in events: the last entry appended (the
/// `compaction` entry, or the `compaction.prune` entry when pruning alone was enough).
#[derive(Debug, Clone, PartialEq)]
pub struct CompactedEvent {
    /// The appended entry.
    pub entry: Entry,
    /// Context tokens before.
    pub tokens_before: u64,
    /// Estimated context tokens after.
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

/// Cancels the compaction in flight, from another task. Cheap to clone.
#[derive(Debug, Clone, Default)]
pub struct AbortHandle(Arc<Mutex<Option<CancellationToken>>>);

impl AbortHandle {
    /// Cancels the running compaction or branch summary; `false` when none was running.
    pub fn abort(&self) -> bool {
        match self.0.lock() {
            Ok(slot) => slot.as_ref().map(CancellationToken::cancel).is_some(),
            Err(_) => false,
        }
    }

    fn start(&self) -> CancellationToken {
        let token = CancellationToken::new();
        if let Ok(mut slot) = self.0.lock() {
            *slot = Some(token.clone());
        }
        token
    }

    fn finish(&self) {
        if let Ok(mut slot) = self.0.lock() {
            *slot = None;
        }
    }
}

/// Bookkeeping for the loop guard and the backoff.
#[derive(Debug, Clone, Copy, Default)]
struct Guard {
    /// Bumped whenever the context changes (append, navigate, model change).
    generation: u64,
    consecutive_failures: u32,
    /// The generation of the last failure.
    failed_generation: u64,
    /// A compaction did not get below the trigger: no automatic compaction until reset.
    stalled: bool,
}

/// One session file, compacted automatically as the agent adds to it.
pub struct CompactingSession {
    store: SessionStore,
    leaf: Option<usize>,
    settings: CompactionSettings,
    harness: HarnessSettings,
    model: ChatModel,
    summarizer: Box<dyn Summarizer>,
    estimator: Box<dyn TokenEstimator>,
    redactor: Redactor,
    extensions: Extensions,
    events: broadcast::Sender<HarnessEvent>,
    abort: AbortHandle,
    guard: Guard,
}

impl std::fmt::Debug for CompactingSession {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CompactingSession")
            .field("store", &self.store)
            .field("leaf", &self.leaf)
            .field("model", &self.model)
            .field("summarizer", &self.summarizer.label())
            .finish_non_exhaustive()
    }
}

impl CompactingSession {
    /// Wraps an open, writable store. The leaf starts at the last entry in file order, as
    /// pi does; the summarizer may use another model than `model`.
    pub fn new(
        store: SessionStore,
        settings: CompactionSettings,
        model: ChatModel,
        summarizer: Box<dyn Summarizer>,
        estimator: Box<dyn TokenEstimator>,
    ) -> Self {
        Self::with_harness_settings(
            store,
            settings,
            model,
            summarizer,
            estimator,
            HarnessSettings::default(),
        )
    }

    /// [`CompactingSession::new`] with explicit harness settings.
    pub fn with_harness_settings(
        store: SessionStore,
        settings: CompactionSettings,
        model: ChatModel,
        summarizer: Box<dyn Summarizer>,
        estimator: Box<dyn TokenEstimator>,
        harness: HarnessSettings,
    ) -> Self {
        let leaf = store.session().leaf();
        let (events, _) = broadcast::channel(harness.event_capacity.max(1));
        Self {
            store,
            leaf,
            settings,
            harness,
            model,
            summarizer,
            estimator,
            redactor: Redactor::default(),
            extensions: Extensions::default(),
            events,
            abort: AbortHandle::default(),
            guard: Guard::default(),
        }
    }

    /// Secrets to redact from summarizer input besides the built-in patterns.
    pub fn set_redactor(&mut self, redactor: Redactor) {
        self.redactor = redactor;
    }

    /// Extensions asked before and told after every compaction and branch summary the
    /// harness runs (none by default).
    pub fn set_extensions(&mut self, extensions: Extensions) {
        self.extensions = extensions;
    }

    /// A receiver of every event from now on.
    pub fn subscribe(&self) -> broadcast::Receiver<HarnessEvent> {
        self.events.subscribe()
    }

    /// A handle that aborts the compaction in flight from another task.
    pub fn abort_handle(&self) -> AbortHandle {
        self.abort.clone()
    }

    /// Aborts the compaction in flight; `false` when none is running.
    pub fn abort(&self) -> bool {
        self.abort.abort()
    }

    /// The store (read access: the session, its path).
    pub fn store(&self) -> &SessionStore {
        &self.store
    }

    /// The chat model in use.
    pub fn model(&self) -> &ChatModel {
        &self.model
    }

    /// The compaction settings in use.
    pub fn settings(&self) -> &CompactionSettings {
        &self.settings
    }

    /// The id of the entry new messages attach to.
    pub fn leaf_id(&self) -> Option<&str> {
        self.leaf.map(|index| self.store.session().entries()[index].id.as_str())
    }

    /// Appends an agent message under the current leaf and moves the leaf to it.
    pub fn append_message(&mut self, message: &AgentMessage) -> Result<Entry, HarnessError> {
        let value = serde_json::to_value(message).map_err(HarnessError::Message)?;
        let mut fields = Map::new();
        fields.insert("message".to_owned(), value);
        self.append("message", fields)
    }

    fn append(
        &mut self,
        entry_type: &str,
        fields: Map<String, Value>,
    ) -> Result<Entry, HarnessError> {
        let parent = match self.leaf_id() {
            Some(id) => Parent::Id(id.to_owned()),
            None => Parent::Root,
        };
        let entry = self.store.append(NewEntry::new(entry_type, fields).with_parent(parent))?;
        self.leaf = self.store.session().index_of(&entry.id);
        self.guard.generation += 1;
        Ok(entry)
    }

    /// Pins an instruction: appends a `compaction.pin` entry under the leaf and moves the
    /// leaf to it. From then on the text reaches the model word for word after every
    /// compaction on this path.
    pub fn pin(&mut self, source: &crate::pins::PinSource) -> Result<Entry, HarnessError> {
        let entry = crate::pins::pin(&mut self.store, self.leaf, source)?;
        self.leaf = self.store.session().index_of(&entry.id);
        self.guard.generation += 1;
        Ok(entry)
    }

    /// Removes pins (by pin id, or by the id of the entry a pin was copied from): appends a
    /// `compaction.unpin` entry under the leaf and moves the leaf to it.
    pub fn unpin(&mut self, ids: &[String]) -> Result<Entry, HarnessError> {
        let (entry, _) = crate::pins::unpin(&mut self.store, self.leaf, ids)?;
        self.leaf = self.store.session().index_of(&entry.id);
        self.guard.generation += 1;
        Ok(entry)
    }

    /// The pins active at the harness's leaf, oldest first.
    pub fn pins(&self) -> Vec<compaction_core::pins::Pin> {
        compaction_core::pins::active_pins(self.store.session(), self.leaf)
    }

    /// The messages the model receives next, at the harness's leaf.
    pub fn context(&self) -> Vec<AgentMessage> {
        let session = self.store.session();
        build_context(session, self.leaf).llm_messages(session)
    }

    /// Context tokens at the leaf, with the same rule the trigger uses.
    pub fn context_tokens(&self) -> u64 {
        let session = self.store.session();
        context_tokens(session, &build_context(session, self.leaf), self.estimator.as_ref()).tokens
    }

    /// Whether the trigger fires for the current context and window.
    pub fn should_compact(&self) -> bool {
        let session = self.store.session();
        let context = build_context(session, self.leaf);
        let tokens = context_tokens(session, &context, self.estimator.as_ref()).tokens;
        let messages = u64::try_from(context.items.len()).unwrap_or(u64::MAX);
        should_compact(tokens, messages, self.model.context_window, &self.settings).fire
    }

    /// Compacts first when the trigger fires (reason threshold), then returns the context
    /// to send. A compaction failure is reported as an event and the current context is
    /// returned; a compaction that does not get below the trigger is an error (once) and
    /// pauses automatic compaction.
    pub async fn prepare_next_turn(&mut self) -> Result<Vec<AgentMessage>, HarnessError> {
        self.auto_compact(CompactionReason::Threshold).await?;
        Ok(self.context())
    }

    /// Runs one model call with overflow recovery: prepares the turn, calls `call` with the
    /// context, and appends the reply. When the call fails with a context overflow, the
    /// reply is dropped, the session is compacted (reason overflow, unless this turn already
    /// compacted) and the call is retried once; a second overflow is returned.
    pub async fn run_turn<F, Fut, E>(&mut self, mut call: F) -> Result<AgentMessage, HarnessError>
    where
        F: FnMut(Vec<AgentMessage>) -> Fut,
        Fut: Future<Output = Result<AgentMessage, E>>,
        E: ModelError,
    {
        let compacted = self.auto_compact(CompactionReason::Threshold).await?;
        let reply = match call(self.context()).await {
            Ok(reply) => reply,
            Err(error) if error.is_context_overflow() => {
                if compacted {
                    return Err(HarnessError::ContextOverflow {
                        after_compaction: true,
                        source: Box::new(error),
                    });
                }
                match self.compact_for(CompactionReason::Overflow, None).await {
                    Ok(_) => {}
                    Err(HarnessError::Compact(
                        CompactError::Nothing(_) | CompactError::NothingToPrune { .. },
                    )) => {
                        return Err(HarnessError::ContextOverflow {
                            after_compaction: false,
                            source: Box::new(error),
                        });
                    }
                    Err(other) => return Err(other),
                }
                match call(self.context()).await {
                    Ok(reply) => reply,
                    Err(error) if error.is_context_overflow() => {
                        return Err(HarnessError::ContextOverflow {
                            after_compaction: true,
                            source: Box::new(error),
                        });
                    }
                    Err(error) => return Err(HarnessError::Model(Box::new(error))),
                }
            }
            Err(error) => return Err(HarnessError::Model(Box::new(error))),
        };
        self.append_message(&reply)?;
        Ok(reply)
    }

    /// Compacts now (reason manual). Clears the loop guard and the backoff on success.
    pub async fn compact(
        &mut self,
        instructions: Option<&str>,
    ) -> Result<CompactOutcome, HarnessError> {
        let outcome = self.compact_for(CompactionReason::Manual, instructions).await?;
        self.guard.stalled = false;
        self.guard.consecutive_failures = 0;
        Ok(outcome)
    }

    /// Moves the leaf to `target`, summarizing the branch left behind when `summarize` is
    /// set. Later appends go under the new leaf (or under the branch summary).
    pub async fn navigate(
        &mut self,
        target: &str,
        summarize: bool,
    ) -> Result<Option<Entry>, HarnessError> {
        let request = NavigateRequest {
            target: target.to_owned(),
            from: self.leaf_id().map(str::to_owned),
            summarize,
            ..NavigateRequest::default()
        };
        if summarize {
            self.emit(HarnessEvent::BranchSummaryStarted { target: target.to_owned() });
        }
        let cancel = self.abort.start();
        let compactor = compactor(
            self.summarizer.as_ref(),
            &self.settings,
            &self.model,
            self.estimator.as_ref(),
            &self.redactor,
            &self.extensions,
        );
        let result = compactor.navigate(&mut self.store, &request, &cancel, &|_| {}).await;
        self.abort.finish();
        if summarize {
            let reported = match &result {
                Ok(outcome) => Ok(outcome.entry.clone()),
                Err(error) => Err(error.to_string()),
            };
            self.emit(HarnessEvent::BranchSummaryFinished { result: reported });
        }
        self.emit_warnings(match &result {
            Ok(outcome) => &outcome.warnings,
            Err(NavigateError::Cancelled { warnings, .. }) => warnings,
            Err(_) => &[],
        });
        let outcome = match result {
            Ok(outcome) => outcome,
            Err(NavigateError::Summarizer(SummarizerError::Cancelled { .. })) => {
                return Err(HarnessError::Aborted);
            }
            Err(error) => return Err(error.into()),
        };
        self.leaf = match &outcome.entry {
            Some(entry) => self.store.session().index_of(&entry.id),
            None => Some(outcome.plan.target),
        };
        self.guard.generation += 1;
        Ok(outcome.entry)
    }

    /// Switches the chat model: appends a `model_change` entry; the trigger then uses the
    /// new window. Clears the loop guard and the backoff.
    pub fn set_model(&mut self, model: ChatModel) -> Result<Entry, HarnessError> {
        let mut fields = Map::new();
        fields.insert("provider".to_owned(), Value::String(model.provider.clone()));
        fields.insert("modelId".to_owned(), Value::String(model.model_id.clone()));
        let entry = self.append("model_change", fields)?;
        self.model = model;
        self.guard.stalled = false;
        self.guard.consecutive_failures = 0;
        Ok(entry)
    }

    /// One automatic compaction when the trigger fires and the guard allows it. Returns
    /// whether a compaction was written.
    async fn auto_compact(&mut self, reason: CompactionReason) -> Result<bool, HarnessError> {
        if !self.should_compact() {
            return Ok(false);
        }
        if self.guard.stalled {
            self.emit(HarnessEvent::CompactionSkipped {
                reason: "automatic compaction is paused: the last one did not get below the \
                         trigger"
                    .to_owned(),
            });
            return Ok(false);
        }
        if self.guard.consecutive_failures >= self.harness.max_consecutive_failures
            && self.guard.failed_generation == self.guard.generation
        {
            self.emit(HarnessEvent::CompactionSkipped {
                reason: format!(
                    "{} automatic compactions failed in a row; waiting for the context to change",
                    self.guard.consecutive_failures
                ),
            });
            return Ok(false);
        }
        match self.compact_for(reason, None).await {
            Ok(_) => {
                self.guard.consecutive_failures = 0;
                if self.should_compact() {
                    self.guard.stalled = true;
                    return Err(HarnessError::CompactionIneffective {
                        tokens: self.context_tokens(),
                        limit: self.trigger_limit(),
                        window: self.model.context_window,
                        keep_recent_tokens: self.settings.keep_recent_tokens,
                    });
                }
                Ok(true)
            }
            Err(HarnessError::Aborted) => Err(HarnessError::Aborted),
            Err(HarnessError::Compact(
                CompactError::Nothing(_) | CompactError::NothingToPrune { .. },
            )) => Ok(false),
            Err(HarnessError::Compact(CompactError::NotReducing { before, after })) => {
                self.guard.stalled = true;
                Err(HarnessError::CompactionIneffective {
                    tokens: after.max(before),
                    limit: self.trigger_limit(),
                    window: self.model.context_window,
                    keep_recent_tokens: self.settings.keep_recent_tokens,
                })
            }
            Err(
                HarnessError::Compact(_)
                | HarnessError::Store(_)
                | HarnessError::Navigate(_)
                | HarnessError::Pin(_)
                | HarnessError::CompactionIneffective { .. }
                | HarnessError::ContextOverflow { .. }
                | HarnessError::Terminal(_)
                | HarnessError::Message(_)
                | HarnessError::Model(_),
            ) => {
                self.guard.consecutive_failures += 1;
                self.guard.failed_generation = self.guard.generation;
                Ok(false)
            }
        }
    }

    /// Re-reads the compaction's most recently modified files into the context, within the
    /// budgets and the room left below the trigger. A failure to append is reported as an
    /// event and leaves the compaction in place.
    fn restore_files(&mut self, compaction_id: &str) {
        let limits = crate::restore::RestoreLimits::from_settings(&self.settings);
        if limits.files == 0 {
            return;
        }
        let room = self.trigger_limit().saturating_sub(self.context_tokens().saturating_add(1));
        let restored = crate::restore::restore_files(
            &mut self.store,
            compaction_id,
            limits,
            Some(room),
            self.estimator.as_ref(),
        );
        match restored {
            Ok(outcome) => {
                if let Some(entry) = &outcome.entry {
                    self.leaf = self.store.session().index_of(&entry.id);
                    self.guard.generation += 1;
                }
                if !outcome.restored.is_empty() || !outcome.skipped.is_empty() {
                    self.emit(HarnessEvent::FilesRestored(outcome));
                }
            }
            Err(error) => self.emit(HarnessEvent::CompactionSkipped {
                reason: format!("restoring recently modified files failed: {error}"),
            }),
        }
    }

    /// The smallest context size at which the trigger fires (reserve or ratio rule).
    fn trigger_limit(&self) -> u64 {
        let window = self.model.context_window;
        let reserve = window.saturating_sub(self.settings.reserve_tokens);
        let ratio = (window as f64 * self.settings.threshold).ceil() as u64;
        reserve.saturating_add(1).min(ratio)
    }

    /// Runs [`Compactor::run`] at the harness's leaf, with events and the abort handle.
    async fn compact_for(
        &mut self,
        reason: CompactionReason,
        instructions: Option<&str>,
    ) -> Result<CompactOutcome, HarnessError> {
        self.emit(HarnessEvent::CompactionStarted { reason, tokens: self.context_tokens() });
        let request = CompactRequest {
            leaf: self.leaf_id().map(str::to_owned),
            instructions: instructions.map(str::to_owned),
            reason,
            strategy: None,
        };
        let cancel = self.abort.start();
        let compactor = compactor(
            self.summarizer.as_ref(),
            &self.settings,
            &self.model,
            self.estimator.as_ref(),
            &self.redactor,
            &self.extensions,
        );
        let result = compactor.run(&mut self.store, &request, &cancel, &|_| {}).await;
        self.abort.finish();
        if let Ok(CompactOutcome { pruned: Some(pruned), .. }) = &result {
            self.emit(HarnessEvent::Pruned(PrunedEvent {
                entry: pruned.entry.clone(),
                entry_ids: pruned.plan.candidates.iter().map(|c| c.id.clone()).collect(),
                tokens_before: pruned.tokens_before,
                tokens_after: pruned.tokens_after,
            }));
        }
        let reported = match &result {
            Ok(outcome) => Ok(CompactedEvent {
                entry: outcome.entry.clone(),
                tokens_before: outcome.tokens_before,
                tokens_after: outcome.tokens_after,
                quality: outcome.quality.clone(),
            }),
            Err(error) => Err(error.to_string()),
        };
        self.emit(HarnessEvent::CompactionFinished { reason, result: reported });
        self.emit_warnings(match &result {
            Ok(outcome) => &outcome.warnings,
            Err(CompactError::Cancelled { warnings, .. }) => warnings,
            Err(_) => &[],
        });
        match result {
            Ok(outcome) => {
                self.leaf = self.store.session().index_of(&outcome.entry.id);
                self.guard.generation += 1;
                if outcome.entry.kind.as_compaction().is_some() {
                    self.restore_files(&outcome.entry.id);
                }
                Ok(outcome)
            }
            Err(CompactError::Summarizer(SummarizerError::Cancelled { .. })) => {
                Err(HarnessError::Aborted)
            }
            Err(error) => Err(error.into()),
        }
    }

    fn emit(&self, event: HarnessEvent) {
        // No subscriber is not an error.
        let _ = self.events.send(event);
    }

    /// Reports the extension warnings of a finished compaction or navigation.
    fn emit_warnings(&self, warnings: &[ExtensionWarning]) {
        for warning in warnings {
            self.emit(HarnessEvent::ExtensionWarning(warning.clone()));
        }
    }
}

/// The one place the harness builds its [`Compactor`] (a function over the fields, so the
/// store stays mutably borrowable): every harness compaction and branch summary runs the
/// session's extensions.
fn compactor<'a>(
    summarizer: &'a dyn Summarizer,
    settings: &'a CompactionSettings,
    model: &ChatModel,
    estimator: &'a dyn TokenEstimator,
    redactor: &Redactor,
    extensions: &'a Extensions,
) -> Compactor<'a> {
    Compactor {
        summarizer,
        settings,
        context_window: model.context_window,
        estimator,
        redactor: redactor.clone(),
        extensions,
    }
}
