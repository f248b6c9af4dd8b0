//! Codex tool calls and their outputs as pi's: the tool's name and arguments (a shell's
//! argv as the script it runs, a patch as a patch), and what an output says (its text,
//! images, exit code and error flag).

use serde_json::{Map, Value, json};

use super::super::build::Builder;
use super::image;

/// pi's tool name and arguments for a Codex call.
pub(super) fn tool_call(kind: &str, item: &Value, builder: &mut Builder<'_>) -> (String, Value) {
    let name = item.get("name").and_then(Value::as_str).unwrap_or("");
    let arguments = match kind {
        "custom_tool_call" => {
            json!({ "input": item.get("input").cloned().unwrap_or(Value::String(String::new())) })
        }
        "local_shell_call" => {
            let action = item.get("action").cloned().unwrap_or(Value::Null);
            let mut arguments = Map::new();
            if let Some(command) = action.get("command") {
                arguments.insert("command".into(), command.clone());
            }
            if let Some(dir) = action.get("working_directory") {
                arguments.insert("workdir".into(), dir.clone());
            }
            // The rest of the action (timeout, environment, user) stays as it was.
            for key in ["timeout_ms", "env", "user"] {
                if let Some(item) = action.get(key).filter(|item| !item.is_null()) {
                    arguments.insert(key.into(), item.clone());
                }
            }
            return shell("local_shell_call", arguments, builder);
        }
        _ => match item.get("arguments") {
            Some(Value::String(text)) => {
                crate::entry::from_json_text(text).unwrap_or_else(|_| json!({ "arguments": text }))
            }
            Some(other) => other.clone(),
            None => Value::Object(Map::new()),
        },
    };
    match (name, arguments) {
        (
            "shell" | "container.exec" | "shell_command" | "exec_command",
            Value::Object(arguments),
        ) => shell(name, arguments, builder),
        (_, arguments) => (name.to_owned(), arguments),
    }
}

/// A Codex shell call as pi's `bash` (or `apply_patch` when the command is a patch).
fn shell(
    name: &str,
    mut arguments: Map<String, Value>,
    builder: &mut Builder<'_>,
) -> (String, Value) {
    let command = arguments.remove("command").or_else(|| arguments.remove("cmd"));
    let script = match &command {
        Some(Value::String(script)) => Some(script.clone()),
        Some(Value::Array(argv)) => {
            let argv: Vec<&str> = argv.iter().filter_map(Value::as_str).collect();
            if let [tool, patch] = argv.as_slice()
                && matches!(*tool, "apply_patch" | "applypatch")
            {
                let mut out = Map::new();
                out.insert("input".into(), (*patch).into());
                out.extend(arguments);
                builder.rename(name, "apply_patch");
                return ("apply_patch".into(), Value::Object(out));
            }
            Some(script_of(&argv))
        }
        Some(_) | None => None,
    };
    let Some(script) = script else {
        if let Some(command) = command {
            arguments.insert("command".into(), command);
        }
        return (name.to_owned(), Value::Object(arguments));
    };
    let mut out = Map::new();
    out.insert("command".into(), script.into());
    out.extend(arguments);
    builder.rename(name, "bash");
    ("bash".into(), Value::Object(out))
}

/// The command line of an argv: the script a shell is given to run (`bash -lc SCRIPT`,
/// `pwsh.exe -NoLogo -Command SCRIPT`, `cmd.exe /d /c SCRIPT`: the shell's own options
/// before its command flag, the script its last word), else the words joined with shell
/// quoting.
pub(in crate::import) fn script_of(argv: &[&str]) -> String {
    if let [shell, rest @ ..] = argv
        && let Some(flag) = crate::files::command_flag_at(shell, rest)
        && let [script] = &rest[flag + 1..]
    {
        return (*script).to_owned();
    }
    argv.iter().map(|word| quote(word)).collect::<Vec<_>>().join(" ")
}

fn quote(word: &str) -> String {
    let plain = !word.is_empty()
        && word.chars().all(|c| c.is_ascii_alphanumeric() || "-_./=:,+@%".contains(c));
    if plain { word.to_owned() } else { format!("'{}'", word.replace('\'', r"'\''")) }
}

/// What a tool output says.
pub(super) struct Output {
    pub(super) text: String,
    pub(super) exit_code: Option<i64>,
    pub(super) is_error: bool,
    /// Images among its content items (`input_image` with a `data:` URL).
    pub(super) images: Vec<Value>,
}

/// How many image items a tool output holds.
pub(super) fn images_in(output: Option<&Value>) -> usize {
    let items = match output {
        Some(Value::Array(items)) => items,
        Some(Value::Object(object)) => match object.get("content") {
            Some(Value::Array(items)) => items,
            _ => return 0,
        },
        _ => return 0,
    };
    items
        .iter()
        .filter(|item| item.get("type").and_then(Value::as_str) == Some("input_image"))
        .count()
}

/// The text and images of a list of content items.
fn parts(parts: &[Value]) -> (String, Vec<Value>) {
    let text = parts
        .iter()
        .filter_map(|p| p.get("text").and_then(Value::as_str))
        .collect::<Vec<_>>()
        .join("\n");
    (text, parts.iter().filter_map(image).collect())
}

/// Reads a `function_call_output` / `custom_tool_call_output`: a JSON string
/// `{output, metadata: {exit_code}}`, plain text that may start with `Exit code: N` or hold
/// `Process exited with code N`, or an object `{content, success}`.
pub(super) fn tool_output(output: Option<&Value>, builder: &mut Builder<'_>) -> Output {
    if let Some(object) = output.and_then(Value::as_object) {
        let (text, images) = match object.get("content") {
            Some(Value::String(text)) => (text.clone(), Vec::new()),
            Some(Value::Array(items)) => parts(items),
            Some(other) => (other.to_string(), Vec::new()),
            None => {
                builder
                    .convert("Codex tool output object without `content` (read as its JSON text)");
                (Value::Object(object.clone()).to_string(), Vec::new())
            }
        };
        let failed = object.get("success").and_then(Value::as_bool) == Some(false);
        let mut out = from_text(text);
        out.is_error |= failed;
        out.images = images;
        return out;
    }
    if let Some(items) = output.and_then(Value::as_array) {
        let (text, images) = parts(items);
        let mut out = from_text(text);
        out.images = images;
        return out;
    }
    let text = output.and_then(Value::as_str).unwrap_or("").to_owned();
    if let Ok(Value::Object(object)) = crate::entry::from_json_text::<Value>(&text)
        && let Some(inner) = object.get("output").and_then(Value::as_str)
    {
        let exit_code =
            object.get("metadata").and_then(|m| m.get("exit_code")).and_then(Value::as_i64);
        return Output {
            text: inner.to_owned(),
            exit_code,
            is_error: exit_code.is_some_and(|code| code != 0),
            images: Vec::new(),
        };
    }
    from_text(text)
}

fn from_text(text: String) -> Output {
    let exit_code = text.lines().take(6).find_map(|line| {
        let line = line.trim();
        line.strip_prefix("Exit code:")
            .or_else(|| line.strip_prefix("Process exited with code"))
            .and_then(|rest| rest.trim().parse::<i64>().ok())
    });
    Output {
        is_error: exit_code.is_some_and(|code| code != 0),
        exit_code,
        text,
        images: Vec::new(),
    }
}
