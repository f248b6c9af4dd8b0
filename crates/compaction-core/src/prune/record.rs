//! The `compaction.prune` entry: its data format, and the view it gives of a path.
//!
//! A prune entry is a plain pi `custom` entry, `customType: "compaction.prune"`, whose
//! `data` is either a prune, `{"entries": [{"id", "placeholder", …}], "tokensBefore",
//! "tokensSaved"}`, or a revert, `{"revert": "<id of a prune entry>"}`. pi keeps `custom`
//! entries out of its context, so pi sees the session unpruned; our context rebuild applies
//! every prune on the path that no later revert on the path cancels.
//!
//! Invariant: only `toolResult` messages on the same path are ever replaced, and only their
//! content; a record that does not parse, or that names entries off the path, changes
//! nothing (the context falls back to the original, never to less).

use std::collections::HashMap;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::ToolPolicy;
use crate::entry::EntryKind;
use crate::message::{AgentMessage, Content, ContentBlock};
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
    },
    /// Cancels the prune entry with this id.
    Revert {
        /// The id of the prune entry that no longer applies.
        revert: String,
    },
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct PruneData {
    #[serde(default)]
    entries: Vec<PrunedItem>,
    #[serde(default)]
    tokens_before: u64,
    #[serde(default)]
    tokens_saved: u64,
    #[serde(default)]
    revert: Option<String>,
}

impl PruneRecord {
    /// The record of the entry at `index`, when it is a well-formed `compaction.prune` entry.
    pub fn of_entry(session: &Session, index: usize) -> Option<PruneRecord> {
        let entry = session.entries().get(index)?;
        let EntryKind::Custom { custom_type } = &entry.kind else { return None };
        if custom_type != PRUNE_CUSTOM_TYPE {
            return None;
        }
        let value = entry.to_value().ok()?;
        let data: PruneData = serde_json::from_value(value.get("data")?.clone()).ok()?;
        Some(match data.revert {
            Some(revert) => PruneRecord::Revert { revert },
            None => PruneRecord::Prune {
                entries: data.entries,
                tokens_before: data.tokens_before,
                tokens_saved: data.tokens_saved,
            },
        })
    }

    /// The fields of the entry recording this (the store adds `id`, `parentId` and
    /// `timestamp`).
    pub fn entry_fields(&self) -> Map<String, Value> {
        let data = match self {
            PruneRecord::Prune { entries, tokens_before, tokens_saved } => serde_json::json!({
                "entries": entries,
                "tokensBefore": tokens_before,
                "tokensSaved": tokens_saved,
            }),
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
        let mut reverted_by: HashMap<usize, usize> = HashMap::new();
        for (index, record) in &records {
            if let PruneRecord::Revert { revert } = record
                && let Some(target) = session.index_of(revert)
                && records.iter().any(|(other, r)| {
                    *other == target && matches!(r, PruneRecord::Prune { .. }) && other < index
                })
            {
                reverted_by.entry(target).or_insert(*index);
            }
        }
        let mut on_path = vec![false; session.entries().len()];
        for &index in path {
            on_path[index] = true;
        }
        for (index, record) in records {
            let PruneRecord::Prune { entries, .. } = record else { continue };
            if let Some(&revert) = reverted_by.get(&index) {
                view.reverted.push((index, revert));
                continue;
            }
            view.active.push(index);
            for item in entries {
                let Some(target) = session.index_of(&item.id) else { continue };
                if on_path[target] && session.entries()[target].role() == Some("toolResult") {
                    view.pruned
                        .insert(target, ViewItem { placeholder: item.placeholder, by: index });
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
