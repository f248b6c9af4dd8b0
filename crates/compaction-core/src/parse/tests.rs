use super::lines::PARALLEL_MIN_BYTES;
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
    let text =
        format!("{HEADER}\n{}\n{{oops\n{}\n", msg("a", None, "user"), msg("b", Some("a"), "user"));
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

/// `text` in pieces of about `size` bytes, each cut after its last newline when it has one.
fn line_aligned_chunks(text: &[u8], size: usize) -> Vec<Vec<u8>> {
    let mut pieces = Vec::new();
    let mut start = 0;
    while start < text.len() {
        let end = (start + size).min(text.len());
        let cut = memchr::memrchr(b'\n', &text[start..end]).map_or(end, |last| start + last + 1);
        pieces.push(text[start..cut].to_vec());
        start = cut;
    }
    pieces
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
                // Chunks cut after a newline and checked as UTF-8 by the reader (pieces that
                // are not UTF-8 are handed over as bytes, as the store does).
                let mut parser = SessionParser::new(options);
                parser.workers = 2;
                for piece in line_aligned_chunks(&text, chunk) {
                    match String::from_utf8(piece) {
                        Ok(piece) => parser.push_text_chunk(piece),
                        Err(error) => parser.push_chunk(error.into_bytes()),
                    }
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
