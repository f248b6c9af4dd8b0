//! Exports of small sessions written for these tests, read back as the agents read them and
//! through [`crate::import`].

use std::collections::HashSet;

use pretty_assertions::assert_eq;
use serde_json::Value;

use super::*;
use crate::message::AgentMessage;
use crate::parse_session;

const ID: &str = "0f1e2d3c-4b5a-4978-8695-a4b3c2d1e0f9";

/// A session: one summarized turn, a compaction keeping the second turn (a bash call and its
/// result), then a turn after the compaction with unsigned reasoning and a secret.
fn session() -> Session {
    let lines = [
        r#"{"type":"session","version":3,"id":"s","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/work/app"}"#,
        r#"{"type":"message","id":"u1","parentId":null,"timestamp":"2025-01-01T00:00:01.000Z","message":{"role":"user","content":"SUMMARIZED question about the parser","timestamp":1}}"#,
        r#"{"type":"message","id":"a1","parentId":"u1","timestamp":"2025-01-01T00:00:02.000Z","message":{"role":"assistant","content":[{"type":"text","text":"SUMMARIZED answer"}],"api":"openai-completions","provider":"openai","model":"gpt-x","usage":{"input":1,"output":1,"cacheRead":0,"cacheWrite":0,"totalTokens":2},"stopReason":"stop","timestamp":2}}"#,
        r#"{"type":"message","id":"u2","parentId":"a1","timestamp":"2025-01-01T00:00:03.000Z","message":{"role":"user","content":"KEPT run the tests","timestamp":3}}"#,
        r#"{"type":"message","id":"a2","parentId":"u2","timestamp":"2025-01-01T00:00:04.000Z","message":{"role":"assistant","content":[{"type":"toolCall","id":"call_1","name":"bash","arguments":{"command":"cargo test","timeout":30}},{"type":"toolCall","id":"call_2","name":"edit","arguments":{"path":"src/a.rs","edits":[{"oldText":"a","newText":"b"}]}}],"api":"openai-completions","provider":"openai","model":"gpt-x","usage":{"input":1,"output":1,"cacheRead":0,"cacheWrite":0,"totalTokens":2},"stopReason":"toolUse","timestamp":4}}"#,
        r#"{"type":"message","id":"r1","parentId":"a2","timestamp":"2025-01-01T00:00:05.000Z","message":{"role":"toolResult","toolCallId":"call_1","toolName":"bash","content":[{"type":"text","text":"KEPT test result: ok"}],"isError":false,"timestamp":5}}"#,
        r#"{"type":"compaction","id":"c1","parentId":"r1","timestamp":"2025-01-01T00:00:06.000Z","summary":"SUMMARY of the parser work","firstKeptEntryId":"u2","tokensBefore":100}"#,
        r#"{"type":"message","id":"u3","parentId":"c1","timestamp":"2025-01-01T00:00:07.000Z","message":{"role":"user","content":"KEPT the key is sk-abcdefghijklmnopqrstuvwxyz012345","timestamp":7}}"#,
        r#"{"type":"message","id":"a3","parentId":"u3","timestamp":"2025-01-01T00:00:08.000Z","message":{"role":"assistant","content":[{"type":"thinking","thinking":"unsigned reasoning"},{"type":"text","text":"KEPT final answer"}],"api":"openai-completions","provider":"openai","model":"gpt-x","usage":{"input":1,"output":1,"cacheRead":0,"cacheWrite":0,"totalTokens":2},"stopReason":"stop","timestamp":8}}"#,
    ];
    parse_session(lines.join("\n").as_bytes())
}

fn options() -> ExportOptions {
    ExportOptions {
        session_id: ID.into(),
        cwd: "/work/app".into(),
        timestamp: "2026-01-01T00:00:00.000Z".into(),
    }
}

fn run(format: TargetFormat) -> Exported {
    let session = session();
    export(&session, session.leaf(), format, &options(), &Redactor::default()).unwrap()
}

fn lines(exported: &Exported) -> Vec<Value> {
    exported.transcript.lines().map(|line| serde_json::from_str(line).unwrap()).collect()
}

#[test]
fn claude_code_carries_the_summary_after_a_compact_boundary_then_the_kept_messages() {
    let exported = run(TargetFormat::ClaudeCode);
    let lines = lines(&exported);
    assert_eq!(lines[0]["type"], "system");
    assert_eq!(lines[0]["subtype"], "compact_boundary");
    assert_eq!(lines[0]["parentUuid"], Value::Null);
    assert_eq!(lines[1]["isCompactSummary"], true);
    let summary = lines[1]["message"]["content"].as_str().unwrap();
    assert!(summary.starts_with(CLAUDE_CODE_SUMMARY_PREFACE));
    assert!(summary.contains("SUMMARY of the parser work"));
    // The chain: every line's parent is the line before it; ids are unique UUIDs.
    let mut seen = HashSet::new();
    for pair in lines.windows(2) {
        assert_eq!(pair[1]["parentUuid"], pair[0]["uuid"]);
    }
    for line in &lines {
        let uuid = line["uuid"].as_str().unwrap();
        assert!(is_uuid(uuid), "{uuid}");
        assert!(seen.insert(uuid.to_owned()));
        assert_eq!(line["sessionId"], ID);
        assert_eq!(line["cwd"], "/work/app");
    }
    let text = &exported.transcript;
    assert!(!text.contains("SUMMARIZED"), "a summarized message was written");
    assert!(text.contains("KEPT run the tests") && text.contains("KEPT final answer"));
    // pi's bash and edit as Claude Code's tools, with its argument names and units.
    let calls = &lines[3]["message"]["content"];
    assert_eq!(calls[0]["name"], "Bash");
    assert_eq!(calls[0]["input"]["timeout"], 30000);
    assert_eq!(calls[1]["name"], "Edit");
    assert_eq!(calls[1]["input"]["file_path"], "src/a.rs");
    assert_eq!(calls[1]["input"]["old_string"], "a");
    // Both results in the user line after the reply; the missing one added as an error.
    let results = lines[4]["message"]["content"].as_array().unwrap();
    assert_eq!(results.len(), 2);
    assert_eq!(results[0]["tool_use_id"], "call_1");
    assert_eq!(results[1]["tool_use_id"], "call_2");
    assert_eq!(results[1]["is_error"], true);
    assert_eq!(exported.report.added.get("result for a call that had none"), Some(&1));
}

#[test]
fn codex_carries_the_summary_as_a_compacted_line_then_the_kept_items() {
    let exported = run(TargetFormat::Codex);
    let lines = lines(&exported);
    assert_eq!(lines[0]["type"], "session_meta");
    assert_eq!(lines[0]["payload"]["id"], ID);
    assert_eq!(lines[0]["payload"]["cwd"], "/work/app");
    assert_eq!(lines[1]["type"], "compacted");
    assert_eq!(lines[1]["payload"]["message"], "SUMMARY of the parser work");
    let history = lines[1]["payload"]["replacement_history"].as_array().unwrap();
    assert_eq!(history.len(), 1);
    let text = history[0]["content"][0]["text"].as_str().unwrap();
    assert!(text.starts_with(CODEX_SUMMARY_PREFIX) && text.ends_with("SUMMARY of the parser work"));
    let items: Vec<&Value> = lines[2..].iter().map(|line| &line["payload"]).collect();
    let kinds: Vec<&str> = items.iter().map(|item| item["type"].as_str().unwrap()).collect();
    assert_eq!(
        kinds,
        [
            "message",
            "function_call",
            "function_call",
            "function_call_output",
            "function_call_output",
            "message",
            "message"
        ]
    );
    assert_eq!(items[1]["name"], "shell");
    let arguments: Value = serde_json::from_str(items[1]["arguments"].as_str().unwrap()).unwrap();
    assert_eq!(arguments["command"], serde_json::json!(["bash", "-lc", "cargo test"]));
    assert_eq!(arguments["timeout_ms"], 30000);
    assert_eq!(items[3]["output"], "KEPT test result: ok");
    assert!(items[4]["output"].as_str().unwrap().contains(conversation::MISSING_RESULT));
    assert!(!exported.transcript.contains("SUMMARIZED"));
    assert!(!exported.transcript.contains("unsigned reasoning"));
    assert_eq!(
        exported.report.dropped.get("reasoning (Codex replays only its own, encrypted)"),
        Some(&1)
    );
}

#[test]
fn every_text_written_is_redacted() {
    for format in [TargetFormat::ClaudeCode, TargetFormat::Codex] {
        let exported = run(format);
        assert!(!exported.transcript.contains("sk-abcdefghijklmnopqrstuvwxyz012345"));
        assert!(exported.transcript.contains("[REDACTED]"));
        assert_eq!(exported.report.redacted_texts, 1, "{format:?}");
    }
}

#[test]
fn the_same_input_gives_the_same_bytes() {
    for format in [TargetFormat::ClaudeCode, TargetFormat::Codex] {
        assert_eq!(run(format).transcript, run(format).transcript);
    }
}

#[test]
fn a_session_id_that_is_not_a_uuid_is_refused() {
    let session = session();
    let mut options = options();
    options.session_id = "not-a-uuid".into();
    let error =
        export(&session, session.leaf(), TargetFormat::Codex, &options, &Redactor::default())
            .unwrap_err();
    assert_eq!(error, ExportError::BadSessionId("not-a-uuid".into()));
}

#[test]
fn an_empty_context_is_refused() {
    let session = parse_session(
        br#"{"type":"session","version":3,"id":"s","timestamp":"2025-01-01T00:00:00Z","cwd":"/"}"#,
    );
    let error = export(&session, None, TargetFormat::ClaudeCode, &options(), &Redactor::default())
        .unwrap_err();
    assert_eq!(error, ExportError::Empty);
}

#[test]
fn a_result_whose_call_is_not_in_the_context_becomes_user_text() {
    let text = [
        r#"{"type":"session","version":3,"id":"s","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/"}"#,
        r#"{"type":"message","id":"r0","parentId":null,"timestamp":"2025-01-01T00:00:01.000Z","message":{"role":"toolResult","toolCallId":"gone","toolName":"read","content":[{"type":"text","text":"orphan output"}],"isError":false,"timestamp":1}}"#,
        r#"{"type":"message","id":"u1","parentId":"r0","timestamp":"2025-01-01T00:00:02.000Z","message":{"role":"user","content":"next","timestamp":2}}"#,
    ]
    .join("\n");
    let session = parse_session(text.as_bytes());
    for format in [TargetFormat::ClaudeCode, TargetFormat::Codex] {
        let exported =
            export(&session, session.leaf(), format, &options(), &Redactor::default()).unwrap();
        assert!(!exported.report.summary);
        assert_eq!(exported.report.tool_results, 0);
        assert_eq!(exported.report.user_messages, 2);
        assert!(exported.transcript.contains("orphan output"));
        assert!(!exported.transcript.contains("tool_result"));
        assert!(!exported.transcript.contains("function_call_output"));
    }
}

/// The exported transcript, imported back, holds the same conversation: every user and
/// assistant text of the context after the compaction, in order, the summary among them.
#[test]
fn an_export_imported_back_keeps_every_text_of_the_context() {
    let session = parse_session(include_bytes!("../../../../examples/coding-session.jsonl"));
    let context = crate::context::build_context(&session, session.leaf());
    let expected: Vec<String> = context
        .llm_messages(&session)
        .iter()
        .filter_map(|message| match message {
            AgentMessage::User(user) => Some(user.content.joined_text()),
            AgentMessage::Assistant(reply) => Some(crate::message::joined_text(&reply.content)),
            AgentMessage::System(_)
            | AgentMessage::ToolResult(_)
            | AgentMessage::BashExecution(_)
            | AgentMessage::Custom(_)
            | AgentMessage::BranchSummary(_)
            | AgentMessage::CompactionSummary(_)
            | AgentMessage::Other(_) => None,
        })
        .filter(|text| !text.trim().is_empty())
        .collect();
    assert!(expected.len() > 3);
    for format in [TargetFormat::ClaudeCode, TargetFormat::Codex] {
        let exported =
            export(&session, session.leaf(), format, &options(), &Redactor::default()).unwrap();
        let imported = crate::import::import(&exported.transcript, None, &Redactor::default())
            .unwrap_or_else(|e| panic!("{format:?}: {e}"));
        let back = parse_session(imported.session.as_bytes());
        let all: String = back
            .entries()
            .iter()
            .filter_map(|entry| entry.message().and_then(Result::ok))
            .map(|message| match message {
                AgentMessage::User(user) => user.content.joined_text(),
                AgentMessage::Assistant(reply) => crate::message::joined_text(&reply.content),
                AgentMessage::Custom(custom) => custom.content.joined_text(),
                AgentMessage::System(_)
                | AgentMessage::ToolResult(_)
                | AgentMessage::BashExecution(_)
                | AgentMessage::BranchSummary(_)
                | AgentMessage::CompactionSummary(_)
                | AgentMessage::Other(_) => String::new(),
            })
            .collect::<Vec<_>>()
            .join("\n");
        for text in &expected {
            // The summary is wrapped differently by each agent; its body is what must survive.
            let body = text.split("<summary>\n").last().unwrap_or(text);
            let body = body.split("\n</summary>").next().unwrap_or(body);
            assert!(all.contains(body), "{format:?}: lost {:?}", &body[..body.len().min(80)]);
        }
    }
}
