//! The path columns a database store keeps for each entry of a sound session, so the context
//! at a leaf reads only the entries the projection looks at (see [`super::PathRead`]).

use compaction_core::message::AgentMessage;
use compaction_core::{DiagnosticKind, Entry, Session};

/// An entry row's path columns (see the schema).
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct PathColumns {
    pub(crate) parent_seq: Option<i64>,
    pub(crate) depth: i64,
    pub(crate) compaction_seq: Option<i64>,
    pub(crate) marker_seq: Option<i64>,
    pub(crate) assistant_seq: Option<i64>,
}

/// An entry as its children's path columns need it.
#[derive(Debug, Clone)]
pub(crate) struct Node {
    pub(crate) id: String,
    pub(crate) seq: i64,
    pub(crate) is_message: bool,
    pub(crate) is_assistant: bool,
    pub(crate) columns: PathColumns,
}

impl Node {
    pub(crate) fn of(entry: &Entry, seq: i64, parent: Option<&Node>) -> Node {
        let is_compaction = entry.kind.as_compaction().is_some();
        let columns = match parent {
            None => PathColumns {
                compaction_seq: is_compaction.then_some(seq),
                ..PathColumns::default()
            },
            Some(parent) => PathColumns {
                parent_seq: Some(parent.seq),
                depth: parent.columns.depth + 1,
                compaction_seq: if is_compaction {
                    Some(seq)
                } else {
                    parent.columns.compaction_seq
                },
                marker_seq: if parent.is_message {
                    parent.columns.marker_seq
                } else {
                    Some(parent.seq)
                },
                assistant_seq: if parent.is_assistant {
                    Some(parent.seq)
                } else {
                    parent.columns.assistant_seq
                },
            },
        };
        Node {
            id: entry.id.clone(),
            seq,
            is_message: entry.is_message(),
            is_assistant: entry.is_message() && entry.role() == Some("assistant"),
            columns,
        }
    }
}

/// Whether the session's tree can be followed through the path columns.
pub(crate) fn is_sound(session: &Session) -> bool {
    session.malformed().is_empty()
        && !session.diagnostics().iter().any(|diagnostic| {
            matches!(
                diagnostic.kind,
                DiagnosticKind::DuplicateId
                    | DiagnosticKind::DanglingParent
                    | DiagnosticKind::ParentCycle
            )
        })
        && (0..session.entries().len())
            .all(|index| session.parent_of(index).is_none_or(|parent| parent < index))
}

/// Whether an entry line is an assistant reply naming its provider and model.
pub(crate) fn names_model(bytes: &[u8]) -> bool {
    let Some(entry) = std::str::from_utf8(bytes).ok().and_then(|raw| Entry::parse(0, raw).ok())
    else {
        return false;
    };
    matches!(entry.message(), Some(Ok(AgentMessage::Assistant(message)))
        if message.provider.is_some() && message.model.is_some())
}

/// Which non-message ancestors above the context's first entry the projection reads, walking
/// up from the nearest: every `custom` entry (pins and prunes are custom entries) and every
/// entry of a kind it does not know, and the nearest thinking-level change, model change,
/// edit and usage (only the latest of each counts); not older compactions, branch summaries,
/// custom messages, labels and session names, which give no item there and change nothing
/// else. `seen_latest` carries the kinds of which the nearest was already taken.
pub(crate) fn marker_wanted(kind: &str, seen_latest: &mut Vec<String>) -> bool {
    match kind {
        "compaction" | "branch_summary" | "custom_message" | "label" | "session_info" => false,
        "thinking_level_change" | "model_change" | "context_edit" | "usage" => {
            let first_of_kind = !seen_latest.iter().any(|seen| seen == kind);
            if first_of_kind {
                seen_latest.push(kind.to_owned());
            }
            first_of_kind
        }
        _ => true,
    }
}
