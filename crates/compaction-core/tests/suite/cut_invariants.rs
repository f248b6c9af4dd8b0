//! Property tests of the cut and the preparation over generated sessions: what the model
//! sees of the kept part never starts with a tool result, no visible tool result is kept
//! without its call, no call is summarized while its result is kept, the first kept entry
//! is on the path before the leaf, and the context after compaction fits the window.
//! `PROPTEST_CASES` sets the number of cases (24 by default).

use std::collections::HashSet;

use compaction_core::message::{AgentMessage, ContentBlock};
use compaction_core::plan::{PlanInputs, plan_compaction};
use compaction_core::serialize::SerializeOptions;
use compaction_core::settings::CompactionSettings;
use compaction_core::tokens::estimator_by_name;
use compaction_core::{EntryKind, parse_session};
use compaction_testdata::{GenerateOptions, generate_session};
use proptest::prelude::*;

fn tool_call_ids(message: &AgentMessage) -> Vec<String> {
    match message {
        AgentMessage::Assistant(assistant) => assistant
            .content
            .iter()
            .filter_map(|block| {
                if let ContentBlock::ToolCall(call) = block { Some(call.id.clone()) } else { None }
            })
            .collect(),
        AgentMessage::User(_)
        | AgentMessage::ToolResult(_)
        | AgentMessage::BashExecution(_)
        | AgentMessage::Custom(_)
        | AgentMessage::BranchSummary(_)
        | AgentMessage::CompactionSummary(_)
        | AgentMessage::System(_)
        | AgentMessage::Other(_) => Vec::new(),
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(
        std::env::var("PROPTEST_CASES").ok().and_then(|cases| cases.parse().ok()).unwrap_or(24)
    ))]
    #[test]
    fn cut_and_preparation_invariants(
        seed in 0u64..10_000,
        entries in 40usize..400,
        keep in 200u64..6000,
        min_turns in 0u64..4,
        estimator in prop::sample::select(vec!["pi", "heuristic"]),
        pi16 in any::<bool>(),
    ) {
        let text = generate_session(&GenerateOptions {
            seed,
            entries,
            average_entry_bytes: 600,
            compaction_threshold_tokens: 12_000,
            event_scale: if pi16 { 3.0 } else { 1.0 },
            pi16,
            ..GenerateOptions::default()
        });
        let session = parse_session(text.as_bytes());
        let estimator = estimator_by_name(estimator).unwrap();
        let settings = CompactionSettings {
            keep_recent_tokens: keep,
            min_turns_to_keep: min_turns,
            ..CompactionSettings::default()
        };
        let window = 32_000;
        let serialize = SerializeOptions::default();
        let inputs = PlanInputs {
            settings: &settings,
            context_window: window,
            summary_window: Some(window),
            estimator: estimator.as_ref(),
            serialize: &serialize,
            instructions: None,
        };
        let plan = plan_compaction(&session, session.leaf(), &inputs);
        let Ok(planned) = plan.compaction else { return Ok(()) };
        let preparation = &planned.preparation;
        let path = &preparation.path;
        let first_kept = preparation.first_kept_index();
        let entries = session.entries();

        // On the path, inside the region, before the leaf.
        prop_assert!(first_kept >= preparation.region_start);
        prop_assert!(first_kept < path.len());
        prop_assert_eq!(&entries[path[first_kept]].id, &preparation.first_kept_entry_id);
        prop_assert!(!matches!(entries[*path.last().unwrap()].kind, EntryKind::Compaction(_)));

        // What the model sees of the kept part never starts with a tool result. A result a
        // context edit left out sends nothing: pi 1.6 moves the cut back over it as over any
        // entry the model does not see, and so do we (the plans stay equal to pi's).
        let context = compaction_core::context::build_context(&session, session.leaf());
        let omitted: HashSet<usize> =
            context.entries.iter().filter(|entry| entry.omitted).map(|entry| entry.entry).collect();
        let first_message = path[first_kept..]
            .iter()
            .find(|&&i| entries[i].is_message() && !omitted.contains(&i));
        if let Some(&index) = first_message {
            prop_assert_ne!(entries[index].role(), Some("toolResult"));
        }
        prop_assert!(!matches!(entries[path[first_kept]].role(), Some("system")));
        if !omitted.contains(&path[first_kept]) {
            prop_assert_ne!(entries[path[first_kept]].role(), Some("toolResult"));
        }

        // Nothing summarized is a system message or an entry a context edit left out.
        for message in preparation.messages_to_summarize.iter().chain(&preparation.turn_prefix_messages) {
            prop_assert!(!matches!(message, AgentMessage::System(_)));
        }
        for entry in preparation.summarized_entries.iter().chain(&preparation.turn_prefix_entries) {
            prop_assert!(!omitted.contains(entry), "summarized an omitted entry");
        }

        // Calls and results stay together.
        let kept: Vec<AgentMessage> = path[first_kept..]
            .iter()
            .filter(|&i| !omitted.contains(i))
            .filter_map(|&i| entries[i].message().and_then(Result::ok))
            .collect();
        let kept_calls: HashSet<String> = kept.iter().flat_map(tool_call_ids).collect();
        let summarized_calls: HashSet<String> = preparation
            .messages_to_summarize
            .iter()
            .chain(&preparation.turn_prefix_messages)
            .flat_map(tool_call_ids)
            .collect();
        for message in &kept {
            if let AgentMessage::ToolResult(result) = message {
                prop_assert!(kept_calls.contains(&result.tool_call_id),
                    "kept result {} without its call", result.tool_call_id);
                prop_assert!(!summarized_calls.contains(&result.tool_call_id),
                    "call {} summarized while its result is kept", result.tool_call_id);
            }
        }

        // Every summarizer request fits the summary model's window.
        for chunk in planned.history_chunks().iter().chain(planned.turn_prefix_chunks()) {
            prop_assert!(estimator.text_tokens(chunk) + settings.max_summary_tokens * 2 < window);
        }
        // The context after compaction fits the window when the kept part does.
        if preparation.kept_tokens + settings.max_summary_tokens <= window - settings.reserve_tokens {
            prop_assert!(planned.estimated_tokens_after <= window);
        }
    }
}

/// The property above only checks plans that compact; make sure generated sessions do.
#[test]
fn generated_sessions_are_compactable() {
    let estimator = estimator_by_name("pi").unwrap();
    let settings = CompactionSettings { keep_recent_tokens: 1000, ..CompactionSettings::default() };
    let serialize = SerializeOptions::default();
    let compactable = (0..20u64)
        .filter(|&seed| {
            let text = generate_session(&GenerateOptions {
                seed,
                entries: 200,
                average_entry_bytes: 600,
                compaction_threshold_tokens: 12_000,
                ..GenerateOptions::default()
            });
            let session = parse_session(text.as_bytes());
            let inputs = PlanInputs {
                settings: &settings,
                context_window: 32_000,
                summary_window: Some(32_000),
                estimator: estimator.as_ref(),
                serialize: &serialize,
                instructions: None,
            };
            plan_compaction(&session, session.leaf(), &inputs).compaction.is_ok()
        })
        .count();
    assert!(compactable >= 15, "only {compactable} of 20 generated sessions were compactable");
}
