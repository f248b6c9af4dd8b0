//! Session entries: the header line and the typed envelope of every other line.
//!
//! An [`Entry`] owns the exact JSON text of its line, so writing it back is byte-identical
//! and nothing it carries is lost. The envelope fields (type, id, parent, timestamp) and the
//! small fields the engine needs (a message's role, a compaction's summary and first kept id,
//! a label's target) are parsed eagerly; message bodies are parsed on demand with
//! [`Entry::message`], which keeps loading fast and memory close to the file size.

use std::borrow::Cow;
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::message::AgentMessage;

/// The first line of a session file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Header {
    /// Always `session`.
    #[serde(rename = "type")]
    pub entry_type: String,
    /// 1 when absent (pi's first format), otherwise 2 or 3.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<u32>,
    /// The session's id (a UUID in pi's files).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// When the session started (ISO-8601).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timestamp: Option<String>,
    /// The working directory the agent ran in; file paths in the session are relative to it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cwd: Option<String>,
    /// The path of the session this one was forked from.
    #[serde(rename = "parentSession", default, skip_serializing_if = "Option::is_none")]
    pub parent_session: Option<String>,
    /// Fields this version does not model (v1 headers carry `provider`, `modelId`, …).
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl Header {
    /// The format version this header declares (1 when it has no `version`).
    pub fn format_version(&self) -> u32 {
        self.version.unwrap_or(1)
    }
}

/// The format version this crate writes.
pub const CURRENT_VERSION: u32 = 3;

/// What a line holds besides its envelope, typed for the fields compaction reads.
#[derive(Debug, Clone, PartialEq)]
pub enum EntryKind {
    /// A conversation message; the body is parsed on demand.
    Message {
        /// Known roles are static strings, so most entries allocate nothing for them.
        role: Cow<'static, str>,
    },
    /// `thinking_level_change`: the reasoning effort from here on.
    ThinkingLevelChange {
        /// `off`, `minimal`, `low`, `medium`, `high`, … as the host names them.
        thinking_level: String,
    },
    /// `model_change`: the model from here on.
    ModelChange {
        /// The provider's name.
        provider: String,
        /// The model id.
        model_id: String,
    },
    // Boxed: these two are much larger than the other variants, and every entry pays for
    // the largest one.
    /// `compaction`: a summary replacing the entries before `firstKeptEntryId`.
    Compaction(Box<CompactionData>),
    /// `branch_summary`: a summary of a branch left behind, in the context as user text.
    BranchSummary(Box<BranchSummaryData>),
    /// Extension state, never in the context.
    Custom {
        /// The extension's name for this kind of state.
        custom_type: String,
    },
    /// A message injected by an extension; in the context as a user message.
    CustomMessage {
        /// The extension's name for this kind of message.
        custom_type: String,
        /// Whether the host shows it to the user.
        display: bool,
    },
    /// `label`: a user's bookmark on another entry.
    Label {
        /// The labelled entry.
        target_id: String,
        /// The label; `None` removes it.
        label: Option<String>,
    },
    /// `session_info`: the session's display name.
    SessionInfo {
        /// The name; `None` clears it.
        name: Option<String>,
    },
    /// An entry type this version does not know. Kept and round-tripped, never in the context.
    Unknown {
        /// The entry's `type`.
        entry_type: String,
    },
}

impl EntryKind {
    /// The `type` string of the entry.
    pub fn type_name(&self) -> &str {
        match self {
            EntryKind::Message { .. } => "message",
            EntryKind::ThinkingLevelChange { .. } => "thinking_level_change",
            EntryKind::ModelChange { .. } => "model_change",
            EntryKind::Compaction(_) => "compaction",
            EntryKind::BranchSummary(_) => "branch_summary",
            EntryKind::Custom { .. } => "custom",
            EntryKind::CustomMessage { .. } => "custom_message",
            EntryKind::Label { .. } => "label",
            EntryKind::SessionInfo { .. } => "session_info",
            EntryKind::Unknown { entry_type } => entry_type,
        }
    }
}

impl EntryKind {
    /// The compaction fields, for a `compaction` entry.
    pub fn as_compaction(&self) -> Option<&CompactionData> {
        if let EntryKind::Compaction(data) = self { Some(data) } else { None }
    }

    /// The branch summary fields, for a `branch_summary` entry.
    pub fn as_branch_summary(&self) -> Option<&BranchSummaryData> {
        if let EntryKind::BranchSummary(data) = self { Some(data) } else { None }
    }
}

/// The fields of a `compaction` entry.
#[derive(Debug, Clone, PartialEq)]
pub struct CompactionData {
    /// The summary of everything before the first kept entry.
    pub summary: String,
    /// The first entry of the path kept verbatim after the summary.
    pub first_kept_entry_id: String,
    /// The context's tokens just before this compaction.
    pub tokens_before: u64,
    /// Writer-specific details (file lists, usage, quality, …).
    pub details: Option<Value>,
    /// Whether an extension wrote the summary (its `details` are then not ours to read).
    pub from_hook: bool,
}

/// The fields of a `branch_summary` entry.
#[derive(Debug, Clone, PartialEq)]
pub struct BranchSummaryData {
    /// The leaf of the branch that was left (and summarized).
    pub from_id: String,
    /// The summary of that branch.
    pub summary: String,
    /// Writer-specific details (file lists, …).
    pub details: Option<Value>,
    /// Whether an extension wrote the summary.
    pub from_hook: bool,
}

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

    /// This entry, recording that its line in the file is `bytes` (not valid UTF-8), of
    /// which [`Entry::raw`] is the lossy decoding.
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
        serde_json::from_str(self.raw())
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
        Some(serde_json::from_str::<Body>(self.raw()).map(|body| body.message))
    }

    /// Parses one line into an entry. The caller has already checked the line is not the
    /// header. Errors describe what is wrong in words fit for a diagnostic.
    pub fn parse(line: usize, raw: &str) -> Result<Entry, EntryError> {
        let envelope = Entry::envelope(raw)?;
        Entry::from_envelope(line, raw, RawLine::Owned(raw.into()), envelope)
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
        let envelope = Entry::envelope(text)?;
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
    const ROLES: [&str; 8] = [
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

/// The deepest nesting serde_json parses (its recursion limit).
pub const MAX_JSON_DEPTH: usize = 127;

/// Whether arrays and objects in `json` nest deeper than `limit`. Linear; strings are
/// skipped with `memchr`, so long text content costs little.
pub fn json_depth_exceeds(json: &[u8], limit: usize) -> bool {
    let mut depth = 0usize;
    let mut at = 0;
    while at < json.len() {
        match json[at] {
            b'"' => {
                // Jump to the closing quote, skipping escaped characters.
                let mut cursor = at + 1;
                loop {
                    match memchr::memchr2(b'"', b'\\', &json[cursor.min(json.len())..]) {
                        Some(found) if json[cursor + found] == b'\\' => cursor += found + 2,
                        Some(found) => {
                            cursor += found;
                            break;
                        }
                        None => return false,
                    }
                }
                at = cursor + 1;
            }
            b'[' | b'{' => {
                depth += 1;
                if depth > limit {
                    return true;
                }
                at += 1;
            }
            b']' | b'}' => {
                depth = depth.saturating_sub(1);
                at += 1;
            }
            _ => at += 1,
        }
    }
    false
}

/// How many `[` and `{` bytes `json` holds (in strings or not): an upper bound of its
/// nesting depth, counted much faster than [`json_depth_exceeds`] walks it, so the walk only
/// runs on the rare lines where the bound is over the limit.
fn openers(json: &[u8]) -> usize {
    // Counting in 255-byte runs into a `u8` lets the compiler vectorize the comparison.
    json.chunks(255)
        .map(|run| {
            let count: u8 = run.iter().map(|&byte| u8::from(byte == b'[' || byte == b'{')).sum();
            usize::from(count)
        })
        .sum()
}

fn number_to_u64(value: f64) -> u64 {
    if value.is_finite() && value > 0.0 { value.round() as u64 } else { 0 }
}

/// Why a line is not a usable entry.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum EntryError {
    /// The line is not valid JSON (or not an object).
    #[error("invalid JSON: {0}")]
    Json(String),
    /// The JSON nests deeper than the parser allows.
    #[error("JSON nesting is too deep")]
    TooDeep,
    /// A required field is absent.
    #[error("missing field `{0}`")]
    Missing(&'static str),
    /// A field has the wrong type or value.
    #[error("{0}")]
    Invalid(String),
}

impl EntryError {
    fn from_json(error: serde_json::Error) -> Self {
        // Each line is parsed on its own, so serde_json's "line 1" says nothing useful.
        let text = error.to_string().replace(" at line 1 column ", " at column ");
        if text.contains("recursion limit exceeded") {
            EntryError::TooDeep
        } else if error.is_data() {
            EntryError::Invalid(text)
        } else {
            EntryError::Json(text)
        }
    }
}

/// The eagerly parsed part of an entry line. Unknown fields and message bodies are skipped.
#[derive(Deserialize)]
struct Envelope<'a> {
    #[serde(rename = "type", borrow, default)]
    entry_type: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    id: Option<Cow<'a, str>>,
    #[serde(rename = "parentId", borrow, default)]
    parent_id: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    timestamp: Option<TextOrOther<'a>>,
    #[serde(borrow, default)]
    message: Option<MessageHead<'a>>,
    #[serde(rename = "thinkingLevel", borrow, default)]
    thinking_level: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    provider: Option<Cow<'a, str>>,
    #[serde(rename = "modelId", borrow, default)]
    model_id: Option<Cow<'a, str>>,
    #[serde(default)]
    summary: Option<String>,
    #[serde(rename = "firstKeptEntryId", borrow, default)]
    first_kept_entry_id: Option<Cow<'a, str>>,
    #[serde(rename = "tokensBefore", default)]
    tokens_before: Option<f64>,
    #[serde(default)]
    details: Option<Value>,
    #[serde(rename = "fromHook", default)]
    from_hook: Option<bool>,
    #[serde(rename = "fromId", borrow, default)]
    from_id: Option<Cow<'a, str>>,
    #[serde(rename = "customType", borrow, default)]
    custom_type: Option<Cow<'a, str>>,
    #[serde(default)]
    display: Option<bool>,
    #[serde(rename = "targetId", borrow, default)]
    target_id: Option<Cow<'a, str>>,
    #[serde(default)]
    label: Option<String>,
    #[serde(default)]
    name: Option<String>,
}

/// A field kept when it is a string and ignored (without building a [`Value`]) otherwise.
struct TextOrOther<'a>(Option<Cow<'a, str>>);

impl<'de: 'a, 'a> Deserialize<'de> for TextOrOther<'a> {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visit;
        impl<'de> serde::de::Visitor<'de> for Visit {
            type Value = TextOrOther<'de>;

            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_borrowed_str<E>(self, text: &'de str) -> Result<Self::Value, E> {
                Ok(TextOrOther(Some(Cow::Borrowed(text))))
            }
            fn visit_str<E>(self, text: &str) -> Result<Self::Value, E> {
                Ok(TextOrOther(Some(Cow::Owned(text.to_owned()))))
            }
            fn visit_bool<E>(self, _: bool) -> Result<Self::Value, E> {
                Ok(TextOrOther(None))
            }
            fn visit_i64<E>(self, _: i64) -> Result<Self::Value, E> {
                Ok(TextOrOther(None))
            }
            fn visit_u64<E>(self, _: u64) -> Result<Self::Value, E> {
                Ok(TextOrOther(None))
            }
            fn visit_f64<E>(self, _: f64) -> Result<Self::Value, E> {
                Ok(TextOrOther(None))
            }
            fn visit_unit<E>(self) -> Result<Self::Value, E> {
                Ok(TextOrOther(None))
            }
            fn visit_none<E>(self) -> Result<Self::Value, E> {
                Ok(TextOrOther(None))
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> Result<Self::Value, A::Error> {
                while seq.next_element::<serde::de::IgnoredAny>()?.is_some() {}
                Ok(TextOrOther(None))
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut map: A,
            ) -> Result<Self::Value, A::Error> {
                while map.next_entry::<serde::de::IgnoredAny, serde::de::IgnoredAny>()?.is_some() {}
                Ok(TextOrOther(None))
            }
        }
        deserializer.deserialize_any(Visit)
    }
}

#[derive(Deserialize)]
struct MessageHead<'a> {
    #[serde(borrow)]
    role: Cow<'a, str>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn envelope_fields_are_parsed_and_raw_is_kept() {
        let raw = r#"{"type":"compaction","id":"a1b2c3d4","parentId":"00000001","timestamp":"2025-01-01T00:00:00Z","summary":"S","firstKeptEntryId":"00000002","tokensBefore":1234,"details":{"readFiles":["a"]},"fromHook":false,"zz":1}"#;
        let entry = Entry::parse(3, raw).unwrap();
        assert_eq!(entry.raw(), raw);
        assert_eq!(entry.timestamp(), Some("2025-01-01T00:00:00Z"));
        let block = Arc::new(format!("xx\n{raw}\n"));
        let shared = Entry::parse_shared(3, &block, 3, 3 + raw.len()).unwrap();
        assert_eq!(shared, entry);
        assert_eq!(shared.timestamp(), Some("2025-01-01T00:00:00Z"));
        let escaped =
            Entry::parse(4, r#"{"type":"custom","id":"e","timestamp":"2025\u002d01"}"#).unwrap();
        assert_eq!(escaped.timestamp(), Some("2025-01"));
        assert_eq!(entry.parent_id.as_deref(), Some("00000001"));
        let EntryKind::Compaction(data) = &entry.kind else { panic!("{:?}", entry.kind) };
        assert_eq!(data.first_kept_entry_id, "00000002");
        assert_eq!(data.tokens_before, 1234);
    }

    #[test]
    fn message_body_is_parsed_on_demand() {
        let raw = r#"{"type":"message","id":"x","parentId":null,"timestamp":"t","message":{"role":"user","content":"hello"}}"#;
        let entry = Entry::parse(2, raw).unwrap();
        assert_eq!(entry.role(), Some("user"));
        assert_eq!(entry.parent_id, None);
        let message = entry.message().unwrap().unwrap();
        assert_eq!(message, AgentMessage::user_text("hello"));
    }

    #[test]
    fn missing_fields_are_errors_and_unknown_types_are_kept() {
        assert_eq!(
            Entry::parse(2, r#"{"type":"message","parentId":null}"#),
            Err(EntryError::Missing("id"))
        );
        assert!(matches!(Entry::parse(2, "{nope"), Err(EntryError::Json(_))));
        let entry = Entry::parse(2, r#"{"type":"future_thing","id":"q","parentId":null}"#).unwrap();
        assert_eq!(entry.kind.type_name(), "future_thing");
    }
}

#[cfg(test)]
mod depth_tests {
    use super::*;

    #[test]
    fn depth_check_agrees_with_serde_json_limit() {
        for depth in 120..136 {
            let text = format!("{}{}", "[".repeat(depth), "]".repeat(depth));
            let serde_ok = serde_json::from_str::<Value>(&text).is_ok();
            assert_eq!(!json_depth_exceeds(text.as_bytes(), MAX_JSON_DEPTH), serde_ok, "{depth}");
        }
        assert!(!json_depth_exceeds(br#"{"a":"[[[[\"[[[["}"#, 2));
    }

    #[test]
    fn opener_count_bounds_depth() {
        let text = format!("{}{}", "[{".repeat(300), "}]".repeat(300));
        assert_eq!(openers(text.as_bytes()), 600);
        assert_eq!(openers(br#"{"a":"[x"}"#), 2);
        assert_eq!(openers(b""), 0);
        // A deep value inside a skipped field is still caught after the count.
        let deep = format!(
            r#"{{"type":"custom","id":"a","parentId":null,"data":{}{}}}"#,
            "[".repeat(200),
            "]".repeat(200)
        );
        assert_eq!(Entry::parse(2, &deep), Err(EntryError::TooDeep));
    }
}
