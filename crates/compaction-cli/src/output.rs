//! Shared output helpers: JSON printing and short previews of messages.

use compaction_core::message::{AgentMessage, ContentBlock};
use serde::Serialize;

/// Prints a value as pretty JSON on stdout.
pub fn print_json<T: Serialize>(value: &T) -> anyhow::Result<()> {
    use std::io::Write as _;
    let mut stdout = std::io::stdout().lock();
    serde_json::to_writer_pretty(&mut stdout, value)?;
    writeln!(stdout)?;
    Ok(())
}

/// Collapses whitespace and cuts text to `max` characters with an ellipsis.
pub fn preview(text: &str, max: usize) -> String {
    let mut out = String::new();
    let mut count = 0;
    let mut last_space = false;
    for ch in text.chars() {
        let ch = if ch.is_whitespace() { ' ' } else { ch };
        if ch == ' ' && (last_space || out.is_empty()) {
            continue;
        }
        last_space = ch == ' ';
        if count == max {
            out.truncate(out.trim_end().len());
            out.push('…');
            return out;
        }
        out.push(ch);
        count += 1;
    }
    out.trim_end().to_owned()
}

/// A one-line description of a message: its first text, or its tool calls.
pub fn message_preview(message: &AgentMessage, max: usize) -> String {
    let text = match message {
        AgentMessage::User(user) => user.content.joined_text(),
        AgentMessage::Assistant(assistant) => {
            let text = compaction_core::message::joined_text(&assistant.content);
            let calls: Vec<String> = assistant
                .tool_calls()
                .map(|call| {
                    let target = call
                        .arguments
                        .get("path")
                        .or_else(|| call.arguments.get("command"))
                        .and_then(serde_json::Value::as_str)
                        .map(|s| format!(" {s}"))
                        .unwrap_or_default();
                    format!("{}{target}", call.name)
                })
                .collect();
            match (text.trim().is_empty(), calls.is_empty()) {
                (false, true) => text,
                (false, false) => format!("{text} → {}", calls.join(", ")),
                (true, false) => format!("→ {}", calls.join(", ")),
                (true, true) => {
                    let thinking = assistant.content.iter().find_map(|b| {
                        if let ContentBlock::Thinking(t) = b {
                            Some(t.thinking.clone())
                        } else {
                            None
                        }
                    });
                    thinking.map(|t| format!("(thinking) {t}")).unwrap_or_default()
                }
            }
        }
        AgentMessage::ToolResult(result) => {
            let prefix = if result.is_error { "error: " } else { "" };
            format!("{}{prefix}{}", result.tool_name, {
                let text = result.content.joined_text();
                if text.is_empty() { String::new() } else { format!(": {text}") }
            })
        }
        AgentMessage::BashExecution(bash) => format!("$ {}", bash.command),
        AgentMessage::Custom(custom) => {
            format!("{}: {}", custom.custom_type, custom.content.joined_text())
        }
        AgentMessage::BranchSummary(summary) | AgentMessage::CompactionSummary(summary) => {
            summary.summary.clone()
        }
        AgentMessage::Other(value) => value.to_string(),
    };
    preview(&text, max)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn preview_collapses_whitespace_and_cuts() {
        assert_eq!(preview("  a\n\n b  ", 10), "a b");
        assert_eq!(preview("abcdefgh", 4), "abcd…");
        assert_eq!(preview("日本語のテキスト", 3), "日本語…");
    }
}
