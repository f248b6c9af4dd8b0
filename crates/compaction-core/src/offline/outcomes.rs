//! Outcomes: tool results and command runs read into passes, failures and their
//! resolution, plus the helpers that name tools, commands and failures.
//!
//! Invariant: a failure stays open until a later success of the same command (or a whole
//! suite of its family), file or tool; a read-only command is neither progress nor failure.

use super::calls::*;
use super::changes::FileChange;
use super::digest::*;
use super::extract::{asks_the_user, is_heading, is_rule};
use super::scan::*;
use super::text::*;
use crate::files::{FileEffect, shell_file_effects};

impl Digest {
    /// Follows the moves and deletions of a shell command that succeeded (those of a patch
    /// it applies included) and the literals its `sed -i` replaced.
    pub(super) fn apply_tree_effects(&mut self, command: &str) -> bool {
        let mut effects = shell_file_effects(command);
        effects.extend(patch_tree_effects(command));
        for change in super::values::sed_value_changes(command) {
            self.note_value_change(change);
        }
        self.apply_effects(effects)
    }

    /// Notes a replaced value (the newest replacement of the same value wins).
    pub(super) fn note_value_change(&mut self, change: super::values::ValueChange) {
        self.value_changes.retain(|known| known.old != change.old);
        self.value_changes.push(change);
    }

    /// Follows moves and deletions: the lists, the Done items and the effects kept in order.
    fn apply_effects(&mut self, effects: Vec<FileEffect>) -> bool {
        for effect in &effects {
            match effect {
                FileEffect::Moved { from, to } => {
                    self.tree_changes.push(format!("Moved {} to {}", code(from), code(to)));
                    for set in [&mut self.modified_files, &mut self.read_files] {
                        let moved: Vec<String> =
                            set.iter().filter(|path| is_under(path, from)).cloned().collect();
                        for path in moved {
                            set.remove(&path);
                            set.insert(format!("{to}{}", &path[from.len()..]));
                        }
                    }
                    for change in &mut self.changes {
                        if is_under(&change.path, from) {
                            change.path = format!("{to}{}", &change.path[from.len()..]);
                        }
                    }
                }
                FileEffect::Deleted { path: deleted } => {
                    self.tree_changes.push(format!("Deleted {}", code(deleted)));
                    self.modified_files.retain(|path| !is_under(path, deleted));
                    self.read_files.retain(|path| !is_under(path, deleted));
                    self.changes.retain(|change| !is_under(&change.path, deleted));
                }
                FileEffect::Written { path } => self.note_change(path, "Edited", Vec::new()),
            }
        }
        let any = !effects.is_empty();
        self.effects.extend(effects);
        any
    }

    pub(super) fn take_pending(&mut self, id: &str, tool_name: &str) -> PendingCall {
        match self.pending.iter().position(|call| call.id == id) {
            Some(position) => self.pending.remove(position),
            None => PendingCall {
                id: id.to_owned(),
                name: tool_name.to_lowercase(),
                path: None,
                command: None,
                script: None,
                added: Vec::new(),
                values: Vec::new(),
                patch: None,
            },
        }
    }

    pub(super) fn observe_tool_result(&mut self, result: &crate::message::ToolResultMessage) {
        let call = self.take_pending(&result.tool_call_id, &result.tool_name);
        let lines = content_lines(&result.content);
        if result.is_error && stopped_by_user(lines.clone()) {
            // The user stopped or rejected the call: not a failure to fix, but what they
            // decided; what they say next is what counts.
            let what = match &call.command {
                Some(command) => code(&command_shown(command, COMMAND_CHARS)),
                None => code(&result.tool_name),
            };
            let verb = match first_line(lines.clone()) {
                Some(line) if line.contains("doesn't want to proceed") => "rejected",
                Some(_) | None => "stopped",
            };
            let call_text = call.command.clone().unwrap_or_else(|| result.tool_name.clone());
            if !self.rejected_calls.contains(&call_text) {
                self.rejected_calls.push(call_text);
            }
            let decision = format!("The user {verb} the call of {what}");
            self.decisions.retain(|known| known != &decision);
            self.decisions.push(decision);
            return;
        }
        if !result.is_error && asks_the_user(&call.name) {
            // The user's answer to the tool's question is a decision they made.
            let answer = one_line(&content_text(&result.content));
            if !answer.is_empty() {
                let decision = format!("The user answered ({}): {}", call.name, clip(&answer, 300));
                self.decisions.retain(|known| known != &decision);
                self.decisions.push(decision);
            }
            return;
        }
        if !result.is_error
            && let Some(patch) = &call.patch
        {
            self.apply_effects(patch_tree_effects(patch));
        }
        match (tool_role(&call.name), call.path.clone(), call.command.clone()) {
            (ToolRole::Modify(verb), Some(path), _) => {
                if result.is_error {
                    let scan = scan_output(lines.clone());
                    let first = scan
                        .errors
                        .first()
                        .cloned()
                        .or_else(|| first_line(lines.clone()).map(|l| code(&l)));
                    let detail = first.as_deref().map(|e| format!(": {e}")).unwrap_or_default();
                    self.fail(
                        format!("modify:{path}"),
                        format!("the {} of {}", call.name, code(&path)),
                        format!("{} of {} failed{detail}", capitalised(&call.name), code(&path)),
                        first,
                    );
                } else {
                    self.resolve(&format!("modify:{path}"));
                    self.note_change(&path, verb, call.added.clone());
                    for change in call.values.clone() {
                        self.note_value_change(change);
                    }
                    self.last_was_failure = false;
                }
            }
            (ToolRole::Read, Some(path), _) => {
                if result.is_error {
                    // A read that misses answers a question (the file is not there); it is
                    // not work left to do.
                    let first = first_line(lines.clone()).map(|l| code(&clip(&l, 200)));
                    let detail = first.as_deref().map(|e| format!(": {e}")).unwrap_or_default();
                    self.note_check(format!("Reading {} failed{detail}", code(&path)));
                } else {
                    self.note_instruction_rules(&path, lines.clone());
                    self.read_files.insert(path.clone());
                    self.resolve(&format!("read:{path}"));
                    // The file was found under another path or spelling (`STATUS.md` after
                    // `status.md`, `ui/home.html` after `home.html`): the earlier miss is over.
                    let name = file_name(&path);
                    let missed: Vec<String> = self
                        .failures
                        .iter()
                        .filter(|f| f.is_open())
                        .filter_map(|f| f.key.strip_prefix("read:"))
                        .filter(|missed| file_name(missed) == name)
                        .map(|missed| format!("read:{missed}"))
                        .collect();
                    for key in missed {
                        self.resolve(&key);
                    }
                }
            }
            (ToolRole::Shell, _, Some(command)) => {
                let scan = scan_output(lines.clone());
                let failed = result.is_error
                    || scan.exit_code.is_some_and(|code| code != 0)
                    || scan.tests_failed;
                let script = call.script.clone().unwrap_or_else(|| command.clone());
                self.shell_outcome(&command, &script, failed, scan.exit_code, &scan, false, lines);
            }
            (ToolRole::Modify(_) | ToolRole::Read | ToolRole::Shell | ToolRole::Other, _, _) => {
                if result.is_error {
                    // A tool that neither edits nor runs the project's commands (a search,
                    // a fetch, stopping a shell) reports what it found: an answer.
                    let scan = scan_output(lines.clone());
                    let first = scan
                        .errors
                        .first()
                        .cloned()
                        .or_else(|| first_line(lines.clone()).map(|l| code(&clip(&l, 200))));
                    let detail = first.as_deref().map(|e| format!(": {e}")).unwrap_or_default();
                    let target = call
                        .path
                        .as_deref()
                        .map(|p| format!(" on {}", code(p)))
                        .unwrap_or_default();
                    self.note_check(format!("Tool {}{target} failed{detail}", code(&call.name)));
                } else {
                    self.resolve(&format!(
                        "tool:{}:{}",
                        call.name,
                        call.path.as_deref().unwrap_or("")
                    ));
                }
            }
        }
    }

    /// Reads a shell command's outcome from its evidence: a check that fails answers; a
    /// line whose errors all come from its last, checking part (`rm a && ls dir`) did its
    /// work; a pipe into `tail` hides the exit code, so an output that shows an error leaves
    /// the outcome unknown (the command and its last lines are kept instead).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn shell_outcome<'l>(
        &mut self,
        command: &str,
        script: &str,
        failed: bool,
        exit_code: Option<i64>,
        scan: &OutputScan,
        cancelled: bool,
        lines: impl Iterator<Item = &'l str> + Clone,
    ) {
        self.note_output_words(command, lines.clone());
        if is_read_only_command(command) {
            if !cancelled && let Some(error) = scan.errors.first() {
                let command = code(&command_shown(command, COMMAND_CHARS));
                // A failed check tells its error; one that worked and printed error lines (a
                // log it read, a search for a message) found them: what it found is the
                // evidence the next step works from.
                let check = if failed {
                    format!("Checked {command}: {error}")
                } else {
                    let found: Vec<&str> = scan.errors.iter().take(2).map(String::as_str).collect();
                    format!("Checked {command}, found: {}", found.join("; "))
                };
                self.note_check(check);
            }
            return;
        }
        let segments = crate::files::shell_segments(command);
        let checking_tail = segments.len() > 1
            && segments.last().is_some_and(|last| is_read_only_command(last))
            && !scan.errors.is_empty()
            && scan.errors.iter().all(|error| {
                let error = plain_error(error);
                segments.iter().filter(|s| is_read_only_command(s)).any(|segment| {
                    segment
                        .split_whitespace()
                        .next()
                        .is_some_and(|program| error.starts_with(&format!("{program}:")))
                })
            });
        if failed && !cancelled && checking_tail {
            self.apply_tree_effects(script);
            if let Some(error) = scan.errors.first() {
                self.note_check(format!(
                    "Checked {}: {error}",
                    code(&command_shown(command, COMMAND_CHARS))
                ));
            }
            return;
        }
        let hidden = exit_code.is_none()
            && !failed
            && piped_into(command).is_some_and(is_read_only_command)
            && !scan.errors.is_empty();
        if hidden {
            let tail: Vec<String> = lines
                .map(str::trim)
                .filter(|line| !line.is_empty())
                .collect::<Vec<_>>()
                .iter()
                .rev()
                .take(2)
                .rev()
                .map(|line| code(&clip(line, 160)))
                .collect();
            let shown_command = code(&command_shown(command, COMMAND_CHARS));
            let text = format!(
                "{shown_command} (the pipe hides its exit code): its output shows {}; it ends: {}",
                scan.errors.first().cloned().unwrap_or_default(),
                tail.join(" / ")
            );
            self.unclear.retain(|known| !known.starts_with(&shown_command));
            self.unclear.push(text);
            return;
        }
        if !failed {
            self.apply_tree_effects(script);
        }
        self.command_outcome(command, !failed, exit_code, scan, cancelled);
    }

    /// Keeps the rules of a project instruction file the work read (`AGENTS.md`,
    /// `CLAUDE.md`, `CONTRIBUTING.md`, …): its lines that state a rule, in any language, at
    /// most [`RULES_PER_FILE`], each with the file it came from.
    pub(super) fn note_instruction_rules<'l>(
        &mut self,
        path: &str,
        lines: impl Iterator<Item = &'l str>,
    ) {
        if !is_instruction_file(path) {
            return;
        }
        // A file every skill or folder shares the name of (`SKILL.md`) is named with its
        // folder.
        let mut parts = path.rsplit(['/', '\\']).filter(|part| !part.is_empty());
        let base = parts.next().unwrap_or(path);
        let name = match parts.next() {
            Some(folder) if base.eq_ignore_ascii_case("skill.md") => format!("{folder}/{base}"),
            Some(_) | None => base.to_owned(),
        };
        // Lines that state a rule first; the file's other bullets (a convention stated as
        // a fact: "merges use merge commits") fill the rest, in the file's order. Each keeps
        // the heading it stands under: its scope ("Commit messages": "one line only").
        let mut marked: Vec<(Option<String>, &str)> = Vec::new();
        let mut bullets: Vec<(Option<String>, &str)> = Vec::new();
        let mut heading: Option<String> = None;
        for line in lines {
            // Claude Code numbers the lines it shows (`    12→text`, `12\ttext`).
            let line = line.trim_start();
            let digits = line.chars().take_while(char::is_ascii_digit).count();
            let line = match line[digits..]
                .strip_prefix('→')
                .or_else(|| line[digits..].strip_prefix('\t'))
            {
                Some(rest) if digits > 0 => rest.trim_start(),
                Some(_) | None => line,
            };
            if is_heading(line) {
                let title = line.trim_start_matches('#').trim();
                heading = (!title.is_empty()).then(|| clip(title, 60));
                continue;
            }
            let text = strip_bullet(line);
            if text.is_empty() || char_len(text) > 300 {
                continue;
            }
            if sentences(text).iter().any(|sentence| is_rule(sentence)) {
                marked.push((heading.clone(), text));
            } else if text != line.trim() {
                bullets.push((heading.clone(), text));
            }
        }
        let room = RULES_PER_FILE.saturating_sub(marked.len());
        let rules: Vec<(Option<String>, &str)> =
            marked.into_iter().take(RULES_PER_FILE).chain(bullets.into_iter().take(room)).collect();
        for (heading, text) in rules {
            let scope = heading.map(|heading| format!(" ({heading})")).unwrap_or_default();
            self.constraints.retain(|known| !known.ends_with(text));
            self.constraints.push(format!("From {}{scope}: {text}", code(&name)));
        }
    }

    /// Remembers the distinctive words of a command's output with their line (see
    /// [`distinctive_words`]), at most [`OUTPUT_WORDS`] in all.
    pub(super) fn note_output_words<'l>(
        &mut self,
        command: &str,
        lines: impl Iterator<Item = &'l str>,
    ) {
        for line in lines.take(200) {
            let line = line.trim();
            if line.is_empty() || exit_code_of(line).is_some() {
                continue;
            }
            for word in distinctive_words(line) {
                if self.output_words.len() >= OUTPUT_WORDS {
                    return;
                }
                let fact = format!(
                    "{} printed {}",
                    code(&command_shown(command, 100)),
                    code(&clip(line, 160))
                );
                self.output_words.insert(word.to_owned(), fact);
            }
        }
    }

    /// A later step's text (the assistant's words, a command) that uses a word an earlier
    /// output printed keeps that output line.
    pub(super) fn note_used_facts(&mut self, text: &str) {
        if self.output_words.is_empty() {
            return;
        }
        let used: Vec<String> = distinctive_words(head(text, 16_000))
            .filter_map(|word| self.output_words.get(word).cloned())
            .collect();
        for fact in used {
            self.used_facts.retain(|known| known != &fact);
            self.used_facts.push(fact);
        }
        let excess = self.used_facts.len().saturating_sub(USED_FACTS);
        self.used_facts.drain(..excess);
    }

    /// Records what a check found, newest last, each once.
    pub(super) fn note_check(&mut self, text: String) {
        self.checks.retain(|known| known != &text);
        self.checks.push(text);
        let excess = self.checks.len().saturating_sub(6);
        self.checks.drain(..excess);
    }

    pub(super) fn command_outcome(
        &mut self,
        command: &str,
        passed: bool,
        exit_code: Option<i64>,
        scan: &OutputScan,
        cancelled: bool,
    ) {
        if command.is_empty() {
            return;
        }
        let runs = match self.commands.iter().position(|runs| runs.command == command) {
            Some(position) => &mut self.commands[position],
            None => {
                self.commands.push(CommandRuns {
                    command: command.to_owned(),
                    passes: 0,
                    failures: 0,
                    last_passed: None,
                });
                let last = self.commands.len() - 1;
                &mut self.commands[last]
            }
        };
        runs.last_passed = Some(passed);
        if passed {
            runs.passes += 1;
            let detail = scan
                .passed
                .as_deref()
                .map(|counts| format!(" (tests passed: {counts})"))
                .unwrap_or_default();
            let text = format!("Ran {}{detail}", code(&command_shown(command, COMMAND_CHARS)));
            self.passing.retain(|(known, _)| known != command);
            if shell_file_effects(command).is_empty() {
                self.passing.push((command.to_owned(), text));
            }
            let mut resolved = self.resolve(&format!("cmd:{command}"));
            // Each command of `a && b` passed too; the whole suite passing (`pytest`,
            // `npm test`) resolves narrower runs of it.
            // The command's own failure names the error; others only when it had none.
            // A line whose output shows no error worked as a whole: each of its commands
            // (`a; b`, `a & b` too) did.
            let parts = match scan.errors.is_empty() {
                true => command_segments(command),
                false => command_parts(command),
            };
            for part in parts {
                if part != command {
                    let part_error = self.resolve(&format!("cmd:{part}"));
                    resolved = resolved.or(part_error);
                }
                {
                    // A run of the same program over a wider target (`pytest tests/` after
                    // `pytest tests/test_a.py::t`, `go test ./...`) covers the narrower runs.
                    let keys: Vec<String> = self
                        .failures
                        .iter()
                        .filter(|f| !f.resolved)
                        .filter_map(|f| f.key.strip_prefix("cmd:"))
                        .filter(|failed| covers(part, failed))
                        .map(|failed| format!("cmd:{failed}"))
                        .collect();
                    for key in keys {
                        let narrower_error = self.resolve(&key);
                        resolved = resolved.or(narrower_error);
                    }
                }
            }
            if let Some((error, decisions_at, edits_at)) = resolved {
                let counts = scan.passed.clone();
                let diagnosis = self.decisions.get(decisions_at..).and_then(|found| {
                    found.iter().find(|d| !d.starts_with("The user ")).map(|d| clip(d, 240))
                });
                let mut edited: Vec<String> = Vec::new();
                for path in self.edit_log.get(edits_at..).unwrap_or_default() {
                    if !edited.contains(path) {
                        edited.push(path.clone());
                    }
                }
                let skip = edited.len().saturating_sub(3);
                let edited = edited.split_off(skip);
                self.fixed.push(Fixed {
                    command: command.to_owned(),
                    error,
                    counts,
                    diagnosis,
                    edited,
                });
            } else if let Some(counts) = &scan.passed {
                // A later run's counts are the current ones.
                for fixed in self.fixed.iter_mut().filter(|fixed| fixed.command == command) {
                    fixed.counts = Some(counts.clone());
                }
            }
            self.last_was_failure = false;
        } else {
            runs.failures += 1;
            let status = if cancelled {
                " was cancelled".to_owned()
            } else {
                match exit_code {
                    Some(code) => format!(" failed (exit {code})"),
                    None => " failed".to_owned(),
                }
            };
            let error = scan.errors.first().cloned();
            let shown_command = code(&command_shown(command, COMMAND_CHARS));
            let mut text = format!("{shown_command}{status}");
            if !scan.errors.is_empty() {
                let shown: Vec<String> = scan.errors.iter().take(2).cloned().collect();
                text.push_str(": ");
                text.push_str(&shown.join("; "));
            }
            self.passing.retain(|(known, _)| known != command);
            self.fail(format!("cmd:{command}"), shown_command, text, error);
        }
    }

    /// Records a successful write or edit of `path`.
    pub(super) fn note_change(&mut self, path: &str, verb: &'static str, added: Vec<String>) {
        self.modified_files.insert(path.to_owned());
        self.edit_log.push(path.to_owned());
        match self.changes.iter_mut().find(|change| change.path == path) {
            Some(change) => {
                change.times += 1;
                if verb == "Wrote" {
                    change.verb = verb;
                }
                change.add_lines(added);
            }
            None => {
                let mut change =
                    FileChange { path: path.to_owned(), verb, times: 1, added: Vec::new() };
                change.add_lines(added);
                self.changes.push(change);
            }
        }
    }

    /// Records a failure; a newer failure with the same key replaces the older one.
    pub(super) fn fail(
        &mut self,
        key: String,
        subject: String,
        text: String,
        error: Option<String>,
    ) {
        let what = plain_subject(&key);
        let error_line = error.as_deref().map(plain_error);
        self.failures.retain(|failure| failure.key != key || failure.resolved);
        if let Some(error) = &error {
            self.errors.retain(|known| known != error);
            self.errors.push(error.clone());
            self.error_keys.retain(|(known, _)| known != error);
            self.error_keys.push((error.clone(), key.clone()));
        }
        self.failures.push(Failure {
            key,
            subject,
            text,
            error,
            what,
            error_line,
            resolved: false,
            set_aside: false,
            turn: self.user_turns,
            decisions_at: self.decisions.len(),
            edits_at: self.edit_log.len(),
        });
        self.last_was_failure = true;
    }

    /// Marks the open failures with `key` resolved; returns the first error of the latest,
    /// with how many decisions and edits the digest held when it failed.
    pub(super) fn resolve(&mut self, key: &str) -> Option<(String, usize, usize)> {
        let mut resolved = None;
        for failure in self.failures.iter_mut().filter(|f| f.key == key && !f.resolved) {
            failure.resolved = true;
            let error = failure.error.clone().unwrap_or_else(|| failure.text.clone());
            resolved = Some((error, failure.decisions_at, failure.edits_at));
        }
        resolved
    }

    /// Whether the failure `error` came from was followed by a success of the same command
    /// or operation, with no failure of it open since.
    pub(super) fn error_resolved(&self, error: &str) -> bool {
        let Some((_, key)) = self.error_keys.iter().find(|(known, _)| known == error) else {
            return false;
        };
        let of_key = || self.failures.iter().filter(|failure| &failure.key == key);
        of_key().any(|failure| failure.resolved) && !of_key().any(|failure| !failure.resolved)
    }

    /// Commands that passed in these messages (for resolving a previous summary's items),
    /// each part of an `a && b` that passed included.
    pub(super) fn passed_commands(&self) -> Vec<&str> {
        self.commands
            .iter()
            .filter(|runs| runs.last_passed == Some(true))
            .flat_map(|runs| command_parts(&runs.command))
            .collect()
    }
}

/// Output words remembered in one digest.
const OUTPUT_WORDS: usize = 4_000;
/// Output lines kept because later steps used them.
const USED_FACTS: usize = 8;

/// The words of a line that can identify something: at least three characters holding a
/// digit (`4417209`, `migrate-7f9c2`, `18.3.1`, `f3a9c1b2e7d4`), not a bare small number.
pub(super) fn distinctive_words(line: &str) -> impl Iterator<Item = &str> {
    line.split(|c: char| c.is_whitespace() || ",;()[]{}<>\"'`=|".contains(c))
        .map(|word| word.trim_matches(|c: char| matches!(c, '.' | ':' | '/' | '^' | '~' | '#')))
        .filter(|word| {
            let digits = word.chars().filter(char::is_ascii_digit).count();
            char_len(word) >= 3
                && char_len(word) <= 64
                && digits > 0
                && !(digits == char_len(word) && digits < 3)
                && word.chars().all(|c| c.is_alphanumeric() || "-_./:@+".contains(c))
                // A time of day or a date says when, not what.
                && !word.contains(':')
        })
}

/// Rules kept from one instruction file.
const RULES_PER_FILE: usize = 12;

/// Whether a path names a project instruction file: the rules agents and contributors are
/// asked to follow.
///
/// By name (`AGENTS.md`, `CLAUDE.md`, `GEMINI.md`, `CONTRIBUTING*`, `SKILL.md`,
/// `.cursorrules`, `*.instructions.md`), or as a Markdown file in a folder agents read their
/// rules or commands from (`.claude/commands/`, `.claude/agents/`, `.cursor/rules/`,
/// `.github/instructions/`, `skills/`…); not an agent's memory notes.
pub(super) fn is_instruction_file(path: &str) -> bool {
    let name = file_name(path);
    let lower = path.to_lowercase().replace('\\', "/");
    let markdown = name.ends_with(".md") || name.ends_with(".mdc");
    let lower = format!("/{lower}");
    let rules_folder = [
        "/.claude/commands/",
        "/.claude/agents/",
        "/.claude/rules/",
        "/.cursor/rules/",
        "/.github/instructions/",
        "/.github/prompts/",
        "/skills/",
    ]
    .iter()
    .any(|folder| lower.contains(folder));
    name.starts_with("contributing")
        || name.ends_with(".instructions.md")
        || (markdown && rules_folder)
        || matches!(
            name.as_str(),
            "agents.md"
                | "claude.md"
                | "gemini.md"
                | "skill.md"
                | ".cursorrules"
                | "copilot-instructions.md"
        )
}

/// Whether a passing run of `wider` covers the failed run `narrower`: the same command, or
/// the same program and words with no target, or targets that contain the narrower run's
/// (`tests/` contains `tests/a.py::t`; `./...` contains `./internal/store`).
pub(super) fn covers(wider: &str, narrower: &str) -> bool {
    if wider == narrower {
        return true;
    }
    // Runs that differ only in their environment, wrappers or redirections ran the same.
    let (wider, narrower) = (invocation(wider), invocation(narrower));
    let (wider, narrower) = (wider.as_str(), narrower.as_str());
    if wider.is_empty() || narrower.is_empty() {
        return false;
    }
    if wider == narrower {
        return true;
    }
    let (family, targeted) = command_family(wider);
    if family.is_empty() || command_family(narrower).0 != family {
        return false;
    }
    if !targeted {
        return true;
    }
    let targets = |command: &str| -> Vec<String> {
        command
            .split_whitespace()
            .filter(|word| !word.starts_with('-') && word.contains(['/', '.', ':']))
            .map(|word| word.trim_end_matches("...").trim_start_matches("./").to_owned())
            .collect()
    };
    let wide = targets(wider);
    let narrow = targets(narrower);
    !narrow.is_empty()
        && narrow.iter().all(|target| {
            wide.iter().any(|base| {
                base.is_empty()
                    || target == base
                    || (base.ends_with('/') && target.starts_with(base.as_str()))
                    || target
                        .strip_prefix(base.as_str())
                        .is_some_and(|rest| rest.starts_with(['/', ':']))
            })
        })
}

/// The moves and deletions of a patch in Codex's `apply_patch` format (in a call or a shell
/// command): its added and updated files are edits the call itself reports.
fn patch_tree_effects(text: &str) -> Vec<FileEffect> {
    if !text.contains("*** Begin Patch") {
        return Vec::new();
    }
    crate::files::patch_file_effects(text)
        .into_iter()
        .filter(|effect| !matches!(effect, FileEffect::Written { .. }))
        .collect()
}
