//! The pi session being built by an import: header, entries with fresh ids, redaction, and
//! the entries handed out as soon as no later line can change them.
//!
//! Invariant: every text that goes into the session (message text, reasoning, tool arguments,
//! tool output) passes through the redactor first; entry ids are `00000001`, `00000002`, …
//! in file order, so the same transcript always gives the same session; every assistant
//! message written has a usage in pi's full shape.

use std::collections::{BTreeMap, VecDeque};

use serde_json::{Map, Value, json};

use super::pairing::Pairing;
use super::{ImportReport, SourceFormat, time};
use crate::redact::Redactor;

/// The `customType` of the entry that records the window the source agent reported.
pub const CONTEXT_WINDOW_CUSTOM_TYPE: &str = "compaction-context-window";

/// The time written where a transcript records none (pi needs one on the header and on each
/// entry): the Unix epoch, which no real session has.
pub(super) const UNKNOWN_TIME: &str = "1970-01-01T00:00:00.000Z";

/// What an entry is, for the report.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Message,
    ToolResult,
    Other,
}

/// The session under construction.
pub(super) struct Builder<'r> {
    redactor: &'r Redactor,
    /// Entries not yet handed out (the last ones, which a later line may still change).
    pending: VecDeque<Value>,
    /// Every entry's parent (index + 1; 0 for a root) and kind, for the path in the report.
    parents: Vec<u32>,
    kinds: Vec<Kind>,
    /// The entry a root hangs from (the recorded window), so the session has one root.
    anchor: Option<String>,
    /// The window the transcript records.
    pub(super) context_window: Option<u64>,
    pub(super) cwd_recorded: bool,
    counts: Counts,
    /// How many texts the redactor changed.
    pub(super) redacted: usize,
    /// First versions of messages the user edited and sent again (kept as `custom` entries).
    pub(super) resent: usize,
    /// What was left out, by kind, with a count.
    pub(super) dropped: BTreeMap<String, usize>,
    /// What was kept in another form, by kind, with a count.
    pub(super) converted: BTreeMap<String, usize>,
    /// The last time written, and its milliseconds: what a time no calendar has becomes.
    last_time: Option<(String, i64)>,
    /// How many tool calls were renamed to pi's tools, by `source → pi` name.
    pub(super) renamed: BTreeMap<String, usize>,
    /// Which call each tool result answers (see [`super::pairing`]).
    pairing: Pairing,
}

/// What was handed out, counted as it went.
#[derive(Default)]
struct Counts {
    user: usize,
    assistant: usize,
    tool_calls: usize,
    tool_results: usize,
    tool_errors: usize,
    compactions: usize,
    usage_missing: usize,
}

impl<'r> Builder<'r> {
    pub(super) fn new(redactor: &'r Redactor) -> Self {
        Builder {
            redactor,
            pending: VecDeque::new(),
            parents: Vec::new(),
            kinds: Vec::new(),
            anchor: None,
            context_window: None,
            cwd_recorded: false,
            counts: Counts::default(),
            redacted: 0,
            resent: 0,
            dropped: BTreeMap::new(),
            converted: BTreeMap::new(),
            last_time: None,
            renamed: BTreeMap::new(),
            pairing: Pairing::default(),
        }
    }

    /// Notes one left-out item of `kind`.
    pub(super) fn drop(&mut self, kind: impl Into<String>) {
        self.drop_n(kind, 1);
    }

    /// Notes `n` left-out items of `kind` (none when `n` is 0).
    pub(super) fn drop_n(&mut self, kind: impl Into<String>, n: usize) {
        if n > 0 {
            *self.dropped.entry(kind.into()).or_insert(0) += n;
        }
    }

    /// The time an entry is written with, and its milliseconds: `text` when it is a time of
    /// the calendar in pi's form, in UTC when it is one in another form (counted as
    /// converted), else the previous time written (counted as left out; nothing counted for
    /// a transcript that gives no time at all).
    pub(super) fn time(&mut self, text: &str) -> (String, i64) {
        let kept = match time::checked(text) {
            time::Checked::Kept(ms) => (text.to_owned(), ms),
            time::Checked::Converted(utc, ms) => {
                self.convert("time not in UTC or not in pi's form (written in UTC)");
                (utc, ms)
            }
            time::Checked::Invalid => {
                if !text.is_empty() {
                    self.drop("time no calendar has (the previous time is written)");
                }
                return self.last_time.clone().unwrap_or_else(|| (UNKNOWN_TIME.to_owned(), 0));
            }
        };
        self.last_time = Some(kept.clone());
        kept
    }

    /// Notes one item of `kind` kept in another form.
    pub(super) fn convert(&mut self, kind: impl Into<String>) {
        *self.converted.entry(kind.into()).or_insert(0) += 1;
    }

    /// Notes a tool call renamed from `from` to `to`.
    pub(super) fn rename(&mut self, from: &str, to: &str) {
        *self.renamed.entry(format!("{from} → {to}")).or_insert(0) += 1;
    }

    /// The text with secrets replaced.
    pub(super) fn text(&mut self, text: &str) -> String {
        let out = self.redactor.redact(text);
        if out != text {
            self.redacted += 1;
        }
        out.into_owned()
    }

    /// A JSON value (a tool call's arguments) redacted as a whole: each key seen with its
    /// value, secret keys replaced (see [`Redactor::redact_value`]).
    pub(super) fn value(&mut self, value: &Value) -> Value {
        let out = self.redactor.redact_value(value);
        if out != *value {
            self.redacted += 1;
        }
        out
    }

    /// An image block whose `data` is redacted when it is really a text file in base64.
    pub(super) fn image(&mut self, image: Value) -> Value {
        self.value(&image)
    }

    /// The id the next entry gets.
    pub(super) fn next_id(&self) -> String {
        format!("{:08x}", self.parents.len() + 1)
    }

    /// Appends an entry of `kind` with `fields` under `parent`; returns its id.
    pub(super) fn push(
        &mut self,
        kind: &str,
        parent: Option<&str>,
        timestamp: &str,
        fields: Map<String, Value>,
    ) -> String {
        let id = self.next_id();
        let parent = parent.map(str::to_owned).or_else(|| self.anchor.clone());
        let mut entry = Map::new();
        entry.insert("type".into(), kind.into());
        entry.insert("id".into(), id.clone().into());
        entry.insert("parentId".into(), parent.clone().map_or(Value::Null, Value::String));
        let (timestamp, ms) = self.time(timestamp);
        entry.insert("timestamp".into(), timestamp.into());
        entry.extend(fields);
        // A message's time is the entry's, in milliseconds.
        if let Some(Value::Object(message)) = entry.get_mut("message")
            && message.contains_key("timestamp")
        {
            message.insert("timestamp".into(), ms.into());
        }
        let role = entry.get("message").and_then(|m| m.get("role")).and_then(Value::as_str);
        self.kinds.push(match (kind, role) {
            ("message", Some("toolResult")) => Kind::ToolResult,
            ("message", Some("user" | "assistant")) => Kind::Message,
            _ => Kind::Other,
        });
        self.parents.push(parent.and_then(|p| u32::from_str_radix(&p, 16).ok()).unwrap_or(0));
        self.pending.push_back(Value::Object(entry));
        id
    }

    /// Appends a `message` entry; returns its id.
    pub(super) fn message(
        &mut self,
        parent: Option<&str>,
        timestamp: &str,
        message: Value,
    ) -> String {
        let mut fields = Map::new();
        fields.insert("message".into(), message);
        self.push("message", parent, timestamp, fields)
    }

    /// Appends a `custom_message` entry (in the model's context as user-role text, but not
    /// the user's words): instructions, command expansions. `blocks` are redacted already.
    pub(super) fn custom_message(
        &mut self,
        parent: Option<&str>,
        timestamp: &str,
        custom_type: &str,
        blocks: Vec<Value>,
    ) -> String {
        self.custom_message_with(parent, timestamp, custom_type, blocks, None)
    }

    /// [`Builder::custom_message`] with `details` (what pi keeps beside the content, outside
    /// the context).
    pub(super) fn custom_message_with(
        &mut self,
        parent: Option<&str>,
        timestamp: &str,
        custom_type: &str,
        blocks: Vec<Value>,
        details: Option<Value>,
    ) -> String {
        let mut fields = Map::new();
        fields.insert("customType".into(), custom_type.into());
        fields.insert("content".into(), Value::Array(blocks));
        fields.insert("display".into(), false.into());
        if let Some(details) = details {
            fields.insert("details".into(), details);
        }
        self.push("custom_message", parent, timestamp, fields)
    }

    /// Appends a `compaction` entry for the source agent's own compaction: its summary
    /// replaces everything before it (the entry names itself as its first kept entry, as pi
    /// writes a compaction that keeps nothing).
    pub(super) fn compaction(
        &mut self,
        parent: Option<&str>,
        timestamp: &str,
        summary: &str,
        tokens_before: u64,
        source: &str,
    ) -> String {
        let summary = self.text(summary);
        let mut fields = Map::new();
        fields.insert("summary".into(), summary.into());
        fields.insert("firstKeptEntryId".into(), self.next_id().into());
        fields.insert("tokensBefore".into(), tokens_before.into());
        fields.insert("details".into(), json!({ "importedFrom": source }));
        self.push("compaction", parent, timestamp, fields)
    }

    /// Writes the entry recording the window the transcript reports, before any other.
    pub(super) fn window_entry(&mut self, timestamp: &str) {
        let Some(window) = self.context_window else { return };
        let mut fields = Map::new();
        fields.insert("customType".into(), CONTEXT_WINDOW_CUSTOM_TYPE.into());
        fields.insert("data".into(), json!({ "contextWindow": window }));
        let id = self.push("custom", None, timestamp, fields);
        self.anchor = Some(id);
    }

    /// The last entry, while it is not handed out yet.
    fn last_pending(&mut self) -> Option<&mut Value> {
        self.pending.back_mut()
    }

    /// The content blocks of the last entry, when it is an assistant message not yet
    /// handed out.
    pub(super) fn last_assistant_content(&mut self) -> Option<&mut Vec<Value>> {
        let message = self.last_pending()?.get_mut("message")?;
        if message.get("role").and_then(Value::as_str) != Some("assistant") {
            return None;
        }
        message.get_mut("content")?.as_array_mut()
    }

    /// Replaces fields of the last entry's message (usage, stop reason of a merged reply).
    pub(super) fn update_last_message(&mut self, fields: Map<String, Value>) {
        if let Some(Value::Object(message)) =
            self.last_pending().and_then(|entry| entry.get_mut("message"))
        {
            message.extend(fields);
        }
    }

    /// Hands out every entry but the last `keep`, each as a line ending in `\n`.
    pub(super) fn release(&mut self, keep: usize, out: &mut dyn FnMut(&str)) {
        while self.pending.len() > keep {
            let Some(mut entry) = self.pending.pop_front() else { break };
            self.pair_calls(&mut entry);
            self.count(&mut entry);
            let mut line = entry.to_string();
            line.push('\n');
            out(&line);
        }
    }

    /// Makes an entry handed out keep pi's pairing of calls and results: every tool call id
    /// is unique in the session, and every tool result answers a call of the reply it
    /// follows on its branch that no other result answered; a result that answers no such
    /// call (its call is on another branch, before a compaction or a later message, was
    /// left out or unreadable, or it repeats a result) becomes an `imported-meta` note
    /// holding its output, counted: a provider refuses a result without its call (see
    /// [`super::pairing`]).
    fn pair_calls(&mut self, entry: &mut Value) {
        let Some(index) = entry_index(entry) else { return };
        let parent = self.parents.get(index).copied().unwrap_or(0);
        let kind = entry.get("type").and_then(Value::as_str).unwrap_or("");
        let in_context =
            matches!(kind, "message" | "custom_message" | "compaction" | "branch_summary");
        let Some(Value::Object(message)) = entry.get_mut("message") else {
            return self.pairing.other(index, parent, in_context);
        };
        match message.get("role").and_then(Value::as_str) {
            Some("assistant") => match message.get_mut("content") {
                Some(Value::Array(blocks)) => self.pairing.assistant(index, blocks),
                _ => self.pairing.assistant(index, &mut []),
            },
            Some("toolResult") => {
                if let Err(why) = self.pairing.result(index, parent, message) {
                    // Kept, as a note: in another form, not left out.
                    self.convert(why);
                    self.result_as_note(entry);
                    self.pairing.other(index, parent, true);
                }
            }
            Some(_) | None => self.pairing.other(index, parent, in_context),
        }
    }

    /// A tool result entry rewritten as an `imported-meta` custom message holding its
    /// output, with the call it named and its error flag in `details`.
    fn result_as_note(&mut self, entry: &mut Value) {
        let Some(Value::Object(message)) = entry.get_mut("message").map(Value::take) else {
            return;
        };
        let Some(fields) = entry.as_object_mut() else { return };
        fields.remove("message");
        fields.insert("type".into(), "custom_message".into());
        fields.insert("customType".into(), "imported-meta".into());
        let content = message.get("content").cloned().unwrap_or_else(|| json!([]));
        fields.insert("content".into(), content);
        fields.insert("display".into(), false.into());
        let mut details = json!({
            "toolCallId": message.get("toolCallId").cloned().unwrap_or(Value::Null),
            "toolName": message.get("toolName").cloned().unwrap_or(Value::Null),
            "isError": message.get("isError").cloned().unwrap_or(Value::Bool(false)),
        });
        if let Some(extra) = message.get("details") {
            details["details"] = extra.clone();
        }
        fields.insert("details".into(), details);
        let index = entry_index(entry);
        if let Some(kind) = index.and_then(|index| self.kinds.get_mut(index)) {
            *kind = Kind::Other;
        }
    }

    /// Counts an entry handed out; an assistant message without a usage gets one of zeros
    /// (pi 1.6 reads every assistant message's usage).
    fn count(&mut self, entry: &mut Value) {
        if entry.get("type").and_then(Value::as_str) == Some("compaction") {
            self.counts.compactions += 1;
        }
        let Some(Value::Object(message)) = entry.get_mut("message") else { return };
        match message.get("role").and_then(Value::as_str) {
            Some("user") => self.counts.user += 1,
            Some("assistant") => {
                self.counts.assistant += 1;
                self.counts.tool_calls += message
                    .get("content")
                    .and_then(Value::as_array)
                    .map_or(0, |c| c.iter().filter(|b| b["type"] == "toolCall").count());
                if !message.contains_key("usage") {
                    self.counts.usage_missing += 1;
                    message.insert("usage".into(), usage(0, 0, 0, 0));
                }
            }
            Some("toolResult") => {
                self.counts.tool_results += 1;
                if message.get("isError").and_then(Value::as_bool) == Some(true) {
                    self.counts.tool_errors += 1;
                }
            }
            Some(_) | None => {}
        }
    }

    /// The session header line; its time is checked as an entry's is (see [`Self::time`]).
    pub(super) fn header_line(&mut self, header: &mut Header) -> String {
        header.timestamp = self.time(&header.timestamp).0;
        let mut out = json!({
            "type": "session",
            "version": crate::entry::CURRENT_VERSION,
            "id": header.id,
            "timestamp": header.timestamp,
            "cwd": header.cwd,
        })
        .to_string();
        out.push('\n');
        out
    }

    /// The report, once every entry is handed out.
    pub(super) fn report(&self, format: SourceFormat, lines: usize) -> ImportReport {
        let mut on_path = vec![false; self.parents.len()];
        let mut at = self.parents.len();
        while at > 0 && !on_path[at - 1] {
            on_path[at - 1] = true;
            at = self.parents[at - 1] as usize;
        }
        let count = |kind: Kind, path: bool| {
            self.kinds.iter().zip(&on_path).filter(|(k, p)| **k == kind && **p == path).count()
        };
        let messages_on_path = count(Kind::Message, true) + count(Kind::ToolResult, true);
        let messages_off_path = count(Kind::Message, false) + count(Kind::ToolResult, false);
        ImportReport {
            format,
            lines,
            entries: self.parents.len(),
            user_messages: self.counts.user,
            assistant_messages: self.counts.assistant,
            tool_calls: self.counts.tool_calls,
            tool_results: self.counts.tool_results,
            tool_errors: self.counts.tool_errors,
            messages_on_path,
            tool_results_on_path: count(Kind::ToolResult, true),
            messages_off_path,
            resent_messages: self.resent,
            compactions: self.counts.compactions,
            context_window: self.context_window,
            cwd_recorded: self.cwd_recorded,
            usage_missing: self.counts.usage_missing,
            redacted_texts: self.redacted,
            renamed_tools: self.renamed.clone(),
            converted: self.converted.clone(),
            dropped: self.dropped.clone(),
        }
    }
}

/// The index of an entry the builder wrote (its id is its index + 1, in hexadecimal).
fn entry_index(entry: &Value) -> Option<usize> {
    let id = entry.get("id")?.as_str()?;
    usize::from_str_radix(id, 16).ok()?.checked_sub(1)
}

/// What the session header says: where the transcript came from.
#[derive(Debug, Clone, Default)]
pub(super) struct Header {
    pub(super) id: String,
    pub(super) timestamp: String,
    pub(super) cwd: String,
}

/// An assistant message in pi's shape.
pub(super) fn assistant(
    content: Vec<Value>,
    api: &str,
    provider: &str,
    model: &str,
    usage: Option<Value>,
    stop_reason: &str,
    timestamp: &str,
) -> Value {
    let mut message = json!({
        "role": "assistant",
        "content": content,
        "api": api,
        "provider": provider,
        "model": model,
        "stopReason": stop_reason,
        "timestamp": millis(timestamp),
    });
    // Without a recorded usage the field is left out here; the builder writes zeros when
    // the message is handed out (pi 1.6 reads every assistant message's usage).
    if let (Some(usage), Some(object)) = (usage, message.as_object_mut()) {
        object.insert("usage".into(), usage);
    }
    message
}

/// pi's usage record from token counts (costs unknown: zero).
pub(super) fn usage(input: u64, output: u64, cache_read: u64, cache_write: u64) -> Value {
    json!({
        "input": input,
        "output": output,
        "cacheRead": cache_read,
        "cacheWrite": cache_write,
        // The counts come from the transcript: a sum past `u64::MAX` stops there.
        "totalTokens": input.saturating_add(output).saturating_add(cache_read).saturating_add(cache_write),
        "cost": { "input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0 },
    })
}

/// A tool result message in pi's shape.
pub(super) fn tool_result(
    call_id: &str,
    tool_name: &str,
    content: Vec<Value>,
    is_error: bool,
    details: Option<Value>,
    timestamp: &str,
) -> Value {
    let mut message = json!({
        "role": "toolResult",
        "toolCallId": call_id,
        "toolName": tool_name,
        "content": content,
        "isError": is_error,
        "timestamp": millis(timestamp),
    });
    if let (Some(details), Some(object)) = (details, message.as_object_mut()) {
        object.insert("details".into(), details);
    }
    message
}

/// A user message in pi's shape.
pub(super) fn user(content: Vec<Value>, timestamp: &str) -> Value {
    json!({ "role": "user", "content": content, "timestamp": millis(timestamp) })
}

/// A text block.
pub(super) fn text_block(text: String) -> Value {
    json!({ "type": "text", "text": text })
}

/// Milliseconds since the Unix epoch of an ISO-8601 timestamp
/// (`2025-07-15T05:07:22.709Z`, offsets `+02:00` too); 0 when it is no time of the calendar.
/// [`Builder::push`] writes every entry's time checked (see `import::time`).
pub(super) fn millis(timestamp: &str) -> i64 {
    match time::checked(timestamp) {
        time::Checked::Kept(ms) | time::Checked::Converted(_, ms) => ms,
        time::Checked::Invalid => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamps_become_epoch_milliseconds() {
        assert_eq!(millis("1970-01-01T00:00:00Z"), 0);
        assert_eq!(millis("2025-07-15T05:07:22.709Z"), 1_752_556_042_709);
        assert_eq!(millis("2025-07-15T07:07:22.7+02:00"), 1_752_556_042_700);
        assert_eq!(millis("not a date"), 0);
    }
}
