//! The class "a secret in a file path": a path holding a secret is tracked like any other
//! (pi keeps the lists in a compaction's `details.readFiles` / `modifiedFiles` and appends
//! them after the summary as `<read-files>` / `<modified-files>`). Each instance plants one
//! made-up secret in one path, tracked one way, in a session long enough to be compacted,
//! and runs one command:
//!
//! - the secret: a token of each family round 19 plants (GitHub, AWS, Slack, Stripe,
//!   Anthropic, Google, OpenAI, a JSON Web Token) as a folder (`/home/dev/keys/S/config.toml`)
//!   or a file name (`secrets/S.env`), a `backup_password=P` folder, a URL's
//!   `deploy:P@` given as a file;
//! - how it is tracked: pi's `read`, `write`, `edit`; a `bash` command (`sed -i`); an
//!   `apply_patch` call; the lists of an earlier compaction (a writer that kept them raw,
//!   as pi does); a Claude Code transcript's `Read` and a Codex rollout's `apply_patch`,
//!   each imported with `compaction import`;
//! - the command: `run FILE --offline` (what it appends, stdout, stderr), `run FILE -o OUT
//!   --offline --json`, `plan FILE`, `plan FILE --json`, `branch FILE --to ID --summarize
//!   --offline` (what it appends), `dropped FILE` and `dropped FILE --json` (over the session
//!   and a compaction pi wrote, its lists raw).
//!
//! Holds when the command does its work (exit 0; the input's bytes kept and an entry
//! appended, or nothing changed), the secret is nowhere in what it wrote or printed (any 12
//! characters in a row of its random part, any case), and the path is still tracked: the
//! entry appended lists at least one file of the kind planted, every listed file is a line
//! of the list after its summary, and its quality check found nothing missing; `dropped`
//! names files.
//!
//! `cargo test -p compaction-cli --test cli hostile_round20::paths -- --nocapture`

use serde_json::{Value, json};

use super::{Item, assistant, entries, session_text, split_tally, turns, user};
use crate::hostile_round19::{ALNUM, FAMILIES, Rng, Secret, run_in, secret};

/// How the path is tracked.
const PLACES: [&str; 8] = [
    "pi-read",
    "pi-write",
    "pi-edit",
    "bash-sed",
    "apply_patch",
    "carried",
    "claude-import",
    "codex-import",
];

/// The commands each session is given.
const COMMANDS: [&str; 7] =
    ["run", "run -o --json", "plan", "plan --json", "branch", "dropped", "dropped --json"];

/// Tokens kept verbatim: the later turns; the planted path is in the summarized part.
const KEEP_RECENT: &str = "1500";

/// A secret of `family` (round 19's families, a password, a URL's password) and the path
/// that holds it; `shape` picks a folder or a file name for a token.
fn planted(family: &'static str, shape: usize, rng: &mut Rng) -> (Secret, String) {
    match family {
        "password" => {
            let secret =
                Secret { family, prefix: "backup_password=".into(), body: rng.chars(18, ALNUM) };
            let path = format!("./{}/dump.sql", secret.value());
            (secret, path)
        }
        "userinfo" => {
            let secret = Secret { family, prefix: "deploy:".into(), body: rng.chars(18, ALNUM) };
            let path = format!("https://{}@git.example.com/team/repo.git", secret.value());
            (secret, path)
        }
        _ => {
            let secret = secret(family, rng);
            let path = if shape.is_multiple_of(2) {
                format!("/home/dev/keys/{}/config.toml", secret.value())
            } else {
                format!("secrets/{}.env", secret.value())
            };
            (secret, path)
        }
    }
}

/// A tool call and its result.
fn call(id: &str, name: &str, arguments: Value) -> [Value; 2] {
    [
        json!({"role": "assistant", "content": [{"type": "toolCall", "id": id, "name": name,
            "arguments": arguments}], "timestamp": 1}),
        json!({"role": "toolResult", "toolCallId": id, "toolName": name,
            "content": [{"type": "text", "text": "done"}], "isError": false, "timestamp": 1}),
    ]
}

fn patch(path: &str) -> String {
    format!(
        "*** Begin Patch\n*** Update File: {path}\n@@\n-retries = 1\n+retries = 3\n*** End Patch\n"
    )
}

/// A pi session with `path` tracked at `place` (not an import).
fn pi_session(place: &str, path: &str) -> String {
    let mut items = vec![
        Item::Message(user("Set up the deploy of the billing service.")),
        Item::Message(assistant("Understood.")),
    ];
    let tracked = match place {
        "pi-read" => call("c1", "read", json!({"path": path})).to_vec(),
        "pi-write" => {
            call("c1", "write", json!({"path": path, "content": "retries = 3\n"})).to_vec()
        }
        "pi-edit" => call(
            "c1",
            "edit",
            json!({"path": path, "edits": [{"oldText": "retries = 1", "newText": "retries = 3"}]}),
        )
        .to_vec(),
        "bash-sed" => call(
            "c1",
            "bash",
            json!({"command": format!("sed -i 's/retries = 1/retries = 3/' '{path}'")}),
        )
        .to_vec(),
        "apply_patch" => call("c1", "apply_patch", json!({"input": patch(path)})).to_vec(),
        _ => Vec::new(),
    };
    items.extend(tracked.into_iter().map(Item::Message));
    if place == "carried" {
        // An earlier compaction by a writer that keeps the lists as recorded (pi does).
        items.push(Item::Entry(json!({"type": "compaction",
            "summary": format!("## Goal\nDeploy the billing service.\n\n<modified-files>\n{path}\n</modified-files>"),
            "firstKeptEntryId": "e0002", "tokensBefore": 900,
            "details": {"readFiles": [], "modifiedFiles": [path]}, "fromHook": false})));
    }
    items.extend(turns(0, 24).into_iter().map(Item::Message));
    session_text(&items)
}

/// A Claude Code transcript whose `Read` gets `path`, or a Codex rollout whose
/// `apply_patch` updates it, with turns enough to compact.
fn transcript(place: &str, path: &str) -> String {
    let mut lines = Vec::new();
    if place == "claude-import" {
        let mut parent: Option<String> = None;
        let mut push = |fields: Value, lines: &mut Vec<String>| {
            let uuid = format!("u{}", lines.len() + 1);
            let mut line = json!({"uuid": uuid, "parentUuid": parent, "sessionId": "round20",
                "cwd": "/work", "isSidechain": false, "timestamp": "2025-07-15T05:07:22.709Z"});
            line.as_object_mut().unwrap().extend(fields.as_object().unwrap().clone());
            lines.push(line.to_string());
            parent = Some(uuid);
        };
        push(
            json!({"type": "user", "message": {"role": "user",
            "content": "Set up the deploy of the billing service."}}),
            &mut lines,
        );
        push(
            json!({"type": "assistant", "message": {"id": "m1", "role": "assistant",
            "model": "claude-x", "content": [{"type": "tool_use", "id": "toolu_1",
            "name": "Read", "input": {"file_path": path}}]}}),
            &mut lines,
        );
        push(
            json!({"type": "user", "message": {"role": "user", "content": [{"type":
            "tool_result", "tool_use_id": "toolu_1", "content": "retries = 1"}]}}),
            &mut lines,
        );
        for (turn, message) in turns(0, 24).iter().enumerate() {
            let text = message["content"].as_str().map_or_else(
                || message["content"][0]["text"].as_str().unwrap().to_owned(),
                str::to_owned,
            );
            let fields = if turn.is_multiple_of(2) {
                json!({"type": "user", "message": {"role": "user", "content": text}})
            } else {
                json!({"type": "assistant", "message": {"id": format!("m{}", turn + 2),
                    "role": "assistant", "model": "claude-x",
                    "content": [{"type": "text", "text": text}]}})
            };
            push(fields, &mut lines);
        }
    } else {
        let line = |kind: &str, payload: Value| {
            json!({"timestamp": "2025-11-14T04:58:27.228Z", "type": kind, "payload": payload})
                .to_string()
        };
        lines.push(line(
            "session_meta",
            json!({"id": "round20", "timestamp": "2025-11-14T04:58:27Z", "cwd": "/work"}),
        ));
        lines.push(line("response_item", json!({"type": "message", "role": "user",
            "content": [{"type": "input_text", "text": "Set up the deploy of the billing service."}]})));
        lines.push(line(
            "response_item",
            json!({"type": "custom_tool_call", "call_id": "call_1",
            "name": "apply_patch", "input": patch(path)}),
        ));
        lines.push(line(
            "response_item",
            json!({"type": "custom_tool_call_output",
            "call_id": "call_1", "output": "patched"}),
        ));
        for (turn, message) in turns(0, 24).iter().enumerate() {
            let (role, kind, text) = if turn.is_multiple_of(2) {
                ("user", "input_text", message["content"].as_str().unwrap().to_owned())
            } else {
                (
                    "assistant",
                    "output_text",
                    message["content"][0]["text"].as_str().unwrap().to_owned(),
                )
            };
            lines.push(line(
                "response_item",
                json!({"type": "message", "role": role,
                "content": [{"type": kind, "text": text}]}),
            ));
        }
    }
    lines.join("\n") + "\n"
}

/// The session of an instance, written to `session.jsonl` in `work`; `Err` when an import
/// failed.
fn write_session(
    place: &str,
    path: &str,
    work: &std::path::Path,
    home: &std::path::Path,
) -> Result<String, String> {
    let file = work.join("session.jsonl");
    if place.ends_with("-import") {
        std::fs::write(work.join("transcript.jsonl"), transcript(place, path)).unwrap();
        let ran = run_in(work, home, &["import", "transcript.jsonl", "-o", "session.jsonl"]);
        if ran.code != 0 {
            return Err(format!("import: exit {}: {}", ran.code, ran.stderr.trim()));
        }
    } else {
        std::fs::write(&file, pi_session(place, path)).unwrap();
    }
    Ok(std::fs::read_to_string(&file).unwrap())
}

/// A compaction pi wrote at the end of `session`, its lists holding `path` raw.
fn with_pi_compaction(session: &str, place: &str, path: &str) -> String {
    let ids: Vec<String> = entries(session)
        .iter()
        .filter_map(|entry| entry["id"].as_str().map(str::to_owned))
        .collect();
    let (read, modified): (Vec<&str>, Vec<&str>) = if matches!(place, "pi-read" | "claude-import") {
        (vec![path], vec![])
    } else {
        (vec![], vec![path])
    };
    let list = if read.is_empty() { "modified-files" } else { "read-files" };
    let compaction = json!({"type": "compaction", "id": "pi000001",
        "parentId": ids.last(), "timestamp": "2026-01-01T00:00:02.000Z",
        "summary": format!("## Goal\nDeploy the billing service.\n\n<{list}>\n{path}\n</{list}>"),
        "firstKeptEntryId": ids[ids.len() - 4], "tokensBefore": 4000,
        "details": {"readFiles": read, "modifiedFiles": modified}, "fromHook": false});
    format!("{session}{compaction}\n")
}

/// Whether the entry appended still tracks the file (when `tracked`) and its lists agree;
/// `Some` says how not.
fn lists_problem(entry: &Value, place: &str, tracked: bool) -> Option<String> {
    let list = |key: &str| -> Vec<String> {
        entry["details"][key]
            .as_array()
            .map(|items| items.iter().filter_map(Value::as_str).map(str::to_owned).collect())
            .unwrap_or_default()
    };
    let (read, modified) = (list("readFiles"), list("modifiedFiles"));
    let planted = if matches!(place, "pi-read" | "claude-import") { &read } else { &modified };
    if tracked && planted.is_empty() {
        return Some("the file is no longer tracked".to_owned());
    }
    let summary = entry["summary"].as_str().unwrap_or_default();
    if let Some(path) =
        read.iter().chain(&modified).find(|path| !summary.lines().any(|line| line == *path))
    {
        return Some(format!("details list {path:?}, the list after the summary does not"));
    }
    let missing = &entry["details"]["quality"]["missing"];
    if missing.as_array().is_some_and(|missing| !missing.is_empty()) {
        return Some(format!("the quality check found missing {missing}"));
    }
    None
}

/// What one command shows or writes of `secret`, or how it fails; `None` when it holds.
fn attack(command: &str, place: &str, secret: &Secret, path: &str) -> Option<String> {
    let work = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    let mut original = match write_session(place, path, work.path(), home.path()) {
        Ok(text) => text,
        Err(problem) => return Some(problem),
    };
    let file = work.path().join("session.jsonl");
    if command.starts_with("dropped") {
        original = with_pi_compaction(&original, place, path);
        std::fs::write(&file, &original).unwrap();
    }
    let target = entries(&original)
        .iter()
        .find(|entry| entry["message"]["role"] == "user")
        .and_then(|entry| entry["id"].as_str().map(str::to_owned))
        .unwrap_or_default();
    let mut args: Vec<&str> = match command {
        "run" | "run -o --json" => vec!["run", "session.jsonl", "--offline"],
        "plan" | "plan --json" => vec!["plan", "session.jsonl"],
        "branch" => vec!["branch", "session.jsonl", "--to", &target, "--summarize", "--offline"],
        _ => vec!["dropped", "session.jsonl"],
    };
    if command.starts_with("run") || command.starts_with("plan") {
        args.extend(["--keep-recent", KEEP_RECENT]);
    }
    if command == "run -o --json" {
        args.extend(["-o", "out.jsonl"]);
    }
    if command.ends_with("--json") {
        args.push("--json");
    }
    let ran = run_in(work.path(), home.path(), &args);
    if ran.code != 0 {
        return Some(format!("exit {}: {}", ran.code, ran.stderr.trim()));
    }
    let after = std::fs::read_to_string(&file).unwrap();
    let (added, kind) = match command {
        "run" => (after, "compaction"),
        "run -o --json" => {
            (std::fs::read_to_string(work.path().join("out.jsonl")).unwrap(), "compaction")
        }
        "branch" => (after, "branch_summary"),
        _ => {
            if after != original {
                return Some(format!("`{command}` changed the file"));
            }
            (original.clone(), "")
        }
    };
    let Some(added) = added.strip_prefix(&original) else {
        return Some("the output does not start with the session's bytes".to_owned());
    };
    let mut problems = Vec::new();
    if !kind.is_empty() {
        match entries(added).iter().find(|entry| entry["type"] == kind) {
            None => problems.push(format!("no {kind} was appended")),
            // A branch summary lists what the branch's calls and earlier branch summaries
            // touched, never a compaction's lists (pi's rule): a carried path is not its.
            Some(entry) => {
                let tracked = !(place == "carried" && kind == "branch_summary");
                problems.extend(lists_problem(entry, place, tracked));
            }
        }
    }
    if command.starts_with("dropped") && !ran.stdout.contains("files") {
        problems.push("`dropped` names no file".to_owned());
    }
    let mut shown = Vec::new();
    for (what, text) in [("the file", added), ("stdout", &ran.stdout), ("stderr", &ran.stderr)] {
        if secret.shown_in(text) {
            shown.push(what);
        }
    }
    if !shown.is_empty() {
        problems.push(format!("the secret is in {}", shown.join(", ")));
    }
    (!problems.is_empty()).then(|| problems.join("; "))
}

#[test]
fn a_secret_in_a_file_path_is_never_stored_or_shown() {
    let mut rng = Rng(20);
    let mut tally = split_tally();
    let mut index = 0;
    let families: Vec<&'static str> =
        FAMILIES.iter().copied().chain(["password", "userinfo"]).collect();
    // Families innermost: every command and place has instances in both parts.
    for command in COMMANDS {
        for (shape, place) in PLACES.iter().enumerate() {
            for (offset, family) in families.iter().enumerate() {
                let (secret, path) = planted(family, shape + offset, &mut rng);
                let miss = attack(command, place, &secret, &path).map(|miss| {
                    format!("{} in a path × {place} × {command}: {miss}", secret.family)
                });
                tally.count(index, miss);
                index += 1;
            }
        }
    }
    // Round 20 left a URL's password of mixed-case letters alone out of reach (#329, #489);
    // round 21 redacts a URL's password whatever it looks like (RELIABILITY.md).
    tally.report("secret in a file path");
}
