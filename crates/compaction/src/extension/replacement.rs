//! Turning an extension's replacement into the fields of the entry that is written.
//!
//! The store keeps a contiguous suffix of the path verbatim, so a replacement that asks to
//! keep scattered messages (the seed's "summary plus messages to keep" shape) is converted:
//! the kept part grows back over the kept messages directly in front of it, and every other
//! kept message is rendered into the summary under [`PRESERVED_HEADING`], in path order.
//!
//! Invariant: a resolved replacement's first kept entry is on the compacted path, inside the
//! region, and never a tool result, so the context rebuilt from it never starts with a tool
//! result cut off from its call.

use std::collections::HashSet;

use compaction_core::cut::is_valid_raw_cut_point;
use compaction_core::prepare::{CompactionPreparation, compaction_input_message};
use compaction_core::serialize::{SerializeOptions, serialize_message};
use compaction_core::{EntryKind, Session};
use serde_json::{Map, Value};

use super::{InvalidReplacement, Replacement};

/// The heading under which kept messages outside the kept suffix are rendered.
pub const PRESERVED_HEADING: &str = "## Preserved messages";

/// A validated replacement for a compaction, ready to be written with `fromHook: true`.
#[derive(Debug, Clone, PartialEq)]
pub struct ResolvedReplacement {
    /// The summary, with preserved messages appended when there are any.
    pub summary: String,
    /// The first entry kept verbatim after the summary.
    pub first_kept_entry_id: String,
    /// Context tokens before.
    pub tokens_before: u64,
    /// Writer-specific details stored with the entry.
    pub details: Option<Value>,
    /// Tokens the summarizer calls used.
    pub usage: Option<Value>,
    /// Ids of the kept messages rendered into the summary (not kept verbatim), in order.
    pub preserved_message_ids: Vec<String>,
}

impl ResolvedReplacement {
    /// The fields of the `compaction` entry (the store adds `id`, `parentId`, `timestamp`).
    /// The summary is written as the extension gave it: no file lists are appended, and
    /// `details` is the extension's own (it never feeds later built-in file lists).
    pub fn entry_fields(&self) -> Map<String, Value> {
        let mut fields = Map::new();
        fields.insert("type".into(), Value::from("compaction"));
        fields.insert("summary".into(), Value::from(self.summary.clone()));
        fields.insert("firstKeptEntryId".into(), Value::from(self.first_kept_entry_id.clone()));
        fields.insert("tokensBefore".into(), Value::from(self.tokens_before));
        if let Some(details) = &self.details {
            fields.insert("details".into(), details.clone());
        }
        if let Some(usage) = &self.usage {
            fields.insert("usage".into(), usage.clone());
        }
        fields.insert("fromHook".into(), Value::Bool(true));
        fields
    }
}

/// A validated replacement for a branch summary.
#[derive(Debug, Clone, PartialEq)]
pub struct ResolvedBranchReplacement {
    /// The summary, with preserved messages appended when there are any.
    pub summary: String,
    /// Writer-specific details stored with the entry.
    pub details: Option<Value>,
    /// Tokens the summarizer calls used.
    pub usage: Option<Value>,
    /// Ids of the kept messages rendered into the summary, in order.
    pub preserved_message_ids: Vec<String>,
}

impl ResolvedBranchReplacement {
    /// The fields of the `branch_summary` entry; `from_id` is the old leaf's id.
    pub fn entry_fields(&self, from_id: &str) -> Map<String, Value> {
        let mut fields = Map::new();
        fields.insert("type".into(), Value::from("branch_summary"));
        fields.insert("fromId".into(), Value::from(from_id));
        fields.insert("summary".into(), Value::from(self.summary.clone()));
        if let Some(details) = &self.details {
            fields.insert("details".into(), details.clone());
        }
        if let Some(usage) = &self.usage {
            fields.insert("usage".into(), usage.clone());
        }
        fields.insert("fromHook".into(), Value::Bool(true));
        fields
    }
}

/// How preserved messages are rendered: whole (no truncation), with known secret formats
/// redacted.
pub fn preserved_render_options() -> SerializeOptions {
    SerializeOptions { tool_result_max_chars: usize::MAX, ..SerializeOptions::default() }
}

/// [`resolve_replacement_with`] rendering preserved messages with
/// [`preserved_render_options`].
pub fn resolve_replacement(
    session: &Session,
    preparation: &CompactionPreparation,
    replacement: Replacement,
) -> Result<ResolvedReplacement, InvalidReplacement> {
    resolve_replacement_with(session, preparation, replacement, &preserved_render_options())
}

/// Validates a compaction replacement and converts kept messages.
///
/// The region is `preparation.path[preparation.region_start..]`. Message entries are the
/// entries that give the compaction a message (`message`, `custom_message`,
/// `branch_summary`).
///
/// 1. The base is `first_kept_entry_id` when given, else the preparation's first kept
///    entry. A given id must be on the path, inside the region and not a tool result. It
///    may be the leaf (then only the leaf stays verbatim).
/// 2. Every id in `kept_message_ids` must name a message entry in the region.
/// 3. The first kept entry is the earliest message entry `m` at or before the base such
///    that every message entry from `m` up to the base is kept; it then moves forward past
///    entries that cannot start the kept part (tool results, settings changes), never past
///    the base. Without kept ids (or when the message right before the base is not kept) it
///    is the base itself. Kept messages at or after it stay verbatim.
/// 4. Kept messages before the first kept entry are rendered, in path order, under
///    [`PRESERVED_HEADING`] after the summary.
/// 5. The resulting summary must not be empty.
///
/// `tokens_before` defaults to the preparation's.
pub fn resolve_replacement_with(
    session: &Session,
    preparation: &CompactionPreparation,
    replacement: Replacement,
    options: &SerializeOptions,
) -> Result<ResolvedReplacement, InvalidReplacement> {
    let entries = session.entries();
    let path = &preparation.path;
    let region_start = preparation.region_start.min(path.len());
    let base = match &replacement.first_kept_entry_id {
        None => preparation.cut.first_kept,
        Some(id) => {
            let position = path
                .iter()
                .position(|&index| entries[index].id == *id)
                .ok_or_else(|| InvalidReplacement::FirstKeptNotOnPath(id.clone()))?;
            if position < region_start {
                return Err(InvalidReplacement::FirstKeptBeforeRegion(id.clone()));
            }
            if entries[path[position]].role() == Some("toolResult") {
                return Err(InvalidReplacement::FirstKeptIsToolResult(id.clone()));
            }
            position
        }
    };
    let region = &path[region_start..];
    let kept = kept_set(session, region, replacement.kept_message_ids.as_deref())?;

    let mut first = base;
    if !kept.is_empty() {
        let mut position = base;
        while position > region_start {
            position -= 1;
            let entry = &entries[path[position]];
            if is_message_entry(&entry.kind) {
                if kept.contains(entry.id.as_str()) {
                    first = position;
                } else {
                    break;
                }
            }
        }
        while first < base && !is_valid_raw_cut_point(session, path[first]) {
            first += 1;
        }
    }

    let preserved: Vec<usize> = path[region_start..first]
        .iter()
        .copied()
        .filter(|&index| kept.contains(entries[index].id.as_str()))
        .collect();
    let summary = with_preserved(session, &replacement.summary, &preserved, options)?;
    let first_kept_entry_id = path
        .get(first)
        .map(|&index| entries[index].id.clone())
        .unwrap_or_else(|| preparation.first_kept_entry_id.clone());
    Ok(ResolvedReplacement {
        summary,
        first_kept_entry_id,
        tokens_before: replacement.tokens_before.unwrap_or(preparation.tokens_before),
        details: replacement.details,
        usage: replacement.usage,
        preserved_message_ids: preserved.iter().map(|&index| entries[index].id.clone()).collect(),
    })
}

/// Validates a branch summary replacement. Nothing of an abandoned branch stays verbatim,
/// so `first_kept_entry_id` is rejected and every kept message (which must be one of the
/// abandoned `entries`) is rendered under [`PRESERVED_HEADING`]. `tokens_before` is ignored.
pub fn resolve_branch_replacement(
    session: &Session,
    entries: &[usize],
    replacement: Replacement,
) -> Result<ResolvedBranchReplacement, InvalidReplacement> {
    resolve_branch_replacement_with(session, entries, replacement, &preserved_render_options())
}

/// [`resolve_branch_replacement`] rendering preserved messages with `options`.
pub fn resolve_branch_replacement_with(
    session: &Session,
    entries: &[usize],
    replacement: Replacement,
    options: &SerializeOptions,
) -> Result<ResolvedBranchReplacement, InvalidReplacement> {
    if replacement.first_kept_entry_id.is_some() {
        return Err(InvalidReplacement::FirstKeptInBranchSummary);
    }
    let kept = kept_set(session, entries, replacement.kept_message_ids.as_deref())?;
    let preserved: Vec<usize> = entries
        .iter()
        .copied()
        .filter(|&index| kept.contains(session.entries()[index].id.as_str()))
        .collect();
    let summary = with_preserved(session, &replacement.summary, &preserved, options)?;
    Ok(ResolvedBranchReplacement {
        summary,
        details: replacement.details,
        usage: replacement.usage,
        preserved_message_ids: preserved
            .iter()
            .map(|&index| session.entries()[index].id.clone())
            .collect(),
    })
}

/// Joins the user's custom instructions and instructions added by extensions.
pub fn merge_instructions(user: Option<&str>, added: Option<&str>) -> Option<String> {
    let parts: Vec<&str> =
        [user, added].into_iter().flatten().map(str::trim).filter(|s| !s.is_empty()).collect();
    if parts.is_empty() { None } else { Some(parts.join("\n\n")) }
}

/// Whether an entry gives a compaction a message.
fn is_message_entry(kind: &EntryKind) -> bool {
    match kind {
        EntryKind::Message { .. }
        | EntryKind::CustomMessage { .. }
        | EntryKind::BranchSummary(_) => true,
        EntryKind::Compaction(_)
        | EntryKind::ThinkingLevelChange { .. }
        | EntryKind::ModelChange { .. }
        | EntryKind::Custom { .. }
        | EntryKind::Label { .. }
        | EntryKind::SessionInfo { .. }
        | EntryKind::ContextEdit { .. }
        | EntryKind::Usage { .. }
        | EntryKind::Unknown { .. } => false,
    }
}

/// Ids of the message entries among `indices` (session indices), in order.
pub(super) fn input_entry_ids<'s>(session: &'s Session, indices: &[usize]) -> Vec<&'s str> {
    indices
        .iter()
        .map(|&index| &session.entries()[index])
        .filter(|entry| is_message_entry(&entry.kind))
        .map(|entry| entry.id.as_str())
        .collect()
}

fn kept_set<'r>(
    session: &Session,
    region: &[usize],
    ids: Option<&'r [String]>,
) -> Result<HashSet<&'r str>, InvalidReplacement> {
    let Some(ids) = ids else { return Ok(HashSet::new()) };
    let allowed: HashSet<&str> = input_entry_ids(session, region).into_iter().collect();
    let mut kept = HashSet::new();
    for id in ids {
        if !allowed.contains(id.as_str()) {
            return Err(InvalidReplacement::KeptMessageNotInRegion(id.clone()));
        }
        kept.insert(id.as_str());
    }
    Ok(kept)
}

fn with_preserved(
    session: &Session,
    summary: &str,
    preserved: &[usize],
    options: &SerializeOptions,
) -> Result<String, InvalidReplacement> {
    let blocks: Vec<String> = preserved
        .iter()
        .filter_map(|&index| compaction_input_message(session, index))
        .map(|message| serialize_message(&message, options))
        .filter(|block| !block.is_empty())
        .collect();
    let mut out = summary.trim_end().to_owned();
    if !blocks.is_empty() {
        if !out.is_empty() {
            out.push_str("\n\n");
        }
        out.push_str(PRESERVED_HEADING);
        out.push_str("\n\n");
        out.push_str(&blocks.join("\n\n"));
    }
    if out.trim().is_empty() { Err(InvalidReplacement::EmptySummary) } else { Ok(out) }
}
