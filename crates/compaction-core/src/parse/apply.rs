//! Applying lines in file order: the header (and the version it declares), migration of
//! older formats, entries accepted or rejected with their diagnostics, and the session
//! built at the end.

use crate::diagnostic::{Diagnostic, DiagnosticKind};
use crate::entry::{Entry, EntryError, EntryKind, Header};
use crate::migrate;
use crate::session::{MalformedLine, Session};

use super::lines::*;
use super::*;

impl SessionParser {
    /// [`SessionParser::push_line`], using `prepared` (the result of [`prepare_line`] for
    /// this line) instead of parsing the entry again when present.
    pub(super) fn push_line_prepared(
        &mut self,
        bytes: &[u8],
        terminated: bool,
        prepared: Prepared,
    ) {
        if bytes.len() > self.options.max_line_bytes {
            self.push_oversized_line(bytes.len(), terminated);
            return;
        }
        let (line, offset) = self.advance(bytes.len(), terminated);
        let mut bytes = bytes;
        if line == 1 && bytes.starts_with(&[0xEF, 0xBB, 0xBF]) {
            bytes = &bytes[3..];
            self.had_bom = true;
            self.diagnostics.push(Diagnostic::new(
                line,
                DiagnosticKind::Bom,
                "file starts with a UTF-8 byte order mark: pi 1.6 cannot read it as a session \
                 (this tool reads it, and writes nothing to it)",
            ));
        }
        if let Some(stripped) = bytes.strip_suffix(b"\r") {
            bytes = stripped;
            if !self.saw_crlf {
                self.saw_crlf = true;
                self.diagnostics.push(Diagnostic::new(
                    line,
                    DiagnosticKind::Crlf,
                    "lines end in CRLF",
                ));
            }
        }
        if bytes.iter().all(u8::is_ascii_whitespace) {
            if !bytes.is_empty() || terminated {
                self.diagnostics.push(Diagnostic::new(
                    line,
                    DiagnosticKind::BlankLine,
                    "blank line",
                ));
            }
            return;
        }
        if let Some(parsed) = prepared {
            // `prepare_line` only prepares non-blank UTF-8 lines after line 1.
            self.accept_entry(line, offset, bytes, terminated, parsed);
            return;
        }
        let text = match std::str::from_utf8(bytes) {
            Ok(text) => text,
            Err(error) if line > 1 => {
                self.push_lossy_line(line, offset, bytes, terminated, error.valid_up_to());
                return;
            }
            Err(error) => {
                let kind = if terminated {
                    DiagnosticKind::MalformedJson
                } else {
                    DiagnosticKind::TornLastLine
                };
                self.reject(line, offset, bytes, kind, format!("invalid UTF-8: {error}"));
                return;
            }
        };
        if line == 1 {
            self.push_first_line(offset, text, terminated);
        } else {
            self.push_entry_line(line, offset, text, terminated);
        }
    }

    /// An entry line that is not valid UTF-8: read it as pi does (each invalid sequence
    /// becomes U+FFFD) so both tools see the same tree, keep its bytes for writing back, and
    /// warn. `valid_up_to` is the offset of the first invalid byte.
    fn push_lossy_line(
        &mut self,
        line: usize,
        offset: u64,
        bytes: &[u8],
        terminated: bool,
        valid_up_to: usize,
    ) {
        let parsed = if self.source_version < crate::entry::CURRENT_VERSION {
            let position = self.position(line);
            let previous = self.previous_id.as_deref();
            migrate_lossy_line(line, bytes, self.source_version, position, previous)
        } else {
            Entry::parse(line, &String::from_utf8_lossy(bytes))
                .map(|entry| entry.with_line_bytes(bytes.to_vec()))
        };
        let parsed = match parsed {
            Ok(entry) => {
                self.diagnostics.push(Diagnostic::new(
                    line,
                    DiagnosticKind::InvalidUtf8,
                    format!(
                        "invalid UTF-8 at byte {valid_up_to} of the line: read with U+FFFD \
                         replacement characters, as pi reads it; the bytes in the file are kept"
                    ),
                ));
                Ok(entry)
            }
            Err(EntryError::Json(error)) => Err(EntryError::Json(format!(
                "{error} (the line also has invalid UTF-8 at byte {valid_up_to})"
            ))),
            Err(error) => Err(error),
        };
        self.accept_entry(line, offset, bytes, terminated, parsed);
    }

    fn push_first_line(&mut self, offset: u64, text: &str, terminated: bool) {
        let value: serde_json::Value = match crate::entry::from_json_text(text) {
            Ok(value) => value,
            Err(error) => {
                self.reject(
                    1,
                    offset,
                    text.as_bytes(),
                    DiagnosticKind::InvalidHeader,
                    format!("the session header is not valid JSON: {error}"),
                );
                if !terminated {
                    self.diagnostics.push(Diagnostic::new(
                        1,
                        DiagnosticKind::TornLastLine,
                        "the only line has no newline and is not valid JSON",
                    ));
                }
                return;
            }
        };
        if value.get("type").and_then(serde_json::Value::as_str) == Some("session") {
            match serde_json::from_value::<Header>(value) {
                Ok(header) => {
                    self.source_version = header.format_version();
                    self.header = Some(header);
                    self.header_raw = Some(text.to_owned());
                }
                Err(error) => self.reject(
                    1,
                    offset,
                    text.as_bytes(),
                    DiagnosticKind::InvalidHeader,
                    format!("the session header has an invalid field: {error}"),
                ),
            }
        } else {
            self.diagnostics.push(Diagnostic::new(
                1,
                DiagnosticKind::MissingHeader,
                "line 1 is not a session header (`\"type\":\"session\"`)",
            ));
            self.push_entry_line(1, offset, text, terminated);
        }
    }

    fn push_entry_line(&mut self, line: usize, offset: u64, text: &str, terminated: bool) {
        if self.source_version >= crate::entry::CURRENT_VERSION {
            let parsed = Entry::parse(line, text);
            self.accept_entry(line, offset, text.as_bytes(), terminated, parsed);
            return;
        }
        let parsed = self.migrate(line, text);
        let records = match &parsed {
            Err(EntryError::Json(message)) if message.starts_with("trailing characters") => {
                joined_records(text)
            }
            Ok(_) | Err(_) => Vec::new(),
        };
        if records.len() < 2 {
            self.accept_entry(line, offset, text.as_bytes(), terminated, parsed);
            return;
        }
        // pi 1.x wrote some records without the newline between them: each is an entry,
        // counted as pi counted its entries (a compaction's `firstKeptEntryIndex` too).
        self.diagnostics.push(Diagnostic::new(
            line,
            DiagnosticKind::JoinedRecords,
            format!(
                "the line holds {} records written without a newline between them; each is \
                 read as its own entry (`compaction migrate` writes them on lines of their own)",
                records.len()
            ),
        ));
        for (index, record) in records.into_iter().enumerate() {
            if index > 0 {
                self.extra_records += 1;
            }
            let parsed = self.migrate(line, record);
            self.accept_entry(line, offset, record.as_bytes(), terminated, parsed);
        }
    }

    /// An older-format entry of line `line` migrated and parsed.
    fn migrate(&self, line: usize, text: &str) -> Result<Entry, EntryError> {
        let position = self.position(line);
        migrate::migrate_line(text, self.source_version, position, self.previous_id.as_deref())
            .and_then(|migrated| Entry::parse(line, &migrated))
    }

    /// The 1-based position among the file's records (header not counted) of the next entry
    /// of line `line`: the line's, moved by the records that shared earlier lines.
    fn position(&self, line: usize) -> usize {
        let position = if self.header.is_some() { line - 1 } else { line };
        position + self.extra_records
    }

    /// Records a parsed entry line, or rejects it with the matching diagnostic.
    fn accept_entry(
        &mut self,
        line: usize,
        offset: u64,
        bytes: &[u8],
        terminated: bool,
        parsed: Result<Entry, EntryError>,
    ) {
        match parsed {
            Ok(entry) => {
                if self.source_version < crate::entry::CURRENT_VERSION {
                    self.previous_id = Some(entry.id.clone());
                }
                if let EntryKind::Unknown { entry_type } = &entry.kind {
                    self.diagnostics.push(Diagnostic::new(
                        line,
                        DiagnosticKind::UnknownEntryType,
                        format!("unknown entry type `{entry_type}` (kept, not in the context)"),
                    ));
                }
                self.entries.push(entry);
            }
            Err(error) => {
                let (kind, message) = match (&error, terminated) {
                    (EntryError::Json(_), false) | (EntryError::TooDeep, false) => (
                        DiagnosticKind::TornLastLine,
                        format!("last line has no newline and is not valid JSON ({error})"),
                    ),
                    (EntryError::Json(_), true) => {
                        (DiagnosticKind::MalformedJson, error.to_string())
                    }
                    (EntryError::TooDeep, true) => (DiagnosticKind::TooDeep, error.to_string()),
                    (EntryError::Missing(_) | EntryError::Invalid(_), _) => {
                        (DiagnosticKind::InvalidEntry, error.to_string())
                    }
                };
                self.reject(line, offset, bytes, kind, message);
            }
        }
    }

    fn reject(
        &mut self,
        line: usize,
        offset: u64,
        bytes: &[u8],
        kind: DiagnosticKind,
        message: String,
    ) {
        self.diagnostics.push(Diagnostic::new(line, kind, message));
        self.malformed.push(MalformedLine {
            line,
            offset,
            bytes: Some(bytes.to_vec()),
            length: bytes.len(),
        });
    }

    /// Finishes parsing: migrates older formats in memory and indexes the tree.
    pub fn finish(mut self) -> Session {
        if let Some(length) = self.skipping.take() {
            self.push_oversized_line(length, false);
        } else if !self.carry.is_empty() {
            let line = std::mem::take(&mut self.carry);
            self.push_line(&line, false);
        }
        if self.line == 0 {
            self.diagnostics.push(Diagnostic::new(
                0,
                DiagnosticKind::MissingHeader,
                "the file is empty: no session header",
            ));
        }
        if !self.ended_with_newline
            && self.line > 0
            && !self.malformed.iter().any(|m| m.line == self.line)
        {
            self.diagnostics.push(Diagnostic::new(
                self.line,
                DiagnosticKind::MissingFinalNewline,
                "the last line has no newline (it is complete and kept)",
            ));
        }
        let source_version = self.source_version;
        let mut header = self.header;
        let mut header_raw = self.header_raw;
        let migrated = source_version < crate::entry::CURRENT_VERSION;
        if migrated {
            self.diagnostics.push(Diagnostic::new(
                1,
                DiagnosticKind::Migrated,
                format!(
                    "version {source_version} session migrated to version {} in memory \
                     (the file is unchanged; `compaction migrate` rewrites it)",
                    crate::entry::CURRENT_VERSION
                ),
            ));
            if let Some(header) = &mut header {
                header.version = Some(crate::entry::CURRENT_VERSION);
                header_raw = serde_json::to_string(header).ok();
            }
        }
        let entries = self.entries;
        Session::from_parts(
            header,
            header_raw,
            source_version,
            migrated,
            entries,
            self.malformed,
            self.diagnostics,
            crate::session::LineStyle { bom: self.had_bom, crlf: self.saw_crlf },
        )
    }
}
