//! Streaming a session file into the core parser, one line at a time.
//!
//! Invariant: at most one line (of at most `max_line_bytes`) is buffered at a time; a longer
//! line is counted and skipped without being held, so peak memory is the parsed entries plus
//! one line, whatever the file holds.

use std::io::{self, BufRead};

use compaction_core::{ParseOptions, Session, SessionParser};

/// What the reader learned about the file's end besides the parsed session.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FileShape {
    /// Total bytes read.
    pub length: u64,
    /// Number of lines (a final line without newline counts).
    pub lines: usize,
    /// Whether the file is empty or ends with `\n`.
    pub ends_with_newline: bool,
}

/// Parses a session from a buffered reader.
pub fn read_session<R: BufRead>(
    mut reader: R,
    options: ParseOptions,
) -> io::Result<(Session, FileShape)> {
    let mut parser = SessionParser::new(options);
    let mut line: Vec<u8> = Vec::new();
    let mut oversized: Option<usize> = None;
    let mut shape = FileShape { length: 0, lines: 0, ends_with_newline: true };
    loop {
        let chunk = match reader.fill_buf() {
            Ok(chunk) => chunk,
            Err(error) if error.kind() == io::ErrorKind::Interrupted => continue,
            Err(error) => return Err(error),
        };
        if chunk.is_empty() {
            break;
        }
        let (taken, terminated) = match memchr::memchr(b'\n', chunk) {
            Some(end) => (end, true),
            None => (chunk.len(), false),
        };
        match oversized.as_mut() {
            Some(length) => *length += taken,
            None if line.len() + taken > options.max_line_bytes => {
                oversized = Some(line.len() + taken);
                line = Vec::new();
            }
            None => line.extend_from_slice(&chunk[..taken]),
        }
        let consumed = taken + usize::from(terminated);
        reader.consume(consumed);
        shape.length += consumed as u64;
        if terminated {
            shape.lines += 1;
            match oversized.take() {
                Some(length) => parser.push_oversized_line(length, true),
                None => parser.push_line(&line, true),
            }
            line.clear();
        }
    }
    if oversized.is_some() || !line.is_empty() {
        shape.lines += 1;
        shape.ends_with_newline = false;
        match oversized {
            Some(length) => parser.push_oversized_line(length, false),
            None => parser.push_line(&line, false),
        }
    }
    Ok((parser.finish(), shape))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::BufReader;

    fn text() -> String {
        let header =
            r#"{"type":"session","version":3,"id":"s","timestamp":"t","cwd":"/"}"#.to_owned();
        let entry = r#"{"type":"custom","id":"a","parentId":null,"customType":"x"}"#;
        format!("{header}\n{entry}\n{}\n", "x".repeat(300))
    }

    #[test]
    fn streaming_matches_the_in_memory_parser_with_tiny_buffers() {
        let text = text();
        let options = ParseOptions { max_line_bytes: 100 };
        let expected = compaction_core::parse_session_with(text.as_bytes(), options);
        for capacity in [1, 2, 7, 64, 8192] {
            let reader = BufReader::with_capacity(capacity, text.as_bytes());
            let (session, shape) = read_session(reader, options).unwrap();
            assert_eq!(session.diagnostics(), expected.diagnostics());
            assert_eq!(session.malformed(), expected.malformed());
            assert_eq!(session.entries(), expected.entries());
            assert_eq!(shape.length, text.len() as u64);
            assert_eq!(shape.lines, 3);
            assert!(shape.ends_with_newline);
        }
    }

    #[test]
    fn unterminated_last_line_is_passed_as_such() {
        let text = format!("{}{{\"type\":\"cus", text());
        let reader = BufReader::with_capacity(3, text.as_bytes());
        let (session, shape) = read_session(reader, ParseOptions::default()).unwrap();
        assert!(!shape.ends_with_newline);
        assert_eq!(shape.lines, 4);
        assert_eq!(
            session.diagnostics().last().map(|d| d.kind),
            Some(compaction_core::DiagnosticKind::TornLastLine)
        );
    }
}
