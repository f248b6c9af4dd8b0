//! Which files a stretch of conversation read and changed, as summaries record them.
//!
//! Compaction and branch summaries both list the files the summarized part touched, so a
//! later model still knows where the work happened. The sources are the assistant's tool
//! calls (`read` → read; `write` → written; `edit` → edited, each by its string `path`
//! argument) and the `details` {`readFiles`, `modifiedFiles`} of earlier summaries.
//! Invariant: the two reported lists are disjoint (a file that was also written or edited is
//! only "modified") and sorted the way JavaScript's default `sort()` orders strings (by
//! UTF-16 code units), so the lists and the text appended to a summary match pi 0.73.1.

use std::cmp::Ordering;
use std::collections::BTreeSet;

use serde_json::Value;

use crate::message::{AgentMessage, ContentBlock};

/// The files touched by the summarized messages, by kind of operation.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FileOperations {
    /// Paths passed to the `read` tool.
    pub read: BTreeSet<String>,
    /// Paths passed to the `write` tool.
    pub written: BTreeSet<String>,
    /// Paths passed to the `edit` tool (and files listed as modified by earlier summaries).
    pub edited: BTreeSet<String>,
}

impl FileOperations {
    /// No operations yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds the file operations of an assistant message's tool calls. Other roles, calls
    /// without a non-empty string `path` argument, and tools other than `read`, `write` and
    /// `edit` contribute nothing.
    pub fn extract_from_message(&mut self, message: &AgentMessage) {
        let AgentMessage::Assistant(assistant) = message else { return };
        for block in &assistant.content {
            let call = match block {
                ContentBlock::ToolCall(call) => call,
                ContentBlock::Text(_)
                | ContentBlock::Image(_)
                | ContentBlock::Thinking(_)
                | ContentBlock::Other(_) => continue,
            };
            let Some(path) = call.arguments.get("path").and_then(Value::as_str) else { continue };
            if path.is_empty() {
                continue;
            }
            let set = match call.name.as_str() {
                "read" => &mut self.read,
                "write" => &mut self.written,
                "edit" => &mut self.edited,
                _ => continue,
            };
            set.insert(path.to_owned());
        }
    }

    /// Adds the file lists an earlier summary stored in its `details`: `readFiles` count as
    /// read and `modifiedFiles` as edited. Lists that are not arrays, and items that are not
    /// strings, are ignored.
    pub fn add_details(&mut self, details: &Value) {
        for (key, set) in [("readFiles", &mut self.read), ("modifiedFiles", &mut self.edited)] {
            if let Some(items) = details.get(key).and_then(Value::as_array) {
                set.extend(items.iter().filter_map(Value::as_str).map(str::to_owned));
            }
        }
    }

    /// Files written or edited, sorted like JavaScript's `sort()`.
    pub fn modified(&self) -> Vec<String> {
        let mut files: Vec<String> = self.written.union(&self.edited).cloned().collect();
        sort_like_javascript(&mut files);
        files
    }

    /// Files read and neither written nor edited, sorted like JavaScript's `sort()`.
    pub fn read_only(&self) -> Vec<String> {
        let mut files: Vec<String> = self
            .read
            .iter()
            .filter(|file| !self.written.contains(*file) && !self.edited.contains(*file))
            .cloned()
            .collect();
        sort_like_javascript(&mut files);
        files
    }
}

/// Sorts strings by UTF-16 code units, as JavaScript's default `Array.prototype.sort` does.
/// This differs from Rust's byte order only for characters above U+FFFF against characters
/// in U+E000..=U+FFFF.
pub fn sort_like_javascript(files: &mut [String]) {
    files.sort_by(|a, b| compare_utf16(a, b));
}

fn compare_utf16(a: &str, b: &str) -> Ordering {
    a.encode_utf16().cmp(b.encode_utf16())
}

/// The text appended to a summary listing the files: a `<read-files>` section and a
/// `<modified-files>` section, one path per line, each left out when its list is empty, and
/// the whole appendix empty when both are. Sections are separated from the summary and from
/// each other by a blank line.
pub fn file_lists_appendix(read: &[String], modified: &[String]) -> String {
    let mut sections = Vec::new();
    if !read.is_empty() {
        sections.push(format!("<read-files>\n{}\n</read-files>", read.join("\n")));
    }
    if !modified.is_empty() {
        sections.push(format!("<modified-files>\n{}\n</modified-files>", modified.join("\n")));
    }
    if sections.is_empty() { String::new() } else { format!("\n\n{}", sections.join("\n\n")) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    fn assistant(calls: Value) -> AgentMessage {
        serde_json::from_value(json!({"role": "assistant", "content": calls})).unwrap()
    }

    fn strings(items: &[&str]) -> Vec<String> {
        items.iter().map(|s| (*s).to_owned()).collect()
    }

    #[test]
    fn tool_calls_are_sorted_into_read_and_modified() {
        let mut ops = FileOperations::new();
        ops.extract_from_message(&assistant(json!([
            {"type": "text", "text": "looking"},
            {"type": "toolCall", "id": "1", "name": "read", "arguments": {"path": "src/b.rs"}},
            {"type": "toolCall", "id": "2", "name": "read", "arguments": {"path": "src/a.rs"}},
            {"type": "toolCall", "id": "3", "name": "edit", "arguments": {"path": "src/b.rs", "oldText": "x"}},
            {"type": "toolCall", "id": "4", "name": "write", "arguments": {"path": "NEW.md"}},
            {"type": "toolCall", "id": "5", "name": "bash", "arguments": {"path": "ignored"}},
            {"type": "toolCall", "id": "6", "name": "read", "arguments": {"file_path": "other-name"}},
            {"type": "toolCall", "id": "7", "name": "read", "arguments": {"path": ""}},
            {"type": "toolCall", "id": "8", "name": "read", "arguments": {"path": 7}},
        ])));
        assert_eq!(ops.read_only(), strings(&["src/a.rs"]));
        assert_eq!(ops.modified(), strings(&["NEW.md", "src/b.rs"]));
    }

    #[test]
    fn only_assistant_messages_count() {
        let mut ops = FileOperations::new();
        let user: AgentMessage = serde_json::from_value(json!({"role": "user", "content": [
            {"type": "toolCall", "id": "1", "name": "read", "arguments": {"path": "a"}}
        ]}))
        .unwrap();
        ops.extract_from_message(&user);
        assert_eq!(ops, FileOperations::new());
    }

    #[test]
    fn details_lists_are_read_and_edited() {
        let mut ops = FileOperations::new();
        ops.add_details(&json!({"readFiles": ["r", 3, "m"], "modifiedFiles": ["m"]}));
        ops.add_details(&json!({"readFiles": "not a list"}));
        assert_eq!(ops.read_only(), strings(&["r"]));
        assert_eq!(ops.modified(), strings(&["m"]));
        assert!(ops.edited.contains("m"));
    }

    #[test]
    fn sorting_follows_utf16_code_units() {
        // U+1F600 is a surrogate pair (0xD83D…), which sorts before U+FF01 in UTF-16 but
        // after it in UTF-8.
        let mut files = strings(&["\u{FF01}", "\u{1F600}", "b", "B", "a"]);
        sort_like_javascript(&mut files);
        assert_eq!(files, strings(&["B", "a", "b", "\u{1F600}", "\u{FF01}"]));
    }

    #[test]
    fn appendix_leaves_out_empty_sections() {
        assert_eq!(file_lists_appendix(&[], &[]), "");
        assert_eq!(
            file_lists_appendix(&strings(&["a", "b"]), &[]),
            "\n\n<read-files>\na\nb\n</read-files>"
        );
        assert_eq!(
            file_lists_appendix(&[], &strings(&["m"])),
            "\n\n<modified-files>\nm\n</modified-files>"
        );
        assert_eq!(
            file_lists_appendix(&strings(&["a"]), &strings(&["m"])),
            "\n\n<read-files>\na\n</read-files>\n\n<modified-files>\nm\n</modified-files>"
        );
    }
}
