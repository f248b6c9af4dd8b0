//! Cursor agent transcripts (`~/.cursor/projects/<project>/agent-transcripts/<id>.jsonl`):
//! one line per message, `{"role": "user" | "assistant", "message": {"content": [...]}}`,
//! and `{"type": "turn_ended", "status": ...}` after each turn.
//!
//! The user's words are inside `<user_query>` tags; what Cursor wrapped around them (the
//! `<timestamp>` of the message, attached files, open files) reached the model too, and
//! becomes an `imported-meta` custom message before the user message. Assistant lines hold
//! text, reasoning and `tool_use` blocks (`{name, input}`, without an id); each line is one
//! model step. Cursor records no tool result, no model and no usage: each call gets a result
//! that says its output was not recorded (`details.resultRecorded: false`, not an error:
//! the transcript records no failure), so the call reads as made, as the next step shows it
//! was; the report counts them. Text Cursor withheld (`[REDACTED]`) is counted, not kept.
//!
//! Invariant: every tool call is followed by exactly one result, with the call's id.

use serde_json::{Value, json};

use super::build::{self, Builder, Header};
use super::tools::{PiTool, map_call};

/// What the first pass learns: the time of the first message that states one.
#[derive(Debug, Clone, Default)]
pub(super) struct Scan {
    timestamp: Option<String>,
}

impl Scan {
    pub(super) fn line(&mut self, value: &Value) {
        if self.timestamp.is_none() && role(value) == Some("user") {
            self.timestamp = texts(value).iter().find_map(|text| stated_time(text));
        }
    }

    pub(super) fn header(&self) -> Header {
        Header {
            id: "imported-cursor-session".into(),
            timestamp: self.timestamp.clone().unwrap_or_else(|| build::UNKNOWN_TIME.into()),
            cwd: String::new(),
        }
    }
}

/// Where the conversation stands.
pub(super) struct State {
    /// The last entry written.
    last: Option<String>,
    /// The time of the last user message that stated one (assistant lines state none).
    time: String,
    /// Tool calls written so far (for their ids).
    calls: usize,
}

/// The text a result stands in with.
const NOT_RECORDED: &str = "(Cursor's transcript does not record the output of this call)";

impl State {
    pub(super) fn new(header: &Header) -> Self {
        State { last: None, time: header.timestamp.clone(), calls: 0 }
    }

    pub(super) fn line(&mut self, value: &Value, builder: &mut Builder<'_>) {
        match (role(value), value.get("type").and_then(Value::as_str)) {
            (Some("user"), _) => self.user(value, builder),
            (Some("assistant"), _) => self.assistant(value, builder),
            (_, Some(kind)) => builder.drop(format!("Cursor `{kind}` line")),
            (Some(other), None) => builder.drop(format!("Cursor `{other}` line")),
            (None, None) => builder.drop("Cursor line without a role or type"),
        }
    }

    pub(super) fn finish(&mut self, _builder: &mut Builder<'_>) {}

    fn user(&mut self, value: &Value, builder: &mut Builder<'_>) {
        let mut words = Vec::new();
        let mut meta = Vec::new();
        let mut images = Vec::new();
        for block in blocks(value) {
            match block.get("type").and_then(Value::as_str) {
                Some("text") => {
                    let text = block.get("text").and_then(Value::as_str).unwrap_or("");
                    if let Some(time) = stated_time(text) {
                        self.time = time;
                    }
                    let (said, around) = split_query(text);
                    words.extend(said);
                    if !around.trim().is_empty() {
                        meta.push(around);
                    }
                }
                Some("image") => match image(&block) {
                    Some(image) => images.push(builder.image(image)),
                    None => builder.drop("Cursor image without base64 data"),
                },
                other => {
                    builder.drop(format!("Cursor user block `{}`", other.unwrap_or("untyped")))
                }
            }
        }
        let time = self.time.clone();
        if !meta.is_empty() {
            let text = builder.text(&meta.join("\n"));
            let id = builder.custom_message(
                self.last.as_deref(),
                &time,
                "imported-meta",
                vec![build::text_block(text)],
            );
            self.last = Some(id);
        }
        if words.is_empty() && images.is_empty() {
            return;
        }
        let mut content: Vec<Value> =
            words.iter().map(|text| build::text_block(builder.text(text))).collect();
        content.extend(images);
        let id = builder.message(self.last.as_deref(), &time, build::user(content, &time));
        self.last = Some(id);
    }

    fn assistant(&mut self, value: &Value, builder: &mut Builder<'_>) {
        let mut content = Vec::new();
        let mut calls = Vec::new();
        for block in blocks(value) {
            match block.get("type").and_then(Value::as_str) {
                Some("text") => {
                    let text = block.get("text").and_then(Value::as_str).unwrap_or("");
                    if text.trim() == "[REDACTED]" {
                        builder.drop("Cursor text withheld by Cursor (`[REDACTED]`)");
                    } else if !text.trim().is_empty() {
                        content.push(build::text_block(builder.text(text)));
                    }
                }
                Some("thinking" | "reasoning") => {
                    let text = block
                        .get("thinking")
                        .or_else(|| block.get("text"))
                        .and_then(Value::as_str)
                        .unwrap_or("");
                    if text.trim() == "[REDACTED]" || text.trim().is_empty() {
                        builder.drop("Cursor reasoning withheld by Cursor");
                    } else {
                        let thinking = builder.text(text);
                        content.push(json!({ "type": "thinking", "thinking": thinking }));
                    }
                }
                Some("tool_use" | "tool_call") => {
                    self.calls += 1;
                    let id = block
                        .get("id")
                        .and_then(Value::as_str)
                        .map_or_else(|| format!("cursor-call-{}", self.calls), str::to_owned);
                    let name = block.get("name").and_then(Value::as_str).unwrap_or("unknown");
                    let input = block.get("input").cloned().unwrap_or_else(|| json!({}));
                    let (name, arguments) = map_call(name, input, pi_tool(name), builder);
                    let arguments = builder.value(&arguments);
                    calls.push((id.clone(), name.clone()));
                    content.push(json!({
                        "type": "toolCall", "id": id, "name": name, "arguments": arguments
                    }));
                }
                other => {
                    builder.drop(format!("Cursor assistant block `{}`", other.unwrap_or("untyped")))
                }
            }
        }
        if content.is_empty() {
            return;
        }
        let time = self.time.clone();
        let stop = if calls.is_empty() { "stop" } else { "toolUse" };
        let message =
            build::assistant(content, "cursor-agent", "cursor", "unknown", None, stop, &time);
        self.last = Some(builder.message(self.last.as_deref(), &time, message));
        for (id, name) in calls {
            let result = build::tool_result(
                &id,
                &name,
                vec![build::text_block(NOT_RECORDED.into())],
                false,
                Some(json!({ "resultRecorded": false })),
                &time,
            );
            self.last = Some(builder.message(self.last.as_deref(), &time, result));
            builder.drop("Cursor tool output (not in the transcript; a result says so)");
        }
    }
}

/// An image block from `{source: {type: base64, media_type, data}}`.
fn image(block: &Value) -> Option<Value> {
    let source = block.get("source")?;
    let data = source.get("data")?.as_str()?;
    let mime = source.get("media_type").and_then(Value::as_str).unwrap_or("image/png");
    Some(json!({ "type": "image", "data": data, "mimeType": mime }))
}

/// The line's role (`user`, `assistant`), when it has one.
pub(super) fn role(value: &Value) -> Option<&str> {
    value.get("role").and_then(Value::as_str)
}

/// The content blocks of a line (a string content is one text block).
fn blocks(value: &Value) -> Vec<Value> {
    match value.get("message").and_then(|m| m.get("content")) {
        Some(Value::Array(blocks)) => blocks.clone(),
        Some(Value::String(text)) => vec![json!({ "type": "text", "text": text })],
        Some(_) | None => Vec::new(),
    }
}

/// The texts of a line's blocks.
fn texts(value: &Value) -> Vec<String> {
    blocks(value)
        .iter()
        .filter_map(|b| b.get("text").and_then(Value::as_str).map(str::to_owned))
        .collect()
}

/// The user's words (inside `<user_query>` tags) and the text around them. A text without
/// the tags is all the user's words.
fn split_query(text: &str) -> (Vec<String>, String) {
    const OPEN: &str = "<user_query>";
    const CLOSE: &str = "</user_query>";
    if !text.contains(OPEN) {
        return (vec![text.to_owned()], String::new());
    }
    let mut words = Vec::new();
    let mut around = String::new();
    let mut rest = text;
    while let Some(start) = rest.find(OPEN) {
        around.push_str(&rest[..start]);
        let inner = &rest[start + OPEN.len()..];
        let (said, after) = match inner.find(CLOSE) {
            Some(end) => (&inner[..end], &inner[end + CLOSE.len()..]),
            None => (inner, ""),
        };
        let said = said.trim_matches('\n');
        if !said.trim().is_empty() {
            words.push(said.to_owned());
        }
        rest = after;
    }
    around.push_str(rest);
    (words, without_timestamp(&around))
}

/// The text without its `<timestamp>…</timestamp>` element (the message's time, kept as the
/// entry's time when it can be read).
fn without_timestamp(text: &str) -> String {
    match (text.find("<timestamp>"), text.find("</timestamp>")) {
        (Some(start), Some(end)) if start < end && stated_time(text).is_some() => {
            let mut out = text[..start].to_owned();
            out.push_str(&text[end + "</timestamp>".len()..]);
            out.trim().to_owned()
        }
        _ => text.trim().to_owned(),
    }
}

/// The time a `<timestamp>` element states (`Thursday, Jul 23, 2026, 1:18 PM (UTC+9)`), as
/// ISO 8601 with its offset (`2026-07-23T13:18:00.000+09:00`).
fn stated_time(text: &str) -> Option<String> {
    let start = text.find("<timestamp>")? + "<timestamp>".len();
    let end = start + text[start..].find("</timestamp>")?;
    let stated = text[start..end].trim();
    let (when, zone) = match stated.split_once('(') {
        Some((when, zone)) => (when.trim(), zone.trim_end_matches(')').trim()),
        None => (stated, "UTC"),
    };
    let parts: Vec<&str> = when.split(',').map(str::trim).collect();
    // [weekday,] "Jul 23", "2026", "1:18 PM"
    let [.., month_day, year, clock] = parts.as_slice() else { return None };
    let (month, day) = month_day.split_once(' ')?;
    let month = month.get(..3)?.to_ascii_lowercase();
    let month = MONTHS.iter().position(|m| *m == month)?;
    let day: u32 = day.trim().parse().ok()?;
    let year: u32 = year.parse().ok()?;
    let (clock, half) = clock.split_once(' ').unwrap_or((clock, ""));
    let (hour, minute) = clock.split_once(':')?;
    let (mut hour, minute): (u32, u32) = (hour.parse().ok()?, minute.parse().ok()?);
    match half.to_ascii_uppercase().as_str() {
        "PM" if hour < 12 => hour += 12,
        "AM" if hour == 12 => hour = 0,
        _ => {}
    }
    let offset = zone.strip_prefix("UTC").or_else(|| zone.strip_prefix("GMT"))?;
    let offset = if offset.is_empty() {
        "Z".to_owned()
    } else {
        let sign = offset.get(..1)?;
        let (h, m) = offset[1..].split_once(':').unwrap_or((&offset[1..], "0"));
        let (h, m): (u32, u32) = (h.parse().ok()?, m.parse().ok()?);
        if !matches!(sign, "+" | "-") || h > 14 || m > 59 {
            return None;
        }
        format!("{sign}{h:02}:{m:02}")
    };
    if !(1..=31).contains(&day) || hour > 23 || minute > 59 {
        return None;
    }
    Some(format!("{year:04}-{:02}-{day:02}T{hour:02}:{minute:02}:00.000{offset}", month + 1))
}

const MONTHS: [&str; 12] =
    ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"];

/// pi's tool for a Cursor tool of the same meaning.
fn pi_tool(name: &str) -> Option<PiTool<'static>> {
    const PATH: &[&str] = &["path", "file_path", "target_file", "filePath"];
    Some(match name {
        "Read" | "read_file" => PiTool::Read { path: PATH },
        "Write" | "write" => PiTool::Write { path: PATH, content: &["contents", "content"] },
        "StrReplace" | "Edit" | "MultiEdit" | "search_replace" | "edit_file" => PiTool::Edit {
            path: PATH,
            old: &["old_string", "old_str", "oldText"],
            new: &["new_string", "new_str", "newText"],
            list: &["edits"],
        },
        "Shell" | "run_terminal_cmd" => PiTool::Bash {
            command: &["command"],
            workdir: &["working_directory", "cwd", "workdir"],
        },
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stated_time_is_read_with_its_offset() {
        let text = "<timestamp>Thursday, Jul 23, 2026, 1:18 PM (UTC+9)</timestamp>\n<user_query>";
        assert_eq!(stated_time(text).as_deref(), Some("2026-07-23T13:18:00.000+09:00"));
        let text = "<timestamp>Mon, Dec 1, 2025, 12:05 AM (UTC-5:30)</timestamp>";
        assert_eq!(stated_time(text).as_deref(), Some("2025-12-01T00:05:00.000-05:30"));
        for unreadable in [
            "<timestamp>yesterday</timestamp>",
            "<timestamp>Jul 32, 2026, 1:18 PM (UTC)</timestamp>",
            "<timestamp>Jul 3, 2026, 1:18 PM (CET)</timestamp>",
            "no element",
        ] {
            assert_eq!(stated_time(unreadable), None, "{unreadable}");
        }
    }

    #[test]
    fn the_users_words_are_inside_the_query_tags_and_the_rest_is_context() {
        let text = "<timestamp>Thursday, Jul 23, 2026, 1:18 PM (UTC+9)</timestamp>\n\
                    <attached_files>a.ts</attached_files>\n<user_query>\nfix it\n</user_query>";
        let (words, around) = split_query(text);
        assert_eq!(words, ["fix it"]);
        assert_eq!(around, "<attached_files>a.ts</attached_files>");
        assert_eq!(split_query("plain words"), (vec!["plain words".to_owned()], String::new()));
    }
}
