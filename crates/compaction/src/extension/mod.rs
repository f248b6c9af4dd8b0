//! Extensions: code that steers or replaces compaction and branch summaries.
//!
//! An [`Extension`] sees each operation twice. Before it (`before_compact`,
//! `before_branch_summary`) it may let the built-in summary run (optionally with extra
//! instructions), cancel the operation, or supply its own summary and cut. After it
//! (`after_compact`, `after_branch_summary`) it is told what was written. Every method has a
//! default that means "carry on", so an implementation writes only the hooks it needs.
//!
//! Extensions are written in Rust (implement the trait) or in any language as a child
//! process speaking the JSON protocol of [`process`] (see `docs/extensions.md`).
//! [`Extensions`] runs them in registration order with a time limit each.
//!
//! Invariant: one broken extension never blocks an operation. An extension that errors,
//! panics, overruns its time limit or answers garbage becomes an [`ExtensionWarning`] naming
//! it, and the next extension, then the built-in path, runs. Replacements are validated by
//! [`resolve_replacement`] before anything is written.

mod error;
pub mod process;
pub mod protocol;
mod registry;
mod replacement;

use std::fmt;
use std::time::Duration;

use compaction_core::prepare::CompactionPreparation;

use crate::reason::CompactionReason;
use compaction_core::{AgentMessage, Entry, Session};
use futures_util::future::BoxFuture;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use tokio_util::sync::CancellationToken;

pub use error::{ExtensionError, InvalidReplacement};
pub use process::{ExtensionConfig, ProcessExtension};
pub use registry::{
    BranchSummaryDecision, BranchSummaryHookResult, CompactionDecision, CompactionHookResult,
    DEFAULT_TIMEOUT, Extensions, HookOutcome, PruneHookDecision, PruneHookResult,
};
pub use replacement::{
    PRESERVED_HEADING, ResolvedBranchReplacement, ResolvedReplacement, merge_instructions,
    preserved_render_options, resolve_branch_replacement, resolve_branch_replacement_with,
    resolve_replacement, resolve_replacement_with,
};

/// The hook points.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EventName {
    /// `before_compact`: may cancel, steer or replace a compaction.
    BeforeCompact,
    /// `after_compact`: told what was written.
    AfterCompact,
    /// `before_branch_summary`: may cancel, steer or replace a branch summary.
    BeforeBranchSummary,
    /// `after_branch_summary`: told what was written.
    AfterBranchSummary,
    /// Before old tool outputs are pruned.
    BeforePrune,
}

impl EventName {
    /// All events, in the order an operation meets them.
    pub const ALL: [EventName; 5] = [
        EventName::BeforePrune,
        EventName::BeforeCompact,
        EventName::AfterCompact,
        EventName::BeforeBranchSummary,
        EventName::AfterBranchSummary,
    ];

    /// The protocol name (`before_compact`, …).
    pub fn as_str(self) -> &'static str {
        match self {
            EventName::BeforeCompact => "before_compact",
            EventName::AfterCompact => "after_compact",
            EventName::BeforeBranchSummary => "before_branch_summary",
            EventName::AfterBranchSummary => "after_branch_summary",
            EventName::BeforePrune => "before_prune",
        }
    }
}

impl fmt::Display for EventName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What an extension wants done, answered by the `before_*` hooks.
// One decision exists per hook call; boxing the replacement would only cost clarity.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, PartialEq)]
pub enum Decision {
    /// Let the next extension, then the built-in summary, run. `instructions` are appended
    /// to the user's custom instructions for the built-in summary.
    Continue {
        /// Custom instructions for the summary.
        instructions: Option<String>,
    },
    /// Stop the operation; nothing is written.
    Cancel {
        /// Why, in words for the user.
        reason: String,
    },
    /// Write this summary instead of calling the built-in summarizer.
    Replace(Replacement),
}

impl Decision {
    /// `Continue` without extra instructions: the default of every hook.
    pub fn carry_on() -> Decision {
        Decision::Continue { instructions: None }
    }

    /// Whether this decision ends the search (cancel or replace).
    pub fn is_decisive(&self) -> bool {
        match self {
            Decision::Continue { .. } => false,
            Decision::Cancel { .. } | Decision::Replace(_) => true,
        }
    }
}

/// A summary supplied by an extension. Only `summary` is required.
///
/// Two ways to say what stays verbatim, which may be combined:
/// - `first_kept_entry_id`: the first entry kept verbatim (default: the preparation's cut).
/// - `kept_message_ids` (the seed's shape): ids of message entries to keep. The kept part
///   grows back over the run of these messages directly in front of the first kept entry;
///   the others are rendered into the summary under [`PRESERVED_HEADING`], in path order.
///   [`resolve_replacement`] documents the rule exactly.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Replacement {
    /// The summary text.
    pub summary: String,
    /// The first entry kept verbatim after the summary.
    pub first_kept_entry_id: Option<String>,
    /// Context tokens before compaction (default: the preparation's).
    pub tokens_before: Option<u64>,
    /// Stored as the entry's `details`: the extension's own structured data.
    pub details: Option<Value>,
    /// Stored as the entry's `usage` (pi's usage shape, when the extension called a model).
    pub usage: Option<Value>,
    /// The messages kept verbatim, by entry id.
    pub kept_message_ids: Option<Vec<String>>,
}

impl Replacement {
    /// A replacement with this summary and every other field left to its default.
    pub fn new(summary: impl Into<String>) -> Replacement {
        Replacement { summary: summary.into(), ..Replacement::default() }
    }
}

/// Asked before a compaction is summarized.
#[derive(Clone)]
pub struct BeforeCompactEvent<'a> {
    /// The session as loaded (read-only).
    pub session: &'a Session,
    /// What the built-in path would summarize and keep.
    pub preparation: &'a CompactionPreparation,
    /// The user's custom instructions for the summary.
    pub custom_instructions: Option<&'a str>,
    /// Why the compaction runs: asked for, the trigger fired, or the model overflowed.
    pub reason: CompactionReason,
    /// The resolved compaction settings, as JSON.
    pub settings: &'a Value,
    /// Cancelled when the user aborts; long-running hooks should watch it.
    pub cancel: CancellationToken,
}

impl<'a> BeforeCompactEvent<'a> {
    /// The entries of the branch being compacted, root first.
    pub fn branch_entries(&self) -> impl Iterator<Item = &'a Entry> + 'a {
        let entries = self.session.entries();
        self.preparation.path.iter().map(move |&index| &entries[index])
    }

    /// Ids of the entries behind `preparation.messages_to_summarize`, in the same order.
    pub fn summarized_entry_ids(&self) -> Vec<&'a str> {
        let preparation = self.preparation;
        let end = preparation.cut.turn_start.unwrap_or(preparation.cut.first_kept);
        replacement::input_entry_ids(self.session, &preparation.path[preparation.region_start..end])
    }

    /// Ids of the entries behind `preparation.turn_prefix_messages`, in the same order.
    pub fn turn_prefix_entry_ids(&self) -> Vec<&'a str> {
        let preparation = self.preparation;
        match preparation.cut.turn_start {
            Some(start) if preparation.cut.is_split_turn => replacement::input_entry_ids(
                self.session,
                &preparation.path[start..preparation.cut.first_kept],
            ),
            Some(_) | None => Vec::new(),
        }
    }
}

/// Told after a compaction entry was written.
#[derive(Clone)]
pub struct AfterCompactEvent<'a> {
    /// The written `compaction` entry.
    pub entry: &'a Value,
    /// Whether an extension supplied the summary (the entry has `fromHook: true`).
    pub from_extension: bool,
    /// The extension that supplied it.
    pub decided_by: Option<&'a str>,
    /// Why the compaction ran.
    pub reason: CompactionReason,
    /// The compaction settings in effect.
    pub settings: &'a Value,
    /// Cancels the work in flight.
    pub cancel: CancellationToken,
}

/// Asked before the branch being left is summarized.
///
/// Holds plain data so it does not depend on how the branch was prepared: the abandoned
/// entries (from just after the common ancestor to the old leaf), the messages chosen for
/// the summary with their entry ids, and the files the branch touched.
#[derive(Clone)]
pub struct BeforeBranchSummaryEvent<'a> {
    /// The session as loaded.
    pub session: &'a Session,
    /// The leaf being left (the summary's `fromId`).
    pub old_leaf_id: &'a str,
    /// The entry being navigated to (the summary becomes its child).
    pub target_id: &'a str,
    /// The deepest entry both branches share; `None` for separate roots.
    pub common_ancestor_id: Option<&'a str>,
    /// Session indices of the abandoned entries, chronological.
    pub entries: &'a [usize],
    /// The messages the built-in summary would read, chronological.
    pub messages: &'a [AgentMessage],
    /// The entry id of each of `messages`.
    pub message_entry_ids: &'a [String],
    /// Files read and not modified.
    pub read_files: &'a [String],
    /// Files written or edited.
    pub modified_files: &'a [String],
    /// Custom instructions the user gave.
    pub custom_instructions: Option<&'a str>,
    /// The compaction settings in effect.
    pub settings: &'a Value,
    /// Cancels the work in flight.
    pub cancel: CancellationToken,
}

impl<'a> BeforeBranchSummaryEvent<'a> {
    /// The abandoned entries, chronological.
    pub fn branch_entries(&self) -> impl Iterator<Item = &'a Entry> + 'a {
        let entries = self.session.entries();
        self.entries.iter().map(move |&index| &entries[index])
    }
}

/// Told after a branch summary entry was written.
#[derive(Clone)]
pub struct AfterBranchSummaryEvent<'a> {
    /// The written `branch_summary` entry.
    pub entry: &'a Value,
    /// Whether an extension supplied the entry.
    pub from_extension: bool,
    /// The extension that supplied the result, if any.
    pub decided_by: Option<&'a str>,
    /// The compaction settings in effect.
    pub settings: &'a Value,
    /// Cancels the work in flight.
    pub cancel: CancellationToken,
}

/// Asked before old tool outputs are pruned.
#[derive(Clone)]
pub struct BeforePruneEvent<'a> {
    /// The session as loaded (read-only).
    pub session: &'a Session,
    /// What the built-in rules would prune, with the placeholders.
    pub plan: &'a compaction_core::prune::PrunePlan,
    /// Why the compaction runs.
    pub reason: CompactionReason,
    /// The resolved compaction settings, as JSON.
    pub settings: &'a Value,
    /// Cancelled when the user aborts.
    pub cancel: CancellationToken,
}

/// What an extension wants done with a prune, answered by `before_prune`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PruneChoice {
    /// Let the next extension, then the built-in rules, decide.
    Continue,
    /// Do not prune; nothing is written (a `hybrid` compaction goes on to summarize).
    Cancel {
        /// Why, in words for the user.
        reason: String,
    },
    /// Prune exactly these tool results (entry ids): candidates of the plan keep their
    /// placeholders, other unpruned tool results outside the protected turns are elided,
    /// ids that are neither are ignored. The minimum saving does not apply.
    Prune {
        /// The entries concerned, by id.
        entry_ids: Vec<String>,
    },
}

/// The future a hook returns.
pub type HookFuture<'a, T> = BoxFuture<'a, Result<T, ExtensionError>>;

/// A hook into compaction and branch summaries. Every method defaults to "carry on".
///
/// Hooks must not block the thread: the time limit can only interrupt a hook at an
/// `.await`. Errors and panics are reported as warnings, never propagated.
pub trait Extension: Send + Sync {
    /// The name used in warnings and reports.
    fn name(&self) -> &str;

    /// This extension's time limit per hook; `None` uses the registry's default.
    fn timeout(&self) -> Option<Duration> {
        None
    }

    /// Decides how a compaction proceeds.
    fn before_compact<'a>(
        &'a self,
        _event: &'a BeforeCompactEvent<'_>,
    ) -> HookFuture<'a, Decision> {
        Box::pin(async { Ok(Decision::carry_on()) })
    }

    /// Learns what a compaction wrote.
    fn after_compact<'a>(&'a self, _event: &'a AfterCompactEvent<'_>) -> HookFuture<'a, ()> {
        Box::pin(async { Ok(()) })
    }

    /// Decides how a branch summary proceeds.
    fn before_branch_summary<'a>(
        &'a self,
        _event: &'a BeforeBranchSummaryEvent<'_>,
    ) -> HookFuture<'a, Decision> {
        Box::pin(async { Ok(Decision::carry_on()) })
    }

    /// Learns what a branch summary wrote.
    fn after_branch_summary<'a>(
        &'a self,
        _event: &'a AfterBranchSummaryEvent<'_>,
    ) -> HookFuture<'a, ()> {
        Box::pin(async { Ok(()) })
    }

    /// Decides whether and what to prune.
    fn before_prune<'a>(&'a self, _event: &'a BeforePruneEvent<'_>) -> HookFuture<'a, PruneChoice> {
        Box::pin(async { Ok(PruneChoice::Continue) })
    }
}

/// An extension that gave no usable answer, or whose replacement was rejected.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExtensionWarning {
    /// The extension's name.
    pub extension: String,
    /// The hook that was running.
    pub event: EventName,
    /// What went wrong.
    pub message: String,
}

impl fmt::Display for ExtensionWarning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "extension `{}` ({}): {}", self.extension, self.event, self.message)
    }
}
