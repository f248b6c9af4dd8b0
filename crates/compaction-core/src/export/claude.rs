//! A Claude Code session file: one JSON object per line, chained by `uuid` / `parentUuid`.
//!
//! The summary comes as Claude Code writes its own compaction: a `system` line of subtype
//! `compact_boundary` with no parent (where Claude Code starts the conversation it loads),
//! then a user line marked `isCompactSummary`. Each assistant reply is one line; the results
//! of one reply's calls go together in the user line after it, as the Messages API wants.
//! pi's `read`, `write`, `edit` and `bash` become `Read`, `Write`, `Edit` / `MultiEdit` and
//! `Bash` with Claude Code's argument names (its `timeout` is in milliseconds).

use serde_json::{Map, Value, json};

use super::ExportOptions;
use super::conversation::{CLAUDE_CODE_SUMMARY_PREFACE, Conversation, Item, Part, Reply};

pub(super) fn lines(conversation: &Conversation<'_>, options: &ExportOptions) -> Vec<Value> {
    let mut writer = Writer { options, lines: Vec::new(), parent: None };
    if let Some(summary) = &conversation.summary {
        writer.push(json!({
            "logicalParentUuid": null,
            "type": "system",
            "subtype": "compact_boundary",
            "content": "Conversation compacted",
            "isMeta": false,
            "level": "info",
            "compactMetadata": { "trigger": "manual", "preTokens": 0 },
        }));
        writer.push(json!({
            "type": "user",
            "message": {
                "role": "user",
                "content": format!("{CLAUDE_CODE_SUMMARY_PREFACE}\n\n{summary}"),
            },
            "isVisibleInTranscriptOnly": true,
            "isCompactSummary": true,
        }));
    }
    let mut results: Vec<Value> = Vec::new();
    let mut replies = 0usize;
    for item in &conversation.items {
        if !matches!(item, Item::ToolResult { .. }) && !results.is_empty() {
            writer.user(Value::Array(std::mem::take(&mut results)));
        }
        match item {
            Item::User(parts) => {
                let content = match parts.as_slice() {
                    [Part::Text(text)] => Value::String(text.clone()),
                    _ => Value::Array(parts.iter().map(part).collect()),
                };
                writer.user(content);
            }
            Item::Assistant { parts, model } => {
                replies += 1;
                let has_calls = parts.iter().any(|p| matches!(p, Reply::Call { .. }));
                let content: Vec<Value> = parts.iter().map(reply_part).collect();
                let model = model.as_deref().or(conversation.model.as_deref()).unwrap_or("unknown");
                writer.push(json!({
                    "type": "assistant",
                    "message": {
                        "id": format!("msg_export_{replies:06}"),
                        "type": "message",
                        "role": "assistant",
                        "model": model,
                        "content": content,
                        "stop_reason": if has_calls { "tool_use" } else { "end_turn" },
                        "stop_sequence": null,
                        "usage": { "input_tokens": 0, "output_tokens": 0 },
                    },
                }));
            }
            Item::ToolResult { call_id, parts, is_error } => {
                let content = match parts.as_slice() {
                    [Part::Text(text)] => Value::String(text.clone()),
                    _ => Value::Array(parts.iter().map(part).collect()),
                };
                results.push(json!({
                    "type": "tool_result",
                    "tool_use_id": call_id,
                    "content": content,
                    "is_error": is_error,
                }));
            }
        }
    }
    if !results.is_empty() {
        writer.user(Value::Array(results));
    }
    writer.lines
}

struct Writer<'a> {
    options: &'a ExportOptions,
    lines: Vec<Value>,
    parent: Option<String>,
}

impl Writer<'_> {
    /// The id of line `n`: the session id's first four groups, then `n` in the last group,
    /// so ids are unique in the file and the same input gives the same bytes.
    fn uuid(&self, n: usize) -> String {
        format!("{}{:012x}", &self.options.session_id[..24], n + 1)
    }

    fn user(&mut self, content: Value) {
        self.push(json!({ "type": "user", "message": { "role": "user", "content": content } }));
    }

    /// Appends a line: the fields every line has, then the line's own.
    fn push(&mut self, line: Value) {
        let uuid = self.uuid(self.lines.len());
        let mut out = Map::new();
        out.insert("parentUuid".into(), self.parent.clone().map_or(Value::Null, Value::String));
        out.insert("isSidechain".into(), false.into());
        if let Value::Object(fields) = line {
            out.extend(fields);
        }
        out.insert("uuid".into(), uuid.clone().into());
        out.insert("timestamp".into(), self.options.timestamp.clone().into());
        out.insert("userType".into(), "external".into());
        out.insert("cwd".into(), self.options.cwd.clone().into());
        out.insert("sessionId".into(), self.options.session_id.clone().into());
        self.lines.push(Value::Object(out));
        self.parent = Some(uuid);
    }
}

fn part(part: &Part) -> Value {
    match part {
        Part::Text(text) => json!({ "type": "text", "text": text }),
        Part::Image { data, mime_type } => json!({
            "type": "image",
            "source": { "type": "base64", "media_type": mime_type, "data": data },
        }),
    }
}

fn reply_part(part: &Reply) -> Value {
    match part {
        Reply::Text(text) => json!({ "type": "text", "text": text }),
        Reply::Thinking { text, signature } => {
            json!({ "type": "thinking", "thinking": text, "signature": signature })
        }
        Reply::RedactedThinking { data } => json!({ "type": "redacted_thinking", "data": data }),
        Reply::Call { id, name, arguments } => {
            let (name, input) =
                claude_tool(name, arguments).unwrap_or_else(|| (name.clone(), arguments.clone()));
            json!({ "type": "tool_use", "id": id, "name": name, "input": input })
        }
    }
}

/// Claude Code's tool and input for a pi tool with the same meaning (`None`: keep pi's). A
/// key is taken only when its value is written under Claude Code's name, and no name is
/// written that the arguments already hold; otherwise pi's tool is kept as it is, so no
/// argument is lost.
fn claude_tool(name: &str, arguments: &Value) -> Option<(String, Value)> {
    let mut rest = arguments.as_object()?.clone();
    let mut out = Map::new();
    let claude = match name {
        "read" | "write" => {
            out.insert("file_path".into(), rest.remove("path")?);
            if name == "read" { "Read" } else { "Write" }
        }
        "edit" => {
            let path = rest.remove("path")?;
            let pair = |edit: &Value| -> Option<Value> {
                let mut pair = Map::new();
                pair.insert("old_string".into(), edit.get("oldText")?.clone());
                pair.insert("new_string".into(), edit.get("newText")?.clone());
                if let Some(all) = edit.get("replaceAll") {
                    pair.insert("replace_all".into(), all.clone());
                }
                // A key of an edit Claude Code has no name for: keep pi's form.
                let known = ["oldText", "newText", "replaceAll"];
                if edit.as_object()?.keys().any(|key| !known.contains(&key.as_str())) {
                    return None;
                }
                Some(Value::Object(pair))
            };
            let edits: Vec<Value> = match rest.remove("edits") {
                Some(Value::Array(edits)) => edits.iter().map(pair).collect::<Option<_>>()?,
                // `edits` of another form: keep pi's.
                Some(_) => return None,
                // pi's older form: one edit in the arguments themselves.
                None => {
                    let mut single = Map::new();
                    for key in ["oldText", "newText", "replaceAll"] {
                        if let Some(value) = rest.remove(key) {
                            single.insert(key.to_owned(), value);
                        }
                    }
                    vec![pair(&Value::Object(single))?]
                }
            };
            out.insert("file_path".into(), path);
            match <[Value; 1]>::try_from(edits) {
                Ok([Value::Object(single)]) => {
                    out.extend(single);
                    "Edit"
                }
                Ok([_]) => return None,
                Err(edits) => {
                    out.insert("edits".into(), edits.into());
                    "MultiEdit"
                }
            }
        }
        "bash" => {
            out.insert("command".into(), rest.remove("command")?);
            // pi's timeout is in seconds, Claude Code's in milliseconds; one that is no
            // count of seconds stays as it was.
            if let Some(millis) = rest.get("timeout").and_then(super::millis) {
                rest.remove("timeout");
                out.insert("timeout".into(), millis.into());
            }
            "Bash"
        }
        _ => return None,
    };
    // Arguments Claude Code's tool has no name for stay as they were, unless a name written
    // above would hide one.
    if rest.keys().any(|key| out.contains_key(key)) {
        return None;
    }
    out.extend(rest);
    Some((claude.to_owned(), Value::Object(out)))
}
