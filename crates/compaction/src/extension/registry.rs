//! The registry that runs extensions in order, each under a time limit and a panic guard.
//!
//! Invariant: whatever an extension does — return an error, panic, hang, or (as a child
//! process) print garbage — the registry returns normally, with a warning naming that
//! extension, and asks the next one. For `before_*` hooks the first extension that cancels
//! or replaces wins and later ones are not asked; `after_*` hooks go to every extension.

use std::any::Any;
use std::fmt;
use std::panic::AssertUnwindSafe;
use std::sync::Arc;
use std::time::Duration;

use futures_util::FutureExt;

use super::{
    AfterBranchSummaryEvent, AfterCompactEvent, BeforeBranchSummaryEvent, BeforeCompactEvent,
    BeforePruneEvent, Decision, EventName, Extension, ExtensionError, ExtensionWarning, HookFuture,
    PruneChoice, ResolvedBranchReplacement, ResolvedReplacement, merge_instructions,
    preserved_render_options, resolve_branch_replacement_with, resolve_replacement_with,
};
use compaction_core::serialize::{Redactor, SerializeOptions};

/// Time limit of one hook call when the extension does not set its own.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);

/// Extensions in registration order.
#[derive(Clone)]
pub struct Extensions {
    extensions: Vec<Arc<dyn Extension>>,
    default_timeout: Duration,
    /// How messages kept by a replacement are rendered into its summary.
    render: SerializeOptions,
}

impl Default for Extensions {
    fn default() -> Self {
        Extensions {
            extensions: Vec::new(),
            default_timeout: DEFAULT_TIMEOUT,
            render: preserved_render_options(),
        }
    }
}

impl fmt::Debug for Extensions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Extensions")
            .field("names", &self.names())
            .field("default_timeout", &self.default_timeout)
            .finish()
    }
}

/// What the `before_*` hooks decided.
#[derive(Debug, Clone, PartialEq)]
pub struct HookOutcome {
    /// The first decisive answer, or `Continue` carrying [`HookOutcome::instructions`].
    pub decision: Decision,
    /// The extension that cancelled or replaced.
    pub decided_by: Option<String>,
    /// Instructions added by the extensions that continued (before the decisive one), in
    /// registration order, joined by blank lines.
    pub instructions: Option<String>,
    /// Extensions that failed, in the order they ran.
    pub warnings: Vec<ExtensionWarning>,
}

/// What a compaction does after the `before_compact` hooks, with replacements validated.
#[derive(Debug, Clone, PartialEq)]
pub enum CompactionDecision {
    /// Run the built-in summary with these instructions (the user's custom instructions
    /// merged with those extensions added).
    BuiltIn {
        /// Custom instructions for the summary.
        instructions: Option<String>,
    },
    /// Write nothing.
    Cancelled {
        /// Why, in words for the user.
        reason: String,
        /// The name of the extension.
        extension: String,
    },
    /// Write this entry (with `fromHook: true`) instead of summarizing.
    Replaced {
        /// The replacement the extension supplied.
        replacement: ResolvedReplacement,
        /// The name of the extension.
        extension: String,
    },
}

/// [`CompactionDecision`] and the warnings gathered on the way.
#[derive(Debug, Clone, PartialEq)]
pub struct CompactionHookResult {
    /// What the extension decided.
    pub decision: CompactionDecision,
    /// Extensions that failed and were skipped.
    pub warnings: Vec<ExtensionWarning>,
}

/// What a branch summary does after the `before_branch_summary` hooks.
#[derive(Debug, Clone, PartialEq)]
pub enum BranchSummaryDecision {
    /// Run the built-in branch summary with these instructions.
    BuiltIn {
        /// Custom instructions for the summary.
        instructions: Option<String>,
    },
    /// Write no summary.
    Cancelled {
        /// Why, in words for the user.
        reason: String,
        /// The name of the extension.
        extension: String,
    },
    /// Write this `branch_summary` entry (with `fromHook: true`).
    Replaced {
        /// The replacement the extension supplied.
        replacement: ResolvedBranchReplacement,
        /// The name of the extension.
        extension: String,
    },
}

/// [`BranchSummaryDecision`] and the warnings gathered on the way.
#[derive(Debug, Clone, PartialEq)]
pub struct BranchSummaryHookResult {
    /// What the extension decided.
    pub decision: BranchSummaryDecision,
    /// Extensions that failed and were skipped.
    pub warnings: Vec<ExtensionWarning>,
}

/// What a prune does after the `before_prune` hooks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PruneHookDecision {
    /// Prune what the built-in rules chose.
    Continue,
    /// Prune nothing.
    Cancel {
        /// Why, in words for the user.
        reason: String,
        /// The name of the extension.
        extension: String,
    },
    /// Prune exactly these entries.
    Prune {
        /// The entries concerned, by id.
        entry_ids: Vec<String>,
        /// The name of the extension.
        extension: String,
    },
}

/// [`PruneHookDecision`] and the warnings gathered on the way.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PruneHookResult {
    /// What the extension decided.
    pub decision: PruneHookDecision,
    /// Extensions that failed and were skipped.
    pub warnings: Vec<ExtensionWarning>,
}

impl Extensions {
    /// No extensions, [`DEFAULT_TIMEOUT`] per hook.
    pub fn new() -> Self {
        Self::default()
    }

    /// Sets the time limit for extensions that do not set their own.
    #[must_use]
    pub fn with_default_timeout(mut self, timeout: Duration) -> Self {
        self.default_timeout = timeout;
        self
    }

    /// Redacts these secrets (besides the built-in patterns) from messages a replacement
    /// preserves in its summary.
    #[must_use]
    pub fn with_redactor(mut self, redactor: Redactor) -> Self {
        self.render.redactor = redactor;
        self
    }

    /// Adds an extension after those already registered.
    pub fn register(&mut self, extension: Arc<dyn Extension>) {
        self.extensions.push(extension);
    }

    /// Adds an extension (builder form).
    #[must_use]
    pub fn with(mut self, extension: Arc<dyn Extension>) -> Self {
        self.register(extension);
        self
    }

    /// Whether no extension is registered.
    pub fn is_empty(&self) -> bool {
        self.extensions.is_empty()
    }

    /// How many extensions are registered.
    pub fn len(&self) -> usize {
        self.extensions.len()
    }

    /// Names in registration order.
    pub fn names(&self) -> Vec<&str> {
        self.extensions.iter().map(|extension| extension.name()).collect()
    }

    /// Asks each extension's `before_compact` in order until one cancels or replaces.
    pub async fn before_compact(&self, event: &BeforeCompactEvent<'_>) -> HookOutcome {
        self.run_before(EventName::BeforeCompact, &event.cancel, |extension| {
            extension.before_compact(event)
        })
        .await
    }

    /// Asks each extension's `before_branch_summary` in order until one cancels or replaces.
    pub async fn before_branch_summary(&self, event: &BeforeBranchSummaryEvent<'_>) -> HookOutcome {
        self.run_before(EventName::BeforeBranchSummary, &event.cancel, |extension| {
            extension.before_branch_summary(event)
        })
        .await
    }

    /// Tells every extension what a compaction wrote.
    pub async fn after_compact(&self, event: &AfterCompactEvent<'_>) -> Vec<ExtensionWarning> {
        self.run_after(EventName::AfterCompact, |extension| extension.after_compact(event)).await
    }

    /// Tells every extension what a branch summary wrote.
    pub async fn after_branch_summary(
        &self,
        event: &AfterBranchSummaryEvent<'_>,
    ) -> Vec<ExtensionWarning> {
        self.run_after(EventName::AfterBranchSummary, |extension| {
            extension.after_branch_summary(event)
        })
        .await
    }

    /// Runs `before_compact` and validates a replacement against the event's preparation.
    /// An invalid replacement becomes a warning naming its extension and the built-in
    /// summary runs.
    pub async fn decide_compaction(&self, event: &BeforeCompactEvent<'_>) -> CompactionHookResult {
        let outcome = self.before_compact(event).await;
        let facts = (event.custom_instructions, event.settings, BUDGET_KEY);
        let (decided, warnings) = self.decide(outcome, facts, EventName::BeforeCompact, |given| {
            resolve_replacement_with(event.session, event.preparation, given, &self.render)
        });
        let decision = match decided {
            Decided::BuiltIn { instructions } => CompactionDecision::BuiltIn { instructions },
            Decided::Cancelled { reason, extension } => {
                CompactionDecision::Cancelled { reason, extension }
            }
            Decided::Replaced { replacement, extension } => {
                CompactionDecision::Replaced { replacement, extension }
            }
        };
        CompactionHookResult { decision, warnings }
    }

    /// Runs `before_branch_summary` and validates a replacement against the abandoned
    /// entries. An invalid replacement becomes a warning and the built-in summary runs.
    pub async fn decide_branch_summary(
        &self,
        event: &BeforeBranchSummaryEvent<'_>,
    ) -> BranchSummaryHookResult {
        let outcome = self.before_branch_summary(event).await;
        let facts = (event.custom_instructions, event.settings, BRANCH_BUDGET_KEY);
        let (decided, warnings) =
            self.decide(outcome, facts, EventName::BeforeBranchSummary, |given| {
                resolve_branch_replacement_with(event.session, event.entries, given, &self.render)
            });
        let decision = match decided {
            Decided::BuiltIn { instructions } => BranchSummaryDecision::BuiltIn { instructions },
            Decided::Cancelled { reason, extension } => {
                BranchSummaryDecision::Cancelled { reason, extension }
            }
            Decided::Replaced { replacement, extension } => {
                BranchSummaryDecision::Replaced { replacement, extension }
            }
        };
        BranchSummaryHookResult { decision, warnings }
    }

    /// A `before_*` outcome as a decision, the same for compactions and branch summaries:
    /// the instructions merged with the user's (`facts`: the custom instructions, the
    /// event's settings and the key of its summary budget), a cancel's reason redacted, a
    /// replacement held to the summary budget and checked against its event (`resolve`),
    /// then redacted; a replacement refused by either check is a warning naming its
    /// extension, and the built-in summary runs.
    fn decide<R: Stored>(
        &self,
        outcome: HookOutcome,
        (custom_instructions, settings, budget_key): (
            Option<&str>,
            &serde_json::Value,
            &'static str,
        ),
        event: EventName,
        resolve: impl FnOnce(super::Replacement) -> Result<R, super::InvalidReplacement>,
    ) -> (Decided<R>, Vec<ExtensionWarning>) {
        let mut warnings = outcome.warnings;
        let instructions = merge_instructions(custom_instructions, outcome.instructions.as_deref());
        let extension = outcome.decided_by.unwrap_or_default();
        let decided = match outcome.decision {
            Decision::Continue { .. } => Decided::BuiltIn { instructions },
            Decision::Cancel { reason } => {
                let reason = self.render.redactor.redact(&reason).into_owned();
                Decided::Cancelled { reason, extension }
            }
            Decision::Replace(replacement) => {
                match within_budget(&replacement.summary, settings, budget_key)
                    .and_then(|()| resolve(replacement))
                {
                    Ok(mut replacement) => {
                        self.redact_replacement(&mut replacement);
                        Decided::Replaced { replacement, extension }
                    }
                    Err(error) => {
                        warnings.push(rejected(extension, event, &error));
                        Decided::BuiltIn { instructions }
                    }
                }
            }
        };
        (decided, warnings)
    }

    /// Asks each extension's `before_prune` in order until one cancels or chooses the set.
    pub async fn decide_prune(&self, event: &BeforePruneEvent<'_>) -> PruneHookResult {
        let mut warnings = Vec::new();
        for extension in &self.extensions {
            if event.cancel.is_cancelled() {
                break;
            }
            let extension: &dyn Extension = extension.as_ref();
            let name = extension.name().to_owned();
            match self.guarded(extension, || extension.before_prune(event)).await {
                Ok(PruneChoice::Continue) => {}
                Ok(PruneChoice::Cancel { reason }) => {
                    let decision = PruneHookDecision::Cancel { reason, extension: name };
                    return PruneHookResult { decision, warnings };
                }
                Ok(PruneChoice::Prune { entry_ids }) => {
                    let decision = PruneHookDecision::Prune { entry_ids, extension: name };
                    return PruneHookResult { decision, warnings };
                }
                Err(error) => warnings.push(failed(extension, EventName::BeforePrune, &error)),
            }
        }
        PruneHookResult { decision: PruneHookDecision::Continue, warnings }
    }

    async fn run_before<'e, F>(
        &'e self,
        event: EventName,
        cancel: &tokio_util::sync::CancellationToken,
        mut hook: F,
    ) -> HookOutcome
    where
        F: FnMut(&'e dyn Extension) -> HookFuture<'e, Decision>,
    {
        let mut warnings = Vec::new();
        let mut added = Vec::new();
        for extension in &self.extensions {
            if cancel.is_cancelled() {
                break;
            }
            let extension: &dyn Extension = extension.as_ref();
            match self.guarded(extension, || hook(extension)).await {
                Ok(Decision::Continue { instructions }) => {
                    added.extend(instructions.filter(|text| !text.trim().is_empty()));
                }
                Ok(decision) => {
                    return HookOutcome {
                        decision,
                        decided_by: Some(extension.name().to_owned()),
                        instructions: join(added),
                        warnings,
                    };
                }
                Err(error) => warnings.push(failed(extension, event, &error)),
            }
        }
        let instructions = join(added);
        HookOutcome {
            decision: Decision::Continue { instructions: instructions.clone() },
            decided_by: None,
            instructions,
            warnings,
        }
    }

    async fn run_after<'e, F>(&'e self, event: EventName, mut hook: F) -> Vec<ExtensionWarning>
    where
        F: FnMut(&'e dyn Extension) -> HookFuture<'e, ()>,
    {
        let mut warnings = Vec::new();
        for extension in &self.extensions {
            let extension: &dyn Extension = extension.as_ref();
            if let Err(error) = self.guarded(extension, || hook(extension)).await {
                warnings.push(failed(extension, event, &error));
            }
        }
        warnings
    }

    /// Runs one hook call under the extension's time limit, turning a panic into an error.
    /// The call itself happens inside the guard, so a panic before the first `.await` is
    /// caught too.
    async fn guarded<'e, T>(
        &self,
        extension: &'e dyn Extension,
        call: impl FnOnce() -> HookFuture<'e, T>,
    ) -> Result<T, ExtensionError> {
        let limit = extension.timeout().unwrap_or(self.default_timeout);
        let guarded = AssertUnwindSafe(async move { call().await }).catch_unwind();
        match tokio::time::timeout(limit, guarded).await {
            Err(_) => Err(ExtensionError::TimedOut(limit)),
            Ok(Err(payload)) => Err(ExtensionError::Panicked(panic_text(payload.as_ref()))),
            Ok(Ok(result)) => result,
        }
    }
}

fn join(parts: Vec<String>) -> Option<String> {
    if parts.is_empty() { None } else { Some(parts.join("\n\n")) }
}

fn failed(extension: &dyn Extension, event: EventName, error: &ExtensionError) -> ExtensionWarning {
    ExtensionWarning {
        extension: extension.name().to_owned(),
        event,
        message: format!("{error}; continuing without it"),
    }
}

/// What a `before_*` hook decided, before it takes its event's own decision type.
enum Decided<R> {
    BuiltIn { instructions: Option<String> },
    Cancelled { reason: String, extension: String },
    Replaced { replacement: R, extension: String },
}

/// The settings key of a compaction summary's budget, and of a branch summary's.
const BUDGET_KEY: &str = "maxSummaryTokens";
const BRANCH_BUDGET_KEY: &str = "branchMaxSummaryTokens";

/// An extension's summary is held to the budget the built-in summary is held to (the
/// setting `key` of the event's settings), counted as pi 1.6 counts text: a summary over
/// it, up to a summary larger than the model's window, is refused, not written.
fn within_budget(
    summary: &str,
    settings: &serde_json::Value,
    key: &'static str,
) -> Result<(), super::InvalidReplacement> {
    let Some(limit) = settings.get(key).and_then(serde_json::Value::as_u64) else {
        return Ok(());
    };
    let tokens = compaction_core::tokens::TokenEstimator::text_tokens(
        &compaction_core::tokens::PiEstimator,
        summary,
    );
    if tokens > limit {
        return Err(super::InvalidReplacement::SummaryTooLarge { tokens, limit, setting: key });
    }
    Ok(())
}

impl Extensions {
    /// Redacts what an extension's replacement writes: its summary and every string of
    /// its `details` and `usage`, as every text the tool stores is (an extension is given
    /// the session and may copy a secret from it).
    fn redact_replacement(&self, replacement: &mut impl Stored) {
        let (summary, details, usage) = replacement.stored();
        let redactor = &self.render.redactor;
        if let std::borrow::Cow::Owned(redacted) = redactor.redact(summary) {
            *summary = redacted;
        }
        for value in [details, usage].into_iter().flatten() {
            *value = redactor.redact_value(value);
        }
    }
}

/// What a resolved replacement writes: its summary, `details` and `usage`.
trait Stored {
    fn stored(
        &mut self,
    ) -> (&mut String, &mut Option<serde_json::Value>, &mut Option<serde_json::Value>);
}

impl Stored for ResolvedReplacement {
    fn stored(
        &mut self,
    ) -> (&mut String, &mut Option<serde_json::Value>, &mut Option<serde_json::Value>) {
        (&mut self.summary, &mut self.details, &mut self.usage)
    }
}

impl Stored for ResolvedBranchReplacement {
    fn stored(
        &mut self,
    ) -> (&mut String, &mut Option<serde_json::Value>, &mut Option<serde_json::Value>) {
        (&mut self.summary, &mut self.details, &mut self.usage)
    }
}

fn rejected(
    extension: String,
    event: EventName,
    error: &super::InvalidReplacement,
) -> ExtensionWarning {
    ExtensionWarning {
        extension,
        event,
        message: format!("replacement rejected: {error}; using the built-in summary"),
    }
}

fn panic_text(payload: &(dyn Any + Send)) -> String {
    if let Some(text) = payload.downcast_ref::<&str>() {
        (*text).to_owned()
    } else if let Some(text) = payload.downcast_ref::<String>() {
        text.clone()
    } else {
        "a non-text panic payload".to_owned()
    }
}
