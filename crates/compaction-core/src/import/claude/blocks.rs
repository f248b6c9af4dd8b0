//! Claude Code's content blocks in pi's shape: tool calls (renamed to pi's tools where the
//! meaning matches), images, usage and stop reasons.

use serde_json::{Map, Value, json};

use super::super::build::{self, Builder};

/// pi's stop reason for Claude's.
pub(super) fn stop_reason(reason: Option<&str>, error: bool) -> &'static str {
    if error {
        return "error";
    }
    match reason {
        Some("tool_use") => "toolUse",
        Some("max_tokens") => "length",
        Some("refusal") => "error",
        Some(_) | None => "stop",
    }
}

/// pi's usage from Claude's token counts.
pub(super) fn usage(usage: Option<&Value>) -> Value {
    let count = |key: &str| usage.and_then(|u| u.get(key)).map_or(0, crate::message::count_of);
    build::usage(
        count("input_tokens"),
        count("output_tokens"),
        count("cache_read_input_tokens"),
        count("cache_creation_input_tokens"),
    )
}

/// An image block from Claude's `{source: {type: base64, media_type, data}}`.
pub(super) fn image(block: &Value) -> Option<Value> {
    let source = block.get("source")?;
    let data = source.get("data")?.as_str()?;
    let mime = source.get("media_type").and_then(Value::as_str).unwrap_or("image/png");
    Some(json!({ "type": "image", "data": data, "mimeType": mime }))
}

/// A pi tool call from a `tool_use` block, renamed to pi's tool where the meaning matches.
pub(super) fn tool_call(block: &Value, builder: &mut Builder<'_>) -> Value {
    let id = block.get("id").and_then(Value::as_str).unwrap_or("");
    let name = block.get("name").and_then(Value::as_str).unwrap_or("");
    let input = block.get("input").cloned().unwrap_or(Value::Object(Map::new()));
    let (pi_name, arguments) = match map_tool(name, &input) {
        Some((pi_name, arguments)) => {
            builder.rename(name, pi_name);
            (pi_name.to_owned(), arguments)
        }
        None => (name.to_owned(), input),
    };
    let arguments = builder.value(&arguments);
    json!({ "type": "toolCall", "id": id, "name": pi_name, "arguments": arguments })
}

/// pi's tool and arguments for a Claude Code tool with the same meaning.
fn map_tool(name: &str, input: &Value) -> Option<(&'static str, Value)> {
    let object = input.as_object()?;
    let mut rest = object.clone();
    let mut take = |key: &str| rest.remove(key);
    let mut out = Map::new();
    let pi_name = match name {
        "Read" => {
            out.insert("path".into(), take("file_path")?);
            "read"
        }
        "Write" => {
            out.insert("path".into(), take("file_path")?);
            if let Some(content) = take("content") {
                out.insert("content".into(), content);
            }
            "write"
        }
        "Edit" => {
            out.insert("path".into(), take("file_path")?);
            let old = take("old_string").unwrap_or_else(|| "".into());
            let new = take("new_string").unwrap_or_else(|| "".into());
            out.insert("edits".into(), json!([{ "oldText": old, "newText": new }]));
            "edit"
        }
        "MultiEdit" => {
            out.insert("path".into(), take("file_path")?);
            let edits: Vec<Value> = take("edits")?
                .as_array()?
                .iter()
                .map(|edit| {
                    let mut pair = json!({
                        "oldText": edit.get("old_string").cloned().unwrap_or_else(|| "".into()),
                        "newText": edit.get("new_string").cloned().unwrap_or_else(|| "".into()),
                    });
                    if let (Some(all), Some(object)) =
                        (edit.get("replace_all"), pair.as_object_mut())
                    {
                        object.insert("replaceAll".into(), all.clone());
                    }
                    pair
                })
                .collect();
            out.insert("edits".into(), edits.into());
            "edit"
        }
        "Bash" => {
            out.insert("command".into(), take("command")?);
            // Claude Code's timeout is in milliseconds, pi's in seconds.
            if let Some(ms) = take("timeout").and_then(|t| t.as_f64()) {
                out.insert("timeout".into(), json!((ms / 1000.0).ceil() as u64));
            }
            "bash"
        }
        _ => return None,
    };
    if name == "Edit"
        && let Some(all) = rest.remove("replace_all")
        && let Some(Value::Object(pair)) = out.get_mut("edits").and_then(|e| e.get_mut(0))
    {
        pair.insert("replaceAll".into(), all);
    }
    // Arguments pi's tool has no name for (a description, background flag) stay as they were.
    for (key, item) in rest {
        out.entry(key).or_insert(item);
    }
    Some((pi_name, Value::Object(out)))
}
