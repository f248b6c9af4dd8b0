//! Round trips of every role and block, number forms, usage sums.

use super::*;
use pretty_assertions::assert_eq;
use serde_json::json;

fn round_trip(value: Value) {
    let message: AgentMessage = serde_json::from_value(value.clone()).unwrap();
    assert_eq!(serde_json::to_value(&message).unwrap(), value);
}

#[test]
fn every_role_round_trips_with_unknown_fields() {
    round_trip(json!({"role":"user","content":"hi","timestamp":1,"zz":{"a":[1,2.5]}}));
    round_trip(json!({"role":"system","content":"","sections":{"preamble":"p","gone":null},
        "toolsAdded":[{"name":"read","description":"d","parameters":{}}],
        "toolsRemoved":[{"name":"write"}],"timestamp":1}));
    round_trip(json!({"role":"user","content":[{"type":"text","text":"a","cache":true},
        {"type":"image","data":"QQ==","mimeType":"image/png"},{"type":"video","url":"x"}]}));
    round_trip(json!({"role":"assistant","content":[
        {"type":"thinking","thinking":"hmm","thinkingSignature":"sig"},
        {"type":"toolCall","id":"c1","name":"read","arguments":{"path":"a.rs","offset":30,"limit":30.0,"2":1,"1":2}}],
        "api":"openai-responses","provider":"openai","model":"gpt-5",
        "usage":{"input":10,"output":5,"cacheRead":0,"cacheWrite":0,"totalTokens":15,"cost":{"total":0.1}},
        "stopReason":"toolUse","timestamp":1700000000000u64}));
    round_trip(json!({"role":"toolResult","toolCallId":"c1","toolName":"read",
        "content":[{"type":"text","text":"fn main"}],"isError":false,"details":{"diff":"x"},"timestamp":2}));
    round_trip(json!({"role":"bashExecution","command":"ls","output":"a\n","exitCode":0,
        "cancelled":false,"truncated":false,"excludeFromContext":true,"timestamp":3}));
    round_trip(
        json!({"role":"custom","customType":"note","content":"x","display":true,"details":{"k":1}}),
    );
    round_trip(json!({"role":"branchSummary","summary":"s","fromId":"abcd1234","timestamp":4}));
    round_trip(json!({"role":"compactionSummary","summary":"s","tokensBefore":100,"timestamp":5}));
    round_trip(json!({"role":"futureRole","anything":[1]}));
}

#[test]
fn integer_and_float_arguments_keep_their_form() {
    let text = r#"{"role":"assistant","content":[{"type":"toolCall","id":"1","name":"t","arguments":{"n":30,"f":30.0}}]}"#;
    let message: AgentMessage = serde_json::from_str(text).unwrap();
    let out = serde_json::to_string(&message).unwrap();
    assert!(out.contains(r#""n":30,"f":30.0"#), "{out}");
}

#[test]
fn usage_falls_back_to_sum_of_parts() {
    let usage = Usage { input: 3, output: 4, cache_read: 5, cache_write: 6, ..Usage::default() };
    assert_eq!(usage.context_tokens(), 18);
    let usage = Usage { total_tokens: 7, ..usage };
    assert_eq!(usage.context_tokens(), 7);
}

#[test]
fn hook_message_reads_as_custom() {
    let message: AgentMessage = serde_json::from_value(
        json!({"role":"hookMessage","customType":"x","content":"c","display":false}),
    )
    .unwrap();
    assert_eq!(message.role(), "custom");
}

#[test]
fn system_replay_patches_sections_by_name_and_tools_by_name() {
    let system = |value: Value| -> SystemMessage {
        let AgentMessage::System(system) = serde_json::from_value(value).unwrap() else {
            panic!("not a system message")
        };
        system
    };
    let first = system(json!({"role":"system","content":"base","sections":{"a":"A","b":"B"},
        "toolsAdded":[{"name":"read","v":1},{"name":"write"},{"name":"bash"}],"timestamp":7}));
    let second =
        system(json!({"role":"system","content":"","sections":{"a":null,"c":"C","b":"B2"},
        "toolsRemoved":[{"name":"write"}],
        "toolsAdded":[{"name":"read","v":2},{"name":"write","v":3}],"timestamp":9}));
    let third = system(json!({"role":"system","content":"more","timestamp":10}));
    let replayed = SystemMessage::replay([&first, &second, &third]).unwrap();
    assert_eq!(replayed.content, Content::Text("base\n\nmore".into()));
    // `a` removed, `b` patched in place, `c` added at the end.
    assert_eq!(replayed.sections, Some(json!({"b":"B2","c":"C"}).as_object().unwrap().clone()));
    // `read` declared again keeps its place; `write` removed and added again goes last.
    let tools = replayed.tools_added.clone().unwrap();
    assert_eq!(
        tools,
        vec![json!({"name":"read","v":2}), json!({"name":"bash"}), json!({"name":"write","v":3})]
    );
    // The first system message's timestamp.
    assert_eq!(replayed.extra.get("timestamp"), Some(&json!(7)));
    assert_eq!(replayed.prompt_text(), "base\n\nmore\n\nB2\n\nC");
    assert_eq!(SystemMessage::replay(std::iter::empty()), None);
}
