//! Damage that parsing alone does not see, found by looking at what entries say about each
//! other: a compaction whose kept entry is missing or off its path, and pin or prune entries
//! of ours whose `data` is malformed. `check` reports these with the parse diagnostics.
//!
//! Invariant: every diagnostic names the line of the entry at fault. A compaction that keeps
//! nothing names itself as its first kept entry (pi 1.6 writes that); it is valid.

use serde_json::Value;

use crate::diagnostic::{Diagnostic, DiagnosticKind};
use crate::entry::EntryKind;
use crate::pins::{PIN_CUSTOM_TYPE, UNPIN_CUSTOM_TYPE};
use crate::prune::{PRUNE_CUSTOM_TYPE, PruneRecord};
use crate::session::Session;

/// Every problem between entries, in file order.
pub fn entry_diagnostics(session: &Session) -> Vec<Diagnostic> {
    let mut found = Vec::new();
    for (index, entry) in session.entries().iter().enumerate() {
        match &entry.kind {
            EntryKind::Compaction(data) => {
                let kept = data.first_kept_entry_id.as_str();
                if kept == entry.id {
                    continue;
                }
                match session.index_of(kept) {
                    None => found.push(Diagnostic::new(
                        entry.line,
                        DiagnosticKind::CompactionKeptMissing,
                        format!(
                            "compaction `{}` keeps from `{kept}`, which is no entry of this file",
                            entry.id
                        ),
                    )),
                    Some(kept_index) if !session.path(index).contains(&kept_index) => {
                        found.push(Diagnostic::new(
                            entry.line,
                            DiagnosticKind::CompactionKeptOffPath,
                            format!(
                                "compaction `{}` keeps from `{kept}` (line {}), which is not on \
                                 its path",
                                entry.id,
                                session.entries()[kept_index].line
                            ),
                        ));
                    }
                    Some(_) => {}
                }
            }
            EntryKind::Custom { custom_type } => {
                let data = entry.to_value().ok().and_then(|value| value.get("data").cloned());
                if custom_type == PIN_CUSTOM_TYPE || custom_type == UNPIN_CUSTOM_TYPE {
                    if let Some(problem) = pin_problem(custom_type, data.as_ref()) {
                        found.push(Diagnostic::new(
                            entry.line,
                            DiagnosticKind::MalformedPin,
                            format!(
                                "`{custom_type}` entry `{}` {problem}; it is ignored",
                                entry.id
                            ),
                        ));
                    }
                } else if custom_type == PRUNE_CUSTOM_TYPE
                    && PruneRecord::of_entry(session, index).is_none()
                {
                    found.push(Diagnostic::new(
                        entry.line,
                        DiagnosticKind::MalformedPrune,
                        format!(
                            "`{custom_type}` entry `{}` has no readable prune record in `data`; \
                             it is ignored",
                            entry.id
                        ),
                    ));
                }
            }
            EntryKind::Message { role } => {
                if let Some(Err(error)) = entry.message() {
                    found.push(Diagnostic::new(
                        entry.line,
                        DiagnosticKind::UnreadableMessage,
                        format!(
                            "`{role}` message `{}` cannot be read ({error}); it is kept as \
                             written and shown as an unknown message",
                            entry.id
                        ),
                    ));
                }
            }
            EntryKind::ThinkingLevelChange { .. }
            | EntryKind::ModelChange { .. }
            | EntryKind::BranchSummary(_)
            | EntryKind::CustomMessage { .. }
            | EntryKind::Label { .. }
            | EntryKind::SessionInfo { .. }
            | EntryKind::ContextEdit { .. }
            | EntryKind::Usage { .. }
            | EntryKind::Unknown { .. } => {}
        }
    }
    found
}

/// What is wrong with a pin (`data.text`, a string) or unpin (`data.pinIds`, strings) entry.
fn pin_problem(custom_type: &str, data: Option<&Value>) -> Option<&'static str> {
    let Some(data) = data else { return Some("has no `data`") };
    if custom_type == PIN_CUSTOM_TYPE {
        match data.get("text") {
            Some(Value::String(text)) if !text.trim().is_empty() => None,
            Some(Value::String(_)) => Some("pins an empty text"),
            _ => Some("has no `data.text` string"),
        }
    } else {
        match data.get("pinIds") {
            Some(Value::Array(ids)) if ids.iter().all(Value::is_string) => None,
            _ => Some("has no `data.pinIds` list of ids"),
        }
    }
}
