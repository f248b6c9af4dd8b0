//! Google Antigravity trajectories (`brain/<conversation>/.system_generated/logs/
//! transcript_full.jsonl`): one line per step, `{step_index, source, type, status,
//! created_at, content, thinking, tool_calls: [{name, args}]}`.
//!
//! `USER_INPUT` steps are the user's turns: the words inside `<USER_REQUEST>` tags are the
//! user's, what Antigravity attached around them (open files, cursor position) becomes an
//! `imported-meta` custom message before them. `PLANNER_RESPONSE` steps are the model's
//! replies: reasoning (`thinking`), text (`content`) and the calls it declared, whose
//! argument values Antigravity writes each as JSON text (`"\"ls\""`, `"true"`). The steps that
//! follow a reply are the results of its calls, in the order they were declared: the format
//! has no call id, so a step is paired with the oldest call not answered yet; its `status`
//! (`ERROR`) or an `ERROR_MESSAGE` step makes it an error. `SYSTEM_MESSAGE` steps (a
//! background command finished, a notice) reach the model as notes: `imported-meta`
//! custom messages, as is a result step no call declared. `CHECKPOINT` and
//! `CONVERSATION_HISTORY` steps are Antigravity's own summaries of what the transcript
//! holds in full: counted and left out. Antigravity records no model and no usage.
//!
//! Invariant: a result follows the reply that declared its call, and has that call's id.

use std::collections::VecDeque;

use serde_json::{Map, Value, json};

use super::build::{self, Builder, Header};
use super::tools::{PiTool, map_call};

/// What the first pass learns: the time of the first step.
#[derive(Debug, Clone, Default)]
pub(super) struct Scan {
    timestamp: Option<String>,
}

impl Scan {
    pub(super) fn line(&mut self, value: &Value) {
        if self.timestamp.is_none() {
            self.timestamp = value.get("created_at").and_then(Value::as_str).map(str::to_owned);
        }
    }

    pub(super) fn header(&self) -> Header {
        Header {
            id: "imported-antigravity-session".into(),
            timestamp: self.timestamp.clone().unwrap_or_else(|| build::UNKNOWN_TIME.into()),
            cwd: String::new(),
        }
    }
}

/// Whether a line is an Antigravity step: a step type of the user's turn or the model's
/// reply, with the fields every step has.
pub(super) fn is_step(value: &Value) -> bool {
    let kind = value.get("type").and_then(Value::as_str);
    matches!(kind, Some("USER_INPUT" | "PLANNER_RESPONSE"))
        && ["step_index", "source", "created_at"].iter().any(|key| value.get(*key).is_some())
}

/// Where the conversation stands.
pub(super) struct State {
    /// The last entry written.
    last: Option<String>,
    /// The time of the last step that stated one.
    time: String,
    /// Calls of the last reply not answered yet, oldest first: (id, pi name).
    open: VecDeque<(String, String)>,
    /// Tool calls written so far (for ids of calls the step does not number).
    calls: usize,
}

impl State {
    pub(super) fn new(header: &Header) -> Self {
        State { last: None, time: header.timestamp.clone(), open: VecDeque::new(), calls: 0 }
    }

    pub(super) fn line(&mut self, value: &Value, builder: &mut Builder<'_>) {
        if let Some(time) = value.get("created_at").and_then(Value::as_str) {
            time.clone_into(&mut self.time);
        }
        let kind = value.get("type").and_then(Value::as_str).unwrap_or("");
        let source = value.get("source").and_then(Value::as_str).unwrap_or("");
        match kind {
            "USER_INPUT" => {
                self.close_calls(builder);
                self.user(value, builder);
            }
            "PLANNER_RESPONSE" => {
                self.close_calls(builder);
                self.reply(value, builder);
            }
            "CHECKPOINT" | "CONVERSATION_HISTORY" => {
                builder
                    .drop(format!("Antigravity `{kind}` step (its summary of what came before)"));
            }
            "SYSTEM_MESSAGE" => self.note(kind, value, builder),
            "ERROR_MESSAGE" if self.open.is_empty() => self.note(kind, value, builder),
            "" => builder.drop("Antigravity step without a type"),
            _ if source.starts_with("SYSTEM") => self.note(kind, value, builder),
            // A result no call declared (a transcript that starts mid-turn): a note.
            _ if self.open.is_empty() => self.note(kind, value, builder),
            _ => self.result(kind, value, builder),
        }
    }

    pub(super) fn finish(&mut self, builder: &mut Builder<'_>) {
        self.close_calls(builder);
    }

    /// Calls of the last reply that no step answered: kept without a result (a call the
    /// user stopped, or a transcript that ends mid-turn), counted.
    fn close_calls(&mut self, builder: &mut Builder<'_>) {
        let unanswered = self.open.len();
        builder.drop_n(
            "Antigravity tool result (the call's step is not in the transcript)",
            unanswered,
        );
        self.open.clear();
    }

    fn user(&mut self, value: &Value, builder: &mut Builder<'_>) {
        let text = content_text(value);
        let (words, around) = split_request(&text);
        let time = self.time.clone();
        if !around.is_empty() {
            let around = builder.text(&around);
            let id = builder.custom_message(
                self.last.as_deref(),
                &time,
                "imported-meta",
                vec![build::text_block(around)],
            );
            self.last = Some(id);
        }
        if words.trim().is_empty() {
            return;
        }
        let content = vec![build::text_block(builder.text(&words))];
        self.last = Some(builder.message(self.last.as_deref(), &time, build::user(content, &time)));
    }

    fn reply(&mut self, value: &Value, builder: &mut Builder<'_>) {
        let mut content = Vec::new();
        if let Some(thinking) = value.get("thinking").and_then(Value::as_str)
            && !thinking.trim().is_empty()
        {
            content.push(json!({ "type": "thinking", "thinking": builder.text(thinking) }));
        }
        let text = content_text(value);
        if !text.trim().is_empty() {
            content.push(build::text_block(builder.text(&text)));
        }
        let step = value.get("step_index").and_then(Value::as_u64);
        let calls =
            value.get("tool_calls").and_then(Value::as_array).map_or(&[][..], Vec::as_slice);
        for (index, call) in calls.iter().enumerate() {
            self.calls += 1;
            let id = match step {
                Some(step) => format!("antigravity-{step}-{index}"),
                None => format!("antigravity-call-{}", self.calls),
            };
            let name = call.get("name").and_then(Value::as_str).unwrap_or("unknown");
            if let Some(fields) = call.as_object() {
                for key in fields.keys() {
                    if !matches!(key.as_str(), "name" | "args" | "arguments") {
                        builder.drop(format!("Antigravity tool call field `{key}`"));
                    }
                }
            }
            let arguments = decode_arguments(call.get("args").or_else(|| call.get("arguments")));
            let (name, arguments) = map_call(name, arguments, pi_tool(name), builder);
            let arguments = builder.value(&arguments);
            self.open.push_back((id.clone(), name.clone()));
            content.push(
                json!({ "type": "toolCall", "id": id, "name": name, "arguments": arguments }),
            );
        }
        if content.is_empty() {
            builder.drop("Antigravity `PLANNER_RESPONSE` step with nothing in it");
            return;
        }
        let time = self.time.clone();
        let stop = if calls.is_empty() { "stop" } else { "toolUse" };
        let message =
            build::assistant(content, "antigravity", "google", "unknown", None, stop, &time);
        self.last = Some(builder.message(self.last.as_deref(), &time, message));
    }

    fn result(&mut self, kind: &str, value: &Value, builder: &mut Builder<'_>) {
        let Some((id, name)) = self.open.pop_front() else { return };
        let status = value.get("status").and_then(Value::as_str).unwrap_or("");
        let is_error = kind == "ERROR_MESSAGE" || status.contains("ERROR");
        let text = builder.text(&content_text(value));
        let mut details = Map::new();
        details.insert("stepType".into(), kind.into());
        if !status.is_empty() {
            details.insert("status".into(), status.into());
        }
        let time = self.time.clone();
        let message = build::tool_result(
            &id,
            &name,
            vec![build::text_block(text)],
            is_error,
            Some(Value::Object(details)),
            &time,
        );
        self.last = Some(builder.message(self.last.as_deref(), &time, message));
    }

    /// A step that reached the model as a note (system messages, errors outside a call).
    fn note(&mut self, kind: &str, value: &Value, builder: &mut Builder<'_>) {
        let text = content_text(value);
        if text.trim().is_empty() {
            builder.drop(format!("empty Antigravity `{kind}` step"));
            return;
        }
        let text = builder.text(&text);
        let time = self.time.clone();
        let id = builder.custom_message(
            self.last.as_deref(),
            &time,
            "imported-meta",
            vec![build::text_block(text)],
        );
        self.last = Some(id);
    }
}

/// A step's `content` as text (structured content as its JSON).
fn content_text(value: &Value) -> String {
    match value.get("content") {
        Some(Value::String(text)) => text.clone(),
        Some(Value::Null) | None => String::new(),
        Some(other) => other.to_string(),
    }
}

/// The user's words (inside `<USER_REQUEST>` tags) and what Antigravity attached around
/// them. A text without the tags is all the user's words.
fn split_request(text: &str) -> (String, String) {
    const OPEN: &str = "<USER_REQUEST>";
    const CLOSE: &str = "</USER_REQUEST>";
    let Some(start) = text.find(OPEN) else { return (text.to_owned(), String::new()) };
    let inner = &text[start + OPEN.len()..];
    let (words, after) = match inner.find(CLOSE) {
        Some(end) => (&inner[..end], &inner[end + CLOSE.len()..]),
        None => (inner, ""),
    };
    let around = format!("{}\n{}", text[..start].trim(), after.trim());
    (words.trim().to_owned(), around.trim().to_owned())
}

/// A call's arguments: an object whose values Antigravity wrote each as JSON text are read
/// back (a value that is not JSON text stays as it is); arguments written as one JSON text
/// are read first.
fn decode_arguments(args: Option<&Value>) -> Value {
    let args = match args {
        Some(Value::String(text)) => {
            crate::entry::from_json_text(text).unwrap_or_else(|_| json!({ "args": text }))
        }
        Some(other) => other.clone(),
        None => return json!({}),
    };
    let Value::Object(object) = args else { return args };
    let decoded = object
        .into_iter()
        .map(|(key, value)| {
            let value = match value.as_str().map(crate::entry::from_json_text::<Value>) {
                Some(Ok(decoded)) => decoded,
                Some(Err(_)) | None => value,
            };
            (key, value)
        })
        .collect();
    Value::Object(decoded)
}

/// pi's tool for an Antigravity tool of the same meaning.
fn pi_tool(name: &str) -> Option<PiTool<'static>> {
    const PATH: &[&str] = &["AbsolutePath", "TargetFile", "File", "Path"];
    Some(match name {
        "view_file" => PiTool::Read { path: PATH },
        "write_to_file" => PiTool::Write { path: PATH, content: &["CodeContent", "Content"] },
        "replace_file_content" | "multi_replace_file_content" => PiTool::Edit {
            path: PATH,
            old: &["TargetContent"],
            new: &["ReplacementContent"],
            list: &["ReplacementChunks"],
        },
        "run_command" => PiTool::Bash { command: &["CommandLine", "Command"], workdir: &["Cwd"] },
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn argument_values_written_as_json_text_are_read_back() {
        let args = json!({"CommandLine": "\"npm test\"", "Blocking": "true", "Cwd": "/repo"});
        assert_eq!(
            decode_arguments(Some(&args)),
            json!({"CommandLine": "npm test", "Blocking": true, "Cwd": "/repo"})
        );
        let whole = Value::String("{\"AbsolutePath\": \"\\\"/a.ts\\\"\"}".into());
        assert_eq!(decode_arguments(Some(&whole)), json!({"AbsolutePath": "/a.ts"}));
    }

    #[test]
    fn the_users_words_are_inside_the_request_tags() {
        let text = "<USER_REQUEST>\nadd a footer\n</USER_REQUEST>\n<ADDITIONAL_METADATA>\nopen: a.ts\n</ADDITIONAL_METADATA>";
        let (words, around) = split_request(text);
        assert_eq!(words, "add a footer");
        assert_eq!(around, "<ADDITIONAL_METADATA>\nopen: a.ts\n</ADDITIONAL_METADATA>");
        assert_eq!(split_request("plain"), ("plain".to_owned(), String::new()));
    }
}
