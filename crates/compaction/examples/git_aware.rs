//! Git-aware compaction as a Rust extension.
//!
//! Messages that ran git commands (a `bash` tool call whose command runs `git`, its result,
//! or a shell command the user ran with `git`) are kept verbatim in the summary's preserved
//! section; the rest is condensed into a short deterministic summary listing the user's
//! requests. `details` records `preservedGitOps`: the number of git commands preserved.
//! When nothing ran git, the extension steps aside and the built-in summary runs.
//!
//! Run the demo with `cargo run -p compaction --example git_aware`.

use std::collections::HashSet;
use std::sync::Arc;

use compaction::extension::{
    BeforeCompactEvent, CompactionDecision, Decision, Extension, Extensions, HookFuture,
    Replacement,
};
use compaction_core::AgentMessage;
use compaction_core::message::Content;
use compaction_core::prepare::{PrepareOptions, prepare_compaction};
use serde_json::{Value, json};

/// The extension: no state, deterministic output.
pub struct GitAware;

/// Whether a shell command line runs git in one of its `;`, `&`, `|` or newline separated
/// parts.
pub fn runs_git(command: &str) -> bool {
    command
        .split([';', '&', '|', '\n', '('])
        .map(str::trim_start)
        .any(|part| part == "git" || part.starts_with("git "))
}

/// The git commands a message ran (tool calls named `bash`, or the user's shell command).
fn git_commands(message: &AgentMessage) -> Vec<String> {
    match message {
        AgentMessage::Assistant(assistant) => assistant
            .tool_calls()
            .filter(|call| call.name == "bash")
            .filter_map(|call| call.arguments.get("command").and_then(Value::as_str))
            .filter(|command| runs_git(command))
            .map(str::to_owned)
            .collect(),
        AgentMessage::BashExecution(bash) if runs_git(&bash.command) => vec![bash.command.clone()],
        AgentMessage::User(_)
        | AgentMessage::BashExecution(_)
        | AgentMessage::ToolResult(_)
        | AgentMessage::Custom(_)
        | AgentMessage::BranchSummary(_)
        | AgentMessage::CompactionSummary(_)
        | AgentMessage::System(_)
        | AgentMessage::Other(_) => Vec::new(),
    }
}

/// Ids of the git tool calls made by an assistant message.
fn git_call_ids(message: &AgentMessage) -> Vec<String> {
    let AgentMessage::Assistant(assistant) = message else { return Vec::new() };
    assistant
        .tool_calls()
        .filter(|call| call.name == "bash")
        .filter(|call| call.arguments.get("command").and_then(Value::as_str).is_some_and(runs_git))
        .map(|call| call.id.clone())
        .collect()
}

fn one_line(text: &str, max_chars: usize) -> String {
    let line = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if line.chars().count() > max_chars {
        format!("{}…", line.chars().take(max_chars).collect::<String>())
    } else {
        line
    }
}

impl GitAware {
    /// The replacement for these messages (with their entry ids), or `None` when none ran git.
    pub fn replacement(messages: &[AgentMessage], ids: &[&str]) -> Option<Replacement> {
        let mut kept = Vec::new();
        let mut git_ops = 0usize;
        let mut git_calls = HashSet::new();
        let mut requests = Vec::new();
        for (message, id) in messages.iter().zip(ids) {
            let commands = git_commands(message);
            if !commands.is_empty() {
                git_ops += commands.len();
                git_calls.extend(git_call_ids(message));
                kept.push((*id).to_owned());
            } else if let AgentMessage::ToolResult(result) = message
                && git_calls.contains(&result.tool_call_id)
            {
                kept.push((*id).to_owned());
            } else if let AgentMessage::User(user) = message {
                let text = match &user.content {
                    Content::Text(text) => text.clone(),
                    Content::Blocks(_) => user.content.joined_text(),
                };
                requests.push(format!("- {}", one_line(&text, 200)));
            }
        }
        if git_ops == 0 {
            return None;
        }
        let mut summary = format!(
            "Earlier conversation: {} messages condensed; {git_ops} git command(s) preserved below.",
            messages.len()
        );
        if !requests.is_empty() {
            summary.push_str("\n\nUser requests, oldest first:\n");
            summary.push_str(&requests.join("\n"));
        }
        Some(Replacement {
            summary,
            kept_message_ids: Some(kept),
            details: Some(json!({ "preservedGitOps": git_ops })),
            ..Replacement::default()
        })
    }
}

impl Extension for GitAware {
    fn name(&self) -> &str {
        "git-aware"
    }

    fn before_compact<'a>(&'a self, event: &'a BeforeCompactEvent<'_>) -> HookFuture<'a, Decision> {
        Box::pin(async move {
            let preparation = event.preparation;
            let messages: Vec<AgentMessage> = preparation
                .messages_to_summarize
                .iter()
                .chain(&preparation.turn_prefix_messages)
                .cloned()
                .collect();
            let mut ids = event.summarized_entry_ids();
            ids.extend(event.turn_prefix_entry_ids());
            Ok(match GitAware::replacement(&messages, &ids) {
                Some(replacement) => Decision::Replace(replacement),
                None => Decision::carry_on(),
            })
        })
    }
}

const DEMO_SESSION: &str = r#"{"type":"session","version":3,"id":"demo","timestamp":"2025-01-01T00:00:00Z","cwd":"/repo"}
{"type":"message","id":"u1","parentId":null,"timestamp":"2025-01-01T00:00:01Z","message":{"role":"user","content":"Tidy up the parser and commit it."}}
{"type":"message","id":"a1","parentId":"u1","timestamp":"2025-01-01T00:00:02Z","message":{"role":"assistant","content":[{"type":"toolCall","id":"c1","name":"bash","arguments":{"command":"git status --short"}}]}}
{"type":"message","id":"t1","parentId":"a1","timestamp":"2025-01-01T00:00:03Z","message":{"role":"toolResult","toolCallId":"c1","toolName":"bash","content":[{"type":"text","text":" M src/parser.rs"}],"isError":false}}
{"type":"message","id":"a2","parentId":"t1","timestamp":"2025-01-01T00:00:04Z","message":{"role":"assistant","content":[{"type":"text","text":"The parser is tidied."}]}}
{"type":"message","id":"u2","parentId":"a2","timestamp":"2025-01-01T00:00:05Z","message":{"role":"user","content":"Now add tests."}}
{"type":"message","id":"a3","parentId":"u2","timestamp":"2025-01-01T00:00:06Z","message":{"role":"assistant","content":[{"type":"text","text":"Tests added."}]}}
"#;

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let session = compaction_core::parse_session(DEMO_SESSION.as_bytes());
    let options = PrepareOptions {
        keep_recent_tokens: 150,
        reserve_tokens: 0,
        min_turns_to_keep: 0,
        max_summary_tokens: 0,
        keep_user_messages_tokens: 0,
        context_window: 1_000_000,
    };
    let preparation = match prepare_compaction(&session, session.leaf(), options, &|_| 100, 600) {
        Ok(preparation) => preparation,
        Err(reason) => {
            eprintln!("nothing to compact: {reason}");
            return;
        }
    };
    let settings = json!({});
    let event = BeforeCompactEvent {
        session: &session,
        preparation: &preparation,
        custom_instructions: None,
        reason: Default::default(),
        settings: &settings,
        cancel: Default::default(),
    };
    let extensions = Extensions::new().with(Arc::new(GitAware));
    let result = extensions.decide_compaction(&event).await;
    for warning in &result.warnings {
        eprintln!("warning: {warning}");
    }
    match result.decision {
        CompactionDecision::Replaced { replacement, extension } => {
            println!(
                "{extension} replaced the summary; first kept entry {}",
                replacement.first_kept_entry_id
            );
            println!("details: {}", json!(replacement.details));
            println!("\n{}", replacement.summary);
        }
        CompactionDecision::BuiltIn { .. } => println!("the built-in summary would run"),
        CompactionDecision::Cancelled { reason, extension } => {
            println!("{extension} cancelled: {reason}")
        }
    }
}
