//! One entry line parsed on its own (on any thread, without the parser's state), a line
//! with invalid UTF-8 migrated without losing its bytes, and a block cut into lines.

use std::sync::Arc;

use crate::entry::{Entry, EntryError};
use crate::migrate;

/// more than it saves.
pub(super) const PARALLEL_MIN_BYTES: usize = 256 * 1024;

/// The result of parsing one entry line off the parser's thread, or `None` when the line
/// needs the sequential path (blank, not UTF-8, too long).
pub(super) type Prepared = Option<Result<Entry, EntryError>>;

/// A line's bytes without `\n`, and whether a `\n` followed it.
pub(super) type Line<'a> = (&'a [u8], bool);

/// A contiguous run of a block's lines with the line number of its first line.
pub(super) type Run<'a, 'b> = (usize, &'b [Line<'a>]);

/// Parses entry line number `line` (never line 1, never of a migrated file) the way
/// [`SessionParser::push_line`] would, or returns `None` when the line is not a plain entry
/// line (too long, blank, not UTF-8), which the sequential path then handles.
///
/// With `shared`, `bytes` lies inside that block and the entry keeps a range of it instead
/// of a copy of the line.
pub(super) fn prepare_line(
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
pub(super) const MARK_BASE: u32 = 0x10_FF00;

pub(super) fn is_mark(c: char) -> bool {
    (MARK_BASE + 0x80..=MARK_BASE + 0xFF).contains(&u32::from(c))
}

/// Migrates an older-format entry line that is not valid UTF-8, keeping its invalid bytes:
/// each one travels through the migration as a private-use character and is put back
/// afterwards, so the rewritten line holds the same bytes where the original held them.
/// The entry's text is the lossy decoding of that line, as for a current-format line.
pub(super) fn migrate_lossy_line(
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

/// The records of a line that holds several JSON objects one after another (`{…}{…}`, as
/// concatenated writes leave them), each as its text; empty when the line is not such a
/// run (a value that is not an object, or text that is not JSON, anywhere in it).
pub(super) fn joined_records(text: &str) -> Vec<&str> {
    let mut records = Vec::new();
    let mut values = serde_json::Deserializer::from_str(text).into_iter::<serde::de::IgnoredAny>();
    let mut start = 0;
    while let Some(value) = values.next() {
        let end = values.byte_offset();
        let record = text[start..end].trim();
        if value.is_err() || !record.starts_with('{') {
            return Vec::new();
        }
        records.push(record);
        start = end;
    }
    records
}

/// Splits a block into lines without their `\n`; a last line without `\n` is marked so.
pub(super) fn split_lines(block: &[u8]) -> Vec<Line<'_>> {
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
