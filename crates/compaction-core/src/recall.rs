//! Getting back what the context no longer shows: recall by entry id, and search.
//!
//! Compactions and prunes are views over the append-only log, so every summarized or pruned
//! entry is still in the session. [`recall`] returns one entry's original content (and its
//! exact line); [`search`] finds text in the entries the context at a leaf hides, with
//! their ids, so a model or a user can recall them.
//!
//! Invariant: recall never returns a placeholder or a summary in place of an entry: the
//! text comes from the entry's own line, byte for byte.

use serde::Serialize;

use crate::context::{SessionContext, bash_execution_text};
use crate::entry::EntryKind;
use crate::message::{AgentMessage, ContentBlock};
use crate::prepare::compaction_input_message;
use crate::session::{Session, UnknownEntryId};

/// One entry brought back.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Recalled {
    /// The entry id.
    pub id: String,
    /// The entry type (`message`, `compaction`, …).
    pub entry_type: String,
    /// The message role, for a `message` entry.
    pub role: Option<String>,
    /// The tool, for a tool result.
    pub tool: Option<String>,
    /// The content as text: a tool result's or user message's text exactly, an assistant
    /// reply's text, thinking and tool calls, a summary's text.
    pub text: String,
    /// The entry's line in the file, exactly.
    pub raw: String,
}

/// The entry `id` with its original content.
pub fn recall(session: &Session, id: &str) -> Result<Recalled, UnknownEntryId> {
    let index = session.index_of(id).ok_or_else(|| UnknownEntryId(id.to_owned()))?;
    Ok(recall_index(session, index))
}

fn recall_index(session: &Session, index: usize) -> Recalled {
    let entry = &session.entries()[index];
    let message = compaction_input_message(session, index);
    let tool = match &message {
        Some(AgentMessage::ToolResult(result)) => Some(result.tool_name.clone()),
        Some(_) | None => None,
    };
    let text = match (&entry.kind, message) {
        (_, Some(message)) => message_text(&message),
        (EntryKind::Compaction(data), None) => data.summary.clone(),
        (
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
            | EntryKind::Unknown { .. },
            None,
        ) => entry.raw().to_owned(),
    };
    Recalled {
        id: entry.id.clone(),
        entry_type: entry.kind.type_name().to_owned(),
        role: entry.role().map(str::to_owned),
        tool,
        text,
        raw: entry.raw().to_owned(),
    }
}

/// A message as text: what it said, without the envelope.
pub fn message_text(message: &AgentMessage) -> String {
    match message {
        AgentMessage::User(user) => user.content.joined_text(),
        AgentMessage::ToolResult(result) => result.content.joined_text(),
        AgentMessage::Custom(custom) => custom.content.joined_text(),
        AgentMessage::Assistant(assistant) => {
            let mut parts = Vec::new();
            for block in &assistant.content {
                match block {
                    ContentBlock::Text(text) => parts.push(text.text.clone()),
                    ContentBlock::Thinking(thinking) => {
                        parts.push(format!("(thinking) {}", thinking.thinking));
                    }
                    ContentBlock::ToolCall(call) => parts.push(format!(
                        "→ {} {}",
                        call.name,
                        serde_json::to_string(&call.arguments).unwrap_or_default()
                    )),
                    ContentBlock::Image(_) | ContentBlock::Other(_) => {}
                }
            }
            parts.join("\n")
        }
        AgentMessage::BashExecution(bash) => bash_execution_text(bash),
        AgentMessage::BranchSummary(summary) | AgentMessage::CompactionSummary(summary) => {
            summary.summary.clone()
        }
        AgentMessage::System(system) => system.prompt_text(),
        AgentMessage::Other(value) => value.to_string(),
    }
}

/// Why the context at a leaf does not show an entry.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase", tag = "kind")]
pub enum HiddenBy {
    /// Summarized by this compaction.
    Compaction {
        /// The compaction entry id.
        id: String,
    },
    /// Replaced by a placeholder by this prune.
    Prune {
        /// The `compaction.prune` entry id.
        id: String,
    },
    /// Left out, or shown with other content, by this `context_edit` (pi 1.6).
    Edit {
        /// The `context_edit` entry id.
        id: String,
    },
}

/// One entry the context hides, with the text that matched.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SearchHit {
    /// The entry id (give it to [`recall`]).
    pub id: String,
    /// The message role.
    pub role: String,
    /// The tool, for a tool result.
    pub tool: Option<String>,
    /// What hides it.
    pub hidden_by: HiddenBy,
    /// How many times the query occurs in the entry.
    pub matches: usize,
    /// The text around the first match.
    pub snippet: String,
}

/// Session indices of the message-producing entries the context hides, in path order, with
/// what hides each.
pub fn hidden_entries(session: &Session, context: &SessionContext) -> Vec<(usize, HiddenBy)> {
    let entries = session.entries();
    let mut hidden = Vec::new();
    if let Some(compaction_at) = context.compaction_position {
        let compaction = &entries[context.path[compaction_at]];
        let end = context.first_kept_position.unwrap_or(compaction_at);
        for &index in &context.path[..end] {
            if compaction_input_message(session, index).is_some() {
                hidden.push((index, HiddenBy::Compaction { id: compaction.id.clone() }));
            }
        }
    }
    let mut pruned: Vec<usize> = context.pruned.entries().collect();
    pruned.sort_unstable();
    let position: std::collections::HashMap<usize, usize> =
        context.path.iter().enumerate().map(|(position, &index)| (index, position)).collect();
    pruned.sort_by_key(|index| position.get(index).copied().unwrap_or(usize::MAX));
    for &index in &pruned {
        if let Some(item) = context.pruned.get(index) {
            hidden.push((index, HiddenBy::Prune { id: entries[item.by].id.clone() }));
        }
    }
    // Context edits that are not a prune's own.
    for entry in &context.entries {
        if let Some(edit) = entry.edit
            && !pruned.contains(&entry.entry)
            && compaction_input_message(session, entry.entry).is_some()
        {
            hidden.push((entry.entry, HiddenBy::Edit { id: entries[edit].id.clone() }));
        }
    }
    hidden
}

/// Characters of context a snippet shows on each side of the match.
const SNIPPET_CONTEXT: usize = 80;

/// Finds `query` (case-insensitive, literal) in the entries the context hides; at most
/// `limit` hits, in path order (summarized entries first, then pruned outputs).
///
/// A hit's snippet is cut from the text as it may be shown: with `redactor`, the entry's
/// whole text is redacted first and the window is cut from that, so a window's edge never
/// cuts a secret into a piece no rule knows; the match is found in that text again (a match
/// inside a secret is shown at the first `[REDACTED]`). Either way the snippet is the text
/// as written, never a lowercased copy: matches are found character by character
/// ([`find_folded`]). `None` shows the text as the session has it (the agent's own model,
/// which read it).
pub fn search(
    session: &Session,
    context: &SessionContext,
    query: &str,
    limit: usize,
    redactor: Option<&crate::redact::Redactor>,
) -> Vec<SearchHit> {
    let needle = fold(query.trim());
    if needle.is_empty() {
        return Vec::new();
    }
    let mut hits = Vec::new();
    for (index, hidden_by) in hidden_entries(session, context) {
        if hits.len() >= limit {
            break;
        }
        let recalled = recall_index(session, index);
        let matches = fold(&recalled.text).matches(&needle).count();
        if matches == 0 {
            continue;
        }
        let shown = match redactor {
            Some(redactor) => redactor.redact(&recalled.text),
            None => std::borrow::Cow::Borrowed(recalled.text.as_str()),
        };
        let around = find_folded(&shown, &needle)
            .or_else(|| {
                let at = shown.find(crate::redact::REDACTED)?;
                Some((at, at + crate::redact::REDACTED.len()))
            })
            .unwrap_or((0, 0));
        hits.push(SearchHit {
            id: recalled.id,
            role: recalled.role.unwrap_or_else(|| recalled.entry_type.clone()),
            tool: recalled.tool,
            hidden_by,
            matches,
            snippet: snippet(&shown, around),
        });
    }
    hits
}

/// `text` with each character lowercased on its own (what [`find_folded`] compares).
fn fold(text: &str) -> String {
    text.chars().flat_map(char::to_lowercase).collect()
}

/// The byte range in `text` of the first match of `needle` (already folded by `fold`), compared
/// character by character in lowercase: a character whose lowercase is of another length
/// (`İ`, the Kelvin sign) moves no position, since the range is mapped back to the
/// characters of `text` that hold the match.
pub fn find_folded(text: &str, needle: &str) -> Option<(usize, usize)> {
    let mut folded = String::with_capacity(text.len());
    // For each byte of `folded`, the start of the character of `text` it comes from.
    let mut origin: Vec<usize> = Vec::with_capacity(text.len());
    for (at, ch) in text.char_indices() {
        for lower in ch.to_lowercase() {
            folded.push(lower);
            origin.resize(folded.len(), at);
        }
    }
    let start = folded.find(needle)?;
    let last = origin[start + needle.len() - 1];
    let end = last + text[last..].chars().next().map_or(0, char::len_utf8);
    Some((origin[start], end))
}

/// The text around the byte range `(at, end)` of `text`: [`SNIPPET_CONTEXT`] characters on
/// each side, whitespace collapsed, `…` where it was cut.
fn snippet(text: &str, (at, end): (usize, usize)) -> String {
    let start_chars = text[..at].chars().count().saturating_sub(SNIPPET_CONTEXT);
    let match_chars = text[at..end].chars().count();
    let window: String =
        text.chars().skip(start_chars).take(match_chars + 2 * SNIPPET_CONTEXT).collect();
    let mut out = String::new();
    if start_chars > 0 {
        out.push('…');
    }
    out.push_str(&window.split_whitespace().collect::<Vec<_>>().join(" "));
    if start_chars + window.chars().count() < text.chars().count() {
        out.push('…');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::context::build_context;
    use serde_json::json;

    #[test]
    fn a_match_is_found_in_the_text_as_written_whatever_the_lowercase_lengths() {
        // `İ` lowercases to two characters (3 bytes), the Kelvin sign to `k` (1 byte).
        let text = "\u{130}stanbul: KeyRotation with \u{212a}elvin";
        let (at, end) = find_folded(text, &fold("keyrotation")).unwrap_or_default();
        assert_eq!(&text[at..end], "KeyRotation");
        let (at, end) = find_folded(text, &fold("KELVIN")).unwrap_or_default();
        assert_eq!(&text[at..end], "\u{212a}elvin");
        assert_eq!(find_folded(text, &fold("absent")), None);
        assert_eq!(snippet(text, (9, 20)), text);
    }

    #[test]
    fn search_finds_what_a_context_edit_left_out_and_names_the_edit() {
        let lines = [
            json!({"type":"session","version":3,"id":"s","timestamp":"t","cwd":"/"}),
            json!({"type":"message","id":"a","parentId":null,"timestamp":"t",
                "message":{"role":"user","content":"the failing attempt said HTTP 413"}}),
            json!({"type":"message","id":"b","parentId":"a","timestamp":"t",
                "message":{"role":"user","content":"next"}}),
            json!({"type":"context_edit","id":"e","parentId":"b","timestamp":"t",
                "targetId":"a","replacement":null}),
        ];
        let text: String = lines.iter().map(|line| format!("{line}\n")).collect();
        let session = crate::parse_session(text.as_bytes());
        let context = build_context(&session, session.leaf());
        let hits = search(&session, &context, "http 413", 10, None);
        assert_eq!(hits.len(), 1, "{hits:?}");
        assert_eq!(hits[0].id, "a");
        assert_eq!(hits[0].hidden_by, HiddenBy::Edit { id: "e".to_owned() });
        // Before the edit the message is in the context: nothing hidden to find.
        let before = build_context(&session, session.index_of("b"));
        assert!(search(&session, &before, "http 413", 10, None).is_empty());
    }
}
