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

/// Settings kept for one file across its edits (the newest).
const SETTINGS_PER_FILE: usize = 2;

/// The word a Done item puts before a setting an edit changed: "Edited `f`: now
/// `listen 8080;`; `gzip on;`".
pub(super) const SETTING_MARK: &str = "now ";

/// The settings a Done item's lines ("now `a`; `b`; now `c`") name, oldest first.
pub(super) fn settings_in(lines: &str) -> Vec<String> {
    lines
        .split("; ")
        .filter_map(|part| part.strip_prefix(SETTING_MARK))
        .filter_map(|span| super::text::backticked(span).first().map(|line| (*line).to_owned()))
        .collect()
}

/// The settings of `earlier` that no setting of `later` replaces (none shares its key),
/// oldest first.
pub(super) fn still_held(earlier: Vec<String>, later: &[String]) -> Vec<String> {
    let later_keys: Vec<String> = later.iter().map(|line| setting_key(line)).collect();
    earlier.into_iter().filter(|line| !later_keys.contains(&setting_key(line))).collect()
}

/// The lines an edit changed in place: for each old/new pair of as many lines, each line
/// whose new form differs from its old one in a single word (`set(CMAKE_C_STANDARD 99)` →
/// `…17)`, `listen 80;` → `listen 8080;`, `FROM node:18` → `FROM node:20`, `replicas: 2` →
/// `replicas: 4`), in its new form: a setting the edit changed. Comments, long lines and
/// pairs that rewrite more than two lines (code) give none.
pub(super) fn changed_settings(arguments: &Value) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for (old, new) in lines_changed_in_place(arguments) {
        let comment = ["#", "//", "--", ";", "/*", "*"].iter().any(|mark| new.starts_with(mark));
        let short = new.chars().count() <= LINE_CHARS && new.split_whitespace().count() <= 6;
        let old_words: Vec<&str> = old.split_whitespace().collect();
        let new_words: Vec<&str> = new.split_whitespace().collect();
        let one_word = old_words.len() == new_words.len()
            && old_words.iter().zip(&new_words).filter(|(a, b)| a != b).count() == 1;
        // A setting names what it sets: a word before the value (`listen 8080;`,
        // `replicas: 4`) or a key joined to it (`WORKERS=8`). A line that is one word of
        // code (`items.push(self.parse_expr()?);`) sets nothing.
        let named = new_words.len() >= 2 || new.contains('=');
        if !comment && short && one_word && named && !out.iter().any(|known| known == new) {
            out.push(new.to_owned());
        }
    }
    out
}

/// The lines an edit call changed in place, old and new, trimmed: of each old/new pair of
/// as many lines (see [`edit_pairs`]), the lines that differ, when at most two do (a rewrite
/// of more lines is code, not a setting).
pub(super) fn lines_changed_in_place(arguments: &Value) -> Vec<(&str, &str)> {
    let mut out = Vec::new();
    for (old, new) in edit_pairs(arguments) {
        let old_lines: Vec<&str> = old.lines().map(str::trim).collect();
        let new_lines: Vec<&str> = new.lines().map(str::trim).collect();
        if old_lines.len() != new_lines.len() {
            continue;
        }
        let changed: Vec<(&str, &str)> =
            old_lines.into_iter().zip(new_lines).filter(|(old, new)| old != new).collect();
        if changed.len() <= 2 {
            out.extend(changed);
        }
    }
    out
}

/// What an edit call put into a file: the lines it added, and the settings it changed in
/// place (see [`added_lines`], [`changed_settings`]).
#[derive(Debug, Clone, Default)]
pub(super) struct Added {
    pub(super) lines: Vec<String>,
    pub(super) settings: Vec<String>,
}

impl Added {
    pub(super) fn of(arguments: &Value) -> Added {
        Added { lines: added_lines(arguments), settings: changed_settings(arguments) }
    }
}

/// A turn's first change, for the line of the request the turn answered when no words of
/// the assistant say what it did: "edited `components/Table.tsx`", or with the line it put
/// in, "edited `components/Table.tsx`: `export default React.memo(Table)`".
#[derive(Debug, Clone)]
pub(super) struct TurnEdit {
    /// "edited" or "wrote".
    verb: String,
    /// The path's last two parts (the whole path is on the file's Done item).
    path: String,
    /// The setting the edit changed, else the first line it added; none for a whole new
    /// content.
    line: Option<String>,
}

impl TurnEdit {
    /// The verbs a turn edit is named with: those of the tools that modify a file
    /// (`calls::tool_role`), in lower case.
    pub(super) const VERBS: [&'static str; 2] = ["edited", "wrote"];

    pub(super) fn new(verb: &str, path: &str, added: &Added) -> TurnEdit {
        let parts: Vec<&str> = path.split(['/', '\\']).filter(|part| !part.is_empty()).collect();
        TurnEdit {
            verb: verb.to_lowercase(),
            path: parts[parts.len().saturating_sub(2)..].join("/"),
            line: added
                .settings
                .first()
                .or(added.lines.first())
                .map(|line| clip(&one_line(line), LINE_CHARS)),
        }
    }

    /// "edited `a/b.ts`".
    pub(super) fn named(&self) -> String {
        format!("{} {}", self.verb, code(&self.path))
    }

    /// "edited `a/b.ts`: `line`".
    pub(super) fn shown(&self) -> String {
        match &self.line {
            Some(line) => format!("{}: {}", self.named(), code(line)),
            None => self.named(),
        }
    }
}

/// A file edited or written, with how many times.
#[derive(Debug, Clone)]
pub(super) struct FileChange {
    pub(super) path: String,
    pub(super) verb: &'static str,
    pub(super) times: usize,
    /// The newest lines edits added to it (see `changes`).
    pub(super) added: Vec<String>,
    /// The newest settings edits changed in it: shown before the added lines, since later
    /// additions to the file do not replace what a setting now says.
    pub(super) settings: Vec<String>,
}

impl FileChange {
    pub(super) fn new(path: &str, verb: &'static str) -> FileChange {
        FileChange {
            path: path.to_owned(),
            verb,
            times: 1,
            added: Vec::new(),
            settings: Vec::new(),
        }
    }

    /// Keeps `lines` as the newest lines added to this file.
    pub(super) fn add_lines(&mut self, lines: Vec<String>) {
        for line in lines {
            self.added.retain(|known| known != &line);
            self.added.push(line);
        }
        let excess = self.added.len().saturating_sub(LINES_PER_FILE);
        self.added.drain(..excess);
    }

    /// Takes in what an earlier summary's Done item about this file said: its count and
    /// its settings (older than this part's, which replace them by key).
    pub(super) fn absorb_earlier(&mut self, times: usize, lines: &str) {
        self.times += times;
        let own = std::mem::take(&mut self.settings);
        self.settings = still_held(settings_in(lines), &own).into_iter().chain(own).collect();
        let excess = self.settings.len().saturating_sub(SETTINGS_PER_FILE);
        self.settings.drain(..excess);
    }

    /// Keeps what an edit put into this file: its settings (a newer form of a setting
    /// replaces the older, by the words before its value) and its added lines.
    pub(super) fn add(&mut self, added: Added) {
        for setting in added.settings {
            let shown = clip(&one_line(&setting), LINE_CHARS);
            let key = setting_key(&setting);
            self.settings.retain(|known| setting_key(known) != key);
            self.settings.push(shown);
        }
        let excess = self.settings.len().saturating_sub(SETTINGS_PER_FILE);
        self.settings.drain(..excess);
        let lines: Vec<String> =
            added.lines.into_iter().filter(|line| !self.settings.contains(line)).collect();
        self.add_lines(lines);
    }

    /// The Done item: "Edited `path` (2 times): `line`; `line`".
    pub(super) fn done_item(&self) -> String {
        let verb = if self.verb == "Wrote" && self.times > 1 { "Wrote/edited" } else { self.verb };
        let mut item = format!("{verb} {}", code(&self.path));
        if self.times > 1 {
            item.push_str(&format!(" ({} times)", self.times));
        }
        if !self.added.is_empty() || !self.settings.is_empty() {
            let settings = self.settings.iter().map(|line| format!("{SETTING_MARK}{}", code(line)));
            // The settings take the place of the oldest added lines: an item is no longer
            // for them.
            let added: Vec<&String> =
                self.added.iter().filter(|line| !self.settings.contains(line)).collect();
            let room = LINES_PER_FILE.saturating_sub(self.settings.len());
            let added = added[added.len().saturating_sub(room)..].iter().map(|line| code(line));
            let lines: Vec<String> = settings.chain(added).collect();
            item.push_str(": ");
            item.push_str(&lines.join("; "));
        }
        item
    }
}

/// The words of a setting's line before its value (`set(CMAKE_C_STANDARD`, `listen`,
/// `replicas:`): two forms of one setting share them.
fn setting_key(line: &str) -> String {
    let words: Vec<&str> = line.split_whitespace().collect();
    match words.split_last() {
        Some((_, before)) if !before.is_empty() => before.join(" "),
        // One word (`WORKERS=8`, `edition="2021"`): what comes before `=` or `:`.
        Some(_) | None => line.split(['=', ':']).next().unwrap_or(line).to_owned(),
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
        // The cut falls inside the run of `a`s: the whole run is left out, never a piece.
        assert_eq!(lines[0], "let value =…");
        let words = "let value = ".to_owned() + &"ab ".repeat(100);
        let lines = added_lines(&json!({ "oldText": "", "newText": words }));
        assert!(lines[0].chars().count() <= LINE_CHARS && lines[0].ends_with(" ab…"));

        let mut change = FileChange { times: 3, ..FileChange::new("src/a.rs", "Edited") };
        change.add_lines(vec!["one()".into(), "two()".into()]);
        change.add_lines(vec!["three()".into(), "one()".into()]);
        assert_eq!(change.added, ["two()", "three()", "one()"]);
        change.add_lines(vec!["four()".into()]);
        assert_eq!(change.done_item(), "Edited `src/a.rs` (3 times): `three()`; `one()`; `four()`");
        let plain = FileChange::new("b", "Wrote");
        assert_eq!(plain.done_item(), "Wrote `b`");
    }

    #[test]
    fn a_turns_edit_is_named_by_its_paths_last_parts_and_its_line() {
        let memo = Added::of(&json!({
            "old_string": "export default Table",
            "new_string": "export default React.memo(Table)",
        }));
        let edit = TurnEdit::new("Edited", "/home/u/web/src/pages/list/Table.tsx", &memo);
        assert_eq!(edit.named(), "edited `list/Table.tsx`");
        assert_eq!(edit.shown(), "edited `list/Table.tsx`: `export default React.memo(Table)`");
        // A setting changed in place comes before the lines; a Windows path is cut alike.
        let size = Added::of(&json!({
            "old_string": "export const PAGE_SIZE = 20",
            "new_string": "export const PAGE_SIZE = 50",
        }));
        let edit = TurnEdit::new("Edited", "X:\\app\\src\\api\\pagination.ts", &size);
        assert_eq!(edit.shown(), "edited `api/pagination.ts`: `export const PAGE_SIZE = 50`");
        let written = TurnEdit::new("Wrote", "docs/notes.md", &Added::default());
        assert_eq!(written.shown(), "wrote `docs/notes.md`");
    }

    #[test]
    fn a_setting_changed_in_place_outlives_later_additions_and_rounds() {
        let cmake = json!({
            "old_string": "# C99 standard\nset(CMAKE_C_STANDARD 99)",
            "new_string": "# C17 standard\nset(CMAKE_C_STANDARD 17)",
        });
        assert_eq!(changed_settings(&cmake), ["set(CMAKE_C_STANDARD 17)"]);
        // Code rewritten on many lines, or a line that changes more than a word, is no setting.
        let code_edit =
            json!({ "old_string": "a = 1\nb = 2\nc = 3", "new_string": "a = 2\nb = 3\nc = 4" });
        assert!(changed_settings(&code_edit).is_empty());
        let rewrite = json!({ "old_string": "return a + b;", "new_string": "return a.plus(b)?;" });
        assert!(changed_settings(&rewrite).is_empty());
        let call = json!({ "old_string": "items.push(self.parse_atom()?);", "new_string": "items.push(self.parse_expr()?);" });
        assert!(changed_settings(&call).is_empty());
        assert_eq!(
            changed_settings(&json!({ "old_string": "WORKERS=2", "new_string": "WORKERS=8" })),
            ["WORKERS=8"]
        );

        let mut change = FileChange::new("CMakeLists.txt", "Edited");
        change.add(Added::of(&cmake));
        for line in ["enable_testing()", "add_subdirectory(tests)", "include(CTest)"] {
            change.times += 1;
            change.add(Added::of(
                &json!({ "old_string": "# end", "new_string": format!("{line}\n# end") }),
            ));
        }
        let item = change.done_item();
        assert_eq!(
            item,
            "Edited `CMakeLists.txt` (4 times): now `set(CMAKE_C_STANDARD 17)`; `add_subdirectory(tests)`; `include(CTest)`"
        );
        // A later round: the file edited again; the earlier item's setting and count hold,
        // and a newer form of the same setting replaces it.
        let mut later = FileChange::new("CMakeLists.txt", "Edited");
        later.add(Added::of(
            &json!({ "old_string": "# end", "new_string": "add_library(core src/core.c)\n# end" }),
        ));
        later.absorb_earlier(4, item.split_once(": ").unwrap().1);
        assert_eq!(
            later.done_item(),
            "Edited `CMakeLists.txt` (5 times): now `set(CMAKE_C_STANDARD 17)`; `add_library(core src/core.c)`"
        );
        let mut newer = FileChange::new("CMakeLists.txt", "Edited");
        newer.add(Added::of(&json!({ "old_string": "set(CMAKE_C_STANDARD 17)", "new_string": "set(CMAKE_C_STANDARD 23)" })));
        newer.absorb_earlier(4, item.split_once(": ").unwrap().1);
        assert_eq!(newer.settings, ["set(CMAKE_C_STANDARD 23)"]);
    }
}
