//! The agent-loop harness: a session that compacts itself while an agent runs.
//!
//! [`CompactingSession`] owns one session file and keeps the agent's current leaf in memory
//! (pi's format records none). Before each model call, [`CompactingSession::prepare_next_turn`]
//! asks the trigger whether to compact and returns the messages to send;
//! [`CompactingSession::run_turn`] wraps a whole model call and recovers once from a
//! context-overflow error. Every compaction — threshold, overflow or manual — goes through
//! [`Compactor::run`](crate::compact::Compactor::run), the one orchestration path, with the
//! session's extensions.
//!
//! Invariants: at most one automatic compaction per turn; a compaction that leaves the
//! context above the trigger stops automatic compaction until [`CompactingSession::compact`]
//! succeeds or the model changes; after [`HarnessSettings::max_consecutive_failures`] failed
//! automatic compactions nothing is retried until the context changes; a failed model reply
//! is never appended; an aborted compaction writes nothing.
//!
//! Stages, one module each: `config` (the model and the harness settings), `events` (what it
//! reports and how it fails), `abort` (cancelling from another task, the loop guard) and
//! `auto` (automatic compaction); this module holds [`CompactingSession`] and what an agent
//! calls on it.

mod abort;
mod auto;
pub mod chat;
mod config;
mod events;
pub mod history;

pub use abort::AbortHandle;
use abort::Guard;
use auto::compactor;
pub use config::{ChatModel, HarnessSettings};
pub use events::{CompactedEvent, HarnessError, HarnessEvent, ModelError, PrunedEvent};

use std::future::Future;

use compaction_core::AgentMessage;
use compaction_core::context::build_context;
use compaction_core::entry::Entry;
use compaction_core::serialize::Redactor;
use compaction_core::settings::CompactionSettings;
use compaction_core::tokens::{TokenEstimator, context_tokens};
use compaction_core::trigger::should_compact;
use serde_json::{Map, Value};
use tokio::sync::broadcast;

pub use crate::compact::CompactionReason;
use crate::compact::{CompactError, CompactOutcome};
use crate::error::SummarizerError;
use crate::extension::Extensions;
use crate::navigate::{NavigateError, NavigateRequest};
use crate::store::{NewEntry, Parent, SessionStore};
use crate::summarizer::Summarizer;

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

    /// Wraps an open, writable store with what a [`Setup`](crate::setup::Setup) resolved,
    /// as every command and worker builds it: the toolkit's settings, estimator,
    /// summarizer, redactor and extensions. `model` is the chat model; its window should be
    /// the toolkit's ([`Toolkit::context_window`](crate::setup::Toolkit::context_window)).
    pub fn from_toolkit(
        store: SessionStore,
        model: ChatModel,
        toolkit: crate::setup::Toolkit,
        harness: HarnessSettings,
    ) -> Self {
        let crate::setup::Toolkit { settings, estimator, summarizer, extensions, redactor, .. } =
            toolkit;
        let mut session =
            Self::with_harness_settings(store, settings, model, summarizer, estimator, harness);
        session.redactor = redactor;
        session.extensions = extensions;
        session
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
}
