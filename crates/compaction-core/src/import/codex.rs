//! Codex CLI rollouts: `session_meta`, `turn_context`, `response_item`, `compacted` and
//! `event_msg` lines (`{timestamp, type, payload}`), or, in older rollouts, a first line with
//! the session id and instructions followed by the response items themselves.
//!
//! Codex records each part of a reply (reasoning, text, each tool call) as its own item; the
//! consecutive items of a reply become one assistant message, closed by the first tool output
//! or user message after it. `event_msg` lines repeat the response items for the UI and are
//! left out, except that a `token_count` reported while a reply is gathered becomes its usage.
//!
//! Invariant: each tool output follows the assistant message holding its call, and its error
//! flag says what the recorded exit code (or `success: false`) says.

use std::collections::HashMap;

use serde_json::{Map, Value, json};

use super::Line;
use super::build::{self, Builder, Header};

/// The reply being gathered and where the conversation stands.
struct State {
    model: String,
    provider: String,
    /// Blocks of the reply not yet written, with the time of its first item.
    reply: Vec<Value>,
    reply_time: String,
    /// Call id → pi tool name.
    calls: HashMap<String, String>,
    /// The token usage Codex reported for the reply being gathered.
    usage: Option<Value>,
    /// The last entry written.
    last: Option<String>,
}

impl State {
    /// Writes the gathered reply, if any, as one assistant message.
    fn flush(&mut self, builder: &mut Builder<'_>) {
        if self.reply.is_empty() {
            return;
        }
        let blocks = std::mem::take(&mut self.reply);
        let has_calls =
            blocks.iter().any(|b| b.get("type").and_then(Value::as_str) == Some("toolCall"));
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
}

/// Converts the lines; returns the session header.
pub(super) fn convert(lines: &[Line], builder: &mut Builder<'_>) -> Header {
    let mut header = Header::default();
    let mut state = State {
        model: "unknown".into(),
        provider: "openai".into(),
        reply: Vec::new(),
        reply_time: String::new(),
        calls: HashMap::new(),
        usage: None,
        last: None,
    };
    for line in lines {
        let value = &line.value;
        let line_time = value.get("timestamp").and_then(Value::as_str).unwrap_or("");
        let timestamp =
            if line_time.is_empty() { header.timestamp.clone() } else { line_time.to_owned() };
        let kind = value.get("type").and_then(Value::as_str);
        let payload = value.get("payload");
        match (kind, payload) {
            (Some("session_meta"), Some(meta)) => session_meta(meta, &mut header, &mut state),
            (Some("turn_context"), Some(context)) => {
                if let Some(model) = context.get("model").and_then(Value::as_str) {
                    model.clone_into(&mut state.model);
                }
                if header.cwd.is_empty()
                    && let Some(cwd) = context.get("cwd").and_then(Value::as_str)
                {
                    cwd.clone_into(&mut header.cwd);
                }
            }
            (Some("response_item"), Some(item)) => {
                response_item(item, &timestamp, &mut state, builder);
            }
            (Some("compacted"), Some(compacted)) => {
                state.flush(builder);
                let text = compacted.get("message").and_then(Value::as_str).unwrap_or("");
                let id = builder.custom_message(
                    state.last.as_deref(),
                    &timestamp,
                    "imported-compaction-summary",
                    text,
                );
                state.last = Some(id);
            }
            (Some("event_msg"), payload) => {
                // A token count reported while a reply is gathered is that reply's usage.
                if let Some(usage) = payload.and_then(token_usage)
                    && !state.reply.is_empty()
                {
                    state.usage = Some(usage);
                }
                builder.drop("`event_msg` line (repeats the items)");
            }
            (None, _) if value.get("record_type").is_some() => builder.drop("`record_type` line"),
            (None, _) if value.get("id").is_some() && value.get("instructions").is_some() => {
                session_meta(value, &mut header, &mut state);
            }
            // Older rollouts: the line is the response item itself.
            (Some(_), None) => response_item(value, &timestamp, &mut state, builder),
            (Some(other), Some(_)) => builder.drop(format!("`{other}` line")),
            (None, _) => builder.drop("untyped line"),
        }
        if header.timestamp.is_empty() && !line_time.is_empty() {
            header.timestamp = line_time.to_owned();
        }
    }
    state.flush(builder);
    if header.id.is_empty() {
        header.id = "imported-codex-session".into();
    }
    header
}

/// pi's usage from an `event_msg` `token_count` (`info.last_token_usage`): cached input is
/// pi's `cacheRead`, the rest of the input is `input`.
fn token_usage(payload: &Value) -> Option<Value> {
    if payload.get("type").and_then(Value::as_str) != Some("token_count") {
        return None;
    }
    let last = payload.get("info")?.get("last_token_usage")?;
    let count = |key: &str| last.get(key).and_then(Value::as_u64).unwrap_or(0);
    let cached = count("cached_input_tokens");
    let input = count("input_tokens").saturating_sub(cached);
    Some(build::usage(input, count("output_tokens"), cached, 0))
}

fn session_meta(meta: &Value, header: &mut Header, state: &mut State) {
    let text = |key: &str| meta.get(key).and_then(Value::as_str).map(str::to_owned);
    if let Some(id) = text("id") {
        header.id = id;
    }
    if let Some(timestamp) = text("timestamp") {
        header.timestamp = timestamp;
    }
    if let Some(cwd) = text("cwd") {
        header.cwd = cwd;
    }
    if let Some(provider) = text("model_provider") {
        state.provider = provider;
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
                    if let Some(text) = part.get("text").and_then(Value::as_str) {
                        texts.push(text.to_owned());
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
            let output = tool_output(item.get("output"));
            let text = builder.text(&output.text);
            let details = output.exit_code.map(|code| json!({ "exitCode": code }));
            let message = build::tool_result(
                call_id,
                &name,
                vec![build::text_block(text)],
                output.is_error,
                details,
                timestamp,
            );
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
        "user" if is_injected_context(&joined) => builder.custom_message(
            state.last.as_deref(),
            timestamp,
            "imported-instructions",
            &joined,
        ),
        "user" => {
            let mut blocks: Vec<Value> =
                texts.iter().map(|text| build::text_block(builder.text(text))).collect();
            blocks.extend(images);
            builder.message(state.last.as_deref(), timestamp, build::user(blocks, timestamp))
        }
        _ => {
            // Developer and system instructions: kept as data, outside the context.
            let text = builder.text(&joined);
            let mut fields = Map::new();
            fields.insert("customType".into(), "imported-instructions".into());
            fields.insert("data".into(), json!({ "role": role, "text": text }));
            builder.push("custom", state.last.as_deref(), timestamp, fields)
        }
    };
    state.last = Some(id);
}

/// Whether a user-role text is context Codex injected rather than the user's words.
fn is_injected_context(text: &str) -> bool {
    let text = text.trim_start();
    ["<environment_context>", "<user_instructions>", "# AGENTS.md instructions", "<INSTRUCTIONS>"]
        .iter()
        .any(|prefix| text.starts_with(prefix))
}

/// An image part (`input_image` with a `data:` URL).
fn image(part: &Value) -> Option<Value> {
    let url = part.get("image_url")?.as_str()?;
    let rest = url.strip_prefix("data:")?;
    let (mime, data) = rest.split_once(";base64,")?;
    Some(json!({ "type": "image", "data": data, "mimeType": mime }))
}

/// pi's tool name and arguments for a Codex call.
fn tool_call(kind: &str, item: &Value, builder: &mut Builder<'_>) -> (String, Value) {
    let name = item.get("name").and_then(Value::as_str).unwrap_or("");
    let arguments = match kind {
        "custom_tool_call" => {
            json!({ "input": item.get("input").cloned().unwrap_or(Value::String(String::new())) })
        }
        "local_shell_call" => {
            let action = item.get("action").cloned().unwrap_or(Value::Null);
            let mut arguments = Map::new();
            if let Some(command) = action.get("command") {
                arguments.insert("command".into(), command.clone());
            }
            if let Some(dir) = action.get("working_directory") {
                arguments.insert("workdir".into(), dir.clone());
            }
            if let Some(timeout) = action.get("timeout_ms") {
                arguments.insert("timeout_ms".into(), timeout.clone());
            }
            return shell("local_shell_call", arguments, builder);
        }
        _ => match item.get("arguments") {
            Some(Value::String(text)) => {
                serde_json::from_str(text).unwrap_or_else(|_| json!({ "arguments": text }))
            }
            Some(other) => other.clone(),
            None => Value::Object(Map::new()),
        },
    };
    match (name, arguments) {
        (
            "shell" | "container.exec" | "shell_command" | "exec_command",
            Value::Object(arguments),
        ) => shell(name, arguments, builder),
        (_, arguments) => (name.to_owned(), arguments),
    }
}

/// A Codex shell call as pi's `bash` (or `apply_patch` when the command is a patch).
fn shell(
    name: &str,
    mut arguments: Map<String, Value>,
    builder: &mut Builder<'_>,
) -> (String, Value) {
    let command = arguments.remove("command").or_else(|| arguments.remove("cmd"));
    let script = match &command {
        Some(Value::String(script)) => Some(script.clone()),
        Some(Value::Array(argv)) => {
            let argv: Vec<&str> = argv.iter().filter_map(Value::as_str).collect();
            if let [tool, patch] = argv.as_slice()
                && matches!(*tool, "apply_patch" | "applypatch")
            {
                let mut out = Map::new();
                out.insert("input".into(), (*patch).into());
                out.extend(arguments);
                builder.rename(name, "apply_patch");
                return ("apply_patch".into(), Value::Object(out));
            }
            Some(script_of(&argv))
        }
        Some(_) | None => None,
    };
    let Some(script) = script else {
        if let Some(command) = command {
            arguments.insert("command".into(), command);
        }
        return (name.to_owned(), Value::Object(arguments));
    };
    let mut out = Map::new();
    out.insert("command".into(), script.into());
    out.extend(arguments);
    builder.rename(name, "bash");
    ("bash".into(), Value::Object(out))
}

/// The command line of an argv: the script of `bash -lc SCRIPT` (and sh, zsh, PowerShell
/// `-Command`), else the words joined with shell quoting.
fn script_of(argv: &[&str]) -> String {
    if let [shell, flag, script] = argv {
        let shell = shell.rsplit(['/', '\\']).next().unwrap_or(shell).to_ascii_lowercase();
        let shell = shell.trim_end_matches(".exe");
        let posix =
            matches!(shell, "bash" | "sh" | "zsh" | "dash") && matches!(*flag, "-lc" | "-c");
        let powershell =
            matches!(shell, "powershell" | "pwsh") && flag.eq_ignore_ascii_case("-command");
        if posix || powershell {
            return (*script).to_owned();
        }
    }
    argv.iter().map(|word| quote(word)).collect::<Vec<_>>().join(" ")
}

fn quote(word: &str) -> String {
    let plain = !word.is_empty()
        && word.chars().all(|c| c.is_ascii_alphanumeric() || "-_./=:,+@%".contains(c));
    if plain { word.to_owned() } else { format!("'{}'", word.replace('\'', r"'\''")) }
}

/// What a tool output says.
struct Output {
    text: String,
    exit_code: Option<i64>,
    is_error: bool,
}

/// Reads a `function_call_output` / `custom_tool_call_output`: a JSON string
/// `{output, metadata: {exit_code}}`, plain text that may start with `Exit code: N` or hold
/// `Process exited with code N`, or an object `{content, success}`.
fn tool_output(output: Option<&Value>) -> Output {
    if let Some(object) = output.and_then(Value::as_object) {
        let text = match object.get("content") {
            Some(Value::String(text)) => text.clone(),
            Some(Value::Array(parts)) => parts
                .iter()
                .filter_map(|p| p.get("text").and_then(Value::as_str))
                .collect::<Vec<_>>()
                .join("\n"),
            Some(other) => other.to_string(),
            None => Value::Object(object.clone()).to_string(),
        };
        let failed = object.get("success").and_then(Value::as_bool) == Some(false);
        let mut out = from_text(text);
        out.is_error |= failed;
        return out;
    }
    if let Some(parts) = output.and_then(Value::as_array) {
        let text = parts
            .iter()
            .filter_map(|p| p.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join("\n");
        return from_text(text);
    }
    let text = output.and_then(Value::as_str).unwrap_or("").to_owned();
    if let Ok(Value::Object(object)) = serde_json::from_str::<Value>(&text)
        && let Some(inner) = object.get("output").and_then(Value::as_str)
    {
        let exit_code =
            object.get("metadata").and_then(|m| m.get("exit_code")).and_then(Value::as_i64);
        return Output {
            text: inner.to_owned(),
            exit_code,
            is_error: exit_code.is_some_and(|code| code != 0),
        };
    }
    from_text(text)
}

fn from_text(text: String) -> Output {
    let exit_code = text.lines().take(6).find_map(|line| {
        let line = line.trim();
        line.strip_prefix("Exit code:")
            .or_else(|| line.strip_prefix("Process exited with code"))
            .and_then(|rest| rest.trim().parse::<i64>().ok())
    });
    Output { is_error: exit_code.is_some_and(|code| code != 0), exit_code, text }
}
