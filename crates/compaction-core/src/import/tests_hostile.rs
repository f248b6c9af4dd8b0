//! Hardening round 14: transcripts whose lines are valid JSON of the wrong shape, generated.
//!
//! Every value of every line of the five import fixtures (Claude Code, Codex, old Codex,
//! Cursor, Antigravity), at any depth, is replaced in turn by a value of another type: a
//! number, a string, an array, an object, `null`, `true`. The number, string, array and
//! object carry a marker. Each instance is imported with its format forced, and must:
//! - not panic, and end in a session or in one of the import's own errors;
//! - give a session that parses as pi's with no warning, whose tool call ids are unique and
//!   whose tool results each name a call before them;
//! - drop nothing silently: when the field is content (the same field given another string
//!   reaches the session), a marker-bearing value of another type reaches the session too or
//!   the report counts one more item of some dropped kind.
//!
//! The split was fixed before any fix: instance `i` (in the order generated) is in the test
//! part when `i % 3 == 2`, else in the dev part.

use std::collections::BTreeMap;

use serde_json::{Value, json};

use super::*;

pub(super) const FIXTURES: [(SourceFormat, &str); 5] = [
    (SourceFormat::ClaudeCode, include_str!("../../tests/fixtures/import/claude-code.jsonl")),
    (SourceFormat::Codex, include_str!("../../tests/fixtures/import/codex-rollout.jsonl")),
    (SourceFormat::Codex, include_str!("../../tests/fixtures/import/codex-rollout-old.jsonl")),
    (SourceFormat::Cursor, include_str!("../../tests/fixtures/import/cursor-agent.jsonl")),
    (
        SourceFormat::Antigravity,
        include_str!("../../tests/fixtures/import/antigravity-trajectory.jsonl"),
    ),
];

/// The JSON pointers of every value inside `value` (the value itself left out).
pub(super) fn pointers(value: &Value, prefix: &str, out: &mut Vec<String>) {
    let children: Vec<(String, &Value)> = match value {
        Value::Object(fields) => fields
            .iter()
            .map(|(key, child)| (key.replace('~', "~0").replace('/', "~1"), child))
            .collect(),
        Value::Array(items) => items.iter().enumerate().map(|(i, c)| (i.to_string(), c)).collect(),
        Value::Null | Value::Bool(_) | Value::Number(_) | Value::String(_) => return,
    };
    for (step, child) in children {
        let pointer = format!("{prefix}/{step}");
        out.push(pointer.clone());
        pointers(child, &pointer, out);
    }
}

/// The string leaves at or under `pointer`.
pub(super) fn string_leaves(value: &Value, pointer: &str) -> Vec<String> {
    let Some(at) = value.pointer(pointer) else { return Vec::new() };
    if at.is_string() {
        return vec![pointer.to_owned()];
    }
    let mut all = Vec::new();
    pointers(at, pointer, &mut all);
    all.into_iter().filter(|p| value.pointer(p).is_some_and(Value::is_string)).collect()
}

/// The transcript with the value at `pointer` of line `line` (0-based) replaced.
pub(super) fn replaced(text: &str, line: usize, pointer: &str, with: &Value) -> String {
    let mut out = String::new();
    for (index, raw) in text.lines().enumerate() {
        if index == line {
            let mut value: Value = serde_json::from_str(raw).unwrap();
            *value.pointer_mut(pointer).unwrap() = with.clone();
            out.push_str(&value.to_string());
        } else {
            out.push_str(raw);
        }
        out.push('\n');
    }
    out
}

/// The values of other types that replace `original`, each with its marker (if it carries
/// one), for instance number `k`.
pub(super) fn wrong_values(original: &Value, k: usize) -> Vec<(Value, Option<String>)> {
    let mark = format!("MARK{k}Q");
    let number = 9_000_000_000_u64 + k as u64;
    let mut out = Vec::new();
    if !original.is_number() {
        out.push((json!(number), Some(number.to_string())));
    }
    if !original.is_string() {
        out.push((json!(mark), Some(mark.clone())));
    }
    if !original.is_array() {
        out.push((json!([mark]), Some(mark.clone())));
    }
    if !original.is_object() {
        out.push((json!({ "v": mark }), Some(mark.clone())));
    }
    if !original.is_null() {
        out.push((Value::Null, None));
    }
    if !original.is_boolean() {
        out.push((json!(true), None));
    }
    out
}

pub(super) fn run(
    format: SourceFormat,
    text: &str,
) -> std::thread::Result<Result<Imported, ImportError>> {
    let redactor = Redactor::default();
    let options = ImportOptions { format: Some(format), fallback_cwd: None };
    std::panic::catch_unwind(|| import_with(text, &options, &redactor))
}

/// What is wrong with a session an import wrote, if anything.
pub(super) fn structural_problem(session: &str) -> Option<String> {
    let (_, problems) = super::tests::parsed_with_problems(session);
    if !problems.is_empty() {
        return Some(format!("diagnostics {problems:?}"));
    }
    let mut calls = BTreeMap::new();
    for line in session.lines().skip(1) {
        let entry: Value = serde_json::from_str(line).ok()?;
        let Some(message) = entry.get("message") else { continue };
        for block in message["content"].as_array().map_or(&[][..], Vec::as_slice) {
            if block["type"] == "toolCall" {
                let id = block["id"].as_str().unwrap_or("").to_owned();
                if calls.insert(id.clone(), false).is_some() {
                    return Some(format!("tool call id {id:?} given twice"));
                }
            }
        }
        if message["role"] == "toolResult" {
            let id = message["toolCallId"].as_str().unwrap_or("");
            match calls.get_mut(id) {
                Some(answered @ false) => *answered = true,
                Some(true) => return Some(format!("a second tool result for {id:?}")),
                None => return Some(format!("a tool result names no call before it ({id:?})")),
            }
        }
    }
    None
}

/// Whether `after` counts more of some dropped kind than `before`.
pub(super) fn counts_more(
    before: &BTreeMap<String, usize>,
    after: &BTreeMap<String, usize>,
) -> bool {
    after.iter().any(|(kind, n)| *n > before.get(kind).copied().unwrap_or(0))
}

#[test]
fn lines_of_the_wrong_shape_are_read_or_counted_never_silently_dropped() {
    let mut instance = 0;
    let mut tally = [[0usize; 2]; 2]; // [dev, test] × [held, missed]
    let mut dev_misses = Vec::new();
    let mut test_misses = Vec::new();
    for (fixture, (format, text)) in FIXTURES.iter().enumerate() {
        let base = run(*format, text).unwrap().unwrap();
        for (line, raw) in text.lines().enumerate() {
            let value: Value = serde_json::from_str(raw).unwrap();
            let mut all = Vec::new();
            pointers(&value, "", &mut all);
            // Which string leaves are content: a fresh string there reaches the session.
            let mut content = std::collections::BTreeSet::new();
            for leaf in all.iter().filter(|p| value.pointer(p).is_some_and(Value::is_string)) {
                let control = json!(format!("CTRL{line}x{}Q", leaf.len()));
                let out = run(*format, &replaced(text, line, leaf, &control));
                if let Ok(Ok(imported)) = out
                    && imported.session.contains(control.as_str().unwrap_or_default())
                {
                    content.insert(leaf.clone());
                }
            }
            for pointer in &all {
                let original = value.pointer(pointer).unwrap();
                let is_content =
                    string_leaves(&value, pointer).iter().any(|leaf| content.contains(leaf));
                for (wrong, marker) in wrong_values(original, instance) {
                    let part = usize::from(instance % 3 == 2);
                    let name = format!(
                        "#{instance} fixture {fixture} line {} {pointer} = {wrong}",
                        line + 1
                    );
                    instance += 1;
                    let problem = match run(*format, &replaced(text, line, pointer, &wrong)) {
                        Err(_) => Some("panicked".to_owned()),
                        Ok(Err(ImportError::NoMessages | ImportError::UnknownFormat)) => None,
                        Ok(Err(other)) => Some(format!("error {other}")),
                        Ok(Ok(imported)) => structural_problem(&imported.session).or_else(|| {
                            let marker = marker.filter(|_| is_content)?;
                            let kept = imported.session.contains(&marker);
                            let counted =
                                counts_more(&base.report.dropped, &imported.report.dropped);
                            (!kept && !counted).then(|| "dropped without a count".to_owned())
                        }),
                    };
                    tally[part][usize::from(problem.is_some())] += 1;
                    if let Some(problem) = problem {
                        if part == 0 {
                            dev_misses.push(format!("{name}: {problem}"));
                        } else {
                            test_misses.push(instance - 1);
                            if std::env::var_os("ROUND14_SHOW_TEST").is_some() {
                                eprintln!("test miss {name}: {problem}");
                            }
                        }
                    }
                }
            }
        }
    }
    for miss in &dev_misses {
        eprintln!("dev miss {miss}");
    }
    eprintln!("test misses (by number): {test_misses:?}");
    let [[dev_held, dev_missed], [test_held, test_missed]] = tally;
    eprintln!(
        "wrong shapes: dev {dev_held}/{} held, test {test_held}/{} held",
        dev_held + dev_missed,
        test_held + test_missed
    );
    assert!(dev_misses.is_empty() && test_misses.is_empty());
}

/// A message resent many times under one parent (a crafted transcript, or a user who edits
/// and sends again and again): every first version is kept outside the path, the last one is
/// on it, and the reply hangs from it. Each line used to walk the chain of every earlier
/// version (quadratic: 20,000 such lines took 17.9 s in a release build, now linear).
#[test]
fn a_message_resent_thousands_of_times_keeps_every_version_and_one_path() {
    let line = |uuid: &str, parent: Option<&str>, role: &str, text: &str| {
        json!({"parentUuid": parent, "isSidechain": false, "type": role, "sessionId": "s",
            "cwd": "/w", "uuid": uuid, "timestamp": "2025-08-02T09:01:00.000Z",
            "message": {"role": role, "content": text}})
        .to_string()
    };
    let n = 3000;
    let mut text = line("root", None, "user", "start");
    text.push('\n');
    for i in 0..n {
        text.push_str(&line(&format!("u{i}"), Some("root"), "user", &format!("try {i}")));
        text.push('\n');
    }
    let last = format!("u{}", n - 1);
    text.push_str(&line("a", Some(&last), "assistant", "done"));
    text.push('\n');
    let imported = run(SourceFormat::ClaudeCode, &text).unwrap().unwrap();
    assert_eq!(structural_problem(&imported.session), None);
    assert_eq!(imported.report.resent_messages, n - 1);
    assert_eq!(imported.report.messages_on_path, 3, "{:?}", imported.report);
}
