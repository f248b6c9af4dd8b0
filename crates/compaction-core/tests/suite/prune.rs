//! Property tests of pruning over generated sessions: a pruned context never orphans a tool
//! call or result; protected tools and the protected last user turns are never pruned;
//! reverting a prune gives back exactly the earlier context; recall returns the exact
//! original bytes of every pruned entry.

use std::collections::BTreeMap;

use compaction_core::context::{SessionContext, build_context};
use compaction_core::message::{AgentMessage, ContentBlock};
use compaction_core::prune::{PruneDecision, PruneRecord, PruneSettings, ToolPolicy, plan_prune};
use compaction_core::recall::{recall, search};
use compaction_core::tokens::estimator_by_name;
use compaction_core::{Session, parse_session};
use compaction_testdata::{GenerateOptions, generate_session};
use proptest::prelude::*;
use serde_json::{Value, json};

/// Appends a `custom` entry with `fields` under the current leaf.
fn append(text: &str, id: &str, fields: serde_json::Map<String, Value>) -> String {
    let session = parse_session(text.as_bytes());
    let parent = session.leaf().map(|leaf| session.entries()[leaf].id.clone());
    let mut line = serde_json::Map::new();
    line.insert("type".into(), json!("custom"));
    line.insert("id".into(), json!(id));
    line.insert("parentId".into(), json!(parent));
    line.insert("timestamp".into(), json!("2026-01-01T00:00:00.000Z"));
    line.extend(fields);
    format!("{text}{}\n", Value::Object(line))
}

fn call_ids(messages: &[AgentMessage]) -> (Vec<String>, Vec<String>) {
    let mut calls = Vec::new();
    let mut results = Vec::new();
    for message in messages {
        match message {
            AgentMessage::Assistant(assistant) => {
                for block in &assistant.content {
                    if let ContentBlock::ToolCall(call) = block {
                        calls.push(call.id.clone());
                    }
                }
            }
            AgentMessage::ToolResult(result) => results.push(result.tool_call_id.clone()),
            AgentMessage::User(_)
            | AgentMessage::BashExecution(_)
            | AgentMessage::Custom(_)
            | AgentMessage::BranchSummary(_)
            | AgentMessage::CompactionSummary(_)
            | AgentMessage::System(_)
            | AgentMessage::Other(_) => {}
        }
    }
    (calls, results)
}

fn settings(protect_recent: u64, protect_turns: u64) -> PruneSettings {
    PruneSettings {
        protect_recent_tokens: protect_recent,
        minimum_savings: 0,
        protect_turns,
        tools: BTreeMap::from([
            ("read".to_owned(), ToolPolicy::DropSuperseded),
            ("bash".to_owned(), ToolPolicy::HeadTail),
            ("edit".to_owned(), ToolPolicy::Protect),
        ]),
        disposable_tools: vec!["wri*".to_owned()],
        head_lines: 3,
        tail_lines: 3,
        ..PruneSettings::default()
    }
}

/// Ids of the tool results in the last `turns` user turns of a context.
fn protected_ids(session: &Session, context: &SessionContext, turns: usize) -> Vec<String> {
    let ids: Vec<&str> =
        context.items.iter().map(|item| session.entries()[item.entry].id.as_str()).collect();
    let users: Vec<usize> = context
        .items
        .iter()
        .enumerate()
        .filter(|(_, item)| session.entries()[item.entry].role() == Some("user"))
        .map(|(position, _)| position)
        .collect();
    let from = if users.len() < turns { 0 } else { users[users.len() - turns] };
    ids[from..].iter().map(|id| (*id).to_owned()).collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(16))]
    #[test]
    fn prune_invariants(
        seed in 0u64..10_000,
        entries in 60usize..260,
        protect_recent in 0u64..3000,
        protect_turns in 1u64..4,
        compactions in any::<bool>(),
    ) {
        let text = generate_session(&GenerateOptions {
            seed,
            entries,
            compactions,
            average_entry_bytes: 900,
            compaction_threshold_tokens: 20_000,
            ..GenerateOptions::default()
        });
        let session = parse_session(text.as_bytes());
        let estimator = estimator_by_name("heuristic").unwrap();
        let rules = settings(protect_recent, protect_turns);
        let before = build_context(&session, session.leaf());
        let plan = plan_prune(&session, &before, &rules, estimator.as_ref());
        prop_assume!(plan.decision == PruneDecision::Prune);

        // Protected tools and the protected turns are never candidates.
        let protected = protected_ids(&session, &before, protect_turns as usize);
        for candidate in &plan.candidates {
            prop_assert_ne!(candidate.tool.as_str(), "edit");
            prop_assert!(!protected.contains(&candidate.id), "{} is in the protected turns", candidate.id);
            prop_assert_eq!(session.get(&candidate.id).unwrap().role(), Some("toolResult"));
        }

        let pruned_text = append(&text, "prune001", plan.record().entry_fields());
        let pruned = parse_session(pruned_text.as_bytes());
        prop_assert!(pruned.diagnostics().is_empty(), "{:?}", pruned.diagnostics());
        let after = build_context(&pruned, pruned.leaf());
        prop_assert_eq!(after.pruned.len(), plan.candidates.len());

        // No orphans: the same calls and results in the same order, only contents differ.
        let old = before.llm_messages(&session);
        let new = after.llm_messages(&pruned);
        prop_assert_eq!(call_ids(&old), call_ids(&new));
        prop_assert_eq!(old.len(), new.len());
        for (a, b) in old.iter().zip(&new) {
            prop_assert_eq!(a.role(), b.role());
            if a != b {
                let (AgentMessage::ToolResult(a), AgentMessage::ToolResult(b)) = (a, b) else {
                    panic!("a message other than a tool result changed");
                };
                prop_assert_eq!(&a.tool_call_id, &b.tool_call_id);
            }
        }
        prop_assert!(
            after.pruned.latest_position.is_some(),
            "the prune entry is the latest view change"
        );

        // Recall gives back the exact original bytes of every pruned entry.
        for candidate in &plan.candidates {
            let recalled = recall(&pruned, &candidate.id).unwrap();
            let original = session.get(&candidate.id).unwrap();
            prop_assert_eq!(recalled.raw.as_str(), original.raw());
            let Some(Ok(AgentMessage::ToolResult(result))) = original.message() else { panic!() };
            prop_assert_eq!(recalled.text, result.content.joined_text());
        }
        // Every pruned entry can be found by a piece of its text.
        if let Some(candidate) = plan.candidates.iter().find(|c| {
            let text = recall(&session, &c.id).unwrap().text;
            text.split_whitespace().any(|word| word.len() > 6)
        }) {
            let text = recall(&session, &candidate.id).unwrap().text;
            let word = text.split_whitespace().find(|word| word.len() > 6).unwrap();
            let hits = search(&pruned, &after, word, 10_000, None);
            prop_assert!(hits.iter().any(|hit| hit.id == candidate.id), "{word} not found");
        }

        // Revert: exactly the earlier context again.
        let reverted_text =
            append(&pruned_text, "revert01", PruneRecord::Revert { revert: "prune001".into() }.entry_fields());
        let reverted = parse_session(reverted_text.as_bytes());
        let restored = build_context(&reverted, reverted.leaf());
        prop_assert!(restored.pruned.is_empty());
        prop_assert_eq!(restored.llm_messages(&reverted), old);
    }
}

#[test]
fn a_record_naming_a_user_message_or_an_unknown_id_changes_nothing() {
    let text = generate_session(&GenerateOptions {
        seed: 3,
        entries: 80,
        compactions: false,
        branches: false,
        ..GenerateOptions::default()
    });
    let session = parse_session(text.as_bytes());
    let user = session.entries().iter().find(|e| e.role() == Some("user")).unwrap().id.clone();
    let record = json!({"customType":"compaction.prune","data":{"entries":[
        {"id": user, "placeholder": "gone"},
        {"id": "nope", "placeholder": "gone"}
    ]}});
    let text2 = append(&text, "prune001", record.as_object().unwrap().clone());
    let after = parse_session(text2.as_bytes());
    let before = build_context(&session, session.leaf());
    let context = build_context(&after, after.leaf());
    assert!(context.pruned.is_empty());
    assert_eq!(context.llm_messages(&after), before.llm_messages(&session));
}

#[test]
fn usage_reported_before_a_prune_is_not_trusted_after_it() {
    let text = generate_session(&GenerateOptions {
        seed: 5,
        entries: 200,
        compactions: false,
        branches: false,
        average_entry_bytes: 2000,
        ..GenerateOptions::default()
    });
    let session = parse_session(text.as_bytes());
    let estimator = estimator_by_name("heuristic").unwrap();
    let rules =
        PruneSettings { protect_recent_tokens: 1000, minimum_savings: 0, ..settings(1000, 2) };
    let context = build_context(&session, session.leaf());
    let plan = plan_prune(&session, &context, &rules, estimator.as_ref());
    assert_eq!(plan.decision, PruneDecision::Prune);
    let pruned_text = append(&text, "prune001", plan.record().entry_fields());
    let pruned = parse_session(pruned_text.as_bytes());
    let after = build_context(&pruned, pruned.leaf());
    let tokens = compaction_core::tokens::context_tokens(&pruned, &after, estimator.as_ref());
    assert_eq!(tokens.usage_tokens, 0, "usage from before the prune measured the unpruned context");
    // Without a usage to trust, the count is the estimate of the context, the measure of
    // the plan's before (this record carries no context edits, so nothing shrank).
    let estimate =
        compaction_core::tokens::estimate_context_tokens(&pruned, &after, estimator.as_ref());
    assert_eq!(tokens.tokens, estimate);
    assert!(estimate <= plan.tokens_before, "{estimate} > {}", plan.tokens_before);
}
