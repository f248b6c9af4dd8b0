//! Files an agent read and changed, gathered from tool calls and earlier summaries.
//!
//! Tool calls named exactly `read`, `write` and `edit` with a string `path` argument count
//! (pi's rule). Beyond pi, files moved, deleted or written by shell commands (`mv`, `git mv`,
//! `rm`, `git rm`, `unlink`; `sed -i`, `perl -i`, `tee`, `cp`, output redirected with `>`;
//! in a `bash` tool call or a user's `!` command), and patches in Codex's `apply_patch`
//! format (an `apply_patch` call, or a patch inside a shell command) are followed: a moved path is listed under
//! its new name, a deleted one is no longer listed, a written one is modified. Invariant: a file
//! that was written or edited is never listed as read-only, and both lists are sorted by
//! UTF-16 code units, as JavaScript sorts them.
//!
//! A path is kept as the session records it here; what a compaction or a branch summary
//! stores, appends after its summary and reports is [`FileOperations::redacted`]: a path
//! holding a secret (a token as a folder name, `password=…`, a URL's `user:password@`)
//! leaves with the secret replaced, as every other text does.

mod patch;
mod shell;
mod windows;

use std::collections::BTreeSet;

use serde_json::Value;

use crate::message::AgentMessage;
use crate::redact::Redactor;

pub use patch::patch_file_effects;
pub use shell::shell_file_effects;
pub(crate) use shell::{command_flag_at, shell_segments};

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
        self.add_message_except(message, &BTreeSet::new());
    }

    /// Adds `messages` like [`FileOperations::add_message`], leaving out the calls that never
    /// got a result among them: a call the user interrupted before it ran changed nothing.
    /// (Beyond pi, which counts every call.) A cut never separates a call from its result,
    /// so within one region a call without a result did not run.
    pub fn add_messages<'a>(
        &mut self,
        messages: impl IntoIterator<Item = &'a AgentMessage> + Clone,
    ) {
        self.add_messages_answered(messages, BTreeSet::new());
    }

    /// [`FileOperations::add_messages`] where the calls in `answered` also got a result that
    /// is not among `messages` (a result a `context_edit` left out of the context: the call
    /// ran).
    pub fn add_messages_answered<'a>(
        &mut self,
        messages: impl IntoIterator<Item = &'a AgentMessage> + Clone,
        mut answered: BTreeSet<String>,
    ) {
        let mut called = BTreeSet::new();
        for message in messages.clone() {
            match message {
                AgentMessage::Assistant(assistant) => {
                    called.extend(assistant.tool_calls().map(|call| call.id.clone()));
                }
                AgentMessage::ToolResult(result) => {
                    answered.insert(result.tool_call_id.clone());
                }
                AgentMessage::User(_)
                | AgentMessage::BashExecution(_)
                | AgentMessage::Custom(_)
                | AgentMessage::BranchSummary(_)
                | AgentMessage::CompactionSummary(_)
                | AgentMessage::System(_)
                | AgentMessage::Other(_) => {}
            }
        }
        let never_ran: BTreeSet<String> = called.difference(&answered).cloned().collect();
        for message in messages {
            self.add_message_except(message, &never_ran);
        }
    }

    fn add_message_except(&mut self, message: &AgentMessage, never_ran: &BTreeSet<String>) {
        if let AgentMessage::BashExecution(bash) = message {
            for effect in shell_file_effects(&bash.command) {
                self.apply(&effect);
            }
            return;
        }
        let AgentMessage::Assistant(assistant) = message else { return };
        for call in assistant.tool_calls().filter(|call| !never_ran.contains(&call.id)) {
            if call.name == "bash"
                && let Some(command) = call.arguments.get("command").and_then(Value::as_str)
            {
                for effect in shell_file_effects(command).iter().chain(&patch_file_effects(command))
                {
                    self.apply(effect);
                }
                continue;
            }
            if call.name == "apply_patch" {
                let patch = ["input", "patch"]
                    .iter()
                    .find_map(|key| call.arguments.get(*key).and_then(Value::as_str));
                for effect in patch.map(patch_file_effects).unwrap_or_default() {
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
            FileEffect::Written { path } => {
                self.edited.insert(path.clone());
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

    /// These operations with every path through `redactor`, as the lists leave: stored in
    /// an entry's `details`, appended after its summary, checked by the quality gate,
    /// printed. Two paths that redact alike become one; a path read under one name and
    /// modified under another that redacts alike is modified.
    pub fn redacted(&self, redactor: &Redactor) -> FileOperations {
        let redact = |set: &BTreeSet<String>| -> BTreeSet<String> {
            set.iter().map(|path| redactor.redact(path).into_owned()).collect()
        };
        FileOperations {
            read: redact(&self.read),
            written: redact(&self.written),
            edited: redact(&self.edited),
        }
    }

    /// The lists `read_only` and `modified` (as an entry stores them) with every path
    /// through `redactor`: see [`FileOperations::redacted`].
    pub fn redacted_lists(
        read_only: &[String],
        modified: &[String],
        redactor: &Redactor,
    ) -> (Vec<String>, Vec<String>) {
        let operations = FileOperations {
            read: read_only.iter().cloned().collect(),
            written: BTreeSet::new(),
            edited: modified.iter().cloned().collect(),
        }
        .redacted(redactor);
        (operations.read_only(), operations.modified())
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
    /// `sed -i … path`, `perl -pi -e … path`, `tee path`, `cp from path`, `… > path`: the
    /// file's content was written by the command.
    Written {
        /// The written path.
        path: String,
    },
}

/// Whether `path` is `base` or lies under the directory `base`.
fn is_under(path: &str, base: &str) -> bool {
    path == base
        || path.strip_prefix(base).is_some_and(|rest| rest.starts_with('/')) && !base.is_empty()
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
mod tests;
