//! Fact extraction: one pass over the messages collecting requests, constraints, file
//! changes, command runs, failures and their resolution, plans and identifiers.
//!
//! Both the offline summary and the must-keep facts are built from this one digest.
//! Invariant: a failure is open until a later success of the same command, file or tool
//! resolves it; tool outputs are scanned line by line and never copied whole.

use std::collections::BTreeSet;

use serde_json::Value;

use super::extract::*;
use super::previous::PreviousSummary;
use super::text::*;
use crate::files::{FileEffect, shell_file_effects};
use crate::message::{AgentMessage, ContentBlock};

/// An approach the assistant proposed and the user turned down right after.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Rejected {
    /// The assistant's proposal, as it said it.
    pub(super) proposal: String,
    /// The user's correction, verbatim.
    pub(super) words: String,
}

/// A tool call whose result has not been seen yet.
#[derive(Debug, Clone)]
pub(super) struct PendingCall {
    pub(super) id: String,
    pub(super) name: String,
    pub(super) path: Option<String>,
    pub(super) command: Option<String>,
}

/// A failure seen in the transcript.
#[derive(Debug, Clone)]
pub(super) struct Failure {
    /// What a later success must match to resolve it (a command, or `edit:path`).
    pub(super) key: String,
    /// What failed, short (a command in backticks, or "the edit of `path`").
    pub(super) subject: String,
    /// The bullet text.
    pub(super) text: String,
    /// The first error line, in inline code.
    pub(super) error: Option<String>,
    /// What failed, as plain text: the command, or the tool and its path.
    pub(super) what: String,
    /// The first error line as it appeared, without markup.
    pub(super) error_line: Option<String>,
    pub(super) resolved: bool,
}

/// How a command went, each time it ran.
#[derive(Debug, Clone)]
pub(super) struct CommandRuns {
    pub(super) command: String,
    pub(super) passes: usize,
    pub(super) failures: usize,
    pub(super) last_passed: Option<bool>,
}

/// A file edited or written, with how many times.
#[derive(Debug, Clone)]
pub(super) struct FileChange {
    pub(super) path: String,
    pub(super) verb: &'static str,
    pub(super) times: usize,
}

#[derive(Debug, Default)]
pub(super) struct Digest {
    pub(super) previous: Option<PreviousSummary>,
    pub(super) requests: Vec<String>,
    /// The latest user message that makes a request, trimmed.
    pub(super) latest_request: Option<String>,
    pub(super) constraints: Vec<String>,
    pub(super) changes: Vec<FileChange>,
    pub(super) passing: Vec<(String, String)>,
    pub(super) fixed: Vec<String>,
    pub(super) failures: Vec<Failure>,
    pub(super) commands: Vec<CommandRuns>,
    pub(super) pending: Vec<PendingCall>,
    pub(super) read_files: BTreeSet<String>,
    pub(super) modified_files: BTreeSet<String>,
    pub(super) identifiers: Vec<String>,
    pub(super) errors: Vec<String>,
    pub(super) decisions: Vec<String>,
    /// Plan statements of the latest assistant text that had any.
    pub(super) plan: Vec<String>,
    /// The first sentence of the latest assistant text.
    pub(super) last_assistant_statement: Option<String>,
    /// Summaries found among the messages (an older compaction or a branch).
    pub(super) earlier_summaries: Vec<String>,
    pub(super) last_was_failure: bool,
    /// Tool calls that never got a result before the conversation moved on.
    pub(super) abandoned: Vec<PendingCall>,
    /// Proposals the user rejected.
    pub(super) rejected: Vec<Rejected>,
    /// What the assistant proposed or decided since the last user message.
    pub(super) turn_statements: Vec<String>,
    /// Error lines the user pasted into a message.
    pub(super) user_errors: Vec<String>,
    /// Whether the user just corrected the assistant: its next statement is the approach
    /// taken instead.
    pub(super) after_correction: bool,
    /// Files moved and deleted by shell commands that succeeded, in order.
    pub(super) effects: Vec<FileEffect>,
    /// Done items for the moves and deletions.
    pub(super) tree_changes: Vec<String>,
}

pub(super) const MAX_IDENTIFIERS: usize = 24;

impl Digest {
    pub(super) fn observe(&mut self, message: &AgentMessage) {
        match message {
            AgentMessage::User(user) => self.observe_user(&content_text(&user.content)),
            AgentMessage::Custom(custom) => {
                self.note_identifiers(&content_text(&custom.content));
            }
            AgentMessage::Assistant(assistant) => {
                self.abandon_pending();
                let mut text = String::new();
                for block in &assistant.content {
                    match block {
                        ContentBlock::Text(block) => {
                            if !text.is_empty() {
                                text.push('\n');
                            }
                            text.push_str(&block.text);
                        }
                        ContentBlock::ToolCall(call) => {
                            self.pending.push(PendingCall {
                                id: call.id.clone(),
                                name: call.name.to_lowercase(),
                                path: path_argument(&call.arguments),
                                command: command_argument(&call.arguments),
                            });
                        }
                        ContentBlock::Image(_)
                        | ContentBlock::Thinking(_)
                        | ContentBlock::Other(_) => {}
                    }
                }
                let aborted = assistant.stop_reason.as_deref() == Some("aborted");
                let turn_ends = assistant.stop_reason.as_deref() == Some("stop");
                if aborted {
                    // The user interrupted (Esc): not a failure, and its calls get no result.
                    self.abandon_pending();
                } else if !text.trim().is_empty() {
                    let planned = self.plan.clone();
                    self.observe_assistant_text(&text);
                    // A reply that ends the turn without a plan closes the earlier plan.
                    if turn_ends && self.plan == planned {
                        self.plan.clear();
                    }
                }
                if aborted {
                } else if assistant.is_failed() {
                    let reason = assistant.stop_reason.as_deref().unwrap_or("error");
                    let detail = assistant
                        .error_message
                        .as_deref()
                        .map(|message| format!(": {}", clip(&one_line(message), 200)))
                        .unwrap_or_default();
                    self.fail(
                        "model-reply".to_owned(),
                        "the model reply".to_owned(),
                        format!("The model reply ended with `{reason}`{detail}"),
                        assistant.error_message.as_deref().map(|m| code(&clip(&one_line(m), 200))),
                    );
                } else {
                    self.resolve("model-reply");
                }
            }
            AgentMessage::ToolResult(result) => self.observe_tool_result(result),
            AgentMessage::BashExecution(bash) => {
                let command = one_line(&bash.command);
                if is_read_only_command(&command) {
                    return;
                }
                let scan = scan_output(bash.output.lines());
                let failed = bash.cancelled
                    || bash.exit_code.is_some_and(|code| code != 0)
                    || scan.tests_failed;
                if !failed {
                    self.apply_tree_effects(&command);
                }
                self.command_outcome(&command, !failed, bash.exit_code, &scan, bash.cancelled);
            }
            AgentMessage::CompactionSummary(summary) => {
                self.earlier_summaries.push(clip(&one_line(&summary.summary), 400));
            }
            AgentMessage::BranchSummary(summary) => {
                self.earlier_summaries
                    .push(format!("Other branch: {}", clip(&one_line(&summary.summary), 400)));
            }
            AgentMessage::Other(_) => {}
        }
    }

    pub(super) fn observe_user(&mut self, text: &str) {
        self.abandon_pending();
        if is_slash_command(text) {
            return;
        }
        let (prose, pasted) = split_user_text(text);
        for error in scan_output(pasted.iter().map(String::as_str)).errors {
            self.user_errors.retain(|known| known != &error);
            self.user_errors.push(error);
        }
        let statements = std::mem::take(&mut self.turn_statements);
        // A new request makes the previous turn's plan history.
        let stale_plan = std::mem::take(&mut self.plan);
        let correction = is_correction(&prose);
        if correction && statements.is_empty() {
            // The proposal is outside what this digest read (an earlier part of a split
            // turn): the user's words stay whole, and the next reply is what was done.
            self.add_constraint(format!("User correction: {}", verbatim_prefix(&prose, 300)));
            self.after_correction = true;
        } else if correction {
            let words = verbatim_prefix(&prose, 300);
            self.decisions.retain(|decision| !statements.contains(decision));
            drop(stale_plan);
            let mut proposal: Vec<&str> = Vec::new();
            for statement in &statements {
                if !proposal.contains(&statement.as_str()) {
                    proposal.push(statement);
                }
            }
            self.rejected
                .push(Rejected { proposal: clip(&proposal.join(" "), 300), words: words.clone() });
            self.after_correction = true;
            self.add_constraint(words);
        } else {
            for constraint in constraints_of(&prose) {
                self.add_constraint(constraint);
            }
        }
        if let Some(request) = request_of(&prose).filter(|request| says_something(request)) {
            self.requests.push(request);
            self.latest_request = Some(verbatim_prefix(&prose, 1_000));
        }
        self.note_identifiers(head(&prose, 8_000));
    }

    /// What the previous summary says the assistant was about to do: a correction at the
    /// start of this part rejects it.
    pub(super) fn seed_proposals(&mut self, previous: &PreviousSummary) {
        use super::sections::Section;
        for item in previous.section(Section::InProgress) {
            if let Some(step) = item.strip_prefix("Last assistant step: ") {
                self.turn_statements.push(step.to_owned());
            }
        }
        self.turn_statements.extend(previous.section(Section::NextSteps).iter().cloned());
        // The earlier part ended on the user's correction: the first reply here answers it.
        let last_request = previous.section(Section::Goal).iter().rev().find_map(|goal| {
            goal.strip_prefix("Latest request: ")
                .or_else(|| goal.strip_prefix("Request of this turn: "))
        });
        let answered = previous
            .section(Section::Decisions)
            .iter()
            .any(|decision| decision.starts_with("After the user's correction: "));
        self.after_correction = !answered && last_request.is_some_and(is_correction);
    }

    fn add_constraint(&mut self, constraint: String) {
        if !self.constraints.contains(&constraint) {
            self.constraints.push(constraint);
        }
    }

    /// Calls still waiting for a result when the conversation moved on never get one.
    fn abandon_pending(&mut self) {
        self.abandoned.append(&mut self.pending);
    }

    /// Follows the moves and deletions of a shell command that succeeded.
    fn apply_tree_effects(&mut self, command: &str) -> bool {
        let effects = shell_file_effects(command);
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
            }
        }
        let any = !effects.is_empty();
        self.effects.extend(effects);
        any
    }

    /// `paths` (from an earlier summary) after this digest's moves and deletions.
    pub(super) fn carried_paths<'a>(
        &self,
        paths: impl IntoIterator<Item = &'a String>,
    ) -> BTreeSet<String> {
        let mut out: BTreeSet<String> = paths.into_iter().cloned().collect();
        // The previous summary's own moves and deletions first (a split turn's part may
        // have moved files its history part lists), then this digest's.
        let recorded = self.previous.as_ref().map(previous_effects).unwrap_or_default();
        for effect in recorded.iter().chain(&self.effects) {
            match effect {
                FileEffect::Moved { from, to } => {
                    let moved: Vec<String> =
                        out.iter().filter(|path| is_under(path, from)).cloned().collect();
                    for path in moved {
                        out.remove(&path);
                        out.insert(format!("{to}{}", &path[from.len()..]));
                    }
                }
                FileEffect::Deleted { path: deleted } => {
                    out.retain(|path| !is_under(path, deleted))
                }
            }
        }
        out
    }

    pub(super) fn observe_assistant_text(&mut self, text: &str) {
        for decision in decisions_of(text) {
            self.decisions.retain(|known| known != &decision);
            self.turn_statements.push(decision.clone());
            self.decisions.push(decision);
        }
        let plan = plan_of(text);
        if std::mem::take(&mut self.after_correction)
            && let Some(accepted) = plan
                .first()
                .cloned()
                .or_else(|| sentences(head(text, 4_000)).into_iter().find(|s| char_len(s) > 3))
        {
            self.decisions.retain(|known| known != &accepted);
            self.decisions.push(format!("After the user's correction: {}", clip(&accepted, 220)));
        }
        if !plan.is_empty() {
            self.turn_statements.extend(plan.iter().cloned());
            self.plan = plan;
        }
        self.last_assistant_statement = sentences(head(text, 4_000))
            .into_iter()
            .find(|sentence| char_len(sentence) > 3)
            .map(|sentence| clip(&sentence, 200));
        if let Some(statement) = &self.last_assistant_statement
            && !self.turn_statements.contains(statement)
        {
            self.turn_statements.push(statement.clone());
        }
        self.note_identifiers(head(text, 16_000));
    }

    pub(super) fn note_identifiers(&mut self, text: &str) {
        for span in backticked(text) {
            if looks_like_identifier(span) && !self.identifiers.iter().any(|known| known == span) {
                if self.identifiers.len() >= MAX_IDENTIFIERS {
                    self.identifiers.remove(0);
                }
                self.identifiers.push(span.to_owned());
            }
        }
    }

    pub(super) fn take_pending(&mut self, id: &str, tool_name: &str) -> PendingCall {
        match self.pending.iter().position(|call| call.id == id) {
            Some(position) => self.pending.remove(position),
            None => PendingCall {
                id: id.to_owned(),
                name: tool_name.to_lowercase(),
                path: None,
                command: None,
            },
        }
    }

    pub(super) fn observe_tool_result(&mut self, result: &crate::message::ToolResultMessage) {
        let call = self.take_pending(&result.tool_call_id, &result.tool_name);
        let lines = content_lines(&result.content);
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
                    self.modified_files.insert(path.clone());
                    self.resolve(&format!("modify:{path}"));
                    match self.changes.iter_mut().find(|change| change.path == path) {
                        Some(change) => {
                            change.times += 1;
                            if verb == "Wrote" {
                                change.verb = verb;
                            }
                        }
                        None => self.changes.push(FileChange { path, verb, times: 1 }),
                    }
                    self.last_was_failure = false;
                }
            }
            (ToolRole::Read, Some(path), _) => {
                if result.is_error {
                    let first = first_line(lines.clone()).map(|l| code(&l));
                    let detail = first.as_deref().map(|e| format!(": {e}")).unwrap_or_default();
                    self.fail(
                        format!("read:{path}"),
                        format!("reading {}", code(&path)),
                        format!("Reading {} failed{detail}", code(&path)),
                        first,
                    );
                } else {
                    self.read_files.insert(path.clone());
                    self.resolve(&format!("read:{path}"));
                }
            }
            (ToolRole::Shell, _, Some(command)) => {
                if is_read_only_command(&command) {
                    return;
                }
                let scan = scan_output(lines.clone());
                let failed = result.is_error
                    || scan.exit_code.is_some_and(|code| code != 0)
                    || scan.tests_failed;
                if !failed {
                    self.apply_tree_effects(&command);
                }
                self.command_outcome(&command, !failed, scan.exit_code, &scan, false);
            }
            (ToolRole::Modify(_) | ToolRole::Read | ToolRole::Shell | ToolRole::Other, _, _) => {
                if result.is_error {
                    let scan = scan_output(lines.clone());
                    let first = scan
                        .errors
                        .first()
                        .cloned()
                        .or_else(|| first_line(lines.clone()).map(|l| code(&l)));
                    let detail = first.as_deref().map(|e| format!(": {e}")).unwrap_or_default();
                    let target = call
                        .path
                        .as_deref()
                        .map(|p| format!(" on {}", code(p)))
                        .unwrap_or_default();
                    self.fail(
                        format!("tool:{}:{}", call.name, call.path.as_deref().unwrap_or("")),
                        format!("the tool {}", code(&call.name)),
                        format!("Tool {}{target} failed{detail}", code(&call.name)),
                        first,
                    );
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
            let text = format!("Ran {}{detail}", code(&clip(command, 160)));
            self.passing.retain(|(known, _)| known != command);
            if shell_file_effects(command).is_empty() {
                self.passing.push((command.to_owned(), text));
            }
            let mut resolved = self.resolve(&format!("cmd:{command}"));
            // The whole suite passing (`pytest`, `npm test`) resolves narrower runs of it.
            let (family, targeted) = command_family(command);
            if !targeted {
                let keys: Vec<String> = self
                    .failures
                    .iter()
                    .filter(|f| !f.resolved)
                    .filter_map(|f| f.key.strip_prefix("cmd:"))
                    .filter(|failed| command_family(failed).0 == family)
                    .map(|failed| format!("cmd:{failed}"))
                    .collect();
                for key in keys {
                    resolved = self.resolve(&key).or(resolved);
                }
            }
            if let Some(error) = resolved {
                self.fixed.push(format!(
                    "{} passes now (earlier failure: {error})",
                    code(&clip(command, 160)),
                ));
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
            let mut text = format!("{}{status}", code(&clip(command, 160)));
            if !scan.errors.is_empty() {
                let shown: Vec<String> = scan.errors.iter().take(2).cloned().collect();
                text.push_str(": ");
                text.push_str(&shown.join("; "));
            }
            self.passing.retain(|(known, _)| known != command);
            self.fail(format!("cmd:{command}"), code(&clip(command, 160)), text, error);
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
        }
        self.failures.push(Failure {
            key,
            subject,
            text,
            error,
            what,
            error_line,
            resolved: false,
        });
        self.last_was_failure = true;
    }

    /// Marks the open failures with `key` resolved; returns the first error of the latest.
    pub(super) fn resolve(&mut self, key: &str) -> Option<String> {
        let mut resolved = None;
        for failure in self.failures.iter_mut().filter(|f| f.key == key && !f.resolved) {
            failure.resolved = true;
            resolved = Some(failure.error.clone().unwrap_or_else(|| failure.text.clone()));
        }
        resolved
    }

    /// Commands that passed in these messages (for resolving a previous summary's items).
    pub(super) fn passed_commands(&self) -> Vec<&str> {
        self.commands
            .iter()
            .filter(|runs| runs.last_passed == Some(true))
            .map(|runs| runs.command.as_str())
            .collect()
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum ToolRole {
    Modify(&'static str),
    Read,
    Shell,
    Other,
}

pub(super) fn tool_role(name: &str) -> ToolRole {
    match name {
        "edit" | "multiedit" | "multi_edit" | "str_replace" | "apply_patch" => {
            ToolRole::Modify("Edited")
        }
        "write" | "create" | "write_file" => ToolRole::Modify("Wrote"),
        "read" | "read_file" | "view" | "cat" => ToolRole::Read,
        "bash" | "shell" | "exec" | "run" | "terminal" => ToolRole::Shell,
        _ => ToolRole::Other,
    }
}

pub(super) fn path_argument(arguments: &Value) -> Option<String> {
    ["path", "file_path", "filePath", "file"]
        .iter()
        .find_map(|key| arguments.get(*key).and_then(Value::as_str))
        .map(str::to_owned)
        .filter(|path| !path.is_empty())
}

pub(super) fn command_argument(arguments: &Value) -> Option<String> {
    ["command", "cmd"]
        .iter()
        .find_map(|key| arguments.get(*key).and_then(Value::as_str))
        .map(one_line)
        .filter(|command| !command.is_empty())
}

/// The moves and deletions a previous summary records as Done items
/// ("Moved `a` to `b`", "Deleted `x`").
fn previous_effects(previous: &PreviousSummary) -> Vec<FileEffect> {
    use super::sections::Section;
    previous
        .section(Section::Done)
        .iter()
        .filter_map(|item| {
            let spans = backticked(item);
            if item.starts_with("Moved ") && spans.len() == 2 {
                Some(FileEffect::Moved { from: spans[0].to_owned(), to: spans[1].to_owned() })
            } else if item.starts_with("Deleted ") && spans.len() == 1 {
                Some(FileEffect::Deleted { path: spans[0].to_owned() })
            } else {
                None
            }
        })
        .collect()
}

/// Whether `path` is `base` or lies under the directory `base`.
pub(super) fn is_under(path: &str, base: &str) -> bool {
    !base.is_empty()
        && (path == base || path.strip_prefix(base).is_some_and(|rest| rest.starts_with('/')))
}

/// A command's family: its words that are not options and come before the first one
/// naming a path or a test (`python -m pytest tests/a.py -q` → `python pytest`), and
/// whether it names such a target.
pub(super) fn command_family(command: &str) -> (String, bool) {
    let mut family = Vec::new();
    for word in command.split_whitespace() {
        if word.starts_with('-') {
            continue;
        }
        if word.contains(['/', '.', ':']) {
            return (family.join(" "), true);
        }
        family.push(word);
    }
    (family.join(" "), false)
}

/// Whether a request says more than one word ("ls", "continue" do not).
fn says_something(request: &str) -> bool {
    request.split_whitespace().count() >= 2 || (!request.is_ascii() && char_len(request) >= 4)
}

/// What a failure key names, as plain text: the command, or the operation and its path.
pub(super) fn plain_subject(key: &str) -> String {
    match key.split_once(':') {
        Some(("cmd", command)) => command.to_owned(),
        Some(("modify", path)) => format!("edit {path}"),
        Some(("read", path)) => format!("read {path}"),
        Some(("tool", rest)) => rest.trim_end_matches(':').replacen(':', " ", 1),
        Some(_) | None => key.to_owned(),
    }
}

/// The text of the first inline code span of `error` (the error line as it appeared).
pub(super) fn plain_error(error: &str) -> String {
    if let Some(rest) = error.strip_prefix("`` ")
        && let Some(end) = rest.find(" ``")
    {
        return rest[..end].to_owned();
    }
    if let Some(rest) = error.strip_prefix('`')
        && let Some(end) = rest.find('`')
    {
        return rest[..end].to_owned();
    }
    error.to_owned()
}
