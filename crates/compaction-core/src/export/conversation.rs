//! The context at a leaf as a neutral conversation both writers read: the summary, then
//! user messages, assistant replies and tool results, redacted, every call followed by its
//! result.

use std::collections::{BTreeMap, HashMap, HashSet};

use serde_json::{Map, Value};

use super::{ExportReport, TargetFormat};
use crate::context::{ContextItemKind, build_context, to_llm};
use crate::message::{AgentMessage, AssistantMessage, Content, ContentBlock};
use crate::redact::Redactor;
use crate::session::Session;

/// Claude Code's own words before a compaction summary, which its resumed sessions carry.
pub const CLAUDE_CODE_SUMMARY_PREFACE: &str = "This session is being continued from a previous \
     conversation that ran out of context. The summary below covers the earlier portion of the \
     conversation.";

/// Codex's own words before a compaction summary in the history it rebuilds.
pub const CODEX_SUMMARY_PREFIX: &str = "Another language model started to solve this problem and \
     produced a summary of its thinking process. You also have access to the state of the tools \
     that were used by that language model. Use this to build on the work that has already been \
     done and avoid duplicating work. Here is the summary produced by the other language model, \
     use the information in this summary to assist with your own analysis:";

/// What a tool result without a recorded result says.
pub(super) const MISSING_RESULT: &str = "No result of this call was recorded.";

/// What an error result that had no output says.
const NO_OUTPUT: &str = "The tool reported an error and no output.";

/// The name of a call that had none.
const UNNAMED_TOOL: &str = "unnamed_tool";

/// The image types both agents' APIs read.
const IMAGE_TYPES: [&str; 4] = ["image/png", "image/jpeg", "image/gif", "image/webp"];

/// Why the agent cannot read an image (`None`: it can): a type its API does not take, or
/// data that is no base64.
fn unreadable_image(mime_type: &str, data: &str) -> Option<String> {
    use base64::Engine;
    if !IMAGE_TYPES.contains(&mime_type) {
        return Some(format!("type {mime_type:?}"));
    }
    if data.is_empty() {
        return Some("no data".to_owned());
    }
    match base64::engine::general_purpose::STANDARD.decode(data) {
        Ok(_) => None,
        Err(_) => Some("its data is no base64".to_owned()),
    }
}

/// Whether the agent takes `id` as a call id.
fn fits(format: TargetFormat, id: &str) -> bool {
    (1..=64).contains(&id.chars().count())
        && (format == TargetFormat::Codex
            || id.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-'))
}

/// The call ids written: each unique in the transcript and of the form the agent takes
/// (Claude Code: `[A-Za-z0-9_-]`, 1–64 characters, as the Messages API wants; Codex: 1–64
/// characters). An id that is taken or does not fit is rewritten.
struct CallIds {
    format: TargetFormat,
    taken: HashSet<String>,
    suffixes: HashMap<String, usize>,
}

impl CallIds {
    fn new(format: TargetFormat) -> Self {
        CallIds { format, taken: HashSet::new(), suffixes: HashMap::new() }
    }

    fn written(&mut self, id: &str) -> String {
        if fits(self.format, id) && self.taken.insert(id.to_owned()) {
            return id.to_owned();
        }
        let mut base: String = match self.format {
            TargetFormat::ClaudeCode => id
                .chars()
                .map(|c| if c.is_ascii_alphanumeric() || c == '-' { c } else { '_' })
                .take(52)
                .collect(),
            TargetFormat::Codex => id.chars().take(52).collect(),
        };
        if base.is_empty() {
            base.push_str("call");
        }
        // The last suffix tried for a base, so n calls given one id cost n tries, not n².
        let n = self.suffixes.entry(base.clone()).or_insert(1);
        let mut candidate = base.clone();
        while !fits(self.format, &candidate) || self.taken.contains(&candidate) {
            *n += 1;
            candidate = format!("{base}_{n}");
        }
        self.taken.insert(candidate.clone());
        candidate
    }
}

/// A part of a user message or a tool result.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Part {
    Text(String),
    Image { data: String, mime_type: String },
}

/// A part of an assistant reply.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Reply {
    Text(String),
    /// Reasoning with the Anthropic signature it needs to be sent back.
    Thinking {
        text: String,
        signature: String,
    },
    /// Reasoning the provider sent encrypted (pi keeps its data as the signature).
    RedactedThinking {
        data: String,
    },
    Call {
        id: String,
        name: String,
        arguments: Value,
    },
}

#[derive(Debug, Clone, PartialEq)]
pub(super) enum Item {
    User(Vec<Part>),
    Assistant { parts: Vec<Reply>, model: Option<String> },
    ToolResult { call_id: String, parts: Vec<Part>, is_error: bool },
}

pub(super) struct Conversation<'r> {
    redactor: &'r Redactor,
    pub(super) summary: Option<String>,
    pub(super) items: Vec<Item>,
    /// The model of the last assistant reply, for lines that name one.
    pub(super) model: Option<String>,
    dropped: BTreeMap<String, usize>,
    added: BTreeMap<String, usize>,
    redacted: usize,
}

impl<'r> Conversation<'r> {
    pub(super) fn of(
        session: &Session,
        leaf: Option<usize>,
        format: TargetFormat,
        redactor: &'r Redactor,
    ) -> Self {
        let mut out = Conversation {
            redactor,
            summary: None,
            items: Vec::new(),
            model: None,
            dropped: BTreeMap::new(),
            added: BTreeMap::new(),
            redacted: 0,
        };
        let context = build_context(session, leaf);
        for &item in &context.items {
            let message = context.message(session, item);
            match (item.kind, message) {
                (ContextItemKind::SystemCheckpoint, _) => {
                    out.drop("system prompt checkpoint (the agent brings its own)");
                }
                (ContextItemKind::CompactionSummary, AgentMessage::CompactionSummary(summary)) => {
                    out.summary = Some(out.text(&summary.summary));
                }
                (_, message) => out.push(message, format),
            }
        }
        out.pair_calls_and_results(format);
        out
    }

    fn drop(&mut self, kind: &str) {
        *self.dropped.entry(kind.to_owned()).or_default() += 1;
    }

    fn add(&mut self, kind: &str) {
        *self.added.entry(kind.to_owned()).or_default() += 1;
    }

    fn text(&mut self, text: &str) -> String {
        let out = self.redactor.redact(text);
        if out != text {
            self.redacted += 1;
        }
        out.into_owned()
    }

    /// A JSON value with every string (keys kept) redacted.
    fn value(&mut self, value: &Value) -> Value {
        match value {
            Value::String(text) => Value::String(self.text(text)),
            Value::Array(items) => {
                Value::Array(items.iter().map(|item| self.value(item)).collect())
            }
            Value::Object(object) => {
                let mut out = Map::new();
                for (key, item) in object {
                    out.insert(key.clone(), self.value(item));
                }
                Value::Object(out)
            }
            Value::Null | Value::Bool(_) | Value::Number(_) => value.clone(),
        }
    }

    fn parts(&mut self, content: &Content) -> Vec<Part> {
        let mut parts = Vec::new();
        for block in content.blocks() {
            match block {
                ContentBlock::Text(text) if text.text.trim().is_empty() => {}
                ContentBlock::Text(text) => parts.push(Part::Text(self.text(&text.text))),
                ContentBlock::Image(image) => {
                    let mime_type = if image.mime_type.is_empty() {
                        "image/png".into()
                    } else {
                        image.mime_type
                    };
                    match unreadable_image(&mime_type, &image.data) {
                        None => parts.push(Part::Image { data: image.data, mime_type }),
                        Some(why) => {
                            self.drop("image the agent cannot read (its type or data)");
                            parts.push(Part::Text(format!("[image omitted: {why}]")));
                        }
                    }
                }
                ContentBlock::Thinking(_) | ContentBlock::ToolCall(_) | ContentBlock::Other(_) => {
                    self.drop("block of a kind a user message cannot hold");
                }
            }
        }
        parts
    }

    fn push(&mut self, message: AgentMessage, format: TargetFormat) {
        match to_llm(message) {
            // Not part of what the model receives (a command run with `!!`).
            None => {}
            Some(AgentMessage::System(_)) => {
                self.drop("system message (the agent brings its own system prompt)");
            }
            Some(AgentMessage::User(user)) => {
                let parts = self.parts(&user.content);
                if parts.is_empty() {
                    self.drop("empty user message");
                } else {
                    self.items.push(Item::User(parts));
                }
            }
            Some(AgentMessage::Assistant(reply)) => self.push_assistant(reply, format),
            Some(AgentMessage::ToolResult(result)) => {
                let mut parts = self.parts(&result.content);
                if format == TargetFormat::Codex {
                    // Codex's tool outputs are text.
                    for part in &mut parts {
                        if matches!(part, Part::Image { .. }) {
                            self.drop("image in a tool result (Codex tool outputs are text)");
                            *part = Part::Text("[image omitted]".into());
                        }
                    }
                }
                if result.is_error && parts.is_empty() {
                    // The Messages API refuses an error result without content.
                    self.add("text for an error result that had no output");
                    parts.push(Part::Text(NO_OUTPUT.to_owned()));
                }
                self.items.push(Item::ToolResult {
                    call_id: result.tool_call_id,
                    parts,
                    is_error: result.is_error,
                });
            }
            Some(_) => self.drop("message of a role the model does not receive"),
        }
    }

    fn push_assistant(&mut self, reply: AssistantMessage, format: TargetFormat) {
        let signed_by_anthropic =
            reply.extra.get("api").and_then(Value::as_str) == Some("anthropic-messages");
        let mut parts = Vec::new();
        for block in &reply.content {
            match block {
                ContentBlock::Text(text) if text.text.trim().is_empty() => {}
                ContentBlock::Text(text) => parts.push(Reply::Text(self.text(&text.text))),
                ContentBlock::Thinking(thinking) => {
                    let signature = thinking.extra.get("thinkingSignature").and_then(Value::as_str);
                    let redacted = thinking.extra.get("redacted") == Some(&Value::Bool(true));
                    match (format, signature) {
                        (TargetFormat::ClaudeCode, Some(data))
                            if redacted && signed_by_anthropic && !data.is_empty() =>
                        {
                            parts.push(Reply::RedactedThinking { data: data.to_owned() });
                        }
                        (TargetFormat::ClaudeCode, Some(signature))
                            if !redacted && signed_by_anthropic && !signature.is_empty() =>
                        {
                            parts.push(Reply::Thinking {
                                text: self.text(&thinking.thinking),
                                signature: signature.to_owned(),
                            });
                        }
                        (TargetFormat::ClaudeCode, _) => {
                            self.drop("reasoning without an Anthropic signature");
                        }
                        (TargetFormat::Codex, _) => {
                            self.drop("reasoning (Codex replays only its own, encrypted)");
                        }
                    }
                }
                ContentBlock::ToolCall(call) => {
                    let arguments = match self.value(&call.arguments) {
                        object @ Value::Object(_) => object,
                        Value::Null => Value::Object(Map::new()),
                        // Both agents take a call's input as an object.
                        other @ (Value::Bool(_)
                        | Value::Number(_)
                        | Value::String(_)
                        | Value::Array(_)) => {
                            self.add(
                                "tool call arguments that were no object, kept under `arguments`",
                            );
                            Value::Object(Map::from_iter([("arguments".to_owned(), other)]))
                        }
                    };
                    let name = if call.name.is_empty() {
                        self.add("name for a tool call that had none");
                        UNNAMED_TOOL.to_owned()
                    } else {
                        call.name.clone()
                    };
                    parts.push(Reply::Call { id: call.id.clone(), name, arguments });
                }
                ContentBlock::Image(_) | ContentBlock::Other(_) => {
                    self.drop("block of a kind an assistant reply cannot hold");
                }
            }
        }
        if parts.is_empty() {
            self.drop("assistant reply with nothing the agent can send back");
            return;
        }
        if reply.model.is_some() {
            self.model.clone_from(&reply.model);
        }
        self.items.push(Item::Assistant { parts, model: reply.model });
    }

    /// Every call followed by its result, each call with an id the agent takes: a result
    /// answers the first unanswered call of its id in the reply it follows (past that reply's
    /// other results); a result for a call that has none is added after the reply's other
    /// results; a result whose call is not open becomes user text, written after the reply's
    /// results so they stay together right after it.
    fn pair_calls_and_results(&mut self, format: TargetFormat) {
        let items = std::mem::take(&mut self.items);
        let mut out = Vec::with_capacity(items.len());
        // The open reply's unanswered calls: (id in the session, id written).
        let mut open: Vec<(String, String)> = Vec::new();
        // User text waiting for the open reply's results to end.
        let mut held: Vec<Item> = Vec::new();
        let mut ids = CallIds::new(format);
        for item in items {
            match item {
                Item::ToolResult { call_id, parts, is_error } => {
                    if let Some(at) = open.iter().position(|(id, _)| *id == call_id) {
                        let (_, written) = open.remove(at);
                        out.push(Item::ToolResult { call_id: written, parts, is_error });
                    } else {
                        self.add("result whose call is not in the context, written as user text");
                        let mut text = vec![Part::Text(format!(
                            "[The result of tool call {call_id}, whose call is not in this \
                             conversation{}:]",
                            if is_error { ", reported as an error" } else { "" }
                        ))];
                        text.extend(parts);
                        let orphan = Item::User(text);
                        if open.is_empty() { out.push(orphan) } else { held.push(orphan) }
                    }
                }
                Item::Assistant { mut parts, model } => {
                    self.close(&mut open, &mut out);
                    out.append(&mut held);
                    for part in &mut parts {
                        if let Reply::Call { id, .. } = part {
                            let written = ids.written(id);
                            if written != *id {
                                self.add("tool call id rewritten so the agent takes it (unique, its characters and length)");
                            }
                            open.push((std::mem::replace(id, written.clone()), written));
                        }
                    }
                    out.push(Item::Assistant { parts, model });
                }
                other @ Item::User(_) => {
                    self.close(&mut open, &mut out);
                    out.append(&mut held);
                    out.push(other);
                }
            }
        }
        self.close(&mut open, &mut out);
        out.append(&mut held);
        self.items = out;
    }

    fn close(&mut self, open: &mut Vec<(String, String)>, out: &mut Vec<Item>) {
        for (_, call_id) in open.drain(..) {
            self.add("result for a call that had none");
            out.push(Item::ToolResult {
                call_id,
                parts: vec![Part::Text(MISSING_RESULT.to_owned())],
                is_error: true,
            });
        }
    }

    pub(super) fn report(
        &self,
        format: TargetFormat,
        session_id: &str,
        lines: usize,
    ) -> ExportReport {
        let mut report = ExportReport {
            format,
            session_id: session_id.to_owned(),
            summary: self.summary.is_some(),
            lines,
            user_messages: 0,
            assistant_messages: 0,
            tool_calls: 0,
            tool_results: 0,
            redacted_texts: self.redacted,
            dropped: self.dropped.clone(),
            added: self.added.clone(),
        };
        for item in &self.items {
            match item {
                Item::User(_) => report.user_messages += 1,
                Item::Assistant { parts, .. } => {
                    report.assistant_messages += 1;
                    report.tool_calls +=
                        parts.iter().filter(|part| matches!(part, Reply::Call { .. })).count();
                }
                Item::ToolResult { .. } => report.tool_results += 1,
            }
        }
        report
    }
}
