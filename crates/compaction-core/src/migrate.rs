//! In-memory migration of older session formats to version 3.
//!
//! v1 → v2: entries get ids and a parent link to the previous entry, and a compaction's
//! `firstKeptEntryIndex` (index into the file's lines, header = 0) becomes the id of that
//! line's entry. Ids are deterministic: an entry's 1-based position among the non-header
//! lines as 8 lowercase hex digits, so the same file always migrates to the same ids.
//! v2 → v3: messages with role `hookMessage` become role `custom`.
//!
//! Migration never touches the file; the store rewrites it atomically only when asked.

use serde_json::{Map, Value};

use crate::entry::EntryError;

/// The deterministic id of the entry at `position` (1-based, among non-header lines).
pub fn migrated_id(position: usize) -> String {
    format!("{position:08x}")
}

/// Migrates one entry line from `version` to version 3 and returns its new JSON text.
pub fn migrate_line(
    text: &str,
    version: u32,
    position: usize,
    previous_id: Option<&str>,
) -> Result<String, EntryError> {
    let mut value: Value = crate::entry::from_json_text(text).map_err(|error| {
        if error.to_string().contains("recursion limit exceeded") {
            EntryError::TooDeep
        } else {
            EntryError::Json(error.to_string())
        }
    })?;
    let Value::Object(map) = &mut value else {
        return Err(EntryError::Invalid("an entry must be a JSON object".into()));
    };
    if version < 2 {
        migrate_v1_fields(map, position, previous_id);
    }
    if version < 3 {
        rename_hook_message(map);
    }
    serde_json::to_string(&value).map_err(|error| EntryError::Json(error.to_string()))
}

fn migrate_v1_fields(map: &mut Map<String, Value>, position: usize, previous_id: Option<&str>) {
    // Put id and parentId right after `type`, where v3 writers put them.
    let mut migrated = Map::new();
    let entry_type = map.shift_remove("type");
    if let Some(entry_type) = entry_type {
        migrated.insert("type".into(), entry_type);
    }
    map.shift_remove("id");
    map.shift_remove("parentId");
    migrated.insert("id".into(), Value::String(migrated_id(position)));
    migrated.insert(
        "parentId".into(),
        previous_id.map_or(Value::Null, |id| Value::String(id.to_owned())),
    );
    let is_compaction = migrated.get("type").and_then(Value::as_str) == Some("compaction");
    let index = if is_compaction { map.shift_remove("firstKeptEntryIndex") } else { None };
    migrated.extend(std::mem::take(map));
    if let Some(index) = index.as_ref().and_then(Value::as_u64) {
        // Index 0 is the header, which has no id.
        if index >= 1 {
            let id = usize::try_from(index).map(migrated_id).unwrap_or_default();
            migrated.insert("firstKeptEntryId".into(), Value::String(id));
        }
    }
    *map = migrated;
}

fn rename_hook_message(map: &mut Map<String, Value>) {
    if map.get("type").and_then(Value::as_str) != Some("message") {
        return;
    }
    if let Some(Value::Object(message)) = map.get_mut("message")
        && message.get("role").and_then(Value::as_str) == Some("hookMessage")
    {
        message.insert("role".into(), Value::String("custom".into()));
    }
}

#[cfg(test)]
mod tests {
    use crate::entry::EntryKind;
    use crate::parse::parse_session;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    #[test]
    fn v1_file_gets_deterministic_ids_chain_and_first_kept_id() {
        let lines = [
            json!({"type":"session","id":"s","timestamp":"t","cwd":"/w","provider":"anthropic","modelId":"m"}),
            json!({"type":"message","timestamp":"t","message":{"role":"user","content":"one"}}),
            json!({"type":"message","timestamp":"t","message":{"role":"assistant","content":[]}}),
            json!({"type":"message","timestamp":"t","message":{"role":"user","content":"two"}}),
            json!({"type":"compaction","timestamp":"t","summary":"S","firstKeptEntryIndex":3,"tokensBefore":9}),
            json!({"type":"message","timestamp":"t","message":{"role":"hookMessage","customType":"h","content":"c","display":true}}),
        ];
        let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
        let session = parse_session(text.as_bytes());
        let ids: Vec<_> = session.entries().iter().map(|e| e.id.as_str()).collect();
        assert_eq!(ids, ["00000001", "00000002", "00000003", "00000004", "00000005"]);
        let parents: Vec<_> = session.entries().iter().map(|e| e.parent_id.as_deref()).collect();
        assert_eq!(
            parents,
            [None, Some("00000001"), Some("00000002"), Some("00000003"), Some("00000004")]
        );
        let EntryKind::Compaction(data) = &session.entries()[3].kind else { panic!() };
        assert_eq!(data.first_kept_entry_id, "00000003");
        assert_eq!(session.entries()[4].role(), Some("custom"));
        assert_eq!(session.source_version(), 1);
        assert_eq!(session.header().and_then(|h| h.version), Some(3));
        assert_eq!(
            session.header().and_then(|h| h.extra.get("modelId").cloned()),
            Some(json!("m"))
        );
        // Unknown fields survive migration.
        let value = session.entries()[4].to_value().unwrap();
        assert_eq!(value["message"]["customType"], json!("h"));
    }

    #[test]
    fn v2_file_renames_hook_messages_only() {
        let text = [
            json!({"type":"session","version":2,"id":"s","timestamp":"t","cwd":"/w"}),
            json!({"type":"message","id":"aa","parentId":null,"timestamp":"t","message":{"role":"hookMessage","customType":"h","content":"c","display":false}}),
            json!({"type":"message","id":"bb","parentId":"aa","timestamp":"t","message":{"role":"user","content":"u"}}),
        ]
        .iter()
        .map(|l| format!("{l}\n"))
        .collect::<String>();
        let session = parse_session(text.as_bytes());
        assert_eq!(session.entries()[0].role(), Some("custom"));
        assert_eq!(session.entries()[0].id, "aa");
        assert_eq!(session.entries()[1].parent_id.as_deref(), Some("aa"));
        assert_eq!(session.source_version(), 2);
    }

    #[test]
    fn v1_line_holding_two_records_gives_both_entries_counted_as_pi_counted_them() {
        let message = |text: &str| json!({"type":"message","timestamp":"t","message":{"role":"user","content":text}});
        // Records 2 and 3 share line 3; the compaction keeps from record 4 (its index
        // counts records, as pi held them when it wrote the index).
        let text = format!(
            "{}\n{}\n{}{} \n{}\n{}\n",
            json!({"type":"session","id":"s","timestamp":"t","cwd":"/w"}),
            message("one"),
            message("two"),
            message("three"),
            message("four"),
            json!({"type":"compaction","timestamp":"t","summary":"S","firstKeptEntryIndex":4,"tokensBefore":9}),
        );
        let session = parse_session(text.as_bytes());
        let contents: Vec<_> = session
            .entries()
            .iter()
            .filter_map(|e| e.to_value().ok()?["message"]["content"].as_str().map(str::to_owned))
            .collect();
        assert_eq!(contents, ["one", "two", "three", "four"]);
        let ids: Vec<_> = session.entries().iter().map(|e| e.id.as_str()).collect();
        assert_eq!(ids, ["00000001", "00000002", "00000003", "00000004", "00000005"]);
        assert_eq!(session.entries()[2].parent_id.as_deref(), Some("00000002"));
        let EntryKind::Compaction(data) = &session.entries()[4].kind else { panic!() };
        assert_eq!(data.first_kept_entry_id, "00000004");
        let joined: Vec<_> = session
            .diagnostics()
            .iter()
            .filter(|d| d.kind == crate::DiagnosticKind::JoinedRecords)
            .map(|d| d.line)
            .collect();
        assert_eq!(joined, [3]);
        assert!(session.malformed().is_empty());
    }

    #[test]
    fn v1_line_with_a_record_and_text_that_is_not_json_stays_one_malformed_line() {
        let text = concat!(
            "{\"type\":\"session\",\"id\":\"s\",\"timestamp\":\"t\",\"cwd\":\"/w\"}\n",
            "{\"type\":\"message\",\"timestamp\":\"t\",\"message\":{\"role\":\"user\",\"content\":\"a\"}} tail\n",
            "{\"type\":\"message\",\"timestamp\":\"t\",\"message\":{\"role\":\"user\",\"content\":\"b\"}}{\"x\"\n",
        );
        let session = parse_session(text.as_bytes());
        assert!(session.entries().is_empty());
        assert_eq!(session.malformed().len(), 2);
    }

    #[test]
    fn v1_malformed_line_keeps_its_position_in_the_id_scheme() {
        let text = concat!(
            "{\"type\":\"session\",\"id\":\"s\",\"timestamp\":\"t\",\"cwd\":\"/w\"}\n",
            "{\"type\":\"message\",\"timestamp\":\"t\",\"message\":{\"role\":\"user\",\"content\":\"a\"}}\n",
            "not json\n",
            "{\"type\":\"message\",\"timestamp\":\"t\",\"message\":{\"role\":\"user\",\"content\":\"b\"}}\n",
        );
        let session = parse_session(text.as_bytes());
        let ids: Vec<_> = session.entries().iter().map(|e| e.id.as_str()).collect();
        assert_eq!(ids, ["00000001", "00000003"]);
        assert_eq!(session.entries()[1].parent_id.as_deref(), Some("00000001"));
    }
}
