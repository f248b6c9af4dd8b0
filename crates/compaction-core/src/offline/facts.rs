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
use crate::message::{AgentMessage, ContentBlock};

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
                if !text.trim().is_empty() {
                    self.observe_assistant_text(&text);
                }
                if assistant.is_failed() {
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
                } else if !text.trim().is_empty() {
                    self.resolve("model-reply");
                }
            }
            AgentMessage::ToolResult(result) => self.observe_tool_result(result),
            AgentMessage::BashExecution(bash) => {
                let command = one_line(&bash.command);
                let scan = scan_output(bash.output.lines());
                let failed = bash.cancelled
                    || bash.exit_code.is_some_and(|code| code != 0)
                    || scan.tests_failed;
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
        if let Some(request) = request_of(text) {
            self.requests.push(request);
            self.latest_request = Some(text.trim().to_owned());
        }
        for constraint in constraints_of(text) {
            if !self.constraints.contains(&constraint) {
                self.constraints.push(constraint);
            }
        }
        self.note_identifiers(head(text, 8_000));
    }

    pub(super) fn observe_assistant_text(&mut self, text: &str) {
        for decision in decisions_of(text) {
            self.decisions.retain(|known| known != &decision);
            self.decisions.push(decision);
        }
        let plan = plan_of(text);
        if !plan.is_empty() {
            self.plan = plan;
        }
        self.last_assistant_statement = sentences(head(text, 4_000))
            .into_iter()
            .find(|sentence| char_len(sentence) > 3)
            .map(|sentence| clip(&sentence, 200));
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
                let scan = scan_output(lines.clone());
                let failed = result.is_error
                    || scan.exit_code.is_some_and(|code| code != 0)
                    || scan.tests_failed;
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
            self.passing.push((command.to_owned(), text));
            let resolved = self.resolve(&format!("cmd:{command}"));
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
