//! The hostile shapes: each changes the last turn of a session (`h`: its user message, the
//! reply with `calls` calls, their results in order, the closing reply). The last call of
//! the reply (`call_x_<calls - 1>`) and its result are the ones most shapes change.

use base64::Engine;
use serde_json::{Value, json};

use super::write::{Marks, arguments, call, result, text, turn, user};

/// What a shape is given: the turn, the calls in its reply, the ordinary turns before it.
pub(super) struct Turn<'a> {
    pub(super) h: &'a mut Vec<Value>,
    pub(super) calls: usize,
    pub(super) filler: usize,
    pub(super) marks: &'a mut Marks,
}

impl Turn<'_> {
    fn x_call(&mut self) -> &mut Value {
        &mut self.h[1]["content"][self.calls]
    }

    fn x_result(&mut self) -> &mut Value {
        &mut self.h[1 + self.calls]
    }

    /// Gives the last call and its result the id `id`.
    fn x_id(&mut self, id: &str) {
        self.x_call()["id"] = json!(id);
        self.x_result()["toolCallId"] = json!(id);
    }

    /// Makes the last call one of tool `name` with `arguments`.
    fn x_tool(&mut self, name: &str, arguments: Value) {
        self.x_call()["name"] = json!(name);
        self.x_call()["arguments"] = arguments;
        self.x_result()["toolName"] = json!(name);
    }

    fn x_output(&mut self, content: Value, is_error: bool) {
        self.x_result()["content"] = content;
        self.x_result()["isError"] = json!(is_error);
    }
}

pub(super) type Shape = (&'static str, fn(&mut Turn<'_>));

fn png() -> String {
    base64::engine::general_purpose::STANDARD.encode(b"\x89PNG\r\n\x1a\n0000")
}

/// Every shape, in generation order (new shapes go at the end, so no instance changes part).
pub(super) const SHAPES: &[Shape] = &[
    ("call id with a bar (OpenAI Responses)", |t| {
        let id = format!("call_{}|fc_{}", t.marks.next(), "0a1b2c3d".repeat(5));
        t.x_id(&id);
    }),
    ("call id of 200 characters", |t| t.x_id(&"c".repeat(200))),
    ("empty call id", |t| t.x_id("")),
    ("call id with spaces and non-ASCII", |t| t.x_id("call é 1/2")),
    ("call id given twice in one reply", |t| {
        let id = format!("call_x_{}", t.calls - 1);
        let args = arguments("read", t.marks);
        t.h[1]["content"].as_array_mut().unwrap().push(call(&id, "read", args));
        let output = json!([text(&format!("second {}", t.marks.next()))]);
        t.h.insert(2 + t.calls, result(&id, "read", output, false));
    }),
    ("call id of an earlier turn", |t| {
        t.x_id("call_f0_0");
        if t.filler == 0 {
            // No ordinary turn before: one is put first, its call `call_f0_0`.
            let earlier = turn("f0", 1, t.marks);
            t.h.splice(0..0, earlier);
        }
    }),
    ("arguments a string", |t| {
        let text = format!("raw {}", t.marks.next());
        t.x_call()["arguments"] = json!(text);
    }),
    ("arguments a list", |t| {
        let item = t.marks.next();
        t.x_call()["arguments"] = json!([item, 1]);
    }),
    ("arguments null", |t| t.x_call()["arguments"] = Value::Null),
    ("bash timeout given as text", |t| {
        let args =
            json!({ "command": format!("ls {}", t.marks.next()), "timeout": t.marks.next() });
        t.x_tool("bash", args);
    }),
    ("read with file_path as well as path", |t| {
        let args = json!({ "path": t.marks.next(), "file_path": t.marks.next() });
        t.x_tool("read", args);
    }),
    ("edit with edits given as text", |t| {
        let args = json!({
            "path": t.marks.next(), "oldText": t.marks.next(), "newText": t.marks.next(),
            "edits": t.marks.next(),
        });
        t.x_tool("edit", args);
    }),
    ("bash with timeout_ms as well as timeout", |t| {
        let args = json!({
            "command": format!("ls {}", t.marks.next()), "timeout": 5, "timeout_ms": t.marks.next(),
        });
        t.x_tool("bash", args);
    }),
    ("empty tool name", |t| {
        let args = json!({ "q": t.marks.next() });
        t.x_tool("", args);
    }),
    ("a result of no call among the reply's results", |t| {
        let output = json!([text(&format!("stray {}", t.marks.next()))]);
        let at = 1 + t.calls;
        t.h.insert(at, result("call_nowhere", "bash", output, false));
    }),
    ("a user message between a call and its result", |t| {
        let note = user(json!(format!("wait {}", t.marks.next())));
        let at = 1 + t.calls;
        t.h.insert(at, note);
    }),
    ("error result with no content", |t| t.x_output(json!([]), true)),
    ("error result of blank text", |t| t.x_output(json!([text("  \n")]), true)),
    ("image of another type in a user message", |t| {
        let content = json!([
            text(&format!("see {}", t.marks.next())),
            { "type": "image", "data": png(), "mimeType": "text/html" },
        ]);
        t.h[0]["content"] = content;
    }),
    ("image with no data in a user message", |t| {
        let content = json!([
            text(&format!("see {}", t.marks.next())),
            { "type": "image", "data": "", "mimeType": "image/png" },
        ]);
        t.h[0]["content"] = content;
    }),
    ("image whose data is no base64", |t| {
        let content = json!([
            text(&format!("see {}", t.marks.next())),
            { "type": "image", "data": format!("{}!!", t.marks.next()), "mimeType": "image/png" },
        ]);
        t.h[0]["content"] = content;
    }),
    ("image of another type in a tool result", |t| {
        let content = json!([
            text(&format!("pdf {}", t.marks.next())),
            { "type": "image", "data": png(), "mimeType": "application/pdf" },
        ]);
        t.x_output(content, false);
    }),
    ("redacted reasoning", |t| {
        let block = json!({
            "type": "thinking", "thinking": "[Reasoning redacted]",
            "thinkingSignature": format!("EqRedacted{}", t.calls), "redacted": true,
        });
        t.h[1]["content"].as_array_mut().unwrap().insert(0, block);
    }),
    ("signed reasoning", |t| {
        let block = json!({
            "type": "thinking", "thinking": format!("think {}", t.marks.next()),
            "thinkingSignature": "EqSigned0",
        });
        t.h[1]["content"].as_array_mut().unwrap().insert(0, block);
    }),
    ("an output of two megabytes", |t| {
        let big = format!("{}{}", "x".repeat(2 << 20), t.marks.next());
        t.x_output(json!([text(&big)]), false);
    }),
    ("a result before its call", |t| {
        let at = 1 + t.calls;
        let moved = t.h.remove(at);
        t.h.insert(1, moved);
    }),
    ("a call with no result, then a user message", |t| {
        let at = 1 + t.calls;
        t.h.remove(at);
        let next = t.h.len() - 1;
        t.h[next] = user(json!(format!("next {}", t.marks.next())));
    }),
    ("a call block in a user message", |t| {
        let args = arguments("bash", t.marks);
        let content =
            json!([text(&format!("see {}", t.marks.next())), call("call_u", "bash", args)]);
        t.h[0]["content"] = content;
    }),
    ("odd characters in texts", |t| {
        let odd = format!("nul\u{0}cr\rls\u{2028}bidi\u{202e}{}", t.marks.next());
        t.h[0]["content"] = json!(odd.clone());
        t.x_output(json!([text(&odd)]), false);
    }),
];
