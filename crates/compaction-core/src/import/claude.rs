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

use std::collections::HashMap;

use serde_json::{Map, Value, json};

use super::Line;
use super::build::{self, Builder, Header};

/// Where lines of the transcript went.
#[derive(Default)]
struct State {
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
}

impl State {
    /// The entry a line hangs from.
    fn parent(&self, value: &Value) -> Option<String> {
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
}

/// Converts the lines; returns the session header.
pub(super) fn convert(lines: &[Line], builder: &mut Builder<'_>) -> Header {
    let mut header = Header::default();
    let mut state = State::default();
    // A sub-agent's own transcript (`agent-*.jsonl`) is all side chain: keep it then.
    let is_message = |line: &&Line| {
        matches!(line.value.get("type").and_then(Value::as_str), Some("user" | "assistant"))
    };
    let only_side_chain = lines
        .iter()
        .filter(is_message)
        .all(|line| line.value.get("isSidechain").and_then(Value::as_bool) == Some(true));
    for line in lines {
        let value = &line.value;
        if header.id.is_empty()
            && let Some(session) = value.get("sessionId").and_then(Value::as_str)
        {
            header.id = session.to_owned();
        }
        if header.cwd.is_empty()
            && let Some(cwd) = value.get("cwd").and_then(Value::as_str)
        {
            header.cwd = cwd.to_owned();
        }
        let timestamp = value.get("timestamp").and_then(Value::as_str).unwrap_or("");
        if header.timestamp.is_empty() && !timestamp.is_empty() {
            header.timestamp = timestamp.to_owned();
        }
        let kind = value.get("type").and_then(Value::as_str).unwrap_or("");
        if !only_side_chain && value.get("isSidechain").and_then(Value::as_bool) == Some(true) {
            builder.drop("side-chain (sub-agent) line");
            let parent = state.parent(value);
            state.record(value, parent);
            continue;
        }
        match kind {
            "user" => user_line(value, timestamp, &mut state, builder),
            "assistant" => assistant_line(value, timestamp, &mut state, builder),
            other => {
                builder
                    .drop(format!("`{}` line", if other.is_empty() { "untyped" } else { other }));
                let parent = state.parent(value);
                state.record(value, parent);
            }
        }
    }
    if header.id.is_empty() {
        header.id = "imported-claude-code-session".into();
    }
    header
}

fn user_line(value: &Value, timestamp: &str, state: &mut State, builder: &mut Builder<'_>) {
    let parent = state.parent(value);
    let content = value.get("message").and_then(|m| m.get("content"));
    let not_the_users_words = value.get("isMeta").and_then(Value::as_bool) == Some(true)
        || value.get("isCompactSummary").and_then(Value::as_bool) == Some(true);
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
                Some(image) => blocks.push(builder.image(image)),
                None => builder.drop("image without base64 data"),
            },
            Some(other) => builder.drop(format!("user `{other}` block")),
            None => builder.drop("user block without a type"),
        }
    }
    if !blocks.is_empty() {
        let id = if not_the_users_words {
            let kind = if value.get("isCompactSummary").and_then(Value::as_bool) == Some(true) {
                "imported-compaction-summary"
            } else {
                "imported-meta"
            };
            builder.custom_message(last.as_deref(), timestamp, kind, &text_only)
        } else {
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
                Some(image) => content.push(builder.image(image)),
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
