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

mod windows;
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

/// The files a patch in Codex's `apply_patch` format adds, updates, moves and deletes, in
/// order: `*** Add File: P` and `*** Update File: P` write P, a `*** Move to: Q` after an
/// update moves P to Q, `*** Delete File: P` deletes P. The patch may be the whole argument
/// of an `apply_patch` call or sit inside a shell command (`apply_patch <<'EOF' …`).
pub fn patch_file_effects(patch: &str) -> Vec<FileEffect> {
    let mut effects = Vec::new();
    if !patch.contains("*** Begin Patch") {
        return effects;
    }
    let mut updated: Option<String> = None;
    for line in patch.lines() {
        let line = line.trim_end_matches('\r');
        let header =
            |prefix: &str| line.strip_prefix(prefix).map(str::trim).filter(|path| !path.is_empty());
        if let Some(path) = header("*** Add File:") {
            effects.push(FileEffect::Written { path: path.to_owned() });
            updated = None;
        } else if let Some(path) = header("*** Update File:") {
            effects.push(FileEffect::Written { path: path.to_owned() });
            updated = Some(path.to_owned());
        } else if let Some(path) = header("*** Delete File:") {
            effects.push(FileEffect::Deleted { path: path.to_owned() });
            updated = None;
        } else if let Some(to) = header("*** Move to:") {
            if let Some(from) = updated.take() {
                effects.push(FileEffect::Moved { from, to: to.to_owned() });
            }
        } else if line.starts_with("*** ") {
            updated = None;
        }
    }
    effects
}

/// Whether `path` is `base` or lies under the directory `base`.
fn is_under(path: &str, base: &str) -> bool {
    path == base
        || path.strip_prefix(base).is_some_and(|rest| rest.starts_with('/')) && !base.is_empty()
}

/// The moves, deletions and writes a shell command line makes, in order. Reads simple
/// commands joined by `&&`, `||`, `;`, `|` or newlines; the bodies of here-documents are
/// text, not commands; arguments with globs, variables or command substitutions are
/// skipped, since their paths are not known, and so are writes to `/dev` and `/tmp`.
/// `mv` of several sources (or `-t DIR`) moves each into the directory; PowerShell's and
/// cmd.exe's moves, renames and deletions count too (see `windows`).
pub fn shell_file_effects(command: &str) -> Vec<FileEffect> {
    let mut effects = Vec::new();
    let command = without_heredoc_bodies(command);
    // The directory a `cd DIR` earlier on the line moved to: relative paths after it are
    // joined to it. After a `cd` to a place not known (`cd $DIR`, `cd -`), relative paths are
    // not known either and are skipped.
    let mut directory = Directory::Start;
    for segment in shell_segments(&command) {
        let (words, targets) = split_redirects(shell_words(segment));
        if let [cd, rest @ ..] = words.as_slice()
            && cd == "cd"
        {
            directory = match rest {
                [target] if known_path(target) && !target.starts_with('~') && target != "-" => {
                    match directory.join(target) {
                        Some(path) => Directory::At(path),
                        None => Directory::Unknown,
                    }
                }
                [..] => Directory::Unknown,
            };
            continue;
        }
        let resolve = |path: &str| directory.join(path).map(|joined| clean_path(&joined));
        effects.extend(
            targets
                .iter()
                .filter(|target| writable(target))
                .filter_map(|target| resolve(target))
                .map(|path| FileEffect::Written { path }),
        );
        let mut words: Vec<&str> =
            words.iter().map(String::as_str).filter(|word| !word.is_empty()).collect();
        if words.first() == Some(&"sudo") {
            words.remove(0);
        }
        if words.first() == Some(&"git") {
            words.remove(0);
            if !matches!(words.first(), Some(&"mv") | Some(&"rm")) {
                continue;
            }
        }
        if let Some(found) = windows::windows_effects(&words, &resolve) {
            effects.extend(found);
            continue;
        }
        let Some((&program, rest)) = words.split_first() else { continue };
        // `mv -t DIR SOURCE…` (`--target-directory=DIR`) names the directory first.
        let target_directory = rest.iter().enumerate().find_map(|(at, word)| match *word {
            "-t" => rest.get(at + 1).copied(),
            _ => word.strip_prefix("--target-directory="),
        });
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
            .filter(|word| Some(*word) != target_directory)
            .collect();
        match program {
            "mv" | "rm" | "unlink" | "cp" | "tee"
                if arguments.iter().any(|word| !known_path(word)) => {}
            // Several sources (or `-t`): each goes into the directory, keeping its name.
            "mv" if arguments.len() > 2
                || (target_directory.is_some() && !arguments.is_empty()) =>
            {
                let (sources, directory) = match target_directory {
                    Some(directory) => (arguments.as_slice(), directory),
                    None => (&arguments[..arguments.len() - 1], arguments[arguments.len() - 1]),
                };
                if !known_path(directory) {
                    continue;
                }
                let directory = format!("{}/", directory.trim_end_matches('/'));
                for source in sources {
                    let (Some(from), Some(to)) =
                        (resolve(source), target_of(&[source, &directory], &resolve))
                    else {
                        continue;
                    };
                    effects.push(FileEffect::Moved { from, to });
                }
            }
            "mv" | "cp" if arguments.len() == 2 => {
                let (Some(from), Some(to)) =
                    (resolve(arguments[0]), target_of(&arguments, &resolve))
                else {
                    continue;
                };
                if program == "mv" {
                    effects.push(FileEffect::Moved { from, to });
                } else if writable(&to) {
                    effects.push(FileEffect::Written { path: to });
                }
            }
            "rm" | "unlink" => effects.extend(
                arguments
                    .iter()
                    .filter_map(|path| resolve(path))
                    .map(|path| FileEffect::Deleted { path }),
            ),
            "tee" => effects.extend(
                arguments
                    .iter()
                    .filter(|path| writable(path))
                    .filter_map(|path| resolve(path))
                    .map(|path| FileEffect::Written { path }),
            ),
            "sed" | "perl" => effects.extend(
                edited_in_place(program, rest)
                    .into_iter()
                    .filter_map(resolve)
                    .map(|path| FileEffect::Written { path }),
            ),
            _ => {}
        }
    }
    effects
}

/// Where relative paths of a command line are.
enum Directory {
    /// Where the command started: relative paths stay relative.
    Start,
    /// After `cd DIR`.
    At(String),
    /// After a `cd` whose target is not known.
    Unknown,
}

impl Directory {
    /// `path` as seen from here: absolute paths as they are, relative ones joined (with `.`
    /// and `..` folded); `None` when the directory is not known.
    fn join(&self, path: &str) -> Option<String> {
        if path.starts_with('/') || path.starts_with('~') {
            return Some(path.to_owned());
        }
        let base = match self {
            Directory::Start => return Some(path.to_owned()),
            Directory::At(base) => base,
            Directory::Unknown => return None,
        };
        let mut parts: Vec<&str> = base.split('/').collect();
        for part in path.split('/') {
            match part {
                "" | "." => {}
                ".." if parts.last().is_some_and(|last| !last.is_empty() && *last != "..") => {
                    parts.pop();
                }
                _ => parts.push(part),
            }
        }
        let joined = parts.join("/");
        Some(if joined.is_empty() { ".".to_owned() } else { joined })
    }
}

/// The path a `mv` or `cp` of two operands writes: into a directory named as one (`.`,
/// `..`, a trailing `/`) the source keeps its name.
fn target_of(arguments: &[&str], resolve: &dyn Fn(&str) -> Option<String>) -> Option<String> {
    let (from, to) = (arguments[0], arguments[1]);
    let into_directory = to.ends_with('/') || matches!(to, "." | ".." | "./" | "../");
    if !into_directory {
        return resolve(to);
    }
    let name = from.trim_end_matches('/').rsplit('/').next().filter(|name| !name.is_empty())?;
    let directory = resolve(to.trim_end_matches('/'))?;
    Some(clean_path(&match directory.as_str() {
        "" | "." => name.to_owned(),
        _ => format!("{directory}/{name}"),
    }))
}

/// Whether a word names a path as written: no glob, variable, substitution or redirection.
fn known_path(word: &str) -> bool {
    // A path names something: not a lone number or punctuation (`15`, `\\`, `5:`), not a word
    // of the shell left by a line continuation (`echo`).
    let here = word.chars().all(|c| c == '.' || c == '/');
    let named = (here || word.chars().any(|c| c.is_alphabetic()))
        && !word.ends_with([':', '\\'])
        && !matches!(word, "echo" | "printf" | "cat" | "grep" | "true" | "false");
    named && !word.contains(['*', '?', '$', '`', '(', '{', '>', '<'])
}

/// The simple commands of a command line: the parts between `&&`, `||`, `;`, `|`, `&` and
/// line ends that are outside quotes (a `|` inside `grep "a\\|b"` or `awk '$1 > 2'` is text).
pub(crate) fn shell_segments(command: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut quote: Option<char> = None;
    let mut escaped = false;
    let mut start = 0;
    for (at, c) in command.char_indices() {
        if escaped {
            escaped = false;
            continue;
        }
        match (quote, c) {
            (Some('\''), '\'') => quote = None,
            (Some('\''), _) => {}
            (_, '\\') => escaped = true,
            (Some(open), c) if c == open => quote = None,
            (Some(_), _) => {}
            (None, '\'' | '"') => quote = Some(c),
            (None, '\n' | ';' | '|' | '&') => {
                out.push(&command[start..at]);
                start = at + c.len_utf8();
            }
            (None, _) => {}
        }
    }
    out.push(&command[start..]);
    out.retain(|segment| !segment.trim().is_empty());
    out
}

/// Whether a written path is worth following: a known path outside `/dev` and `/tmp`.
fn writable(path: &str) -> bool {
    known_path(path) && !path.starts_with("/dev/") && !path.starts_with("/tmp/")
}

fn clean_path(word: &str) -> String {
    word.trim_end_matches('/').trim_start_matches("./").to_owned()
}

/// The files a `sed` or `perl` command edits in place (`-i`, `-i.bak`, `--in-place`,
/// `-pi`): the operands after the script, which is the first operand unless `-e` or `-f`
/// gave it.
fn edited_in_place<'a>(program: &str, arguments: &[&'a str]) -> Vec<&'a str> {
    let mut in_place = false;
    let mut script_given = false;
    let mut operands = Vec::new();
    let mut words = arguments.iter().copied();
    while let Some(word) = words.next() {
        if word == "--in-place" || word.starts_with("--in-place=") {
            in_place = true;
        } else if matches!(word, "-e" | "-f" | "--expression" | "--file") {
            script_given = true;
            words.next();
        } else if word.starts_with("--expression=") || word.starts_with("--file=") {
            script_given = true;
        } else if let Some(flags) = word.strip_prefix('-').filter(|flags| !flags.is_empty()) {
            // `sed -i.bak` takes a suffix; perl's `-pi -e`, `-pie` cluster single letters.
            let letters: &str = match program {
                "sed" => flags.split('.').next().unwrap_or(flags),
                _ => flags,
            };
            if program == "sed" && flags.starts_with('i') || letters.contains('i') {
                in_place = true;
            }
            if program == "perl" && letters.ends_with('e') {
                script_given = true;
                words.next();
            }
        } else if !word.is_empty() {
            operands.push(word);
        }
    }
    if !in_place {
        return Vec::new();
    }
    let files = if script_given { &operands[..] } else { operands.get(1..).unwrap_or_default() };
    files.iter().copied().filter(|path| writable(path)).collect()
}

/// Separates a simple command's words from the files its standard output is redirected to
/// (`> path`, `>>path`, `1> path`, `>| path`). Other redirections and their operands
/// (`2> log`, `2>&1`, `< input`, `<<EOF`) are dropped.
fn split_redirects(words: Vec<String>) -> (Vec<String>, Vec<String>) {
    let mut kept = Vec::new();
    let mut targets = Vec::new();
    let mut words = words.into_iter();
    while let Some(word) = words.next() {
        let digits = word.chars().take_while(char::is_ascii_digit).count();
        let (descriptor, operator) = word.split_at(digits);
        if operator.starts_with('<') {
            let operand_follows = matches!(operator, "<" | "<<" | "<<-" | "<<<");
            if operand_follows {
                words.next();
            }
            continue;
        }
        let Some(rest) = operator.strip_prefix(">>").or_else(|| operator.strip_prefix('>')) else {
            kept.push(word);
            continue;
        };
        let rest = rest.strip_prefix('|').unwrap_or(rest);
        if rest.starts_with('&') {
            continue;
        }
        let target = if rest.is_empty() { words.next() } else { Some(rest.to_owned()) };
        if let Some(target) = target
            && matches!(descriptor, "" | "1")
        {
            targets.push(target);
        }
    }
    (kept, targets)
}

/// The command line without the bodies of its here-documents (`<<EOF` … `EOF`).
fn without_heredoc_bodies(command: &str) -> String {
    let mut out = String::with_capacity(command.len());
    let mut delimiters: Vec<String> = Vec::new();
    for line in command.lines() {
        if let Some(delimiter) = delimiters.first() {
            if line.trim() == delimiter {
                delimiters.remove(0);
            }
            continue;
        }
        let mut rest = line;
        while let Some(at) = rest.find("<<") {
            let after = &rest[at + 2..];
            if let Some(here_string) = after.strip_prefix('<') {
                rest = here_string;
                continue;
            }
            let after = after.trim_start_matches('-').trim_start();
            let after = after.trim_start_matches(['\'', '"', '\\']);
            let delimiter: String = after
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == '-')
                .collect();
            if !delimiter.is_empty() {
                delimiters.push(delimiter);
            }
            rest = after;
        }
        out.push_str(line);
        out.push('\n');
    }
    out
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
    fn files_written_by_shell_commands_are_modified_and_heredoc_bodies_are_not_commands() {
        let written = |command: &str| -> Vec<String> {
            shell_file_effects(command)
                .into_iter()
                .map(|effect| match effect {
                    FileEffect::Written { path } => path,
                    FileEffect::Moved { from, to } => format!("moved {from} {to}"),
                    FileEffect::Deleted { path } => format!("deleted {path}"),
                })
                .collect()
        };
        assert_eq!(
            written("sed -i 's/from a import/from b import/' pipeline/run.py ./tests/test_a.py"),
            ["pipeline/run.py", "tests/test_a.py"]
        );
        assert_eq!(written("sed -i '' -e 's/a/b/' -e 's/c/d/' src/x.go"), ["src/x.go"]);
        assert_eq!(written("sed -i.bak 's/a/b/' conf.ini"), ["conf.ini"]);
        assert_eq!(written("sed -n '1,20p' src/x.go"), Vec::<String>::new());
        assert_eq!(
            written("perl -pi -e 's/foo/bar/g' lib/a.pm lib/b.pm"),
            ["lib/a.pm", "lib/b.pm"]
        );
        assert_eq!(written("echo 'node_modules' >> .gitignore"), [".gitignore"]);
        assert_eq!(written("npm test > /tmp/test.log 2>&1"), Vec::<String>::new());
        assert_eq!(written("go test ./... 2> errors.txt"), Vec::<String>::new());
        assert_eq!(written("printf 'x' | tee -a notes/todo.md >/dev/null"), ["notes/todo.md"]);
        assert_eq!(written("cp config.example.toml config.toml"), ["config.toml"]);
        assert_eq!(written("cp templates/base.html site/"), ["site/base.html"]);
        assert_eq!(written("rm build.log 2>/dev/null"), ["deleted build.log"]);
        let heredoc = "cat > src/setup.py << 'EOF'\nimport os\nrm -rf build\nmv a b\nEOF\npython src/setup.py";
        assert_eq!(written(heredoc), ["src/setup.py"]);
        assert_eq!(written("cat <<EOF > docs/a.md\nmv x y\nEOF"), ["docs/a.md"]);
        assert_eq!(written("grep -c x <<< \"$TEXT\""), Vec::<String>::new());

        let message: AgentMessage = serde_json::from_value(json!({"role":"assistant","content":[
            {"type":"toolCall","id":"1","name":"read","arguments":{"path":"pipeline/run.py"}},
            {"type":"toolCall","id":"2","name":"bash","arguments":{"command":"sed -i 's/a/b/' pipeline/run.py"}}]}))
        .unwrap();
        let mut files = FileOperations::default();
        files.add_message(&message);
        assert_eq!(files.modified(), ["pipeline/run.py"]);
        assert!(files.read_only().is_empty());
    }

    #[test]
    fn apply_patch_adds_updates_moves_and_deletes_are_file_operations() {
        let patch = "*** Begin Patch\n*** Add File: web/src/money.ts\n+export {}\n\
                     *** Update File: web/src/cart.ts\n@@\n-a\n+b\n\
                     *** Update File: src/old.rs\n*** Move to: src/new.rs\n@@\n-x\n+y\n\
                     *** Delete File: notes.txt\n*** End Patch";
        let message: AgentMessage = serde_json::from_value(json!({"role":"assistant","content":[
            {"type":"toolCall","id":"1","name":"read","arguments":{"path":"notes.txt"}},
            {"type":"toolCall","id":"2","name":"apply_patch","arguments":{"input":patch}},
            {"type":"toolCall","id":"3","name":"bash","arguments":{"command":
                "apply_patch <<'EOF'\n*** Begin Patch\n*** Add File: docs/a.md\n+x\n*** End Patch\nEOF"}},
            {"type":"toolCall","id":"4","name":"apply_patch","arguments":{"input":"no patch here"}}]}))
        .unwrap();
        let mut operations = FileOperations::default();
        operations.add_message(&message);
        assert_eq!(
            operations.modified(),
            ["docs/a.md", "src/new.rs", "web/src/cart.ts", "web/src/money.ts"]
        );
        assert!(operations.read_only().is_empty(), "the deleted file is listed nowhere");
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

    fn effects(command: &str) -> Vec<String> {
        shell_file_effects(command)
            .into_iter()
            .map(|effect| match effect {
                FileEffect::Written { path } => path,
                FileEffect::Moved { from, to } => format!("moved {from} {to}"),
                FileEffect::Deleted { path } => format!("deleted {path}"),
            })
            .collect()
    }

    #[test]
    fn a_cd_prefix_is_applied_to_the_relative_paths_after_it() {
        assert_eq!(
            effects("cd packages/app/src && mv utils/config.ts ."),
            ["moved packages/app/src/utils/config.ts packages/app/src/config.ts"]
        );
        assert_eq!(
            effects("cd web && rm -f dist/old.js; cd .. && rm b.txt"),
            ["deleted web/dist/old.js", "deleted b.txt"]
        );
        assert_eq!(effects("cd /srv/app\nsed -i 's/a/b/' conf.ini"), ["/srv/app/conf.ini"]);
    }

    #[test]
    fn after_a_cd_to_an_unknown_place_relative_paths_are_not_guessed() {
        assert_eq!(effects("cd $BUILD_DIR && rm out.o"), Vec::<String>::new());
        assert_eq!(effects("cd - && mv a.txt b.txt"), Vec::<String>::new());
        assert_eq!(effects("cd ~/proj && rm /srv/app/stale.log"), ["deleted /srv/app/stale.log"]);
    }

    #[test]
    fn a_move_into_a_directory_keeps_the_file_name_and_dot_is_never_a_file() {
        assert_eq!(effects("mv src/util.ts lib/"), ["moved src/util.ts lib/util.ts"]);
        assert_eq!(effects("mv utils/config.ts ."), ["moved utils/config.ts config.ts"]);
        assert_eq!(effects("git mv a/b.rs .."), ["moved a/b.rs ../b.rs"]);
        assert_eq!(effects("cp templates/base.html ./"), ["base.html"]);
    }
}
