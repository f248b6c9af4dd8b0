//! Unit tests of the offline summarizer's stages; `shapes` holds one test per rule that
//! real sessions needed (other ecosystems' output, corrections, open turns, carried items).
//! `stages` tests each stage on its own, `rules` the rules real sessions asked for and the
//! invariants on arbitrary messages, `held_out` the sessions written before the summarizer
//! ran on them, `transcripts` the rules real transcripts of other agents asked for.

mod carried;
mod classes;
mod held_out;
mod logs;
mod questions;
mod round_trip;
mod rules;
mod settled;
mod shapes;
mod stages;
mod transcripts;

use super::extract::*;
use super::previous::PreviousSummary;
use super::render::*;
use super::scan::*;
use super::sections::*;
use super::text::*;
use super::*;
use crate::message::{Content, ContentBlock};
use serde_json::Value;

use crate::message::{AssistantMessage, BashExecutionMessage, Extra, ToolCall, ToolResultMessage};
use serde_json::json;

fn user(text: &str) -> AgentMessage {
    AgentMessage::user_text(text)
}

fn assistant(text: &str, calls: &[(&str, &str, Value)]) -> AgentMessage {
    let mut content = Vec::new();
    if !text.is_empty() {
        content.push(ContentBlock::text(text));
    }
    for (id, name, arguments) in calls {
        content.push(ContentBlock::ToolCall(ToolCall {
            id: (*id).to_owned(),
            name: (*name).to_owned(),
            arguments: arguments.clone(),
            extra: Extra::new(),
        }));
    }
    AgentMessage::Assistant(AssistantMessage {
        content,
        provider: None,
        model: None,
        usage: None,
        // A reply with calls waits for their results; one without ends the turn.
        stop_reason: Some(if calls.is_empty() { "stop" } else { "toolUse" }.to_owned()),
        error_message: None,
        extra: Extra::new(),
    })
}

fn result(id: &str, name: &str, text: &str, is_error: bool) -> AgentMessage {
    AgentMessage::ToolResult(ToolResultMessage {
        tool_call_id: id.to_owned(),
        tool_name: name.to_owned(),
        content: Content::Blocks(vec![ContentBlock::text(text)]),
        is_error,
        extra: Extra::new(),
    })
}

fn bash_run(command: &str, output: &str, exit_code: i64) -> AgentMessage {
    AgentMessage::BashExecution(BashExecutionMessage {
        command: command.to_owned(),
        output: output.to_owned(),
        exit_code: Some(exit_code),
        cancelled: false,
        truncated: false,
        full_output_path: None,
        exclude_from_context: None,
        extra: Extra::new(),
    })
}

fn summarize(messages: &[AgentMessage]) -> String {
    summarize_within(messages, 20_000)
}

/// A history summary of `messages` within `max_chars`.
fn summarize_within(messages: &[AgentMessage], max_chars: usize) -> String {
    summarize_offline(&OfflineInput {
        after: &[],
        kind: OfflineKind::History,
        messages,
        previous_summary: None,
        instructions: None,
        pins: &[],
        max_chars,
    })
}

/// A summary of `messages` after `previous`, within `max_chars`.
fn summarize_after(messages: &[AgentMessage], previous: &str, max_chars: usize) -> String {
    summarize_offline(&OfflineInput {
        after: &[],
        kind: OfflineKind::History,
        messages,
        previous_summary: Some(previous),
        instructions: None,
        pins: &[],
        max_chars,
    })
}

/// The bullets under `heading`, up to the next heading.
fn bullets(summary: &str, heading: &str) -> Vec<String> {
    let mut lines = summary.lines().skip_while(|line| *line != heading).skip(1);
    let mut out = Vec::new();
    for line in lines.by_ref() {
        if line.starts_with('#') {
            break;
        }
        if let Some(bullet) = line.strip_prefix("- ") {
            out.push(bullet.to_owned());
        }
    }
    out
}

const HEADINGS: [&str; 9] = [
    "## Goal",
    "## Constraints & Preferences",
    "## Progress",
    "### Done",
    "### In Progress",
    "### Blocked",
    "## Key Decisions",
    "## Next Steps",
    "## Critical Context",
];

fn assert_structure(summary: &str) {
    // Goal always; the other headings only over items, in order; never an empty section.
    assert!(summary.starts_with("## Goal\n"), "{summary}");
    let mut last = 0;
    for line in summary.lines().filter(|line| line.starts_with('#')) {
        let position = HEADINGS
            .iter()
            .position(|heading| *heading == line)
            .unwrap_or_else(|| panic!("unknown heading {line}:\n{summary}"));
        assert!(position >= last, "{line} out of order:\n{summary}");
        last = position;
    }
    assert!(!summary.contains("(none)"), "{summary}");
}

fn aborted() -> AgentMessage {
    AgentMessage::Assistant(AssistantMessage {
        content: Vec::new(),
        provider: None,
        model: None,
        usage: None,
        stop_reason: Some("aborted".to_owned()),
        error_message: Some("Request was aborted".to_owned()),
        extra: Extra::new(),
    })
}
