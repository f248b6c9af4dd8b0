//! The verbatim user messages through the orchestration path: the user's latest messages are
//! appended to the stored summary word for word, in the room the summary leaves of its
//! budget plus `keepUserMessagesTokens`, carried through successive compactions without
//! duplicates, and the summary before the section is the same whatever the setting.

use std::path::Path;

use compaction::compact::{CompactRequest, Compactor};
use compaction::extension::Extensions;
use compaction::offline::OfflineSummarizer;
use compaction::store::NewEntry;
use compaction_core::context::build_context;
use compaction_core::serialize::Redactor;
use compaction_core::settings::CompactionSettings;
use compaction_core::user_messages::{
    USER_MESSAGES_HEADING, split_kept_user_messages, user_message_texts,
};
use compaction_core::{AgentMessage, EntryKind, Session};
use serde_json::json;
use tokio_util::sync::CancellationToken;

use super::compact::{WINDOW, estimator, open, session_copy, settings};

const BUDGET: u64 = 300;

async fn compact_with(path: &Path, settings: &CompactionSettings) -> String {
    let estimator = estimator();
    let compactor = Compactor {
        summarizer: &OfflineSummarizer,
        settings,
        context_window: WINDOW,
        estimator: estimator.as_ref(),
        redactor: Redactor::default(),
        extensions: &Extensions::new(),
    };
    let mut store = open(path);
    let outcome = compactor
        .run(&mut store, &CompactRequest::default(), &CancellationToken::new(), &|_| {})
        .await
        .unwrap();
    assert!(outcome.summarized);
    drop(store);
    let session = open(path).into_session();
    let EntryKind::Compaction(data) = &session.entries()[session.leaf().unwrap()].kind else {
        panic!("not a compaction")
    };
    data.summary.clone()
}

/// A new round of conversation: user requests (one of them a slash command) and long
/// replies, so the next compaction has a region to summarize.
fn continue_conversation(path: &Path, round: usize) {
    let mut store = open(path);
    let filler = format!("round {round} work ").repeat(300);
    for message in [
        json!({"role":"user","content":format!("Round {round}: add the CSV exporter, part one.")}),
        json!({"role":"assistant","content":[{"type":"text","text":filler}]}),
        json!({"role":"user","content":"/mode fast"}),
        json!({"role":"user","content":format!("Round {round}: never change the file format.")}),
        json!({"role":"assistant","content":[{"type":"text","text":filler}]}),
        json!({"role":"user","content":format!("Round {round}: now run the tests.")}),
        json!({"role":"assistant","content":[{"type":"text","text":filler}]}),
        json!({"role":"user","content":format!("Round {round}: and update the changelog.")}),
        json!({"role":"assistant","content":[{"type":"text","text":filler}]}),
    ] {
        let mut fields = serde_json::Map::new();
        fields.insert("message".into(), message);
        store.append(NewEntry::new("message", fields)).unwrap();
    }
}

/// The user messages the compaction at the leaf summarized so far: every user message on
/// the path before its first kept entry, slash commands left out, oldest first.
fn summarized_user_texts(session: &Session) -> Vec<String> {
    let leaf = session.leaf().unwrap();
    let EntryKind::Compaction(data) = &session.entries()[leaf].kind else { panic!() };
    let path = session.path(leaf);
    let messages: Vec<AgentMessage> = path
        .iter()
        .map(|&index| &session.entries()[index])
        .take_while(|entry| entry.id != data.first_kept_entry_id)
        .filter_map(|entry| entry.message().and_then(Result::ok))
        .collect();
    user_message_texts(&messages)
}

#[tokio::test]
async fn three_successive_compactions_keep_the_latest_user_messages_once_each() {
    let (_dir, path) = session_copy();
    let settings = CompactionSettings { keep_user_messages_tokens: BUDGET, ..settings() };
    let estimator = estimator();
    let mut previous_bodies: Vec<String> = Vec::new();
    for round in 0..3 {
        if round > 0 {
            continue_conversation(&path, round);
        }
        let summary = compact_with(&path, &settings).await;
        assert_eq!(summary.matches(USER_MESSAGES_HEADING).count(), 1, "{summary}");
        let (without, bodies) = split_kept_user_messages(&summary);
        assert!(!without.contains(USER_MESSAGES_HEADING));
        let section_start = summary.find(USER_MESSAGES_HEADING).unwrap();
        let section_end = summary.find("\n\n<read-files>").unwrap_or(summary.len());
        let section = &summary[section_start..section_end];
        assert!(estimator.text_tokens(section) > 0, "{section}");
        // The stored summary, section included, within both budgets together.
        let budget = settings.max_summary_tokens + BUDGET;
        assert!(estimator.text_tokens(&summary) <= budget, "{summary}");
        // The newest summarized messages, an unbroken run ending with the latest, each
        // once, oldest first; the oldest may be cut to fit.
        let session = open(&path).into_session();
        let summarized = summarized_user_texts(&session);
        assert!(!bodies.is_empty());
        let suffix = &summarized[summarized.len() - bodies.len()..];
        assert_eq!(&bodies[1..], &suffix[1..], "round {round}");
        let oldest = bodies[0].split("\n[… ").next().unwrap();
        assert!(suffix[0].starts_with(oldest), "{oldest:?} vs {:?}", suffix[0]);
        let mut unique = bodies.clone();
        unique.sort();
        unique.dedup();
        assert_eq!(unique.len(), bodies.len(), "duplicates: {bodies:?}");
        assert!(!bodies.iter().any(|body| body.starts_with('/')), "{bodies:?}");
        if round > 0 {
            assert_eq!(
                bodies.last().unwrap(),
                &format!("Round {round}: and update the changelog.")
            );
            assert_ne!(bodies, previous_bodies);
        }
        // pi's context starts with the summary, so it sees the section too.
        let context = build_context(&session, session.leaf());
        let AgentMessage::CompactionSummary(first) = &context.agent_messages(&session)[0] else {
            panic!("the context does not start with the summary")
        };
        assert!(first.summary.contains(&format!("```text\n{}\n```", bodies.last().unwrap())));
        previous_bodies = bodies;
    }
}

#[tokio::test]
async fn the_summary_room_holds_the_section_and_the_setting_only_adds_to_it() {
    let (_dir, off) = session_copy();
    let (_dir2, on) = session_copy();
    let (_dir3, tight) = session_copy();
    let estimator = estimator();
    // Setting 0: the summary is short, so the room it leaves holds the user's words, and
    // the whole stays within the summary's budget.
    let zero = CompactionSettings { keep_user_messages_tokens: 0, ..settings() };
    let spare_only = compact_with(&off, &zero).await;
    let (plain, spare_bodies) = split_kept_user_messages(&spare_only);
    assert!(!spare_bodies.is_empty(), "{spare_only}");
    assert!(estimator.text_tokens(&spare_only) <= zero.max_summary_tokens);
    // A positive setting adds room: the same summary, and at least the same messages.
    let with =
        compact_with(&on, &CompactionSettings { keep_user_messages_tokens: BUDGET, ..settings() })
            .await;
    let (stripped, bodies) = split_kept_user_messages(&with);
    assert_eq!(stripped, plain);
    assert!(bodies.len() >= spare_bodies.len(), "{bodies:?} vs {spare_bodies:?}");
    assert_eq!(bodies.last(), spare_bodies.last());
    // A budget the summary itself fills leaves no room and the setting at 0 adds none.
    let full = CompactionSettings { max_summary_tokens: 64, ..zero };
    let filled = compact_with(&tight, &full).await;
    assert!(!filled.contains(USER_MESSAGES_HEADING), "{filled}");
}
