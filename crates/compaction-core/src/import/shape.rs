//! Values of the wrong type in a transcript line, read or counted in one place.
//!
//! Every importer reads a field it expects to hold text with `as_str`, which gives nothing
//! for a number, a list or an object: the field's content would vanish without a word. So
//! before a line is converted, the fields each format reads as text or as a structure are
//! checked, in the places the importers look (the line, its `message` or `payload`, their
//! content blocks, Antigravity's calls; never inside a tool's arguments):
//! - a field read as text that holds a number, `true`/`false`, a list or an object holds its
//!   JSON text instead (what it held reaches the session), counted in the report as kept in
//!   another form (`converted`), not as left out;
//! - a time of another type is left out (the previous time is used), counted;
//! - a structure (`message`, `payload`, a list of blocks or calls) that holds a value of
//!   another kind is left out, counted; a single object where a list belongs is read as a
//!   list of one, counted as converted.
//!
//! `null` is taken for an absent field, as the importers already read it.
//!
//! Invariant: a line whose fields all have the types the importers expect is not changed.

use std::borrow::Cow;

use serde_json::{Map, Value};

use super::SourceFormat;

/// What a field should hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Want {
    /// Text; another type is read as its JSON text.
    Text,
    /// Text or a structure the importer reads (a list, an object); a number or `true`/`false`
    /// is read as its JSON text.
    TextOrStructure,
    /// A time (text); another type is left out.
    Time,
    /// An object, looked into.
    Object,
    /// A list of objects (blocks, calls), each looked into; a text is kept as it is where
    /// the format allows one (`content`).
    List { text_allowed: bool },
}

/// The fields a format reads, by key, wherever the checker looks.
fn wanted(format: SourceFormat, key: &str) -> Option<Want> {
    use Want::{List, Object, Text, TextOrStructure, Time};
    Some(match (format, key) {
        (_, "timestamp" | "created_at") => Time,
        (SourceFormat::ClaudeCode, "message") | (SourceFormat::Cursor, "message") => Object,
        (SourceFormat::Codex, "payload") => Object,
        (SourceFormat::Codex, "output") => TextOrStructure,
        (SourceFormat::Codex, "content") => List { text_allowed: false },
        (_, "content") => List { text_allowed: true },
        (SourceFormat::Antigravity, "tool_calls") => List { text_allowed: false },
        (SourceFormat::Codex, "summary") => List { text_allowed: false },
        (
            SourceFormat::ClaudeCode,
            "type" | "uuid" | "parentUuid" | "sessionId" | "cwd" | "subtype" | "operation"
            | "model" | "stop_reason" | "text" | "thinking" | "name" | "id" | "tool_use_id"
            | "media_type" | "data" | "role" | "signature",
        ) => Text,
        (
            SourceFormat::Codex,
            "type" | "role" | "name" | "call_id" | "id" | "cwd" | "model" | "model_provider"
            | "text" | "message",
        ) => Text,
        (SourceFormat::Cursor, "role" | "type" | "text" | "thinking" | "name" | "id") => Text,
        (SourceFormat::Antigravity, "type" | "source" | "status" | "thinking" | "name") => Text,
        _ => return None,
    })
}

/// The line with every field of the wrong type read or left out (see the module's rules),
/// and one note per change, for the report. Borrowed when nothing changed.
pub(super) fn normalized(format: SourceFormat, line: &Value) -> (Cow<'_, Value>, Vec<Note>) {
    let mut notes = Vec::new();
    if !needs_change(format, line, 0) {
        return (Cow::Borrowed(line), notes);
    }
    let mut line = line.clone();
    if let Value::Object(fields) = &mut line {
        fix_object(format, fields, &mut notes, 0);
    }
    (Cow::Owned(line), notes)
}

/// A change, for the report: what it kept in another form, or left out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Note {
    /// The value reaches the session in another form (its JSON text, a list of one).
    Converted(String),
    /// The value is left out.
    Dropped(String),
}

/// How deep the checker looks (line → message → content block → nested result content).
const MAX_DEPTH: usize = 4;

/// Whether a field of `object` (or of what the checker looks into) has the wrong type.
fn needs_change(format: SourceFormat, value: &Value, depth: usize) -> bool {
    let Value::Object(fields) = value else { return false };
    if depth > MAX_DEPTH {
        return false;
    }
    fields.iter().any(|(key, value)| match (wanted(format, key), value) {
        (None, _) | (Some(_), Value::Null) => false,
        (Some(Want::Text | Want::Time), Value::String(_)) => false,
        (Some(Want::Text | Want::Time), _) => true,
        (Some(Want::TextOrStructure), Value::Array(items)) => {
            items.iter().any(|item| !(item.is_object() || item.is_null()))
        }
        (Some(Want::TextOrStructure), value) => value.is_boolean() || value.is_number(),
        (Some(Want::Object), Value::Object(_)) => needs_change(format, value, depth + 1),
        (Some(Want::Object), _) => true,
        (Some(Want::List { .. }), Value::Array(items)) => items.iter().any(|item| {
            !(item.is_object() || item.is_null()) || needs_change(format, item, depth + 1)
        }),
        (Some(Want::List { text_allowed }), Value::String(_)) => !text_allowed,
        (Some(Want::List { .. }), _) => true,
    })
}

fn kind_of(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "true/false",
        Value::Number(_) => "a number",
        Value::String(_) => "text",
        Value::Array(_) => "a list",
        Value::Object(_) => "an object",
    }
}

fn fix_object(
    format: SourceFormat,
    fields: &mut Map<String, Value>,
    notes: &mut Vec<Note>,
    depth: usize,
) {
    if depth > MAX_DEPTH {
        return;
    }
    let keys: Vec<String> = fields.keys().cloned().collect();
    for key in keys {
        let Some(want) = wanted(format, &key) else { continue };
        let Some(value) = fields.get_mut(&key) else { continue };
        let kind = kind_of(value);
        match (want, &mut *value) {
            (_, Value::Null) => {}
            (Want::Text | Want::Time, Value::String(_)) => {}
            (Want::TextOrStructure, Value::Array(items)) => left_out_items(&key, items, notes),
            (Want::TextOrStructure, Value::String(_) | Value::Object(_)) => {}
            (Want::Text | Want::TextOrStructure, other) => {
                *other = Value::String(other.to_string());
                notes.push(Note::Converted(format!(
                    "`{key}` holding {kind} (read as its JSON text)"
                )));
            }
            (Want::Time, _) => {
                fields.remove(&key);
                notes.push(Note::Dropped(format!(
                    "`{key}` holding {kind} (left out; the previous time is used)"
                )));
            }
            (Want::Object, Value::Object(inner)) => fix_object(format, inner, notes, depth + 1),
            (Want::List { .. }, Value::Array(items)) => {
                left_out_items(&key, items, notes);
                for item in items.iter_mut() {
                    if let Value::Object(inner) = item {
                        fix_object(format, inner, notes, depth + 1);
                    }
                }
            }
            (Want::List { text_allowed: true }, Value::String(_)) => {}
            (Want::List { .. }, Value::Object(_)) => {
                let mut single = value.take();
                if let Value::Object(inner) = &mut single {
                    fix_object(format, inner, notes, depth + 1);
                }
                *value = Value::Array(vec![single]);
                notes.push(Note::Converted(format!(
                    "`{key}` holding one object, not a list (read as a list of one)"
                )));
            }
            (Want::Object | Want::List { .. }, _) => {
                fields.remove(&key);
                notes.push(Note::Dropped(format!("`{key}` holding {kind} (left out)")));
            }
        }
    }
}

/// A list of objects keeps only its objects: every other item is left out and noted.
fn left_out_items(key: &str, items: &mut Vec<Value>, notes: &mut Vec<Note>) {
    items.retain(|item| {
        let keep = item.is_object() || item.is_null();
        if !keep {
            notes.push(Note::Dropped(format!("`{key}` item holding {} (left out)", kind_of(item))));
        }
        keep
    });
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn a_line_of_the_expected_types_is_borrowed_unchanged() {
        let line = json!({"role": "user", "message": {"content": [{"type": "text", "text": "x"}]}});
        let (out, notes) = normalized(SourceFormat::Cursor, &line);
        assert!(matches!(out, Cow::Borrowed(_)) && notes.is_empty());
    }

    #[test]
    fn wrong_types_are_read_as_text_or_left_out_and_noted() {
        let line = json!({"role": "user", "timestamp": 5, "message": {"content": [
            {"type": "text", "text": 12}, {"type": "text", "text": ["a"]}
        ]}, "input": {"text": 3}});
        let (out, notes) = normalized(SourceFormat::ClaudeCode, &line);
        assert_eq!(
            *out,
            json!({"role": "user", "message": {"content": [
                {"type": "text", "text": "12"}, {"type": "text", "text": "[\"a\"]"}
            ]}, "input": {"text": 3}})
        );
        assert_eq!(notes.len(), 3, "{notes:?}");
        // The time is left out; the two texts are kept in another form.
        let dropped = notes.iter().filter(|n| matches!(n, Note::Dropped(_))).count();
        assert_eq!(dropped, 1, "{notes:?}");
    }
}
