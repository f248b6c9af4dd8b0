//! What a written transcript must be for its agent (and the agent's API) to take it, checked
//! from the lines alone, apart from the writers' code.
//!
//! Claude Code (as the Anthropic Messages API takes what it sends): lines chained by unique
//! `uuid`s; an assistant line's content a non-empty list of non-blank `text`, signed
//! `thinking` (never a redacted block's data as a signature), `redacted_thinking` and
//! `tool_use` blocks; a `tool_use` id of `[A-Za-z0-9_-]`, 1–64 characters, unique in the
//! transcript; a tool name; an input object; the message after a reply with calls is a user
//! line answering each call once; no `tool_result` elsewhere; an error result has content;
//! an image is base64 data of a type the API reads (`image/png`, `jpeg`, `gif`, `webp`).
//!
//! Codex (as the Responses API takes what it replays): a `session_meta` line first, every
//! line a `timestamp`, `type` and `payload`; a `function_call` with a name, a `call_id` of
//! 1–64 characters unique in the rollout and `arguments` holding a JSON object; each
//! output answers a call not yet answered and every call is answered before the next
//! message; an `input_image` is a `data:` URL of such an image.

use std::collections::HashSet;

use base64::Engine;
use serde_json::Value;

const IMAGE_TYPES: [&str; 4] = ["image/png", "image/jpeg", "image/gif", "image/webp"];

fn base64_image(data: &str) -> bool {
    !data.is_empty() && base64::engine::general_purpose::STANDARD.decode(data).is_ok()
}

fn claude_id(id: &str) -> bool {
    (1..=64).contains(&id.len())
        && id.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

/// Problems of a Claude Code transcript; `redacted` holds the data of the session's
/// redacted reasoning blocks.
pub(super) fn claude(lines: &[Value], session_id: &str, redacted: &HashSet<String>) -> Vec<String> {
    let mut problems = Vec::new();
    let mut uuids = HashSet::new();
    let mut call_ids = HashSet::new();
    // The calls of the last reply not answered yet, when its results are due next.
    let mut due: Option<Vec<String>> = None;
    for (n, line) in lines.iter().enumerate() {
        let mut bad = |what: String| problems.push(format!("line {}: {what}", n + 1));
        let Some(uuid) = line["uuid"].as_str() else {
            bad("no uuid".into());
            continue;
        };
        let parent = &line["parentUuid"];
        if !parent.is_null() && !parent.as_str().is_some_and(|p| uuids.contains(p)) {
            bad(format!("parentUuid {parent} names no earlier line"));
        }
        if !uuids.insert(uuid.to_owned()) {
            bad(format!("uuid {uuid} given twice"));
        }
        if line["sessionId"] != session_id {
            bad("another sessionId".into());
        }
        let kind = line["type"].as_str().unwrap_or("");
        if kind != "user" && kind != "assistant" {
            continue;
        }
        let content = &line["message"]["content"];
        let mut results = Vec::new();
        if kind == "user" {
            user_content(content, &mut results, &mut bad);
        }
        if let Some(open) = due.take() {
            let mut answered: Vec<String> = results.clone();
            answered.sort();
            let mut wanted = open.clone();
            wanted.sort();
            if kind != "user" || answered != wanted {
                bad(format!("the calls {open:?} are answered by {results:?}"));
            }
        } else if !results.is_empty() {
            bad(format!("results {results:?} follow no reply with those calls"));
        }
        if kind == "assistant" {
            let calls = assistant_content(content, redacted, &mut bad);
            for id in &calls {
                if !call_ids.insert(id.clone()) {
                    bad(format!("tool_use id {id:?} given twice"));
                }
            }
            if !calls.is_empty() {
                due = Some(calls);
            }
        }
    }
    if let Some(open) = due {
        problems.push(format!("the calls {open:?} are never answered"));
    }
    problems
}

fn user_content(content: &Value, results: &mut Vec<String>, bad: &mut impl FnMut(String)) {
    if content.as_str().is_some_and(|text| !text.trim().is_empty()) {
        return;
    }
    match content.as_array() {
        Some(blocks) if !blocks.is_empty() => {
            for block in blocks {
                if block["type"] == "tool_result" {
                    let id = block["tool_use_id"].as_str().unwrap_or("").to_owned();
                    let content = &block["content"];
                    let parts = content.as_array().map_or(&[][..], Vec::as_slice);
                    parts.iter().for_each(|part| media(part, bad));
                    let empty = content.as_str().map_or(parts.is_empty(), str::is_empty);
                    if block["is_error"] == true && empty {
                        bad(format!("error result of {id:?} without content"));
                    }
                    results.push(id);
                } else {
                    media(block, bad);
                }
            }
        }
        _ => bad(format!("user content {}", short(content))),
    }
}

/// A text or image block of a user message or a result.
fn media(block: &Value, bad: &mut impl FnMut(String)) {
    match block["type"].as_str() {
        Some("text") if block["text"].as_str().is_some_and(|t| !t.trim().is_empty()) => {}
        Some("image") => {
            let source = &block["source"];
            let kind = source["media_type"].as_str().unwrap_or("");
            let data = source["data"].as_str().unwrap_or("");
            if source["type"] != "base64" || !IMAGE_TYPES.contains(&kind) || !base64_image(data) {
                bad(format!("image of type {kind:?} with {} bytes of data", data.len()));
            }
        }
        _ => bad(format!("block {}", short(block))),
    }
}

fn assistant_content(
    content: &Value,
    redacted: &HashSet<String>,
    bad: &mut impl FnMut(String),
) -> Vec<String> {
    let mut calls = Vec::new();
    let Some(blocks) = content.as_array().filter(|blocks| !blocks.is_empty()) else {
        bad(format!("assistant content {}", short(content)));
        return calls;
    };
    for block in blocks {
        match block["type"].as_str() {
            Some("text") if block["text"].as_str().is_some_and(|t| !t.trim().is_empty()) => {}
            Some("thinking") => {
                let signature = block["signature"].as_str().unwrap_or("");
                if signature.is_empty() || redacted.contains(signature) {
                    bad(format!("thinking signed {signature:?}"));
                }
            }
            Some("redacted_thinking")
                if block["data"].as_str().is_some_and(|data| redacted.contains(data)) => {}
            Some("tool_use") => {
                let id = block["id"].as_str().unwrap_or("");
                if !claude_id(id) {
                    bad(format!("tool_use id {id:?}"));
                }
                if block["name"].as_str().is_none_or(str::is_empty) {
                    bad(format!("tool_use {id:?} without a name"));
                }
                if !block["input"].is_object() {
                    bad(format!("tool_use {id:?} input {}", short(&block["input"])));
                }
                calls.push(id.to_owned());
            }
            _ => bad(format!("assistant block {}", short(block))),
        }
    }
    calls
}

/// Problems of a Codex rollout.
pub(super) fn codex(lines: &[Value]) -> Vec<String> {
    let mut problems = Vec::new();
    let mut call_ids = HashSet::new();
    let mut open: Vec<String> = Vec::new();
    for (n, line) in lines.iter().enumerate() {
        let mut bad = |what: String| problems.push(format!("line {}: {what}", n + 1));
        let kind = line["type"].as_str().unwrap_or("");
        if (n == 0) != (kind == "session_meta") {
            bad(format!("a line of type {kind:?}"));
        }
        if !line["timestamp"].is_string() || !line["payload"].is_object() {
            bad("no timestamp or payload".into());
        }
        if kind != "response_item" {
            continue;
        }
        let payload = &line["payload"];
        match payload["type"].as_str().unwrap_or("") {
            "message" => {
                if !open.is_empty() {
                    bad(format!("the calls {open:?} are not answered before this message"));
                    open.clear();
                }
                codex_message(payload, &mut bad);
            }
            "function_call" => {
                let id = payload["call_id"].as_str().unwrap_or("");
                if !(1..=64).contains(&id.len()) || !call_ids.insert(id.to_owned()) {
                    bad(format!("call_id {id:?} (empty, too long or given twice)"));
                }
                if payload["name"].as_str().is_none_or(str::is_empty) {
                    bad(format!("call {id:?} without a name"));
                }
                let arguments = payload["arguments"].as_str().unwrap_or("");
                if !serde_json::from_str::<Value>(arguments).is_ok_and(|v| v.is_object()) {
                    bad(format!("call {id:?} arguments {:?}", short(&arguments.into())));
                }
                open.push(id.to_owned());
            }
            "function_call_output" => {
                let id = payload["call_id"].as_str().unwrap_or("");
                match open.iter().position(|open| open == id) {
                    Some(at) => {
                        open.remove(at);
                    }
                    None => bad(format!("output of {id:?}, a call not open")),
                }
                if !payload["output"].is_string() {
                    bad(format!("output of {id:?} is no text"));
                }
            }
            other => bad(format!("response item {other:?}")),
        }
    }
    if !open.is_empty() {
        problems.push(format!("the calls {open:?} are never answered"));
    }
    problems
}

fn codex_message(payload: &Value, bad: &mut impl FnMut(String)) {
    let Some(content) = payload["content"].as_array().filter(|c| !c.is_empty()) else {
        bad("message without content".into());
        return;
    };
    for part in content {
        match part["type"].as_str().unwrap_or("") {
            "input_text" | "output_text"
                if part["text"].as_str().is_some_and(|t| !t.trim().is_empty()) => {}
            "input_image" => {
                let url = part["image_url"].as_str().unwrap_or("");
                let image = url.strip_prefix("data:").and_then(|rest| rest.split_once(";base64,"));
                if !image
                    .is_some_and(|(kind, data)| IMAGE_TYPES.contains(&kind) && base64_image(data))
                {
                    bad(format!("input_image {}", short(&url.into())));
                }
            }
            _ => bad(format!("message part {}", short(part))),
        }
    }
}

fn short(value: &Value) -> String {
    let text = value.to_string();
    if text.chars().count() > 80 {
        format!("{}…", text.chars().take(80).collect::<String>())
    } else {
        text
    }
}
