//! The path columns a database store keeps for each entry of a sound session, so the context
//! at a leaf reads only the entries the projection looks at (see [`super::PathRead`]).

use compaction_core::message::AgentMessage;
use compaction_core::{DiagnosticKind, Entry, ParseOptions, Session};

use super::BackendError;

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

/// A pi session file checked for a database store and ready to be written line by line: the
/// same checks and the same rows for every database backend.
pub(crate) struct ImportPlan<'a> {
    pub(crate) session: Session,
    /// The session id of the header.
    pub(crate) id: String,
    /// Whether the path columns can be filled (see [`is_sound`]).
    pub(crate) sound: bool,
    /// Whether the file ends with a newline.
    pub(crate) final_newline: bool,
    /// The entry index of each line number.
    by_line: Vec<Option<usize>>,
    /// The bytes without the final newline.
    body: &'a [u8],
}

impl<'a> ImportPlan<'a> {
    /// Parses `bytes` (`source` names them in errors). A file of an older format version is
    /// refused (`compaction migrate` rewrites it first), so every id an entry references is
    /// in the stored bytes.
    pub(crate) fn new(bytes: &'a [u8], source: &str) -> Result<Self, BackendError> {
        let invalid = |reason: String| BackendError::Invalid { store: source.to_owned(), reason };
        let session = compaction_core::parse_session_with(bytes, ParseOptions::default());
        let Some(id) = session.header().and_then(|header| header.id.clone()) else {
            return Err(invalid("line 1 is no session header with an id".to_owned()));
        };
        let version = session.source_version();
        if session.is_migrated() || version != compaction_core::entry::CURRENT_VERSION {
            return Err(invalid(format!(
                "format version {version}; this store keeps version {} files (`compaction \
                 migrate {source}` rewrites an older one)",
                compaction_core::entry::CURRENT_VERSION
            )));
        }
        let sound = is_sound(&session);
        let mut by_line: Vec<Option<usize>> = Vec::new();
        for (index, entry) in session.entries().iter().enumerate() {
            if by_line.len() <= entry.line {
                by_line.resize(entry.line + 1, None);
            }
            by_line[entry.line] = Some(index);
        }
        let final_newline = bytes.last().is_none_or(|&last| last == b'\n');
        let body = if final_newline { &bytes[..bytes.len().saturating_sub(1)] } else { bytes };
        Ok(ImportPlan { session, id, sound, final_newline, by_line, body })
    }

    /// Hands every line to `write` in order, with its sequence number (from 1), its entry
    /// and its path columns (when the session is sound). Returns the number of lines and the
    /// sequence number of the last entry line.
    pub(crate) fn write_lines<E>(
        &self,
        mut write: impl FnMut(i64, Option<&Entry>, Option<&Node>, &[u8]) -> Result<(), E>,
    ) -> Result<(i64, Option<i64>), E> {
        let mut nodes: Vec<Option<Node>> = vec![None; self.session.entries().len()];
        let mut lines = 0i64;
        let mut leaf_seq = None;
        for (number, line) in self.body.split(|&byte| byte == b'\n').enumerate() {
            let seq = i64::try_from(number + 1).unwrap_or(i64::MAX);
            lines = seq;
            let index = self.by_line.get(number + 1).copied().flatten();
            let entry = index.map(|index| &self.session.entries()[index]);
            let node = match (index, entry) {
                (Some(index), Some(entry)) if self.sound => {
                    let parent = self.session.parent_of(index).and_then(|p| nodes[p].as_ref());
                    nodes[index] = Some(Node::of(entry, seq, parent));
                    nodes[index].as_ref()
                }
                _ => None,
            };
            if entry.is_some() {
                leaf_seq = Some(seq);
            }
            write(seq, entry, node, line)?;
        }
        Ok((lines, leaf_seq))
    }
}

/// The columns the path walk of a database store reads of one row, and its bytes.
#[derive(Debug, Clone)]
pub(crate) struct Step {
    pub(crate) seq: i64,
    pub(crate) depth: i64,
    pub(crate) marker_seq: Option<i64>,
    pub(crate) assistant_seq: Option<i64>,
    pub(crate) bytes: Vec<u8>,
}

/// The session the walk found: the header line, then the wanted rows root first, parsed
/// back. Every row must give one entry; `store` names the session in the error otherwise.
pub(crate) fn path_read(
    header: Vec<u8>,
    wanted: std::collections::BTreeMap<i64, Step>,
    store: impl FnOnce() -> String,
) -> Result<super::PathRead, BackendError> {
    let mut ordered: Vec<Step> = wanted.into_values().collect();
    ordered.sort_unstable_by_key(|step| step.depth);
    let mut bytes = header;
    for step in &ordered {
        bytes.push(b'\n');
        bytes.extend_from_slice(&step.bytes);
    }
    bytes.push(b'\n');
    let read = compaction_core::parse_session_with(&bytes, ParseOptions::default());
    if read.entries().len() != ordered.len() {
        return Err(BackendError::Invalid {
            store: store(),
            reason: "the stored path does not parse back into its entries".to_owned(),
        });
    }
    let path = (0..read.entries().len()).collect();
    Ok(super::PathRead { session: read, path })
}
