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
            if let (Some(old_text), Some(new_text)) = (take(&mut rest, old), take(&mut rest, new)) {
                edits.push(json!({ "oldText": old_text, "newText": new_text }));
            }
            if let Some(items) = take(&mut rest, list) {
                // Some agents write the list as a JSON text.
                let items = match items.as_str() {
                    Some(text) => crate::entry::from_json_text(text).unwrap_or(Value::Null),
                    None => items,
                };
                for item in items.as_array().map(Vec::as_slice).unwrap_or(&[]) {
                    let mut item = item.as_object().cloned().unwrap_or_default();
                    if let (Some(old_text), Some(new_text)) =
                        (take(&mut item, old), take(&mut item, new))
                    {
                        edits.push(json!({ "oldText": old_text, "newText": new_text }));
                    }
                }
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
