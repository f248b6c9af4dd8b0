//! The `pi` estimator: pi 1.6's `estimateTokens`, reproduced to the token.
//!
//! pi counts JavaScript string lengths (UTF-16 code units) of the parts of a message it
//! considers, divides by four and rounds up, once per message. The parts, by role:
//! `system` content, section texts and `JSON.stringify(toolsAdded)`; `user`, `toolResult`
//! and `custom` text plus 4800 characters per image (pi 0.73.1 did not count images in user
//! messages; 1.6 does); `assistant` text, thinking and tool calls (name +
//! `JSON.stringify(arguments)`); `bashExecution` command + output; and both summaries'
//! text. Every other role counts zero.
//!
//! Invariant: [`js_json_length`] equals `JSON.stringify(value).length` for every JSON value
//! serde_json can hold (JavaScript key order and number formatting included), computed
//! without building the string.

use serde_json::{Map, Number, Value};

use super::TokenEstimator;
use crate::message::{AgentMessage, Content, ContentBlock};

/// Characters pi charges for one image in a user, tool-result, custom or system message.
pub const PI_IMAGE_CHARS: u64 = 4800;

/// pi's chars/4 estimate (see the module documentation).
#[derive(Debug, Clone, Copy, Default)]
pub struct PiEstimator;

impl TokenEstimator for PiEstimator {
    fn name(&self) -> &'static str {
        "pi"
    }

    fn text_tokens(&self, text: &str) -> u64 {
        utf16_len(text).div_ceil(4)
    }

    fn message_tokens(&self, message: &AgentMessage) -> u64 {
        pi_message_chars(message).div_ceil(4)
    }
}

/// The characters (UTF-16 code units) pi counts for one message.
pub fn pi_message_chars(message: &AgentMessage) -> u64 {
    match message {
        AgentMessage::User(user) => content_chars(&user.content),
        AgentMessage::Assistant(assistant) => assistant
            .content
            .iter()
            .map(|block| match block {
                ContentBlock::Text(text) => utf16_len(&text.text),
                ContentBlock::Thinking(thinking) => utf16_len(&thinking.thinking),
                ContentBlock::ToolCall(call) => {
                    utf16_len(&call.name) + js_json_length(&call.arguments)
                }
                ContentBlock::Image(_) | ContentBlock::Other(_) => 0,
            })
            .sum(),
        AgentMessage::ToolResult(result) => content_chars(&result.content),
        AgentMessage::Custom(custom) => content_chars(&custom.content),
        AgentMessage::BashExecution(bash) => utf16_len(&bash.command) + utf16_len(&bash.output),
        AgentMessage::BranchSummary(summary) | AgentMessage::CompactionSummary(summary) => {
            utf16_len(&summary.summary)
        }
        AgentMessage::System(system) => {
            let sections: u64 = system
                .sections
                .iter()
                .flat_map(|sections| sections.values())
                .filter_map(Value::as_str)
                .map(utf16_len)
                .sum();
            let tools = system
                .tools_added
                .as_ref()
                .map_or(0, |tools| js_json_length(&Value::Array(tools.clone())));
            content_chars(&system.content) + sections + tools
        }
        AgentMessage::Other(_) => 0,
    }
}

fn content_chars(content: &Content) -> u64 {
    match content {
        Content::Text(text) => utf16_len(text),
        Content::Blocks(blocks) => blocks
            .iter()
            .map(|block| match block {
                ContentBlock::Text(text) => utf16_len(&text.text),
                ContentBlock::Image(_) => PI_IMAGE_CHARS,
                ContentBlock::Thinking(_) | ContentBlock::ToolCall(_) | ContentBlock::Other(_) => 0,
            })
            .sum(),
    }
}

/// The length of `text` in UTF-16 code units (JavaScript's `String.prototype.length`).
pub fn utf16_len(text: &str) -> u64 {
    // Every char takes one code unit except those above U+FFFF, which take two and are
    // exactly the chars encoded with four UTF-8 bytes (leading byte 0xF0..=0xF4).
    let bytes = text.as_bytes();
    let chars = bytes.iter().filter(|&&b| (b & 0xC0) != 0x80).count();
    let astral = bytes.iter().filter(|&&b| b >= 0xF0).count();
    (chars + astral) as u64
}

/// `JSON.stringify(value).length` as JavaScript computes it.
pub fn js_json_length(value: &Value) -> u64 {
    match value {
        Value::Null => 4,
        Value::Bool(true) => 4,
        Value::Bool(false) => 5,
        Value::Number(number) => js_number_string(number).len() as u64,
        Value::String(text) => js_string_length(text),
        Value::Array(items) => {
            let inner: u64 = items.iter().map(js_json_length).sum();
            2 + inner + items.len().saturating_sub(1) as u64
        }
        Value::Object(map) => {
            let inner: u64 = map
                .iter()
                .map(|(key, value)| js_string_length(key) + 1 + js_json_length(value))
                .sum();
            2 + inner + map.len().saturating_sub(1) as u64
        }
    }
}

/// `JSON.stringify(value)` with JavaScript's key order and number formatting. Used by tests
/// and by callers that want the text pi would see; [`js_json_length`] avoids building it.
pub fn js_json_string(value: &Value) -> String {
    let mut out = String::new();
    write_js_json(value, &mut out);
    out
}

fn write_js_json(value: &Value, out: &mut String) {
    match value {
        Value::Null => out.push_str("null"),
        Value::Bool(flag) => out.push_str(if *flag { "true" } else { "false" }),
        Value::Number(number) => out.push_str(&js_number_string(number)),
        Value::String(text) => write_js_string(text, out),
        Value::Array(items) => {
            out.push('[');
            for (position, item) in items.iter().enumerate() {
                if position > 0 {
                    out.push(',');
                }
                write_js_json(item, out);
            }
            out.push(']');
        }
        Value::Object(map) => {
            out.push('{');
            for (position, (key, item)) in js_key_order(map).into_iter().enumerate() {
                if position > 0 {
                    out.push(',');
                }
                write_js_string(key, out);
                out.push(':');
                write_js_json(item, out);
            }
            out.push('}');
        }
    }
}

/// The entries of an object in the order JavaScript enumerates them: array-index keys
/// ascending, then the other keys in insertion order. (The length does not depend on the
/// order; the text does.)
pub fn js_key_order(map: &Map<String, Value>) -> Vec<(&String, &Value)> {
    let mut indices: Vec<(u32, (&String, &Value))> = Vec::new();
    let mut others = Vec::new();
    for entry in map {
        match array_index(entry.0) {
            Some(index) => indices.push((index, entry)),
            None => others.push(entry),
        }
    }
    indices.sort_by_key(|(index, _)| *index);
    indices.into_iter().map(|(_, entry)| entry).chain(others).collect()
}

/// An ECMAScript array index: the canonical decimal form of an integer below 2^32 − 1.
fn array_index(key: &str) -> Option<u32> {
    if key.is_empty() || key.len() > 10 || !key.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    if key.len() > 1 && key.starts_with('0') {
        return None;
    }
    let value: u64 = key.parse().ok()?;
    if value < u64::from(u32::MAX) { u32::try_from(value).ok() } else { None }
}

/// A JSON number as JavaScript prints it after `JSON.parse`: the nearest double, formatted
/// by `Number.prototype.toString` (`30.0` → `30`, `1e21` → `1e+21`, `-0` → `0`).
pub fn js_number_string(number: &Number) -> String {
    let double = if let Some(unsigned) = number.as_u64() {
        unsigned as f64
    } else if let Some(signed) = number.as_i64() {
        signed as f64
    } else {
        number.as_f64().unwrap_or(0.0)
    };
    if double == 0.0 {
        // JSON.stringify prints negative zero as "0".
        return "0".to_owned();
    }
    let mut buffer = ryu_js::Buffer::new();
    buffer.format(double).to_owned()
}

fn js_string_length(text: &str) -> u64 {
    let mut length = 2;
    for ch in text.chars() {
        length += match ch {
            '"' | '\\' | '\u{8}' | '\u{c}' | '\n' | '\r' | '\t' => 2,
            '\u{0}'..='\u{1f}' => 6,
            other => other.len_utf16() as u64,
        };
    }
    length
}

fn write_js_string(text: &str, out: &mut String) {
    out.push('"');
    for ch in text.chars() {
        match ch {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{0}'..='\u{1f}' => out.push_str(&format!("\\u{:04x}", ch as u32)),
            other => out.push(other),
        }
    }
    out.push('"');
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    fn message(value: Value) -> AgentMessage {
        serde_json::from_value(value).unwrap()
    }

    fn tokens(value: Value) -> u64 {
        PiEstimator.message_tokens(&message(value))
    }

    #[test]
    fn utf16_length_counts_astral_chars_twice() {
        assert_eq!(utf16_len("abc"), 3);
        assert_eq!(utf16_len("héllo"), 5);
        assert_eq!(utf16_len("日本語"), 3);
        // One emoji outside the BMP is a surrogate pair.
        assert_eq!(utf16_len("😀"), 2);
        // Family emoji: 4 astral people joined by 3 ZWJ (U+200D, one unit each).
        assert_eq!(utf16_len("👨‍👩‍👧‍👦"), 11);
    }

    #[test]
    fn user_text_string_and_blocks_round_up() {
        assert_eq!(tokens(json!({"role":"user","content":"hello"})), 2); // 5/4
        assert_eq!(tokens(json!({"role":"user","content":"abcd"})), 1);
        assert_eq!(tokens(json!({"role":"user","content":""})), 0);
        assert_eq!(
            tokens(json!({"role":"user","content":[
                {"type":"text","text":"abc"},{"type":"text","text":"defgh"}]})),
            2 // 8/4
        );
    }

    #[test]
    fn images_count_4800_characters_in_user_and_tool_result_messages() {
        let image = json!({"type":"image","data":"QUJD","mimeType":"image/png"});
        // pi 1.6 counts user images too (0.73.1 did not).
        assert_eq!(
            tokens(json!({"role":"user","content":[{"type":"text","text":"look"}, image.clone()]})),
            1201
        );
        assert_eq!(
            tokens(json!({"role":"toolResult","toolCallId":"c","toolName":"read",
                "content":[{"type":"text","text":"look"}, image.clone()],"isError":false})),
            1201 // (4 + 4800) / 4
        );
        assert_eq!(
            tokens(json!({"role":"custom","customType":"x","content":[image],"display":true})),
            1200
        );
    }

    #[test]
    fn system_message_counts_content_sections_and_tool_declarations() {
        let tools =
            json!([{"name":"read","description":"Read a file","parameters":{"type":"object"}}]);
        let message = json!({"role":"system","content":"base","sections":{"a":"12345678","gone":null},
            "toolsAdded":tools.clone(),"toolsRemoved":[{"name":"write"}],"timestamp":1});
        let expected = (4 + 8 + js_json_string(&tools).len() as u64).div_ceil(4);
        assert_eq!(tokens(message), expected);
    }

    #[test]
    fn cjk_and_emoji_count_code_units() {
        // 6 CJK chars = 6 units → 2 tokens.
        assert_eq!(tokens(json!({"role":"user","content":"你好，世界！"})), 2);
        // 3 emoji = 6 units + "ok" = 8 → 2 tokens.
        assert_eq!(tokens(json!({"role":"user","content":"😀🎉🚀ok"})), 2);
        // 5 emoji = 10 units → 3 tokens (a char count would give 2).
        assert_eq!(tokens(json!({"role":"user","content":"😀😀😀😀😀"})), 3);
    }

    #[test]
    fn assistant_counts_text_thinking_and_tool_calls() {
        let value = json!({"role":"assistant","content":[
            {"type":"text","text":"Let me look."},
            {"type":"thinking","thinking":"hmm","thinkingSignature":"long-signature-ignored"},
            {"type":"toolCall","id":"call_1","name":"read","arguments":{"path":"a.rs"}}
        ],"usage":{"input":1,"output":1,"cacheRead":0,"cacheWrite":0,"totalTokens":2},"stopReason":"toolUse"});
        // 12 + 3 + 4 + len({"path":"a.rs"}) = 15 → 34 chars → 9 tokens.
        assert_eq!(pi_message_chars(&message(value.clone())), 34);
        assert_eq!(tokens(value), 9);
    }

    #[test]
    fn tool_arguments_use_javascript_key_order_and_numbers() {
        let arguments: Value = serde_json::from_str(
            r#"{"path":"a.rs","10":true,"2":null,"offset":30.0,"limit":1e21,"01":0.1,"x":-0.0,"big":12345678901234567890}"#,
        )
        .unwrap();
        let text = js_json_string(&arguments);
        assert_eq!(
            text,
            r#"{"2":null,"10":true,"path":"a.rs","offset":30,"limit":1e+21,"01":0.1,"x":0,"big":12345678901234567000}"#
        );
        assert_eq!(js_json_length(&arguments), text.encode_utf16().count() as u64);
        let value = json!({"role":"assistant","content":[
            {"type":"toolCall","id":"c","name":"edit","arguments":arguments}]});
        // 4 + 102 = 106 → 27 tokens (pi 0.73.1 gives 27 for this message).
        assert_eq!(text.len(), 102);
        assert_eq!(tokens(value), 27);
    }

    #[test]
    fn json_strings_escape_like_javascript() {
        let value = json!({"s":"a\"b\\c\nd\te\u{1}f\u{7f}é😀\u{2028}"});
        let text = js_json_string(&value);
        assert_eq!(text, "{\"s\":\"a\\\"b\\\\c\\nd\\te\\u0001f\u{7f}é😀\u{2028}\"}");
        assert_eq!(js_json_length(&value), text.encode_utf16().count() as u64);
        assert_eq!(js_json_length(&value), 33);
        assert_eq!(js_json_length(&json!([1, 2.5, "x", [], {}])), 17);
        assert_eq!(js_json_length(&Value::Null), 4);
    }

    #[test]
    fn numbers_format_like_javascript() {
        let cases = [
            ("30.0", "30"),
            ("0.1", "0.1"),
            ("1e21", "1e+21"),
            ("1e20", "100000000000000000000"),
            ("1.5e-7", "1.5e-7"),
            ("0.000001", "0.000001"),
            ("-2", "-2"),
            ("123456789012", "123456789012"),
            ("9007199254740993", "9007199254740992"),
        ];
        for (input, expected) in cases {
            let number: Number = serde_json::from_str(input).unwrap();
            assert_eq!(js_number_string(&number), expected, "{input}");
        }
    }

    #[test]
    fn array_index_keys() {
        assert_eq!(array_index("0"), Some(0));
        assert_eq!(array_index("4294967294"), Some(4_294_967_294));
        assert_eq!(array_index("4294967295"), None);
        assert_eq!(array_index("01"), None);
        assert_eq!(array_index("-1"), None);
        assert_eq!(array_index("1.0"), None);
    }

    #[test]
    fn bash_summaries_and_unknown_roles() {
        assert_eq!(
            tokens(json!({"role":"bashExecution","command":"ls -la","output":"a\nb\n",
                "exitCode":0,"cancelled":false,"truncated":false})),
            3 // (6 + 4) / 4
        );
        assert_eq!(
            tokens(json!({"role":"compactionSummary","summary":"12345678","tokensBefore":9})),
            2
        );
        assert_eq!(tokens(json!({"role":"branchSummary","summary":"123456789","fromId":"a"})), 3);
        assert_eq!(
            tokens(
                json!({"role":"toolResult","toolCallId":"c","toolName":"bash","content":"done","isError":false})
            ),
            1
        );
        assert_eq!(tokens(json!({"role":"futureRole","content":"abcdefgh"})), 0);
    }
}
