//! Replays the committed fuzzing seeds (`fuzz/seeds/`) and any local corpus `cargo fuzz`
//! grew (`fuzz/corpus/`, not committed), and property-tests the parser and the
//! context rebuild on arbitrary and mutated input, on stable Rust.
//!
//! The checks are those of the `cargo fuzz` targets in `fuzz/`: parsing never panics, the
//! streaming reader agrees with the in-memory parser, every entry re-parses from its own
//! text, and rebuilding the context for every leaf terminates.

use std::io::BufReader;
use std::path::PathBuf;

use compaction::store::read::read_session;
use compaction_core::{Entry, ParseOptions, parse_session_with};
use proptest::prelude::*;

use super::store_fixtures::{v2_text, v3_text};

fn check(bytes: &[u8]) {
    let options = ParseOptions { max_line_bytes: 4096 };
    let session = parse_session_with(bytes, options);
    let (streamed, shape) = read_session(BufReader::with_capacity(7, bytes), options).unwrap();
    assert_eq!(streamed.entries(), session.entries());
    assert_eq!(streamed.malformed(), session.malformed());
    assert_eq!(streamed.diagnostics(), session.diagnostics());
    assert_eq!(shape.length, bytes.len() as u64);
    for entry in session.entries() {
        if entry.has_invalid_utf8() {
            // Read leniently: the text is the lossy decoding of the bytes kept for writing.
            assert_eq!(String::from_utf8_lossy(entry.line_bytes()), entry.raw());
        } else {
            assert_eq!(Entry::parse(entry.line, entry.raw()).as_ref(), Ok(entry));
        }
    }
    for leaf in session.leaves() {
        let context = compaction_core::context::build_context(&session, Some(leaf));
        let _ = context.agent_messages(&session);
        assert!(session.path(leaf).len() <= session.entries().len());
    }
}

fn fuzz_dir(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fuzz").join(name)
}

#[test]
fn the_fuzz_corpus_replays_cleanly() {
    let mut files = 0;
    let seeds = std::fs::read_dir(fuzz_dir("seeds")).unwrap();
    let corpus = std::fs::read_dir(fuzz_dir("corpus")).into_iter().flatten();
    for target in seeds.chain(corpus) {
        for file in std::fs::read_dir(target.unwrap().path()).unwrap() {
            let path = file.unwrap().path();
            check(&std::fs::read(&path).unwrap());
            files += 1;
        }
    }
    eprintln!("fuzz corpus: {files} inputs replayed");
    assert!(files >= 2, "corpus missing ({files} files)");
}

fn mutated_fixture() -> impl Strategy<Value = Vec<u8>> {
    let seeds = prop_oneof![Just(v3_text().into_bytes()), Just(v2_text().into_bytes())];
    (seeds, prop::collection::vec((any::<prop::sample::Index>(), any::<u8>(), 0..3u8), 0..8))
        .prop_map(|(mut bytes, edits)| {
            for (at, byte, how) in edits {
                if bytes.is_empty() {
                    break;
                }
                let i = at.index(bytes.len());
                match how {
                    0 => bytes[i] = byte,
                    1 => bytes.insert(i, byte),
                    _ => bytes.truncate(i),
                }
            }
            bytes
        })
}

/// Cases per property: 512, or `COMPACTION_FUZZ_CASES` for a longer local run.
fn cases() -> u32 {
    std::env::var("COMPACTION_FUZZ_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(512)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases()))]

    #[test]
    fn arbitrary_bytes_never_break_the_parser(bytes in prop::collection::vec(any::<u8>(), 0..512)) {
        check(&bytes);
    }

    #[test]
    fn mutated_sessions_never_break_the_parser(bytes in mutated_fixture()) {
        check(&bytes);
    }
}
