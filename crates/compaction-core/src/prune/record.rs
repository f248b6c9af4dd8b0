//! The `compaction.prune` entry: its data format, and the view it gives of a path.
//!
//! A prune is written as one `context_edit` entry per pruned tool result (pi 1.6 applies
//! them itself: the placeholder replaces the output in the model's context), followed by a
//! `custom` entry, `customType: "compaction.prune"`, that records the prune for `dropped`,
//! `stats` and `undo`. Its `data` is either a prune, `{"entries": [{"id", "placeholder", …}],
//! "tokensBefore", "tokensSaved"}`, or a revert, `{"revert": "<id of a prune entry>"}` (written
//! after `context_edit` entries that give the outputs back). Records written before prunes
//! became context edits have no edits beside them: our context rebuild applies every prune
//! record on the path that no later revert on the path cancels, which for the newer ones
//! shows the same placeholder their edits already show.
//!
//! Invariant: only `toolResult` messages on the same path are ever replaced, and only their
//! content; a record that does not parse, or that names entries off the path, changes
//! nothing (the context falls back to the original, never to less).

use std::collections::HashMap;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::ToolPolicy;
use crate::entry::EntryKind;
use crate::message::{AgentMessage, Content, ContentBlock, count_of};
use crate::session::Session;

/// The `customType` of prune and revert entries.
pub const PRUNE_CUSTOM_TYPE: &str = "compaction.prune";

/// One pruned entry as a prune entry records it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PrunedItem {
    /// The id of the `toolResult` message entry.
    pub id: String,
    /// The text the model sees instead of the output.
    pub placeholder: String,
    /// The tool that produced the output.
    #[serde(default)]
    pub tool: String,
    /// The policy that chose the placeholder.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub policy: Option<ToolPolicy>,
    /// Why the entry was pruned (`disposable`, `superseded`, `old`, `extension`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Estimated tokens of the original output.
    #[serde(default)]
    pub tokens: u64,
    /// Estimated tokens of the placeholder.
    #[serde(default)]
    pub tokens_after: u64,
}

/// The data of a `compaction.prune` entry.
#[derive(Debug, Clone, PartialEq)]
pub enum PruneRecord {
    /// Outputs replaced by placeholders.
    Prune {
        /// The pruned entries with their placeholders.
        entries: Vec<PrunedItem>,
        /// Estimated context tokens before the prune.
        tokens_before: u64,
        /// Estimated tokens the prune saved.
        tokens_saved: u64,
        /// Whether `context_edit` entries written with the record show the placeholders
        /// (every prune since pi 1.6 support); the record then only keeps the account.
        context_edits: bool,
    },
    /// Cancels the prune entry with this id.
    Revert {
        /// The id of the prune entry that no longer applies.
        revert: String,
    },
}

/// The fields of a `context_edit` entry (pi 1.6) that shows `content` (blocks) instead of
/// the content of the entry `target_id` (the store adds `id`, `parentId` and `timestamp`).
pub fn context_edit_fields(target_id: &str, content: Value) -> Map<String, Value> {
    let mut fields = Map::new();
    fields.insert("targetId".into(), Value::from(target_id));
    fields.insert("replacement".into(), serde_json::json!({ "content": content }));
    fields
}

impl PruneRecord {
    /// The record of the entry at `index`, when it is a readable `compaction.prune` entry.
    /// Another writer's record is read field by field: a `revert` naming an entry is a
    /// revert; otherwise `entries` must be a list whose every item names an entry (`id`) and
    /// its `placeholder`, and the rest is read as far as it can be (a count by
    /// [`count_of`], an optional field of another type or an unknown policy left at its
    /// default, fields this version does not know ignored), so a record is never dropped
    /// whole for an odd field it does not need.
    pub fn of_entry(session: &Session, index: usize) -> Option<PruneRecord> {
        let entry = session.entries().get(index)?;
        let EntryKind::Custom { custom_type } = &entry.kind else { return None };
        if custom_type != PRUNE_CUSTOM_TYPE {
            return None;
        }
        let value = entry.to_value().ok()?;
        let data = value.get("data")?.as_object()?;
        match data.get("revert") {
            Some(Value::String(revert)) => {
                return Some(PruneRecord::Revert { revert: revert.clone() });
            }
            // A revert naming no entry is no record.
            Some(_) => return None,
            None => {}
        }
        let text =
            |item: &Value, key: &str| item.get(key).and_then(Value::as_str).map(str::to_owned);
        let count = |item: &Value, key: &str| item.get(key).map_or(0, count_of);
        // `entries` absent is a record of nothing; a list whose every item names an entry
        // and its placeholder is read; anything else is no record (`check` reports it).
        let items = match data.get("entries") {
            None => &[][..],
            Some(Value::Array(items)) => items.as_slice(),
            Some(_) => return None,
        };
        let entries = items
            .iter()
            .map(|item| {
                Some(PrunedItem {
                    id: text(item, "id")?,
                    placeholder: text(item, "placeholder")?,
                    tool: text(item, "tool").unwrap_or_default(),
                    policy: item.get("policy").and_then(|p| serde_json::from_value(p.clone()).ok()),
                    reason: text(item, "reason"),
                    tokens: count(item, "tokens"),
                    tokens_after: count(item, "tokensAfter"),
                })
            })
            .collect::<Option<Vec<_>>>()?;
        let total = |key: &str| data.get(key).map_or(0, count_of);
        Some(PruneRecord::Prune {
            entries,
            tokens_before: total("tokensBefore"),
            tokens_saved: total("tokensSaved"),
            context_edits: data.get("contextEdits") == Some(&Value::Bool(true)),
        })
    }

    /// The fields of the `context_edit` entries that show each pruned output's placeholder
    /// in its place (none for a revert).
    pub fn context_edits(&self) -> Vec<Map<String, Value>> {
        match self {
            PruneRecord::Prune { entries, .. } => entries
                .iter()
                .map(|item| {
                    let text = serde_json::json!([{ "type": "text", "text": item.placeholder }]);
                    context_edit_fields(&item.id, text)
                })
                .collect(),
            PruneRecord::Revert { .. } => Vec::new(),
        }
    }

    /// The fields of the entry recording this (the store adds `id`, `parentId` and
    /// `timestamp`).
    pub fn entry_fields(&self) -> Map<String, Value> {
        let data = match self {
            PruneRecord::Prune { entries, tokens_before, tokens_saved, context_edits } => {
                let mut data = serde_json::json!({
                    "entries": entries,
                    "tokensBefore": tokens_before,
                    "tokensSaved": tokens_saved,
                });
                if *context_edits {
                    data["contextEdits"] = Value::Bool(true);
                }
                data
            }
            PruneRecord::Revert { revert } => serde_json::json!({ "revert": revert }),
        };
        let mut fields = Map::new();
        fields.insert("customType".into(), Value::from(PRUNE_CUSTOM_TYPE));
        fields.insert("data".into(), data);
        fields
    }
}

/// Whether the entry at `index` is a `compaction.prune` entry (prune or revert).
pub fn is_prune_entry(session: &Session, index: usize) -> bool {
    matches!(&session.entries()[index].kind, EntryKind::Custom { custom_type } if custom_type == PRUNE_CUSTOM_TYPE)
}

/// A pruned entry in the view: its placeholder and the prune entry that put it there.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ViewItem {
    /// The text the model sees instead of the output.
    pub placeholder: String,
    /// Session index of the prune entry.
    pub by: usize,
    /// Whether the prune's own `context_edit` entries show the placeholder.
    pub by_edit: bool,
}

/// The prunes in force on one path.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PruneView {
    pruned: HashMap<usize, ViewItem>,
    /// Session indices of the prune entries in force, in path order.
    pub active: Vec<usize>,
    /// Prune entries cancelled on this path: (prune entry, revert entry), session indices.
    pub reverted: Vec<(usize, usize)>,
    /// Index into the path of the latest well-formed `compaction.prune` entry (prune or
    /// revert): usage an assistant reported before it measured a different context.
    pub latest_position: Option<usize>,
}

impl PruneView {
    /// The prunes in force on `path` (session indices, root → leaf).
    pub fn for_path(session: &Session, path: &[usize]) -> PruneView {
        let mut view = PruneView::default();
        let mut records = Vec::new();
        for (position, &index) in path.iter().enumerate() {
            if !is_prune_entry(session, index) {
                continue;
            }
            if let Some(record) = PruneRecord::of_entry(session, index) {
                view.latest_position = Some(position);
                records.push((index, record));
            }
        }
        if records.is_empty() {
            return view;
        }
        // The prunes among the records, looked up at once (a path of n reverts would
        // otherwise search all n records for each).
        let prunes: std::collections::HashSet<usize> = records
            .iter()
            .filter(|(_, record)| matches!(record, PruneRecord::Prune { .. }))
            .map(|(index, _)| *index)
            .collect();
        let mut reverted_by: HashMap<usize, usize> = HashMap::new();
        for (index, record) in &records {
            if let PruneRecord::Revert { revert } = record
                && let Some(target) = session.index_of(revert)
                && target < *index
                && prunes.contains(&target)
            {
                reverted_by.entry(target).or_insert(*index);
            }
        }
        let mut on_path = vec![false; session.entries().len()];
        for &index in path {
            on_path[index] = true;
        }
        for (index, record) in records {
            let PruneRecord::Prune { entries, context_edits, .. } = record else { continue };
            if let Some(&revert) = reverted_by.get(&index) {
                view.reverted.push((index, revert));
                continue;
            }
            view.active.push(index);
            for item in entries {
                let Some(target) = session.index_of(&item.id) else { continue };
                if on_path[target] && session.entries()[target].role() == Some("toolResult") {
                    view.pruned.insert(
                        target,
                        ViewItem {
                            placeholder: item.placeholder,
                            by: index,
                            by_edit: context_edits,
                        },
                    );
                }
            }
        }
        view
    }

    /// Whether nothing is pruned.
    pub fn is_empty(&self) -> bool {
        self.pruned.is_empty()
    }

    /// The number of pruned entries.
    pub fn len(&self) -> usize {
        self.pruned.len()
    }

    /// The placeholder for the entry at `index`, when it is pruned.
    pub fn get(&self, index: usize) -> Option<&ViewItem> {
        self.pruned.get(&index)
    }

    /// Pruned entries (session indices), in no particular order.
    pub fn entries(&self) -> impl Iterator<Item = usize> + '_ {
        self.pruned.keys().copied()
    }

    /// `message` (the body of the entry at `index`) as the model sees it: a pruned tool
    /// result's content becomes its placeholder; everything else is unchanged.
    /// What the model is shown for an item of the context: a prune recorded without context
    /// edits (written before pi 1.6 support) replaces the output unless a `context_edit`
    /// written after it (`edit`, a session index) already decides; a prune with its own edits
    /// is shown through them.
    pub fn apply_to_context(
        &self,
        index: usize,
        edit: Option<usize>,
        message: AgentMessage,
    ) -> AgentMessage {
        match self.pruned.get(&index) {
            Some(item) if !item.by_edit && edit.is_none_or(|edit| edit < item.by) => {
                self.apply(index, message)
            }
            Some(_) | None => message,
        }
    }

    /// The output with its placeholder, for the entry at `index` when it is pruned (the
    /// account of what a prune saves).
    pub fn apply(&self, index: usize, message: AgentMessage) -> AgentMessage {
        match (self.pruned.get(&index), message) {
            (Some(item), AgentMessage::ToolResult(mut result)) => {
                result.content =
                    Content::Blocks(vec![ContentBlock::text(item.placeholder.clone())]);
                AgentMessage::ToolResult(result)
            }
            (_, message) => message,
        }
    }
}
