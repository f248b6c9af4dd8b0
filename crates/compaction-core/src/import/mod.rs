//! Conversion of other agents' transcripts into pi sessions: Claude Code transcripts
//! (`.jsonl` lines with `parentUuid` / `sessionId`) and Codex CLI rollouts
//! (`rollout-*.jsonl`, `session_meta` / `response_item` lines, and the older form whose
//! lines are the response items themselves).
//!
//! What is kept: every user and assistant text, reasoning text, every tool call with its
//! arguments, every tool result with its error flag (and Codex's exit code in `details`),
//! images. Tools whose meaning matches one of pi's are renamed and their arguments take pi's
//! names (Claude Code `Read`/`Write`/`Edit`/`MultiEdit`/`Bash`, Codex `shell`,
//! `shell_command`, `exec_command`, `local_shell_call`); every other tool keeps its name and
//! arguments (Codex `apply_patch` keeps its patch text in `input`). Text that reached the
//! model in a user-role message but is not the user's words (Claude Code `isMeta` lines,
//! its own compaction summaries, Codex's AGENTS.md and environment blocks) becomes a
//! `custom_message`; Codex developer and system instructions become `custom` entries
//! (kept, outside the context). What is dropped is counted in [`ImportReport::dropped`]:
//! bookkeeping lines (file snapshots, queue operations, token counts, the event stream that
//! repeats the response items), sub-agent side chains, encrypted or redacted reasoning.
//!
//! Invariant: the output is a version 3 pi session that parses without warnings or errors,
//! every text in it has passed through the engine's redaction, and the same input always
//! gives the same bytes.

mod build;
mod claude;
mod codex;
#[cfg(test)]
mod tests;

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::Value;

use crate::redact::Redactor;

/// The agent whose transcript is imported.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum SourceFormat {
    /// Claude Code: one JSON object per line with `uuid`, `parentUuid`, `sessionId`, `type`.
    ClaudeCode,
    /// Codex CLI: a rollout file of `session_meta`, `turn_context`, `response_item` and
    /// `event_msg` lines (or, in older files, the response items themselves).
    Codex,
}

impl SourceFormat {
    /// The name used on the command line and in JSON output.
    pub fn as_str(self) -> &'static str {
        match self {
            SourceFormat::ClaudeCode => "claude-code",
            SourceFormat::Codex => "codex",
        }
    }
}

/// What an import produced and what it left out.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ImportReport {
    /// The format that was read.
    pub format: SourceFormat,
    /// Lines read from the transcript (blank lines not counted).
    pub lines: usize,
    /// Entries written to the session (the header not counted).
    pub entries: usize,
    /// User messages written.
    pub user_messages: usize,
    /// Assistant messages written.
    pub assistant_messages: usize,
    /// Tool calls written.
    pub tool_calls: usize,
    /// Tool results written.
    pub tool_results: usize,
    /// Of those, results flagged as errors.
    pub tool_errors: usize,
    /// Texts (and argument strings) in which the redactor replaced a secret.
    pub redacted_texts: usize,
    /// Tool calls renamed to pi's tools, by `source → pi` name.
    pub renamed_tools: BTreeMap<String, usize>,
    /// What was left out, by kind, with a count.
    pub dropped: BTreeMap<String, usize>,
}

/// A converted transcript: the session file's text and the report.
#[derive(Debug, Clone)]
pub struct Imported {
    /// The pi session, JSON Lines, header first, each line ending in `\n`.
    pub session: String,
    /// What was converted and what was left out.
    pub report: ImportReport,
}

/// Why a transcript could not be converted.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ImportError {
    /// A line is not a JSON object (1-based line number).
    #[error("line {line}: not a JSON object: {message}")]
    NotJson {
        /// The 1-based line number.
        line: usize,
        /// What the JSON reader said.
        message: String,
    },
    /// The file has no line that either format recognizes.
    #[error(
        "not a Claude Code transcript or a Codex rollout: no line has `sessionId` with \
         `parentUuid`, nor `session_meta` / `response_item`"
    )]
    UnknownFormat,
    /// The transcript holds no message to convert.
    #[error("no user or assistant message in the transcript")]
    NoMessages,
}

/// One line of the transcript, parsed.
pub(crate) struct Line {
    pub(crate) value: Value,
}

/// Parses the non-blank lines of a transcript; a line that is not a JSON object is an error.
fn lines(text: &str) -> Result<Vec<Line>, ImportError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut out = Vec::new();
    for (index, raw) in text.lines().enumerate() {
        let raw = raw.trim();
        if raw.is_empty() {
            continue;
        }
        let value: Value = serde_json::from_str(raw)
            .map_err(|e| ImportError::NotJson { line: index + 1, message: e.to_string() })?;
        if !value.is_object() {
            return Err(ImportError::NotJson {
                line: index + 1,
                message: "the line is JSON but not an object".into(),
            });
        }
        out.push(Line { value });
    }
    Ok(out)
}

/// The format of a transcript, from its lines; `None` when neither format fits.
pub fn detect(text: &str) -> Option<SourceFormat> {
    let lines = lines(text).ok()?;
    detect_lines(&lines)
}

fn detect_lines(lines: &[Line]) -> Option<SourceFormat> {
    for line in lines {
        let value = &line.value;
        if value.get("sessionId").is_some() && value.get("parentUuid").is_some() {
            return Some(SourceFormat::ClaudeCode);
        }
        let kind = value.get("type").and_then(Value::as_str);
        if matches!(kind, Some("session_meta" | "response_item" | "turn_context"))
            && value.get("payload").is_some()
        {
            return Some(SourceFormat::Codex);
        }
        // An older rollout: a first line with the session id and instructions, then bare items.
        if kind.is_none() && value.get("id").is_some() && value.get("instructions").is_some() {
            return Some(SourceFormat::Codex);
        }
    }
    None
}

/// Converts a transcript into a pi session. `format` forces a format; `None` detects it.
/// Every text passes through `redactor`.
pub fn import(
    text: &str,
    format: Option<SourceFormat>,
    redactor: &Redactor,
) -> Result<Imported, ImportError> {
    let lines = lines(text)?;
    let format = match format {
        Some(format) => format,
        None => detect_lines(&lines).ok_or(ImportError::UnknownFormat)?,
    };
    let mut builder = build::Builder::new(redactor);
    let header = match format {
        SourceFormat::ClaudeCode => claude::convert(&lines, &mut builder),
        SourceFormat::Codex => codex::convert(&lines, &mut builder),
    };
    let report = report(format, lines.len(), &builder);
    if report.user_messages + report.assistant_messages == 0 {
        return Err(ImportError::NoMessages);
    }
    Ok(Imported { session: builder.finish(&header), report })
}

/// Counts what the builder wrote.
fn report(format: SourceFormat, lines: usize, builder: &build::Builder<'_>) -> ImportReport {
    let mut report = ImportReport {
        format,
        lines,
        entries: builder.len(),
        user_messages: 0,
        assistant_messages: 0,
        tool_calls: 0,
        tool_results: 0,
        tool_errors: 0,
        redacted_texts: builder.redacted,
        renamed_tools: builder.renamed.clone(),
        dropped: builder.dropped.clone(),
    };
    for entry in builder.entries() {
        let Some(message) = entry.get("message") else { continue };
        match message.get("role").and_then(Value::as_str) {
            Some("user") => report.user_messages += 1,
            Some("assistant") => {
                report.assistant_messages += 1;
                let calls = message.get("content").and_then(Value::as_array).map_or(0, |c| {
                    c.iter()
                        .filter(|b| b.get("type").and_then(Value::as_str) == Some("toolCall"))
                        .count()
                });
                report.tool_calls += calls;
            }
            Some("toolResult") => {
                report.tool_results += 1;
                if message.get("isError").and_then(Value::as_bool) == Some(true) {
                    report.tool_errors += 1;
                }
            }
            Some(_) | None => {}
        }
    }
    report
}
