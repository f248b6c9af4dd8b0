//! Branch collection and preparation agree with pi 1.6 on the committed fixtures.
//!
//! `tests/fixtures/branch-*.jsonl` are sessions with several branches, compactions and nested
//! branch summaries; `tests/fixtures/pi-branch/*.json` hold what pi's
//! `collectEntriesForBranchSummary` + `prepareBranchEntries` returned for them (see the
//! README there). Token counts use the library's `pi` estimator.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};

use compaction_core::branch::{collect_branch_entries, prepare_branch_entries};
use compaction_core::files::file_lists_appendix;
use compaction_core::message::AgentMessage;
use compaction_core::parse_session;
use compaction_core::tokens::{PiEstimator, TokenEstimator};
use pretty_assertions::assert_eq;
use serde::Deserialize;

/// The fields of the oracle output this test compares.
#[derive(Debug, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
struct Expected {
    from_id: String,
    target_id: String,
    budget: u64,
    common_ancestor_id: Option<String>,
    entries: Vec<String>,
    messages: usize,
    message_roles: Vec<String>,
    included_entry_ids: Vec<String>,
    total_tokens: u64,
    read_files: Vec<String>,
    modified_files: Vec<String>,
    file_lists_suffix: String,
}

/// pi 1.6's `estimateTokens`, as the library reproduces it.
fn pi_estimate(message: &AgentMessage) -> u64 {
    PiEstimator.message_tokens(message)
}

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

#[test]
fn pi_estimator_counts_like_pi() {
    let message: AgentMessage = serde_json::from_value(serde_json::json!({
        "role": "assistant",
        "content": [
            {"type": "text", "text": "🙂é"},
            {"type": "toolCall", "id": "c", "name": "edit", "arguments": {"p": "é\u{2028}\n\""}}
        ]
    }))
    .unwrap();
    // "🙂é" is 3 UTF-16 units; "edit" 4; pi notes measured `{"p":"é\u2028\n\""}` as 14.
    assert_eq!(pi_estimate(&message), (3u64 + 4 + 14).div_ceil(4));
}

#[test]
fn collection_and_preparation_match_pi() {
    let dir = fixtures().join("pi-branch");
    let mut cases = 0;
    let mut sessions = std::collections::BTreeSet::new();
    let mut names: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "json"))
        .collect();
    names.sort();
    for path in names {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let session_name = format!("{}.jsonl", name.split("__").next().unwrap());
        let expected: Expected =
            serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        let bytes = std::fs::read(fixtures().join(&session_name)).unwrap();
        let session = parse_session(&bytes);
        assert!(session.diagnostics().is_empty(), "{session_name}: {:?}", session.diagnostics());

        let from = session.index_of(&expected.from_id).unwrap();
        let target = session.index_of(&expected.target_id).unwrap();
        let collected = collect_branch_entries(&session, from, target);
        let prepared =
            prepare_branch_entries(&session, &collected.entries, expected.budget, &pi_estimate);
        let id = |index: usize| session.entries()[index].id.clone();
        let actual = Expected {
            from_id: expected.from_id.clone(),
            target_id: expected.target_id.clone(),
            budget: expected.budget,
            common_ancestor_id: collected.common_ancestor.map(id),
            entries: collected.entries.iter().copied().map(id).collect(),
            messages: prepared.messages.len(),
            message_roles: prepared.messages.iter().map(|m| m.role().to_owned()).collect(),
            included_entry_ids: prepared.entry_ids.clone(),
            total_tokens: prepared.total_tokens,
            file_lists_suffix: file_lists_appendix(&prepared.read_files, &prepared.modified_files),
            read_files: prepared.read_files,
            modified_files: prepared.modified_files,
        };
        assert_eq!(actual, expected, "{name}");
        cases += 1;
        sessions.insert(session_name);
    }
    assert!(sessions.len() >= 3, "expected at least 3 fixture sessions, found {sessions:?}");
    assert!(cases >= 40, "expected the committed oracle outputs, found {cases}");
}
