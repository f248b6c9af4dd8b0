//! Tool calls and command lines as the digest reads them: which role a tool plays, the path
//! and command in its arguments, the commands of an `a && b` line and their family, how a
//! command went each time it ran, and the plain wording of a failure.
//!
//! Invariant: pure functions of their arguments; nothing here knows the digest.

use serde_json::Value;

use super::scan::*;
use super::text::*;

/// How a command went, each time it ran.
#[derive(Debug, Clone)]
pub(super) struct CommandRuns {
    pub(super) command: String,
    pub(super) passes: usize,
    pub(super) failures: usize,
    pub(super) last_passed: Option<bool>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum ToolRole {
    Modify(&'static str),
    Read,
    Shell,
    Other,
}

pub(super) fn tool_role(name: &str) -> ToolRole {
    match name {
        "edit" | "multiedit" | "multi_edit" | "str_replace" | "apply_patch" => {
            ToolRole::Modify("Edited")
        }
        "write" | "create" | "write_file" => ToolRole::Modify("Wrote"),
        "read" | "read_file" | "view" | "cat" => ToolRole::Read,
        "bash" | "shell" | "exec" | "run" | "terminal" => ToolRole::Shell,
        _ => ToolRole::Other,
    }
}

pub(super) fn path_argument(arguments: &Value) -> Option<String> {
    ["path", "file_path", "filePath", "file"]
        .iter()
        .find_map(|key| arguments.get(*key).and_then(Value::as_str))
        .map(str::to_owned)
        .filter(|path| !path.is_empty())
}

/// The command of a shell call as written, its lines kept.
pub(super) fn script_argument(arguments: &Value) -> Option<String> {
    ["command", "cmd"]
        .iter()
        .find_map(|key| arguments.get(*key).and_then(Value::as_str))
        .filter(|command| !command.trim().is_empty())
        .map(str::to_owned)
}

pub(super) fn command_argument(arguments: &Value) -> Option<String> {
    ["command", "cmd"]
        .iter()
        .find_map(|key| arguments.get(*key).and_then(Value::as_str))
        .map(one_line)
        .filter(|command| !command.is_empty())
}

/// Whether `path` is `base` or lies under the directory `base`.
pub(super) fn is_under(path: &str, base: &str) -> bool {
    !base.is_empty()
        && (path == base || path.strip_prefix(base).is_some_and(|rest| rest.starts_with('/')))
}

/// The commands of an `a && b && c` line (all of which ran and passed when it passed), or
/// the command itself.
pub(super) fn command_parts(command: &str) -> Vec<&str> {
    let parts: Vec<&str> =
        command.split("&&").map(str::trim).filter(|part| !part.is_empty()).collect();
    if parts.is_empty() { vec![command] } else { parts }
}

/// The commands of a line joined by `&&`, `;` or `&` (running in the background), or the
/// command itself.
pub(super) fn command_segments(command: &str) -> Vec<&str> {
    let bytes = command.as_bytes();
    let mut out = Vec::new();
    let mut start = 0;
    for (at, &byte) in bytes.iter().enumerate() {
        let separator = match byte {
            b';' => true,
            // `&&`, and `&` alone, but not the `&` of `2>&1` or `&>`.
            b'&' => {
                let before = at.checked_sub(1).map(|i| bytes[i]);
                let after = bytes.get(at + 1).copied();
                before != Some(b'>') && after != Some(b'>')
            }
            _ => false,
        };
        if separator {
            out.push(command[start..at].trim());
            start = at + 1;
        }
    }
    out.push(command[start..].trim());
    out.retain(|part| !part.is_empty());
    if out.is_empty() { vec![command] } else { out }
}

/// A command's family: its words that are not options and come before the first one
/// naming a path or a test (`python -m pytest tests/a.py -q` → `python pytest`), and
/// whether it names such a target.
pub(super) fn command_family(command: &str) -> (String, bool) {
    let mut family = Vec::new();
    for word in command.split_whitespace() {
        if word.starts_with('-') {
            continue;
        }
        if word.contains(['/', '.', ':']) {
            return (family.join(" "), true);
        }
        family.push(word);
    }
    (family.join(" "), false)
}

/// Whether one command of an `a && b` line only prepares where the next ones run: it
/// changes the folder (`cd`, `pushd`), makes one (`mkdir`), sets the environment
/// (`export`, `set`) or loads it (`source`, `.`).
fn is_setup_step(part: &str) -> bool {
    matches!(
        part.split_whitespace().next(),
        Some("cd" | "pushd" | "mkdir" | "export" | "set" | "source" | ".")
    )
}

/// What a command line runs, without what only sets up its run: leading environment
/// assignments (`FOO=1 cmd`), wrappers that run the rest as given (`env`, `sudo`, `time`,
/// `nice`, `nohup`, `command`, `exec`, `timeout 30`), redirections (`2>&1`, `> out.log`),
/// a pipe into a reader (`| tail -3`) and the folder of the program (`/usr/local/bin/pnpm`
/// runs `pnpm`), a shell that is given the command to run, and the steps before `&&` that
/// only prepare where it runs (see [`is_setup_step`]). Two runs that differ only there ran
/// the same thing.
pub(super) fn invocation(command: &str) -> String {
    // A shell given the command to run (`bash -lc '…'`, `pwsh -NoLogo -Command "…"`) ran it.
    if let Some(inner) = super::scan::wrapped_command(command.trim()) {
        return invocation(&inner);
    }
    // Steps that only prepare where the program runs (`cd web &&`, `mkdir -p build &&`,
    // `export RUST_LOG=debug &&`, `source .venv/bin/activate &&`) do not change what ran.
    let parts = command_parts(command);
    if let Some(at) = parts.iter().position(|part| !is_setup_step(part))
        && at > 0
    {
        return invocation(&parts[at..].join(" && "));
    }
    const WRAPPERS: [&str; 8] =
        ["env", "sudo", "time", "nice", "nohup", "command", "exec", "timeout"];
    let is_assignment = |word: &str| {
        word.split_once('=').is_some_and(|(name, _)| {
            !name.is_empty()
                && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
                && !name.starts_with(|c: char| c.is_ascii_digit())
        })
    };
    let redirection = |word: &str| {
        let rest = word.trim_start_matches(|c: char| c.is_ascii_digit() || c == '&');
        rest.starts_with('>') || rest.starts_with('<')
    };
    let mut words = command.split_whitespace().peekable();
    let mut out: Vec<&str> = Vec::new();
    let mut skip_target = false;
    while let Some(word) = words.next() {
        // A pipe into commands that only read or filter (`| tail -3`, `| grep x`) shows part
        // of the output; it does not change what ran.
        if word == "|" {
            let rest: Vec<&str> = words.clone().collect();
            if !rest.is_empty() && is_read_only_command(&rest.join(" ")) {
                break;
            }
        }
        if skip_target {
            skip_target = false;
            continue;
        }
        if redirection(word) {
            // An operator alone (`>`, `2>>`) names its target in the next word.
            skip_target = word
                .trim_start_matches(|c: char| c.is_ascii_digit() || c == '&')
                .trim_start_matches(['>', '<'])
                .is_empty();
            continue;
        }
        if out.is_empty() {
            if is_assignment(word) {
                continue;
            }
            if WRAPPERS.contains(&word) {
                // The wrapper's own flags and, for `timeout`, its duration.
                while let Some(next) = words.peek() {
                    let duration = word == "timeout"
                        && next.trim_end_matches(['s', 'm', 'h']).parse::<f64>().is_ok();
                    if next.starts_with('-') || duration || (word == "env" && is_assignment(next)) {
                        words.next();
                    } else {
                        break;
                    }
                }
                continue;
            }
            out.push(word.rsplit('/').next().filter(|name| !name.is_empty()).unwrap_or(word));
            continue;
        }
        out.push(word);
    }
    out.join(" ")
}

/// Whether a request says more than one word ("ls", "continue" do not).
/// The last component of a path, lowercase.
pub(super) fn file_name(path: &str) -> String {
    path.rsplit(['/', '\\']).next().unwrap_or(path).to_lowercase()
}

pub(super) fn says_something(request: &str) -> bool {
    // One word asks too ("push", "deploy"), unless it only lets the work go on or is a
    // command that only reads, typed where the shell was meant (`ls`).
    const GO_ON: [&str; 28] = [
        "continue", "yes", "y", "go", "proceed", "sure", "yep", "yeah", "ok", "okay", "k", "next",
        "thanks", "great", "cool", "nice", "perfect", "right", "correct", "agreed", "exactly",
        "hmm", "hm", "lgtm", "good", "done", "alright", "fine",
    ];
    let words: Vec<&str> = request.split_whitespace().collect();
    match words.as_slice() {
        [word] => {
            let bare = word.trim_matches(|c: char| c.is_ascii_punctuation()).to_lowercase();
            !bare.is_empty()
                && !GO_ON.contains(&bare.as_str())
                && !is_read_only_command(&bare)
                && (request.is_ascii() || char_len(request) >= 4 || bare.is_ascii())
        }
        [] => false,
        [_, _, ..] => true,
    }
}

/// What a failure key names, as plain text: the command, or the operation and its path.
pub(super) fn plain_subject(key: &str) -> String {
    match key.split_once(':') {
        Some(("cmd", command)) => command.to_owned(),
        Some(("modify", path)) => format!("edit {path}"),
        Some(("read", path)) => format!("read {path}"),
        Some(("tool", rest)) => rest.trim_end_matches(':').replacen(':', " ", 1),
        Some(_) | None => key.to_owned(),
    }
}

/// The text of the first inline code span of `error` (the error line as it appeared).
pub(super) fn plain_error(error: &str) -> String {
    if let Some(rest) = error.strip_prefix("`` ")
        && let Some(end) = rest.find(" ``")
    {
        return rest[..end].to_owned();
    }
    if let Some(rest) = error.strip_prefix('`')
        && let Some(end) = rest.find('`')
    {
        return rest[..end].to_owned();
    }
    error.to_owned()
}
