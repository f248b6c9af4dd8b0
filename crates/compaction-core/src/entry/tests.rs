use std::sync::Arc;

use crate::message::AgentMessage;

use super::*;

#[test]
fn envelope_fields_are_parsed_and_raw_is_kept() {
    let raw = r#"{"type":"compaction","id":"a1b2c3d4","parentId":"00000001","timestamp":"2025-01-01T00:00:00Z","summary":"S","firstKeptEntryId":"00000002","tokensBefore":1234,"details":{"readFiles":["a"]},"fromHook":false,"zz":1}"#;
    let entry = Entry::parse(3, raw).unwrap();
    assert_eq!(entry.raw(), raw);
    assert_eq!(entry.timestamp(), Some("2025-01-01T00:00:00Z"));
    let block = Arc::new(format!("xx\n{raw}\n"));
    let shared = Entry::parse_shared(3, &block, 3, 3 + raw.len()).unwrap();
    assert_eq!(shared, entry);
    assert_eq!(shared.timestamp(), Some("2025-01-01T00:00:00Z"));
    let escaped =
        Entry::parse(4, r#"{"type":"custom","id":"e","timestamp":"2025\u002d01"}"#).unwrap();
    assert_eq!(escaped.timestamp(), Some("2025-01"));
    assert_eq!(entry.parent_id.as_deref(), Some("00000001"));
    let EntryKind::Compaction(data) = &entry.kind else { panic!("{:?}", entry.kind) };
    assert_eq!(data.first_kept_entry_id, "00000002");
    assert_eq!(data.tokens_before, 1234);
}

#[test]
fn message_body_is_parsed_on_demand() {
    let raw = r#"{"type":"message","id":"x","parentId":null,"timestamp":"t","message":{"role":"user","content":"hello"}}"#;
    let entry = Entry::parse(2, raw).unwrap();
    assert_eq!(entry.role(), Some("user"));
    assert_eq!(entry.parent_id, None);
    let message = entry.message().unwrap().unwrap();
    assert_eq!(message, AgentMessage::user_text("hello"));
}

#[test]
fn missing_fields_are_errors_and_unknown_types_are_kept() {
    assert_eq!(
        Entry::parse(2, r#"{"type":"message","parentId":null}"#),
        Err(EntryError::Missing("id"))
    );
    assert!(matches!(Entry::parse(2, "{nope"), Err(EntryError::Json(_))));
    let entry = Entry::parse(2, r#"{"type":"future_thing","id":"q","parentId":null}"#).unwrap();
    assert_eq!(entry.kind.type_name(), "future_thing");
}
