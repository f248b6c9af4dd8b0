//! Imports of Cursor agent transcripts and Antigravity trajectories (small transcripts
//! written for these tests, in the shapes those agents write), and the instruction files
//! Codex puts in the context, marked for the summarizer.

use pretty_assertions::assert_eq;
use serde_json::{Value, json};

use super::*;
use crate::files::FileOperations;

const CURSOR: &str = include_str!("../../tests/fixtures/import/cursor-agent.jsonl");
const ANTIGRAVITY: &str = include_str!("../../tests/fixtures/import/antigravity-trajectory.jsonl");

fn entries(session: &str) -> Vec<Value> {
    session.lines().skip(1).map(|line| serde_json::from_str(line).unwrap()).collect()
}

fn messages(session: &str) -> Vec<Value> {
    entries(session).into_iter().filter_map(|e| e.get("message").cloned()).collect()
}

/// The output parses as a pi session with no warnings or errors.
fn assert_clean(session: &str) -> crate::Session {
    let (parsed, problems) = super::tests::parsed_with_problems(session);
    assert!(problems.is_empty(), "{problems:?}\n{session}");
    parsed
}

/// Every tool call is followed by its result before the next assistant message.
fn assert_calls_answered(messages: &[Value]) {
    let mut open: Vec<String> = Vec::new();
    for message in messages {
        match message["role"].as_str().unwrap() {
            "assistant" => {
                assert!(open.is_empty(), "unanswered {open:?} before {message}");
                for block in message["content"].as_array().unwrap() {
                    if block["type"] == "toolCall" {
                        open.push(block["id"].as_str().unwrap().to_owned());
                    }
                }
            }
            "toolResult" => {
                let id = message["toolCallId"].as_str().unwrap();
                assert_eq!(open.first().map(String::as_str), Some(id), "{message}");
                open.remove(0);
            }
            _ => {}
        }
    }
}

/// The modified files of the whole session, as every summary lists them.
fn modified(session: &crate::Session) -> Vec<String> {
    let messages: Vec<_> = (0..session.entries().len())
        .filter_map(|index| crate::prepare::compaction_input_message(session, index))
        .collect();
    let mut files = FileOperations::default();
    files.add_messages(&messages);
    files.modified()
}

#[test]
fn cursor_and_antigravity_are_detected_from_their_lines() {
    assert_eq!(detect(CURSOR), Some(SourceFormat::Cursor));
    assert_eq!(detect(ANTIGRAVITY), Some(SourceFormat::Antigravity));
    // A pi line, Codex's bare items and a step type alone are neither.
    for other in [
        r#"{"type":"message","id":"a","message":{"role":"user","content":"x"}}"#,
        r#"{"type":"message","role":"user","content":[{"type":"input_text","text":"x"}]}"#,
        r#"{"type":"USER_INPUT","content":"x"}"#,
    ] {
        assert_eq!(detect(other), None, "{other}");
    }
}

#[test]
fn cursor_transcript_keeps_the_users_words_calls_and_edits() {
    let imported = import(CURSOR, None, &Redactor::default()).unwrap();
    let session = assert_clean(&imported.session);
    let header: Value = serde_json::from_str(imported.session.lines().next().unwrap()).unwrap();
    // The time the first message states; no working directory is recorded.
    assert_eq!(header["timestamp"], "2026-07-23T13:18:00.000+09:00");
    let report = &imported.report;
    assert_eq!(report.format, SourceFormat::Cursor);
    assert!(!report.cwd_recorded);
    assert_eq!((report.user_messages, report.assistant_messages), (2, 3));
    assert_eq!((report.tool_calls, report.tool_results, report.tool_errors), (5, 5, 0));
    assert_eq!(report.messages_off_path, 0);
    assert_eq!(report.dropped.get("Cursor `turn_ended` line"), Some(&1));
    assert_eq!(report.dropped.get("Cursor text withheld by Cursor (`[REDACTED]`)"), Some(&1));
    assert_eq!(
        report.dropped.get("Cursor tool output (not in the transcript; a result says so)"),
        Some(&5)
    );
    let messages = messages(&imported.session);
    assert_calls_answered(&messages);
    assert_eq!(
        messages[0]["content"][0]["text"],
        "The checkout test fails. Never touch the lockfile."
    );
    // What Cursor wrapped around the words reached the model, as a note.
    let notes: Vec<Value> =
        entries(&imported.session).into_iter().filter(|e| e["type"] == "custom_message").collect();
    assert_eq!(notes.len(), 1);
    assert_eq!(notes[0]["customType"], "imported-meta");
    assert_eq!(notes[0]["content"][0]["text"], "<attached_files>\nsrc/pay.ts\n</attached_files>");
    let calls: Vec<(String, Value)> = messages
        .iter()
        .filter(|m| m["role"] == "assistant")
        .flat_map(|m| m["content"].as_array().cloned().unwrap())
        .filter(|b| b["type"] == "toolCall")
        .map(|b| (b["name"].as_str().unwrap().to_owned(), b["arguments"].clone()))
        .collect();
    let names: Vec<&str> = calls.iter().map(|(name, _)| name.as_str()).collect();
    assert_eq!(names, ["read", "bash", "edit", "write", "Grep"]);
    assert_eq!(
        calls[2].1,
        json!({"path": "/repo/src/pay.ts", "edits": [{"oldText": "return sum;", "newText": "return sum + fee;"}]})
    );
    assert_eq!(calls[1].1["command"], "npm test -- checkout");
    let result = messages.iter().find(|m| m["role"] == "toolResult").unwrap();
    assert_eq!(result["details"], json!({"resultRecorded": false}));
    assert_eq!(modified(&session), ["/repo/src/fee.ts", "/repo/src/pay.ts"]);
    // The token the user pasted is redacted.
    assert!(!imported.session.contains("ghp_R8k2"), "{}", imported.session);
    assert!(report.redacted_texts >= 1);
}

#[test]
fn antigravity_trajectory_pairs_each_step_with_the_call_that_made_it() {
    let imported = import(ANTIGRAVITY, None, &Redactor::default()).unwrap();
    let session = assert_clean(&imported.session);
    let report = &imported.report;
    assert_eq!(report.format, SourceFormat::Antigravity);
    assert_eq!((report.user_messages, report.assistant_messages), (1, 4));
    assert_eq!((report.tool_calls, report.tool_results, report.tool_errors), (6, 6, 1));
    assert_eq!(
        report
            .dropped
            .get("Antigravity `CONVERSATION_HISTORY` step (its summary of what came before)"),
        Some(&1)
    );
    assert_eq!(
        report.dropped.get("Antigravity `CHECKPOINT` step (its summary of what came before)"),
        Some(&1)
    );
    let messages = messages(&imported.session);
    assert_calls_answered(&messages);
    assert_eq!(
        messages[0]["content"][0]["text"],
        "Make the hero title bigger and run the build. Keep the colors."
    );
    let reply = &messages[1];
    assert_eq!(
        reply["content"][0],
        json!({"type": "thinking", "thinking": "The hero is in app/page.tsx."})
    );
    assert_eq!(reply["content"][2]["name"], "read");
    assert_eq!(reply["content"][2]["arguments"], json!({"path": "/site/app/page.tsx"}));
    assert_eq!(reply["content"][3]["name"], "list_dir");
    let results: Vec<&Value> = messages.iter().filter(|m| m["role"] == "toolResult").collect();
    let paired: Vec<(&str, &str, bool)> = results
        .iter()
        .map(|r| {
            (
                r["toolName"].as_str().unwrap(),
                r["details"]["stepType"].as_str().unwrap(),
                r["isError"] == true,
            )
        })
        .collect();
    assert_eq!(
        paired,
        [
            ("read", "VIEW_FILE", false),
            ("list_dir", "LIST_DIRECTORY", false),
            ("edit", "CODE_ACTION", false),
            ("write", "CODE_ACTION", false),
            ("edit", "ERROR_MESSAGE", true),
            ("bash", "RUN_COMMAND", false),
        ]
    );
    let calls: Vec<&Value> = messages
        .iter()
        .filter(|m| m["role"] == "assistant")
        .flat_map(|m| m["content"].as_array().unwrap())
        .filter(|b| b["type"] == "toolCall")
        .collect();
    assert_eq!(
        calls[2]["arguments"],
        json!({"path": "/site/app/page.tsx", "edits": [{"oldText": "text-4xl", "newText": "text-6xl"}], "AllowMultiple": false})
    );
    assert_eq!(
        calls[3]["arguments"],
        json!({"path": "/site/NOTES.md", "content": "hero: text-6xl\n", "Overwrite": true})
    );
    assert_eq!(calls[4]["arguments"]["edits"].as_array().unwrap().len(), 2);
    assert_eq!(
        calls[5]["arguments"],
        json!({"command": "npm run build", "workdir": "/site", "Blocking": false})
    );
    // The background command's end reached the model as a note.
    let notes: Vec<String> = entries(&imported.session)
        .into_iter()
        .filter(|e| e["type"] == "custom_message")
        .map(|e| e["content"][0]["text"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(notes.len(), 2, "{notes:?}");
    assert!(notes[0].starts_with("<ADDITIONAL_METADATA>"), "{notes:?}");
    assert!(notes[1].contains("Compiled successfully"), "{notes:?}");
    // Every edit and write with a result counts (pi's rule: the failed one too).
    assert_eq!(
        modified(&session),
        ["/site/NOTES.md", "/site/app/layout.tsx", "/site/app/page.tsx"]
    );
}

#[test]
fn a_step_with_no_declared_call_and_a_call_with_no_step_are_kept_and_counted() {
    let steps = [
        json!({"step_index": 0, "source": "MODEL", "type": "RUN_COMMAND", "content": "ok"}),
        json!({"step_index": 1, "source": "USER_EXPLICIT", "type": "USER_INPUT", "content": "go"}),
        json!({"step_index": 2, "source": "MODEL", "type": "PLANNER_RESPONSE", "content": "",
               "tool_calls": [{"name": "run_command", "args": {"CommandLine": "\"ls\""}}]}),
        json!({"step_index": 3, "source": "USER_EXPLICIT", "type": "USER_INPUT", "content": "stop"}),
    ];
    let text: String = steps.iter().map(|s| format!("{s}\n")).collect();
    let imported = import(&text, None, &Redactor::default()).unwrap();
    assert_clean(&imported.session);
    assert_eq!(imported.report.tool_results, 0);
    assert_eq!(
        imported
            .report
            .dropped
            .get("Antigravity tool result (the call's step is not in the transcript)"),
        Some(&1)
    );
    let first = &entries(&imported.session)[0];
    assert_eq!(
        (first["type"].as_str(), first["content"][0]["text"].as_str()),
        (Some("custom_message"), Some("ok"))
    );
}

#[test]
fn broken_cursor_and_antigravity_lines_are_errors_naming_the_line() {
    let cursor = format!("{}\nnot json\n", CURSOR.lines().next().unwrap());
    let error = import(&cursor, None, &Redactor::default()).unwrap_err();
    assert!(matches!(error, ImportError::NotJson { line: 2, .. }), "{error}");
    let antigravity = format!("{}\n[1, 2]\n", ANTIGRAVITY.lines().nth(1).unwrap());
    let error = import(&antigravity, None, &Redactor::default()).unwrap_err();
    assert!(matches!(error, ImportError::NotJson { line: 2, .. }), "{error}");
    // Lines of the format with nothing to convert.
    let empty = "{\"role\":\"user\",\"message\":{}}\n{\"type\":\"turn_ended\"}\n";
    assert_eq!(import(empty, None, &Redactor::default()).unwrap_err(), ImportError::NoMessages);
}

/// A Codex rollout whose context holds `instructions` (as Codex sends them), then its
/// environment, a request and a reply.
fn codex_with(instructions: &str) -> String {
    let item = |role: &str, text: &str| {
        json!({"timestamp": "2025-09-20T14:00:00.000Z", "type": "response_item",
               "payload": {"type": "message", "role": role, "content": [{"type": "input_text", "text": text}]}})
    };
    let lines = [
        json!({"timestamp": "2025-09-20T14:00:00.000Z", "type": "session_meta",
               "payload": {"id": "s", "timestamp": "2025-09-20T14:00:00.000Z", "cwd": "/work/shop"}}),
        item("user", instructions),
        item("user", "<environment_context>\n  <cwd>/work/shop</cwd>\n</environment_context>"),
        item("user", "Fix the coupon total."),
        item("assistant", "Looking at the cart."),
    ];
    lines.iter().map(|line| format!("{line}\n")).collect()
}

/// The summary of an imported session, every message summarized.
fn summary_of(session: &crate::Session) -> String {
    let messages: Vec<_> = (0..session.entries().len())
        .filter_map(|index| crate::prepare::compaction_input_message(session, index))
        .collect();
    crate::offline::summarize_offline(&crate::offline::OfflineInput {
        after: &[],
        kind: crate::offline::OfflineKind::History,
        messages: &messages,
        previous_summary: None,
        instructions: None,
        pins: &[],
        max_chars: 20_000,
    })
}

/// Whether the summary keeps `rule` as a rule of `file`.
fn keeps_rule(summary: &str, file: &str, rule: &str) -> bool {
    summary.lines().any(|line| line.contains(&format!("From `{file}`")) && line.ends_with(rule))
}

#[test]
fn codex_agents_md_blocks_are_marked_as_instruction_files_and_their_rules_kept() {
    let rollout = codex_with(
        "# AGENTS.md instructions for /work/shop\n\n<INSTRUCTIONS>\n## Rules\n- Never push to main; open a pull request.\n- Toujours écrire les tests en premier.\n## Skills\nA skill is a set of local instructions to follow that is stored in a `SKILL.md` file.\n- Trigger rules: If the user names a skill, you must use that skill for that turn.\n</INSTRUCTIONS>",
    );
    let imported = import(&rollout, None, &Redactor::default()).unwrap();
    let session = assert_clean(&imported.session);
    let notes: Vec<Value> =
        entries(&imported.session).into_iter().filter(|e| e["type"] == "custom_message").collect();
    // The project's AGENTS.md (marked), Codex's own skills section, the environment.
    assert_eq!(notes.len(), 3);
    assert_eq!(notes[0]["details"], json!({"instructionFile": "/work/shop/AGENTS.md"}));
    assert!(!notes[0]["content"][0]["text"].as_str().unwrap().contains("Skills"));
    assert!(notes[1]["content"][0]["text"].as_str().unwrap().starts_with("## Skills\n"));
    assert_eq!((notes[1].get("details"), notes[2].get("details")), (None, None));
    let summary = summary_of(&session);
    for rule in
        ["Never push to main; open a pull request.", "Toujours écrire les tests en premier."]
    {
        assert!(keeps_rule(&summary, "AGENTS.md", rule), "{rule}\n{summary}");
    }
    // Neither Codex's own skill rules nor the environment are the project's rules.
    assert!(!summary.contains("you must use that skill"), "{summary}");
    assert!(!summary.contains("From `AGENTS.md`: <cwd>"), "{summary}");
}

#[test]
fn the_older_user_instructions_block_gives_its_rules_through_the_mark() {
    let rollout = codex_with(
        "<user_instructions>\n- Always run cargo fmt before committing.\n</user_instructions>",
    );
    let imported = import(&rollout, None, &Redactor::default()).unwrap();
    let session = assert_clean(&imported.session);
    let note =
        entries(&imported.session).into_iter().find(|e| e["type"] == "custom_message").unwrap();
    assert_eq!(note["details"], json!({"instructionFile": "AGENTS.md"}));
    let summary = summary_of(&session);
    assert!(
        keeps_rule(&summary, "AGENTS.md", "Always run cargo fmt before committing."),
        "{summary}"
    );
}
