//! The user, assistant and attachment lines of a Claude Code transcript, as pi entries:
//! replies split over lines joined by `message.id`, each tool result chained after the
//! previous result of its reply, queued input kept, a resent message's first version kept
//! outside the context, and Claude Code's own compaction as a `compaction` entry.

use serde_json::{Map, Value, json};

use super::super::build::{self, Builder};
use super::blocks::{image, stop_reason, tool_call, usage};
use super::{RESENT_CUSTOM_TYPE, State};

/// Whether a line is the user's own words: a user message that is not Claude Code's (meta,
/// compaction summary) and holds no tool result.
pub(super) fn users_words(value: &Value) -> bool {
    let flag = |key: &str| value.get(key).and_then(Value::as_bool) == Some(true);
    let content = value.get("message").and_then(|m| m.get("content"));
    let results = content.and_then(Value::as_array).is_some_and(|blocks| {
        blocks.iter().any(|b| b.get("type").and_then(Value::as_str) == Some("tool_result"))
    });
    value.get("type").and_then(Value::as_str) == Some("user")
        && !flag("isMeta")
        && !flag("isCompactSummary")
        && !flag("isSidechain")
        && !results
}

/// The first version of a message the user edited and sent again (Claude Code resumes
/// without it): kept in its place in the file as a `custom` entry, outside the context, and
/// the next line under the same parent hangs from it, so the path keeps the file's order.
pub(super) fn resent_line(
    value: &Value,
    timestamp: &str,
    state: &mut State,
    builder: &mut Builder<'_>,
) {
    let parent = state.parent(value);
    let content = value.get("message").and_then(|m| m.get("content")).cloned();
    let content = builder.value(&content.unwrap_or(Value::Null));
    let mut fields = Map::new();
    fields.insert("customType".into(), RESENT_CUSTOM_TYPE.into());
    fields.insert("data".into(), json!({ "content": content }));
    let id = builder.push("custom", parent.as_deref(), timestamp, fields);
    builder.resent += 1;
    if let Some(parent) = parent {
        state.after.insert(parent, id.clone());
    }
    state.open_reply = None;
    state.last = Some(id.clone());
    state.record(value, Some(id));
}

/// An `attachment` line: text Claude Code added to the context. Input the user queued while
/// the agent worked (`queued_command`) reached the model and is kept as a user message;
/// the other kinds (reminders, file snapshots, hook output) are counted as left out.
pub(super) fn attachment_line(
    value: &Value,
    timestamp: &str,
    state: &mut State,
    builder: &mut Builder<'_>,
) {
    let attachment = value.get("attachment");
    let kind = attachment.and_then(|a| a.get("type")).and_then(Value::as_str).unwrap_or("");
    let prompt = attachment.and_then(|a| a.get("prompt"));
    let text = match prompt {
        Some(Value::String(text)) => Some(text.clone()),
        Some(Value::Array(blocks)) => Some(
            blocks
                .iter()
                .filter_map(|b| b.get("text").and_then(Value::as_str))
                .collect::<Vec<_>>()
                .join("\n"),
        ),
        Some(_) | None => None,
    };
    let parent = state.parent(value);
    match (kind, text) {
        ("queued_command", Some(text)) if !text.trim().is_empty() => {
            state.delivered(&text);
            let blocks = vec![build::text_block(builder.text(&text))];
            let id = builder.message(parent.as_deref(), timestamp, build::user(blocks, timestamp));
            state.open_reply = None;
            state.last = Some(id.clone());
            state.record(value, Some(id));
        }
        _ => {
            let kind = if kind.is_empty() { "untyped" } else { kind };
            builder.drop(format!("`attachment` line ({kind})"));
            state.record(value, parent);
        }
    }
}

pub(super) fn user_line(
    value: &Value,
    timestamp: &str,
    state: &mut State,
    builder: &mut Builder<'_>,
) {
    let parent = state.parent(value);
    if value.get("toolUseResult").is_some_and(|result| !result.is_null()) {
        builder.drop("`toolUseResult` (Claude Code's structured copy of a tool result)");
    }
    let content = value.get("message").and_then(|m| m.get("content"));
    let is_meta = value.get("isMeta").and_then(Value::as_bool) == Some(true);
    let is_summary = value.get("isCompactSummary").and_then(Value::as_bool) == Some(true);
    let mut last = parent;
    let mut blocks = Vec::new();
    let mut text_only = String::new();
    if let Some(text) = content.and_then(Value::as_str) {
        text_only.push_str(text);
        blocks.push(build::text_block(builder.text(text)));
    }
    for block in content.and_then(Value::as_array).map(Vec::as_slice).unwrap_or(&[]) {
        match block.get("type").and_then(Value::as_str) {
            Some("tool_result") => {
                last = Some(tool_result(block, timestamp, last.as_deref(), state, builder));
            }
            Some("text") => {
                let text = block.get("text").and_then(Value::as_str).unwrap_or("");
                if !text_only.is_empty() {
                    text_only.push('\n');
                }
                text_only.push_str(text);
                blocks.push(build::text_block(builder.text(text)));
            }
            Some("image") => match image(block) {
                Some(image) => blocks.push(builder.image(image)),
                None => builder.drop("image without base64 data"),
            },
            Some(other) => builder.drop(format!("user `{other}` block")),
            None => builder.drop("user block without a type"),
        }
    }
    if is_summary {
        // Claude Code's own compaction: its summary replaces what came before, as a pi
        // compaction does.
        let tokens = state.compact_tokens.take().unwrap_or(0);
        let id = builder.compaction(last.as_deref(), timestamp, &text_only, tokens, "claude-code");
        let images = blocks.iter().filter(|b| b["type"] == "image").count();
        builder.drop_n("image in a Claude Code compaction summary", images);
        last = Some(id);
    } else if !blocks.is_empty() {
        let id = if is_meta {
            builder.custom_message(last.as_deref(), timestamp, "imported-meta", blocks)
        } else {
            state.delivered(&text_only);
            builder.message(last.as_deref(), timestamp, build::user(blocks, timestamp))
        };
        last = Some(id);
    }
    state.open_reply = None;
    if last.is_some() && last != state.last {
        state.last.clone_from(&last);
    }
    state.record(value, last);
}

/// Writes one tool result; returns its entry id.
fn tool_result(
    block: &Value,
    timestamp: &str,
    parent: Option<&str>,
    state: &mut State,
    builder: &mut Builder<'_>,
) -> String {
    let call_id = block.get("tool_use_id").and_then(Value::as_str).unwrap_or("");
    // The reply the line follows (its parent, or the reply of the result it follows): of
    // the calls given this id (an id may be given again), the one in that reply, else the
    // latest.
    let follows = parent.map(|p| state.result_reply.get(p).map_or(p, String::as_str));
    let in_reply = follows.and_then(|reply| {
        let name = state.calls_in.get(&(call_id.to_owned(), reply.to_owned()))?;
        Some((name.clone(), reply.to_owned()))
    });
    let (name, call_entry) = match in_reply.or_else(|| state.calls.get(call_id).cloned()) {
        Some((name, entry)) => (name, Some(entry)),
        None => ("unknown".to_owned(), None),
    };
    // A line that follows its call's reply (the reply, or a result of it) is chained after
    // the reply's previous result, so the results of one reply never branch. A line that
    // stands elsewhere (another branch, after a compaction or a later message) stays there,
    // and the pairing keeps it as a note: moved to its call, it would become the last entry
    // and take the session's path off the branch the transcript ends on.
    let parent = match &call_entry {
        Some(entry) if follows == Some(entry.as_str()) => {
            state.result_tail.get(entry).cloned().or_else(|| Some(entry.clone()))
        }
        Some(_) | None => parent.map(str::to_owned),
    };
    let mut content = Vec::new();
    if let Some(text) = block.get("content").and_then(Value::as_str) {
        content.push(build::text_block(builder.text(text)));
    }
    for item in block.get("content").and_then(Value::as_array).map(Vec::as_slice).unwrap_or(&[]) {
        match item.get("type").and_then(Value::as_str) {
            Some("text") => {
                let text = item.get("text").and_then(Value::as_str).unwrap_or("");
                content.push(build::text_block(builder.text(text)));
            }
            Some("image") => match image(item) {
                Some(image) => content.push(builder.image(image)),
                None => builder.drop("image without base64 data"),
            },
            Some(other) => builder.drop(format!("tool result `{other}` block")),
            None => builder.drop("tool result block without a type"),
        }
    }
    let is_error = block.get("is_error").and_then(Value::as_bool).unwrap_or(false);
    let message = build::tool_result(call_id, &name, content, is_error, None, timestamp);
    let id = builder.message(parent.as_deref(), timestamp, message);
    if let Some(entry) = call_entry {
        state.result_reply.insert(id.clone(), entry.clone());
        state.result_tail.insert(entry, id.clone());
    }
    id
}

pub(super) fn assistant_line(
    value: &Value,
    timestamp: &str,
    state: &mut State,
    builder: &mut Builder<'_>,
) {
    let message = value.get("message").unwrap_or(&Value::Null);
    let reply_id = message.get("id").and_then(Value::as_str).unwrap_or("").to_owned();
    let parent = state.parent(value);
    let mut blocks = Vec::new();
    for block in message.get("content").and_then(Value::as_array).map(Vec::as_slice).unwrap_or(&[])
    {
        match block.get("type").and_then(Value::as_str) {
            Some("text") => {
                let text = block.get("text").and_then(Value::as_str).unwrap_or("");
                blocks.push(build::text_block(builder.text(text)));
            }
            Some("thinking") => {
                let thinking = block.get("thinking").and_then(Value::as_str).unwrap_or("");
                let mut out = json!({ "type": "thinking", "thinking": builder.text(thinking) });
                if let (Some(signature), Some(object)) =
                    (block.get("signature").and_then(Value::as_str), out.as_object_mut())
                {
                    object.insert("thinkingSignature".into(), signature.into());
                }
                blocks.push(out);
            }
            Some("tool_use") => blocks.push(tool_call(block, builder)),
            Some(other) => builder.drop(format!("assistant `{other}` block")),
            None => builder.drop("assistant block without a type"),
        }
    }
    if let Some(text) = message.get("content").and_then(Value::as_str) {
        blocks.push(build::text_block(builder.text(text)));
    }
    let usage = message.get("usage").map(|recorded| usage(Some(recorded)));
    let has_calls =
        blocks.iter().any(|b| b.get("type").and_then(Value::as_str) == Some("toolCall"));
    let error = value.get("isApiErrorMessage").and_then(Value::as_bool) == Some(true);
    let stop_reason = stop_reason(message.get("stop_reason").and_then(Value::as_str), error);
    // Another line of the reply that is still the last entry: add its blocks there.
    let continues = match &state.open_reply {
        Some((open, entry)) => {
            !reply_id.is_empty() && *open == reply_id && parent.as_deref() == Some(entry.as_str())
        }
        None => false,
    };
    // Whether the reply holds a call: its earlier lines' answer is remembered, so a line
    // merged into a reply costs its own blocks, not the whole reply's.
    let has_calls = has_calls || (continues && state.open_reply_calls);
    let entry = if continues && let Some(content) = builder.last_assistant_content() {
        content.extend(blocks.iter().cloned());
        let mut fields = Map::new();
        if let Some(usage) = usage {
            fields.insert("usage".into(), usage);
        }
        fields.insert(
            "stopReason".into(),
            (if has_calls && stop_reason == "stop" { "toolUse" } else { stop_reason }).into(),
        );
        builder.update_last_message(fields);
        state.last.clone().unwrap_or_default()
    } else {
        let model = message.get("model").and_then(Value::as_str).unwrap_or("unknown");
        let stop = if has_calls && stop_reason == "stop" { "toolUse" } else { stop_reason };
        let mut reply = build::assistant(
            blocks.clone(),
            "anthropic-messages",
            "anthropic",
            model,
            usage,
            stop,
            timestamp,
        );
        if error && let Some(object) = reply.as_object_mut() {
            let text = blocks
                .iter()
                .filter_map(|b| b.get("text").and_then(Value::as_str))
                .collect::<Vec<_>>()
                .join("\n");
            object.insert("errorMessage".into(), text.into());
        }
        let id = builder.message(parent.as_deref(), timestamp, reply);
        state.last = Some(id.clone());
        id
    };
    for block in &blocks {
        if block.get("type").and_then(Value::as_str) == Some("toolCall") {
            let id = block.get("id").and_then(Value::as_str).unwrap_or("").to_owned();
            let name = block.get("name").and_then(Value::as_str).unwrap_or("").to_owned();
            state.calls_in.insert((id.clone(), entry.clone()), name.clone());
            state.calls.insert(id, (name, entry.clone()));
        }
    }
    state.open_reply = Some((reply_id, entry.clone()));
    state.open_reply_calls = has_calls;
    state.record(value, Some(entry));
}
