//! Taking a prune back: the `context_edit` entries that restore the state before it.
//!
//! A prune (written with its own `context_edit` entries) is undone by one new edit per
//! pruned output that puts back what the context showed just before the prune: the
//! output's own content, or the replacement (or omission) another writer's edit had in
//! force then. The prune's own edit of an output is the latest edit of it before the record
//! that shows the record's placeholder alone; another writer's edit is never taken for it
//! (one the record names without its own edit, one written between the prune's edits and
//! its record). An output whose latest edit in the context is no longer the prune's own
//! (another writer edited it after) gets no edit: an edit written later always wins, so
//! undo never overrides it. An entry named twice gets one edit; a message that is no tool
//! result (another writer's record may name one) gets its own content back as its line
//! holds it. Edits are read as pi 1.6 reads them: among the context entries only, the
//! latest edit of each target in force.
//!
//! Invariant: the edits are computed from the session alone (pure), and each one targets
//! an entry the prune record names.

use std::collections::{HashMap, HashSet};

use serde_json::{Map, Value};

use super::record::{PruneRecord, context_edit_fields};
use crate::context::SessionContext;
use crate::entry::EntryKind;
use crate::session::Session;

/// The fields of the `context_edit` entries that take back the prune entry at `prune` (a
/// session index) on `context`'s path, in the record's order. Empty for a revert, for a
/// prune written before prunes became context edits (its revert record alone ends it), and
/// for a prune that is not on the path.
pub fn undo_edits(
    session: &Session,
    context: &SessionContext,
    prune: usize,
) -> Vec<Map<String, Value>> {
    let Some(PruneRecord::Prune { entries: items, context_edits: true, .. }) =
        PruneRecord::of_entry(session, prune)
    else {
        return Vec::new();
    };
    let Some(prune_position) = context.path.iter().position(|&index| index == prune) else {
        return Vec::new();
    };
    let targets: HashSet<&str> = items.iter().map(|item| item.id.as_str()).collect();
    // The edits of each target among the context entries, in path order.
    let mut edits: HashMap<&str, Vec<(usize, usize)>> = HashMap::new();
    for entry in &context.entries {
        if let EntryKind::ContextEdit { target_id, .. } = &session.entries()[entry.entry].kind
            && targets.contains(target_id.as_str())
        {
            edits.entry(target_id.as_str()).or_default().push((entry.position, entry.entry));
        }
    }
    for list in edits.values_mut() {
        list.sort_unstable();
    }
    let mut out = Vec::new();
    let mut done = HashSet::new();
    for item in &items {
        if !done.insert(item.id.as_str()) {
            continue;
        }
        let list = edits.get(item.id.as_str()).map(Vec::as_slice).unwrap_or_default();
        // The prune's own edit: the latest edit of the target before its record that shows
        // the record's placeholder (another writer's edit there is not the prune's). It must
        // also be the latest edit of the target overall, or a later edit decides.
        let Some(own) = list.iter().rposition(|&(position, edit)| {
            position < prune_position && shows_placeholder(session, edit, &item.placeholder)
        }) else {
            continue;
        };
        if own + 1 != list.len() {
            continue;
        }
        let restored = match own.checked_sub(1).map(|before| list[before].1) {
            Some(before) => edit_fields(session, before, &item.id),
            None => original_fields(session, &item.id),
        };
        out.extend(restored);
    }
    out
}

/// Whether the `context_edit` entry `edit` (a session index) shows `placeholder` alone, as a
/// prune's own edit does.
fn shows_placeholder(session: &Session, edit: usize, placeholder: &str) -> bool {
    let Ok(value) = session.entries()[edit].to_value() else { return false };
    let content = &value["replacement"]["content"];
    content.as_array().is_some_and(|blocks| {
        matches!(blocks.as_slice(), [block] if block["type"] == "text" && block["text"] == placeholder)
    })
}

/// The fields of a new edit that puts `edit` (a session index) back in force for `target`.
fn edit_fields(session: &Session, edit: usize, target: &str) -> Option<Map<String, Value>> {
    let mut value = session.entries()[edit].to_value().ok()?;
    let replacement = value.get_mut("replacement").map(Value::take)?;
    let mut fields = Map::new();
    fields.insert("targetId".into(), Value::from(target));
    fields.insert("replacement".into(), replacement);
    Some(fields)
}

/// The fields of a new edit that shows the message entry `target` with its own content, as
/// its line holds it (a tool result's blocks, a user message's string or blocks).
fn original_fields(session: &Session, target: &str) -> Option<Map<String, Value>> {
    let entry = session.get(target)?;
    entry.message()?.ok()?;
    let value = entry.to_value().ok()?;
    let content = value.get("message")?.get("content")?.clone();
    Some(context_edit_fields(target, content))
}
