//! Changes: what an edit put into a file, told in a few words on its Done item.
//!
//! "Edited `ci.yml`" tells a resuming agent that a file changed but not how; the lines an
//! edit added (those of its new text that its old text did not have) usually name the
//! change: a pinned version, a new condition, a renamed call. A Done item carries the newest
//! of them, each cut short, as inline code: "Edited `ci.yml` (2 times): `tags: ['v*']`".
//!
//! Invariants: at most [`LINES_PER_EDIT`] lines per edit call and [`LINES_PER_FILE`] per file
//! (the newest kept), each at most [`LINE_CHARS`] characters; a line with fewer than three
//! letters or digits (a brace, a blank) is never one of them; a write (a whole new content)
//! adds none, since its first lines rarely say what it is for.

use serde_json::Value;

use super::text::{clip, code, one_line};

/// Added lines kept from one edit call.
const LINES_PER_EDIT: usize = 2;
/// Added lines kept for one file across its edits (the newest).
pub(super) const LINES_PER_FILE: usize = 3;
/// Characters kept of one added line.
const LINE_CHARS: usize = 70;

/// The old and new texts of an edit call, from its arguments: pi's `oldText`/`newText`, the
/// `old_string`/`new_string` and `old_str`/`new_str` spellings of other agents, or an `edits`
/// list of such pairs. A pair without a new text is left out; a missing old text is empty.
pub(super) fn edit_pairs(arguments: &Value) -> Vec<(&str, &str)> {
    let pairs: Vec<&Value> = match arguments.get("edits").and_then(Value::as_array) {
        Some(edits) => edits.iter().collect(),
        None => vec![arguments],
    };
    pairs
        .into_iter()
        .filter_map(|pair| {
            let text = |keys: [&str; 3]| keys.iter().find_map(|key| pair.get(*key)?.as_str());
            let new = text(["newText", "new_string", "new_str"])?;
            Some((text(["oldText", "old_string", "old_str"]).unwrap_or(""), new))
        })
        .collect()
}

/// The lines an edit call added (see [`edit_pairs`]).
pub(super) fn added_lines(arguments: &Value) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for (old, new) in edit_pairs(arguments) {
        let old_lines: Vec<&str> = old.lines().map(str::trim).collect();
        for line in new.lines().map(str::trim) {
            if out.len() == LINES_PER_EDIT {
                return out;
            }
            let meaningful = line.chars().filter(|c| c.is_alphanumeric()).count() >= 3;
            let shown = clip(&one_line(line), LINE_CHARS);
            if meaningful && !old_lines.contains(&line) && !out.contains(&shown) {
                out.push(shown);
            }
        }
    }
    out
}

/// A file edited or written, with how many times.
#[derive(Debug, Clone)]
pub(super) struct FileChange {
    pub(super) path: String,
    pub(super) verb: &'static str,
    pub(super) times: usize,
    /// The newest lines edits added to it (see `changes`).
    pub(super) added: Vec<String>,
}

impl FileChange {
    /// Keeps `lines` as the newest lines added to this file.
    pub(super) fn add_lines(&mut self, lines: Vec<String>) {
        for line in lines {
            self.added.retain(|known| known != &line);
            self.added.push(line);
        }
        let excess = self.added.len().saturating_sub(LINES_PER_FILE);
        self.added.drain(..excess);
    }

    /// The Done item: "Edited `path` (2 times): `line`; `line`".
    pub(super) fn done_item(&self) -> String {
        let verb = if self.verb == "Wrote" && self.times > 1 { "Wrote/edited" } else { self.verb };
        let mut item = format!("{verb} {}", code(&self.path));
        if self.times > 1 {
            item.push_str(&format!(" ({} times)", self.times));
        }
        if !self.added.is_empty() {
            let lines: Vec<String> = self.added.iter().map(|line| code(line)).collect();
            item.push_str(": ");
            item.push_str(&lines.join("; "));
        }
        item
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    #[test]
    fn an_edit_is_told_by_the_lines_it_added() {
        let arguments = json!({
            "path": ".github/workflows/ci.yml",
            "oldText": "    steps:\n      - run: docker push $IMAGE:$GITHUB_SHA\n",
            "newText": "    steps:\n      - if: startsWith(github.ref, 'refs/tags/v')\n        run: docker push $IMAGE:$GITHUB_REF_NAME\n"
        });
        assert_eq!(
            added_lines(&arguments),
            [
                "- if: startsWith(github.ref, 'refs/tags/v')",
                "run: docker push $IMAGE:$GITHUB_REF_NAME"
            ]
        );
    }

    #[test]
    fn braces_blanks_and_unchanged_lines_are_not_changes() {
        let arguments = json!({
            "old_string": "fn a() {\n    one();\n}",
            "new_string": "fn a() {\n    one();\n\n    two();\n}\n",
        });
        assert_eq!(added_lines(&arguments), ["two();"]);
        let edits = json!({ "edits": [
            { "oldText": "retries = 1", "newText": "retries = 3" },
            { "oldText": "timeout = 10", "newText": "timeout = 30" },
            { "oldText": "workers = 1", "newText": "workers = 4" },
        ]});
        assert_eq!(added_lines(&edits), ["retries = 3", "timeout = 30"], "two lines per call");
        assert_eq!(added_lines(&json!({ "content": "a new file" })), Vec::<String>::new());
    }

    #[test]
    fn a_long_line_is_cut_and_a_file_keeps_its_newest_lines() {
        let long = "let value = ".to_owned() + &"a".repeat(200);
        let lines = added_lines(&json!({ "oldText": "", "newText": long }));
        assert_eq!(lines.len(), 1);
        assert_eq!(lines[0].chars().count(), LINE_CHARS);
        assert!(lines[0].ends_with('…'));

        let mut change =
            FileChange { path: "src/a.rs".into(), verb: "Edited", times: 3, added: Vec::new() };
        change.add_lines(vec!["one()".into(), "two()".into()]);
        change.add_lines(vec!["three()".into(), "one()".into()]);
        assert_eq!(change.added, ["two()", "three()", "one()"]);
        change.add_lines(vec!["four()".into()]);
        assert_eq!(change.done_item(), "Edited `src/a.rs` (3 times): `three()`; `one()`; `four()`");
        let plain = FileChange { path: "b".into(), verb: "Wrote", times: 1, added: Vec::new() };
        assert_eq!(plain.done_item(), "Wrote `b`");
    }
}
