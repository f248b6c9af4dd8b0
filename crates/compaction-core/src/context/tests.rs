//! Context rebuild tests: compaction ranges, branches, pi 1.6 projection (system messages, context edits).

use super::*;
use crate::message::{AgentMessage, ContentBlock};
use crate::parse::parse_session;
use serde_json::{Value, json};

fn session(lines: Vec<Value>) -> Session {
    let mut text =
        json!({"type":"session","version":3,"id":"s","timestamp":"t","cwd":"/"}).to_string();
    text.push('\n');
    for line in lines {
        text.push_str(&line.to_string());
        text.push('\n');
    }
    parse_session(text.as_bytes())
}

fn msg(id: &str, parent: Option<&str>, message: Value) -> Value {
    json!({"type":"message","id":id,"parentId":parent,"timestamp":"t","message":message})
}

fn roles(s: &Session, c: &SessionContext) -> Vec<String> {
    c.agent_messages(s).iter().map(|m| m.role().to_owned()).collect()
}

fn ids(s: &Session, c: &SessionContext) -> Vec<String> {
    c.items.iter().map(|i| s.entries()[i.entry].id.clone()).collect()
}

#[test]
fn without_compaction_all_message_producing_entries_in_order() {
    let s = session(vec![
        msg("a", None, json!({"role":"user","content":"q"})),
        json!({"type":"thinking_level_change","id":"t1","parentId":"a","timestamp":"t","thinkingLevel":"high"}),
        msg(
            "b",
            Some("t1"),
            json!({"role":"assistant","content":[],"provider":"openai","model":"gpt-5"}),
        ),
        json!({"type":"custom","id":"c","parentId":"b","timestamp":"t","customType":"state","data":{}}),
        json!({"type":"custom_message","id":"cm","parentId":"c","timestamp":"t","customType":"n","content":"note","display":true}),
        json!({"type":"branch_summary","id":"bs0","parentId":"cm","timestamp":"t","fromId":"x","summary":""}),
        json!({"type":"branch_summary","id":"bs","parentId":"bs0","timestamp":"t","fromId":"x","summary":"went elsewhere"}),
        json!({"type":"model_change","id":"mc","parentId":"bs","timestamp":"t","provider":"anthropic","modelId":"claude"}),
    ]);
    let c = build_context(&s, s.leaf());
    assert_eq!(ids(&s, &c), ["a", "b", "cm", "bs"]);
    assert_eq!(c.thinking_level, "high");
    assert_eq!(c.model, Some(ModelRef { provider: "anthropic".into(), model_id: "claude".into() }));
    let llm = c.llm_messages(&s);
    assert_eq!(llm.len(), 4);
    let AgentMessage::User(user) = &llm[3] else { panic!() };
    let text = user.content.joined_text();
    assert!(text.contains("<summary>\nwent elsewhere\n</summary>"), "{text}");
}

#[test]
fn with_compaction_summary_then_kept_then_later() {
    let s = session(vec![
        msg("a", None, json!({"role":"user","content":"1"})),
        msg("b", Some("a"), json!({"role":"assistant","content":[]})),
        msg("c", Some("b"), json!({"role":"user","content":"2"})),
        msg("d", Some("c"), json!({"role":"assistant","content":[]})),
        json!({"type":"compaction","id":"k","parentId":"d","timestamp":"t","summary":"S1","firstKeptEntryId":"c","tokensBefore":50}),
        msg("e", Some("k"), json!({"role":"user","content":"3"})),
        json!({"type":"compaction","id":"k2","parentId":"e","timestamp":"t","summary":"S2","firstKeptEntryId":"e","tokensBefore":60}),
        msg("f", Some("k2"), json!({"role":"assistant","content":[]})),
    ]);
    let c = build_context(&s, s.leaf());
    assert_eq!(ids(&s, &c), ["k2", "e", "f"]);
    assert_eq!(roles(&s, &c), ["compactionSummary", "user", "assistant"]);
    let at_e = build_context(&s, s.index_of("e"));
    assert_eq!(ids(&s, &at_e), ["k", "c", "d", "e"]);
}

#[test]
fn bash_execution_is_user_text_unless_excluded() {
    let s = session(vec![
        msg(
            "a",
            None,
            json!({"role":"bashExecution","command":"cargo test","output":"ok","exitCode":0,"cancelled":false,"truncated":false}),
        ),
        msg(
            "b",
            Some("a"),
            json!({"role":"bashExecution","command":"secret","output":"x","exitCode":1,"cancelled":false,"truncated":false,"excludeFromContext":true}),
        ),
    ]);
    let c = build_context(&s, s.leaf());
    let llm = c.llm_messages(&s);
    assert_eq!(llm.len(), 1);
    let AgentMessage::User(user) = &llm[0] else { panic!() };
    assert_eq!(
        user.content.joined_text(),
        "The user ran a shell command:\n$ cargo test\nok\n[exit code 0]"
    );
}

#[test]
fn context_on_a_branch_follows_that_branch() {
    let s = session(vec![
        msg("a", None, json!({"role":"user","content":"1"})),
        msg("b", Some("a"), json!({"role":"assistant","content":[]})),
        msg("c", Some("a"), json!({"role":"assistant","content":[]})),
    ]);
    assert_eq!(ids(&s, &build_context(&s, s.leaf())), ["a", "c"]);
    assert_eq!(ids(&s, &build_context(&s, s.index_of("b"))), ["a", "b"]);
    assert!(build_context(&s, None).items.is_empty());
}

fn system(sections: Value, tools: Value) -> Value {
    json!({"role":"system","content":"","sections":sections,"toolsAdded":tools,"timestamp":1})
}

#[test]
fn system_messages_are_in_the_context_and_a_checkpoint_replaces_the_kept_ones() {
    let s = session(vec![
        msg("s1", None, system(json!({"preamble":"p"}), json!([{"name":"read"}]))),
        msg("a", Some("s1"), json!({"role":"user","content":"1"})),
        msg("s2", Some("a"), system(json!({"rules":"r"}), json!([]))),
        msg("b", Some("s2"), json!({"role":"assistant","content":[]})),
        json!({"type":"compaction","id":"k","parentId":"b","timestamp":"t","summary":"S",
            "firstKeptEntryId":"s1","tokensBefore":5,
            "systemMessage":{"role":"system","content":"","sections":{"preamble":"p","rules":"r"},
                "toolsAdded":[{"name":"read"}],"timestamp":2}}),
        msg("s3", Some("k"), system(json!({"rules":null}), json!([]))),
        msg("c", Some("s3"), json!({"role":"user","content":"2"})),
    ]);
    let before = build_context(&s, s.index_of("b"));
    assert_eq!(roles(&s, &before), ["system", "user", "system", "assistant"]);
    let after = build_context(&s, s.leaf());
    // The checkpoint leads; the kept range's system messages give way to it; a later one
    // stays in place.
    assert_eq!(ids(&s, &after), ["k", "k", "a", "b", "s3", "c"]);
    assert_eq!(
        roles(&s, &after),
        ["system", "compactionSummary", "user", "assistant", "system", "user"]
    );
    let AgentMessage::System(checkpoint) = after.message(&s, after.items[0]) else { panic!() };
    assert_eq!(checkpoint.prompt_text(), "p\n\nr");
}

#[test]
fn a_retain_none_compaction_keeps_nothing_before_it() {
    let s = session(vec![
        msg("a", None, json!({"role":"user","content":"1"})),
        msg("b", Some("a"), json!({"role":"assistant","content":[]})),
        json!({"type":"compaction","id":"k","parentId":"b","timestamp":"t","summary":"S",
            "firstKeptEntryId":"k","tokensBefore":5}),
        msg("c", Some("k"), json!({"role":"user","content":"2"})),
    ]);
    assert_eq!(ids(&s, &build_context(&s, s.leaf())), ["k", "c"]);
}

#[test]
fn the_latest_context_edit_on_the_branch_wins_and_edits_are_branch_relative() {
    let tool_result = json!({"role":"toolResult","toolCallId":"c1","toolName":"read",
        "content":[{"type":"text","text":"secret output"}],"isError":false});
    let edit = |id: &str, parent: &str, target: &str, replacement: Value| {
        json!({"type":"context_edit","id":id,"parentId":parent,"timestamp":"t",
            "targetId":target,"replacement":replacement})
    };
    let s = session(vec![
        msg("a", None, json!({"role":"user","content":"read it"})),
        msg(
            "b",
            Some("a"),
            json!({"role":"assistant","content":[{"type":"toolCall","id":"c1","name":"read","arguments":{"path":"x"}}]}),
        ),
        msg("r", Some("b"), tool_result),
        edit("e1", "r", "r", json!({"content":"[pruned]"})),
        edit("e2", "e1", "a", Value::Null),
        msg("u", Some("e2"), json!({"role":"user","content":"next"})),
        // Another branch from `r` sees none of the edits.
        msg("v", Some("r"), json!({"role":"user","content":"other"})),
        // A later edit of the same target gives the output back.
        edit("e3", "u", "r", json!({"content":[{"type":"text","text":"secret output"}]})),
    ]);
    let at_u = build_context(&s, s.index_of("u"));
    assert_eq!(ids(&s, &at_u), ["b", "r", "u"], "the omitted user message is gone");
    let AgentMessage::ToolResult(result) = at_u.message(&s, at_u.items[1]) else { panic!() };
    // A string replacement of a tool result becomes one text block.
    assert_eq!(result.content.blocks(), vec![ContentBlock::text("[pruned]")]);
    assert_eq!(result.tool_call_id, "c1", "only the content changes");
    assert!(at_u.entries.iter().any(|entry| entry.omitted));

    let at_v = build_context(&s, s.index_of("v"));
    assert_eq!(ids(&s, &at_v), ["a", "b", "r", "v"]);
    let AgentMessage::ToolResult(result) = at_v.message(&s, at_v.items[2]) else { panic!() };
    assert_eq!(result.content.joined_text(), "secret output");

    let at_e3 = build_context(&s, s.index_of("e3"));
    let AgentMessage::ToolResult(result) = at_e3.message(&s, at_e3.items[1]) else { panic!() };
    assert_eq!(result.content.joined_text(), "secret output", "the latest edit wins");
}

#[test]
fn usage_entries_are_never_in_the_context() {
    let s = session(vec![
        msg("a", None, json!({"role":"user","content":"1"})),
        json!({"type":"usage","id":"w","parentId":"a","timestamp":"t","kind":"cache_warm",
            "provider":"p","model":"m","usage":{"input":0,"output":0,"cacheRead":5,"cacheWrite":0,"totalTokens":5}}),
    ]);
    let c = build_context(&s, s.leaf());
    assert_eq!(ids(&s, &c), ["a"]);
    assert!(s.diagnostics().is_empty(), "{:?}", s.diagnostics());
}
