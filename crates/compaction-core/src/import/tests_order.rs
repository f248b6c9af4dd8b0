//! Imports of small transcripts built here, one class of source behaviour each: lines out of
//! file order, hook lines between a call and its result, the agents' own compactions, queued
//! input, token counts before or after their reply, lone surrogate escapes, images in every
//! place, and what a session needs to open in pi (a `cwd`, a usage on every reply).

use pretty_assertions::assert_eq;
use serde_json::{Value, json};

use super::*;

/// One Claude Code line with the fields every line has.
fn claude(uuid: &str, parent: Option<&str>, fields: Value) -> String {
    let mut line = json!({
        "uuid": uuid, "parentUuid": parent, "sessionId": "s-1", "cwd": "/w",
        "isSidechain": false, "timestamp": "2025-07-15T05:07:22.709Z",
    });
    line.as_object_mut().unwrap().extend(fields.as_object().unwrap().clone());
    line.to_string()
}

fn user_text(uuid: &str, parent: Option<&str>, text: &str) -> String {
    claude(uuid, parent, json!({"type":"user","message":{"role":"user","content":text}}))
}

fn reply(uuid: &str, parent: &str, id: &str, block: Value) -> String {
    claude(
        uuid,
        Some(parent),
        json!({"type":"assistant","message":{"id":id,"role":"assistant","model":"claude-x",
            "content":[block],"usage":{"input_tokens":10,"output_tokens":5}}}),
    )
}

fn call(id: &str) -> Value {
    json!({"type":"tool_use","id":id,"name":"Bash","input":{"command":"ls"}})
}

fn result(uuid: &str, parent: &str, call: &str) -> String {
    claude(
        uuid,
        Some(parent),
        json!({"type":"user","message":{"role":"user","content":[
            {"type":"tool_result","tool_use_id":call,"content":"ok"}]}}),
    )
}

fn progress(uuid: &str, parent: &str) -> String {
    claude(uuid, Some(parent), json!({"type":"progress","data":{"type":"hook_progress"}}))
}

fn run(lines: &[String]) -> Imported {
    let text = lines.join("\n");
    let imported = import(&text, None, &Redactor::default()).unwrap();
    let (_, problems) = super::tests::parsed_with_problems(&imported.session);
    assert!(problems.is_empty(), "{problems:?}\n{}", imported.session);
    imported
}

fn entries(imported: &Imported) -> Vec<Value> {
    imported.session.lines().skip(1).map(|l| serde_json::from_str(l).unwrap()).collect()
}

/// The roles (or entry types) on the path from the last entry, root first.
fn path(imported: &Imported) -> Vec<String> {
    let entries = entries(imported);
    let mut out = Vec::new();
    let mut at = entries.last().cloned();
    while let Some(entry) = at {
        let name = entry["message"]["role"].as_str().unwrap_or(entry["type"].as_str().unwrap());
        out.push(name.to_owned());
        at = entries.iter().find(|e| e["id"] == entry["parentId"]).cloned();
    }
    out.reverse();
    out
}

#[test]
fn a_tool_result_written_before_the_reply_line_with_its_call_waits_for_it() {
    let lines = [
        user_text("u1", None, "list"),
        reply("a1", "u1", "m1", json!({"type":"text","text":"Looking."})),
        result("r1", "a2", "t1"),
        reply("a2", "a1", "m1", call("t1")),
        reply("a3", "r1", "m2", json!({"type":"text","text":"Done."})),
    ];
    let imported = run(&lines);
    assert_eq!(path(&imported), ["user", "assistant", "toolResult", "assistant"]);
    assert_eq!(imported.report.messages_on_path, 4);
    assert_eq!(imported.report.messages_off_path, 0);
}

#[test]
fn hook_lines_between_a_call_and_the_next_message_do_not_fork_the_tree() {
    let lines = [
        user_text("u1", None, "list"),
        reply("a1", "u1", "m1", call("t1")),
        progress("p1", "a1"),
        progress("p2", "p1"),
        result("r1", "a1", "t1"),
        progress("p3", "r1"),
        progress("p4", "p3"),
        reply("a2", "p4", "m2", call("t2")),
        progress("p5", "a2"),
        result("r2", "a2", "t2"),
        reply("a3", "r2", "m3", json!({"type":"text","text":"Done."})),
    ];
    let imported = run(&lines);
    assert_eq!(
        path(&imported),
        ["user", "assistant", "toolResult", "assistant", "toolResult", "assistant"]
    );
    assert_eq!(imported.report.messages_on_path, 6);
    assert_eq!(imported.report.tool_results_on_path, 2);
    assert_eq!(imported.report.dropped.get("`progress` line"), Some(&5));
}

#[test]
fn a_message_edited_and_sent_again_keeps_its_place_outside_the_context() {
    let lines = [
        user_text("u1", None, "hi"),
        reply("a1", "u1", "m1", json!({"type":"text","text":"Hello."})),
        user_text("u2", Some("a1"), "fix teh bug"),
        user_text("u3", Some("a1"), "fix the bug"),
        reply("a2", "u3", "m2", json!({"type":"text","text":"Fixed."})),
    ];
    let imported = run(&lines);
    assert_eq!(path(&imported), ["user", "assistant", "custom", "user", "assistant"]);
    assert_eq!(imported.report.messages_on_path, 4);
    assert_eq!(imported.report.messages_off_path, 0);
    assert_eq!(imported.report.resent_messages, 1);
    let first = entries(&imported).into_iter().find(|e| e["type"] == "custom").unwrap();
    assert_eq!(first["customType"], "imported-resent-message");
    assert_eq!(first["data"]["content"], "fix teh bug");
    // A message the user went back to after an answer stays a branch (the answer with it).
    let lines = [
        user_text("u1", None, "hi"),
        reply("a1", "u1", "m1", json!({"type":"text","text":"Hello."})),
        user_text("u2", Some("a1"), "plan A"),
        reply("a2", "u2", "m2", json!({"type":"text","text":"A."})),
        user_text("u3", Some("a1"), "plan B"),
        reply("a3", "u3", "m3", json!({"type":"text","text":"B."})),
    ];
    let imported = run(&lines);
    assert_eq!(imported.report.messages_on_path, 4);
    assert_eq!(imported.report.messages_off_path, 2);
    assert_eq!(imported.report.resent_messages, 0);
}

#[test]
fn claude_code_compaction_becomes_a_compaction_entry_not_a_message() {
    let lines = [
        user_text("u1", None, "start"),
        reply("a1", "u1", "m1", json!({"type":"text","text":"Sure."})),
        claude(
            "b1",
            None,
            json!({"type":"system","subtype":"compact_boundary","logicalParentUuid":"a1",
                "compactMetadata":{"trigger":"auto","preTokens":155000}}),
        ),
        claude(
            "c1",
            Some("b1"),
            json!({"type":"user","isCompactSummary":true,"message":{"role":"user",
                "content":"This session is being continued. Summary: the parser was fixed."}}),
        ),
        user_text("u2", Some("c1"), "now the tests"),
    ];
    let imported = run(&lines);
    let all = entries(&imported);
    let compaction = all.iter().find(|e| e["type"] == "compaction").unwrap();
    assert_eq!(compaction["tokensBefore"], 155_000);
    assert_eq!(compaction["firstKeptEntryId"], compaction["id"], "it keeps nothing before it");
    assert!(compaction["summary"].as_str().unwrap().contains("parser was fixed"));
    assert!(!imported.session.contains("imported-compaction-summary"));
    assert_eq!(imported.report.compactions, 1);
    // The context is the summary and what follows it, as in Claude Code after its compaction.
    let parsed = crate::parse_session(imported.session.as_bytes());
    let leaf = parsed.entries().len() - 1;
    let context = crate::context::build_context(&parsed, Some(leaf));
    let texts: Vec<String> =
        context.agent_messages(&parsed).iter().map(|m| serde_json::to_string(m).unwrap()).collect();
    assert_eq!(texts.len(), 2, "{texts:?}");
    assert!(texts[0].contains("parser was fixed") && texts[1].contains("now the tests"));
}

#[test]
fn queued_input_is_kept_where_it_reached_the_model_and_counted_where_not() {
    let queue = |text: &str| {
        json!({"type":"queue-operation","operation":"enqueue","sessionId":"s-1",
            "timestamp":"2025-07-15T05:07:22.709Z","content":text})
        .to_string()
    };
    let lines = [
        user_text("u1", None, "build it"),
        queue("no wait, use tabs"),
        reply("a1", "u1", "m1", json!({"type":"text","text":"Building."})),
        queue("/rate-limit-options"),
        claude(
            "q1",
            Some("a1"),
            json!({"type":"attachment","attachment":{"type":"queued_command",
                "prompt":"no wait, use tabs"}}),
        ),
        reply("a2", "q1", "m2", json!({"type":"text","text":"Tabs it is."})),
    ];
    let imported = run(&lines);
    assert_eq!(path(&imported), ["user", "assistant", "user", "assistant"]);
    assert!(imported.session.contains("no wait, use tabs"));
    assert_eq!(
        imported
            .report
            .dropped
            .get("queued input never sent to the model (`queue-operation` enqueue)"),
        Some(&1),
        "{:?}",
        imported.report.dropped
    );
}

#[test]
fn images_in_meta_lines_are_kept() {
    let lines = [
        user_text("u1", None, "look"),
        claude(
            "m1",
            Some("u1"),
            json!({"type":"user","isMeta":true,"message":{"role":"user","content":[
                {"type":"text","text":"[Image: screenshot]"},
                {"type":"image","source":{"type":"base64","media_type":"image/png","data":"iVBORw0KGgo="}}]}}),
        ),
        reply("a1", "m1", "r1", json!({"type":"text","text":"I see."})),
    ];
    let imported = run(&lines);
    let meta = entries(&imported).into_iter().find(|e| e["type"] == "custom_message").unwrap();
    assert_eq!(meta["content"][1]["type"], "image");
    assert_eq!(meta["content"][1]["data"], "iVBORw0KGgo=");
}

#[test]
fn a_lone_surrogate_escape_is_read_as_the_session_reader_reads_it() {
    let lines = [
        user_text("u1", None, "emoji"),
        r#"{"uuid":"a1","parentUuid":"u1","sessionId":"s-1","cwd":"/w","type":"assistant","timestamp":"2025-07-15T05:07:22.709Z","message":{"id":"m1","role":"assistant","model":"claude-x","content":[{"type":"text","text":"cut \ud83d here"}]}}"#.to_owned(),
    ];
    let imported = run(&lines);
    assert!(imported.session.contains("cut \u{fffd} here"), "{}", imported.session);
}

#[test]
fn every_reply_has_a_full_usage_and_the_header_a_cwd() {
    let lines = [
        r#"{"id":"legacy-1","timestamp":"2025-05-01T10:00:00Z","instructions":null}"#,
        r#"{"type":"message","role":"user","content":[{"type":"input_text","text":"hi"}]}"#,
        r#"{"type":"message","role":"assistant","content":[{"type":"output_text","text":"hello"}]}"#,
    ]
    .map(str::to_owned);
    let options = ImportOptions { format: None, fallback_cwd: Some("/home/me".into()) };
    let imported = import_with(&lines.join("\n"), &options, &Redactor::default()).unwrap();
    let header: Value = serde_json::from_str(imported.session.lines().next().unwrap()).unwrap();
    assert_eq!(header["cwd"], "/home/me");
    assert!(!imported.report.cwd_recorded);
    let reply = entries(&imported).into_iter().find(|e| e["message"]["role"] == "assistant");
    let usage = &reply.unwrap()["message"]["usage"];
    for key in ["input", "output", "cacheRead", "cacheWrite", "totalTokens"] {
        assert_eq!(usage[key], 0, "{key}");
    }
    assert_eq!(usage["cost"]["total"], 0);
    assert_eq!(imported.report.usage_missing, 1);
}

/// A Codex rollout line.
fn codex(kind: &str, payload: Value) -> String {
    json!({"timestamp":"2025-11-14T04:58:27.228Z","type":kind,"payload":payload}).to_string()
}

fn count(input: u64, total: u64) -> String {
    codex(
        "event_msg",
        json!({"type":"token_count","info":{
            "total_token_usage":{"total_tokens":total},
            "last_token_usage":{"input_tokens":input,"cached_input_tokens":0,"output_tokens":7},
            "model_context_window":258400}}),
    )
}

fn codex_start() -> Vec<String> {
    vec![
        codex("session_meta", json!({"id":"c-1","timestamp":"2025-11-14T04:58:27Z","cwd":"/w"})),
        codex(
            "response_item",
            json!({"type":"message","role":"user","content":[{"type":"input_text","text":"go"}]}),
        ),
    ]
}

fn codex_call(id: &str) -> [String; 2] {
    [
        codex(
            "response_item",
            json!({"type":"custom_tool_call","call_id":id,"name":"apply_patch",
                "input":"*** Begin Patch\n*** Add File: a.txt\n+x\n*** End Patch"}),
        ),
        codex(
            "response_item",
            json!({"type":"custom_tool_call_output","call_id":id,"output":"Done"}),
        ),
    ]
}

#[test]
fn codex_token_counts_before_or_after_their_reply_and_repeated_become_its_usage() {
    let [call1, out1] = codex_call("c1");
    let [call2, out2] = codex_call("c2");
    let mut lines = codex_start();
    // Older order: the count before the reply's items, then repeated after its output.
    lines.extend([count(100, 107), call1, out1, count(100, 107)]);
    // Newer order: the count after the reply's items, before its output.
    lines.extend([call2, count(200, 314), out2]);
    let imported = run(&lines);
    let usages: Vec<Value> = entries(&imported)
        .into_iter()
        .filter(|e| e["message"]["role"] == "assistant")
        .map(|e| e["message"]["usage"]["input"].clone())
        .collect();
    assert_eq!(usages, [json!(100), json!(200)]);
    assert_eq!(imported.report.usage_missing, 0);
    assert_eq!(imported.report.context_window, Some(258_400));
    assert_eq!(
        recorded_context_window(&crate::parse_session(imported.session.as_bytes())),
        Some(258_400)
    );
}

#[test]
fn codex_compaction_becomes_a_compaction_entry_and_its_history_is_counted() {
    let mut lines = codex_start();
    lines.push(codex(
        "compacted",
        json!({"message":"Summary: a.txt added.","replacement_history":[
            {"type":"message","role":"user","content":[{"type":"input_text","text":"go"}]},
            {"type":"message","role":"user","content":[{"type":"input_text","text":"Summary"}]}]}),
    ));
    lines.push(codex(
        "response_item",
        json!({"type":"message","role":"user","content":[{"type":"input_text","text":"next"}]}),
    ));
    let imported = run(&lines);
    let compaction = entries(&imported).into_iter().find(|e| e["type"] == "compaction").unwrap();
    assert_eq!(compaction["summary"], "Summary: a.txt added.");
    assert_eq!(imported.report.dropped.get("Codex `compacted` replacement_history item"), Some(&2));
}

#[test]
fn codex_tool_output_images_and_local_shell_environments_are_kept() {
    let mut lines = codex_start();
    lines.extend([
        codex(
            "response_item",
            json!({"type":"local_shell_call","call_id":"l1","status":"completed","action":{
                "type":"exec","command":["bash","-lc","make"],"env":{"CI":"1"},"timeout_ms":1000}}),
        ),
        codex(
            "response_item",
            json!({"type":"function_call_output","call_id":"l1","output":[
                {"type":"input_text","text":"built"},
                {"type":"input_image","image_url":"data:image/png;base64,iVBORw0KGgo="},
                {"type":"input_image","image_url":"https://example.com/x.png"}]}),
        ),
    ]);
    let imported = run(&lines);
    let all = entries(&imported);
    let call = all.iter().find(|e| e["message"]["role"] == "assistant").unwrap();
    assert_eq!(call["message"]["content"][0]["arguments"]["env"]["CI"], "1");
    let result = all.iter().find(|e| e["message"]["role"] == "toolResult").unwrap();
    assert_eq!(result["message"]["content"][1]["type"], "image");
    assert_eq!(
        imported.report.dropped.get("image in a Codex tool output without base64 data"),
        Some(&1)
    );
}
