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
//!
//! Stages, one module each: `lines` (one entry line parsed on its own, on any thread, and
//! a block cut into lines), `feed` (bytes, chunks and blocks fed to the parser, parallel
//! where it pays) and `apply` (each line applied in file order: the header, migration,
//! entries, diagnostics, and the session at the end).

mod apply;
mod feed;
mod lines;
#[cfg(test)]
mod tests;

use crate::diagnostic::Diagnostic;
use crate::entry::{Entry, Header};
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
    /// Records read beyond one per line (an older-format line holding several records):
    /// each moves the position of the entries after it, as pi counted entries.
    extra_records: usize,
    /// How many threads parse a block's lines.
    workers: usize,
    /// The start of a line left open by the last [`SessionParser::push_bytes`] chunk.
    carry: Vec<u8>,
    /// Bytes so far of an open line already known to be over the limit (not held).
    skipping: Option<usize>,
}
