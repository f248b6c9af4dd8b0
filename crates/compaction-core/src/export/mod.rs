//! Conversion of a pi session's context into a transcript another agent resumes: a Claude
//! Code session file or a Codex CLI rollout (the way back from [`crate::import`]).
//!
//! What is written is the context at the leaf, as the model sees it after the latest
//! compaction: the compaction summary, carried the way the agent carries its own (Claude
//! Code: a `compact_boundary` line, then a user message marked `isCompactSummary`; Codex: a
//! `compacted` line whose replacement history is the summary as a user message), then every
//! kept message with its tool calls and results. pi's own roles that are not LLM roles
//! (shell commands the user ran, extension messages, branch summaries, pins) become user
//! text, as the model already received them. pi's `read`, `write`, `edit` and `bash` calls
//! take the agent's tool names and argument names; every other tool keeps its own.
//!
//! What is left out is counted in [`ExportReport::dropped`]: system messages and the
//! compaction's system checkpoint (the agent brings its own system prompt), reasoning the
//! agent cannot send back (Claude Code needs an Anthropic signature; Codex reasoning is
//! replayed only encrypted), images in Codex tool outputs, images the agent cannot read (a
//! type its API does not take, data that is no base64; each becomes a note). What is added
//! or reshaped is counted in [`ExportReport::added`]: a result for a call that has none
//! (both APIs refuse a call without its result); a result whose call is not in the context
//! becomes user text, written after the results of the reply it stands among (so they stay
//! together right after their calls); a call id that is given twice in the transcript or
//! that the agent does not take (Claude Code: `[A-Za-z0-9_-]`, 1–64 characters; Codex: 1–64
//! characters) is rewritten, and its result names the new one; arguments that are no
//! object are kept under `arguments`; a call without a name is `unnamed_tool`; an error
//! result without output says so. A tool's arguments are mapped to the agent's names only
//! when no argument is lost (no name the arguments already hold is written, no key of a
//! form the mapping does not read is taken); otherwise pi's tool is kept as it is.
//!
//! Invariant: every text written from the session (messages, tool arguments and results,
//! the summary) has passed through the redactor, and the same input gives the same bytes.

mod claude;
mod codex;
mod conversation;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_round18;

use std::collections::BTreeMap;

use serde::Serialize;

use crate::redact::Redactor;
use crate::session::Session;

pub use conversation::CLAUDE_CODE_SUMMARY_PREFACE;
pub use conversation::CODEX_SUMMARY_PREFIX;

/// The agent whose transcript is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum TargetFormat {
    /// A Claude Code session file (`~/.claude/projects/<project>/<session id>.jsonl`).
    ClaudeCode,
    /// A Codex CLI rollout (`~/.codex/sessions/YYYY/MM/DD/rollout-…-<session id>.jsonl`).
    Codex,
}

impl TargetFormat {
    /// The name used on the command line and in JSON output.
    pub fn as_str(self) -> &'static str {
        match self {
            TargetFormat::ClaudeCode => "claude-code",
            TargetFormat::Codex => "codex",
        }
    }
}

/// What the caller decides: identity, place and time of the new transcript.
#[derive(Debug, Clone)]
pub struct ExportOptions {
    /// The new session id, a UUID (`xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx`). Claude Code's line
    /// ids are derived from it.
    pub session_id: String,
    /// The project directory the agent resumes in.
    pub cwd: String,
    /// When the transcript is written (ISO-8601 UTC), stamped on every line.
    pub timestamp: String,
}

/// What an export wrote and what it left out.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ExportReport {
    /// The format written.
    pub format: TargetFormat,
    /// The new session id.
    pub session_id: String,
    /// Whether the context starts with a compaction summary (false: the session has no
    /// compaction on the path and the whole context is written).
    pub summary: bool,
    /// Lines of the transcript.
    pub lines: usize,
    /// User messages written (the summary not counted).
    pub user_messages: usize,
    /// Assistant messages written.
    pub assistant_messages: usize,
    /// Tool calls written.
    pub tool_calls: usize,
    /// Tool results written (added ones included).
    pub tool_results: usize,
    /// Texts (and argument strings) in which the redactor replaced a secret.
    pub redacted_texts: usize,
    /// What was left out, by kind, with a count.
    pub dropped: BTreeMap<String, usize>,
    /// What was added or reshaped so the agent accepts the history, by kind, with a count.
    pub added: BTreeMap<String, usize>,
}

/// A written transcript: its text and the report.
#[derive(Debug, Clone)]
pub struct Exported {
    /// The transcript, JSON Lines, each line ending in `\n`.
    pub transcript: String,
    /// What was written and what was left out.
    pub report: ExportReport,
}

/// Why a session could not be exported.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ExportError {
    /// The session id is not a UUID (both agents look sessions up by UUID).
    #[error("the session id `{0}` is not a UUID (xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx)")]
    BadSessionId(String),
    /// The context at the leaf holds no message and no summary.
    #[error("the context at the leaf is empty: nothing to export")]
    Empty,
}

/// A timeout of pi's in seconds as milliseconds, when it is a finite count of seconds that
/// is not negative and whose milliseconds fit (`None`: it stays as it was).
fn millis(seconds: &serde_json::Value) -> Option<u64> {
    let millis = (seconds.as_f64()? * 1000.0).round();
    (millis.is_finite() && (0.0..=u64::MAX as f64).contains(&millis)).then_some(millis as u64)
}

/// Whether `text` is a UUID in its usual hyphenated form.
pub fn is_uuid(text: &str) -> bool {
    let bytes = text.as_bytes();
    bytes.len() == 36
        && bytes.iter().enumerate().all(|(i, &b)| match i {
            8 | 13 | 18 | 23 => b == b'-',
            _ => b.is_ascii_hexdigit(),
        })
}

/// Converts the context at `leaf` (an entry index; `None`: the empty context) into a
/// transcript of `format`. Every text passes through `redactor`.
pub fn export(
    session: &Session,
    leaf: Option<usize>,
    format: TargetFormat,
    options: &ExportOptions,
    redactor: &Redactor,
) -> Result<Exported, ExportError> {
    if !is_uuid(&options.session_id) {
        return Err(ExportError::BadSessionId(options.session_id.clone()));
    }
    let conversation = conversation::Conversation::of(session, leaf, format, redactor);
    if conversation.summary.is_none() && conversation.items.is_empty() {
        return Err(ExportError::Empty);
    }
    let lines = match format {
        TargetFormat::ClaudeCode => claude::lines(&conversation, options),
        TargetFormat::Codex => codex::lines(&conversation, options),
    };
    let mut transcript = String::new();
    for line in &lines {
        transcript.push_str(&line.to_string());
        transcript.push('\n');
    }
    let report = conversation.report(format, &options.session_id, lines.len());
    Ok(Exported { transcript, report })
}
