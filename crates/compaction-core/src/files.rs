//! Files an agent read and changed, gathered from tool calls and earlier summaries.
//!
//! Tool calls named exactly `read`, `write` and `edit` with a string `path` argument count
//! (pi's rule). Beyond pi, files moved or deleted by shell commands (`mv`, `git mv`, `rm`,
//! `git rm`, `unlink`, in a `bash` tool call or a user's `!` command) are followed: a moved
//! path is listed under its new name, a deleted one is no longer listed. Invariant: a file
//! that was written or edited is never listed as read-only, and both lists are sorted by
//! UTF-16 code units, as JavaScript sorts them.

use std::collections::BTreeSet;

use serde_json::Value;

use crate::message::AgentMessage;

/// Paths read, written and edited.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FileOperations {
    /// Paths given to `read`.
    pub read: BTreeSet<String>,
    /// Paths given to `write`.
    pub written: BTreeSet<String>,
    /// Paths given to `edit`.
    pub edited: BTreeSet<String>,
}

impl FileOperations {
    /// Adds the tool calls of an assistant message and the moves and deletions of shell
    /// commands (tool calls and the user's `!` commands).
    pub fn add_message(&mut self, message: &AgentMessage) {
        if let AgentMessage::BashExecution(bash) = message {
            for effect in shell_file_effects(&bash.command) {
                self.apply(&effect);
            }
            return;
        }
        let AgentMessage::Assistant(assistant) = message else { return };
        for call in assistant.tool_calls() {
            if call.name == "bash"
                && let Some(command) = call.arguments.get("command").and_then(Value::as_str)
            {
                for effect in shell_file_effects(command) {
                    self.apply(&effect);
                }
                continue;
            }
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

    /// Applies a move or deletion to the lists: a moved path (or a path under a moved
    /// directory) takes its new name; a deleted one leaves every list. A move of a path not
    /// seen before lists the new path as modified.
    pub fn apply(&mut self, effect: &FileEffect) {
        match effect {
            FileEffect::Moved { from, to } => {
                let mut known = false;
                for set in [&mut self.read, &mut self.written, &mut self.edited] {
                    let moved: Vec<String> =
                        set.iter().filter(|path| is_under(path, from)).cloned().collect();
                    for path in moved {
                        set.remove(&path);
                        set.insert(format!("{to}{}", &path[from.len()..]));
                        known = true;
                    }
                }
                if !known {
                    self.edited.insert(to.clone());
                }
            }
            FileEffect::Deleted { path: deleted } => {
                for set in [&mut self.read, &mut self.written, &mut self.edited] {
                    set.retain(|path| !is_under(path, deleted));
                }
            }
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

/// A change to the file tree made by a shell command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FileEffect {
    /// `mv from to`, `git mv from to` (a file or a directory).
    Moved {
        /// The old path.
        from: String,
        /// The new path.
        to: String,
    },
    /// `rm path`, `git rm path`, `unlink path` (a file or a directory).
    Deleted {
        /// The removed path.
        path: String,
    },
}

/// Whether `path` is `base` or lies under the directory `base`.
fn is_under(path: &str, base: &str) -> bool {
    path == base
        || path.strip_prefix(base).is_some_and(|rest| rest.starts_with('/')) && !base.is_empty()
}

/// The moves and deletions a shell command line makes, in order. Reads simple commands
/// joined by `&&`, `||`, `;`, `|` or newlines; arguments with globs, variables or command
/// substitutions are skipped, since their paths are not known.
pub fn shell_file_effects(command: &str) -> Vec<FileEffect> {
    let mut effects = Vec::new();
    for segment in command.split(['\n', ';', '|', '&']) {
        let words: Vec<String> = shell_words(segment);
        let mut words: Vec<&str> = words.iter().map(String::as_str).collect();
        if words.first() == Some(&"sudo") {
            words.remove(0);
        }
        if words.first() == Some(&"git") {
            words.remove(0);
            if !matches!(words.first(), Some(&"mv") | Some(&"rm")) {
                continue;
            }
        }
        let Some((&program, rest)) = words.split_first() else { continue };
        let mut only_paths = false;
        let arguments: Vec<&str> = rest
            .iter()
            .copied()
            .filter(|word| {
                if *word == "--" {
                    only_paths = true;
                    return false;
                }
                only_paths || !word.starts_with('-')
            })
            .collect();
        if arguments.iter().any(|word| word.contains(['*', '?', '$', '`', '(', '{', '>', '<'])) {
            continue;
        }
        let clean = |word: &str| word.trim_end_matches('/').trim_start_matches("./").to_owned();
        match program {
            "mv" if arguments.len() == 2 => effects
                .push(FileEffect::Moved { from: clean(arguments[0]), to: clean(arguments[1]) }),
            "rm" | "unlink" => effects
                .extend(arguments.iter().map(|path| FileEffect::Deleted { path: clean(path) })),
            _ => {}
        }
    }
    effects
}

/// Splits a simple command into words, honouring single and double quotes.
fn shell_words(segment: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut current = String::new();
    let mut quote: Option<char> = None;
    let mut in_word = false;
    for c in segment.chars() {
        match (quote, c) {
            (Some(open), c) if c == open => quote = None,
            (Some(_), c) => current.push(c),
            (None, '\'' | '"') => {
                quote = Some(c);
                in_word = true;
            }
            (None, c) if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut current));
                    in_word = false;
                }
            }
            (None, c) => {
                current.push(c);
                in_word = true;
            }
        }
    }
    if in_word {
        words.push(current);
    }
    words
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
    fn files_moved_or_deleted_through_bash_are_listed_under_their_new_names_or_not_at_all() {
        let message: AgentMessage = serde_json::from_value(json!({"role":"assistant","content":[
            {"type":"toolCall","id":"1","name":"edit","arguments":{"path":"src/export/palette.ts"}},
            {"type":"toolCall","id":"2","name":"edit","arguments":{"path":"ledger/importers/csv.py"}},
            {"type":"toolCall","id":"3","name":"read","arguments":{"path":"src/legacy/old.ts"}},
            {"type":"toolCall","id":"4","name":"edit","arguments":{"path":"scripts/gone.py"}},
            {"type":"toolCall","id":"5","name":"bash","arguments":{"command":"git mv src/export/palette.ts src/export/paletteExport.ts && npm test"}},
            {"type":"toolCall","id":"6","name":"bash","arguments":{"command":"git mv ledger/importers/ ledger/io"}},
            {"type":"toolCall","id":"7","name":"bash","arguments":{"command":"rm -f src/legacy/old.ts; git rm -q scripts/gone.py"}},
            {"type":"toolCall","id":"8","name":"bash","arguments":{"command":"mv 'a b.txt' notes/c.txt"}},
            {"type":"toolCall","id":"9","name":"bash","arguments":{"command":"rm -rf build/*"}}]}))
        .unwrap();
        let mut files = FileOperations::default();
        files.add_message(&message);
        assert_eq!(
            files.modified(),
            ["ledger/io/csv.py", "notes/c.txt", "src/export/paletteExport.ts"]
        );
        assert!(files.read_only().is_empty(), "{:?}", files.read_only());
        assert_eq!(shell_file_effects("grep -rn mv src | head; echo rm"), Vec::<FileEffect>::new());
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
