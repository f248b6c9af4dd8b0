//! Conversion of other agents' transcripts into pi sessions: Claude Code transcripts
//! (`.jsonl` lines with `parentUuid` / `sessionId`), Codex CLI rollouts
//! (`rollout-*.jsonl`, `session_meta` / `response_item` lines, and the older form whose
//! lines are the response items themselves), Cursor agent transcripts (`{role, message}`
//! lines) and Google Antigravity trajectories (`{step_index, source, type, …}` steps).
//!
//! What is kept: every user and assistant text, reasoning text, every tool call with its
//! arguments, every tool result with its error flag (and Codex's exit code in `details`),
//! images, the agent's own compactions (as `compaction` entries) and the token usage it
//! recorded. Tools whose meaning matches one of pi's are renamed and their arguments take
//! pi's names (Claude Code `Read`/`Write`/`Edit`/`MultiEdit`/`Bash`, Codex `shell`,
//! `shell_command`, `exec_command`, `local_shell_call`); every other tool keeps its name and
//! arguments (Codex `apply_patch` keeps its patch text in `input`). Text that reached the
//! model in a user-role message but is not the user's words (Claude Code `isMeta` lines,
//! Codex's AGENTS.md and environment blocks) becomes a `custom_message`; Codex developer and
//! system instructions become `custom` entries (kept, outside the context). What is dropped
//! is counted in [`ImportReport::dropped`].
//!
//! The conversion streams: [`Scan`] reads the lines once for what the header needs, then
//! [`Importer`] converts them one at a time and hands each finished session line to the
//! caller, so memory stays a small multiple of the longest line (plus a few bytes of
//! bookkeeping per line). [`import`] does both passes over a text in memory.
//!
//! Invariant: the output is a version 3 pi session that parses without warnings or errors,
//! with a `cwd` in its header and a usage in pi's full shape on every assistant message;
//! every text in it has passed through the engine's redaction, and the same input always
//! gives the same bytes.

mod antigravity;
mod build;
pub use build::CONTEXT_WINDOW_CUSTOM_TYPE;
mod claude;
mod codex;
mod cursor;
mod instructions;
mod pairing;
mod shape;
pub(crate) use instructions::split_codex_skills;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_agents;
#[cfg(test)]
mod tests_hostile;
#[cfg(test)]
mod tests_order;
#[cfg(test)]
mod tests_round15;
#[cfg(test)]
mod tests_round17;
mod time;
mod tools;

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
    /// Cursor agent transcript: `{"role", "message": {"content"}}` lines.
    Cursor,
    /// Google Antigravity trajectory: one step per line (`step_index`, `source`, `type`).
    Antigravity,
}

impl SourceFormat {
    /// The name used on the command line and in JSON output.
    pub fn as_str(self) -> &'static str {
        match self {
            SourceFormat::ClaudeCode => "claude-code",
            SourceFormat::Codex => "codex",
            SourceFormat::Cursor => "cursor",
            SourceFormat::Antigravity => "antigravity",
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
    /// Messages (user, assistant, tool result) on the path from the last entry to the root:
    /// the conversation pi resumes.
    pub messages_on_path: usize,
    /// Tool results on that path.
    pub tool_results_on_path: usize,
    /// Messages on other branches (a branch the user left in the source agent after several
    /// turns). Kept, off the current path.
    pub messages_off_path: usize,
    /// First versions of messages the user edited and sent again before any answer: kept in
    /// their place as `imported-resent-message` custom entries, outside the context (the
    /// source agent resumes without them too).
    pub resent_messages: usize,
    /// The agent's own compactions, written as `compaction` entries.
    pub compactions: usize,
    /// The context window the transcript records (Codex's `model_context_window`), written
    /// as a `compaction-context-window` entry; `None` when it records none.
    pub context_window: Option<u64>,
    /// Whether the header's `cwd` came from the transcript (else from the caller).
    pub cwd_recorded: bool,
    /// Assistant messages whose usage the transcript did not record (written as zeros).
    pub usage_missing: usize,
    /// Texts (and argument strings) in which the redactor replaced a secret.
    pub redacted_texts: usize,
    /// Tool calls renamed to pi's tools, by `source → pi` name.
    pub renamed_tools: BTreeMap<String, usize>,
    /// What was kept in another form, by kind, with a count (a field of another type read
    /// as its JSON text, a time written in UTC).
    pub converted: BTreeMap<String, usize>,
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
        "not a Claude Code transcript, a Codex rollout, a Cursor transcript or an Antigravity \
         trajectory: no line has `sessionId` with `parentUuid`, `session_meta` / \
         `response_item`, `role` with `message`, nor a `USER_INPUT` / `PLANNER_RESPONSE` step"
    )]
    UnknownFormat,
    /// The transcript holds no message to convert.
    #[error("no user or assistant message in the transcript")]
    NoMessages,
}

/// How to import.
#[derive(Debug, Clone, Default)]
pub struct ImportOptions {
    /// The format to read; `None` detects it from the lines.
    pub format: Option<SourceFormat>,
    /// The header's `cwd` when the transcript records none (pi refuses a header without
    /// one); `/` when `None`.
    pub fallback_cwd: Option<String>,
}

/// Parses one line of a transcript (`number` is 1-based). `Ok(None)` for a blank line.
///
/// A byte-order mark before the first line and a `\r` before the `\n` are ignored. A lone
/// UTF-16 surrogate escape (`"\ud83d"`, which JavaScript writes and reads) is read as U+FFFD,
/// as the session reader reads it.
pub fn parse_line(number: usize, raw: &str) -> Result<Option<Value>, ImportError> {
    let raw = if number == 1 { raw.strip_prefix('\u{feff}').unwrap_or(raw) } else { raw };
    let raw = raw.trim();
    if raw.is_empty() {
        return Ok(None);
    }
    let value = crate::entry::from_json_text::<Value>(raw)
        .map_err(|e| ImportError::NotJson { line: number, message: e.to_string() })?;
    if !value.is_object() {
        return Err(ImportError::NotJson {
            line: number,
            message: "the line is JSON but not an object".into(),
        });
    }
    Ok(Some(value))
}

/// The format a line shows, if it shows one.
fn line_format(value: &Value) -> Option<SourceFormat> {
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
    if kind.is_none()
        && matches!(cursor::role(value), Some("user" | "assistant"))
        && value.get("message").is_some_and(Value::is_object)
    {
        return Some(SourceFormat::Cursor);
    }
    if antigravity::is_step(value) {
        return Some(SourceFormat::Antigravity);
    }
    None
}

/// The format of a transcript, from its lines; `None` when neither format fits (or a line
/// is not JSON).
pub fn detect(text: &str) -> Option<SourceFormat> {
    let mut scan = Scan::default();
    for (index, raw) in text.lines().enumerate() {
        scan.line(index + 1, raw).ok()?;
    }
    scan.format()
}

/// What the first pass over a transcript learns: its format, what the session header says,
/// and what the conversion must know before the first line (whether the file is one
/// sub-agent's side chain, the window it records).
#[derive(Debug, Clone, Default)]
pub struct Scan {
    format: Option<SourceFormat>,
    lines: usize,
    claude: claude::Scan,
    codex: codex::Scan,
    cursor: cursor::Scan,
    antigravity: antigravity::Scan,
}

impl Scan {
    /// Reads line `number` (1-based).
    pub fn line(&mut self, number: usize, raw: &str) -> Result<(), ImportError> {
        let Some(value) = parse_line(number, raw)? else { return Ok(()) };
        self.lines += 1;
        if self.format.is_none() {
            self.format = line_format(&value);
        }
        // Each format's scan reads the line as its importer will (see `shape`).
        self.claude.line(&shape::normalized(SourceFormat::ClaudeCode, &value).0);
        self.codex.line(&shape::normalized(SourceFormat::Codex, &value).0);
        self.cursor.line(&shape::normalized(SourceFormat::Cursor, &value).0);
        self.antigravity.line(&shape::normalized(SourceFormat::Antigravity, &value).0);
        Ok(())
    }

    /// The format the lines show, if any.
    pub fn format(&self) -> Option<SourceFormat> {
        self.format
    }
}

/// The second pass: converts lines one at a time, handing each finished session line
/// (header first, each ending in `\n`) to `out`.
pub struct Importer<'r> {
    format: SourceFormat,
    lines: usize,
    builder: build::Builder<'r>,
    header: Option<build::Header>,
    claude: claude::State,
    codex: codex::State,
    cursor: cursor::State,
    antigravity: antigravity::State,
}

impl<'r> Importer<'r> {
    /// Starts the conversion of the transcript `scan` read. Fails when no format is forced
    /// and the lines show none.
    pub fn new(
        scan: &Scan,
        options: &ImportOptions,
        redactor: &'r Redactor,
    ) -> Result<Self, ImportError> {
        let format = options.format.or(scan.format).ok_or(ImportError::UnknownFormat)?;
        let mut header = match format {
            SourceFormat::ClaudeCode => scan.claude.header(),
            SourceFormat::Codex => scan.codex.header(),
            SourceFormat::Cursor => scan.cursor.header(),
            SourceFormat::Antigravity => scan.antigravity.header(),
        };
        let mut builder = build::Builder::new(redactor);
        builder.cwd_recorded = !header.cwd.is_empty();
        if header.cwd.is_empty() {
            header.cwd = options.fallback_cwd.clone().unwrap_or_else(|| "/".into());
        }
        if format == SourceFormat::Codex {
            builder.context_window = scan.codex.context_window;
        }
        let cursor = cursor::State::new(&header);
        let antigravity = antigravity::State::new(&header);
        Ok(Importer {
            format,
            lines: 0,
            builder,
            header: Some(header),
            claude: claude::State::new(&scan.claude),
            codex: codex::State::new(),
            cursor,
            antigravity,
        })
    }

    /// Converts line `number` (1-based).
    pub fn line(
        &mut self,
        number: usize,
        raw: &str,
        out: &mut dyn FnMut(&str),
    ) -> Result<(), ImportError> {
        let Some(value) = parse_line(number, raw)? else { return Ok(()) };
        self.lines += 1;
        self.start(out);
        // A field of the wrong type is read as text or left out, and counted (see `shape`).
        let (fixed, notes) = shape::normalized(self.format, &value);
        let fixed = match fixed {
            std::borrow::Cow::Owned(fixed) => Some(fixed),
            std::borrow::Cow::Borrowed(_) => None,
        };
        for note in notes {
            let format = self.format.as_str();
            match note {
                shape::Note::Converted(note) => {
                    self.builder.convert(format!("{format} field {note}"))
                }
                shape::Note::Dropped(note) => self.builder.drop(format!("{format} field {note}")),
            }
        }
        let value = fixed.unwrap_or(value);
        match self.format {
            SourceFormat::ClaudeCode => self.claude.line(value, &mut self.builder),
            SourceFormat::Codex => self.codex.line(&value, &mut self.builder),
            SourceFormat::Cursor => self.cursor.line(&value, &mut self.builder),
            SourceFormat::Antigravity => self.antigravity.line(&value, &mut self.builder),
        }
        self.builder.release(self.hold(), out);
        Ok(())
    }

    /// Entries the converter may still change (the last one, while a reply can grow).
    fn hold(&self) -> usize {
        match self.format {
            SourceFormat::ClaudeCode => 1,
            SourceFormat::Codex | SourceFormat::Cursor | SourceFormat::Antigravity => 0,
        }
    }

    /// Writes the header (and the recorded window) once, before the first entry.
    fn start(&mut self, out: &mut dyn FnMut(&str)) {
        if let Some(mut header) = self.header.take() {
            out(&self.builder.header_line(&mut header));
            self.builder.window_entry(&header.timestamp);
        }
    }

    /// Ends the conversion: writes what is left and returns the report.
    pub fn finish(mut self, out: &mut dyn FnMut(&str)) -> Result<ImportReport, ImportError> {
        self.start(out);
        match self.format {
            SourceFormat::ClaudeCode => self.claude.finish(&mut self.builder),
            SourceFormat::Codex => self.codex.finish(&mut self.builder),
            SourceFormat::Cursor => self.cursor.finish(&mut self.builder),
            SourceFormat::Antigravity => self.antigravity.finish(&mut self.builder),
        }
        self.builder.release(0, out);
        let report = self.builder.report(self.format, self.lines);
        if report.user_messages + report.assistant_messages == 0 {
            return Err(ImportError::NoMessages);
        }
        Ok(report)
    }
}

/// The context window an imported session recorded (the last
/// [`CONTEXT_WINDOW_CUSTOM_TYPE`] entry's `contextWindow`), if any.
pub fn recorded_context_window(session: &crate::Session) -> Option<u64> {
    session.entries().iter().rev().find_map(|entry| {
        let crate::EntryKind::Custom { custom_type } = &entry.kind else { return None };
        if custom_type != CONTEXT_WINDOW_CUSTOM_TYPE {
            return None;
        }
        let value = entry.to_value().ok()?;
        value.get("data")?.get("contextWindow")?.as_u64().filter(|&window| window > 0)
    })
}

/// Converts a transcript held in memory into a pi session (both passes over `text`).
/// `format` forces a format; `None` detects it. Every text passes through `redactor`.
pub fn import(
    text: &str,
    format: Option<SourceFormat>,
    redactor: &Redactor,
) -> Result<Imported, ImportError> {
    import_with(text, &ImportOptions { format, fallback_cwd: None }, redactor)
}

/// [`import`] with every option.
pub fn import_with(
    text: &str,
    options: &ImportOptions,
    redactor: &Redactor,
) -> Result<Imported, ImportError> {
    let mut scan = Scan::default();
    for (index, raw) in text.lines().enumerate() {
        scan.line(index + 1, raw)?;
    }
    let mut importer = Importer::new(&scan, options, redactor)?;
    let mut session = String::new();
    let mut out = |line: &str| session.push_str(line);
    for (index, raw) in text.lines().enumerate() {
        importer.line(index + 1, raw, &mut out)?;
    }
    let report = importer.finish(&mut out)?;
    Ok(Imported { session, report })
}
