//! The projection: what the model sees at a leaf, with the entry each message comes from.
//!
//! One stage serves context, tokens, plan, prune, branch, recall and `dropped` (pi 1.6's
//! `buildContextEntries` → `buildSessionProjection`):
//! 1. **Context entries.** Walk the path root → leaf. Without a compaction, every entry of
//!    the path. With one, the latest compaction first, then the entries from its
//!    `firstKeptEntryId` up to it except system messages (the compaction's checkpoint holds
//!    their replay), then every entry after it. A retain-none compaction names itself as
//!    first kept entry, so nothing before it stays.
//! 2. **Edits.** The latest `context_edit` of a target among the context entries wins:
//!    `replacement: null` leaves the target out, a replacement swaps its content.
//! 3. **Messages.** Each context entry gives zero, one or two items: a `message` entry its
//!    message (system messages included), a `custom_message` a custom message, a non-empty
//!    branch summary its summary, and the latest compaction its `systemMessage` checkpoint
//!    (when it has one) and its summary. Older compactions inside the kept range give none.
//!
//! The pins active on the path (our addition, see [`crate::pins`]) follow the compaction's
//! items as one user message, or, without a compaction, the leading system messages. Prunes written by earlier
//! versions (`compaction.prune` entries) are a view over the items: [`SessionContext::message`]
//! swaps a pruned tool result's content for its placeholder.
//!
//! Invariant: items are in context-entry order, which is path order after the compaction;
//! building them is linear in the path length and parses no message body.

mod llm;
mod message;
#[cfg(test)]
mod tests;

pub use llm::{
    BRANCH_SUMMARY_PREFACE, COMPACTION_SUMMARY_PREFACE, bash_execution_text, to_llm, wrap_summary,
};
pub use message::agent_message;

use std::collections::HashMap;
use std::ops::Range;

use crate::entry::EntryKind;
use crate::message::AgentMessage;
use crate::session::Session;

/// What produced one item of the context.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ContextItemKind {
    /// A `message` entry (any role, `system` included).
    Message,
    /// A `custom_message` entry (a user message from an extension).
    CustomMessage,
    /// A `branch_summary` entry.
    BranchSummary,
    /// The `systemMessage` checkpoint of the latest `compaction` entry on the path (pi 1.6):
    /// the replayed system prompt and tools, leading the compacted context.
    SystemCheckpoint,
    /// The summary of the latest `compaction` entry on the path.
    CompactionSummary,
    /// The pins active on the path (see [`crate::pins`]), as one user message; the entry is
    /// the last `compaction.pin` or `compaction.unpin` entry on the path.
    Pins,
}

/// One item of the context: an entry index and how it contributes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ContextItem {
    /// Index of the entry in the session.
    pub entry: usize,
    /// How the entry enters the context.
    pub kind: ContextItemKind,
    /// The `context_edit` entry (session index) whose replacement content this item shows.
    pub edit: Option<usize>,
}

impl ContextItem {
    /// An item shown as its entry has it.
    pub fn new(entry: usize, kind: ContextItemKind) -> Self {
        ContextItem { entry, kind, edit: None }
    }
}

/// One context entry (pi's projected entry): an entry of the path the context is built
/// from, and the items it gives (none for settings changes, edits, omitted entries, …).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ContextEntry {
    /// Index of the entry in the session.
    pub entry: usize,
    /// Its position in [`SessionContext::path`].
    pub position: usize,
    /// Its items, as a range of [`SessionContext::items`].
    pub items: Range<usize>,
    /// Whether a `context_edit` with `replacement: null` left it out.
    pub omitted: bool,
    /// The `context_edit` entry (session index) in force for it: the one that left it out
    /// or whose replacement it shows.
    pub edit: Option<usize>,
}

impl ContextEntry {
    /// Whether the entry gives no item.
    pub fn is_invisible(&self) -> bool {
        self.items.is_empty()
    }
}

/// The model a context was last talking to.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ModelRef {
    /// The provider's name.
    pub provider: String,
    /// The model id.
    pub model_id: String,
}

/// The context at a leaf, as entry references.
#[derive(Debug, Clone, PartialEq)]
pub struct SessionContext {
    /// The entries from the root to the leaf.
    pub path: Vec<usize>,
    /// The context entries in order (see the module documentation).
    pub entries: Vec<ContextEntry>,
    /// The context items in the order the model sees them.
    pub items: Vec<ContextItem>,
    /// The thinking level from the last `thinking_level_change` on the path, or `off`.
    pub thinking_level: String,
    /// The model from the last `model_change` or assistant reply on the path.
    pub model: Option<ModelRef>,
    /// The latest compaction on the path, as an index into `path`.
    pub compaction_position: Option<usize>,
    /// Index into `path` of the first entry the context keeps verbatim before the compaction.
    pub first_kept_position: Option<usize>,
    /// The latest `context_edit` on the path, as an index into `path`.
    pub latest_edit_position: Option<usize>,
    /// The prunes in force on the path.
    pub pruned: crate::prune::PruneView,
}

/// Builds the context for `leaf` (an entry index); `None` gives the empty context.
pub fn build_context(session: &Session, leaf: Option<usize>) -> SessionContext {
    let path = leaf.map(|leaf| session.path(leaf)).unwrap_or_default();
    build_context_for_path(session, path)
}

/// Builds the context for an explicit root → leaf path of entry indices.
pub fn build_context_for_path(session: &Session, path: Vec<usize>) -> SessionContext {
    let entries = session.entries();
    let mut thinking_level = None;
    let mut compaction_position = None;
    let mut latest_edit_position = None;
    for (position, &index) in path.iter().enumerate() {
        match &entries[index].kind {
            EntryKind::ThinkingLevelChange { thinking_level: level } => {
                thinking_level = Some(level.clone());
            }
            EntryKind::Compaction(_) => compaction_position = Some(position),
            EntryKind::ContextEdit { .. } => latest_edit_position = Some(position),
            EntryKind::Message { .. }
            | EntryKind::ModelChange { .. }
            | EntryKind::BranchSummary(_)
            | EntryKind::Custom { .. }
            | EntryKind::CustomMessage { .. }
            | EntryKind::Label { .. }
            | EntryKind::SessionInfo { .. }
            | EntryKind::Usage { .. }
            | EntryKind::Unknown { .. } => {}
        }
    }
    let model = last_model(session, &path);
    let pruned = crate::prune::PruneView::for_path(session, &path);

    // Stage 1: the context entries, as positions in the path.
    let mut positions: Vec<usize> = Vec::with_capacity(path.len());
    let mut first_kept_position = None;
    match compaction_position {
        Some(compaction_at) => {
            positions.push(compaction_at);
            let first_kept =
                entries[path[compaction_at]].kind.as_compaction().map(|d| &d.first_kept_entry_id);
            first_kept_position = path[..compaction_at]
                .iter()
                .position(|&index| Some(&entries[index].id) == first_kept);
            if let Some(start) = first_kept_position {
                positions.extend(
                    (start..compaction_at).filter(|&p| entries[path[p]].role() != Some("system")),
                );
            }
            positions.extend(compaction_at + 1..path.len());
        }
        None => positions.extend(0..path.len()),
    }

    // Stage 2: the latest edit of each target among the context entries.
    let edits = if latest_edit_position.is_some() {
        latest_edits(session, positions.iter().map(|&position| path[position]))
    } else {
        HashMap::new()
    };

    // Stage 3: the items of each context entry.
    let (pins, pins_entry) = crate::pins::active_pins_on_path(session, &path);
    let pins_item = pins_entry.filter(|_| !pins.is_empty()).map(|entry| ContextItem {
        entry,
        kind: ContextItemKind::Pins,
        edit: None,
    });
    let mut items = Vec::with_capacity(positions.len() + 2);
    let mut context_entries = Vec::with_capacity(positions.len());
    // Without a compaction, the pins go after the leading system messages.
    let mut pins_first = if compaction_position.is_none() { pins_item } else { None };
    for (order, &position) in positions.iter().enumerate() {
        let index = path[position];
        let edit = if edits.is_empty() { None } else { edits.get(entries[index].id.as_str()) };
        let omitted = matches!(edit, Some((_, true)));
        let kinds: &[ContextItemKind] = match &entries[index].kind {
            _ if omitted => &[],
            EntryKind::Message { .. } => &[ContextItemKind::Message],
            EntryKind::CustomMessage { .. } => &[ContextItemKind::CustomMessage],
            EntryKind::BranchSummary(data) if !data.summary.is_empty() => {
                &[ContextItemKind::BranchSummary]
            }
            // Only the latest compaction, projected first, speaks; an older one inside its
            // kept range gives nothing.
            EntryKind::Compaction(data) if order == 0 => {
                if data.has_system_message {
                    &[ContextItemKind::SystemCheckpoint, ContextItemKind::CompactionSummary]
                } else {
                    &[ContextItemKind::CompactionSummary]
                }
            }
            EntryKind::BranchSummary(_)
            | EntryKind::Compaction(_)
            | EntryKind::ThinkingLevelChange { .. }
            | EntryKind::ModelChange { .. }
            | EntryKind::Custom { .. }
            | EntryKind::Label { .. }
            | EntryKind::SessionInfo { .. }
            | EntryKind::ContextEdit { .. }
            | EntryKind::Usage { .. }
            | EntryKind::Unknown { .. } => &[],
        };
        // The pins go before the first item that is not a system message.
        if !kinds.is_empty() && entries[index].role() != Some("system") {
            items.extend(pins_first.take());
        }
        let start = items.len();
        let item_edit = edit.map(|&(edit, _)| edit);
        items.extend(kinds.iter().map(|&kind| ContextItem { entry: index, kind, edit: item_edit }));
        context_entries.push(ContextEntry {
            entry: index,
            position,
            items: start..items.len(),
            omitted,
            edit: edit.map(|&(edit, _)| edit),
        });
        if order == 0 && compaction_position.is_some() {
            items.extend(pins_item);
        }
    }
    items.extend(pins_first);
    SessionContext {
        path,
        entries: context_entries,
        items,
        thinking_level: thinking_level.unwrap_or_else(|| "off".to_owned()),
        model,
        compaction_position,
        first_kept_position,
        latest_edit_position,
        pruned,
    }
}

/// The latest `context_edit` of each target among `indices` (session indices, in path
/// order): target id → (edit entry, whether it leaves the target out). Later edits win.
pub(crate) fn latest_edits(
    session: &Session,
    indices: impl IntoIterator<Item = usize>,
) -> HashMap<&str, (usize, bool)> {
    let mut edits = HashMap::new();
    for index in indices {
        if let EntryKind::ContextEdit { target_id, omit } = &session.entries()[index].kind {
            edits.insert(target_id.as_str(), (index, *omit));
        }
    }
    edits
}

impl SessionContext {
    /// The index into [`SessionContext::entries`] of the latest compaction when it speaks
    /// (it is projected first and not omitted): the entries after it are the region a new
    /// compaction may summarize.
    pub fn speaking_compaction(&self) -> Option<usize> {
        self.entries.first().filter(|first| {
            self.compaction_position == Some(first.position) && !first.is_invisible()
        })?;
        Some(0)
    }

    /// The items of one context entry.
    pub fn entry_items(&self, entry: &ContextEntry) -> &[ContextItem] {
        &self.items[entry.items.clone()]
    }
}

/// The last model named on the path: a `model_change`, or an assistant reply's
/// provider/model. Walks backwards so only one message body is parsed.
fn last_model(session: &Session, path: &[usize]) -> Option<ModelRef> {
    for &index in path.iter().rev() {
        let entry = &session.entries()[index];
        match &entry.kind {
            EntryKind::ModelChange { provider, model_id } => {
                return Some(ModelRef { provider: provider.clone(), model_id: model_id.clone() });
            }
            EntryKind::Message { role } if role == "assistant" => {
                if let Some(Ok(AgentMessage::Assistant(message))) = entry.message()
                    && let (Some(provider), Some(model)) = (message.provider, message.model)
                {
                    return Some(ModelRef { provider, model_id: model });
                }
            }
            EntryKind::Message { .. }
            | EntryKind::ThinkingLevelChange { .. }
            | EntryKind::Compaction(_)
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
