//! A minimal chat agent on top of the harness: context → plain-text chat messages → one
//! streamed provider call → an assistant message in pi's shape.
//!
//! [`chat_loop`] is the whole terminal agent of `examples/chat.rs` (one user prompt per
//! input line, the reply streamed to the output), kept here so it can be tested with any
//! reader and writer. Invariant: the messages sent are exactly the harness's context, in
//! order; content the plain-text chat cannot carry (tool calls and results, images) is
//! rendered as text, never dropped silently; the session's system messages become the
//! system prompt, replayed into one.

use std::io::{BufRead, Write};
use std::sync::Mutex;
use std::time::{SystemTime, UNIX_EPOCH};

use compaction_core::AgentMessage;
use compaction_core::message::{AssistantMessage, Content, ContentBlock, Extra, Usage};
use serde_json::Value;
use tokio::sync::broadcast::error::TryRecvError;
use tokio_util::sync::CancellationToken;

use super::{CompactingSession, HarnessError, HarnessEvent};
use crate::error::SummarizerError;
use crate::provider::{ChatMessage, ChatRequest, ProviderClient};

/// Renders the harness context as plain-text chat messages: user and tool results as user
/// messages, assistant replies as assistant messages; consecutive messages of one role are
/// joined so the roles alternate.
pub fn chat_messages(context: &[AgentMessage]) -> Vec<ChatMessage> {
    let mut out: Vec<ChatMessage> = Vec::with_capacity(context.len());
    for message in context {
        let (role_is_user, text) = match message {
            AgentMessage::User(user) => (true, content_text(&user.content)),
            AgentMessage::Assistant(assistant) => (false, blocks_text(&assistant.content)),
            AgentMessage::ToolResult(result) => (
                true,
                format!("[tool result of {}]\n{}", result.tool_name, content_text(&result.content)),
            ),
            AgentMessage::BashExecution(_)
            | AgentMessage::Custom(_)
            | AgentMessage::BranchSummary(_)
            | AgentMessage::CompactionSummary(_)
            | AgentMessage::System(_)
            | AgentMessage::Other(_) => continue,
        };
        let next =
            if role_is_user { ChatMessage::user(text) } else { ChatMessage::assistant(text) };
        match out.last_mut() {
            Some(last) if last.role == next.role => {
                last.content.push_str("\n\n");
                last.content.push_str(&next.content);
            }
            Some(_) | None => out.push(next),
        }
    }
    out
}

fn content_text(content: &Content) -> String {
    match content {
        Content::Text(text) => text.clone(),
        Content::Blocks(blocks) => blocks_text(blocks),
    }
}

fn blocks_text(blocks: &[ContentBlock]) -> String {
    let parts: Vec<String> = blocks
        .iter()
        .filter_map(|block| match block {
            ContentBlock::Text(text) => Some(text.text.clone()),
            ContentBlock::ToolCall(call) => {
                Some(format!("[tool call {}: {}]", call.name, call.arguments))
            }
            ContentBlock::Image(image) => Some(format!("[image {}]", image.mime_type)),
            ContentBlock::Thinking(_) | ContentBlock::Other(_) => None,
        })
        .collect();
    parts.join("\n")
}

/// Milliseconds since the epoch, as pi stamps messages.
pub fn now_millis() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|elapsed| u64::try_from(elapsed.as_millis()).unwrap_or(u64::MAX))
        .unwrap_or(0)
}

/// A user message with a timestamp.
pub fn user_message(text: &str) -> AgentMessage {
    let mut message = AgentMessage::user_text(text);
    if let AgentMessage::User(user) = &mut message {
        user.extra.insert("timestamp".to_owned(), Value::from(now_millis()));
    }
    message
}

/// Sends `context` to `client` as a chat, streaming reply text to `on_text`, and returns the
/// reply as an assistant message (with the usage the provider reported, when it did).
pub async fn call_model(
    client: &ProviderClient,
    provider: &str,
    system: &str,
    max_output_tokens: u32,
    context: &[AgentMessage],
    cancel: &CancellationToken,
    on_text: &(dyn Fn(&str) + Send + Sync),
) -> Result<AgentMessage, SummarizerError> {
    let messages = chat_messages(context);
    // The session's own system messages (pi 1.6) replayed into one prompt replace the
    // default: a plain chat carries the prompt only at the head.
    let replayed =
        compaction_core::message::SystemMessage::replay(context.iter().filter_map(|message| {
            if let AgentMessage::System(system) = message { Some(system) } else { None }
        }))
        .map(|system| system.prompt_text())
        .filter(|text| !text.is_empty());
    let system = replayed.as_deref().unwrap_or(system);
    let request = ChatRequest { system, messages: &messages, max_output_tokens };
    let response = client.chat(&request, cancel, on_text).await?;
    let total = response.usage.total_tokens();
    let usage = (total > 0).then(|| Usage {
        input: response.usage.input_tokens,
        output: response.usage.output_tokens,
        cache_read: response.usage.cache_read_tokens,
        cache_write: response.usage.cache_write_tokens,
        total_tokens: total,
        extra: Extra::new(),
    });
    let mut extra = Extra::new();
    extra.insert("api".to_owned(), Value::from("openai-completions"));
    extra.insert("timestamp".to_owned(), Value::from(now_millis()));
    Ok(AgentMessage::Assistant(AssistantMessage {
        content: vec![ContentBlock::text(response.text)],
        provider: Some(provider.to_owned()),
        model: Some(client.config().model.clone()),
        usage,
        stop_reason: Some(if response.truncated { "length" } else { "stop" }.to_owned()),
        error_message: None,
        extra,
    }))
}

/// Options of [`chat_loop`].
#[derive(Debug, Clone)]
pub struct ChatOptions {
    /// System prompt sent with every call.
    pub system_prompt: String,
    /// Output limit of each reply.
    pub max_output_tokens: u32,
}

/// What a [`chat_loop`] run did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ChatStats {
    /// Turns answered.
    pub turns: usize,
    /// Compactions run.
    pub compactions: usize,
    /// Turns that failed.
    pub failed_turns: usize,
}

/// The terminal agent: reads one prompt per line from `input` (blank lines are skipped,
/// `/compact` compacts by hand), streams each reply to `output`, and reports compactions
/// and errors on `output` as lines starting with `[`. Ends at the end of the input.
pub async fn chat_loop(
    session: &mut CompactingSession,
    client: &ProviderClient,
    options: &ChatOptions,
    input: impl BufRead,
    output: &mut (dyn Write + Send),
) -> Result<ChatStats, HarnessError> {
    let mut events = session.subscribe();
    let mut stats = ChatStats::default();
    let provider = session.model().provider.clone();
    let write_error = HarnessError::Terminal;
    for line in input.lines() {
        let line = line.map_err(write_error)?;
        let prompt = line.trim();
        if prompt.is_empty() {
            continue;
        }
        if prompt == "/compact" {
            if let Err(error) = session.compact(None).await {
                writeln!(output, "[compaction failed: {error}]").map_err(write_error)?;
            }
        } else {
            session.append_message(&user_message(prompt))?;
            let sink = Mutex::new(&mut *output);
            let on_text = |text: &str| {
                if let Ok(mut writer) = sink.lock() {
                    let _ = writer.write_all(text.as_bytes());
                    let _ = writer.flush();
                }
            };
            let cancel = CancellationToken::new();
            let call = |context: Vec<AgentMessage>| {
                let (cancel, on_text, provider) = (&cancel, &on_text, &provider);
                async move {
                    call_model(
                        client,
                        provider,
                        &options.system_prompt,
                        options.max_output_tokens,
                        &context,
                        cancel,
                        on_text,
                    )
                    .await
                }
            };
            let mut result = session.run_turn(&call).await;
            if let Err(error @ HarnessError::CompactionIneffective { .. }) = &result {
                // Reported once; automatic compaction is paused, so the turn can go ahead.
                let notice = format!("[warning: {error}]\n");
                on_text(&notice);
                result = session.run_turn(&call).await;
            }
            match result {
                Ok(_) => {
                    stats.turns += 1;
                    writeln!(output).map_err(write_error)?;
                }
                Err(HarnessError::Store(error)) => return Err(HarnessError::Store(error)),
                Err(error) => {
                    stats.failed_turns += 1;
                    writeln!(output, "[turn failed: {error}]").map_err(write_error)?;
                }
            }
        }
        loop {
            match events.try_recv() {
                Ok(HarnessEvent::CompactionFinished { reason, result: Ok(done) }) => {
                    stats.compactions += 1;
                    writeln!(
                        output,
                        "[compacted ({}): {}]",
                        reason.as_str(),
                        crate::compact::token_change(
                            done.tokens_before,
                            done.tokens_after,
                            "the summary is longer than what it replaced"
                        )
                    )
                    .map_err(write_error)?;
                }
                Ok(HarnessEvent::CompactionFinished { result: Err(error), .. }) => {
                    writeln!(output, "[compaction failed: {error}]").map_err(write_error)?;
                }
                Ok(HarnessEvent::ExtensionWarning(warning)) => {
                    writeln!(output, "[extension warning: {warning}]").map_err(write_error)?;
                }
                Ok(HarnessEvent::FilesRestored(restore)) => {
                    if !restore.restored.is_empty() {
                        let paths: Vec<&str> =
                            restore.restored.iter().map(|file| file.path.as_str()).collect();
                        writeln!(output, "[restored {}]", paths.join(", ")).map_err(write_error)?;
                    }
                }
                Ok(HarnessEvent::Pruned(pruned)) => {
                    writeln!(
                        output,
                        "[pruned {} old tool outputs: {}]",
                        pruned.entry_ids.len(),
                        crate::compact::token_change(
                            pruned.tokens_before,
                            pruned.tokens_after,
                            "the placeholders are longer than the outputs"
                        )
                    )
                    .map_err(write_error)?;
                }
                Ok(
                    HarnessEvent::CompactionStarted { .. }
                    | HarnessEvent::CompactionSkipped { .. }
                    | HarnessEvent::BranchSummaryStarted { .. }
                    | HarnessEvent::BranchSummaryFinished { .. },
                )
                | Err(TryRecvError::Lagged(_)) => {}
                Err(TryRecvError::Empty | TryRecvError::Closed) => break,
            }
        }
    }
    Ok(stats)
}

#[cfg(test)]
mod tests {
    use super::*;
    use compaction_core::message::{ToolCall, ToolResultMessage};
    use pretty_assertions::assert_eq;

    #[test]
    fn context_becomes_alternating_text_messages() {
        let assistant = AgentMessage::Assistant(AssistantMessage {
            content: vec![
                ContentBlock::text("Reading it."),
                ContentBlock::ToolCall(ToolCall {
                    id: "c1".into(),
                    name: "read".into(),
                    arguments: serde_json::json!({"path": "a.rs"}),
                    extra: Extra::new(),
                }),
            ],
            provider: None,
            model: None,
            usage: None,
            stop_reason: None,
            error_message: None,
            extra: Extra::new(),
        });
        let result = AgentMessage::ToolResult(ToolResultMessage {
            tool_call_id: "c1".into(),
            tool_name: "read".into(),
            content: Content::Text("fn main() {}".into()),
            is_error: false,
            extra: Extra::new(),
        });
        let context = vec![
            AgentMessage::user_text("look"),
            assistant,
            result,
            AgentMessage::user_text("and?"),
        ];
        assert_eq!(
            chat_messages(&context),
            vec![
                ChatMessage::user("look"),
                ChatMessage::assistant("Reading it.\n[tool call read: {\"path\":\"a.rs\"}]"),
                ChatMessage::user("[tool result of read]\nfn main() {}\n\nand?"),
            ]
        );
    }
}
