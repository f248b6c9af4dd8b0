//! Reading a session file's bytes into a [`Session`] with diagnostics.
//!
//! Invariant: every line of the input ends up as the header, an entry, or a
//! [`MalformedLine`] holding its exact bytes, and every problem is a [`Diagnostic`] with its
//! line number. The parser never panics on input and never loops: nesting depth is bounded
//! by serde_json's recursion limit and long lines by [`ParseOptions::max_line_bytes`].
//!
//! Lines can be fed one at a time ([`SessionParser::push_line`]) or a block of lines at a
//! time ([`SessionParser::push_block`]), so a caller streaming a large file keeps only the
//! entries and one block in memory, not a second copy of the file. A block's entry lines
//! are parsed on all available cores; their results are then applied in file order on the
//! caller's thread, so entries and diagnostics are the same as with `push_line`.

use std::sync::Arc;

use crate::diagnostic::{Diagnostic, DiagnosticKind};
use crate::entry::{Entry, EntryError, EntryKind, Header};
use crate::migrate;
use crate::session::{MalformedLine, Session};

/// Limits applied while parsing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ParseOptions {
    /// Lines longer than this many bytes are reported and kept only as a prefix-free
    /// placeholder (their bytes are not held in memory).
    pub max_line_bytes: usize,
}

/// Default maximum line size: 64 MiB.
pub const DEFAULT_MAX_LINE_BYTES: usize = 64 * 1024 * 1024;

impl Default for ParseOptions {
    fn default() -> Self {
        ParseOptions { max_line_bytes: DEFAULT_MAX_LINE_BYTES }
    }
}

/// Parses a whole file held in memory.
pub fn parse_session(bytes: &[u8]) -> Session {
    parse_session_with(bytes, ParseOptions::default())
}

/// Parses a whole file held in memory with the given limits.
pub fn parse_session_with(bytes: &[u8], options: ParseOptions) -> Session {
    let mut parser = SessionParser::new(options);
    parser.push_block(bytes);
    parser.finish()
}

/// Blocks smaller than this are parsed on the calling thread: spawning workers would cost
/// more than it saves.
const PARALLEL_MIN_BYTES: usize = 256 * 1024;

/// The result of parsing one entry line off the parser's thread, or `None` when the line
/// needs the sequential path (blank, not UTF-8, too long).
type Prepared = Option<Result<Entry, EntryError>>;

/// A line's bytes without `\n`, and whether a `\n` followed it.
type Line<'a> = (&'a [u8], bool);

/// A contiguous run of a block's lines with the line number of its first line.
type Run<'a, 'b> = (usize, &'b [Line<'a>]);

/// Parses entry line number `line` (never line 1, never of a migrated file) the way
/// [`SessionParser::push_line`] would, or returns `None` when the line is not a plain entry
/// line (too long, blank, not UTF-8), which the sequential path then handles.
///
/// With `shared`, `bytes` lies inside that block and the entry keeps a range of it instead
/// of a copy of the line.
fn prepare_line(
    line: usize,
    bytes: &[u8],
    max_line_bytes: usize,
    shared: Option<&Arc<String>>,
) -> Prepared {
    if bytes.len() > max_line_bytes {
        return None;
    }
    let bytes = bytes.strip_suffix(b"\r").unwrap_or(bytes);
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return None;
    }
    match shared {
        Some(block) => {
            // `bytes` is a subslice of `block`: its offset is the distance between starts.
            let start = (bytes.as_ptr() as usize).wrapping_sub(block.as_ptr() as usize);
            Some(Entry::parse_shared(line, block, start, start + bytes.len()))
        }
        None => {
            let text = std::str::from_utf8(bytes).ok()?;
            Some(Entry::parse(line, text))
        }
    }
}

/// First of the characters that stand for invalid bytes while an older-format line is
/// migrated: byte `b` (0x80..=0xFF; ASCII bytes are always valid) is `MARK_BASE + b`, in
/// the last private-use plane, which serde_json writes back unescaped.
const MARK_BASE: u32 = 0x10_FF00;

fn is_mark(c: char) -> bool {
    (MARK_BASE + 0x80..=MARK_BASE + 0xFF).contains(&u32::from(c))
}

/// Migrates an older-format entry line that is not valid UTF-8, keeping its invalid bytes:
/// each one travels through the migration as a private-use character and is put back
/// afterwards, so the rewritten line holds the same bytes where the original held them.
/// The entry's text is the lossy decoding of that line, as for a current-format line.
fn migrate_lossy_line(
    line: usize,
    bytes: &[u8],
    version: u32,
    position: usize,
    previous_id: Option<&str>,
) -> Result<Entry, EntryError> {
    let mut marked = String::with_capacity(bytes.len() + 8);
    for chunk in bytes.utf8_chunks() {
        if chunk.valid().chars().any(is_mark) {
            // The marks would be ambiguous; keep the line verbatim instead.
            return Err(EntryError::Invalid(
                "the line is not valid UTF-8 and holds characters U+10FF80..U+10FFFF; it \
                 cannot be migrated without changing its bytes"
                    .into(),
            ));
        }
        marked.push_str(chunk.valid());
        for &byte in chunk.invalid() {
            marked.push(char::from_u32(MARK_BASE + u32::from(byte)).unwrap_or('\u{FFFD}'));
        }
    }
    let migrated = migrate::migrate_line(&marked, version, position, previous_id)?;
    let mut restored = Vec::with_capacity(migrated.len());
    let mut buffer = [0u8; 4];
    for c in migrated.chars() {
        if is_mark(c) {
            // The mark is MARK_BASE + a byte value 0x80..=0xFF: the difference fits a byte.
            restored.push(u8::try_from(u32::from(c) - MARK_BASE).unwrap_or(b'?'));
        } else {
            restored.extend_from_slice(c.encode_utf8(&mut buffer).as_bytes());
        }
    }
    Entry::parse(line, &String::from_utf8_lossy(&restored))
        .map(|entry| entry.with_line_bytes(restored))
}

/// Splits a block into lines without their `\n`; a last line without `\n` is marked so.
fn split_lines(block: &[u8]) -> Vec<Line<'_>> {
    let mut lines: Vec<Line<'_>> = Vec::new();
    let mut rest = block;
    while !rest.is_empty() {
        match memchr::memchr(b'\n', rest) {
            Some(end) => {
                lines.push((&rest[..end], true));
                rest = &rest[end + 1..];
            }
            None => {
                lines.push((rest, false));
                rest = &[];
            }
        }
    }
    lines
}

/// Incremental parser: feed lines in file order, then [`SessionParser::finish`].
#[derive(Debug)]
pub struct SessionParser {
    options: ParseOptions,
    line: usize,
    header: Option<Header>,
    header_raw: Option<String>,
    entries: Vec<Entry>,
    malformed: Vec<MalformedLine>,
    diagnostics: Vec<Diagnostic>,
    saw_crlf: bool,
    had_bom: bool,
    ended_with_newline: bool,
    /// Byte offset of the next line in the input.
    offset: u64,
    /// Format version declared by the header (3 when there is no header).
    source_version: u32,
    /// Id of the previous entry, for linking v1 entries into a chain.
    previous_id: Option<String>,
    /// How many threads parse a block's lines.
    workers: usize,
    /// The start of a line left open by the last [`SessionParser::push_bytes`] chunk.
    carry: Vec<u8>,
    /// Bytes so far of an open line already known to be over the limit (not held).
    skipping: Option<usize>,
}

impl SessionParser {
    /// A parser with these limits; feed it with `push_bytes` and take the session with `finish`.
    pub fn new(options: ParseOptions) -> Self {
        SessionParser {
            options,
            line: 0,
            header: None,
            header_raw: None,
            entries: Vec::new(),
            malformed: Vec::new(),
            diagnostics: Vec::new(),
            saw_crlf: false,
            had_bom: false,
            ended_with_newline: true,
            offset: 0,
            source_version: crate::entry::CURRENT_VERSION,
            previous_id: None,
            workers: std::thread::available_parallelism().map_or(1, usize::from).min(8),
            carry: Vec::new(),
            skipping: None,
        }
    }

    /// Feeds the next chunk of the file, cut anywhere (even inside a line or a UTF-8
    /// character). Whole lines are parsed as a block ([`SessionParser::push_block`]); the
    /// unterminated rest is kept until the next chunk or [`SessionParser::finish`], unless it
    /// is already over the line limit, in which case only its length is kept.
    ///
    /// Do not mix with [`SessionParser::push_line`] while a line is open.
    pub fn push_bytes(&mut self, chunk: &[u8]) {
        let mut chunk = chunk;
        let max_line_bytes = self.options.max_line_bytes;
        if !self.carry.is_empty() || self.skipping.is_some() {
            let (head, terminated) = match memchr::memchr(b'\n', chunk) {
                Some(end) => (&chunk[..end], true),
                None => (chunk, false),
            };
            match self.skipping.as_mut() {
                Some(length) => *length += head.len(),
                None if self.carry.len() + head.len() > max_line_bytes => {
                    self.skipping = Some(self.carry.len() + head.len());
                    self.carry = Vec::new();
                }
                None => self.carry.extend_from_slice(head),
            }
            if !terminated {
                return;
            }
            chunk = &chunk[head.len() + 1..];
            match self.skipping.take() {
                Some(length) => self.push_oversized_line(length, true),
                None => {
                    let mut line = std::mem::take(&mut self.carry);
                    self.push_line(&line, true);
                    line.clear();
                    self.carry = line;
                }
            }
        }
        let whole = memchr::memrchr(b'\n', chunk).map_or(0, |last| last + 1);
        self.push_block(&chunk[..whole]);
        let rest = &chunk[whole..];
        if rest.len() > max_line_bytes {
            self.skipping = Some(rest.len());
        } else {
            self.carry.extend_from_slice(rest);
        }
    }

    /// [`SessionParser::push_bytes`] for a chunk the parser may keep: the chunk's complete
    /// lines stay in one shared allocation that their entries point into, so loading copies
    /// no line and holds the file about once. A chunk that is not valid UTF-8 is parsed
    /// through the copying path.
    pub fn push_chunk(&mut self, mut chunk: Vec<u8>) {
        let mut begin = 0;
        if !self.carry.is_empty() || self.skipping.is_some() {
            match memchr::memchr(b'\n', &chunk) {
                Some(end) => {
                    self.push_bytes(&chunk[..=end]);
                    begin = end + 1;
                }
                None => {
                    self.push_bytes(&chunk);
                    return;
                }
            }
        }
        let whole_end =
            memchr::memrchr(b'\n', &chunk[begin..]).map_or(begin, |last| begin + last + 1);
        let tail = chunk[whole_end..].to_vec();
        if whole_end > begin
            && (self.line == 0
                || self.source_version < crate::entry::CURRENT_VERSION
                || self.skipping.is_some())
        {
            // The header (and a migrated file) take the line-by-line path.
            self.push_block(&chunk[begin..whole_end]);
        } else if whole_end > begin {
            chunk.truncate(whole_end);
            chunk.drain(..begin);
            match String::from_utf8(chunk) {
                Ok(text) => self.push_shared_block(&Arc::new(text)),
                Err(error) => self.push_block(error.as_bytes()),
            }
        }
        if !tail.is_empty() {
            self.push_bytes(&tail);
        }
    }

    /// [`SessionParser::push_block`] over a block whose entries keep ranges of it.
    fn push_shared_block(&mut self, block: &Arc<String>) {
        let lines = split_lines(block.as_bytes());
        self.push_prepared(&lines, Some(block));
    }

    /// Parses `lines` (on all cores when they are many) and applies them in order.
    fn push_prepared(&mut self, lines: &[Line<'_>], shared: Option<&Arc<String>>) {
        let prepared = self.prepare(lines, shared);
        for ((bytes, terminated), prepared) in lines.iter().zip(prepared) {
            self.push_line_prepared(bytes, *terminated, prepared);
        }
    }

    /// Number of lines fed so far (a final line without newline counts).
    pub fn line_count(&self) -> usize {
        self.line
    }

    /// Feeds a block of lines: every `\n`-terminated line, and a final line without `\n`
    /// when the block does not end in one (a caller streaming a file passes only whole lines
    /// and keeps the unterminated rest for the next block, or passes it last).
    ///
    /// Equivalent to calling [`SessionParser::push_line`] for each line, but entry lines are
    /// parsed in parallel.
    pub fn push_block(&mut self, block: &[u8]) {
        let lines = split_lines(block);
        let mut lines = lines.as_slice();
        // The header decides how later lines are read (migration), so it goes first, alone.
        while self.line == 0
            && let Some(((bytes, terminated), later)) = lines.split_first()
        {
            self.push_line(bytes, *terminated);
            lines = later;
        }
        if lines.is_empty() {
            return;
        }
        if self.source_version < crate::entry::CURRENT_VERSION {
            // Migration links each entry to the previous one: strictly line by line.
            for (bytes, terminated) in lines {
                self.push_line(bytes, *terminated);
            }
            return;
        }
        self.push_prepared(lines, None);
    }

    /// Parses the entry lines of `lines` (which follow line `self.line`): on this thread
    /// when they are few, else on `self.workers` threads, each taking a contiguous run of
    /// about the same number of bytes.
    fn prepare(&self, lines: &[Line<'_>], shared: Option<&Arc<String>>) -> Vec<Prepared> {
        let total: usize = lines.iter().map(|(bytes, _)| bytes.len() + 1).sum();
        let workers = if total < PARALLEL_MIN_BYTES { 1 } else { self.workers.max(1) };
        let share = total.div_ceil(workers);
        let mut runs: Vec<Run<'_, '_>> = Vec::with_capacity(workers);
        let mut start = 0;
        let mut taken = 0;
        for (index, (bytes, _)) in lines.iter().enumerate() {
            taken += bytes.len() + 1;
            if taken >= share {
                runs.push((self.line + start + 1, &lines[start..=index]));
                start = index + 1;
                taken = 0;
            }
        }
        if start < lines.len() {
            runs.push((self.line + start + 1, &lines[start..]));
        }
        let max_line_bytes = self.options.max_line_bytes;
        let prepare_run = move |(first_line, run): Run<'_, '_>| -> Vec<Prepared> {
            run.iter()
                .enumerate()
                .map(|(at, (bytes, _))| {
                    prepare_line(first_line + at, bytes, max_line_bytes, shared)
                })
                .collect()
        };
        let mut results: Vec<Prepared> = Vec::with_capacity(lines.len());
        std::thread::scope(|scope| {
            let mut runs = runs.into_iter();
            let first = runs.next();
            let handles: Vec<_> = runs.map(|run| scope.spawn(move || prepare_run(run))).collect();
            if let Some(first) = first {
                results.extend(prepare_run(first));
            }
            for handle in handles {
                match handle.join() {
                    Ok(prepared) => results.extend(prepared),
                    // Parsing does not panic on any input; should it, re-raise it here.
                    Err(panic) => std::panic::resume_unwind(panic),
                }
            }
        });
        results
    }

    fn advance(&mut self, length: usize, terminated: bool) -> (usize, u64) {
        self.line += 1;
        self.ended_with_newline = terminated;
        let offset = self.offset;
        self.offset += length as u64 + u64::from(terminated);
        (self.line, offset)
    }

    /// Reports a line too long to hold: the caller skipped its bytes.
    pub fn push_oversized_line(&mut self, length: usize, terminated: bool) {
        let (line, offset) = self.advance(length, terminated);
        self.diagnostics.push(Diagnostic::new(
            line,
            DiagnosticKind::LineTooLong,
            format!(
                "line is {length} bytes, over the limit of {} bytes; it is left as it is",
                self.options.max_line_bytes
            ),
        ));
        self.malformed.push(MalformedLine { line, offset, bytes: None, length });
    }

    /// Feeds one line without its `\n`. `terminated` says whether a `\n` followed it.
    pub fn push_line(&mut self, bytes: &[u8], terminated: bool) {
        self.push_line_prepared(bytes, terminated, None);
    }

    /// [`SessionParser::push_line`], using `prepared` (the result of [`prepare_line`] for
    /// this line) instead of parsing the entry again when present.
    fn push_line_prepared(&mut self, bytes: &[u8], terminated: bool, prepared: Prepared) {
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
                "file starts with a UTF-8 byte order mark",
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
            let position = if self.header.is_some() { line - 1 } else { line };
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
        let value: serde_json::Value = match serde_json::from_str(text) {
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
        let parsed = if self.source_version < crate::entry::CURRENT_VERSION {
            let position = if self.header.is_some() { line - 1 } else { line };
            migrate::migrate_line(text, self.source_version, position, self.previous_id.as_deref())
                .and_then(|migrated| Entry::parse(line, &migrated))
        } else {
            Entry::parse(line, text)
        };
        self.accept_entry(line, offset, text.as_bytes(), terminated, parsed);
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnostic::DiagnosticKind as K;

    const HEADER: &str =
        r#"{"type":"session","version":3,"id":"s1","timestamp":"2025-01-01T00:00:00Z","cwd":"/w"}"#;

    fn kinds(session: &Session) -> Vec<(usize, K)> {
        session.diagnostics().iter().map(|d| (d.line, d.kind)).collect()
    }

    fn msg(id: &str, parent: Option<&str>, role: &str) -> String {
        let parent = parent.map_or("null".to_owned(), |p| format!("\"{p}\""));
        format!(
            r#"{{"type":"message","id":"{id}","parentId":{parent},"timestamp":"t","message":{{"role":"{role}","content":"x"}}}}"#
        )
    }

    #[test]
    fn clean_file_has_no_diagnostics() {
        let text =
            format!("{HEADER}\n{}\n{}\n", msg("a", None, "user"), msg("b", Some("a"), "assistant"));
        let session = parse_session(text.as_bytes());
        assert_eq!(kinds(&session), vec![]);
        assert_eq!(session.entries().len(), 2);
        assert_eq!(session.source_version(), 3);
    }

    #[test]
    fn malformed_lines_are_kept_with_their_bytes() {
        let text = format!(
            "{HEADER}\n{}\n{{oops\n{}\n",
            msg("a", None, "user"),
            msg("b", Some("a"), "user")
        );
        let session = parse_session(text.as_bytes());
        assert_eq!(kinds(&session), vec![(3, K::MalformedJson)]);
        assert_eq!(session.malformed()[0].bytes.as_deref(), Some(&b"{oops"[..]));
        assert_eq!(session.entries().len(), 2);
    }

    #[test]
    fn bom_and_crlf_are_accepted_and_reported() {
        let text = format!("\u{feff}{HEADER}\r\n{}\r\n", msg("a", None, "user"));
        let session = parse_session(text.as_bytes());
        assert_eq!(kinds(&session), vec![(1, K::Bom), (1, K::Crlf)]);
        assert!(session.header().is_some());
        assert_eq!(session.entries().len(), 1);
    }

    #[test]
    fn torn_last_line_is_reported_not_fused() {
        let text = format!("{HEADER}\n{}\n{{\"type\":\"mess", msg("a", None, "user"));
        let session = parse_session(text.as_bytes());
        assert_eq!(kinds(&session), vec![(3, K::TornLastLine)]);
        assert_eq!(session.entries().len(), 1);
    }

    #[test]
    fn complete_last_line_without_newline_is_kept() {
        let text = format!("{HEADER}\n{}", msg("a", None, "user"));
        let session = parse_session(text.as_bytes());
        assert_eq!(kinds(&session), vec![(2, K::MissingFinalNewline)]);
        assert_eq!(session.entries().len(), 1);
    }

    #[test]
    fn missing_and_invalid_headers() {
        let session = parse_session(format!("{}\n", msg("a", None, "user")).as_bytes());
        assert_eq!(kinds(&session), vec![(1, K::MissingHeader)]);
        assert_eq!(session.entries().len(), 1);
        let session = parse_session(format!("garbage\n{}\n", msg("a", None, "user")).as_bytes());
        assert_eq!(kinds(&session), vec![(1, K::InvalidHeader)]);
        let session = parse_session(b"");
        assert_eq!(kinds(&session), vec![(0, K::MissingHeader)]);
        let session = parse_session(b"{\"type\":\"session\",\"version\":\"three\"}\n");
        assert_eq!(kinds(&session), vec![(1, K::InvalidHeader)]);
    }

    #[test]
    fn duplicate_dangling_and_unknown() {
        let text = format!(
            "{HEADER}\n{}\n{}\n{}\n{}\n",
            msg("a", None, "user"),
            msg("a", None, "user"),
            msg("c", Some("zzz"), "user"),
            r#"{"type":"mystery","id":"d","parentId":"c"}"#
        );
        let session = parse_session(text.as_bytes());
        assert_eq!(
            kinds(&session),
            vec![(5, K::UnknownEntryType), (3, K::DuplicateId), (4, K::DanglingParent)]
        );
    }

    #[test]
    fn parent_cycle_is_reported_and_broken() {
        let text = format!(
            "{HEADER}\n{}\n{}\n{}\n",
            msg("a", Some("c"), "user"),
            msg("b", Some("a"), "assistant"),
            msg("c", Some("b"), "user"),
        );
        let session = parse_session(text.as_bytes());
        assert_eq!(kinds(&session).iter().filter(|(_, k)| *k == K::ParentCycle).count(), 1);
        // The cycle is cut at one link, so every walk up the tree ends.
        let path = session.path_to_leaf();
        assert!(!path.is_empty() && path.len() <= 3);
        assert_eq!(session.roots().len(), 1);
    }

    #[test]
    fn deep_nesting_is_a_diagnostic() {
        let deep = format!(
            r#"{{"type":"custom","id":"a","parentId":null,"data":{}{}}}"#,
            "[".repeat(5000),
            "]".repeat(5000)
        );
        let session = parse_session(format!("{HEADER}\n{deep}\n").as_bytes());
        assert_eq!(kinds(&session), vec![(2, K::TooDeep)]);
    }

    #[test]
    fn oversized_lines_are_reported_without_keeping_bytes() {
        let text = format!("{HEADER}\n{}\n", msg("a", None, "user"));
        let session = parse_session_with(text.as_bytes(), ParseOptions { max_line_bytes: 90 });
        assert_eq!(kinds(&session), vec![(2, K::LineTooLong)]);
        assert_eq!(session.malformed()[0].bytes, None);
        assert_eq!(session.malformed()[0].offset, HEADER.len() as u64 + 1);
    }

    /// A session exercising every per-line path: BOM, CRLF, blank lines, malformed and
    /// invalid entries, unknown types, invalid UTF-8, long lines, a torn tail.
    fn mixed_session(lines: usize) -> Vec<u8> {
        let mut text = format!("\u{feff}{HEADER}\r\n").into_bytes();
        for index in 0..lines {
            let parent = index.checked_sub(1).map(|p| format!("e{p}"));
            let line = match index % 9 {
                1 => "{broken".to_owned(),
                2 => String::new(),
                3 => r#"{"type":"mystery","id":"m","parentId":null}"#.to_owned(),
                4 => r#"{"type":"label","id":"x","parentId":null}"#.to_owned(),
                5 => format!("{}\r", msg(&format!("e{index}"), parent.as_deref(), "user")),
                6 => format!(
                    r#"{{"type":"custom","id":"e{index}","parentId":null,"pad":"{}"}}"#,
                    "y".repeat(300)
                ),
                _ => msg(&format!("e{index}"), parent.as_deref(), "assistant"),
            };
            text.extend_from_slice(line.as_bytes());
            if index % 9 == 7 {
                text.extend_from_slice(b"\xff");
            }
            text.push(b'\n');
        }
        text.extend_from_slice(br#"{"type":"mess"#);
        text
    }

    fn same(a: &Session, b: &Session) {
        assert_eq!(a.entries(), b.entries());
        assert_eq!(a.malformed(), b.malformed());
        assert_eq!(a.diagnostics(), b.diagnostics());
        assert_eq!(a.line_style(), b.line_style());
    }

    fn line_by_line(bytes: &[u8], options: ParseOptions) -> Session {
        let mut parser = SessionParser::new(options);
        let mut rest = bytes;
        while let Some(end) = memchr::memchr(b'\n', rest) {
            parser.push_line(&rest[..end], true);
            rest = &rest[end + 1..];
        }
        if !rest.is_empty() {
            parser.push_line(rest, false);
        }
        parser.finish()
    }

    #[test]
    fn parallel_blocks_match_line_by_line_parsing() {
        // Large enough to go over PARALLEL_MIN_BYTES, so the block is parsed on workers.
        let text = mixed_session(4000);
        assert!(text.len() > PARALLEL_MIN_BYTES);
        let options = ParseOptions { max_line_bytes: 250 };
        let expected = line_by_line(&text, options);
        assert!(expected.diagnostics().len() > 1000);
        let mut parser = SessionParser::new(options);
        parser.workers = 2;
        parser.push_block(&text);
        same(&parser.finish(), &expected);
        same(&parse_session_with(&text, options), &expected);
    }

    #[test]
    fn chunks_cut_anywhere_match_line_by_line_parsing() {
        let text = mixed_session(60);
        for max_line_bytes in [250, 100_000] {
            let options = ParseOptions { max_line_bytes };
            let expected = line_by_line(&text, options);
            for chunk in [1, 2, 7, 64, 333, 8192] {
                let mut parser = SessionParser::new(options);
                for piece in text.chunks(chunk) {
                    parser.push_bytes(piece);
                }
                same(&parser.finish(), &expected);
            }
        }
    }

    #[test]
    fn handed_over_chunks_match_line_by_line_parsing() {
        // Valid UTF-8 with multi-byte characters (so chunk cuts fall inside characters),
        // and the mixed session with invalid UTF-8 (whose chunks take the copying path).
        let mut valid = mixed_session(3000);
        valid.retain(|&byte| byte != 0xff);
        let valid =
            String::from_utf8_lossy(&valid).replace("\"user\"", "\"user\",\"note\":\"日本語😀\"");
        for text in [valid.into_bytes(), mixed_session(3000)] {
            for max_line_bytes in [250, 100_000] {
                let options = ParseOptions { max_line_bytes };
                let expected = line_by_line(&text, options);
                for chunk in [1, 7, 333, 8192, 300_000] {
                    let mut parser = SessionParser::new(options);
                    parser.workers = 2;
                    for piece in text.chunks(chunk) {
                        parser.push_chunk(piece.to_vec());
                    }
                    same(&parser.finish(), &expected);
                }
            }
        }
    }

    #[test]
    fn a_line_with_an_invalid_byte_keeps_its_place_in_the_tree() {
        let mut bytes = format!("{HEADER}\n{}\n", msg("a", None, "user")).into_bytes();
        let bad = [
            &br#"{"type":"message","id":"b","parentId":"a","timestamp":"t","message":{"role":"assistant","content":[{"type":"text","text":"caf"#[..],
            b"\xe9 \xf0\x9f\x98 ok",
            br#""}]}}"#,
        ]
        .concat();
        bytes.extend_from_slice(&bad);
        bytes.push(b'\n');
        bytes.extend_from_slice(format!("{}\n", msg("c", Some("b"), "user")).as_bytes());
        let session = parse_session(&bytes);
        assert_eq!(kinds(&session), vec![(3, K::InvalidUtf8)]);
        assert_eq!(session.diagnostics()[0].severity(), crate::diagnostic::Severity::Warning);
        assert!(session.malformed().is_empty());
        let ids: Vec<&str> = session.entries().iter().map(|e| e.id.as_str()).collect();
        assert_eq!(ids, ["a", "b", "c"]);
        assert_eq!(session.path(2), vec![0, 1, 2]);
        // The model reads what pi reads (Node's lossy decoding); the file keeps its bytes.
        let entry = &session.entries()[1];
        assert!(entry.has_invalid_utf8());
        assert!(entry.raw().contains("caf\u{FFFD} \u{FFFD} ok"));
        assert_eq!(entry.line_bytes(), &bad[..]);
        // A line that stays unreadable is still kept verbatim, with both problems named.
        let mut broken = format!("{HEADER}\n").into_bytes();
        broken.extend_from_slice(b"{\"type\":\"\xff\"\n");
        let session = parse_session(&broken);
        assert_eq!(kinds(&session), vec![(2, K::MalformedJson)]);
        assert!(session.diagnostics()[0].message.contains("invalid UTF-8 at byte 9"));
        assert_eq!(session.malformed()[0].bytes.as_deref(), Some(&b"{\"type\":\"\xff\""[..]));
    }

    #[test]
    fn migrating_a_line_with_invalid_bytes_keeps_them() {
        let mut bytes = br#"{"type":"session","id":"s","timestamp":"t","cwd":"/w"}"#.to_vec();
        bytes.extend_from_slice(b"\n{\"type\":\"message\",\"timestamp\":\"t\",\"message\":{\"role\":\"user\",\"content\":\"x\xff\xc3(y\"}}\n");
        bytes.extend_from_slice(
            br#"{"type":"message","timestamp":"t","message":{"role":"user","content":"z"}}"#,
        );
        bytes.push(b'\n');
        let session = parse_session(&bytes);
        assert_eq!(session.entries().len(), 2);
        let entry = &session.entries()[0];
        assert_eq!(entry.id, "00000001");
        assert_eq!(session.entries()[1].parent_id.as_deref(), Some("00000001"));
        assert!(entry.raw().contains("\"x\u{FFFD}\u{FFFD}(y\""));
        let written = entry.line_bytes();
        assert!(written.windows(5).any(|w| w == b"x\xff\xc3(y"));
        assert_eq!(String::from_utf8_lossy(written), entry.raw());
        assert!(kinds(&session).contains(&(2, K::InvalidUtf8)));
    }
}
