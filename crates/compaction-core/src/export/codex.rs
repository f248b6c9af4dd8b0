//! A Codex CLI rollout: a `session_meta` line, then `compacted` and `response_item` lines.
//!
//! The summary comes as Codex records its own compaction: a `compacted` line whose
//! `message` is the summary and whose `replacement_history` (the history Codex resumes from)
//! is the summary as a user message, with the prefix Codex puts before its own summaries.
//! The kept messages follow as response items: `message` (user `input_text` /
//! `input_image`, assistant `output_text`), `function_call` with its arguments as a JSON
//! string, `function_call_output`. pi's `bash` becomes Codex's `shell` (`command` as an
//! argument vector, `timeout_ms`); every other tool keeps its name and arguments.

use serde_json::{Map, Value, json};

use super::ExportOptions;
use super::conversation::{CODEX_SUMMARY_PREFIX, Conversation, Item, Part, Reply};

pub(super) fn lines(conversation: &Conversation<'_>, options: &ExportOptions) -> Vec<Value> {
    let line = |kind: &str, payload: Value| json!({ "timestamp": options.timestamp, "type": kind, "payload": payload });
    let mut lines = vec![line(
        "session_meta",
        json!({
            "id": options.session_id,
            "timestamp": options.timestamp,
            "cwd": options.cwd,
            "originator": "compaction",
            "cli_version": env!("CARGO_PKG_VERSION"),
            "source": "cli",
        }),
    )];
    if let Some(summary) = &conversation.summary {
        let text = format!("{CODEX_SUMMARY_PREFIX}\n{summary}");
        lines.push(line(
            "compacted",
            json!({
                "message": summary,
                "replacement_history": [message("user", vec![json!({ "type": "input_text", "text": text })])],
            }),
        ));
    }
    for item in &conversation.items {
        match item {
            Item::User(parts) => {
                let content = parts
                    .iter()
                    .map(|part| match part {
                        Part::Text(text) => json!({ "type": "input_text", "text": text }),
                        Part::Image { data, mime_type } => json!({
                            "type": "input_image",
                            "image_url": format!("data:{mime_type};base64,{data}"),
                        }),
                    })
                    .collect();
                lines.push(line("response_item", message("user", content)));
            }
            Item::Assistant { parts, .. } => {
                let mut texts = Vec::new();
                for part in parts {
                    match part {
                        Reply::Text(text) => {
                            texts.push(json!({ "type": "output_text", "text": text }));
                        }
                        // Left out (and counted) when the conversation was built.
                        Reply::Thinking { .. } | Reply::RedactedThinking { .. } => {}
                        Reply::Call { id, name, arguments } => {
                            if !texts.is_empty() {
                                let content = std::mem::take(&mut texts);
                                lines.push(line("response_item", message("assistant", content)));
                            }
                            let (name, arguments) = codex_tool(name, arguments)
                                .unwrap_or_else(|| (name.clone(), arguments.clone()));
                            lines.push(line(
                                "response_item",
                                json!({
                                    "type": "function_call",
                                    "name": name,
                                    "arguments": arguments.to_string(),
                                    "call_id": id,
                                }),
                            ));
                        }
                    }
                }
                if !texts.is_empty() {
                    lines.push(line("response_item", message("assistant", texts)));
                }
            }
            Item::ToolResult { call_id, parts, is_error } => {
                let mut output = String::new();
                for part in parts {
                    if !output.is_empty() {
                        output.push('\n');
                    }
                    match part {
                        Part::Text(text) => output.push_str(text),
                        Part::Image { .. } => output.push_str("[image omitted]"),
                    }
                }
                if *is_error && !output.starts_with("Error") {
                    output.insert_str(0, "Error: ");
                }
                lines.push(line(
                    "response_item",
                    json!({ "type": "function_call_output", "call_id": call_id, "output": output }),
                ));
            }
        }
    }
    lines
}

fn message(role: &str, content: Vec<Value>) -> Value {
    json!({ "type": "message", "role": role, "content": content })
}

/// Codex's tool and arguments for a pi tool with the same meaning (`None`: keep pi's).
fn codex_tool(name: &str, arguments: &Value) -> Option<(String, Value)> {
    if name != "bash" {
        return None;
    }
    let mut rest = arguments.as_object()?.clone();
    let command = rest.remove("command")?;
    let mut out = Map::new();
    out.insert("command".into(), json!(["bash", "-lc", command]));
    // pi's timeout is in seconds, Codex's in milliseconds; one that is no count of seconds
    // stays as it was.
    if let Some(millis) = rest.get("timeout").and_then(super::millis) {
        rest.remove("timeout");
        out.insert("timeout_ms".into(), millis.into());
    }
    // Other arguments stay as they were, unless a name written above would hide one (then
    // pi's tool is kept as it is, so no argument is lost).
    if rest.keys().any(|key| out.contains_key(key)) {
        return None;
    }
    out.extend(rest);
    Some(("shell".to_owned(), Value::Object(out)))
}
