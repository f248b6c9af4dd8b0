//! What a request carries: one completion ([`CompletionRequest`]) or a conversation of
//! [`ChatMessage`]s ([`ChatRequest`]).

use serde::{Deserialize, Serialize};

/// One completion to stream: system prompt, user message, output limit.
#[derive(Debug, Clone, Copy)]
pub struct CompletionRequest<'a> {
    /// System prompt.
    pub system: &'a str,
    /// The single user message.
    pub user: &'a str,
    /// Output token limit.
    pub max_output_tokens: u32,
}

/// Who wrote a message of a chat request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ChatRole {
    /// The user (or anything the agent feeds back, such as tool output).
    User,
    /// The model.
    Assistant,
}

impl ChatRole {
    /// The wire name: `user` or `assistant` (the same for both protocols).
    pub fn name(self) -> &'static str {
        match self {
            ChatRole::User => "user",
            ChatRole::Assistant => "assistant",
        }
    }
}

/// One plain-text message of a chat request.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChatMessage {
    /// `user` or `assistant`.
    pub role: ChatRole,
    /// The message text.
    pub content: String,
}

impl ChatMessage {
    /// A user message.
    pub fn user(content: impl Into<String>) -> Self {
        Self { role: ChatRole::User, content: content.into() }
    }

    /// An assistant message.
    pub fn assistant(content: impl Into<String>) -> Self {
        Self { role: ChatRole::Assistant, content: content.into() }
    }
}

/// A chat completion to stream: system prompt (may be empty), the conversation, output
/// limit.
#[derive(Debug, Clone, Copy)]
pub struct ChatRequest<'a> {
    /// System prompt; empty for none.
    pub system: &'a str,
    /// The conversation so far, oldest first.
    pub messages: &'a [ChatMessage],
    /// Output token limit.
    pub max_output_tokens: u32,
}
