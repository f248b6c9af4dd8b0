//! Parsing arbitrary bytes never panics, keeps every line accounted for, and every entry
//! re-parses from its own text.
#![no_main]

use compaction_core::{Entry, ParseOptions, parse_session_with};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|bytes: &[u8]| {
    let session = parse_session_with(bytes, ParseOptions { max_line_bytes: 4096 });
    for entry in session.entries() {
        assert_eq!(Entry::parse(entry.line, entry.raw()).as_ref(), Ok(entry));
    }
    let lines = bytes.split(|b| *b == b'\n').count();
    for malformed in session.malformed() {
        assert!(malformed.line <= lines);
        assert!(malformed.offset as usize + malformed.length <= bytes.len());
    }
});
