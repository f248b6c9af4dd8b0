//! Streaming a session file into the core parser in large chunks.
//!
//! Invariant: the parsed entries point into the chunks they were read from, so the file is
//! held about once; besides that, at most one chunk of [`CHUNK_BYTES`] waits between the
//! reading and the parsing thread, plus one open line (of at most `max_line_bytes`); a
//! longer line is counted and skipped without being held.

use std::io::{self, Read};
use std::sync::mpsc;

use compaction_core::{ParseOptions, Session, SessionParser};

/// Bytes read per chunk: large enough that parsing a chunk's lines on all cores pays for
/// starting the workers, small next to the entries of a large session.
pub const CHUNK_BYTES: usize = 4 * 1024 * 1024;

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

/// Reads a file from its start by position, leaving any shared file offset alone (the
/// store reads through a handle that is also its appending handle).
pub struct ReadAt<'a> {
    file: &'a std::fs::File,
    position: u64,
}

impl<'a> ReadAt<'a> {
    /// A reader of `file` from byte 0.
    pub fn new(file: &'a std::fs::File) -> Self {
        ReadAt { file, position: 0 }
    }
}

impl Read for ReadAt<'_> {
    fn read(&mut self, buffer: &mut [u8]) -> io::Result<usize> {
        let read = std::os::unix::fs::FileExt::read_at(self.file, buffer, self.position)?;
        self.position += read as u64;
        Ok(read)
    }
}

/// Parses a session from a reader.
pub fn read_session<R: Read + Send>(
    reader: R,
    options: ParseOptions,
) -> io::Result<(Session, FileShape)> {
    read_session_in_chunks(reader, options, CHUNK_BYTES)
}

/// Reads chunks on a second thread while this one parses the previous chunk. Each chunk
/// is handed to the parser, whose entries keep ranges of it instead of copies of their
/// lines, so the file is held about once; at most one chunk waits between the threads.
fn read_session_in_chunks<R: Read + Send>(
    mut reader: R,
    options: ParseOptions,
    chunk_bytes: usize,
) -> io::Result<(Session, FileShape)> {
    let (full_sender, full) = mpsc::sync_channel::<Vec<u8>>(1);
    let mut parser = SessionParser::new(options);
    let mut shape = FileShape { length: 0, lines: 0, ends_with_newline: true };
    let read = std::thread::scope(|scope| {
        let reading = scope.spawn(move || -> io::Result<()> {
            loop {
                let mut buffer = vec![0u8; chunk_bytes.max(1)];
                let filled = fill(&mut reader, &mut buffer)?;
                buffer.truncate(filled);
                if filled == 0 || full_sender.send(buffer).is_err() {
                    break;
                }
            }
            Ok(())
        });
        for buffer in full.iter() {
            shape.length += buffer.len() as u64;
            shape.ends_with_newline = buffer.last() == Some(&b'\n');
            parser.push_chunk(buffer);
        }
        match reading.join() {
            Ok(result) => result,
            Err(panic) => std::panic::resume_unwind(panic),
        }
    });
    read?;
    // Every `\n` completed a line; an unterminated rest is one more.
    shape.lines = parser.line_count() + usize::from(!shape.ends_with_newline);
    Ok((parser.finish(), shape))
}

/// Reads until `buffer` is full or the reader is exhausted; returns the bytes read.
fn fill<R: Read>(reader: &mut R, buffer: &mut [u8]) -> io::Result<usize> {
    let mut filled = 0;
    while filled < buffer.len() {
        match reader.read(&mut buffer[filled..]) {
            Ok(0) => break,
            Ok(read) => filled += read,
            Err(error) if error.kind() == io::ErrorKind::Interrupted => {}
            Err(error) => return Err(error),
        }
    }
    Ok(filled)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text() -> String {
        let header =
            r#"{"type":"session","version":3,"id":"s","timestamp":"t","cwd":"/"}"#.to_owned();
        let entry = r#"{"type":"custom","id":"a","parentId":null,"customType":"x"}"#;
        format!("{header}\n{entry}\n{}\n", "x".repeat(300))
    }

    #[test]
    fn streaming_matches_the_in_memory_parser_with_tiny_chunks() {
        let text = text();
        let options = ParseOptions { max_line_bytes: 100 };
        let expected = compaction_core::parse_session_with(text.as_bytes(), options);
        for chunk in [1, 2, 7, 64, 8192] {
            let (session, shape) = read_session_in_chunks(text.as_bytes(), options, chunk).unwrap();
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
        let (session, shape) =
            read_session_in_chunks(text.as_bytes(), ParseOptions::default(), 3).unwrap();
        assert!(!shape.ends_with_newline);
        assert_eq!(shape.lines, 4);
        assert_eq!(
            session.diagnostics().last().map(|d| d.kind),
            Some(compaction_core::DiagnosticKind::TornLastLine)
        );
    }
}
