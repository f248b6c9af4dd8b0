//! The digest's records: what one pass over the messages collects (requests, constraints,
//! file changes, command runs, failures, plans, identifiers) and the records it keeps them
//! in. `outcomes` fills it from tool results and commands, `facts` from the messages.
//!
//! Invariant: plain data; a failure is open until it is resolved or set aside.

use std::collections::BTreeSet;

use super::calls::CommandRuns;
use super::changes::FileChange;
use super::previous::PreviousSummary;
use super::text::{clip, code};
use crate::files::FileEffect;

/// An approach the assistant proposed and the user turned down right after.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Rejected {
    /// The assistant's proposal, as it said it.
    pub(super) proposal: String,
    /// The user's correction, verbatim.
    pub(super) words: String,
    /// The statements the proposal was made of.
    pub(super) statements: Vec<String>,
}

impl Rejected {
    /// Whether `text` (a decision, a step) states the rejected proposal or part of it.
    pub(super) fn covers(&self, text: &str) -> bool {
        self.proposal.contains(text)
            || self.statements.iter().any(|statement| {
                statement.split_whitespace().count() >= 4 && text.contains(statement.as_str())
            })
    }
}

/// A choice a later statement replaced ("use X instead of Y", "it's 3001, not 8080"): the
/// replaced words, and how many decisions, constraints, turns and requests came before the
/// statement (what came before it is what it may replace).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Replacement {
    /// The replaced words, lower-cased.
    pub(super) phrase: String,
    /// The statement that replaced them.
    pub(super) by: String,
    pub(super) decisions_at: usize,
    pub(super) constraints_at: usize,
    /// The turns (of `Digest::notes`) that ended before the statement.
    pub(super) turns_at: usize,
    /// The requests (of `Digest::replies`) answered before the statement.
    pub(super) requests_at: usize,
    /// The subject terms of the statement (see `switches`): with no phrase, a statement
    /// replaces what shares two of them; with one, what holds the phrase's first word and
    /// shares one.
    pub(super) terms: Vec<String>,
    /// Whether the user said it (a change of mind), not the assistant (its description of
    /// what it did "rather than" something).
    pub(super) from_user: bool,
}

/// A tool call whose result has not been seen yet.
#[derive(Debug, Clone)]
pub(super) struct PendingCall {
    pub(super) id: String,
    pub(super) name: String,
    pub(super) path: Option<String>,
    pub(super) command: Option<String>,
    /// The command as written, its lines kept (a heredoc's body is no part of the command
    /// line: its `>` redirects nothing).
    pub(super) script: Option<String>,
    /// The lines the call would add to the file (an edit's new lines), shown once it passes.
    pub(super) added: super::changes::Added,
    /// The values the call would replace (an edit of a setting), followed once it passes.
    pub(super) values: Vec<super::values::ValueChange>,
    /// The patch of an `apply_patch` call: its moves and deletions count once it passes.
    pub(super) patch: Option<String>,
    /// The prose the call would put into documents, by path (see `documents`).
    pub(super) documents: Vec<(String, String)>,
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
    /// The user rejected the approach of the turn it failed in: no longer something to fix.
    pub(super) set_aside: bool,
    /// How many user messages came before it (the turn it belongs to).
    pub(super) turn: usize,
    /// How many decisions and edits the digest held when it failed: those after are what
    /// was done about it.
    pub(super) decisions_at: usize,
    pub(super) edits_at: usize,
}

impl Failure {
    /// Whether it is still something to fix.
    pub(super) fn is_open(&self) -> bool {
        !self.resolved && !self.set_aside
    }
}

/// A command that passes after it failed.
#[derive(Debug, Clone)]
pub(super) struct Fixed {
    pub(super) command: String,
    /// The error of the failure it resolved, in inline code.
    pub(super) error: String,
    /// The test counts of its latest passing run.
    pub(super) counts: Option<String>,
    /// What the assistant found or decided between the failure and the pass.
    pub(super) diagnosis: Option<String>,
    /// The files edited between the failure and the pass.
    pub(super) edited: Vec<String>,
}

impl Fixed {
    /// The Done item.
    pub(super) fn text(&self) -> String {
        let counts = self.counts.as_deref().map(|counts| format!("{counts}; ")).unwrap_or_default();
        let mut fix = String::new();
        if let Some(diagnosis) = &self.diagnosis {
            fix.push_str(&format!("; then: {diagnosis}"));
        }
        if !self.edited.is_empty() {
            let files: Vec<String> = self.edited.iter().map(|path| code(path)).collect();
            fix.push_str(&format!("; fixed by editing {}", files.join(", ")));
        }
        format!(
            "{} passes now ({counts}earlier failure: {}{fix})",
            code(&clip(&self.command, 160)),
            self.error
        )
    }
}

/// A request the user made and what answered it.
#[derive(Debug)]
pub(super) struct Request {
    pub(super) text: String,
    /// What the assistant answered (see `extract::key_reply`).
    pub(super) reply: Option<String>,
    /// What the request's turn changed first (see `note_change`): its outcome when the turn
    /// ended with no words that say it.
    pub(super) edit: Option<super::changes::TurnEdit>,
}

#[derive(Debug, Default)]
pub(super) struct Digest {
    pub(super) previous: Option<PreviousSummary>,
    /// The requests of these messages, oldest first, each with what answered it.
    pub(super) requests: Vec<Request>,
    /// The latest user message that makes a request, trimmed.
    pub(super) latest_request: Option<String>,
    pub(super) constraints: Vec<String>,
    pub(super) changes: Vec<FileChange>,
    pub(super) passing: Vec<(String, String)>,
    /// Commands that pass after failing.
    pub(super) fixed: Vec<Fixed>,
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
    /// The items of the lists the latest assistant text gave as done or found, when it
    /// ended the turn (see [`super::extract::plan_of`]).
    pub(super) reported: Vec<String>,
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
    /// What the assistant answered to each error the user pasted (same order).
    pub(super) user_error_replies: Vec<Option<String>>,
    /// Errors the user just pasted that wait for the assistant's answer.
    pub(super) unanswered_errors: Vec<String>,
    /// Whether the user just corrected the assistant: its next statement is the approach
    /// taken instead.
    pub(super) after_correction: bool,
    /// Whether the user's latest message asked a question (ended with a question mark):
    /// a "no, I mean …" after it restates the question (see `refuses_nothing`).
    pub(super) user_asked: bool,
    /// Files moved and deleted by shell commands that succeeded, in order.
    pub(super) effects: Vec<FileEffect>,
    /// User messages seen so far.
    pub(super) user_turns: usize,
    /// The command of the failure the previous summary left to fix next.
    pub(super) carried_failure: Option<String>,
    /// The user rejected the approach the previous summary ended on: its failure is not
    /// what to fix.
    pub(super) carried_failure_set_aside: bool,
    /// The user interrupted the turn of the last assistant statement.
    pub(super) interrupted: bool,
    /// Decisions stated since the last user message.
    pub(super) turn_decisions: Vec<String>,
    /// The last turn has not ended with a final reply (it was cut, or waits for a result):
    /// its decisions are the approach in progress, which the user may still turn down.
    pub(super) turn_open: bool,
    /// Done items for the moves and deletions.
    pub(super) tree_changes: Vec<String>,
    /// The question the assistant's latest text ended on, until the user answers it.
    pub(super) open_question: Option<String>,
    /// Each error of `errors` with the key of the failure it came from.
    pub(super) error_keys: Vec<(String, String)>,
    /// Summaries of branches the user came back from, one line each.
    pub(super) branch_summaries: Vec<String>,
    /// What checks found by failing (a read of a missing file, a search, a version check,
    /// a tool's refusal): answers, not failures of the work. Newest last.
    pub(super) checks: Vec<String>,
    /// Commands whose outcome the transcript does not show (a pipe hides the exit code and
    /// the output shows an error): the command and the last lines of its output.
    pub(super) unclear: Vec<String>,
    /// The path of each successful edit, in order.
    pub(super) edit_log: Vec<String>,
    /// Distinctive words of command outputs (ids, counts, versions) with the line that
    /// printed them: a later step that uses one makes the line a fact to keep.
    pub(super) output_words: std::collections::HashMap<String, String>,
    /// Lines of command outputs that later steps used, newest last.
    pub(super) used_facts: Vec<String>,
    /// Commands and tools of calls the user rejected or stopped.
    pub(super) rejected_calls: Vec<String>,
    /// Choices later statements replaced.
    pub(super) replacements: Vec<Replacement>,
    /// Values (settings, versions, ports) that edits, `sed -i` or a correction replaced,
    /// in order.
    pub(super) value_changes: Vec<super::values::ValueChange>,
    /// The fact-bearing sentences of each turn, oldest first.
    pub(super) notes: Vec<super::notes::TurnNotes>,
    /// What the assistant answered before the first user message of these messages: the
    /// answer to the request (and the pasted errors) the previous summary ended on, which a
    /// cut between a message and its answer left there. The first answer and the last.
    pub(super) carried_replies: Option<(String, String)>,
    /// The messages after the summarized part make a request of their own: the last one
    /// summarized is an earlier request (see `outcomes::settled`).
    pub(super) request_after: bool,
    /// Values the messages after the summarized part replaced.
    pub(super) settled_values: Vec<super::values::ValueChange>,
    /// Files the messages after the summarized part moved or deleted.
    pub(super) settled_effects: Vec<FileEffect>,
}

pub(super) const MAX_IDENTIFIERS: usize = 24;
