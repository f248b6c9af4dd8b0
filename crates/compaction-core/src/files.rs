//! Files an agent read and changed, gathered from tool calls and earlier summaries.
//!
//! Only tool calls named exactly `read`, `write` and `edit` with a string `path` argument
//! count (pi's rule). Invariant: a file that was written or edited is never listed as
//! read-only, and both lists are sorted by UTF-16 code units, as JavaScript sorts them.

use std::collections::BTreeSet;

use serde_json::Value;

use crate::message::AgentMessage;

/// Paths read, written and edited.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FileOperations {
    pub read: BTreeSet<String>,
    pub written: BTreeSet<String>,
    pub edited: BTreeSet<String>,
}

impl FileOperations {
    /// Adds the tool calls of an assistant message.
    pub fn add_message(&mut self, message: &AgentMessage) {
        let AgentMessage::Assistant(assistant) = message else { return };
        for call in assistant.tool_calls() {
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

    /// Adds the `details` {`readFiles`, `modifiedFiles`} of an earlier summary entry.
    pub fn add_details(&mut self, details: &Value) {
        let list = |key: &str| -> Vec<String> {
            details
                .get(key)
                .and_then(Value::as_array)
                .map(|items| items.iter().filter_map(Value::as_str).map(str::to_owned).collect())
                .unwrap_or_default()
        };
        self.read.extend(list("readFiles"));
        self.edited.extend(list("modifiedFiles"));
    }

    /// Written or edited files, sorted.
    pub fn modified(&self) -> Vec<String> {
        let mut files: Vec<String> = self.written.union(&self.edited).cloned().collect();
        sort_like_javascript(&mut files);
        files
    }

    /// Files read and never modified, sorted.
    pub fn read_only(&self) -> Vec<String> {
        let mut files: Vec<String> = self
            .read
            .iter()
            .filter(|path| !self.written.contains(*path) && !self.edited.contains(*path))
            .cloned()
            .collect();
        sort_like_javascript(&mut files);
        files
    }
}

/// Sorts strings by UTF-16 code units, as JavaScript's default `sort` does.
pub fn sort_like_javascript(items: &mut [String]) {
    items.sort_by(|a, b| a.encode_utf16().cmp(b.encode_utf16()));
}

/// The block appended to a summary listing the files (pi's format; empty lists omitted).
pub fn file_lists_appendix(read_files: &[String], modified_files: &[String]) -> String {
    let mut sections = Vec::new();
    if !read_files.is_empty() {
        sections.push(format!("<read-files>\n{}\n</read-files>", read_files.join("\n")));
    }
    if !modified_files.is_empty() {
        sections
            .push(format!("<modified-files>\n{}\n</modified-files>", modified_files.join("\n")));
    }
    if sections.is_empty() { String::new() } else { format!("\n\n{}", sections.join("\n\n")) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn read_write_edit_calls_and_details() {
        let message: AgentMessage = serde_json::from_value(json!({"role":"assistant","content":[
            {"type":"toolCall","id":"1","name":"read","arguments":{"path":"src/b.rs"}},
            {"type":"toolCall","id":"2","name":"read","arguments":{"path":"src/a.rs"}},
            {"type":"toolCall","id":"3","name":"edit","arguments":{"path":"src/a.rs"}},
            {"type":"toolCall","id":"4","name":"write","arguments":{"path":"new.rs"}},
            {"type":"toolCall","id":"5","name":"read","arguments":{"file_path":"ignored.rs"}},
            {"type":"toolCall","id":"6","name":"bash","arguments":{"path":"ignored-too"}}]}))
        .unwrap();
        let mut files = FileOperations::default();
        files.add_message(&message);
        files.add_details(&json!({"readFiles":["docs/x.md"],"modifiedFiles":["Cargo.toml"]}));
        assert_eq!(files.read_only(), ["docs/x.md", "src/b.rs"]);
        assert_eq!(files.modified(), ["Cargo.toml", "new.rs", "src/a.rs"]);
        assert_eq!(
            file_lists_appendix(&files.read_only(), &files.modified()),
            "\n\n<read-files>\ndocs/x.md\nsrc/b.rs\n</read-files>\n\n<modified-files>\nCargo.toml\nnew.rs\nsrc/a.rs\n</modified-files>"
        );
        assert_eq!(file_lists_appendix(&[], &[]), "");
    }

    #[test]
    fn other_roles_bad_arguments_and_bad_details_add_nothing() {
        let mut files = FileOperations::default();
        let user: AgentMessage = serde_json::from_value(json!({"role":"user","content":[
            {"type":"toolCall","id":"1","name":"read","arguments":{"path":"a"}}]}))
        .unwrap();
        files.add_message(&user);
        let assistant: AgentMessage = serde_json::from_value(json!({"role":"assistant","content":[
            {"type":"toolCall","id":"1","name":"read","arguments":{"path":""}},
            {"type":"toolCall","id":"2","name":"edit","arguments":{"path":7}},
            {"type":"toolCall","id":"3","name":"write","arguments":["path"]}]}))
        .unwrap();
        files.add_message(&assistant);
        files.add_details(&json!({"readFiles":"not a list","modifiedFiles":[3, null]}));
        assert_eq!(files, FileOperations::default());
    }

    #[test]
    fn appendix_with_one_list() {
        let read = ["r".to_owned()];
        assert_eq!(file_lists_appendix(&read, &[]), "\n\n<read-files>\nr\n</read-files>");
        assert_eq!(file_lists_appendix(&[], &read), "\n\n<modified-files>\nr\n</modified-files>");
    }

    #[test]
    fn javascript_sort_order_is_utf16() {
        let mut items = vec!["\u{1F600}".to_owned(), "\u{FF5E}".to_owned(), "a".to_owned()];
        sort_like_javascript(&mut items);
        // U+1F600 is the surrogate pair D83D DE00, which sorts before U+FF5E in UTF-16.
        assert_eq!(items, ["a", "\u{1F600}", "\u{FF5E}"]);
    }
}
