//! Lossless round trips over the committed fixtures: entries, typed messages, the header,
//! and the whole file rebuilt from what the parser kept.

use compaction_core::migrate::migrated_id;
use compaction_core::{AgentMessage, Header, Severity, parse_session};
use pretty_assertions::assert_eq;
use serde_json::Value;

use super::{fixture, fixtures};

/// The file's lines without line endings (CR and a leading BOM removed), 1-based by index+1.
fn lines(bytes: &[u8]) -> Vec<String> {
    let text = std::str::from_utf8(bytes).unwrap();
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let text = text.strip_suffix('\n').unwrap_or(text);
    text.split('\n').map(|line| line.strip_suffix('\r').unwrap_or(line).to_owned()).collect()
}

fn value(text: &str) -> Value {
    serde_json::from_str(text).unwrap()
}

#[test]
fn fixture_set_is_present() {
    let names: Vec<String> = fixtures().into_iter().map(|(name, _)| name).collect();
    for expected in [
        "branching.jsonl",
        "damaged.jsonl",
        "small-linear.jsonl",
        "v1-legacy.jsonl",
        "v2-legacy.jsonl",
    ] {
        assert!(names.iter().any(|n| n == expected), "{expected} missing");
    }
    for (name, bytes) in fixtures() {
        assert!(bytes.len() < 200 * 1024, "{name} is {} bytes", bytes.len());
    }
}

#[test]
fn every_v3_entry_keeps_its_line_and_json_value() {
    for (name, bytes) in fixtures() {
        let session = parse_session(&bytes);
        if session.source_version() != 3 {
            continue;
        }
        let lines = lines(&bytes);
        assert!(!session.entries().is_empty(), "{name}");
        for entry in session.entries() {
            let line = &lines[entry.line - 1];
            assert_eq!(entry.raw(), line, "{name}:{}", entry.line);
            let original = value(line);
            let reserialized = value(&serde_json::to_string(&original).unwrap());
            assert_eq!(entry.to_value().unwrap(), original, "{name}:{}", entry.line);
            assert_eq!(reserialized, original, "{name}:{}", entry.line);
        }
    }
}

#[test]
fn typed_messages_serialize_back_to_the_stored_message() {
    let mut checked = 0;
    for (name, bytes) in fixtures() {
        let session = parse_session(&bytes);
        for entry in session.entries().iter().filter(|e| e.is_message()) {
            let stored = entry.to_value().unwrap()["message"].clone();
            let message: AgentMessage = entry.message().unwrap().unwrap();
            assert!(
                !matches!(message, AgentMessage::Other(_)),
                "{name}:{} has an untyped role",
                entry.line
            );
            assert_eq!(serde_json::to_value(&message).unwrap(), stored, "{name}:{}", entry.line);
            checked += 1;
        }
    }
    assert!(checked > 100, "only {checked} messages checked");
}

#[test]
fn headers_round_trip_through_the_typed_header() {
    for (name, bytes) in fixtures() {
        let first = value(&lines(&bytes)[0]);
        let header: Header = serde_json::from_value(first.clone()).unwrap();
        assert_eq!(serde_json::to_value(&header).unwrap(), first, "{name}");
        let session = parse_session(&bytes);
        let parsed = session.header().unwrap();
        assert_eq!(parsed.id, header.id, "{name}");
        assert_eq!(parsed.extra, header.extra, "{name}");
    }
}

#[test]
fn clean_v3_fixtures_rebuild_byte_for_byte() {
    for (name, bytes) in fixtures() {
        let session = parse_session(&bytes);
        if session.source_version() != 3 {
            continue;
        }
        let mut lines: Vec<(usize, Vec<u8>)> =
            vec![(1, session.header_raw().unwrap().as_bytes().to_vec())];
        lines.extend(session.entries().iter().map(|e| (e.line, e.raw().as_bytes().to_vec())));
        lines.extend(session.malformed().iter().map(|m| (m.line, m.bytes.clone().unwrap())));
        lines.sort();
        let ending: &[u8] = if session.line_style().crlf { b"\r\n" } else { b"\n" };
        let mut rebuilt = Vec::new();
        if session.line_style().bom {
            rebuilt.extend_from_slice(b"\xEF\xBB\xBF");
        }
        for (_, line) in lines {
            rebuilt.extend_from_slice(&line);
            rebuilt.extend_from_slice(ending);
        }
        assert_eq!(String::from_utf8_lossy(&rebuilt), String::from_utf8_lossy(&bytes), "{name}");
    }
}

#[test]
fn generated_fixtures_have_no_problems() {
    for name in ["small-linear.jsonl", "branching.jsonl"] {
        let session = parse_session(&fixture(name));
        assert_eq!(session.diagnostics(), &[], "{name}");
    }
    let session = parse_session(&fixture("branching.jsonl"));
    let types: Vec<&str> = session.entries().iter().map(|e| e.kind.type_name()).collect();
    for expected in ["compaction", "branch_summary", "label", "model_change", "custom_message"] {
        assert!(types.contains(&expected), "branching.jsonl has no {expected}");
    }
    assert!(session.leaves().len() >= 2, "branching.jsonl does not branch");
}

#[test]
fn damaged_fixture_reports_each_problem_and_keeps_the_rest() {
    let bytes = fixture("damaged.jsonl");
    let session = parse_session(&bytes);
    let kinds: Vec<(usize, &str)> =
        session.diagnostics().iter().map(|d| (d.line, d.kind.name())).collect();
    assert!(kinds.contains(&(1, "crlf")), "{kinds:?}");
    assert!(kinds.iter().any(|(_, k)| *k == "malformed-json"), "{kinds:?}");
    assert!(kinds.iter().any(|(_, k)| *k == "unknown-entry-type"), "{kinds:?}");
    let total_lines = lines(&bytes).len();
    assert_eq!(1 + session.entries().len() + session.malformed().len(), total_lines);
    assert!(
        session
            .diagnostics()
            .iter()
            .filter(|d| d.kind.severity() == Severity::Error)
            .all(|d| session.malformed().iter().any(|m| m.line == d.line)),
        "every error names a kept line"
    );
}

/// What migration must do to one legacy line, written independently of the migrator:
/// the fields other than the id scheme and the renamed role stay as they were.
fn strip_migrated_fields(mut value: Value) -> Value {
    let map = value.as_object_mut().unwrap();
    for key in ["id", "parentId", "firstKeptEntryIndex", "firstKeptEntryId"] {
        map.shift_remove(key);
    }
    if let Some(message) = map.get_mut("message").and_then(Value::as_object_mut)
        && message.get("role").and_then(Value::as_str) == Some("hookMessage")
    {
        message.insert("role".into(), "custom".into());
    }
    value
}

#[test]
fn legacy_fixtures_migrate_and_keep_every_other_field() {
    for (name, version) in [("v1-legacy.jsonl", 1), ("v2-legacy.jsonl", 2)] {
        let bytes = fixture(name);
        let session = parse_session(&bytes);
        assert_eq!(session.source_version(), version, "{name}");
        assert!(session.is_migrated(), "{name}");
        let lines = lines(&bytes);
        assert_eq!(session.entries().len(), lines.len() - 1, "{name}");
        let mut previous: Option<String> = None;
        for entry in session.entries() {
            let original = value(&lines[entry.line - 1]);
            assert_eq!(
                strip_migrated_fields(entry.to_value().unwrap()),
                strip_migrated_fields(original.clone()),
                "{name}:{}",
                entry.line
            );
            if version == 1 {
                assert_eq!(entry.id, migrated_id(entry.line - 1), "{name}:{}", entry.line);
                assert_eq!(entry.parent_id, previous, "{name}:{}", entry.line);
                if let Some(index) = original.get("firstKeptEntryIndex").and_then(Value::as_u64) {
                    assert_eq!(
                        entry.to_value().unwrap()["firstKeptEntryId"],
                        Value::String(migrated_id(index as usize)),
                        "{name}:{}",
                        entry.line
                    );
                }
            } else {
                assert_eq!(Some(entry.id.as_str()), original["id"].as_str());
            }
            assert_ne!(entry.role(), Some("hookMessage"), "{name}:{}", entry.line);
            previous = Some(entry.id.clone());
        }
        let errors: Vec<_> =
            session.diagnostics().iter().filter(|d| d.kind.severity() != Severity::Info).collect();
        assert_eq!(errors, Vec::<&compaction_core::Diagnostic>::new(), "{name}");
    }
}
