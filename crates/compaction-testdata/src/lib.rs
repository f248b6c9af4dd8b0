//! Deterministic generator of realistic pi v3 sessions, for fixtures and benchmarks.
//!
//! A [`SessionGenerator`] simulates a coding session the way pi 0.73.1 writes it: a header,
//! then turns of user prompts, assistant replies with thinking and `read`/`edit`/`write`/
//! `bash` tool calls, sizeable tool results, user shell commands, model and thinking-level
//! changes, labels, extension entries, branches with branch summaries and compactions.
//! Objects keep pi's key order, so generated lines look like lines pi wrote.
//!
//! Invariants: the output depends only on [`GenerateOptions`]; there are exactly
//! `entries` entry lines after the header; ids are unique 8-digit lowercase hex; entry
//! timestamps strictly increase; every `parentId` names an earlier entry; every tool result
//! directly follows the assistant message holding its call (or a sibling result of that
//! call batch); a compaction's `firstKeptEntryId` names a user message on its own path,
//! after the previous compaction on that path.
//!
//! The crate is a development tool of the workspace (`publish = false`): tests, benchmarks
//! and examples take it as a dev-dependency, and its `generate` binary writes a session to a
//! file (`cargo run --release -p compaction-testdata --bin generate -- --help`).

mod generator;
mod image;
mod outputs;
pub mod postgres;
mod random;
pub mod secrets;
mod timestamp;
mod vocabulary;

pub use generator::SessionGenerator;

/// What to generate.
#[derive(Debug, Clone, PartialEq)]
pub struct GenerateOptions {
    /// Seed of the pseudo-random sequence; the same options give the same bytes.
    pub seed: u64,
    /// Number of entry lines after the header.
    pub entries: usize,
    /// Whether the session branches (with and without branch summaries).
    pub branches: bool,
    /// Whether compactions are appended when the context grows past
    /// `compaction_threshold_tokens`.
    pub compactions: bool,
    /// Target mean size of an entry line in bytes; tool outputs are scaled to reach it.
    pub average_entry_bytes: usize,
    /// Estimated context tokens above which a compaction is appended.
    pub compaction_threshold_tokens: u64,
    /// Multiplies the chance of every event between turns (branches, labels, model and
    /// thinking-level changes, extension entries, user shell commands); 1.0 is the default
    /// mix, higher values pack more variety into small fixtures.
    pub event_scale: f64,
    /// Whether the session has what pi 1.6 writes: system messages and their patches,
    /// `context_edit` and `usage` entries, and compactions with a `systemMessage`.
    pub pi16: bool,
}

impl Default for GenerateOptions {
    fn default() -> Self {
        GenerateOptions {
            seed: 1,
            entries: 1000,
            branches: true,
            compactions: true,
            average_entry_bytes: DEFAULT_AVERAGE_ENTRY_BYTES,
            compaction_threshold_tokens: 120_000,
            event_scale: 1.0,
            pi16: false,
        }
    }
}

/// Default mean entry size: a 100 000-entry session is about 290 MB.
pub const DEFAULT_AVERAGE_ENTRY_BYTES: usize = 2900;

/// Generates a whole session as JSONL text (header and entries, each line ending in `\n`).
pub fn generate_session(options: &GenerateOptions) -> String {
    let mut text = String::new();
    for line in SessionGenerator::new(options.clone()) {
        text.push_str(&line);
        text.push('\n');
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    fn options(seed: u64, entries: usize) -> GenerateOptions {
        GenerateOptions { seed, entries, ..GenerateOptions::default() }
    }

    #[test]
    fn emits_exactly_the_requested_entries_after_a_header() {
        for entries in [0, 1, 7, 250] {
            let lines: Vec<String> = SessionGenerator::new(options(3, entries)).collect();
            assert_eq!(lines.len(), entries + 1);
            assert!(lines[0].starts_with(r#"{"type":"session","version":3,"id":""#));
        }
    }

    #[test]
    fn average_entry_size_follows_the_option() {
        for average in [1000, DEFAULT_AVERAGE_ENTRY_BYTES] {
            let opts = GenerateOptions { average_entry_bytes: average, ..options(11, 3000) };
            let text = generate_session(&opts);
            let measured = text.len() / opts.entries;
            let low = average * 80 / 100;
            let high = average * 120 / 100;
            assert!(
                (low..=high).contains(&measured),
                "asked for {average} bytes per entry, got {measured}"
            );
        }
    }
}
