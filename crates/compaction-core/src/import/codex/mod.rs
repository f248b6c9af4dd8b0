//! Codex CLI rollouts: `session_meta`, `turn_context`, `response_item`, `compacted` and
//! `event_msg` lines (`{timestamp, type, payload}`), or, in older rollouts, a first line with
//! the session id and instructions followed by the response items themselves.
//!
//! Codex records each part of a reply (reasoning, text, each tool call) as its own item; the
//! consecutive items of a reply become one assistant message, closed by the first tool output
//! or user message after it. `event_msg` lines repeat the response items for the UI and are
//! left out (counted), except `token_count`: each new count becomes the usage of the reply
//! it measured, and its `model_context_window` is the session's recorded window. A
//! `compacted` line is Codex's own compaction and becomes a `compaction` entry.
//!
//! Invariant: each tool output follows the assistant message holding its call, and its error
//! flag says what the recorded exit code (or `success: false`) says.

use std::collections::HashMap;

use serde_json::{Map, Value, json};

use super::build::{self, Builder, Header};
use super::instructions::{
    holds_instructions, instruction_file, is_injected_context, split_codex_skills,
};

mod calls;
#[cfg(test)]
pub(super) use calls::script_of;
use calls::{images_in, tool_call, tool_output};

/// What the first pass learns: the header and the window the rollout records.
#[derive(Debug, Clone, Default)]
pub(super) struct Scan {
    header: Header,
    meta: bool,
    /// The last `model_context_window` a `token_count` event (or turn context) reported.
    pub(super) context_window: Option<u64>,
}

impl Scan {
    pub(super) fn line(&mut self, value: &Value) {
        let kind = value.get("type").and_then(Value::as_str);
        let payload = value.get("payload");
        match (kind, payload) {
            (Some("session_meta"), Some(meta)) => {
                session_meta(meta, &mut self.header);
                self.meta = true;
            }
            (None, _) if value.get("id").is_some() && value.get("instructions").is_some() => {
                session_meta(value, &mut self.header);
                self.meta = true;
            }
            (Some("turn_context"), Some(context)) => {
                if self.header.cwd.is_empty()
                    && let Some(cwd) = context.get("cwd").and_then(Value::as_str)
                {
                    cwd.clone_into(&mut self.header.cwd);
                }
                if let Some(window) = window_of(context) {
                    self.context_window = Some(window);
                }
            }
            (Some("event_msg"), Some(event)) => {
                if let Some(window) = event.get("info").and_then(window_of) {
                    self.context_window = Some(window);
                }
            }
            _ => {}
        }
        if self.header.timestamp.is_empty()
            && let Some(time) = value.get("timestamp").and_then(Value::as_str)
        {
            time.clone_into(&mut self.header.timestamp);
        }
    }

    pub(super) fn header(&self) -> Header {
        let mut header = self.header.clone();
        if header.id.is_empty() {
            header.id = "imported-codex-session".into();
        }
        header
    }
}

/// A positive `model_context_window`.
fn window_of(value: &Value) -> Option<u64> {
    value.get("model_context_window").and_then(Value::as_u64).filter(|&w| w > 0)
}

/// The reply being gathered and where the conversation stands.
pub(super) struct State {
    model: String,
    provider: String,
    header_time: String,
    /// Blocks of the reply not yet written, with the time of its first item.
    reply: Vec<Value>,
    reply_time: String,
    /// Call id → pi tool name.
    calls: HashMap<String, String>,
    /// The usage of the reply being gathered (or of the next one, when Codex reported it
    /// before the reply's items).
    usage: Option<Value>,
    /// Whether the reply being gathered, or the last one written, has its usage.
    reply_has_usage: bool,
    /// The running total of the last `token_count` (a repeated count is the same total).
    last_total: Option<u64>,
    /// The last entry written.
    last: Option<String>,
}

impl State {
    pub(super) fn new() -> Self {
        State {
            model: "unknown".into(),
            provider: "openai".into(),
            header_time: String::new(),
            reply: Vec::new(),
            reply_time: String::new(),
            calls: HashMap::new(),
            usage: None,
            reply_has_usage: false,
            last_total: None,
            last: None,
        }
    }

    /// Writes the gathered reply, if any, as one assistant message.
    fn flush(&mut self, builder: &mut Builder<'_>) {
        if self.reply.is_empty() {
            return;
        }
        let blocks = std::mem::take(&mut self.reply);
        let has_calls =
            blocks.iter().any(|b| b.get("type").and_then(Value::as_str) == Some("toolCall"));
        self.reply_has_usage = self.usage.is_some();
        let message = build::assistant(
            blocks,
            "openai-responses",
            &self.provider,
            &self.model,
            self.usage.take(),
            if has_calls { "toolUse" } else { "stop" },
            &self.reply_time,
        );
        let id = builder.message(self.last.as_deref(), &self.reply_time, message);
        self.last = Some(id);
    }

    fn add_to_reply(&mut self, block: Value, timestamp: &str) {
        if self.reply.is_empty() {
            self.reply_time = timestamp.to_owned();
        }
        self.reply.push(block);
    }

    /// A `token_count` event: each new count (its running total grew) measured one model
    /// response. It belongs to the reply being gathered when that has none yet (Codex
    /// reports it after the reply's items), else to the next reply (older versions report
    /// it before).
    fn token_count(&mut self, event: &Value) {
        let Some(info) = event.get("info").filter(|i| !i.is_null()) else { return };
        let total = info.get("total_token_usage").and_then(|t| t.get("total_tokens"));
        let total = total.and_then(Value::as_u64);
        if total.is_some() && total == self.last_total {
            return;
        }
        self.last_total = total;
        let Some(usage) = info.get("last_token_usage").and_then(token_usage) else { return };
        if self.reply.is_empty() || self.usage.is_none() {
            self.usage = Some(usage);
        }
    }

    /// Converts one line.
    pub(super) fn line(&mut self, value: &Value, builder: &mut Builder<'_>) {
        let line_time = value.get("timestamp").and_then(Value::as_str).unwrap_or("");
        if self.header_time.is_empty() && !line_time.is_empty() {
            line_time.clone_into(&mut self.header_time);
        }
        let timestamp =
            if line_time.is_empty() { self.header_time.clone() } else { line_time.to_owned() };
        let kind = value.get("type").and_then(Value::as_str);
        let payload = value.get("payload");
        match (kind, payload) {
            (Some("session_meta"), Some(meta)) => self.meta(meta),
            (Some("turn_context"), Some(context)) => {
                if let Some(model) = context.get("model").and_then(Value::as_str) {
                    model.clone_into(&mut self.model);
                }
            }
            (Some("response_item"), Some(item)) => {
                response_item(item, &timestamp, self, builder);
            }
            (Some("compacted"), Some(compacted)) => {
                // Codex's own compaction: its summary replaces what came before. The
                // replacement history (the items Codex kept: the user's messages, the
                // summary) repeats what the session holds already.
                self.flush(builder);
                let text = compacted.get("message").and_then(Value::as_str).unwrap_or("");
                let id = builder.compaction(self.last.as_deref(), &timestamp, text, 0, "codex");
                let history = compacted
                    .get("replacement_history")
                    .and_then(Value::as_array)
                    .map_or(0, Vec::len);
                builder.drop_n("Codex `compacted` replacement_history item", history);
                self.last = Some(id);
            }
            (Some("event_msg"), payload) => {
                let event = payload.and_then(|p| p.get("type")).and_then(Value::as_str);
                match (event, payload) {
                    (Some("token_count"), Some(payload)) => self.token_count(payload),
                    _ => {
                        let event = event.unwrap_or("untyped");
                        builder.drop(format!("`event_msg` line ({event}; repeats the items)"));
                    }
                }
            }
            (None, _) if value.get("record_type").is_some() => builder.drop("`record_type` line"),
            (None, _) if value.get("id").is_some() && value.get("instructions").is_some() => {
                self.meta(value);
            }
            // Older rollouts: the line is the response item itself.
            (Some(_), None) => response_item(value, &timestamp, self, builder),
            (Some(other), Some(_)) => builder.drop(format!("`{other}` line")),
            (None, _) => builder.drop("untyped line"),
        }
    }

    pub(super) fn finish(&mut self, builder: &mut Builder<'_>) {
        self.flush(builder);
    }

    fn meta(&mut self, meta: &Value) {
        if let Some(provider) = meta.get("model_provider").and_then(Value::as_str) {
            provider.clone_into(&mut self.provider);
        }
    }
}

/// pi's usage from Codex's `last_token_usage`: cached input is pi's `cacheRead`, the rest
/// of the input is `input`.
fn token_usage(last: &Value) -> Option<Value> {
    let count = |key: &str| last.get(key).map_or(0, crate::message::count_of);
    if last.as_object().is_none_or(serde_json::Map::is_empty) {
        return None;
    }
    let cached = count("cached_input_tokens");
    let input = count("input_tokens").saturating_sub(cached);
    Some(build::usage(input, count("output_tokens"), cached, 0))
}

fn session_meta(meta: &Value, header: &mut Header) {
    let text = |key: &str| meta.get(key).and_then(Value::as_str).map(str::to_owned);
    if let Some(id) = text("id") {
        header.id = id;
    }
    if let Some(timestamp) = text("timestamp") {
        header.timestamp = timestamp;
    }
    if let Some(cwd) = text("cwd").filter(|cwd| !cwd.is_empty()) {
        header.cwd = cwd;
    }
}

fn response_item(item: &Value, timestamp: &str, state: &mut State, builder: &mut Builder<'_>) {
    let kind = item.get("type").and_then(Value::as_str).unwrap_or("");
    match kind {
        "message" => message(item, timestamp, state, builder),
        "reasoning" => {
            let mut texts = Vec::new();
            for key in ["summary", "content"] {
                for part in
                    item.get(key).and_then(Value::as_array).map(Vec::as_slice).unwrap_or(&[])
                {
                    match part.get("text").and_then(Value::as_str) {
                        Some(text) => texts.push(text.to_owned()),
                        None if !part.is_null() => {
                            builder.drop("Codex reasoning part without text")
                        }
                        None => {}
                    }
                }
            }
            if !texts.is_empty() {
                let thinking = builder.text(&texts.join("\n\n"));
                state.add_to_reply(json!({ "type": "thinking", "thinking": thinking }), timestamp);
            }
            if item.get("encrypted_content").is_some_and(|c| !c.is_null()) {
                builder.drop("encrypted reasoning");
            }
        }
        "function_call" | "custom_tool_call" | "local_shell_call" => {
            let call_id = item
                .get("call_id")
                .or_else(|| item.get("id"))
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_owned();
            let (name, arguments) = tool_call(kind, item, builder);
            let arguments = builder.value(&arguments);
            state.calls.insert(call_id.clone(), name.clone());
            state.add_to_reply(
                json!({ "type": "toolCall", "id": call_id, "name": name, "arguments": arguments }),
                timestamp,
            );
        }
        "function_call_output" | "custom_tool_call_output" => {
            state.flush(builder);
            let call_id = item.get("call_id").and_then(Value::as_str).unwrap_or("");
            let name = state.calls.get(call_id).cloned().unwrap_or_else(|| "unknown".into());
            let output = tool_output(item.get("output"), builder);
            let text = builder.text(&output.text);
            let details = output.exit_code.map(|code| json!({ "exitCode": code }));
            let mut content = vec![build::text_block(text)];
            let unread = images_in(item.get("output")).saturating_sub(output.images.len());
            builder.drop_n("image in a Codex tool output without base64 data", unread);
            content.extend(output.images.into_iter().map(|image| builder.image(image)));
            let message =
                build::tool_result(call_id, &name, content, output.is_error, details, timestamp);
            state.last = Some(builder.message(state.last.as_deref(), timestamp, message));
        }
        other => {
            builder.drop(format!("`{}` item", if other.is_empty() { "untyped" } else { other }))
        }
    }
}

fn message(item: &Value, timestamp: &str, state: &mut State, builder: &mut Builder<'_>) {
    let role = item.get("role").and_then(Value::as_str).unwrap_or("");
    let mut texts = Vec::new();
    let mut images = Vec::new();
    for part in item.get("content").and_then(Value::as_array).map(Vec::as_slice).unwrap_or(&[]) {
        if let Some(text) = part.get("text").and_then(Value::as_str) {
            texts.push(text.to_owned());
        } else if let Some(image) = image(part) {
            images.push(builder.image(image));
        } else {
            builder.drop("message part without text or image data");
        }
    }
    if role == "assistant" {
        for text in texts {
            let text = builder.text(&text);
            state.add_to_reply(build::text_block(text), timestamp);
        }
        return;
    }
    state.flush(builder);
    let joined = texts.join("\n");
    let id = match role {
        "user" if is_injected_context(&joined) => {
            injected(&joined, images, timestamp, state, builder)
        }
        "user" => {
            let mut blocks: Vec<Value> =
                texts.iter().map(|text| build::text_block(builder.text(text))).collect();
            blocks.extend(images);
            builder.message(state.last.as_deref(), timestamp, build::user(blocks, timestamp))
        }
        _ => {
            // Developer and system instructions: kept as data, outside the context.
            builder.drop_n("image in a Codex developer or system message", images.len());
            let text = builder.text(&joined);
            let mut fields = Map::new();
            fields.insert("customType".into(), "imported-instructions".into());
            fields.insert("data".into(), json!({ "role": role, "text": text }));
            builder.push("custom", state.last.as_deref(), timestamp, fields)
        }
    };
    state.last = Some(id);
}

/// Context Codex put in a user-role message (AGENTS.md, the environment): an
/// `imported-instructions` custom message. An AGENTS.md block names its file in
/// `details.instructionFile`; Codex's own skills section inside it (not the project's
/// instructions) is a custom message of its own after it, without the mark.
fn injected(
    joined: &str,
    images: Vec<Value>,
    timestamp: &str,
    state: &mut State,
    builder: &mut Builder<'_>,
) -> String {
    let file = instruction_file(joined);
    let split = file.as_ref().and_then(|_| split_codex_skills(joined));
    let (project, skills, file) = match split {
        Some((project, skills)) if holds_instructions(&project) => (project, Some(skills), file),
        // Only Codex's own section: no project file in it.
        Some(_) => (joined.to_owned(), None, None),
        None => (joined.to_owned(), None, file),
    };
    let details = file.map(|file| {
        let mut details = Map::new();
        details.insert(crate::message::INSTRUCTION_FILE_DETAIL.into(), builder.text(&file).into());
        Value::Object(details)
    });
    let mut blocks = vec![build::text_block(builder.text(&project))];
    blocks.extend(images);
    let mut id = builder.custom_message_with(
        state.last.as_deref(),
        timestamp,
        "imported-instructions",
        blocks,
        details,
    );
    if let Some(skills) = skills {
        let blocks = vec![build::text_block(builder.text(&skills))];
        id = builder.custom_message(Some(&id), timestamp, "imported-instructions", blocks);
    }
    id
}

/// An image part (`input_image` with a `data:` URL).
fn image(part: &Value) -> Option<Value> {
    let url = part.get("image_url")?.as_str()?;
    let rest = url.strip_prefix("data:")?;
    let (mime, data) = rest.split_once(";base64,")?;
    Some(json!({ "type": "image", "data": data, "mimeType": mime }))
}
