//! Session texts and helpers shared by the store tests.

use std::path::{Path, PathBuf};

use compaction::store::{NewEntry, Parent};
use compaction_core::{Session, Severity};
use serde_json::{Map, Value, json};

pub const HEADER_V3: &str = r#"{"type":"session","version":3,"id":"0b6c6f5e-1111-4222-8333-444455556666","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/work"}"#;

/// A version 3 session with several entry types, multibyte text and a branch.
pub fn v3_text() -> String {
    let lines = [
        HEADER_V3,
        r#"{"type":"message","id":"a0000001","parentId":null,"timestamp":"2025-01-01T00:00:01.000Z","message":{"role":"user","content":"hello ünïcødé ✓","timestamp":1}}"#,
        r#"{"type":"message","id":"a0000002","parentId":"a0000001","timestamp":"2025-01-01T00:00:02.000Z","message":{"role":"assistant","content":[{"type":"text","text":"hi 👋"}],"provider":"p","model":"m","usage":{"input":1,"output":2,"cacheRead":0,"cacheWrite":0,"totalTokens":3},"stopReason":"stop","timestamp":2}}"#,
        r#"{"type":"model_change","id":"a0000003","parentId":"a0000002","timestamp":"2025-01-01T00:00:03.000Z","provider":"p","modelId":"m2"}"#,
        r#"{"type":"label","id":"a0000004","parentId":"a0000003","timestamp":"2025-01-01T00:00:04.000Z","targetId":"a0000001","label":"start"}"#,
        r#"{"type":"message","id":"a0000005","parentId":"a0000001","timestamp":"2025-01-01T00:00:05.000Z","message":{"role":"user","content":"a branch — with dashes","timestamp":5}}"#,
        r#"{"type":"custom","id":"a0000006","parentId":"a0000005","timestamp":"2025-01-01T00:00:06.000Z","customType":"ext","data":{"k":[1,2,{"z":null}]}}"#,
    ];
    let mut text = lines.join("\n");
    text.push('\n');
    text
}

/// A version 2 session (migrates: `hookMessage` → `custom`) with a malformed line inside.
pub fn v2_text() -> String {
    let lines = [
        r#"{"type":"session","version":2,"id":"s2","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/w"}"#,
        r#"{"type":"message","id":"b0000001","parentId":null,"timestamp":"2025-01-01T00:00:01.000Z","message":{"role":"user","content":"one","timestamp":1}}"#,
        r#"{"broken json"#,
        r#"{"type":"message","id":"b0000002","parentId":"b0000001","timestamp":"2025-01-01T00:00:02.000Z","message":{"role":"hookMessage","customType":"h","content":"two","display":true,"timestamp":2}}"#,
    ];
    let mut text = lines.join("\n");
    text.push('\n');
    text
}

/// Writes `text` to `name` in `dir` and returns the path.
pub fn write(dir: &Path, name: &str, text: &[u8]) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

/// A small `custom` entry to append.
pub fn note(n: u64) -> NewEntry {
    let mut fields = Map::new();
    fields.insert("customType".into(), "note".into());
    fields.insert("data".into(), json!({ "n": n, "text": "é✓" }));
    NewEntry::new("custom", fields)
}

/// A `custom` entry attached to a given parent.
pub fn note_under(n: u64, parent: Parent) -> NewEntry {
    note(n).with_parent(parent)
}

/// Parses a file as it is on disk.
pub fn parse_file(path: &Path) -> Session {
    compaction_core::parse_session(&std::fs::read(path).unwrap())
}

/// Diagnostics of warning or error severity, as text.
pub fn problems(session: &Session) -> Vec<String> {
    session
        .diagnostics()
        .iter()
        .filter(|d| d.severity() >= Severity::Warning)
        .map(ToString::to_string)
        .collect()
}

/// The ids of a session's entries in file order.
pub fn ids(session: &Session) -> Vec<String> {
    session.entries().iter().map(|e| e.id.clone()).collect()
}

/// Every line of the file is a complete JSON value ending in `\n`.
pub fn assert_every_line_is_json(path: &Path) {
    let bytes = std::fs::read(path).unwrap();
    assert!(bytes.ends_with(b"\n"), "file does not end with a newline");
    for (number, line) in bytes.split(|b| *b == b'\n').enumerate() {
        if number > 0 && line.is_empty() {
            continue;
        }
        serde_json::from_slice::<Value>(line).unwrap_or_else(|e| {
            panic!("line {} is not JSON ({e}): {:?}", number + 1, String::from_utf8_lossy(line))
        });
    }
}
