//! Round 20: hostile input by class (issue 28).
//!
//! - `paths`: a file path holding a secret (a token of a known family as a folder or a file
//!   name, a `password=` assignment, a URL's `user:password@`), tracked from pi's `read`,
//!   `write` and `edit`, a shell command, `apply_patch`, an earlier compaction's lists, and
//!   Claude Code and Codex transcripts imported; through every command that stores or prints
//!   the tracked lists (`run`, `run -o --json`, `plan`, `plan --json`, `branch --summarize`,
//!   `dropped`, `dropped --json`).
//! - `pins`: `pin`, `unpin`, `recall` and `dropped` given hostile text and ids (terminal
//!   controls, secrets, a pin that closes its own element or forges others, a huge pin, ids
//!   that are no ids), text and `--json`, and pins over several compactions.
//!
//! Instances are numbered in the order generated; instance `i` is in the test part when
//! `i % 3 == 2`, else in the dev part (fixed before any fix). Each suite prints its counts
//! and fails with the dev part's misses in full, the test part's by number only
//! (`ROUND20_SHOW_TEST=1` prints them in full). `ROUND19_COMPACTION_BIN` runs a suite
//! against another build (the harness is round 19's).

use serde_json::Value;

pub(super) use crate::hostile_round19::{assistant, turns, user};
use crate::tally::Tally;

mod paths;
mod pins;

/// Dev and test tallies of one class: instance `i` is in the test part when `i % 3 == 2`
/// (`ROUND20_SHOW_TEST` prints its misses in full).
fn split_tally() -> Tally {
    Tally::split(2, "ROUND20_SHOW_TEST")
}

/// A line of a session being written: a message, or another entry's fields.
pub(crate) enum Item {
    Message(Value),
    Entry(Value),
}

/// A session file's lines: the header, then `items` chained one under the other (`e0001`,
/// `e0002`, …).
pub(crate) fn session_text(items: &[Item]) -> String {
    let mut lines = vec![serde_json::json!({"type": "session", "version": 3, "id": "round20",
        "timestamp": "2026-01-01T00:00:00.000Z", "cwd": "/work"})];
    let mut parent: Option<String> = None;
    for item in items {
        let id = format!("e{:04}", lines.len());
        let mut line = serde_json::json!({"id": id, "parentId": parent,
            "timestamp": "2026-01-01T00:00:01.000Z"});
        let fields = match item {
            Item::Message(message) => serde_json::json!({"type": "message", "message": message}),
            Item::Entry(fields) => fields.clone(),
        };
        line.as_object_mut().unwrap().extend(fields.as_object().unwrap().clone());
        lines.push(line);
        parent = Some(id);
    }
    lines.iter().map(|line| format!("{line}\n")).collect()
}

/// The entries (every line but the header) of a session file's text, as JSON.
pub(crate) fn entries(text: &str) -> Vec<Value> {
    text.lines()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .filter(|line| line.get("type").and_then(Value::as_str) != Some("session"))
        .collect()
}
