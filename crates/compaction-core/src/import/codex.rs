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
            // The rest of the action (timeout, environment, user) stays as it was.
            for key in ["timeout_ms", "env", "user"] {
                if let Some(item) = action.get(key).filter(|item| !item.is_null()) {
                    arguments.insert(key.into(), item.clone());
                }
            }
            return shell("local_shell_call", arguments, builder);
        }
        _ => match item.get("arguments") {
            Some(Value::String(text)) => {
                crate::entry::from_json_text(text).unwrap_or_else(|_| json!({ "arguments": text }))
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

/// The command line of an argv: the script a shell is given to run (`bash -lc SCRIPT`,
/// `pwsh.exe -NoLogo -Command SCRIPT`, `cmd.exe /d /c SCRIPT`: the shell's own options
/// before its command flag, the script its last word), else the words joined with shell
/// quoting.
pub(super) fn script_of(argv: &[&str]) -> String {
    if let [shell, rest @ ..] = argv
        && let Some(flag) = crate::files::command_flag_at(shell, rest)
        && let [script] = &rest[flag + 1..]
    {
        return (*script).to_owned();
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
    /// Images among its content items (`input_image` with a `data:` URL).
    images: Vec<Value>,
}

/// How many image items a tool output holds.
fn images_in(output: Option<&Value>) -> usize {
    let items = match output {
        Some(Value::Array(items)) => items,
        Some(Value::Object(object)) => match object.get("content") {
            Some(Value::Array(items)) => items,
            _ => return 0,
        },
        _ => return 0,
    };
    items
        .iter()
        .filter(|item| item.get("type").and_then(Value::as_str) == Some("input_image"))
        .count()
}

/// The text and images of a list of content items.
fn parts(parts: &[Value]) -> (String, Vec<Value>) {
    let text = parts
        .iter()
        .filter_map(|p| p.get("text").and_then(Value::as_str))
        .collect::<Vec<_>>()
        .join("\n");
    (text, parts.iter().filter_map(image).collect())
}

/// Reads a `function_call_output` / `custom_tool_call_output`: a JSON string
/// `{output, metadata: {exit_code}}`, plain text that may start with `Exit code: N` or hold
/// `Process exited with code N`, or an object `{content, success}`.
fn tool_output(output: Option<&Value>, builder: &mut Builder<'_>) -> Output {
    if let Some(object) = output.and_then(Value::as_object) {
        let (text, images) = match object.get("content") {
            Some(Value::String(text)) => (text.clone(), Vec::new()),
            Some(Value::Array(items)) => parts(items),
            Some(other) => (other.to_string(), Vec::new()),
            None => {
                builder
                    .convert("Codex tool output object without `content` (read as its JSON text)");
                (Value::Object(object.clone()).to_string(), Vec::new())
            }
        };
        let failed = object.get("success").and_then(Value::as_bool) == Some(false);
        let mut out = from_text(text);
        out.is_error |= failed;
        out.images = images;
        return out;
    }
    if let Some(items) = output.and_then(Value::as_array) {
        let (text, images) = parts(items);
        let mut out = from_text(text);
        out.images = images;
        return out;
    }
    let text = output.and_then(Value::as_str).unwrap_or("").to_owned();
    if let Ok(Value::Object(object)) = crate::entry::from_json_text::<Value>(&text)
        && let Some(inner) = object.get("output").and_then(Value::as_str)
    {
        let exit_code =
            object.get("metadata").and_then(|m| m.get("exit_code")).and_then(Value::as_i64);
        return Output {
            text: inner.to_owned(),
            exit_code,
            is_error: exit_code.is_some_and(|code| code != 0),
            images: Vec::new(),
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
    Output {
        is_error: exit_code.is_some_and(|code| code != 0),
        exit_code,
        text,
        images: Vec::new(),
    }
}
