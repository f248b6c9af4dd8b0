//! The ledger of what the context at a leaf no longer shows, and what undo would restore.
//!
//! [`dropped`] lists every compaction and prune on the path, oldest first, with what each
//! removed from the context: the entries, their estimated tokens and the files they
//! touched. [`undo_target`] names the latest step still in force, which `compaction undo`
//! takes back append-only: a prune by a revert entry, a compaction by a new leaf at the
//! entry the compaction was appended after.
//!
//! Invariant: pure reads of the session; nothing here changes or assumes a file.

use std::collections::{BTreeSet, HashMap};

use serde::Serialize;
use serde_json::Value;

use crate::context::SessionContext;
use crate::entry::EntryKind;
use crate::message::AgentMessage;
use crate::prepare::compaction_input_message;
use crate::prune::record::is_prune_entry;
use crate::prune::{PruneRecord, PruneView};
use crate::session::Session;
use crate::tokens::TokenEstimator;

/// The `customType` of the entry `compaction undo` appends to take back a compaction.
pub const UNDO_CUSTOM_TYPE: &str = "compaction.undo";

/// What kind of step removed content.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum StepKind {
    /// A `compaction` entry: entries summarized.
    Compaction,
    /// A `compaction.prune` entry: tool outputs replaced by placeholders.
    Prune,
}

/// One compaction or prune on the path and what it removed from the context.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DroppedStep {
    /// Compaction or prune.
    pub kind: StepKind,
    /// The id of the `compaction` or `compaction.prune` entry.
    pub id: String,
    /// Its timestamp.
    pub timestamp: Option<String>,
    /// Ids of the entries it took out of the context (summarized or pruned), in path order.
    pub entries: Vec<String>,
    /// Estimated tokens of those entries as they were (for a prune: the tokens it saved).
    pub tokens: u64,
    /// Files the removed entries read or changed (a compaction's file lists).
    pub files: Vec<String>,
    /// Whether an extension wrote the summary.
    pub from_hook: bool,
    /// The revert entry that cancelled this prune, when one did.
    pub reverted_by: Option<String>,
}

/// Every compaction and prune on the path of `context`, oldest first.
pub fn dropped(
    session: &Session,
    context: &SessionContext,
    estimator: &dyn TokenEstimator,
) -> Vec<DroppedStep> {
    let entries = session.entries();
    let path = &context.path;
    let view = &context.pruned;
    let revert_of: HashMap<usize, usize> = view.reverted.iter().copied().collect();
    let mut steps = Vec::new();
    let mut region_start = 0;
    let mut call_paths: Option<HashMap<String, String>> = None;
    for (position, &index) in path.iter().enumerate() {
        let entry = &entries[index];
        if let EntryKind::Compaction(data) = &entry.kind {
            let first_kept = path[..position]
                .iter()
                .position(|&i| entries[i].id == data.first_kept_entry_id)
                .unwrap_or(position);
            let start = region_start.min(first_kept);
            let mut removed = Vec::new();
            let mut tokens = 0;
            for &i in &path[start..first_kept] {
                if let Some(message) = compaction_input_message(session, i) {
                    tokens += estimator.message_tokens(&message);
                    removed.push(entries[i].id.clone());
                }
            }
            let mut files = BTreeSet::new();
            if let Some(details) = &data.details {
                for key in ["readFiles", "modifiedFiles"] {
                    if let Some(list) = details.get(key).and_then(Value::as_array) {
                        files.extend(list.iter().filter_map(Value::as_str).map(str::to_owned));
                    }
                }
            }
            steps.push(DroppedStep {
                kind: StepKind::Compaction,
                id: entry.id.clone(),
                timestamp: entry.timestamp().map(str::to_owned),
                entries: removed,
                tokens,
                files: files.into_iter().collect(),
                from_hook: data.from_hook,
                reverted_by: None,
            });
            region_start = first_kept;
        } else if is_prune_entry(session, index)
            && let Some(PruneRecord::Prune { entries: items, tokens_saved, .. }) =
                PruneRecord::of_entry(session, index)
        {
            let paths = call_paths.get_or_insert_with(|| tool_call_paths(session, path));
            let mut files = BTreeSet::new();
            let mut removed = Vec::new();
            for item in &items {
                let Some(target) = session.get(&item.id) else { continue };
                removed.push(item.id.clone());
                if let Some(Ok(AgentMessage::ToolResult(result))) = target.message()
                    && let Some(file) = paths.get(&result.tool_call_id)
                {
                    files.insert(file.clone());
                }
            }
            steps.push(DroppedStep {
                kind: StepKind::Prune,
                id: entry.id.clone(),
                timestamp: entry.timestamp().map(str::to_owned),
                entries: removed,
                tokens: tokens_saved,
                files: files.into_iter().collect(),
                from_hook: false,
                reverted_by: revert_of.get(&index).map(|&revert| entries[revert].id.clone()),
            });
        }
    }
    steps
}

/// Tool call id → the `path` argument, for the calls on `path`.
fn tool_call_paths(session: &Session, path: &[usize]) -> HashMap<String, String> {
    let mut paths = HashMap::new();
    for &index in path {
        let entry = &session.entries()[index];
        if entry.role() != Some("assistant") {
            continue;
        }
        let Some(Ok(AgentMessage::Assistant(assistant))) = entry.message() else { continue };
        for call in assistant.tool_calls() {
            if let Some(file) = call.arguments.get("path").and_then(Value::as_str) {
                paths.insert(call.id.clone(), file.to_owned());
            }
        }
    }
    paths
}

/// What `compaction undo` takes back.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UndoTarget {
    /// A prune in force: append a revert entry under the leaf.
    Prune {
        /// Session index of the `compaction.prune` entry.
        prune: usize,
    },
    /// A compaction: append a `compaction.undo` entry whose parent is the entry the
    /// compaction was appended after, making the path before the compaction current.
    Compaction {
        /// Session index of the `compaction` entry.
        compaction: usize,
        /// Session index of its parent (`None`: the compaction was a root).
        parent: Option<usize>,
    },
}

/// The latest compaction or prune in force on the path of `context`.
pub fn undo_target(session: &Session, context: &SessionContext) -> Option<UndoTarget> {
    let view: &PruneView = &context.pruned;
    for &index in context.path.iter().rev() {
        match &session.entries()[index].kind {
            EntryKind::Compaction(_) => {
                return Some(UndoTarget::Compaction {
                    compaction: index,
                    parent: session.parent_of(index),
                });
            }
            EntryKind::Custom { .. } if view.active.contains(&index) => {
                return Some(UndoTarget::Prune { prune: index });
            }
            EntryKind::Message { .. }
            | EntryKind::ThinkingLevelChange { .. }
            | EntryKind::ModelChange { .. }
            | EntryKind::BranchSummary(_)
            | EntryKind::Custom { .. }
            | EntryKind::CustomMessage { .. }
            | EntryKind::Label { .. }
            | EntryKind::SessionInfo { .. }
            | EntryKind::ContextEdit { .. }
            | EntryKind::Usage { .. }
            | EntryKind::Unknown { .. } => {}
        }
    }
    None
}
