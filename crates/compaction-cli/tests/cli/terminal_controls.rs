//! Hardening round 14, the class "a text the terminal obeys instead of showing": a session
//! (or any file the tool reads) whose texts hold escape sequences (clear the screen, move the
//! cursor and erase a line, set the clipboard with OSC 52, a hyperlink with OSC 8, a device
//! control string), a C1 control, bidirectional overrides and isolates, a lone carriage
//! return, backspaces or a NUL, printed by a command.
//!
//! Each control sequence is planted in every place of a session, behind a marker naming
//! the place (a user's, an assistant's or a
//! reasoning text, a tool call's name or arguments, a tool result's text or tool name, a shell
//! command and its output, a custom message's type and text, a label, the header's `cwd`, the
//! model's name, a compaction's summary, an entry id) and every view command runs on it
//! once; an instance is a sequence × a place × a command, and it misses when a raw control
//! follows that place's marker in what the command printed;
//! plus the first line of a file that is no session. An instance holds when neither stdout
//! nor stderr holds a raw control: each is printed as its JSON escape (`\u001b`).
//!
//! The split, fixed before the fix: instance `i` (in the order generated) is in the test
//! part when `i % 3 == 2`, else in the dev part.
//!
//! `cargo test -p compaction-cli --test cli terminal_controls -- --nocapture`; another binary
//! (a build before the fix) with `ROUND14_COMPACTION_BIN=/path/to/compaction`.

use std::path::Path;

use serde_json::{Value, json};

/// The control sequences, each with readable text around it.
pub(super) const SEQUENCES: [&str; 11] = [
    "before\u{1b}[2J\u{1b}[Hafter",
    "copy\u{1b}]52;c;cHduZWQ=\u{7}done",
    "see \u{1b}]8;;https://evil.example/\u{1b}\\the docs\u{1b}]8;;\u{1b}\\ now",
    "line\u{1b}[1A\u{1b}[2Kgone",
    "red\u{9b}31mtext",
    "invoice\u{202e}fdp.exe",
    "a\u{2066}b\u{2069}c",
    "safe\rEVIL",
    "text\u{8}\u{8}\u{8}XYZ",
    "dcs\u{1b}P+q544e\u{1b}\\end",
    "nul\u{0}byte",
];

/// The places a sequence is planted.
const PLACES: [&str; 15] = [
    "user text",
    "assistant text",
    "thinking",
    "tool call name",
    "tool call command",
    "tool call path",
    "tool result text",
    "tool result tool name",
    "shell command and output",
    "custom message type and text",
    "label",
    "header cwd",
    "model and provider",
    "compaction summary",
    "entry id",
];

/// The text planted at place `k`: a marker naming the place, then the sequence.
fn planted(k: usize, hostile: &str) -> String {
    format!("P{k}P:{hostile}")
}

/// A session with `hostile` at every place (each behind its marker), and the id of its
/// first user message.
fn session(hostile: &str) -> (String, String) {
    let pick = |here: &str, _ordinary: &str| -> String {
        let k = PLACES.iter().position(|place| *place == here).unwrap_or(0);
        planted(k, hostile)
    };
    let user_id = pick("entry id", "u1");
    let mut lines = vec![json!({"type": "session", "version": 3, "id": "controls",
        "timestamp": "2026-01-01T00:00:00.000Z", "cwd": pick("header cwd", "/work")})];
    let mut parent: Option<String> = None;
    let mut push = |lines: &mut Vec<Value>, id: &str, mut entry: Value| {
        entry["id"] = json!(id);
        entry["parentId"] = json!(parent);
        entry["timestamp"] = json!("2026-01-01T00:00:01.000Z");
        lines.push(entry);
        parent = Some(id.to_owned());
    };
    let words = "Fix the failing build in the payment service and keep the public API. ".repeat(8);
    push(
        &mut lines,
        "c0",
        json!({"type": "compaction", "summary":
        pick("compaction summary", "Earlier: set up the project."), "firstKeptEntryId": user_id,
        "tokensBefore": 5000}),
    );
    push(
        &mut lines,
        &user_id,
        json!({"type": "message", "message": {"role": "user",
        "content": format!("{} {words}", pick("user text", "Please fix it.")), "timestamp": 1}}),
    );
    let call = pick("tool call name", "bash");
    push(
        &mut lines,
        "a1",
        json!({"type": "message", "message": {"role": "assistant",
        "content": [
            {"type": "thinking", "thinking": pick("thinking", "Look at the build.")},
            {"type": "text", "text": format!("{} {words}", pick("assistant text", "Running it."))},
            {"type": "toolCall", "id": "call-1", "name": call, "arguments":
                {"command": pick("tool call command", "npm run build"),
                 "path": pick("tool call path", "src/pay.ts")}}],
        "api": "openai-completions", "provider": pick("model and provider", "openai"),
        "model": pick("model and provider", "gpt-4o"), "stopReason": "toolUse",
        "usage": {"input": 900, "output": 80, "cacheRead": 0, "cacheWrite": 0,
            "totalTokens": 980, "cost": {"input": 0, "output": 0, "cacheRead": 0,
            "cacheWrite": 0, "total": 0}}, "timestamp": 2}}),
    );
    push(
        &mut lines,
        "r1",
        json!({"type": "message", "message": {"role": "toolResult",
        "toolCallId": "call-1", "toolName": pick("tool result tool name", "bash"),
        "content": [{"type": "text", "text": format!("{} {words}",
            pick("tool result text", "error TS2345 in src/pay.ts"))}],
        "isError": true, "timestamp": 3}}),
    );
    push(
        &mut lines,
        "b1",
        json!({"type": "message", "message": {"role": "bashExecution",
        "command": pick("shell command and output", "git status"),
        "output": pick("shell command and output", "clean"), "exitCode": 0,
        "cancelled": false, "truncated": false, "timestamp": 4}}),
    );
    push(
        &mut lines,
        "m1",
        json!({"type": "custom_message",
        "customType": pick("custom message type and text", "note"),
        "content": pick("custom message type and text", "a note"), "display": true}),
    );
    push(
        &mut lines,
        "l1",
        json!({"type": "label", "targetId": user_id,
        "label": pick("label", "start")}),
    );
    push(
        &mut lines,
        "u2",
        json!({"type": "message", "message": {"role": "user",
        "content": format!("And now the tests. {words}"), "timestamp": 5}}),
    );
    let text: String = lines.iter().map(|line| format!("{line}\n")).collect();
    (text, user_id)
}

/// Runs the binary under test (`ROUND14_COMPACTION_BIN`, else this build's) as
/// [`super::isolated_output`] does.
fn output(args: &[&str], cwd: &Path) -> std::process::Output {
    let Some(binary) = std::env::var_os("ROUND14_COMPACTION_BIN") else {
        return super::isolated_output(args, cwd);
    };
    let home = tempfile::tempdir().unwrap();
    std::process::Command::new(binary)
        .args(args)
        .current_dir(cwd)
        .env("HOME", home.path())
        .env_remove("PI_CODING_AGENT_DIR")
        .env_remove("OPENAI_API_KEY")
        .env_remove("ANTHROPIC_API_KEY")
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap()
}

/// Whether `ch` is a raw control a terminal would obey.
pub(super) fn is_raw_control(ch: char, next: Option<u8>) -> bool {
    match ch {
        '\r' => next != Some(b'\n'),
        '\n' | '\t' => false,
        _ => {
            ch.is_control()
                || matches!(ch, '\u{61c}' | '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}'
                    | '\u{2066}'..='\u{2069}')
        }
    }
}

/// The places whose planted text reaches `output` with a raw control: each raw control is
/// put on the nearest place marker before it (within 96 bytes); one with no marker before it
/// is put on every place.
fn places_with_raw_controls(output: &[u8]) -> std::collections::BTreeSet<usize> {
    let text = String::from_utf8_lossy(output);
    let bytes = text.as_bytes();
    let mut places = std::collections::BTreeSet::new();
    for (at, ch) in text.char_indices() {
        if !is_raw_control(ch, bytes.get(at + 1).copied()) {
            continue;
        }
        let window = &bytes[at.saturating_sub(96)..at];
        let marker = (0..PLACES.len())
            .filter_map(|k| {
                let mark = format!("P{k}P:");
                window.windows(mark.len()).rposition(|w| w == mark.as_bytes()).map(|p| (p, k))
            })
            .max();
        match marker {
            Some((_, k)) => {
                places.insert(k);
            }
            None => places.extend(0..PLACES.len()),
        }
    }
    places
}

#[test]
fn no_command_prints_a_raw_terminal_control_from_what_it_read() {
    let dir = tempfile::tempdir().unwrap();
    let mut instance = 0;
    let mut tally = [[0usize; 2]; 2]; // [dev, test] × [held, missed]
    let mut dev_misses = Vec::new();
    let mut test_misses = Vec::new();
    let mut record = |name: String, missed: bool, tally: &mut [[usize; 2]; 2]| {
        let part = usize::from(instance % 3 == 2);
        tally[part][usize::from(missed)] += 1;
        if missed {
            if part == 0 {
                dev_misses.push(format!("#{instance} {name}"));
            } else {
                test_misses.push(instance);
            }
        }
        instance += 1;
    };
    for (s, hostile) in SEQUENCES.iter().enumerate() {
        let (text, user_id) = session(hostile);
        std::fs::write(dir.path().join("s.jsonl"), &text).unwrap();
        // An argument cannot hold a NUL: recall the assistant's entry then.
        let recalled = if user_id.contains('\0') { "a1".to_owned() } else { user_id };
        let commands: [Vec<&str>; 12] = [
            vec!["stats", "s.jsonl"],
            vec!["stats", "s.jsonl", "--json"],
            vec!["context", "s.jsonl"],
            vec!["context", "s.jsonl", "--json"],
            vec!["tree", "s.jsonl"],
            vec!["leaves", "s.jsonl"],
            vec!["check", "s.jsonl"],
            vec!["plan", "s.jsonl", "--keep-recent", "50"],
            vec!["recall", "s.jsonl", &recalled],
            vec!["tokens", "s.jsonl"],
            vec!["dropped", "s.jsonl"],
            vec!["summarize", "s.jsonl", "--offline", "--keep-recent", "50"],
        ];
        let outputs: Vec<_> = commands.iter().map(|args| output(args, dir.path())).collect();
        for (k, place) in PLACES.iter().enumerate() {
            for (args, out) in commands.iter().zip(&outputs) {
                let missed = places_with_raw_controls(&out.stdout).contains(&k)
                    || places_with_raw_controls(&out.stderr).contains(&k);
                record(format!("sequence {s} in {place}: {}", args.join(" ")), missed, &mut tally);
            }
        }
        // A file that is no session, whose first line holds the sequence.
        std::fs::write(dir.path().join("taken.env"), format!("TOKEN={}\n", planted(0, hostile)))
            .unwrap();
        let out = output(&["stats", "taken.env"], dir.path());
        let missed = !places_with_raw_controls(&out.stdout).is_empty()
            || !places_with_raw_controls(&out.stderr).is_empty();
        record(format!("sequence {s} in line 1 of a file that is no session"), missed, &mut tally);
    }
    for miss in &dev_misses {
        eprintln!("dev miss {miss}");
    }
    eprintln!("test misses (by number): {test_misses:?}");
    let [[dev_held, dev_missed], [test_held, test_missed]] = tally;
    eprintln!(
        "terminal controls: dev {dev_held}/{} held, test {test_held}/{} held",
        dev_held + dev_missed,
        test_held + test_missed
    );
    assert!(dev_misses.is_empty() && test_misses.is_empty());
}
