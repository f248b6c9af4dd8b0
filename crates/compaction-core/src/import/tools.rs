//! pi's tools for the calls of agents whose tools mean the same as pi's under other names
//! (Cursor, Antigravity): `read`, `write`, `edit` and `bash` with pi's argument names. Any
//! argument pi's tool has no name for stays as it was.

use serde_json::{Map, Value, json};

use super::build::Builder;

/// What pi calls a source tool, and how its arguments are named.
#[derive(Debug, Clone, Copy)]
pub(super) enum PiTool<'k> {
    /// `read {path}`: the keys that may hold the path.
    Read { path: &'k [&'k str] },
    /// `write {path, content}`.
    Write { path: &'k [&'k str], content: &'k [&'k str] },
    /// `edit {path, edits: [{oldText, newText}]}` from one replacement (`old`, `new`) or a list
    /// of them (`list`, each item with `old` and `new`).
    Edit { path: &'k [&'k str], old: &'k [&'k str], new: &'k [&'k str], list: &'k [&'k str] },
    /// `bash {command, workdir}`.
    Bash { command: &'k [&'k str], workdir: &'k [&'k str] },
}

/// The first of `keys` present in `object`, removed from it.
fn take(object: &mut Map<String, Value>, keys: &[&str]) -> Option<Value> {
    keys.iter().find_map(|key| object.remove(*key))
}

/// The first of `keys` present in `object`.
fn present<'k>(object: &Map<String, Value>, keys: &[&'k str]) -> Option<&'k str> {
    keys.iter().copied().find(|key| object.contains_key(*key))
}

/// pi's edits for a list of replacements (a list, or a list written as JSON text), when every
/// item is an object with both halves; any other key an item has stays in its edit. `None`
/// when the list is of another shape or an item is not a whole replacement.
fn edit_items(list: &Value, old: &[&str], new: &[&str]) -> Option<Vec<Value>> {
    let decoded;
    let items = match list {
        Value::String(text) => {
            decoded = crate::entry::from_json_text::<Value>(text).ok()?;
            decoded.as_array()?
        }
        Value::Array(items) => items,
        Value::Null | Value::Bool(_) | Value::Number(_) | Value::Object(_) => return None,
    };
    items
        .iter()
        .map(|item| {
            let mut item = item.as_object()?.clone();
            let (old_key, new_key) = (present(&item, old)?, present(&item, new)?);
            let mut edit = Map::new();
            edit.insert("oldText".into(), item.remove(old_key)?);
            edit.insert("newText".into(), item.remove(new_key)?);
            edit.extend(item);
            Some(Value::Object(edit))
        })
        .collect()
}

/// pi's name and arguments for a call of `name` with `arguments`, when `tool` applies (the
/// arguments hold what pi's tool needs); the call as it was otherwise. A renamed call is
/// noted in the report.
pub(super) fn map_call(
    name: &str,
    arguments: Value,
    tool: Option<PiTool<'_>>,
    builder: &mut Builder<'_>,
) -> (String, Value) {
    let (Some(tool), Value::Object(object)) = (tool, &arguments) else {
        return (name.to_owned(), arguments);
    };
    let mut rest = object.clone();
    let mut out = Map::new();
    let pi_name = match tool {
        PiTool::Read { path } => {
            let Some(path) = take(&mut rest, path) else { return (name.to_owned(), arguments) };
            out.insert("path".into(), path);
            "read"
        }
        PiTool::Write { path, content } => {
            let (Some(path), Some(content)) = (take(&mut rest, path), take(&mut rest, content))
            else {
                return (name.to_owned(), arguments);
            };
            out.insert("path".into(), path);
            out.insert("content".into(), content);
            "write"
        }
        PiTool::Edit { path, old, new, list } => {
            let Some(path) = take(&mut rest, path) else { return (name.to_owned(), arguments) };
            let mut edits = Vec::new();
            // One replacement: both halves, or neither taken (a lone half stays as it was).
            if let (Some(old_key), Some(new_key)) = (present(&rest, old), present(&rest, new)) {
                let old_text = rest.remove(old_key).unwrap_or_default();
                let new_text = rest.remove(new_key).unwrap_or_default();
                edits.push(json!({ "oldText": old_text, "newText": new_text }));
            }
            // A list becomes pi's edits only when every item is a whole replacement; else
            // the call stays as it was (the list's own name may be `edits`, pi's), so no item
            // is lost.
            if let Some(list_key) = present(&rest, list) {
                let Some(items) = edit_items(&rest[list_key], old, new) else {
                    return (name.to_owned(), arguments);
                };
                rest.remove(list_key);
                edits.extend(items);
            }
            if edits.is_empty() {
                return (name.to_owned(), arguments);
            }
            out.insert("path".into(), path);
            out.insert("edits".into(), Value::Array(edits));
            "edit"
        }
        PiTool::Bash { command, workdir } => {
            let Some(command) = take(&mut rest, command) else {
                return (name.to_owned(), arguments);
            };
            out.insert("command".into(), command);
            if let Some(workdir) = take(&mut rest, workdir) {
                out.insert("workdir".into(), workdir);
            }
            "bash"
        }
    };
    out.extend(rest);
    builder.rename(name, pi_name);
    (pi_name.to_owned(), Value::Object(out))
}
