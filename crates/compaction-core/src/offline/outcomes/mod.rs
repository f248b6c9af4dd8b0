//! Outcomes: tool results and command runs read into passes, failures and their
//! resolution, plus the helpers that name tools, commands and failures. By stage: tool
//! results and file effects here; shell commands and what they made (`commands`); words
//! of outputs that later steps use (`output_facts`); rules of instruction files
//! (`instructions`).
//!
//! Invariant: a failure stays open until a later success of the same command (or a whole
//! suite of its family), file or tool; a read-only command is neither progress nor failure.

mod commands;
mod instructions;
mod output_facts;
mod settled;

#[cfg(test)]
pub(super) use commands::covers;
#[cfg(test)]
pub(super) use instructions::is_instruction_file;

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
                FileEffect::Written { path } => {
                    self.note_change(path, "Edited", super::changes::Added::default())
                }
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
                added: super::changes::Added::default(),
                values: Vec::new(),
                patch: None,
                documents: Vec::new(),
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
        if !result.is_error {
            self.note_documents(&call.documents);
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
                if !failed && let Some(path) = printed_file(&command) {
                    self.note_instruction_rules(&path, lines.clone());
                }
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

    /// Records what a check found, newest last, each once.
    pub(super) fn note_check(&mut self, text: String) {
        self.checks.retain(|known| known != &text);
        self.checks.push(text);
        let excess = self.checks.len().saturating_sub(6);
        self.checks.drain(..excess);
    }

    /// Records a successful write or edit of `path`.
    pub(super) fn note_change(
        &mut self,
        path: &str,
        verb: &'static str,
        added: super::changes::Added,
    ) {
        self.modified_files.insert(path.to_owned());
        self.edit_log.push(path.to_owned());
        if let Some(request) = self.requests.last_mut()
            && request.edit.is_none()
        {
            request.edit = Some(super::changes::TurnEdit::new(verb, path, &added));
        }
        match self.changes.iter_mut().find(|change| change.path == path) {
            Some(change) => {
                change.times += 1;
                if verb == "Wrote" {
                    change.verb = verb;
                }
                change.add(added);
            }
            None => {
                let mut change = FileChange::new(path, verb);
                change.add(added);
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
