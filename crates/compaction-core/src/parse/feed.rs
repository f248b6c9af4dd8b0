//! Feeding the parser: bytes cut anywhere, handed-over chunks, blocks of whole lines (their
//! entry lines parsed on all cores), single lines and lines over the limit.

use std::sync::Arc;

use crate::diagnostic::{Diagnostic, DiagnosticKind};
use crate::session::MalformedLine;

use super::lines::*;
use super::*;

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
            extra_records: 0,
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

    /// [`SessionParser::push_chunk`] for a chunk the reader has already checked to be UTF-8
    /// (on its own thread, while this one parses). A chunk of whole lines (no line is open
    /// and it ends with `\n`), as a reader that cuts its chunks after a newline hands over,
    /// is shared as it is: no check, no copy. Any other chunk takes [`SessionParser::push_chunk`].
    pub fn push_text_chunk(&mut self, chunk: String) {
        if self.line > 0
            && self.source_version >= crate::entry::CURRENT_VERSION
            && self.carry.is_empty()
            && self.skipping.is_none()
            && chunk.ends_with('\n')
        {
            self.push_shared_block(&Arc::new(chunk));
        } else {
            self.push_chunk(chunk.into_bytes());
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

    pub(super) fn advance(&mut self, length: usize, terminated: bool) -> (usize, u64) {
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
}
