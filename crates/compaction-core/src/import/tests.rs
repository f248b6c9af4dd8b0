//! Imports of small transcripts written for these tests, in each format.

use pretty_assertions::assert_eq;
use serde_json::Value;

use super::*;

/// The session's entries (header left out) as JSON values.
fn entries(session: &str) -> Vec<Value> {
    session.lines().skip(1).map(|line| serde_json::from_str(line).unwrap()).collect()
}

fn messages(session: &str) -> Vec<Value> {
    entries(session).into_iter().filter_map(|e| e.get("message").cloned()).collect()
}

/// A session an import wrote, parsed, and its warnings and errors (informational
/// diagnostics left out).
pub(super) fn parsed_with_problems(session: &str) -> (crate::Session, Vec<String>) {
    let parsed = crate::parse_session(session.as_bytes());
    let problems: Vec<String> = parsed
        .diagnostics()
        .iter()
        .filter(|d| d.severity() != crate::Severity::Info)
        .map(ToString::to_string)
        .collect();
    (parsed, problems)
}

/// The output parses as a pi session with no warnings or errors.
fn assert_clean(session: &str) {
    let (_, problems) = parsed_with_problems(session);
    assert!(problems.is_empty(), "{problems:?}\n{session}");
}

const CLAUDE: &str = include_str!("../../tests/fixtures/import/claude-code.jsonl");
const CODEX: &str = include_str!("../../tests/fixtures/import/codex-rollout.jsonl");
const CODEX_OLD: &str = include_str!("../../tests/fixtures/import/codex-rollout-old.jsonl");

#[test]
fn formats_are_detected_from_the_lines() {
    assert_eq!(detect(CLAUDE), Some(SourceFormat::ClaudeCode));
    assert_eq!(detect(CODEX), Some(SourceFormat::Codex));
    assert_eq!(detect(CODEX_OLD), Some(SourceFormat::Codex));
    assert_eq!(detect(r#"{"type":"session","version":3}"#), None);
}

#[test]
fn claude_code_transcript_becomes_a_clean_pi_session() {
    let imported = import(CLAUDE, None, &Redactor::default()).unwrap();
    assert_clean(&imported.session);
    let header: Value = serde_json::from_str(imported.session.lines().next().unwrap()).unwrap();
    assert_eq!(header["id"], "5b1c0f3e-cc11-4a8e-9d57-0d3d3f1a2b10");
    assert_eq!(header["cwd"], "/home/ana/ledger");
    assert_eq!(header["version"], 3);
    let report = &imported.report;
    assert_eq!(report.format, SourceFormat::ClaudeCode);
    assert_eq!(report.tool_calls, 4);
    assert_eq!(report.tool_results, 4);
    assert_eq!(report.tool_errors, 1);
    assert_eq!(report.dropped.get("`file-history-snapshot` line"), Some(&1));
    assert_eq!(report.dropped.get("side-chain (sub-agent) line"), Some(&1));
}

#[test]
fn claude_code_reply_split_over_lines_is_one_message_with_its_calls() {
    let imported = import(CLAUDE, None, &Redactor::default()).unwrap();
    let messages = messages(&imported.session);
    let replies: Vec<&Value> = messages.iter().filter(|m| m["role"] == "assistant").collect();
    // The second reply was written as three lines (text, two tool uses) sharing one id.
    let blocks: Vec<&str> = replies[1]["content"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["type"].as_str().unwrap())
        .collect();
    assert_eq!(blocks, ["text", "toolCall", "toolCall"]);
    assert_eq!(replies[1]["stopReason"], "toolUse");
    assert_eq!(replies[1]["usage"]["output"], 61);
}

#[test]
fn claude_code_tools_take_pi_names_and_argument_names() {
    let imported = import(CLAUDE, None, &Redactor::default()).unwrap();
    let calls: Vec<Value> = messages(&imported.session)
        .iter()
        .flat_map(|m| m["content"].as_array().cloned().unwrap_or_default())
        .filter(|b| b["type"] == "toolCall")
        .collect();
    assert_eq!(calls[0]["name"], "read");
    assert_eq!(calls[0]["arguments"]["path"], "/home/ana/ledger/src/parse.rs");
    assert_eq!(calls[1]["name"], "bash");
    assert_eq!(calls[1]["arguments"]["command"], "cargo test -p ledger 2>&1 | tail -5");
    assert_eq!(calls[1]["arguments"]["timeout"], 120);
    assert_eq!(calls[1]["arguments"]["description"], "Run the tests");
    assert_eq!(calls[3]["name"], "edit");
    assert_eq!(
        calls[3]["arguments"]["edits"],
        serde_json::json!([{ "oldText": "split(',')", "newText": "split(';')" }])
    );
    assert_eq!(calls[2]["name"], "Grep", "a tool pi has no match for keeps its name");
    assert_eq!(calls[2]["arguments"]["pattern"], "fn parse_row");
    assert_eq!(imported.report.renamed_tools.get("Bash → bash"), Some(&1));
}

#[test]
fn claude_code_results_follow_their_call_without_branching() {
    let imported = import(CLAUDE, None, &Redactor::default()).unwrap();
    let entries = entries(&imported.session);
    let mut seen = std::collections::HashMap::new();
    for entry in &entries {
        if let Some(parent) = entry["parentId"].as_str() {
            *seen.entry(parent.to_owned()).or_insert(0) += 1;
        }
    }
    assert!(seen.values().all(|children| *children == 1), "a branch appeared: {seen:?}");
    let results: Vec<&Value> =
        entries.iter().filter(|e| e["message"]["role"] == "toolResult").collect();
    assert_eq!(results[1]["message"]["toolName"], "bash");
    assert_eq!(results[1]["message"]["isError"], true);
    assert!(results[1]["message"]["content"][0]["text"].as_str().unwrap().contains("1 failed"));
}

#[test]
fn claude_code_meta_lines_are_not_user_messages() {
    let imported = import(CLAUDE, None, &Redactor::default()).unwrap();
    let entries = entries(&imported.session);
    let meta: Vec<&Value> = entries.iter().filter(|e| e["type"] == "custom_message").collect();
    assert_eq!(meta.len(), 1);
    assert_eq!(meta[0]["customType"], "imported-meta");
    let users: Vec<String> = entries
        .iter()
        .filter(|e| e["message"]["role"] == "user")
        .map(|e| e["message"]["content"][0]["text"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(users.len(), 2);
    assert!(users[0].starts_with("The CSV importer"));
}

#[test]
fn secrets_in_texts_and_arguments_are_redacted() {
    let imported = import(CLAUDE, None, &Redactor::default()).unwrap();
    assert!(!imported.session.contains("ghp_"), "{}", imported.session);
    assert!(imported.session.contains("[REDACTED]"));
    assert!(imported.report.redacted_texts >= 1);
    let codex = import(CODEX, None, &Redactor::default()).unwrap();
    assert!(!codex.session.contains("sk-proj-"), "{}", codex.session);
}

#[test]
fn codex_rollout_becomes_a_clean_pi_session() {
    let imported = import(CODEX, None, &Redactor::default()).unwrap();
    assert_clean(&imported.session);
    let header: Value = serde_json::from_str(imported.session.lines().next().unwrap()).unwrap();
    assert_eq!(header["id"], "0199a1b2-7c3d-7e4f-8a9b-0c1d2e3f4a5b");
    assert_eq!(header["cwd"], "/work/shop");
    let messages = messages(&imported.session);
    let roles: Vec<&str> = messages.iter().map(|m| m["role"].as_str().unwrap()).collect();
    assert_eq!(
        roles,
        ["user", "assistant", "toolResult", "assistant", "toolResult", "toolResult", "assistant"]
    );
    assert_eq!(messages[1]["model"], "gpt-5-codex");
    assert_eq!(messages[1]["usage"]["input"], 9000);
    assert_eq!(messages[1]["usage"]["cacheRead"], 3000);
    assert_eq!(messages[1]["usage"]["totalTokens"], 12120);
    // No count was reported for that reply: its usage is zeros in pi's full shape (pi 1.6
    // reads every assistant message's usage), and the report says so.
    assert_eq!(messages[3]["usage"]["totalTokens"], 0);
    assert_eq!(messages[3]["usage"]["cost"]["total"], 0);
    assert_eq!(imported.report.usage_missing, 2);
    assert_eq!(messages[1]["content"][0]["type"], "thinking");
}

#[test]
fn codex_shell_calls_become_bash_with_the_script() {
    let imported = import(CODEX, None, &Redactor::default()).unwrap();
    let messages = messages(&imported.session);
    let call = &messages[1]["content"][1];
    assert_eq!(call["name"], "bash");
    assert_eq!(call["arguments"]["command"], "cd web && npm test -- --run");
    assert_eq!(call["arguments"]["workdir"], "/work/shop");
    let result = &messages[2];
    assert_eq!(result["toolName"], "bash");
    assert_eq!(result["isError"], true);
    assert_eq!(result["details"]["exitCode"], 1);
    assert!(result["content"][0]["text"].as_str().unwrap().contains("2 failed"));
}

#[test]
fn a_codex_argv_through_a_shell_with_options_of_its_own_is_its_script() {
    use super::codex::script_of;
    assert_eq!(script_of(&["bash", "-lc", "ls -la"]), "ls -la");
    assert_eq!(script_of(&["pwsh.exe", "-NoLogo", "-Command", "rg -n x src"]), "rg -n x src");
    assert_eq!(
        script_of(&["powershell.exe", "-NoLogo", "-NoProfile", "-Command", "npm test"]),
        "npm test"
    );
    assert_eq!(script_of(&["bash", "-e", "-o", "pipefail", "-c", "make"]), "make");
    assert_eq!(script_of(&["cmd.exe", "/d", "/c", "dir"]), "dir");
    // Not a shell given a script: the words, quoted where they need it.
    assert_eq!(script_of(&["bash", "run.sh", "-c"]), "bash run.sh -c");
    assert_eq!(script_of(&["git", "commit", "-m", "a b"]), "git commit -m 'a b'");
}

#[test]
fn codex_apply_patch_keeps_the_patch() {
    let imported = import(CODEX, None, &Redactor::default()).unwrap();
    let messages = messages(&imported.session);
    let calls = messages[3]["content"].as_array().unwrap();
    assert_eq!(calls[0]["name"], "apply_patch");
    let patch = calls[0]["arguments"]["input"].as_str().unwrap();
    assert!(patch.contains("*** Update File: web/src/cart.ts"), "{patch}");
    assert_eq!(calls[1]["name"], "apply_patch", "a patch run through shell is a patch too");
    assert!(
        calls[1]["arguments"]["input"].as_str().unwrap().contains("*** Add File: web/src/money.ts")
    );
    assert_eq!(messages[4]["toolName"], "apply_patch");
    assert_eq!(messages[4]["isError"], false);
}

#[test]
fn codex_injected_context_and_instructions_are_not_user_messages() {
    let imported = import(CODEX, None, &Redactor::default()).unwrap();
    let entries = entries(&imported.session);
    let custom: Vec<&str> = entries
        .iter()
        .filter(|e| e["type"] == "custom_message" || e["type"] == "custom")
        .filter(|e| e["customType"] != build::CONTEXT_WINDOW_CUSTOM_TYPE)
        .map(|e| e["type"].as_str().unwrap())
        .collect();
    assert_eq!(custom, ["custom", "custom_message"]);
    assert_eq!(imported.report.user_messages, 1);
    assert!(imported.report.dropped.keys().any(|kind| kind.starts_with("`event_msg` line")));
    assert!(
        !imported.report.dropped.keys().any(|kind| kind.contains("token_count")),
        "token counts become usage, they are not left out"
    );
}

#[test]
fn older_codex_rollout_without_envelopes_is_read() {
    let imported = import(CODEX_OLD, None, &Redactor::default()).unwrap();
    assert_clean(&imported.session);
    let messages = messages(&imported.session);
    let roles: Vec<&str> = messages.iter().map(|m| m["role"].as_str().unwrap()).collect();
    assert_eq!(roles, ["user", "assistant", "toolResult", "assistant"]);
    assert_eq!(messages[1]["content"][0]["arguments"]["command"], "ls -la src");
    assert_eq!(messages[2]["isError"], false);
    assert_eq!(imported.report.dropped.get("`record_type` line"), Some(&1));
}

#[test]
fn the_same_transcript_gives_the_same_bytes() {
    let first = import(CODEX, None, &Redactor::default()).unwrap();
    let second = import(CODEX, None, &Redactor::default()).unwrap();
    assert_eq!(first.session, second.session);
}

#[test]
fn bad_lines_and_unknown_files_are_errors_naming_the_line() {
    let bad = format!("{}\n{{not json\n", CLAUDE.lines().next().unwrap());
    assert!(matches!(
        import(&bad, None, &Redactor::default()),
        Err(ImportError::NotJson { line: 2, .. })
    ));
    assert_eq!(
        import(r#"{"hello":1}"#, None, &Redactor::default()).unwrap_err(),
        ImportError::UnknownFormat
    );
}

#[test]
fn a_sub_agent_transcript_that_is_all_side_chain_is_kept() {
    let side: String = CLAUDE
        .lines()
        .map(|line| line.replace(r#""isSidechain": false"#, r#""isSidechain": true"#))
        .map(|line| format!("{line}\n"))
        .collect();
    assert!(side.contains(r#""isSidechain": true"#));
    let imported = import(&side, None, &Redactor::default()).unwrap();
    assert_clean(&imported.session);
    assert_eq!(imported.report.user_messages, 2);
    assert!(!imported.report.dropped.contains_key("side-chain (sub-agent) line"));
}
