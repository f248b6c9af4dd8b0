//! One entry line: the [`Entry`] that owns its exact text (its own allocation or a range of
//! a shared block), built from the eagerly parsed envelope, with the message body parsed
//! on demand.

use std::borrow::Cow;
use std::sync::Arc;

use serde::Deserialize;
use serde_json::Value;

use crate::message::AgentMessage;

use super::depth::openers;
use super::envelope::Envelope;
use super::*;

/// Where an entry's text lives: its own allocation, or a range of a block of the file
/// shared by the entries read from it (no copy per line while loading).
#[derive(Debug, Clone)]
enum RawLine {
    Owned(Box<str>),
    Shared {
        block: Arc<String>,
        start: usize,
        end: usize,
    },
    /// A line that is not valid UTF-8: its lossy decoding (the text the model reads) and
    /// its bytes as they are in the file (boxed: the variant stays small for the others).
    Lossy(Box<(Box<str>, Box<[u8]>)>),
}

impl RawLine {
    fn as_str(&self) -> &str {
        match self {
            RawLine::Owned(text) => text,
            RawLine::Shared { block, start, end } => block.get(*start..*end).unwrap_or_default(),
            RawLine::Lossy(lossy) => &lossy.0,
        }
    }
}

/// One parsed entry line.
#[derive(Debug, Clone)]
pub struct Entry {
    /// 1-based line number in the file (the header is line 1).
    pub line: usize,
    /// The entry's id (8 hex digits in pi's files; opaque here).
    pub id: String,
    /// The parent's id; `None` for a root.
    pub parent_id: Option<String>,
    /// What the entry holds.
    pub kind: EntryKind,
    /// Where the `timestamp` string sits in the raw line (most timestamps need no copy).
    timestamp: Timestamp,
    raw: RawLine,
}

/// An entry's ISO-8601 timestamp: a byte range of its raw line, or its own copy when the
/// JSON string had escapes.
#[derive(Debug, Clone, PartialEq)]
enum Timestamp {
    None,
    InLine { start: u32, end: u32 },
    Owned(Box<str>),
}

impl PartialEq for Entry {
    fn eq(&self, other: &Self) -> bool {
        self.line == other.line
            && self.id == other.id
            && self.parent_id == other.parent_id
            && self.timestamp() == other.timestamp()
            && self.kind == other.kind
            && self.raw() == other.raw()
            && self.line_bytes() == other.line_bytes()
    }
}

impl Entry {
    /// The exact JSON text of the line, without its line ending. For a line that is not
    /// valid UTF-8 this is its lossy decoding (each invalid sequence read as U+FFFD, as pi
    /// reads it); [`Entry::line_bytes`] holds the bytes to write back.
    pub fn raw(&self) -> &str {
        self.raw.as_str()
    }

    /// The line's bytes as they are (or are to be) written in the file, without its line
    /// ending: the original bytes of a line that was not valid UTF-8, else [`Entry::raw`].
    pub fn line_bytes(&self) -> &[u8] {
        match &self.raw {
            RawLine::Lossy(lossy) => &lossy.1,
            RawLine::Owned(_) | RawLine::Shared { .. } => self.raw().as_bytes(),
        }
    }

    /// Whether the line was not valid UTF-8 and is read through a lossy decoding.
    pub fn has_invalid_utf8(&self) -> bool {
        matches!(self.raw, RawLine::Lossy(_))
    }

    /// This entry, recording that its line in the file is `bytes` (not valid UTF-8, or
    /// holding a lone surrogate escape), of which [`Entry::raw`] is the readable form.
    pub(crate) fn with_line_bytes(mut self, bytes: Vec<u8>) -> Entry {
        if bytes != self.raw().as_bytes() {
            let text: Box<str> = self.raw().into();
            self.raw = RawLine::Lossy(Box::new((text, bytes.into_boxed_slice())));
        }
        self
    }

    /// The entry's `timestamp` string, if it has one.
    pub fn timestamp(&self) -> Option<&str> {
        match &self.timestamp {
            Timestamp::None => None,
            Timestamp::InLine { start, end } => self.raw().get(*start as usize..*end as usize),
            Timestamp::Owned(text) => Some(text),
        }
    }

    /// The whole entry as a JSON value.
    pub fn to_value(&self) -> Result<Value, serde_json::Error> {
        super::from_json_text(self.raw())
    }

    /// Whether this is a `message` entry.
    pub fn is_message(&self) -> bool {
        matches!(self.kind, EntryKind::Message { .. })
    }

    /// The message role of a `message` entry.
    pub fn role(&self) -> Option<&str> {
        match &self.kind {
            EntryKind::Message { role } => Some(role),
            EntryKind::ThinkingLevelChange { .. }
            | EntryKind::ModelChange { .. }
            | EntryKind::Compaction(_)
            | EntryKind::BranchSummary(_)
            | EntryKind::Custom { .. }
            | EntryKind::CustomMessage { .. }
            | EntryKind::Label { .. }
            | EntryKind::SessionInfo { .. }
            | EntryKind::ContextEdit { .. }
            | EntryKind::Usage { .. }
            | EntryKind::Unknown { .. } => None,
        }
    }

    /// Parses the `message` body of a `message` entry (`None` for other entry types).
    pub fn message(&self) -> Option<Result<AgentMessage, serde_json::Error>> {
        if !self.is_message() {
            return None;
        }
        #[derive(Deserialize)]
        struct Body {
            message: AgentMessage,
        }
        Some(super::from_json_text::<Body>(self.raw()).map(|body| body.message))
    }

    /// Parses one line into an entry. The caller has already checked the line is not the
    /// header. Errors describe what is wrong in words fit for a diagnostic.
    pub fn parse(line: usize, raw: &str) -> Result<Entry, EntryError> {
        if let Some(parsed) = Entry::parse_with_lone_surrogates(line, raw) {
            return parsed;
        }
        match Entry::envelope(raw) {
            Ok(envelope) => Entry::from_envelope(line, raw, RawLine::Owned(raw.into()), envelope),
            Err(error) => Entry::parse_with_duplicate_keys(line, raw).unwrap_or(Err(error)),
        }
    }

    /// A line JavaScript's `JSON.parse` reads but serde's typed parse refuses: an object
    /// with a key given twice (`JSON.parse` keeps the last value). It is read in a readable
    /// form where every object keeps its last value of each key; the line itself stays byte
    /// for byte what the file holds. `None` when the line is not JSON or the readable form
    /// is not an entry either (the caller reports its first error).
    fn parse_with_duplicate_keys(line: usize, raw: &str) -> Option<Result<Entry, EntryError>> {
        // serde_json's `Value` keeps the last value of a repeated key, as `JSON.parse` does;
        // a number past `f64` is read as `JSON.parse` reads it too.
        let value: Value = super::from_json_text(raw).ok()?;
        let readable = value.to_string();
        if readable == raw {
            return None;
        }
        let envelope = Entry::envelope(&readable).ok()?;
        let entry = Entry::from_envelope(
            line,
            &readable,
            RawLine::Owned(readable.as_str().into()),
            envelope,
        );
        Some(entry.map(|entry| entry.with_line_bytes(raw.as_bytes().to_vec())))
    }

    /// A line JavaScript's `JSON.parse` reads but serde_json does not: a `\uD83D` escape
    /// without its other half (pi keeps such a lone surrogate in the string). It is read
    /// with U+FFFD in its place; the line itself stays byte for byte what the file holds.
    /// `None` when the line has no lone surrogate escape.
    fn parse_with_lone_surrogates(line: usize, raw: &str) -> Option<Result<Entry, EntryError>> {
        let readable = super::surrogates::replace_lone_surrogates(raw)?;
        let envelope = match Entry::envelope(&readable) {
            Ok(envelope) => envelope,
            Err(error) => {
                let bytes = raw.as_bytes().to_vec();
                return Some(match Entry::parse_with_duplicate_keys(line, &readable) {
                    Some(parsed) => parsed.map(|entry| entry.with_line_bytes(bytes)),
                    None => Err(error),
                });
            }
        };
        let entry = Entry::from_envelope(
            line,
            &readable,
            RawLine::Owned(readable.as_str().into()),
            envelope,
        );
        Some(entry.map(|entry| entry.with_line_bytes(raw.as_bytes().to_vec())))
    }

    /// Parses the line at `block[start..end]`, keeping a reference to the block instead of
    /// copying the line.
    pub fn parse_shared(
        line: usize,
        block: &Arc<String>,
        start: usize,
        end: usize,
    ) -> Result<Entry, EntryError> {
        let text = block.get(start..end).ok_or_else(|| {
            EntryError::Invalid("line range is not on character boundaries".into())
        })?;
        if let Some(parsed) = Entry::parse_with_lone_surrogates(line, text) {
            return parsed;
        }
        let envelope = match Entry::envelope(text) {
            Ok(envelope) => envelope,
            Err(error) => {
                return Entry::parse_with_duplicate_keys(line, text).unwrap_or(Err(error));
            }
        };
        let raw = RawLine::Shared { block: Arc::clone(block), start, end };
        Entry::from_envelope(line, text, raw, envelope)
    }

    fn envelope(raw: &str) -> Result<Envelope<'_>, EntryError> {
        let envelope: Envelope<'_> = serde_json::from_str(raw).map_err(EntryError::from_json)?;
        // Skipped fields are not depth-checked by serde_json; check the whole line so every
        // later full parse of it is known to succeed.
        if openers(raw.as_bytes()) > MAX_JSON_DEPTH
            && json_depth_exceeds(raw.as_bytes(), MAX_JSON_DEPTH)
        {
            return Err(EntryError::TooDeep);
        }
        Ok(envelope)
    }

    /// Builds an entry from a JSON value (used for new entries and migrated lines).
    pub fn from_value(line: usize, value: &Value) -> Result<Entry, EntryError> {
        let raw = serde_json::to_string(value).map_err(EntryError::from_json)?;
        Entry::parse(line, &raw)
    }

    /// `text` is the line the envelope was parsed from (the same text `raw` holds).
    fn from_envelope(
        line: usize,
        text: &str,
        raw: RawLine,
        e: Envelope<'_>,
    ) -> Result<Entry, EntryError> {
        let entry_type = e.entry_type.ok_or(EntryError::Missing("type"))?;
        let id = e.id.ok_or(EntryError::Missing("id"))?.into_owned();
        if id.is_empty() {
            return Err(EntryError::Invalid("`id` is empty".into()));
        }
        let kind = match entry_type.as_ref() {
            "message" => {
                let head = e.message.ok_or(EntryError::Missing("message"))?;
                EntryKind::Message { role: static_role(&head.role) }
            }
            "thinking_level_change" => EntryKind::ThinkingLevelChange {
                thinking_level: e.thinking_level.map(Cow::into_owned).unwrap_or_default(),
            },
            "model_change" => EntryKind::ModelChange {
                provider: e.provider.map(Cow::into_owned).unwrap_or_default(),
                model_id: e.model_id.map(Cow::into_owned).unwrap_or_default(),
            },
            "compaction" => EntryKind::Compaction(Box::new(CompactionData {
                summary: e.summary.unwrap_or_default(),
                first_kept_entry_id: e
                    .first_kept_entry_id
                    .map(Cow::into_owned)
                    .ok_or(EntryError::Missing("firstKeptEntryId"))?,
                tokens_before: e.tokens_before.map(number_to_u64).unwrap_or(0),
                details: e.details,
                from_hook: e.from_hook.unwrap_or(false),
                has_system_message: e.system_message == Some(false),
            })),
            "branch_summary" => EntryKind::BranchSummary(Box::new(BranchSummaryData {
                from_id: e.from_id.map(Cow::into_owned).unwrap_or_default(),
                summary: e.summary.unwrap_or_default(),
                details: e.details,
                from_hook: e.from_hook.unwrap_or(false),
            })),
            "custom" => EntryKind::Custom {
                custom_type: e.custom_type.map(Cow::into_owned).unwrap_or_default(),
            },
            "custom_message" => EntryKind::CustomMessage {
                custom_type: e.custom_type.map(Cow::into_owned).unwrap_or_default(),
                display: e.display.unwrap_or(false),
            },
            "label" => EntryKind::Label {
                target_id: e
                    .target_id
                    .map(Cow::into_owned)
                    .ok_or(EntryError::Missing("targetId"))?,
                label: e.label,
            },
            "session_info" => EntryKind::SessionInfo { name: e.name },
            "context_edit" => EntryKind::ContextEdit {
                target_id: e
                    .target_id
                    .map(Cow::into_owned)
                    .ok_or(EntryError::Missing("targetId"))?,
                omit: match e.replacement {
                    Some(omit) => omit,
                    None => return Err(EntryError::Missing("replacement")),
                },
            },
            "usage" => EntryKind::Usage {
                kind: e.kind.and_then(|kind| kind.0).map(Cow::into_owned).unwrap_or_default(),
            },
            "session" => return Err(EntryError::Invalid("a second session header".into())),
            other => EntryKind::Unknown { entry_type: other.to_owned() },
        };
        Ok(Entry {
            line,
            id,
            parent_id: e.parent_id.map(Cow::into_owned),
            timestamp: locate_timestamp(text, e.timestamp.and_then(|t| t.0)),
            kind,
            raw,
        })
    }
}

/// Where a parsed timestamp lies in `raw`: borrowed strings are ranges of it.
fn locate_timestamp(raw: &str, timestamp: Option<Cow<'_, str>>) -> Timestamp {
    match timestamp {
        None => Timestamp::None,
        Some(Cow::Borrowed(text)) => {
            let start = (text.as_ptr() as usize).wrapping_sub(raw.as_ptr() as usize);
            match (u32::try_from(start), u32::try_from(start + text.len())) {
                (Ok(start), Ok(end)) if raw.get(start as usize..end as usize) == Some(text) => {
                    Timestamp::InLine { start, end }
                }
                _ => Timestamp::Owned(text.into()),
            }
        }
        Some(Cow::Owned(text)) => Timestamp::Owned(text.into()),
    }
}

/// The role as a static string when it is one of pi's roles.
fn static_role(role: &str) -> Cow<'static, str> {
    const ROLES: [&str; 9] = [
        "system",
        "user",
        "assistant",
        "toolResult",
        "bashExecution",
        "custom",
        "branchSummary",
        "compactionSummary",
        "hookMessage",
    ];
    match ROLES.iter().find(|known| **known == role) {
        Some(known) => Cow::Borrowed(known),
        None => Cow::Owned(role.to_owned()),
    }
}

fn number_to_u64(value: f64) -> u64 {
    if value.is_finite() && value > 0.0 { value.round() as u64 } else { 0 }
}
