//! Summarizing the branch a user leaves when moving to another entry of the session tree.
//!
//! Three pure steps, matching pi 0.73.1 (`collectEntriesForBranchSummary`,
//! `prepareBranchEntries`):
//! 1. [`collect_branch_entries`]: the abandoned entries, from the old leaf back to (not
//!    including) the deepest common ancestor with the target, in chronological order.
//!    Compactions on that stretch are kept: their summaries are what remains of older work.
//! 2. [`prepare_branch_entries`]: the messages a summarizer reads, chosen newest first under a
//!    token budget, plus the files the branch read and modified.
//! 3. [`branch_summary_entry_fields`]: the fields of the `branch_summary` entry the store
//!    appends once a summary exists.
//!
//! Invariants: the collected entries form one contiguous parent chain ending at the old leaf;
//! the prepared messages are the messages of a contiguous newest run of the message-producing
//! entries (tool results never among them), in chronological order.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::context::{ContextItem, ContextItemKind, agent_message};
use crate::entry::EntryKind;
use crate::files::FileOperations;
use crate::message::AgentMessage;
use crate::session::Session;

/// The entries a navigation abandons.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BranchCollection {
    /// The deepest entry on both the old leaf's and the target's path; `None` when the two
    /// paths share no entry (separate roots).
    pub common_ancestor: Option<usize>,
    /// Entry indices from just after the common ancestor to the old leaf, chronological.
    /// Empty when the old leaf is the target or one of its ancestors.
    pub entries: Vec<usize>,
}

/// Collects the entries abandoned when the leaf moves from `old_leaf` to `target` (both
/// entry indices): the old leaf and its ancestors up to, and not including, the deepest
/// common ancestor of the two. With no common ancestor, the whole path of the old leaf.
pub fn collect_branch_entries(
    session: &Session,
    old_leaf: usize,
    target: usize,
) -> BranchCollection {
    let common_ancestor = session.common_ancestor(old_leaf, target);
    let mut entries = Vec::new();
    let mut current = Some(old_leaf);
    while let Some(index) = current {
        if Some(index) == common_ancestor {
            break;
        }
        entries.push(index);
        current = session.parent_of(index);
    }
    entries.reverse();
    BranchCollection { common_ancestor, entries }
}

/// What a branch summarizer reads, and the files the branch touched.
#[derive(Debug, Clone, PartialEq)]
pub struct BranchPreparation {
    /// The chosen messages, chronological.
    pub messages: Vec<AgentMessage>,
    /// The ids of the entries behind `messages`, in the same order.
    pub entry_ids: Vec<String>,
    /// The estimated tokens of `messages` (may exceed the budget by one summary entry).
    pub total_tokens: u64,
    /// Files read and not modified, sorted.
    pub read_files: Vec<String>,
    /// Files written or edited, sorted.
    pub modified_files: Vec<String>,
}

impl BranchPreparation {
    /// The file lists as stored in the `details` of the `branch_summary` entry.
    pub fn details(&self) -> BranchDetails {
        BranchDetails {
            read_files: self.read_files.clone(),
            modified_files: self.modified_files.clone(),
        }
    }
}

/// The `details` of a `branch_summary` entry: the files the summarized branch touched.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BranchDetails {
    /// Files the branch read and did not modify.
    pub read_files: Vec<String>,
    /// Files the branch wrote or edited.
    pub modified_files: Vec<String>,
}

/// A summary entry may be taken past the budget while the total is below this share of it.
pub const SUMMARY_OVERFLOW_SHARE: f64 = 0.9;

/// Chooses the messages of the abandoned `entries` (chronological entry indices, as
/// [`collect_branch_entries`] returns them) that fit `token_budget`, and gathers their files.
///
/// Entries are walked newest first; each message-producing entry (see [`branch_message`])
/// is taken while the running total plus its estimate stays within the budget. The first
/// one that does not fit ends the walk; if it is a compaction or branch summary and the
/// total so far is below 90% of the budget, it is still taken. A budget of 0 means no limit.
///
/// Files come from the tool calls of every message the walk looks at (including the one
/// that ends it) and from the `details` of every branch summary among `entries` that was
/// not written by a hook, whether or not it fits. Like pi 0.73.1, tool calls in entries
/// older than the one that ends the walk are not looked at, and compaction `details` are
/// not read.
pub fn prepare_branch_entries(
    session: &Session,
    entries: &[usize],
    token_budget: u64,
    estimate: &dyn Fn(&AgentMessage) -> u64,
) -> BranchPreparation {
    let mut files = FileOperations::default();
    for &index in entries {
        if let EntryKind::BranchSummary(data) = &session.entries()[index].kind
            && !data.from_hook
            && let Some(details) = &data.details
        {
            files.add_details(details);
        }
    }

    // pi 1.6: the latest context edit of a target among the abandoned entries applies; an
    // omitted entry is not summarized.
    let edits = crate::context::latest_edits(session, entries.iter().copied());

    let mut messages = Vec::new();
    let mut entry_ids = Vec::new();
    let mut total_tokens: u64 = 0;
    for &index in entries.iter().rev() {
        let edit = edits.get(session.entries()[index].id.as_str()).map(|&(edit, _)| edit);
        let Some(message) = branch_message_edited(session, index, edit) else { continue };
        files.add_message(&message);
        let tokens = estimate(&message);
        let entry = &session.entries()[index];
        if token_budget > 0 && total_tokens.saturating_add(tokens) > token_budget {
            if is_summary_entry(&entry.kind)
                && (total_tokens as f64) < token_budget as f64 * SUMMARY_OVERFLOW_SHARE
            {
                messages.push(message);
                entry_ids.push(entry.id.clone());
                total_tokens = total_tokens.saturating_add(tokens);
            }
            break;
        }
        messages.push(message);
        entry_ids.push(entry.id.clone());
        total_tokens = total_tokens.saturating_add(tokens);
    }
    messages.reverse();
    entry_ids.reverse();
    BranchPreparation {
        messages,
        entry_ids,
        total_tokens,
        read_files: files.read_only(),
        modified_files: files.modified(),
    }
}

fn is_summary_entry(kind: &EntryKind) -> bool {
    match kind {
        EntryKind::Compaction(_) | EntryKind::BranchSummary(_) => true,
        EntryKind::Message { .. }
        | EntryKind::ThinkingLevelChange { .. }
        | EntryKind::ModelChange { .. }
        | EntryKind::Custom { .. }
        | EntryKind::CustomMessage { .. }
        | EntryKind::Label { .. }
        | EntryKind::SessionInfo { .. }
        | EntryKind::ContextEdit { .. }
        | EntryKind::Usage { .. }
        | EntryKind::Unknown { .. } => false,
    }
}

/// The message an entry contributes to a branch transcript, if any: a `message` entry's
/// message unless it is a tool result; a `custom_message` as a `custom` message; a
/// `branch_summary` (even one with an empty summary) as a `branchSummary` message; a
/// `compaction` as a `compactionSummary` message. Settings changes, labels, session info,
/// extension state and unknown entry types contribute nothing.
pub fn branch_message(session: &Session, index: usize) -> Option<AgentMessage> {
    branch_message_edited(session, index, None)
}

/// [`branch_message`] with the `context_edit` entry `edit` (a session index) applied: an
/// edit whose replacement is `null` leaves the entry out.
fn branch_message_edited(
    session: &Session,
    index: usize,
    edit: Option<usize>,
) -> Option<AgentMessage> {
    let entry = session.entries().get(index)?;
    if let Some(edit) = edit
        && matches!(session.entries()[edit].kind, EntryKind::ContextEdit { omit: true, .. })
    {
        return None;
    }
    let kind = match &entry.kind {
        EntryKind::Message { role } if role == "toolResult" => return None,
        EntryKind::Message { .. } => ContextItemKind::Message,
        EntryKind::CustomMessage { .. } => ContextItemKind::CustomMessage,
        EntryKind::BranchSummary(_) => ContextItemKind::BranchSummary,
        EntryKind::Compaction(_) => ContextItemKind::CompactionSummary,
        EntryKind::ThinkingLevelChange { .. }
        | EntryKind::ModelChange { .. }
        | EntryKind::Custom { .. }
        | EntryKind::Label { .. }
        | EntryKind::SessionInfo { .. }
        | EntryKind::ContextEdit { .. }
        | EntryKind::Usage { .. }
        | EntryKind::Unknown { .. } => return None,
    };
    Some(agent_message(session, ContextItem { entry: index, kind, edit }))
}

/// The fields of a `branch_summary` entry for the store to append (it adds `id`, `parentId`
/// and `timestamp`): `type`, `fromId`, `summary`, `details` {`readFiles`, `modifiedFiles`},
/// `usage` when known, and `fromHook`.
///
/// `from_id` is the id of the old leaf the navigation left. (pi 0.73.1 itself writes the id
/// of the entry the summary hangs from, the new parent, here.)
pub fn branch_summary_entry_fields(
    summary: &str,
    from_id: &str,
    details: &BranchDetails,
    usage: Option<Value>,
    from_hook: bool,
) -> Map<String, Value> {
    let mut fields = Map::new();
    fields.insert("type".into(), Value::from("branch_summary"));
    fields.insert("fromId".into(), Value::from(from_id));
    fields.insert("summary".into(), Value::from(summary));
    let files = |list: &[String]| Value::Array(list.iter().cloned().map(Value::String).collect());
    let mut details_object = Map::new();
    details_object.insert("readFiles".into(), files(&details.read_files));
    details_object.insert("modifiedFiles".into(), files(&details.modified_files));
    fields.insert("details".into(), Value::Object(details_object));
    if let Some(usage) = usage {
        fields.insert("usage".into(), usage);
    }
    fields.insert("fromHook".into(), Value::Bool(from_hook));
    fields
}

#[cfg(test)]
mod tests;
