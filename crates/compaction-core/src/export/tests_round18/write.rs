//! The sessions of round 18: a few ordinary turns, then one turn a hostile shape changes.
//!
//! Every text, call argument and output carries a marker (`mark<instance>q<n>q`, the numbers
//! written in the letters `a`–`d`: plain ASCII, which JSON never escapes, of too few letters
//! for the redactor to take it for a generated secret, ended so that no marker holds
//! another), so what the transcript lost can be found by searching it.

use serde_json::{Value, json};

/// The markers an instance's session holds, in the order made.
pub(super) struct Marks {
    instance: usize,
    pub(super) made: Vec<String>,
}

impl Marks {
    pub(super) fn new(instance: usize) -> Self {
        Marks { instance, made: Vec::new() }
    }

    /// A fresh marker.
    pub(super) fn next(&mut self) -> String {
        let marker = format!("mark{}q{}q", letters(self.instance), letters(self.made.len()));
        self.made.push(marker.clone());
        marker
    }
}

/// `n` in base 4, its digits written `a`–`d`.
fn letters(mut n: usize) -> String {
    let mut out = Vec::new();
    loop {
        out.push(b'a' + (n % 4) as u8);
        n /= 4;
        if n == 0 {
            break;
        }
    }
    out.reverse();
    String::from_utf8(out).unwrap_or_default()
}

pub(super) fn user(content: Value) -> Value {
    json!({ "role": "user", "content": content, "timestamp": 1 })
}

pub(super) fn text(text: &str) -> Value {
    json!({ "type": "text", "text": text })
}

pub(super) fn call(id: &str, name: &str, arguments: Value) -> Value {
    json!({ "type": "toolCall", "id": id, "name": name, "arguments": arguments })
}

pub(super) fn assistant(content: Vec<Value>, calls: bool) -> Value {
    json!({
        "role": "assistant",
        "content": content,
        "api": "anthropic-messages",
        "provider": "anthropic",
        "model": "claude-x",
        "usage": { "input": 1, "output": 1, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 2 },
        "stopReason": if calls { "toolUse" } else { "stop" },
        "timestamp": 2,
    })
}

pub(super) fn result(call_id: &str, name: &str, content: Value, is_error: bool) -> Value {
    json!({
        "role": "toolResult",
        "toolCallId": call_id,
        "toolName": name,
        "content": content,
        "isError": is_error,
        "timestamp": 3,
    })
}

/// The arguments of an ordinary call of tool `name`, each value a marker.
pub(super) fn arguments(name: &str, marks: &mut Marks) -> Value {
    match name {
        "bash" => json!({ "command": format!("echo {}", marks.next()), "timeout": 30 }),
        "read" => json!({ "path": format!("src/{}.rs", marks.next()) }),
        "edit" => json!({
            "path": format!("src/{}.rs", marks.next()),
            "edits": [{ "oldText": marks.next(), "newText": marks.next() }],
        }),
        _ => json!({ "pattern": marks.next() }),
    }
}

const TOOLS: [&str; 4] = ["bash", "read", "edit", "grep"];

/// One ordinary turn: a user message, a reply with `calls` calls (ids `call_<tag>_<c>`),
/// their results in order, and a closing reply.
pub(super) fn turn(tag: &str, calls: usize, marks: &mut Marks) -> Vec<Value> {
    let mut out = vec![user(json!(format!("please {}", marks.next())))];
    let mut blocks = vec![text(&format!("working on {}", marks.next()))];
    let mut results = Vec::new();
    for c in 0..calls {
        let name = TOOLS[c % TOOLS.len()];
        let id = format!("call_{tag}_{c}");
        blocks.push(call(&id, name, arguments(name, marks)));
        results.push(result(&id, name, json!([text(&format!("output {}", marks.next()))]), false));
    }
    out.push(assistant(blocks, true));
    out.extend(results);
    out.push(assistant(vec![text(&format!("done {}", marks.next()))], false));
    out
}

/// The session file of `messages`, each an entry under the one before.
pub(super) fn session_text(messages: &[Value]) -> String {
    let mut lines = vec![
        json!({
            "type": "session", "version": 3, "id": "s18",
            "timestamp": "2025-01-01T00:00:00.000Z", "cwd": "/work/app",
        })
        .to_string(),
    ];
    for (n, message) in messages.iter().enumerate() {
        lines.push(
            json!({
                "type": "message",
                "id": format!("e{n}"),
                "parentId": if n == 0 { Value::Null } else { json!(format!("e{}", n - 1)) },
                "timestamp": "2025-01-01T00:00:01.000Z",
                "message": message,
            })
            .to_string(),
        );
    }
    lines.join("\n") + "\n"
}
