//! Generated sessions: deterministic, clean to parse, and consistent with pi's semantics
//! (tree shape, tool results after their calls, compactions keeping a user message).

use std::collections::HashSet;

use compaction_core::context::build_context;
use compaction_core::entry::EntryKind;
use compaction_core::message::ContentBlock;
use compaction_core::{AgentMessage, Session, parse_session};
use compaction_testdata::{GenerateOptions, SessionGenerator, generate_session};
use proptest::prelude::*;

fn options(seed: u64, entries: usize) -> GenerateOptions {
    GenerateOptions {
        seed,
        entries,
        average_entry_bytes: 1200,
        compaction_threshold_tokens: 12_000,
        ..GenerateOptions::default()
    }
}

#[test]
fn same_seed_gives_same_bytes_and_other_seeds_differ() {
    let a = generate_session(&options(7, 300));
    assert_eq!(a, generate_session(&options(7, 300)));
    assert_ne!(a, generate_session(&options(8, 300)));
    let streamed: String = SessionGenerator::new(options(7, 300)).map(|line| line + "\n").collect();
    assert_eq!(a, streamed);
}

#[test]
fn switches_turn_branches_and_compactions_off() {
    let session = parse_session(
        generate_session(&GenerateOptions {
            branches: false,
            compactions: false,
            ..options(5, 1500)
        })
        .as_bytes(),
    );
    assert_eq!(session.leaves().len(), 1);
    assert!(
        session
            .entries()
            .iter()
            .all(|e| !matches!(e.kind, EntryKind::Compaction(_) | EntryKind::BranchSummary(_)))
    );
    let session = parse_session(generate_session(&options(5, 1500)).as_bytes());
    assert!(session.leaves().len() > 1);
    assert!(session.entries().iter().any(|e| matches!(e.kind, EntryKind::Compaction(_))));
}

/// Checks every structural promise the generator makes, on the whole file and the path.
fn check_session(session: &Session) {
    assert_eq!(session.diagnostics(), &[]);
    let entries = session.entries();
    let mut ids = HashSet::new();
    let mut previous_timestamp = String::new();
    for entry in entries {
        assert!(
            entry.id.len() == 8
                && entry.id.bytes().all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase()),
            "id {}",
            entry.id
        );
        assert!(ids.insert(entry.id.clone()), "duplicate id {}", entry.id);
        if let Some(parent) = &entry.parent_id {
            assert!(ids.contains(parent), "parent {parent} is not earlier");
        }
        let timestamp = entry.timestamp().unwrap().to_owned();
        assert!(timestamp > previous_timestamp, "timestamps must increase");
        previous_timestamp = timestamp;
    }

    let path = session.path_to_leaf();
    assert_eq!(session.parent_of(path[0]), None, "path starts at a root");
    for pair in path.windows(2) {
        assert_eq!(session.parent_of(pair[1]), Some(pair[0]), "path is root-first");
    }

    // Tool results directly follow the assistant message holding their call.
    let mut open_calls: HashSet<String> = HashSet::new();
    for (position, &index) in path.iter().enumerate() {
        let entry = &entries[index];
        match entry.message().transpose().unwrap() {
            Some(AgentMessage::Assistant(message)) => {
                open_calls = message.tool_calls().map(|call| call.id.clone()).collect();
            }
            Some(AgentMessage::ToolResult(result)) => {
                assert!(
                    open_calls.remove(&result.tool_call_id),
                    "tool result at path position {position} has no call just before it"
                );
            }
            Some(_) | None => open_calls.clear(),
        }
        if let EntryKind::Compaction(data) = &entry.kind {
            let kept = path[..position]
                .iter()
                .rposition(|&i| entries[i].id == data.first_kept_entry_id)
                .expect("first kept entry is on the path before the compaction");
            assert_eq!(entries[path[kept]].role(), Some("user"));
            let previous = path[..position]
                .iter()
                .rposition(|&i| matches!(entries[i].kind, EntryKind::Compaction(_)));
            assert!(previous.is_none_or(|p| p < kept), "kept entry after previous compaction");
            assert!(data.tokens_before > 0);
        }
        if let EntryKind::BranchSummary(data) = &entry.kind {
            assert_eq!(Some(&data.from_id), entry.parent_id.as_ref());
        }
    }

    // Every context item converts to a typed message.
    let context = build_context(session, session.leaf());
    for message in context.agent_messages(session) {
        assert!(!matches!(message, AgentMessage::Other(_)), "{message:?}");
        if let AgentMessage::User(user) = &message {
            for block in user.content.blocks() {
                assert!(!matches!(block, ContentBlock::Other(_)));
            }
        }
    }
}

#[test]
fn a_long_generated_session_is_consistent() {
    check_session(&parse_session(generate_session(&options(42, 3000)).as_bytes()));
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 12, ..ProptestConfig::default() })]

    #[test]
    fn generated_sessions_parse_cleanly_and_keep_pi_semantics(seed in any::<u64>(), entries in 50usize..400) {
        check_session(&parse_session(generate_session(&options(seed, entries)).as_bytes()));
    }
}
