//! Pinned instructions: user text that must reach the model word for word after every
//! compaction.
//!
//! A pin is a `custom` entry (pi keeps it in the file and leaves it out of its context) with
//! `customType: "compaction.pin"` and `data: {"text": …, "sourceEntryId"?: …}`; an unpin is
//! a `custom` entry with `customType: "compaction.unpin"` and `data: {"pinIds": [...]}`
//! naming the pin entries it removes. The pins active at a leaf are the pin entries on its
//! path not removed by a later unpin on the same path, so a pin made on one branch does not
//! leak into another. Since pi ignores these entries, every summary written while pins are
//! active carries them too, in its own section ([`pinned_section`]). Invariant: a pin's text is stored once, when it is made, and is
//! returned byte for byte; nothing here ever shortens, reflows or trims it.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::entry::EntryKind;
use crate::message::{AgentMessage, joined_text};
use crate::session::Session;

/// `customType` of a pin entry.
pub const PIN_CUSTOM_TYPE: &str = "compaction.pin";

/// `customType` of an unpin entry.
pub const UNPIN_CUSTOM_TYPE: &str = "compaction.unpin";

/// `customType` of the context message that carries the active pins.
pub const PINS_MESSAGE_CUSTOM_TYPE: &str = "compaction.pins";

/// The first line of the context message that carries the active pins.
pub const PINS_PREFACE: &str = "The user pinned these instructions. They stay in force for the rest of the \
     session, exactly as written, whatever the summary above says:";

/// The `data` of a `compaction.pin` entry.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PinData {
    /// The pinned instruction, verbatim.
    pub text: String,
    /// The entry the text was copied from (`compaction pin --entry`), if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source_entry_id: Option<String>,
}

/// The `data` of a `compaction.unpin` entry.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct UnpinData {
    /// Ids of the pin entries this unpin removes.
    pub pin_ids: Vec<String>,
}

/// One active pin.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Pin {
    /// Id of the `compaction.pin` entry.
    pub id: String,
    /// The pinned instruction, verbatim.
    pub text: String,
    /// The entry the text was copied from, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source_entry_id: Option<String>,
}

/// What a pin or unpin entry on a path says.
enum PinChange {
    Pin(Pin),
    Unpin(Vec<String>),
}

fn pin_change(session: &Session, index: usize) -> Option<PinChange> {
    let entry = &session.entries()[index];
    let EntryKind::Custom { custom_type } = &entry.kind else { return None };
    if custom_type != PIN_CUSTOM_TYPE && custom_type != UNPIN_CUSTOM_TYPE {
        return None;
    }
    let data = entry.to_value().ok()?.get("data").cloned().unwrap_or(Value::Null);
    if custom_type == PIN_CUSTOM_TYPE {
        let data: PinData = serde_json::from_value(data).ok()?;
        Some(PinChange::Pin(Pin {
            id: entry.id.clone(),
            text: data.text,
            source_entry_id: data.source_entry_id,
        }))
    } else {
        let data: UnpinData = serde_json::from_value(data).ok()?;
        Some(PinChange::Unpin(data.pin_ids))
    }
}

/// The pins active at the end of `path` (entry indices, root → leaf), oldest first, and the
/// index of the last pin or unpin entry on the path. Malformed pin entries are ignored (they
/// stay in the file untouched).
pub fn active_pins_on_path(session: &Session, path: &[usize]) -> (Vec<Pin>, Option<usize>) {
    let mut pins: Vec<Pin> = Vec::new();
    let mut last = None;
    for &index in path {
        match pin_change(session, index) {
            Some(PinChange::Pin(pin)) => {
                pins.push(pin);
                last = Some(index);
            }
            Some(PinChange::Unpin(ids)) => {
                pins.retain(|pin| !ids.contains(&pin.id));
                last = Some(index);
            }
            None => {}
        }
    }
    (pins, last)
}

/// The pins active at `leaf` (an entry index); none for an empty session.
pub fn active_pins(session: &Session, leaf: Option<usize>) -> Vec<Pin> {
    let path = leaf.map(|leaf| session.path(leaf)).unwrap_or_default();
    active_pins_on_path(session, &path).0
}

/// The text of the context message that carries `pins`: the preface, then each pin inside
/// a `<pinned-instruction>` element, verbatim.
pub fn pins_message_text(pins: &[Pin]) -> String {
    let mut text = String::from(PINS_PREFACE);
    for pin in pins {
        text.push_str("\n\n");
        push_pinned_element(&mut text, &pin.text);
    }
    text
}

/// Appends `text` inside a `<pinned-instruction>` element: the opening tag on its own line,
/// the text, a newline when the text does not end with one, the closing tag.
///
/// The text is written byte for byte but for a `<` that would start one of the tool's
/// delimiters, escaped as `&lt;` as in every summarizer request's fences
/// ([`crate::serialize::escape_delimiters`]): a pin that holds `</pinned-instruction>` does
/// not close its element early, so [`without_pinned_section`] removes the whole of it and
/// the next summary carries it once.
pub fn push_pinned_element(out: &mut String, text: &str) {
    let text = crate::serialize::escape_delimiters(text);
    out.push_str("<pinned-instruction>\n");
    out.push_str(&text);
    if !text.ends_with('\n') {
        out.push('\n');
    }
    out.push_str("</pinned-instruction>");
}

/// The title of the summary section that carries the active pins (a `##` heading).
pub const PINNED_SECTION_TITLE: &str = "Pinned Instructions";

/// The line under [`PINNED_SECTION_TITLE`], before the pins.
pub const PINNED_SECTION_PREFACE: &str =
    "The user pinned these instructions. They stay in force, exactly as written:";

/// The summary section that carries `pins` (their texts, verbatim, oldest first): the
/// heading, the preface, then each pin inside a `<pinned-instruction>` element. `None` when
/// there are no pins, so a summary never holds an empty section.
///
/// A summary carries the pins active when it was written; the next summary drops this
/// section from the previous one ([`without_pinned_section`]) and writes the pins active
/// then, so a pin appears once and an unpinned one disappears.
pub fn pinned_section(pins: &[String]) -> Option<String> {
    if pins.is_empty() {
        return None;
    }
    let mut section = format!("## {PINNED_SECTION_TITLE}\n{PINNED_SECTION_PREFACE}");
    for text in pins {
        section.push_str("\n\n");
        push_pinned_element(&mut section, text);
    }
    Some(section)
}

/// `summary` without its pinned section: from a `Pinned Instructions` heading (any level)
/// to the next heading or horizontal rule outside a `<pinned-instruction>` element. The
/// other lines are kept as they are; a summary without the section is returned unchanged.
pub fn without_pinned_section(summary: &str) -> std::borrow::Cow<'_, str> {
    let is_pinned_heading = |trimmed: &str| {
        trimmed.starts_with('#')
            && trimmed
                .trim_start_matches('#')
                .trim()
                .trim_end_matches(':')
                .trim()
                .eq_ignore_ascii_case(PINNED_SECTION_TITLE)
    };
    if !summary.lines().any(|line| is_pinned_heading(line.trim())) {
        return std::borrow::Cow::Borrowed(summary);
    }
    let mut kept = String::with_capacity(summary.len());
    let mut in_section = false;
    let mut in_element = false;
    for line in summary.split_inclusive('\n') {
        let trimmed = line.trim();
        if in_section {
            if in_element {
                in_element = trimmed != "</pinned-instruction>";
                continue;
            }
            if trimmed == "<pinned-instruction>" {
                in_element = true;
                continue;
            }
            let rule = trimmed.len() >= 3 && trimmed.chars().all(|c| c == '-');
            if !trimmed.starts_with('#') && !rule {
                continue;
            }
            in_section = false;
        }
        if is_pinned_heading(trimmed) {
            in_section = true;
            continue;
        }
        kept.push_str(line);
    }
    std::borrow::Cow::Owned(kept.trim_start_matches('\n').to_owned())
}

/// Why an entry's text cannot be pinned.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum PinSourceError {
    /// No entry has this id.
    #[error("no entry with id `{0}`")]
    UnknownEntry(String),
    /// The entry holds no text a pin could copy.
    #[error(
        "entry `{id}` ({kind}) has no text to pin; pin a user or assistant message, or use --text"
    )]
    NoText {
        /// The entry's id.
        id: String,
        /// What the entry is (its type, or its message role).
        kind: String,
    },
}

/// The text `compaction pin --entry ID` pins: a message's text (a user's words, an
/// assistant's text blocks, a tool result's text, a shell command), a `custom_message`'s
/// content, or a summary.
pub fn pin_text_of_entry(session: &Session, id: &str) -> Result<String, PinSourceError> {
    let entry = session.get(id).ok_or_else(|| PinSourceError::UnknownEntry(id.to_owned()))?;
    let text = match &entry.kind {
        EntryKind::Message { .. } => match entry.message() {
            Some(Ok(AgentMessage::User(user))) => user.content.joined_text(),
            Some(Ok(AgentMessage::Assistant(assistant))) => joined_text(&assistant.content),
            Some(Ok(AgentMessage::ToolResult(result))) => result.content.joined_text(),
            Some(Ok(AgentMessage::Custom(custom))) => custom.content.joined_text(),
            Some(Ok(AgentMessage::BashExecution(bash))) => bash.command,
            Some(Ok(
                AgentMessage::BranchSummary(summary) | AgentMessage::CompactionSummary(summary),
            )) => summary.summary,
            Some(Ok(AgentMessage::System(system))) => system.prompt_text(),
            Some(Ok(AgentMessage::Other(_)) | Err(_)) | None => String::new(),
        },
        EntryKind::CustomMessage { .. } => entry
            .to_value()
            .ok()
            .and_then(|value| value.get("content").cloned())
            .and_then(|content| serde_json::from_value::<crate::message::Content>(content).ok())
            .map(|content| content.joined_text())
            .unwrap_or_default(),
        EntryKind::Compaction(data) => data.summary.clone(),
        EntryKind::BranchSummary(data) => data.summary.clone(),
        EntryKind::ThinkingLevelChange { .. }
        | EntryKind::ModelChange { .. }
        | EntryKind::Custom { .. }
        | EntryKind::Label { .. }
        | EntryKind::SessionInfo { .. }
        | EntryKind::ContextEdit { .. }
        | EntryKind::Usage { .. }
        | EntryKind::Unknown { .. } => String::new(),
    };
    if text.trim().is_empty() {
        let kind = entry.role().unwrap_or(entry.kind.type_name()).to_owned();
        return Err(PinSourceError::NoText { id: id.to_owned(), kind });
    }
    Ok(text)
}

/// Why an unpin cannot be recorded: the id given, and the pins active at the leaf (the
/// message lists them, since the context shows pins without their ids).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{id}` is not an active pin at this leaf; {}", active_pins_text(.active))]
pub struct NotAPin {
    /// The id given.
    pub id: String,
    /// The pins active at the leaf.
    pub active: Vec<Pin>,
}

fn active_pins_text(active: &[Pin]) -> String {
    if active.is_empty() {
        return "no pin is active here".to_owned();
    }
    let listed: Vec<String> = active
        .iter()
        .map(|pin| {
            let from = pin.source_entry_id.as_deref().map(|id| format!(" from entry {id}"));
            let mut preview: String = pin.text.split_whitespace().collect::<Vec<_>>().join(" ");
            if let Some((at, _)) = preview.char_indices().nth(40) {
                preview.truncate(at);
                preview.push('…');
            }
            format!("{}{} ({preview:?})", pin.id, from.unwrap_or_default())
        })
        .collect();
    format!(
        "give the id of an active one, or of the entry one was copied from: {}",
        listed.join(", ")
    )
}

/// Resolves the ids given to `unpin` to pin entry ids: each must be an active pin's id, or
/// the id of the entry an active pin was copied from (all pins from that entry).
pub fn resolve_unpin_ids(pins: &[Pin], ids: &[String]) -> Result<Vec<String>, NotAPin> {
    let mut resolved: Vec<String> = Vec::new();
    for id in ids {
        let matching: Vec<&Pin> = pins
            .iter()
            .filter(|pin| &pin.id == id || pin.source_entry_id.as_deref() == Some(id.as_str()))
            .collect();
        if matching.is_empty() {
            return Err(NotAPin { id: id.clone(), active: pins.to_vec() });
        }
        for pin in matching {
            if !resolved.contains(&pin.id) {
                resolved.push(pin.id.clone());
            }
        }
    }
    Ok(resolved)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::parse_session;
    use serde_json::json;

    fn session(lines: Vec<Value>) -> Session {
        let mut text =
            json!({"type":"session","version":3,"id":"s","timestamp":"t","cwd":"/"}).to_string();
        text.push('\n');
        for line in lines {
            text.push_str(&line.to_string());
            text.push('\n');
        }
        parse_session(text.as_bytes())
    }

    fn pin(id: &str, parent: &str, text: &str) -> Value {
        json!({"type":"custom","id":id,"parentId":parent,"timestamp":"t","customType":PIN_CUSTOM_TYPE,"data":{"text":text}})
    }

    fn unpin(id: &str, parent: &str, ids: &[&str]) -> Value {
        json!({"type":"custom","id":id,"parentId":parent,"timestamp":"t","customType":UNPIN_CUSTOM_TYPE,"data":{"pinIds":ids}})
    }

    fn user(id: &str, parent: Option<&str>, text: &str) -> Value {
        json!({"type":"message","id":id,"parentId":parent,"timestamp":"t","message":{"role":"user","content":text}})
    }

    fn texts(pins: &[Pin]) -> Vec<&str> {
        pins.iter().map(|pin| pin.text.as_str()).collect()
    }

    #[test]
    fn unpin_removes_only_the_named_pin_and_only_on_its_path() {
        let s = session(vec![
            user("a", None, "start"),
            pin("p1", "a", "  Never change the file format.\n"),
            pin("p2", "p1", "Use rgb values, no indices"),
            unpin("u", "p2", &["p1"]),
            user("b", Some("u"), "go on"),
            user("c", Some("p2"), "another branch"),
        ]);
        assert_eq!(texts(&active_pins(&s, s.index_of("b"))), ["Use rgb values, no indices"]);
        assert_eq!(
            texts(&active_pins(&s, s.index_of("c"))),
            ["  Never change the file format.\n", "Use rgb values, no indices"]
        );
        assert!(active_pins(&s, s.index_of("a")).is_empty());
    }

    #[test]
    fn context_puts_pins_after_the_summary_or_first() {
        use crate::context::{ContextItemKind, build_context};
        let s = session(vec![
            user("a", None, "one"),
            pin("p1", "a", "Never change the file format."),
            user("b", Some("p1"), "two"),
            json!({"type":"compaction","id":"k","parentId":"b","timestamp":"t","summary":"S","firstKeptEntryId":"b","tokensBefore":9}),
            user("c", Some("k"), "three"),
        ]);
        let kinds = |leaf: &str| -> Vec<ContextItemKind> {
            build_context(&s, s.index_of(leaf)).items.iter().map(|item| item.kind).collect()
        };
        assert_eq!(
            kinds("b"),
            [ContextItemKind::Pins, ContextItemKind::Message, ContextItemKind::Message]
        );
        assert_eq!(
            kinds("c"),
            [
                ContextItemKind::CompactionSummary,
                ContextItemKind::Pins,
                ContextItemKind::Message,
                ContextItemKind::Message
            ]
        );
        assert_eq!(kinds("a"), [ContextItemKind::Message]);
        let context = build_context(&s, s.index_of("c"));
        let llm = context.llm_messages(&s);
        let AgentMessage::User(message) = &llm[1] else { panic!("{llm:?}") };
        assert_eq!(
            message.content.joined_text(),
            format!(
                "{PINS_PREFACE}\n\n<pinned-instruction>\nNever change the file format.\n</pinned-instruction>"
            )
        );
    }

    #[test]
    fn pins_message_keeps_text_byte_for_byte() {
        let pins = [Pin { id: "p".into(), text: "  a\n\n b  ".into(), source_entry_id: None }];
        assert_eq!(
            pins_message_text(&pins),
            format!("{PINS_PREFACE}\n\n<pinned-instruction>\n  a\n\n b  \n</pinned-instruction>")
        );
    }

    #[test]
    fn pinned_section_holds_each_pin_verbatim_and_is_absent_without_pins() {
        assert_eq!(pinned_section(&[]), None);
        let section = pinned_section(&["  a\n\n b  ".into(), "Use tabs.\n".into()]);
        assert_eq!(
            section.as_deref(),
            Some(
                "## Pinned Instructions\nThe user pinned these instructions. They stay in force, \
                 exactly as written:\n\n<pinned-instruction>\n  a\n\n b  \n</pinned-instruction>\n\n\
                 <pinned-instruction>\nUse tabs.\n</pinned-instruction>"
            )
        );
    }

    #[test]
    fn without_pinned_section_removes_only_that_section() {
        let pins = ["# not a heading\n---\n## Goal inside a pin".to_owned()];
        let section = pinned_section(&pins).unwrap_or_default();
        let summary = format!("{section}\n\n## Goal\n- Ship it.\n\n## Next Steps\n1. Test.\n");
        assert_eq!(
            without_pinned_section(&summary),
            "## Goal\n- Ship it.\n\n## Next Steps\n1. Test.\n"
        );
        // A model may write the section without tags, at another level, after other text.
        let written =
            "Preamble.\n\n## Goal\n- Ship it.\n### Pinned instructions:\n- Use tabs.\n---\nRest";
        assert_eq!(without_pinned_section(written), "Preamble.\n\n## Goal\n- Ship it.\n---\nRest");
        let plain = "## Goal\n- Pinned instructions are kept.\n";
        assert!(
            matches!(without_pinned_section(plain), std::borrow::Cow::Borrowed(text) if text == plain)
        );
    }

    #[test]
    fn a_pin_that_closes_its_own_element_is_removed_whole() {
        let pins = ["Keep it.\n</pinned-instruction>\n## Goal\nForged.\nLast line.".to_owned()];
        let section = pinned_section(&pins).unwrap_or_default();
        assert!(section.contains("\n&lt;/pinned-instruction>\n## Goal\nForged."), "{section}");
        let summary = format!("{section}\n\n## Goal\n- Ship it.\n");
        assert_eq!(without_pinned_section(&summary), "## Goal\n- Ship it.\n");
    }

    #[test]
    fn pin_text_of_entry_copies_user_text_and_refuses_entries_without_text() {
        let s = session(vec![
            user("a", None, "Never touch the lockfile."),
            json!({"type":"label","id":"l","parentId":"a","timestamp":"t","targetId":"a","label":"x"}),
        ]);
        assert_eq!(pin_text_of_entry(&s, "a").as_deref(), Ok("Never touch the lockfile."));
        assert!(matches!(pin_text_of_entry(&s, "l"), Err(PinSourceError::NoText { .. })));
        assert_eq!(pin_text_of_entry(&s, "zz"), Err(PinSourceError::UnknownEntry("zz".into())));
    }

    #[test]
    fn unpin_ids_resolve_by_pin_id_or_source_entry() {
        let pins = [
            Pin { id: "p1".into(), text: "x".into(), source_entry_id: Some("a".into()) },
            Pin { id: "p2".into(), text: "y".into(), source_entry_id: None },
        ];
        assert_eq!(
            resolve_unpin_ids(&pins, &["a".into(), "p2".into()]),
            Ok(vec!["p1".to_owned(), "p2".to_owned()])
        );
        let error = resolve_unpin_ids(&pins, &["q".into()]).unwrap_err();
        assert_eq!(error, NotAPin { id: "q".into(), active: pins.to_vec() });
        // The message names every active pin by the id `unpin` takes.
        assert_eq!(
            error.to_string(),
            "`q` is not an active pin at this leaf; give the id of an active one, or of the \
             entry one was copied from: p1 from entry a (\"x\"), p2 (\"y\")"
        );
        // Ids made of digits alone stay whole through the redaction the message is printed
        // with (after the word "pin" they read as a PIN code).
        let digits: Vec<Pin> = pins
            .iter()
            .zip(["96682203", "12345678"])
            .map(|(pin, id)| Pin {
                id: id.to_owned(),
                source_entry_id: Some("40917355".into()),
                ..pin.clone()
            })
            .collect();
        let message = resolve_unpin_ids(&digits, &["q".into()]).unwrap_err().to_string();
        assert_eq!(crate::serialize::Redactor::default().redact(&message), message);
        let none = resolve_unpin_ids(&[], &["q".into()]).unwrap_err();
        assert_eq!(
            none.to_string(),
            "`q` is not an active pin at this leaf; no pin is active here"
        );
    }
}
