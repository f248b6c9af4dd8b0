//! Restoring recently modified files after a compaction (the seed's `preserveRecentFiles`):
//! which files, how much of each, and the message that carries them. No I/O: the caller
//! reads the files and hands their text in.
//!
//! The candidates are the compaction entry's `details.modifiedFiles`, most recently
//! modified first (by the last `write`/`edit` tool call on the path that names them; files
//! never named by one, e.g. moved by a shell command, come last in their listed order).
//! Paths are checked lexically here ([`lexical_path_in`]); the caller also resolves symlinks.
//! Invariant: the restored text of a file never exceeds the per-file budget, all restored
//! text together never exceeds the total budget, and every file that is cut says so.

use serde::Serialize;
use serde_json::Value;

use crate::entry::EntryKind;
use crate::message::AgentMessage;
use crate::redact::{REDACTED, Redactor};
use crate::session::Session;
use crate::tokens::TokenEstimator;

/// `customType` of the `custom_message` entry holding restored files.
pub const RESTORED_FILES_CUSTOM_TYPE: &str = "compaction.restored-files";

/// A file to restore: the name the compaction lists it under (redacted, as every stored
/// path is: what is shown and written) and the name to read it under.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Candidate {
    /// The path as the compaction entry lists it.
    pub shown: String,
    /// The path to read: the one a `write` or `edit` call in the session gave (or the listed
    /// one, when the redaction left it as it was); `None` when the redaction changed the
    /// listed name and no call gives its original: a file at the redacted name
    /// (`keys/[REDACTED]/app.conf`) is another file, never read in its place.
    pub read: Option<String>,
}

/// The modified files of the compaction entry at `compaction` (an entry index), most
/// recently modified first, at most `limit`.
///
/// The entry lists each path as `redactor` stored it; a path is matched to the `write` or
/// `edit` calls on the session's path through the same redaction, and read under the name
/// the call gave: a file whose name holds a secret comes back under its own name, shown
/// redacted.
pub fn recent_modified_files(
    session: &Session,
    compaction: usize,
    limit: usize,
    redactor: &Redactor,
) -> Vec<Candidate> {
    let listed: Vec<String> = session.entries()[compaction]
        .kind
        .as_compaction()
        .and_then(|data| data.details.as_ref())
        .and_then(|details| details.get("modifiedFiles"))
        .and_then(Value::as_array)
        .map(|items| items.iter().filter_map(Value::as_str).map(str::to_owned).collect())
        .unwrap_or_default();
    let mut ordered: Vec<Candidate> = Vec::new();
    for &index in session.path(compaction).iter().rev() {
        let entry = &session.entries()[index];
        if !matches!(&entry.kind, EntryKind::Message { role } if role == "assistant") {
            continue;
        }
        let Some(Ok(AgentMessage::Assistant(message))) = entry.message() else { continue };
        for call in message.tool_calls().collect::<Vec<_>>().into_iter().rev() {
            if call.name != "write" && call.name != "edit" {
                continue;
            }
            let Some(path) = call.arguments.get("path").and_then(Value::as_str) else { continue };
            let shown = redactor.redact(path).into_owned();
            let read = Some(path.to_owned());
            if listed.contains(&shown) && !ordered.iter().any(|known| known.read == read) {
                ordered.push(Candidate { shown, read });
            }
        }
    }
    for path in listed {
        if !ordered.iter().any(|known| known.shown == path) {
            let read = (!path.contains(REDACTED)).then(|| path.clone());
            ordered.push(Candidate { shown: path, read });
        }
    }
    ordered.truncate(limit);
    ordered
}

/// Joins `path` to `cwd` and normalizes `.` and `..` without touching the filesystem;
/// `None` when the result is not inside `cwd` (an absolute path elsewhere, or `..`
/// climbing out). Both are `/`-separated.
pub fn lexical_path_in(cwd: &str, path: &str) -> Option<String> {
    let base = cwd.trim_end_matches('/');
    let joined = if path.starts_with('/') { path.to_owned() } else { format!("{base}/{path}") };
    let mut parts: Vec<&str> = Vec::new();
    for part in joined.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            other => parts.push(other),
        }
    }
    let normalized = format!("/{}", parts.join("/"));
    let inside = normalized == base
        || base.is_empty()
        || normalized.strip_prefix(base).is_some_and(|rest| rest.starts_with('/'));
    (inside && normalized != base && !(base.is_empty() && normalized == "/")).then_some(normalized)
}

/// Whether bytes read from a file are text to restore (valid UTF-8 without NUL bytes).
pub fn is_text(bytes: &[u8]) -> bool {
    !bytes.contains(&0) && std::str::from_utf8(bytes).is_ok()
}

/// One restored file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RestoredFile {
    /// The path as the session names it.
    pub path: String,
    /// The restored text (possibly cut).
    #[serde(skip)]
    pub text: String,
    /// Estimated tokens of `text`.
    pub tokens: u64,
    /// Whether the text was cut to fit a budget.
    pub truncated: bool,
}

/// The longest prefix of `text`, cut at a line end when there is one, whose estimate is at
/// most `budget` tokens.
pub fn cut_to_tokens(text: &str, budget: u64, estimator: &dyn TokenEstimator) -> String {
    if estimator.text_tokens(text) <= budget {
        return text.to_owned();
    }
    // Binary search over character boundaries.
    let bounds: Vec<usize> = text.char_indices().map(|(at, _)| at).chain([text.len()]).collect();
    let (mut low, mut high) = (0usize, bounds.len() - 1);
    while low < high {
        let middle = (low + high).div_ceil(2);
        if estimator.text_tokens(&text[..bounds[middle]]) <= budget {
            low = middle;
        } else {
            high = middle - 1;
        }
    }
    let prefix = &text[..bounds[low]];
    match prefix.rfind('\n') {
        Some(end) if end > 0 => prefix[..=end].to_owned(),
        Some(_) | None => prefix.to_owned(),
    }
}

/// Restores files in order within the budgets: each file's text is cut to `per_file`
/// tokens and to what is left of `total`; a file that would get nothing is left out.
pub fn fit_files(
    files: Vec<(String, String)>,
    per_file: u64,
    total: u64,
    estimator: &dyn TokenEstimator,
) -> Vec<RestoredFile> {
    let mut restored = Vec::new();
    let mut left = total;
    for (path, text) in files {
        let budget = per_file.min(left);
        if budget == 0 {
            break;
        }
        let cut = cut_to_tokens(&text, budget, estimator);
        if cut.is_empty() && !text.is_empty() {
            continue;
        }
        let tokens = estimator.text_tokens(&cut);
        left = left.saturating_sub(tokens);
        let truncated = cut.len() < text.len();
        restored.push(RestoredFile { path, text: cut, tokens, truncated });
    }
    restored
}

/// The text of the message that carries restored files.
pub fn restored_files_text(files: &[RestoredFile]) -> String {
    let mut text = String::from(
        "Current content of the files modified most recently before the conversation was \
         condensed, re-read from disk after the compaction:",
    );
    for file in files {
        let cut = if file.truncated { " truncated=\"true\"" } else { "" };
        text.push_str(&format!("\n\n<file path=\"{}\"{cut}>\n", file.path));
        text.push_str(&file.text);
        if !file.text.ends_with('\n') {
            text.push('\n');
        }
        if file.truncated {
            text.push_str("[… the rest of the file is left out to save context]\n");
        }
        text.push_str("</file>");
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::parse_session;
    use crate::tokens::estimator_by_name;
    use serde_json::json;

    #[test]
    fn lexical_paths_stay_inside_cwd() {
        assert_eq!(lexical_path_in("/p", "src/a.rs").as_deref(), Some("/p/src/a.rs"));
        assert_eq!(lexical_path_in("/p/", "./src/../b.rs").as_deref(), Some("/p/b.rs"));
        assert_eq!(lexical_path_in("/p", "/p/c.rs").as_deref(), Some("/p/c.rs"));
        assert_eq!(lexical_path_in("/p", "../q/secret"), None);
        assert_eq!(lexical_path_in("/p", "src/../../etc/passwd"), None);
        assert_eq!(lexical_path_in("/p", "/etc/passwd"), None);
        assert_eq!(lexical_path_in("/p", "/pq/x"), None);
        assert_eq!(lexical_path_in("/p", "."), None);
    }

    #[test]
    fn files_are_ordered_by_their_last_edit() {
        let mut text =
            json!({"type":"session","version":3,"id":"s","timestamp":"t","cwd":"/p"}).to_string();
        let call = |id: &str, parent: Option<&str>, name: &str, path: &str| json!({"type":"message","id":id,"parentId":parent,"timestamp":"t","message":{"role":"assistant","content":[{"type":"toolCall","id":id,"name":name,"arguments":{"path":path}}]}});
        for line in [
            call("a", None, "edit", "a.rs"),
            call("b", Some("a"), "write", "b.rs"),
            call("c", Some("b"), "read", "c.rs"),
            call("d", Some("c"), "edit", "a.rs"),
            json!({"type":"compaction","id":"k","parentId":"d","timestamp":"t","summary":"S","firstKeptEntryId":"d","tokensBefore":9,"details":{"modifiedFiles":["a.rs","b.rs","moved.rs"]}}),
        ] {
            text.push('\n');
            text.push_str(&line.to_string());
        }
        let session = parse_session(text.as_bytes());
        let k = session.index_of("k").unwrap();
        let shown = |limit| -> Vec<String> {
            recent_modified_files(&session, k, limit, &Redactor::default())
                .into_iter()
                .map(|candidate| candidate.shown)
                .collect()
        };
        assert_eq!(shown(5), ["a.rs", "b.rs", "moved.rs"]);
        assert_eq!(shown(1), ["a.rs"]);
    }

    #[test]
    fn a_path_the_redaction_changed_is_read_under_the_name_its_call_gave() {
        let token = "ghp_Q7fW2xLm9RtZ4vBn8KcY3hJd6PsT1gXa5NeU";
        let real = format!("keys/{token}/app.conf");
        let mut text =
            json!({"type":"session","version":3,"id":"s","timestamp":"t","cwd":"/p"}).to_string();
        let call = |id: &str, parent: Option<&str>, path: &str| json!({"type":"message","id":id,"parentId":parent,"timestamp":"t","message":{"role":"assistant","content":[{"type":"toolCall","id":id,"name":"write","arguments":{"path":path}}]}});
        for line in [
            call("a", None, &real),
            call("b", Some("a"), "b.rs"),
            json!({"type":"compaction","id":"k","parentId":"b","timestamp":"t","summary":"S","firstKeptEntryId":"b","tokensBefore":9,"details":{"modifiedFiles":["b.rs","keys/[REDACTED]/app.conf","moved/[REDACTED].txt"]}}),
        ] {
            text.push('\n');
            text.push_str(&line.to_string());
        }
        let session = parse_session(text.as_bytes());
        let k = session.index_of("k").unwrap();
        let candidates = recent_modified_files(&session, k, 5, &Redactor::default());
        let pairs: Vec<(&str, Option<&str>)> = candidates
            .iter()
            .map(|candidate| (candidate.shown.as_str(), candidate.read.as_deref()))
            .collect();
        assert_eq!(
            pairs,
            [
                ("b.rs", Some("b.rs")),
                ("keys/[REDACTED]/app.conf", Some(real.as_str())),
                // Moved by a shell command: no call gives the original; never read.
                ("moved/[REDACTED].txt", None),
            ]
        );
    }

    #[test]
    fn budgets_cut_each_file_and_the_total() {
        let estimator = estimator_by_name("pi").unwrap();
        let line = "fn f() {}\n"; // 10 chars: 3 tokens with pi's rule
        let big = line.repeat(100);
        let files = vec![
            ("a.rs".to_owned(), big.clone()),
            ("b.rs".to_owned(), "short\n".to_owned()),
            ("c.rs".to_owned(), big.clone()),
        ];
        let restored = fit_files(files, 50, 80, estimator.as_ref());
        assert_eq!(restored.len(), 3);
        assert!(restored[0].truncated && restored[0].tokens <= 50);
        assert!(restored[0].text.ends_with('\n'));
        assert!(!restored[1].truncated);
        let total: u64 = restored.iter().map(|f| f.tokens).sum();
        assert!(total <= 80, "{total}");
        assert!(restored[2].truncated);
        let text = restored_files_text(&restored);
        assert!(text.contains("<file path=\"a.rs\" truncated=\"true\">\nfn f() {}\n"));
        assert!(text.contains("<file path=\"b.rs\">\nshort\n</file>"));
    }

    #[test]
    fn binary_is_not_text() {
        assert!(is_text(b"plain\n"));
        assert!(!is_text(b"\x89PNG\r\n\x1a\n\0\0"));
        assert!(!is_text(&[0xff, 0xfe, 0x41]));
    }
}
