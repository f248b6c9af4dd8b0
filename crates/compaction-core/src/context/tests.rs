//! Context rebuild tests: compaction ranges, branches, pi 1.6 projection (system messages, context edits).

use super::*;
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
