//! Claude Code transcripts: `user` / `assistant` lines linked by `uuid` / `parentUuid`.
//!
//! Claude Code writes one line per content block of a reply (the lines share
//! `message.id`); consecutive lines of one reply become one assistant message. Each
//! `tool_result` block becomes a pi tool result, chained after the previous result of the same
//! reply, so a reply's results never branch. A line whose parent was left out (bookkeeping,
//! side chains) hangs from the nearest kept ancestor; a root that continues an earlier
//! conversation (after Claude Code's own compaction, `logicalParentUuid`) hangs from what it
//! continues, or from the entry before it. Side chains (sub-agent conversations) are left out
//! of a main transcript; a sub-agent's own file, which is all side chain, is kept whole.
//!
//! Invariant: every tool result entry follows (on its branch) the assistant entry holding its
//! call, when that call is in the transcript.

use std::collections::{HashMap, HashSet, VecDeque};
use std::hash::{BuildHasher as _, BuildHasherDefault, DefaultHasher};

use serde_json::{Map, Value, json};

use super::build::{self, Builder, Header};

/// How many lines a line whose parent comes later in the file waits for it. Claude Code
/// sometimes writes a tool result a line or two before the reply line holding its call.
const MAX_WAIT_LINES: usize = 256;
/// How many lines may wait at once.
const MAX_WAITING: usize = 256;
/// How many queued inputs are remembered while waiting to see them reach the model.
const MAX_QUEUED: usize = 256;

/// What the first pass learns: the header, whether the file is all side chain, and which
/// line ids it holds (so a line whose parent comes later waits for it, and one whose parent
/// is in no line of the file does not).
#[derive(Debug, Clone, Default)]
pub(super) struct Scan {
    header: Header,
    messages: usize,
    side_chain_messages: usize,
    uuids: HashSet<u64>,
    /// Lines read.
    lines: usize,
    /// The line ids other lines name as their parent (hashed).
    referenced: HashSet<u64>,
    /// Parent id (hashed) → the last line (number) of the user's own words under it.
    last_user_child: HashMap<u64, usize>,
}

/// A fixed hash of a line id (the same in both passes).
fn uuid_hash(uuid: &str) -> u64 {
    BuildHasherDefault::<DefaultHasher>::default().hash_one(uuid)
}

impl Scan {
    pub(super) fn line(&mut self, value: &Value) {
        let text = |key: &str| value.get(key).and_then(Value::as_str).filter(|t| !t.is_empty());
        if self.header.id.is_empty()
            && let Some(session) = text("sessionId")
        {
            session.clone_into(&mut self.header.id);
        }
        if self.header.cwd.is_empty()
            && let Some(cwd) = text("cwd")
        {
            cwd.clone_into(&mut self.header.cwd);
        }
        if self.header.timestamp.is_empty()
            && let Some(timestamp) = text("timestamp")
        {
            timestamp.clone_into(&mut self.header.timestamp);
        }
        self.lines += 1;
        if let Some(uuid) = text("uuid") {
            self.uuids.insert(uuid_hash(uuid));
        }
        if let Some(parent) = text("parentUuid") {
            self.referenced.insert(uuid_hash(parent));
            if users_words(value) {
                self.last_user_child.insert(uuid_hash(parent), self.lines);
            }
        }
        if matches!(value.get("type").and_then(Value::as_str), Some("user" | "assistant")) {
            self.messages += 1;
            if value.get("isSidechain").and_then(Value::as_bool) == Some(true) {
                self.side_chain_messages += 1;
            }
        }
    }

    pub(super) fn header(&self) -> Header {
        let mut header = self.header.clone();
        if header.id.is_empty() {
            header.id = "imported-claude-code-session".into();
        }
        header
    }
}

/// Where lines of the transcript went.
#[derive(Default)]
pub(super) struct State {
    /// A sub-agent's own transcript (`agent-*.jsonl`) is all side chain: keep it then.
    only_side_chain: bool,
    /// Source `uuid` → the entry that stands for it (or for its nearest kept ancestor).
    entry_of: HashMap<String, Option<String>>,
    /// Tool call id → (pi tool name, the assistant entry holding the call).
    calls: HashMap<String, (String, String)>,
    /// Assistant entry → the last tool result chained after it.
    result_tail: HashMap<String, String>,
    /// The `message.id` of the last assistant entry written, while it is the last entry.
    open_reply: Option<(String, String)>,
    /// The last entry written.
    last: Option<String>,
    /// Lines whose parent has not appeared yet, with the line count when they arrived.
    waiting: VecDeque<(usize, Value)>,
    /// Lines seen.
    seen: usize,
    /// The line ids of the file (hashed).
    uuids: HashSet<u64>,
    /// What the first pass learned about parents (see [`Scan`]).
    referenced: HashSet<u64>,
    last_user_child: HashMap<u64, usize>,
    /// Entry → the entry written after it in its place (a message's first version that the
    /// user edited and sent again): the next line under that entry hangs from it instead.
    after: HashMap<String, String>,
    /// The token count before Claude Code's own compaction (its `compact_boundary` line).
    compact_tokens: Option<u64>,
    /// Text the user queued while the agent worked, not yet seen reaching the model.
    queued: Vec<String>,
}

impl State {
    pub(super) fn new(scan: &Scan) -> Self {
        State {
            only_side_chain: scan.messages > 0 && scan.side_chain_messages == scan.messages,
            uuids: scan.uuids.clone(),
            referenced: scan.referenced.clone(),
            last_user_child: scan.last_user_child.clone(),
            ..State::default()
        }
    }

    /// The entry a line hangs from, past the first versions of resent messages.
    fn parent(&self, value: &Value) -> Option<String> {
        let mut parent = self.named_parent(value)?;
        while let Some(next) = self.after.get(&parent) {
            parent.clone_from(next);
        }
        Some(parent)
    }

    /// The entry a line names as its parent (or the nearest kept ancestor).
    fn named_parent(&self, value: &Value) -> Option<String> {
        let lookup = |key: &str| -> Option<Option<String>> {
            let uuid = value.get(key)?.as_str()?;
            self.entry_of.get(uuid).cloned()
        };
        if let Some(found) = lookup("parentUuid") {
            return found;
        }
        if let Some(Some(found)) = lookup("logicalParentUuid") {
            return Some(found);
        }
        self.last.clone()
    }

    fn record(&mut self, value: &Value, entry: Option<String>) {
        if let Some(uuid) = value.get("uuid").and_then(Value::as_str) {
            self.entry_of.insert(uuid.to_owned(), entry);
        }
    }

    /// Whether the line names a parent that a later line of the file holds.
    fn parent_later(&self, value: &Value) -> bool {
        value.get("parentUuid").and_then(Value::as_str).is_some_and(|uuid| {
            !self.entry_of.contains_key(uuid) && self.uuids.contains(&uuid_hash(uuid))
        })
    }

    /// Converts one line. A line whose parent appears later in the file (Claude Code writes
    /// some tool results before the reply line with their call) waits for it, a few lines
    /// at most; the lines waiting for a line are converted right after it.
    pub(super) fn line(&mut self, value: Value, builder: &mut Builder<'_>) {
        self.seen += 1;
        if self.parent_later(&value) {
            self.waiting.push_back((self.seen, value));
        } else {
            self.convert_then_waiting(self.seen, value, builder);
        }
        // A parent that did not come in time: the line hangs from the entry before it.
        while let Some((since, _)) = self.waiting.front() {
            if self.seen - since < MAX_WAIT_LINES && self.waiting.len() <= MAX_WAITING {
                break;
            }
            if let Some((number, value)) = self.waiting.pop_front() {
                self.convert_then_waiting(number, value, builder);
            }
        }
    }

    /// Converts `value`, then every waiting line whose parent it is (and theirs).
    fn convert_then_waiting(&mut self, number: usize, value: Value, builder: &mut Builder<'_>) {
        let mut ready = vec![(number, value)];
        while let Some((number, value)) = ready.pop() {
            self.convert(number, &value, builder);
            if let Some(uuid) = value.get("uuid").and_then(Value::as_str) {
                let (children, rest): (VecDeque<_>, VecDeque<_>) =
                    std::mem::take(&mut self.waiting).into_iter().partition(|(_, line)| {
                        line.get("parentUuid").and_then(Value::as_str) == Some(uuid)
                    });
                self.waiting = rest;
                // In file order: the stack pops the last pushed first.
                ready.extend(children.into_iter().rev());
            }
        }
    }

    /// Ends the conversion: lines still waiting hang from the entry before them; queued
    /// input never seen reaching the model is counted.
    pub(super) fn finish(&mut self, builder: &mut Builder<'_>) {
        while let Some((number, value)) = self.waiting.pop_front() {
            self.convert_then_waiting(number, value, builder);
        }
        builder.drop_n(
            "queued input never sent to the model (`queue-operation` enqueue)",
            self.queued.len(),
        );
    }

    /// Whether line `number` is the user's message that they edited and sent again: no line
    /// hangs from it, and a later message of theirs hangs from the same parent.
    fn resent(&self, number: usize, value: &Value) -> bool {
        let text = |key: &str| value.get(key).and_then(Value::as_str);
        let (Some(uuid), Some(parent)) = (text("uuid"), text("parentUuid")) else { return false };
        users_words(value)
            && !self.referenced.contains(&uuid_hash(uuid))
            && self.last_user_child.get(&uuid_hash(parent)).is_some_and(|&last| last > number)
    }

    fn convert(&mut self, number: usize, value: &Value, builder: &mut Builder<'_>) {
        let timestamp = value.get("timestamp").and_then(Value::as_str).unwrap_or("");
        let kind = value.get("type").and_then(Value::as_str).unwrap_or("");
        if !self.only_side_chain && value.get("isSidechain").and_then(Value::as_bool) == Some(true)
        {
            builder.drop("side-chain (sub-agent) line");
            let parent = self.parent(value);
            self.record(value, parent);
            return;
        }
        if self.resent(number, value) {
            return resent_line(value, timestamp, self, builder);
        }
        match kind {
            "user" => user_line(value, timestamp, self, builder),
            "assistant" => assistant_line(value, timestamp, self, builder),
            "attachment" => attachment_line(value, timestamp, self, builder),
            "queue-operation" => {
                self.queue_operation(value);
                builder.drop("`queue-operation` line (queue bookkeeping)");
            }
            "system" => {
                let subtype = value.get("subtype").and_then(Value::as_str).unwrap_or("");
                if subtype == "compact_boundary" {
                    // Becomes the `compaction` entry with the summary that follows it.
                    self.compact_tokens = value
                        .get("compactMetadata")
                        .and_then(|m| m.get("preTokens"))
                        .and_then(Value::as_u64);
                } else {
                    let subtype = if subtype.is_empty() { "untyped" } else { subtype };
                    builder.drop(format!("`system` line ({subtype})"));
                }
                let parent = self.parent(value);
                self.record(value, parent);
            }
            other => {
                builder
                    .drop(format!("`{}` line", if other.is_empty() { "untyped" } else { other }));
                let parent = self.parent(value);
                self.record(value, parent);
            }
        }
    }

    /// Remembers text the user queued while the agent worked.
    fn queue_operation(&mut self, value: &Value) {
        let operation = value.get("operation").and_then(Value::as_str);
        let content = value.get("content").and_then(Value::as_str).map(str::trim);
        if let (Some("enqueue"), Some(text)) = (operation, content)
            && !text.is_empty()
            && self.queued.len() < MAX_QUEUED
        {
            self.queued.push(text.to_owned());
        }
    }

    /// Marks queued input that `text` (which reached the model) carries as delivered.
    fn delivered(&mut self, text: &str) {
        if !self.queued.is_empty() {
            self.queued.retain(|queued| !text.contains(queued.as_str()));
        }
    }
}

/// Whether a line is the user's own words: a user message that is not Claude Code's (meta,
/// compaction summary) and holds no tool result.
fn users_words(value: &Value) -> bool {
    let flag = |key: &str| value.get(key).and_then(Value::as_bool) == Some(true);
    let content = value.get("message").and_then(|m| m.get("content"));
    let results = content.and_then(Value::as_array).is_some_and(|blocks| {
        blocks.iter().any(|b| b.get("type").and_then(Value::as_str) == Some("tool_result"))
    });
    value.get("type").and_then(Value::as_str) == Some("user")
        && !flag("isMeta")
        && !flag("isCompactSummary")
        && !flag("isSidechain")
        && !results
}

/// The first version of a message the user edited and sent again (Claude Code resumes
/// without it): kept in its place in the file as a `custom` entry, outside the context, and
/// the next line under the same parent hangs from it, so the path keeps the file's order.
fn resent_line(value: &Value, timestamp: &str, state: &mut State, builder: &mut Builder<'_>) {
    let parent = state.parent(value);
    let content = value.get("message").and_then(|m| m.get("content")).cloned();
    let content = builder.value(&content.unwrap_or(Value::Null));
    let mut fields = Map::new();
    fields.insert("customType".into(), RESENT_CUSTOM_TYPE.into());
    fields.insert("data".into(), json!({ "content": content }));
    let id = builder.push("custom", parent.as_deref(), timestamp, fields);
    builder.resent += 1;
    if let Some(parent) = parent {
        state.after.insert(parent, id.clone());
    }
    state.open_reply = None;
    state.last = Some(id.clone());
    state.record(value, Some(id));
}

/// The `customType` of a message's first version that the user edited and sent again.
pub(super) const RESENT_CUSTOM_TYPE: &str = "imported-resent-message";

/// An `attachment` line: text Claude Code added to the context. Input the user queued while
/// the agent worked (`queued_command`) reached the model and is kept as a user message;
/// the other kinds (reminders, file snapshots, hook output) are counted as left out.
fn attachment_line(value: &Value, timestamp: &str, state: &mut State, builder: &mut Builder<'_>) {
    let attachment = value.get("attachment");
    let kind = attachment.and_then(|a| a.get("type")).and_then(Value::as_str).unwrap_or("");
    let prompt = attachment.and_then(|a| a.get("prompt"));
    let text = match prompt {
        Some(Value::String(text)) => Some(text.clone()),
        Some(Value::Array(blocks)) => Some(
            blocks
                .iter()
                .filter_map(|b| b.get("text").and_then(Value::as_str))
                .collect::<Vec<_>>()
                .join("\n"),
        ),
        Some(_) | None => None,
    };
    let parent = state.parent(value);
    match (kind, text) {
        ("queued_command", Some(text)) if !text.trim().is_empty() => {
            state.delivered(&text);
            let blocks = vec![build::text_block(builder.text(&text))];
            let id = builder.message(parent.as_deref(), timestamp, build::user(blocks, timestamp));
            state.open_reply = None;
            state.last = Some(id.clone());
            state.record(value, Some(id));
        }
        _ => {
            let kind = if kind.is_empty() { "untyped" } else { kind };
            builder.drop(format!("`attachment` line ({kind})"));
            state.record(value, parent);
        }
    }
}

fn user_line(value: &Value, timestamp: &str, state: &mut State, builder: &mut Builder<'_>) {
    let parent = state.parent(value);
    if value.get("toolUseResult").is_some_and(|result| !result.is_null()) {
        builder.drop("`toolUseResult` (Claude Code's structured copy of a tool result)");
    }
    let content = value.get("message").and_then(|m| m.get("content"));
    let is_meta = value.get("isMeta").and_then(Value::as_bool) == Some(true);
    let is_summary = value.get("isCompactSummary").and_then(Value::as_bool) == Some(true);
    let mut last = parent;
    let mut blocks = Vec::new();
    let mut text_only = String::new();
    if let Some(text) = content.and_then(Value::as_str) {
        text_only.push_str(text);
        blocks.push(build::text_block(builder.text(text)));
    }
    for block in content.and_then(Value::as_array).map(Vec::as_slice).unwrap_or(&[]) {
        match block.get("type").and_then(Value::as_str) {
            Some("tool_result") => {
                last = Some(tool_result(block, timestamp, last.as_deref(), state, builder));
            }
            Some("text") => {
                let text = block.get("text").and_then(Value::as_str).unwrap_or("");
                if !text_only.is_empty() {
                    text_only.push('\n');
                }
                text_only.push_str(text);
                blocks.push(build::text_block(builder.text(text)));
            }
            Some("image") => match image(block) {
                Some(image) => blocks.push(image),
                None => builder.drop("image without base64 data"),
            },
            Some(other) => builder.drop(format!("user `{other}` block")),
            None => builder.drop("user block without a type"),
        }
    }
    if is_summary {
        // Claude Code's own compaction: its summary replaces what came before, as a pi
        // compaction does.
        let tokens = state.compact_tokens.take().unwrap_or(0);
        let id = builder.compaction(last.as_deref(), timestamp, &text_only, tokens, "claude-code");
        let images = blocks.iter().filter(|b| b["type"] == "image").count();
        builder.drop_n("image in a Claude Code compaction summary", images);
        last = Some(id);
    } else if !blocks.is_empty() {
        let id = if is_meta {
            builder.custom_message(last.as_deref(), timestamp, "imported-meta", blocks)
        } else {
            state.delivered(&text_only);
            builder.message(last.as_deref(), timestamp, build::user(blocks, timestamp))
        };
        last = Some(id);
    }
    state.open_reply = None;
    if last.is_some() && last != state.last {
        state.last.clone_from(&last);
    }
    state.record(value, last);
}

/// Writes one tool result; returns its entry id.
fn tool_result(
    block: &Value,
    timestamp: &str,
    parent: Option<&str>,
    state: &mut State,
    builder: &mut Builder<'_>,
) -> String {
    let call_id = block.get("tool_use_id").and_then(Value::as_str).unwrap_or("");
    let (name, call_entry) = match state.calls.get(call_id) {
        Some((name, entry)) => (name.clone(), Some(entry.clone())),
        None => ("unknown".to_owned(), None),
    };
    // Chain after the reply's previous result, so the results of one reply never branch.
    let parent = match &call_entry {
        Some(entry) if parent == Some(entry.as_str()) || state.result_tail.contains_key(entry) => {
            state.result_tail.get(entry).cloned().or_else(|| Some(entry.clone()))
        }
        Some(_) | None => parent.map(str::to_owned),
    };
    let mut content = Vec::new();
    if let Some(text) = block.get("content").and_then(Value::as_str) {
        content.push(build::text_block(builder.text(text)));
    }
    for item in block.get("content").and_then(Value::as_array).map(Vec::as_slice).unwrap_or(&[]) {
        match item.get("type").and_then(Value::as_str) {
            Some("text") => {
                let text = item.get("text").and_then(Value::as_str).unwrap_or("");
                content.push(build::text_block(builder.text(text)));
            }
            Some("image") => match image(item) {
                Some(image) => content.push(image),
                None => builder.drop("image without base64 data"),
            },
            Some(other) => builder.drop(format!("tool result `{other}` block")),
            None => builder.drop("tool result block without a type"),
        }
    }
    let is_error = block.get("is_error").and_then(Value::as_bool).unwrap_or(false);
    let message = build::tool_result(call_id, &name, content, is_error, None, timestamp);
    let id = builder.message(parent.as_deref(), timestamp, message);
    if let Some(entry) = call_entry {
        state.result_tail.insert(entry, id.clone());
    }
    id
}

fn assistant_line(value: &Value, timestamp: &str, state: &mut State, builder: &mut Builder<'_>) {
    let message = value.get("message").unwrap_or(&Value::Null);
    let reply_id = message.get("id").and_then(Value::as_str).unwrap_or("").to_owned();
    let parent = state.parent(value);
    let mut blocks = Vec::new();
    for block in message.get("content").and_then(Value::as_array).map(Vec::as_slice).unwrap_or(&[])
    {
        match block.get("type").and_then(Value::as_str) {
            Some("text") => {
                let text = block.get("text").and_then(Value::as_str).unwrap_or("");
                blocks.push(build::text_block(builder.text(text)));
            }
            Some("thinking") => {
                let thinking = block.get("thinking").and_then(Value::as_str).unwrap_or("");
                let mut out = json!({ "type": "thinking", "thinking": builder.text(thinking) });
                if let (Some(signature), Some(object)) =
                    (block.get("signature").and_then(Value::as_str), out.as_object_mut())
                {
                    object.insert("thinkingSignature".into(), signature.into());
                }
                blocks.push(out);
            }
            Some("tool_use") => blocks.push(tool_call(block, builder)),
            Some(other) => builder.drop(format!("assistant `{other}` block")),
            None => builder.drop("assistant block without a type"),
        }
    }
    if let Some(text) = message.get("content").and_then(Value::as_str) {
        blocks.push(build::text_block(builder.text(text)));
    }
    let usage = message.get("usage").map(|recorded| usage(Some(recorded)));
    let has_calls =
        blocks.iter().any(|b| b.get("type").and_then(Value::as_str) == Some("toolCall"));
    let error = value.get("isApiErrorMessage").and_then(Value::as_bool) == Some(true);
    let stop_reason = stop_reason(message.get("stop_reason").and_then(Value::as_str), error);
    // Another line of the reply that is still the last entry: add its blocks there.
    let continues = match &state.open_reply {
        Some((open, entry)) => {
            !reply_id.is_empty() && *open == reply_id && parent.as_deref() == Some(entry.as_str())
        }
        None => false,
    };
    let entry = if continues && let Some(content) = builder.last_assistant_content() {
        content.extend(blocks.iter().cloned());
        let has_calls =
            content.iter().any(|b| b.get("type").and_then(Value::as_str) == Some("toolCall"));
        let mut fields = Map::new();
        if let Some(usage) = usage {
            fields.insert("usage".into(), usage);
        }
        fields.insert(
            "stopReason".into(),
            (if has_calls && stop_reason == "stop" { "toolUse" } else { stop_reason }).into(),
        );
        builder.update_last_message(fields);
        state.last.clone().unwrap_or_default()
    } else {
        let model = message.get("model").and_then(Value::as_str).unwrap_or("unknown");
        let stop = if has_calls && stop_reason == "stop" { "toolUse" } else { stop_reason };
        let mut reply = build::assistant(
            blocks.clone(),
            "anthropic-messages",
            "anthropic",
            model,
            usage,
            stop,
            timestamp,
        );
        if error && let Some(object) = reply.as_object_mut() {
            let text = blocks
                .iter()
                .filter_map(|b| b.get("text").and_then(Value::as_str))
                .collect::<Vec<_>>()
                .join("\n");
            object.insert("errorMessage".into(), text.into());
        }
        let id = builder.message(parent.as_deref(), timestamp, reply);
        state.last = Some(id.clone());
        id
    };
    for block in &blocks {
        if block.get("type").and_then(Value::as_str) == Some("toolCall") {
            let id = block.get("id").and_then(Value::as_str).unwrap_or("").to_owned();
            let name = block.get("name").and_then(Value::as_str).unwrap_or("").to_owned();
            state.calls.insert(id, (name, entry.clone()));
        }
    }
    state.open_reply = Some((reply_id, entry.clone()));
    state.record(value, Some(entry));
}

/// pi's stop reason for Claude's.
fn stop_reason(reason: Option<&str>, error: bool) -> &'static str {
    if error {
        return "error";
    }
    match reason {
        Some("tool_use") => "toolUse",
        Some("max_tokens") => "length",
        Some("refusal") => "error",
        Some(_) | None => "stop",
    }
}

/// pi's usage from Claude's token counts.
fn usage(usage: Option<&Value>) -> Value {
    let count = |key: &str| usage.and_then(|u| u.get(key)).and_then(Value::as_u64).unwrap_or(0);
    build::usage(
        count("input_tokens"),
        count("output_tokens"),
        count("cache_read_input_tokens"),
        count("cache_creation_input_tokens"),
    )
}

/// An image block from Claude's `{source: {type: base64, media_type, data}}`.
fn image(block: &Value) -> Option<Value> {
    let source = block.get("source")?;
    let data = source.get("data")?.as_str()?;
    let mime = source.get("media_type").and_then(Value::as_str).unwrap_or("image/png");
    Some(json!({ "type": "image", "data": data, "mimeType": mime }))
}

/// A pi tool call from a `tool_use` block, renamed to pi's tool where the meaning matches.
fn tool_call(block: &Value, builder: &mut Builder<'_>) -> Value {
    let id = block.get("id").and_then(Value::as_str).unwrap_or("");
    let name = block.get("name").and_then(Value::as_str).unwrap_or("");
    let input = block.get("input").cloned().unwrap_or(Value::Object(Map::new()));
    let (pi_name, arguments) = match map_tool(name, &input) {
        Some((pi_name, arguments)) => {
            builder.rename(name, pi_name);
            (pi_name.to_owned(), arguments)
        }
        None => (name.to_owned(), input),
    };
    let arguments = builder.value(&arguments);
    json!({ "type": "toolCall", "id": id, "name": pi_name, "arguments": arguments })
}

/// pi's tool and arguments for a Claude Code tool with the same meaning.
fn map_tool(name: &str, input: &Value) -> Option<(&'static str, Value)> {
    let object = input.as_object()?;
    let mut rest = object.clone();
    let mut take = |key: &str| rest.remove(key);
    let mut out = Map::new();
    let pi_name = match name {
        "Read" => {
            out.insert("path".into(), take("file_path")?);
            "read"
        }
        "Write" => {
            out.insert("path".into(), take("file_path")?);
            if let Some(content) = take("content") {
                out.insert("content".into(), content);
            }
            "write"
        }
        "Edit" => {
            out.insert("path".into(), take("file_path")?);
            let old = take("old_string").unwrap_or_else(|| "".into());
            let new = take("new_string").unwrap_or_else(|| "".into());
            out.insert("edits".into(), json!([{ "oldText": old, "newText": new }]));
            "edit"
        }
        "MultiEdit" => {
            out.insert("path".into(), take("file_path")?);
            let edits: Vec<Value> = take("edits")?
                .as_array()?
                .iter()
                .map(|edit| {
                    let mut pair = json!({
                        "oldText": edit.get("old_string").cloned().unwrap_or_else(|| "".into()),
                        "newText": edit.get("new_string").cloned().unwrap_or_else(|| "".into()),
                    });
                    if let (Some(all), Some(object)) =
                        (edit.get("replace_all"), pair.as_object_mut())
                    {
                        object.insert("replaceAll".into(), all.clone());
                    }
                    pair
                })
                .collect();
            out.insert("edits".into(), edits.into());
            "edit"
        }
        "Bash" => {
            out.insert("command".into(), take("command")?);
            // Claude Code's timeout is in milliseconds, pi's in seconds.
            if let Some(ms) = take("timeout").and_then(|t| t.as_f64()) {
                out.insert("timeout".into(), json!((ms / 1000.0).ceil() as u64));
            }
            "bash"
        }
        _ => return None,
    };
    if name == "Edit"
        && let Some(all) = rest.remove("replace_all")
        && let Some(Value::Object(pair)) = out.get_mut("edits").and_then(|e| e.get_mut(0))
    {
        pair.insert("replaceAll".into(), all);
    }
    // Arguments pi's tool has no name for (a description, background flag) stay as they were.
    for (key, item) in rest {
        out.entry(key).or_insert(item);
    }
    Some((pi_name, Value::Object(out)))
}
