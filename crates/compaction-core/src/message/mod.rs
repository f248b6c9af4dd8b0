//! Agent messages as pi stores them in `message` entries.
//!
//! Every struct keeps the fields it does not know in `extra`, and unknown roles and content
//! block types are kept as raw JSON values, so a message survives parse → serialize as an
//! equal JSON value. Fields the compaction engine reads are typed; everything else rides along.

mod system;
#[cfg(test)]
mod tests;

pub use system::SystemMessage;

use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};

/// JSON object holding the fields a struct does not model.
pub type Extra = Map<String, Value>;

/// A plain text block.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TextContent {
    /// The text.
    pub text: String,
    /// Fields this version does not model, kept for the round trip.
    #[serde(flatten)]
    pub extra: Extra,
}

/// An image block: base64 data and its MIME type.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ImageContent {
    /// The image bytes, base64-encoded.
    #[serde(default)]
    pub data: String,
    /// The image's MIME type (`image/png`, …).
    #[serde(rename = "mimeType", default)]
    pub mime_type: String,
    /// Fields this version does not model, kept for the round trip.
    #[serde(flatten)]
    pub extra: Extra,
}

/// A reasoning block of an assistant reply (its signature stays in `extra`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ThinkingContent {
    /// The reasoning text.
    pub thinking: String,
    /// Fields this version does not model (the signature among them), kept for the round trip.
    #[serde(flatten)]
    pub extra: Extra,
}

/// A tool call made by the assistant. `arguments` keeps its key order and number forms.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolCall {
    /// The call's id, which its tool result names in `toolCallId`.
    pub id: String,
    /// The tool's name (`read`, `bash`, `edit`, …).
    pub name: String,
    /// The arguments object, as the model wrote it.
    #[serde(default)]
    pub arguments: Value,
    /// Fields this version does not model, kept for the round trip.
    #[serde(flatten)]
    pub extra: Extra,
}

/// One block of message content.
#[derive(Debug, Clone, PartialEq)]
pub enum ContentBlock {
    /// `text`: plain text.
    Text(TextContent),
    /// `image`: base64 image data.
    Image(ImageContent),
    /// `thinking`: the assistant's reasoning.
    Thinking(ThinkingContent),
    /// `toolCall`: a call of a tool by the assistant.
    ToolCall(ToolCall),
    /// A block type this version does not know, kept verbatim.
    Other(Value),
}

impl ContentBlock {
    /// A text block with no extra fields.
    pub fn text(text: impl Into<String>) -> Self {
        ContentBlock::Text(TextContent { text: text.into(), extra: Extra::new() })
    }
}

impl<'de> Deserialize<'de> for ContentBlock {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let value = Value::deserialize(deserializer)?;
        let kind = value.get("type").and_then(Value::as_str).unwrap_or_default();
        let block = match kind {
            "text" => ContentBlock::Text(without_type(value).map_err(D::Error::custom)?),
            "image" => ContentBlock::Image(without_type(value).map_err(D::Error::custom)?),
            "thinking" => ContentBlock::Thinking(without_type(value).map_err(D::Error::custom)?),
            "toolCall" => ContentBlock::ToolCall(without_type(value).map_err(D::Error::custom)?),
            _ => ContentBlock::Other(value),
        };
        Ok(block)
    }
}

impl Serialize for ContentBlock {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            ContentBlock::Text(block) => with_tag("type", "text", block, serializer),
            ContentBlock::Image(block) => with_tag("type", "image", block, serializer),
            ContentBlock::Thinking(block) => with_tag("type", "thinking", block, serializer),
            ContentBlock::ToolCall(block) => with_tag("type", "toolCall", block, serializer),
            ContentBlock::Other(value) => value.serialize(serializer),
        }
    }
}

/// Content that pi allows to be a bare string or a list of blocks.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Content {
    /// A bare string.
    Text(String),
    /// A list of content blocks.
    Blocks(Vec<ContentBlock>),
}

impl Default for Content {
    fn default() -> Self {
        Content::Blocks(Vec::new())
    }
}

impl Content {
    /// The content as blocks (a bare string becomes one text block).
    pub fn blocks(&self) -> Vec<ContentBlock> {
        match self {
            Content::Text(text) => vec![ContentBlock::text(text.clone())],
            Content::Blocks(blocks) => blocks.clone(),
        }
    }

    /// All text of the content joined with newlines (images and other blocks skipped).
    pub fn joined_text(&self) -> String {
        match self {
            Content::Text(text) => text.clone(),
            Content::Blocks(blocks) => joined_text(blocks),
        }
    }
}

/// Joins the text blocks of a block list with newlines.
pub fn joined_text(blocks: &[ContentBlock]) -> String {
    let mut out = String::new();
    for block in blocks {
        if let ContentBlock::Text(text) = block {
            if !out.is_empty() {
                out.push('\n');
            }
            out.push_str(&text.text);
        }
    }
    out
}

/// Token usage an assistant reply reports.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Usage {
    /// Input tokens not read from the prompt cache.
    #[serde(default, deserialize_with = "count")]
    pub input: u64,
    /// Output tokens of the reply.
    #[serde(default, deserialize_with = "count")]
    pub output: u64,
    /// Input tokens read from the prompt cache.
    #[serde(default, deserialize_with = "count")]
    pub cache_read: u64,
    /// Input tokens written to the prompt cache.
    #[serde(default, deserialize_with = "count")]
    pub cache_write: u64,
    /// All tokens of the request and reply (0 when the provider did not say).
    #[serde(default, deserialize_with = "count")]
    pub total_tokens: u64,
    /// Fields this version does not model (`cost` among them), kept for the round trip.
    #[serde(flatten)]
    pub extra: Extra,
}

/// A token count as pi reads it from a file, where `JSON.parse` takes any JSON: a count past
/// `u64` (or `1e400`, read as the largest `f64`) saturates, a fraction is cut, and anything
/// that is no positive number (negative, `null`, a string, an object) counts as 0, so one odd
/// count never makes the whole message unreadable.
fn count<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<u64, D::Error> {
    Ok(count_of(&Value::deserialize(deserializer)?))
}

/// A count another program wrote, read by the rule every reader of counts follows (a
/// session's usage, an imported transcript's token counts, an extension's `tokensBefore`):
/// past `u64` (or `1e400`, read as the largest `f64`) saturates, a fraction is cut, and
/// anything that is no positive number (negative, `null`, a string, an object) is 0.
pub fn count_of(value: &Value) -> u64 {
    match value {
        Value::Number(number) => match number.as_u64() {
            Some(count) => count,
            // A negative integer, or a float: `as` saturates (and reads NaN as 0).
            None => number.as_f64().filter(|f| *f > 0.0).map_or(0, |f| f as u64),
        },
        Value::Null | Value::Bool(_) | Value::String(_) | Value::Array(_) | Value::Object(_) => 0,
    }
}

impl Usage {
    /// The tokens this usage says the context held: `totalTokens`, or the sum of its parts
    /// when the total is zero (pi's rule). The counts come from a file: a sum past `u64::MAX`
    /// stops there instead of wrapping to a small number.
    pub fn context_tokens(&self) -> u64 {
        if self.total_tokens > 0 {
            self.total_tokens
        } else {
            self.input
                .saturating_add(self.output)
                .saturating_add(self.cache_read)
                .saturating_add(self.cache_write)
        }
    }
}

/// A message the user typed (role `user`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct UserMessage {
    /// What the user sent: text, and images as blocks.
    #[serde(default)]
    pub content: Content,
    /// Fields this version does not model (`timestamp` among them), kept for the round trip.
    #[serde(flatten)]
    pub extra: Extra,
}

/// A reply of the model (role `assistant`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AssistantMessage {
    /// Text, thinking and tool-call blocks, in the order the model produced them.
    #[serde(default)]
    pub content: Vec<ContentBlock>,
    /// The provider that answered (`anthropic`, `openai`, …).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provider: Option<String>,
    /// The model id that answered.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// The token usage the provider reported for this request and reply.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<Usage>,
    /// `stop`, `length`, `toolUse`, `error` or `aborted` (kept as text so new reasons parse).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop_reason: Option<String>,
    /// The provider's error text when the reply failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error_message: Option<String>,
    /// Fields this version does not model (`api`, `timestamp`, …), kept for the round trip.
    #[serde(flatten)]
    pub extra: Extra,
}

impl AssistantMessage {
    /// Whether the reply ended in an error or was aborted; its usage then says nothing about
    /// the context.
    pub fn is_failed(&self) -> bool {
        matches!(self.stop_reason.as_deref(), Some("error") | Some("aborted"))
    }

    /// The tool calls of this reply, in order.
    pub fn tool_calls(&self) -> impl Iterator<Item = &ToolCall> {
        self.content.iter().filter_map(|block| match block {
            ContentBlock::ToolCall(call) => Some(call),
            ContentBlock::Text(_)
            | ContentBlock::Image(_)
            | ContentBlock::Thinking(_)
            | ContentBlock::Other(_) => None,
        })
    }
}

/// The output of a tool call (role `toolResult`); it follows the assistant message
/// holding the call.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolResultMessage {
    /// The id of the [`ToolCall`] this result answers.
    #[serde(default)]
    pub tool_call_id: String,
    /// The name of the tool that ran.
    #[serde(default)]
    pub tool_name: String,
    /// The tool's output: text and images.
    #[serde(default)]
    pub content: Content,
    /// Whether the tool reported a failure.
    #[serde(default)]
    pub is_error: bool,
    /// Fields this version does not model (`details`, `timestamp`, …), kept for the round trip.
    #[serde(flatten)]
    pub extra: Extra,
}

/// A shell command the user ran from the agent's prompt (role `bashExecution`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BashExecutionMessage {
    /// The command line.
    #[serde(default)]
    pub command: String,
    /// What the command printed (possibly truncated).
    #[serde(default)]
    pub output: String,
    /// The exit code, when the command finished.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exit_code: Option<i64>,
    /// Whether the user cancelled the command.
    #[serde(default)]
    pub cancelled: bool,
    /// Whether `output` was cut short.
    #[serde(default)]
    pub truncated: bool,
    /// Where the full output was saved when it was truncated.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub full_output_path: Option<String>,
    /// When true, the command is shown to the user but never sent to the model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exclude_from_context: Option<bool>,
    /// Fields this version does not model (`timestamp`, …), kept for the round trip.
    #[serde(flatten)]
    pub extra: Extra,
}

/// A message an extension put into the conversation (role `custom`); the model sees it
/// as user content.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CustomMessage {
    /// The extension's name for this kind of message.
    #[serde(default)]
    pub custom_type: String,
    /// What the model sees.
    #[serde(default)]
    pub content: Content,
    /// Whether the host shows it to the user.
    #[serde(default)]
    pub display: bool,
    /// Fields this version does not model (`details`, `timestamp`, …), kept for the round trip.
    #[serde(flatten)]
    pub extra: Extra,
}

impl CustomMessage {
    /// The project instruction file this message holds, when it says so: an importer marks
    /// the instructions another agent put in the context as a user-role message (Codex's
    /// `AGENTS.md` blocks) with `details.instructionFile` (the file's path, or its name), so
    /// the summarizer keeps their rules as it keeps those of an instruction file the agent
    /// read.
    pub fn instruction_file(&self) -> Option<&str> {
        self.extra.get("details")?.get(INSTRUCTION_FILE_DETAIL)?.as_str().filter(|f| !f.is_empty())
    }
}

/// The `details` key naming the project instruction file a custom message holds (see
/// [`CustomMessage::instruction_file`]).
pub const INSTRUCTION_FILE_DETAIL: &str = "instructionFile";

/// The in-memory form of a compaction or branch summary (roles `compactionSummary`,
/// `branchSummary`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SummaryMessage {
    /// The summary text.
    pub summary: String,
    /// Fields this version does not model, kept for the round trip.
    #[serde(flatten)]
    pub extra: Extra,
}

/// A message on the agent's side of the conversation, tagged by `role`.
#[derive(Debug, Clone, PartialEq)]
pub enum AgentMessage {
    /// Role `system` (pi 1.6): prompt sections and tool declarations.
    System(SystemMessage),
    /// Role `user`.
    User(UserMessage),
    /// Role `assistant`.
    Assistant(AssistantMessage),
    /// Role `toolResult`.
    ToolResult(ToolResultMessage),
    /// Role `bashExecution`.
    BashExecution(BashExecutionMessage),
    /// Role `custom` (`hookMessage` before version 3).
    Custom(CustomMessage),
    /// Role `branchSummary`.
    BranchSummary(SummaryMessage),
    /// Role `compactionSummary`.
    CompactionSummary(SummaryMessage),
    /// A role this version does not know, kept verbatim.
    Other(Value),
}

impl AgentMessage {
    /// The `role` string as stored in the session.
    pub fn role(&self) -> &str {
        match self {
            AgentMessage::System(_) => "system",
            AgentMessage::User(_) => "user",
            AgentMessage::Assistant(_) => "assistant",
            AgentMessage::ToolResult(_) => "toolResult",
            AgentMessage::BashExecution(_) => "bashExecution",
            AgentMessage::Custom(_) => "custom",
            AgentMessage::BranchSummary(_) => "branchSummary",
            AgentMessage::CompactionSummary(_) => "compactionSummary",
            AgentMessage::Other(value) => {
                value.get("role").and_then(Value::as_str).unwrap_or("unknown")
            }
        }
    }

    /// A user message with plain text content.
    pub fn user_text(text: impl Into<String>) -> Self {
        AgentMessage::User(UserMessage { content: Content::Text(text.into()), extra: Extra::new() })
    }
}

impl<'de> Deserialize<'de> for AgentMessage {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let value = Value::deserialize(deserializer)?;
        let role = value.get("role").and_then(Value::as_str).unwrap_or_default();
        let message = match role {
            "system" => AgentMessage::System(without_tag(value, "role").map_err(D::Error::custom)?),
            "user" => AgentMessage::User(without_tag(value, "role").map_err(D::Error::custom)?),
            "assistant" => {
                AgentMessage::Assistant(without_tag(value, "role").map_err(D::Error::custom)?)
            }
            "toolResult" => {
                AgentMessage::ToolResult(without_tag(value, "role").map_err(D::Error::custom)?)
            }
            "bashExecution" => {
                AgentMessage::BashExecution(without_tag(value, "role").map_err(D::Error::custom)?)
            }
            // `hookMessage` is the v2 name of `custom`; migration renames it on disk, and the
            // reader accepts it so an unmigrated message still reaches the model.
            "custom" | "hookMessage" => {
                AgentMessage::Custom(without_tag(value, "role").map_err(D::Error::custom)?)
            }
            "branchSummary" => {
                AgentMessage::BranchSummary(without_tag(value, "role").map_err(D::Error::custom)?)
            }
            "compactionSummary" => AgentMessage::CompactionSummary(
                without_tag(value, "role").map_err(D::Error::custom)?,
            ),
            _ => AgentMessage::Other(value),
        };
        Ok(message)
    }
}

impl Serialize for AgentMessage {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            AgentMessage::System(m) => with_tag("role", "system", m, serializer),
            AgentMessage::User(m) => with_tag("role", "user", m, serializer),
            AgentMessage::Assistant(m) => with_tag("role", "assistant", m, serializer),
            AgentMessage::ToolResult(m) => with_tag("role", "toolResult", m, serializer),
            AgentMessage::BashExecution(m) => with_tag("role", "bashExecution", m, serializer),
            AgentMessage::Custom(m) => with_tag("role", "custom", m, serializer),
            AgentMessage::BranchSummary(m) => with_tag("role", "branchSummary", m, serializer),
            AgentMessage::CompactionSummary(m) => {
                with_tag("role", "compactionSummary", m, serializer)
            }
            AgentMessage::Other(value) => value.serialize(serializer),
        }
    }
}

fn without_type<T: serde::de::DeserializeOwned>(value: Value) -> Result<T, serde_json::Error> {
    without_tag(value, "type")
}

fn without_tag<T: serde::de::DeserializeOwned>(
    mut value: Value,
    tag: &str,
) -> Result<T, serde_json::Error> {
    if let Value::Object(map) = &mut value {
        map.shift_remove(tag);
    }
    serde_json::from_value(value)
}

/// Serializes `inner` as an object with `tag` first.
fn with_tag<T: Serialize, S: Serializer>(
    tag: &str,
    name: &str,
    inner: &T,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    use serde::ser::Error as _;
    let value = serde_json::to_value(inner).map_err(S::Error::custom)?;
    let mut map = Map::new();
    map.insert(tag.to_owned(), Value::String(name.to_owned()));
    if let Value::Object(fields) = value {
        map.extend(fields);
    }
    Value::Object(map).serialize(serializer)
}
