//! Compacting a conversation held in memory, with no session file and no network.
//!
//! An agent that keeps its own history builds the pi-format lines in memory, asks the
//! [`Compactor`] for a compaction with [`Compactor::draft`] (the same path `compaction run`
//! takes, minus the write), appends the resulting entry to its history, and sends the
//! rebuilt context to its model. Run it with:
//!
//! ```text
//! cargo run -p compaction --example embed
//! ```

use compaction::compact::{CompactRequest, Compactor};
use compaction::compaction_core::context::build_context;
use compaction::compaction_core::message::joined_text;
use compaction::compaction_core::serialize::Redactor;
use compaction::compaction_core::{
    AgentMessage, CompactionSettings, estimator_by_name, parse_session,
};
use compaction::extension::Extensions;
use compaction::offline::OfflineSummarizer;
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

/// One entry line of a pi session, chained to the previous one.
fn entry(lines: &mut Vec<String>, message: Value) {
    let id = format!("{:08x}", lines.len());
    let parent = (lines.len() > 1).then(|| format!("{:08x}", lines.len() - 1));
    let line = json!({
        "type": "message", "id": id, "parentId": parent,
        "timestamp": "2026-01-05T10:00:00Z", "message": message,
    });
    lines.push(line.to_string());
}

/// A short coding conversation: the user's rule, a failing test, a fix, a new request.
fn conversation() -> Vec<String> {
    let header = json!({"type": "session", "version": 3, "id": "embedded",
        "timestamp": "2026-01-05T10:00:00Z", "cwd": "/work/app"});
    let mut lines = vec![header.to_string()];
    let filler = "The parser walks the token stream and builds the tree. ".repeat(40);
    for round in 0..6 {
        let ask = if round == 0 {
            "Fix the failing date test in src/dates.ts. Never change the public API.".to_owned()
        } else {
            format!("Round {round}: keep going with the date handling.")
        };
        entry(&mut lines, json!({"role": "user", "content": ask}));
        entry(
            &mut lines,
            json!({"role": "assistant", "content": [
            {"type": "text", "text": format!("Looking at it. {filler}")},
            {"type": "toolCall", "id": format!("call{round}"), "name": "edit",
             "arguments": {"path": "src/dates.ts", "oldText": "a", "newText": "b"}}],
            "stopReason": "toolUse"}),
        );
        entry(
            &mut lines,
            json!({"role": "toolResult", "toolCallId": format!("call{round}"),
            "toolName": "edit", "content": [{"type": "text", "text": "Edited src/dates.ts"}],
            "isError": false}),
        );
    }
    entry(&mut lines, json!({"role": "user", "content": "Now add a test for leap years."}));
    lines
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut lines = conversation();
    let session = parse_session(lines.join("\n").as_bytes());

    // Small budgets, so this short conversation is worth compacting.
    let settings = CompactionSettings {
        keep_recent_tokens: 400,
        reserve_tokens: 1_000,
        ..CompactionSettings::default()
    };
    let estimator = estimator_by_name("heuristic")?;
    let extensions = Extensions::default();
    let compactor = Compactor {
        summarizer: &OfflineSummarizer,
        settings: &settings,
        context_window: 8_192,
        estimator: estimator.as_ref(),
        redactor: Redactor::default(),
        extensions: &extensions,
    };
    let draft = compactor
        .draft(&session, &CompactRequest::default(), &CancellationToken::new(), &|_| {})
        .await?;
    println!(
        "{} → about {} tokens; quality: {:?}",
        draft.tokens_before,
        draft.tokens_after.unwrap_or_default(),
        draft.quality.as_ref().map(|q| q.status)
    );

    // Append the compaction to the history, as a host that writes its own entries does.
    let mut compaction = draft.fields.clone();
    compaction.insert("type".into(), "compaction".into());
    compaction.insert("id".into(), "c0mpac7d".into());
    compaction.insert("parentId".into(), draft.parent_id.clone().into());
    compaction.insert("timestamp".into(), "2026-01-05T11:00:00Z".into());
    lines.push(Value::Object(compaction).to_string());
    let session = parse_session(lines.join("\n").as_bytes());

    // What the model sees next: the summary, then the kept messages.
    let context = build_context(&session, session.leaf());
    for message in context.agent_messages(&session) {
        let text = match &message {
            AgentMessage::CompactionSummary(summary) => summary.summary.clone(),
            AgentMessage::User(user) => user.content.joined_text(),
            AgentMessage::ToolResult(result) => result.content.joined_text(),
            AgentMessage::Assistant(reply) => {
                joined_text(&reply.content).chars().take(80).collect()
            }
            AgentMessage::BashExecution(_)
            | AgentMessage::Custom(_)
            | AgentMessage::BranchSummary(_)
            | AgentMessage::System(_)
            | AgentMessage::Other(_) => format!("({} message)", message.role()),
        };
        println!("── {}\n{text}\n", message.role());
    }
    Ok(())
}
