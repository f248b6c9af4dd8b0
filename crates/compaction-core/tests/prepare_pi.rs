//! Compaction preparation against pi 1.6's own `prepareCompaction`.
//!
//! `tests/fixtures/pi-prepare/expected/*.json` were written by pi itself (see
//! `regenerate.sh` and `prepare.mjs` there) for generated sessions at several
//! `keepRecentTokens`. With the `pi` estimator and `minTurnsToKeep` 0 our cut, split-turn
//! flag, the entries behind the messages to summarize, `tokensBefore` and file lists must be
//! the same.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;

use compaction_core::parse_session;
use compaction_core::plan::{PlanInputs, plan_compaction};
use compaction_core::serialize::SerializeOptions;
use compaction_core::settings::CompactionSettings;
use compaction_core::tokens::estimator_by_name;
use serde_json::{Value, json};

#[test]
fn preparation_matches_pi() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/pi-prepare");
    let estimator = estimator_by_name("pi").unwrap();
    let serialize = SerializeOptions::default();
    let mut compared = 0;
    let mut cases = 0;
    for file in std::fs::read_dir(dir.join("expected")).unwrap() {
        let file = file.unwrap().path();
        let name = file.file_stem().unwrap().to_string_lossy().into_owned();
        let (session_name, keep) = name.rsplit_once(".k").unwrap();
        let keep: u64 = keep.parse().unwrap();
        let expected: Value = serde_json::from_slice(&std::fs::read(&file).unwrap()).unwrap();
        let bytes = std::fs::read(dir.join(format!("{session_name}.jsonl"))).unwrap();
        let session = parse_session(&bytes);
        let settings = CompactionSettings {
            keep_recent_tokens: keep,
            min_turns_to_keep: 0,
            ..CompactionSettings::default()
        };
        let inputs = PlanInputs {
            settings: &settings,
            context_window: 128_000,
            summary_window: None,
            estimator: estimator.as_ref(),
            serialize: &serialize,
            instructions: None,
        };
        let plan = plan_compaction(&session, session.leaf(), &inputs);
        cases += 1;
        let pi_summarizes = expected["compactable"] != json!(false)
            && expected["messagesToSummarize"].as_u64().unwrap_or(0)
                + expected["turnPrefixMessages"].as_u64().unwrap_or(0)
                > 0;
        let Ok(planned) = plan.compaction else {
            assert!(!pi_summarizes, "{name}: pi compacts, we do not");
            continue;
        };
        assert!(pi_summarizes, "{name}: we compact, pi has nothing to summarize");
        let preparation = &planned.preparation;
        let ids = |entries: &[usize]| -> Vec<String> {
            entries.iter().map(|&index| session.entries()[index].id.clone()).collect()
        };
        let ours = json!({
            "firstKeptEntryId": preparation.first_kept_entry_id,
            "isSplitTurn": preparation.cut.is_split_turn,
            "messagesToSummarize": preparation.messages_to_summarize.len(),
            "turnPrefixMessages": preparation.turn_prefix_messages.len(),
            "summarizeEntryIds": ids(&preparation.summarized_entries),
            "turnPrefixEntryIds": ids(&preparation.turn_prefix_entries),
            "tokensBefore": preparation.tokens_before,
            "previousSummary": preparation.previous_summary.is_some(),
            "readFiles": preparation.read_files(),
            "modifiedFiles": preparation.modified_files(),
        });
        for key in ours.as_object().unwrap().keys() {
            assert_eq!(ours[key], expected[key], "{name}: {key}");
        }
        compared += 1;
    }
    assert!(cases >= 16 && compared >= 12, "{cases} cases, {compared} compared");
}
