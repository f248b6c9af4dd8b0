//! Integration test modules: fixtures round-trip losslessly and generated sessions are
//! well-formed pi sessions.

mod cut_invariants;
mod foreign_edits;
mod gate_corpus;
mod generated;
mod prune;
mod redaction;
mod round_trip;
mod secret_families;

use std::path::PathBuf;

/// The directory of committed fixture sessions.
pub fn fixtures_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

/// Every committed fixture as (file name, bytes), sorted by name.
pub fn fixtures() -> Vec<(String, Vec<u8>)> {
    let mut files: Vec<(String, Vec<u8>)> = std::fs::read_dir(fixtures_dir())
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "jsonl"))
        .map(|path| {
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read(&path).unwrap())
        })
        .collect();
    files.sort();
    files
}

/// One fixture's bytes by file name.
pub fn fixture(name: &str) -> Vec<u8> {
    std::fs::read(fixtures_dir().join(name)).unwrap()
}
