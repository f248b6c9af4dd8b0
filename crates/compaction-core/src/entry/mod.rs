//! Session entries: the header line and the typed envelope of every other line.
//!
//! An [`Entry`] owns the exact JSON text of its line, so writing it back is byte-identical
//! and nothing it carries is lost. The envelope fields (type, id, parent, timestamp) and the
//! small fields the engine needs (a message's role, a compaction's summary and first kept id,
//! a label's target) are parsed eagerly; message bodies are parsed on demand with
//! [`Entry::message`], which keeps loading fast and memory close to the file size.
//!
//! Stages, one module each: `envelope` (what is parsed eagerly, and why a line is not an
//! entry), `line` (the [`Entry`] built from it), `depth` (the nesting limit); the header and
//! the entry kinds are here.

mod depth;
mod envelope;
mod line;
mod numbers;
mod surrogates;
pub(crate) use surrogates::replace_lone_surrogates;
#[cfg(test)]
mod tests;

pub use depth::{MAX_JSON_DEPTH, json_depth_exceeds};
pub use envelope::EntryError;
pub use line::Entry;

/// Parses JSON text as JavaScript's `JSON.parse` (so pi) reads it where serde_json is
/// stricter: a lone surrogate escape (`"\ud83d"`, which Node writes when a string is cut
/// inside a pair) is read as U+FFFD, as the session reader reads it; a number past the range
/// of `f64` (`1e400`, `Infinity` to `JSON.parse`) as the largest finite `f64` of its sign;
/// and a key given twice in an object keeps its last value. Used for every text another
/// program wrote: session lines parsed into types, providers' replies, extensions'
/// decisions, settings files. Any other error is serde_json's first.
pub fn from_json_text<T: serde::de::DeserializeOwned>(text: &str) -> serde_json::Result<T> {
    let error = match serde_json::from_str(text) {
        Ok(value) => return Ok(value),
        Err(error) => error,
    };
    let readable = readable_json(text);
    if let Some(readable) = &readable
        && let Ok(value) = serde_json::from_str(readable)
    {
        return Ok(value);
    }
    // serde_json's `Value` keeps the last value of a repeated key, as `JSON.parse` does.
    match serde_json::from_str::<Value>(readable.as_deref().unwrap_or(text)) {
        Ok(value) => serde_json::from_value(value).map_err(|_| error),
        Err(_) => Err(error),
    }
}

/// `text` with what `JSON.parse` reads and serde_json refuses made readable (lone surrogate
/// escapes, numbers past `f64`); `None` when it holds neither.
pub(crate) fn readable_json(text: &str) -> Option<String> {
    let surrogates = replace_lone_surrogates(text);
    let numbers = numbers::saturate_huge_numbers(surrogates.as_deref().unwrap_or(text));
    numbers.or(surrogates)
}

use std::borrow::Cow;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

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
    /// `context_edit` (pi 1.6): an append-only edit of an earlier context-producing entry on
    /// the same branch. The latest edit of a target among the context's entries wins.
    ContextEdit {
        /// The edited entry.
        target_id: String,
        /// `replacement: null`: the target is left out of the model's context. Otherwise the
        /// replacement's `content` takes the place of the target's content.
        omit: bool,
    },
    /// `usage` (pi 1.6): tokens a model spent outside the conversation (cache warming, …).
    /// Counted in session totals, hidden from the tree, never in the context.
    Usage {
        /// What the tokens were spent on (`cache_warm`, …); any string.
        kind: String,
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
            EntryKind::ContextEdit { .. } => "context_edit",
            EntryKind::Usage { .. } => "usage",
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
    /// Whether the entry carries pi 1.6's `systemMessage`: the replayed system prompt and
    /// tools at the boundary, which lead the compacted context.
    pub has_system_message: bool,
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
