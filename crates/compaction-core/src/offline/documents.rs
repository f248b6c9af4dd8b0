//! Documents the work wrote: the prose a call put into a plan, a README, a design note.
//!
//! A document the assistant writes is its own statement, as much as its replies are: a plan
//! file names the files it will change and why, a README says how the project is run, a
//! troubleshooting note says what fixed what. "Wrote `plan.md`" tells a resuming agent none
//! of that. So the text a successful call put into a document (a whole write, the new text
//! of an edit, the lines a patch adds) is read like the assistant's prose: its fact-bearing
//! sentences become notes of the turn, under the document's name.
//!
//! Invariant: only documents are read (Markdown, plain text and the other prose formats,
//! by extension); code files keep their short "lines added" on the Done item instead; lines
//! inside fenced code blocks are not prose and are skipped.

use serde_json::Value;

/// Extensions of files written as prose.
const PROSE_EXTENSIONS: [&str; 8] = ["md", "markdown", "mdx", "txt", "rst", "adoc", "org", "text"];

/// Whether `path` names a prose document.
pub(super) fn is_document(path: &str) -> bool {
    let name = path.rsplit(['/', '\\']).next().unwrap_or(path);
    name.rsplit_once('.').is_some_and(|(stem, extension)| {
        !stem.is_empty()
            && PROSE_EXTENSIONS.iter().any(|known| extension.eq_ignore_ascii_case(known))
    })
}

/// The prose a call puts into documents, by path: the content of a write, the new text of
/// an edit (each pair of an `edits` list, see `changes::edit_pairs`), the lines a patch in Codex's `apply_patch` format
/// adds to a document (in its `input`/`patch` argument or in a shell command).
pub(super) fn written_prose(arguments: &Value, path: Option<&str>) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    if let Some(path) = path.filter(|path| is_document(path)) {
        let whole =
            ["content", "file_text", "text"].iter().find_map(|key| arguments.get(*key)?.as_str());
        let edits = super::changes::edit_pairs(arguments).into_iter().map(|(_, new)| new);
        let prose: Vec<&str> = whole.into_iter().chain(edits).collect();
        if !prose.is_empty() {
            out.push((path.to_owned(), prose.join("\n")));
        }
    }
    for key in ["input", "patch", "command", "cmd"] {
        if let Some(patch) = arguments.get(key).and_then(Value::as_str) {
            out.extend(patch_prose(patch));
        }
    }
    out
}

/// The lines a patch in Codex's `apply_patch` format adds to each document it adds or
/// updates, without their `+`.
fn patch_prose(patch: &str) -> Vec<(String, String)> {
    if !patch.contains("*** Begin Patch") {
        return Vec::new();
    }
    let mut out: Vec<(String, String)> = Vec::new();
    let mut current: Option<usize> = None;
    for line in patch.lines() {
        let line = line.trim_end_matches('\r');
        let header = ["*** Add File:", "*** Update File:"]
            .iter()
            .find_map(|prefix| line.strip_prefix(prefix))
            .map(str::trim)
            .filter(|path| !path.is_empty());
        if let Some(path) = header {
            current = is_document(path).then(|| {
                out.push((path.to_owned(), String::new()));
                out.len() - 1
            });
        } else if line.starts_with("*** ") {
            current = None;
        } else if let (Some(at), Some(added)) = (current, line.strip_prefix('+')) {
            out[at].1.push_str(added);
            out[at].1.push('\n');
        }
    }
    out.retain(|(_, text)| !text.trim().is_empty());
    out
}

/// The prose lines of a document's text: outside fenced code blocks, with their Markdown
/// markers (headings, bullets, numbers, quotes, emphasis of a whole label) taken off.
pub(super) fn prose_lines(text: &str) -> impl Iterator<Item = &str> {
    let mut fenced = false;
    text.lines().filter_map(move |line| {
        let trimmed = line.trim();
        if trimmed.starts_with("```") || trimmed.starts_with("~~~") {
            fenced = !fenced;
            return None;
        }
        if fenced || trimmed.is_empty() || trimmed.starts_with('|') {
            return None;
        }
        let text = trimmed.trim_start_matches(['#', '>', ' ']);
        let text = text
            .strip_prefix("- ")
            .or_else(|| text.strip_prefix("* "))
            .or_else(|| text.strip_prefix("+ "))
            .unwrap_or(text);
        let digits = text.chars().take_while(char::is_ascii_digit).count();
        let text =
            match text[digits..].strip_prefix(". ").or_else(|| text[digits..].strip_prefix(") ")) {
                Some(rest) if digits > 0 => rest,
                _ => text,
            };
        let text = text.strip_prefix("[ ] ").or_else(|| text.strip_prefix("[x] ")).unwrap_or(text);
        (!text.trim().is_empty()).then(|| text.trim())
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn documents_are_told_by_their_extension() {
        for path in ["PLAN.md", "docs/guide.MD", "/home/u/.claude/plans/x.md", "notes.txt", "a.rst"]
        {
            assert!(is_document(path), "{path}");
        }
        for path in ["src/main.rs", "Makefile", ".md", "config.toml", "README"] {
            assert!(!is_document(path), "{path}");
        }
    }

    #[test]
    fn a_write_an_edit_and_a_patch_give_their_prose() {
        let write = json!({"file_path": "plan.md", "content": "# Plan\n- Add `tenant_id`."});
        assert_eq!(
            written_prose(&write, Some("plan.md")),
            vec![("plan.md".to_owned(), "# Plan\n- Add `tenant_id`.".to_owned())]
        );
        let code = json!({"file_path": "main.rs", "content": "fn main() {}"});
        assert!(written_prose(&code, Some("main.rs")).is_empty());
        let patch = "*** Begin Patch\n*** Add File: README.md\n+## Run\n+Use `just dev`.\n\
                     *** Update File: src/lib.rs\n+fn x() {}\n*** End Patch";
        assert_eq!(
            written_prose(&json!({ "input": patch }), None),
            vec![("README.md".to_owned(), "## Run\nUse `just dev`.\n".to_owned())]
        );
    }

    #[test]
    fn prose_lines_skip_code_and_take_markers_off() {
        let text = "## Phase 2\n1. Add `SET LOCAL` in store.go.\n```go\nfunc x() {}\n```\n\
                    - [ ] Run the tests\n| a | b |\n> Quoted rule.";
        let lines: Vec<&str> = prose_lines(text).collect();
        assert_eq!(
            lines,
            vec!["Phase 2", "Add `SET LOCAL` in store.go.", "Run the tests", "Quoted rule."]
        );
    }
}
