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

/// A chunk on its way from the reading thread to the parser: checked to be UTF-8 there
/// (the usual case), or bytes the parser decodes line by line.
enum Chunk {
    Text(String),
    Bytes(Vec<u8>),
}

impl Chunk {
    fn bytes(&self) -> &[u8] {
        match self {
            Chunk::Text(text) => text.as_bytes(),
            Chunk::Bytes(bytes) => bytes,
        }
    }
}

/// Reads chunks on a second thread while this one parses the previous chunk. Each chunk
/// is handed to the parser, whose entries keep ranges of it instead of copies of their
/// lines, so the file is held about once; at most one chunk waits between the threads.
///
/// The reading thread cuts each chunk after its last newline (the open line after it starts
/// the next chunk) and checks it is UTF-8, so the parser shares a chunk of whole lines
/// as it is, without moving or checking it on the parsing thread. A chunk without any
/// newline is handed over whole, so an open line is never held longer than the parser
/// would hold it.
fn read_session_in_chunks<R: Read + Send>(
    mut reader: R,
    options: ParseOptions,
    chunk_bytes: usize,
) -> io::Result<(Session, FileShape)> {
    let (full_sender, full) = mpsc::sync_channel::<Chunk>(1);
    let mut parser = SessionParser::new(options);
    let mut shape = FileShape { length: 0, lines: 0, ends_with_newline: true };
    let read = std::thread::scope(|scope| {
        let reading = scope.spawn(move || -> io::Result<()> {
            let chunk_bytes = chunk_bytes.max(1);
            let mut open_line: Vec<u8> = Vec::new();
            loop {
                let carried = open_line.len();
                let mut buffer = vec![0u8; carried + chunk_bytes];
                buffer[..carried].copy_from_slice(&open_line);
                open_line.clear();
                let filled = fill(&mut reader, &mut buffer[carried..])?;
                buffer.truncate(carried + filled);
                if filled == chunk_bytes
                    && let Some(last) = memchr::memrchr(b'\n', &buffer[carried..])
                {
                    // More may follow: the open line after the last newline goes with it.
                    let cut = carried + last + 1;
                    open_line.extend_from_slice(&buffer[cut..]);
                    buffer.truncate(cut);
                }
                if buffer.is_empty() {
                    break;
                }
                let chunk = match String::from_utf8(buffer) {
                    Ok(text) => Chunk::Text(text),
                    Err(error) => Chunk::Bytes(error.into_bytes()),
                };
                if full_sender.send(chunk).is_err() || filled < chunk_bytes {
                    break;
                }
            }
            Ok(())
        });
        for chunk in full.iter() {
            let bytes = chunk.bytes();
            shape.length += bytes.len() as u64;
            shape.ends_with_newline = bytes.last() == Some(&b'\n');
            match chunk {
                Chunk::Text(text) => parser.push_text_chunk(text),
                Chunk::Bytes(bytes) => parser.push_chunk(bytes),
            }
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
    fn chunks_cut_after_newlines_match_the_in_memory_parser() {
        // Multi-byte characters (chunk sizes fall inside them), a line that is not UTF-8,
        // lines longer than a chunk and lines over the limit.
        let mut bytes = text().into_bytes();
        for i in 0..40 {
            let line = format!(
                r#"{{"type":"custom","id":"c{i}","parentId":"a","customType":"日本語😀{}"}}"#,
                "é".repeat(i * 3)
            );
            bytes.extend_from_slice(line.as_bytes());
            bytes.push(b'\n');
            if i == 20 {
                bytes.extend_from_slice(b"{\"type\":\"custom\",\"id\":\"bad\",\"parentId\":\"a\",\"customType\":\"\xff\"}\n");
            }
        }
        bytes.extend_from_slice(
            r#"{"type":"custom","id":"end","parentId":"a","customType":"ü"}"#.as_bytes(),
        );
        for max_line_bytes in [100, 1 << 20] {
            let options = ParseOptions { max_line_bytes };
            let expected = compaction_core::parse_session_with(&bytes, options);
            assert!(expected.entries().iter().any(|entry| entry.has_invalid_utf8()));
            for chunk in [1, 3, 5, 17, 64, 100, 257, 8192] {
                let (session, shape) = read_session_in_chunks(&bytes[..], options, chunk).unwrap();
                assert_eq!(session.diagnostics(), expected.diagnostics(), "chunk {chunk}");
                assert_eq!(session.malformed(), expected.malformed(), "chunk {chunk}");
                assert_eq!(session.entries(), expected.entries(), "chunk {chunk}");
                assert_eq!(shape.length, bytes.len() as u64);
                assert_eq!(shape.lines, 45);
                assert!(!shape.ends_with_newline);
            }
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
