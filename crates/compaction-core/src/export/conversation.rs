//! The context at a leaf as a neutral conversation both writers read: the summary, then
//! user messages, assistant replies and tool results, redacted, every call followed by its
//! result.

use std::collections::{BTreeMap, HashSet};

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
        out.pair_calls_and_results();
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
                ContentBlock::Image(image) => parts.push(Part::Image {
                    data: image.data,
                    mime_type: if image.mime_type.is_empty() {
                        "image/png".into()
                    } else {
                        image.mime_type
                    },
                }),
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
                    match (format, signature) {
                        (TargetFormat::ClaudeCode, Some(signature))
                            if signed_by_anthropic && !signature.is_empty() =>
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
                    let arguments = self.value(&call.arguments);
                    parts.push(Reply::Call {
                        id: call.id.clone(),
                        name: call.name.clone(),
                        arguments,
                    });
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

    /// Every call followed by its result: a result for a call that has none is added after
    /// the reply's other results; a result whose call is not open becomes user text.
    fn pair_calls_and_results(&mut self) {
        let items = std::mem::take(&mut self.items);
        let mut out = Vec::with_capacity(items.len());
        let mut open: Vec<String> = Vec::new();
        for item in items {
            match item {
                Item::ToolResult { call_id, parts, is_error } => {
                    if let Some(at) = open.iter().position(|id| *id == call_id) {
                        open.remove(at);
                        out.push(Item::ToolResult { call_id, parts, is_error });
                    } else {
                        self.add("result whose call is not in the context, written as user text");
                        let mut text = vec![Part::Text(format!(
                            "[The result of tool call {call_id}, whose call is not in this \
                             conversation{}:]",
                            if is_error { ", reported as an error" } else { "" }
                        ))];
                        text.extend(parts);
                        out.push(Item::User(text));
                    }
                }
                other @ (Item::User(_) | Item::Assistant { .. }) => {
                    self.close(&mut open, &mut out);
                    if let Item::Assistant { parts, .. } = &other {
                        open = parts
                            .iter()
                            .filter_map(|part| match part {
                                Reply::Call { id, .. } => Some(id.clone()),
                                Reply::Text(_) | Reply::Thinking { .. } => None,
                            })
                            .collect();
                        let mut seen = HashSet::new();
                        open.retain(|id| seen.insert(id.clone()));
                    }
                    out.push(other);
                }
            }
        }
        self.close(&mut open, &mut out);
        self.items = out;
    }

    fn close(&mut self, open: &mut Vec<String>, out: &mut Vec<Item>) {
        for call_id in open.drain(..) {
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
