//! Context, tokens and plan against pi 1.6 itself, at every entry used as leaf.
//!
//! `tests/fixtures/pi16/*.jsonl` were written by real pi 1.6.0 in RPC mode (context edits,
//! system-message changes, retain-none and extension compactions, overflow recovery, branch
//! summaries, model overrides, cache-warm usage entries, images); `expected/*.json` hold what
//! pi's own `buildSessionProjection`, `estimateProjectedContextTokens` and
//! `prepareCompaction` return at every leaf (see `integrations/pi-oracle`, whose CI step
//! checks those files against pi). With the `pi` estimator and `minTurnsToKeep` 0 ours must
//! be the same: the context's roles and source entries, its tokens, and the plan.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;

use compaction_core::context::build_context;
use compaction_core::parse_session;
use compaction_core::plan::{PlanInputs, plan_compaction};
use compaction_core::serialize::SerializeOptions;
use compaction_core::settings::CompactionSettings;
use compaction_core::tokens::{PiEstimator, TokenEstimator, context_tokens};
use serde_json::{Value, json};

#[test]
fn context_tokens_and_plan_match_pi_1_6_at_every_leaf() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/pi16");
    let mut files: Vec<_> = std::fs::read_dir(dir.join("expected"))
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "json"))
        .collect();
    files.sort();
    let serialize = SerializeOptions::default();
    let mut leaves = 0;
    let mut plans = 0;
    let mut mismatches: Vec<String> = Vec::new();
    for file in &files {
        let expected: Value = serde_json::from_slice(&std::fs::read(file).unwrap()).unwrap();
        let session_name = expected["session"].as_str().unwrap();
        let bytes = std::fs::read(dir.join(session_name)).unwrap();
        let session = parse_session(&bytes);
        let settings = CompactionSettings {
            keep_recent_tokens: expected["settings"]["keepRecentTokens"].as_u64().unwrap(),
            reserve_tokens: expected["settings"]["reserveTokens"].as_u64().unwrap(),
            min_turns_to_keep: 0,
            ..CompactionSettings::default()
        };
        let inputs = PlanInputs {
            settings: &settings,
            context_window: 1_000_000,
            summary_window: None,
            estimator: &PiEstimator,
            serialize: &serialize,
            instructions: None,
        };
        for case in expected["leaves"].as_array().unwrap() {
            let leaf_id = case["leaf"].as_str().unwrap();
            let leaf = session.index_of(leaf_id).unwrap();
            let name = format!("{}@{leaf_id}", file.file_name().unwrap().to_string_lossy());
            let context = build_context(&session, Some(leaf));
            let ours: Vec<Value> = context
                .items
                .iter()
                .map(|&item| {
                    json!({
                        "role": context.message(&session, item).role(),
                        "entryId": session.entries()[item.entry].id,
                    })
                })
                .collect();
            if Value::from(ours.clone()) != case["context"] {
                mismatches.push(format!("{name}: context {ours:?} != {}", case["context"]));
            }
            let tokens = context_tokens(&session, &context, &PiEstimator).tokens;
            if case["contextTokens"] != tokens {
                mismatches.push(format!("{name}: tokens {tokens} != {}", case["contextTokens"]));
            }
            let plan = plan_compaction(&session, Some(leaf), &inputs);
            let ours = match &plan.compaction {
                Ok(planned) => {
                    let preparation = &planned.preparation;
                    let ids = |entries: &[usize]| -> Vec<String> {
                        entries.iter().map(|&index| session.entries()[index].id.clone()).collect()
                    };
                    plans += 1;
                    json!({
                        "firstKeptEntryId": preparation.first_kept_entry_id,
                        "isSplitTurn": preparation.cut.is_split_turn,
                        "messagesToSummarize": ids(&preparation.summarized_entries),
                        "turnPrefixMessages": ids(&preparation.turn_prefix_entries),
                        "tokensBefore": preparation.tokens_before,
                        "readFiles": preparation.read_files(),
                        "modifiedFiles": preparation.modified_files(),
                        "previousSummary": preparation.previous_summary.is_some(),
                    })
                }
                Err(_) => Value::Null,
            };
            if ours != case["plan"] {
                mismatches.push(format!("{name}: plan {ours} != {}", case["plan"]));
            }
            leaves += 1;
        }
    }
    assert!(files.len() >= 30 && leaves >= 1000 && plans >= 300, "{leaves} leaves, {plans} plans");
    assert!(
        mismatches.is_empty(),
        "{} of {leaves} leaves differ from pi 1.6:\n{}",
        mismatches.len(),
        mismatches.iter().take(15).cloned().collect::<Vec<_>>().join("\n")
    );
}

/// The plan at `leaf` with pi's estimator, `minTurnsToKeep` and `keep`, as the boundary files
/// record it (null: nothing to compact).
fn boundary_plan(
    session: &compaction_core::Session,
    leaf: usize,
    keep: u64,
    min_turns: u64,
    estimator: &dyn TokenEstimator,
) -> Value {
    let settings = CompactionSettings {
        keep_recent_tokens: keep,
        min_turns_to_keep: min_turns,
        ..CompactionSettings::default()
    };
    let serialize = SerializeOptions::default();
    let inputs = PlanInputs {
        settings: &settings,
        context_window: 1_000_000,
        summary_window: None,
        estimator,
        serialize: &serialize,
        instructions: None,
    };
    match plan_compaction(session, Some(leaf), &inputs).compaction {
        Ok(planned) => {
            let preparation = &planned.preparation;
            let ids = |entries: &[usize]| -> Vec<String> {
                entries.iter().map(|&index| session.entries()[index].id.clone()).collect()
            };
            json!({
                "firstKeptEntryId": preparation.first_kept_entry_id,
                "isSplitTurn": preparation.cut.is_split_turn,
                "messagesToSummarize": ids(&preparation.summarized_entries),
                "turnPrefixMessages": ids(&preparation.turn_prefix_entries),
            })
        }
        Err(_) => Value::Null,
    }
}

/// `keepRecentTokens` on the boundaries: at every leaf, each exact sum of the newest entries'
/// estimates (and of the region's oldest), minus one, equal and plus one (`boundary/*.json`,
/// written by pi 1.6, see `integrations/pi-oracle/write-boundary.mjs`). With `minTurnsToKeep`
/// 0 the plan must be pi's; with the default `minTurnsToKeep` (2 turns kept when they fit)
/// the cut may be earlier, but whether there is something to compact must still be pi's.
/// (Both with pi's estimator: with another one the walk counts other tokens.)
/// Cases whose `keep` is a multiple of 3 form the test part, the rest the dev part.
#[test]
fn boundary_decisions_match_pi_1_6() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/pi16");
    let mut files: Vec<_> = std::fs::read_dir(dir.join("boundary"))
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "json"))
        .collect();
    files.sort();
    let defaults = CompactionSettings::default();
    // [dev, test] × (cases, plans equal with min turns 0, decisions equal with the default
    // min turns), all with pi's estimator.
    let mut counts = [[0usize; 3]; 2];
    let mut mismatches: Vec<String> = Vec::new();
    for file in &files {
        let name = file.file_stem().unwrap().to_string_lossy().into_owned();
        let bytes = std::fs::read(dir.join(format!("{name}.jsonl"))).unwrap();
        let session = parse_session(&bytes);
        for line in std::fs::read_to_string(file).unwrap().lines() {
            let case: Value = serde_json::from_str(line).unwrap();
            let leaf_id = case["leaf"].as_str().unwrap();
            let leaf = session.index_of(leaf_id).unwrap();
            let keep = case["keep"].as_u64().unwrap();
            let part = &mut counts[usize::from(keep.is_multiple_of(3))];
            part[0] += 1;
            let exact = boundary_plan(&session, leaf, keep, 0, &PiEstimator);
            if exact == case["plan"] {
                part[1] += 1;
            } else {
                mismatches
                    .push(format!("{name}@{leaf_id} keep {keep}: {exact} != {}", case["plan"]));
            }
            let default =
                boundary_plan(&session, leaf, keep, defaults.min_turns_to_keep, &PiEstimator);
            if default.is_null() == case["plan"].is_null() {
                part[2] += 1;
            } else {
                mismatches.push(format!(
                    "{name}@{leaf_id} keep {keep}, minTurnsToKeep {}: {} != {}",
                    defaults.min_turns_to_keep,
                    if default.is_null() { "nothing to compact" } else { "a plan" },
                    if case["plan"].is_null() { "nothing to compact" } else { "a plan" },
                ));
            }
        }
    }
    for (part, [cases, plans, decisions]) in ["dev", "test"].iter().zip(counts) {
        eprintln!("{part}: {cases} cases, plan = pi's {plans}, decision = pi's {decisions}");
    }
    assert!(counts[0][0] >= 2000 && counts[1][0] >= 1000, "{counts:?}");
    assert!(
        mismatches.is_empty(),
        "{} boundary cases differ from pi 1.6:\n{}",
        mismatches.len(),
        mismatches.iter().take(15).cloned().collect::<Vec<_>>().join("\n")
    );
}
