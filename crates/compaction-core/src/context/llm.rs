//! What the model receives: pi's roles that are not LLM roles become user text (shell
//! commands the user ran, extension messages, summaries wrapped in `<summary>` tags);
//! system messages stay system messages.

use crate::message::{AgentMessage, Content, ContentBlock, Extra, UserMessage};

/// The preface put before a compaction summary in the context.
pub const COMPACTION_SUMMARY_PREFACE: &str = "Earlier turns of this conversation were condensed into the checkpoint below; \
     continue from it as if you remembered them.";

/// The preface put before a branch summary in the context.
pub const BRANCH_SUMMARY_PREFACE: &str =
    "The conversation came back from another branch of work; this is what happened there.";

/// Wraps a summary for the model: a one-line preface and the text in `<summary>` tags.
pub fn wrap_summary(preface: &str, summary: &str) -> String {
    format!("{preface}\n\n<summary>\n{summary}\n</summary>")
}

/// Renders a user's shell command and its output as the text the model reads.
pub fn bash_execution_text(message: &crate::message::BashExecutionMessage) -> String {
    let mut text = format!("The user ran a shell command:\n$ {}\n", message.command);
    if message.output.is_empty() {
        text.push_str("(no output)\n");
    } else {
        text.push_str(&message.output);
        if !message.output.ends_with('\n') {
            text.push('\n');
        }
    }
    if message.cancelled {
        text.push_str("[command cancelled]");
    } else {
        match message.exit_code {
            Some(code) => text.push_str(&format!("[exit code {code}]")),
            None => text.push_str("[exit code unknown]"),
        }
    }
    if message.truncated {
        match &message.full_output_path {
            Some(path) => text.push_str(&format!(" [output truncated; full output in {path}]")),
            None => text.push_str(" [output truncated]"),
        }
    }
    text
}

fn user_text_message(text: String, extra: &Extra) -> AgentMessage {
    let mut kept = Extra::new();
    if let Some(timestamp) = extra.get("timestamp") {
        kept.insert("timestamp".into(), timestamp.clone());
    }
    AgentMessage::User(UserMessage {
        content: Content::Blocks(vec![ContentBlock::text(text)]),
        extra: kept,
    })
}

/// Converts one agent message to what the LLM receives (`None`: left out).
pub fn to_llm(message: AgentMessage) -> Option<AgentMessage> {
    match message {
        AgentMessage::System(_)
        | AgentMessage::User(_)
        | AgentMessage::Assistant(_)
        | AgentMessage::ToolResult(_) => Some(message),
        AgentMessage::BashExecution(bash) => {
            if bash.exclude_from_context == Some(true) {
                None
            } else {
                Some(user_text_message(bash_execution_text(&bash), &bash.extra))
            }
        }
        AgentMessage::Custom(custom) => {
            let mut extra = Extra::new();
            if let Some(timestamp) = custom.extra.get("timestamp") {
                extra.insert("timestamp".into(), timestamp.clone());
            }
            Some(AgentMessage::User(UserMessage {
                content: Content::Blocks(custom.content.blocks()),
                extra,
            }))
        }
        AgentMessage::BranchSummary(summary) => Some(user_text_message(
            wrap_summary(BRANCH_SUMMARY_PREFACE, &summary.summary),
            &summary.extra,
        )),
        AgentMessage::CompactionSummary(summary) => Some(user_text_message(
            wrap_summary(COMPACTION_SUMMARY_PREFACE, &summary.summary),
            &summary.extra,
        )),
        AgentMessage::Other(_) => None,
    }
}
