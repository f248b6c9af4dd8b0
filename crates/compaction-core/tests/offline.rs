//! The offline summarizer against a realistic coding session committed as a fixture.

use compaction_core::AgentMessage;
use compaction_core::context::build_context;
use compaction_core::offline::{OfflineInput, OfflineKind, summarize_offline};

const FIXTURE: &str = include_str!("fixtures/offline-coding.jsonl");

fn fixture_messages() -> Vec<AgentMessage> {
    let session = compaction_core::parse_session(FIXTURE.as_bytes());
    assert!(session.diagnostics().is_empty(), "{:?}", session.diagnostics());
    build_context(&session, session.leaf()).agent_messages(&session)
}

fn input(messages: &[AgentMessage]) -> OfflineInput<'_> {
    OfflineInput {
        kind: OfflineKind::History,
        messages,
        previous_summary: None,
        instructions: None,
        max_chars: 16_000,
    }
}

#[test]
fn fixture_summary_snapshot() {
    let messages = fixture_messages();
    insta::assert_snapshot!("offline_coding_history", summarize_offline(&input(&messages)));
}

#[test]
fn fixture_summary_names_every_modified_file_and_the_last_error() {
    let messages = fixture_messages();
    let summary = summarize_offline(&input(&messages));
    for path in ["src/parser.rs", "src/lib.rs", "src/lexer.rs", "src/comments.rs"] {
        assert!(summary.contains(&format!("`{path}`")), "{path} missing:\n{summary}");
    }
    let last_error = "error: unneeded `return` statement";
    assert!(summary.contains(last_error), "last error missing:\n{summary}");
    assert!(summary.contains("src/comments.rs:14:5"), "location missing:\n{summary}");
    // The earlier test failure was fixed by a later passing `cargo test`: not blocked.
    let blocked = section(&summary, "### Blocked");
    assert!(blocked.contains("cargo clippy --all-targets -- -D warnings"), "{blocked}");
    assert!(!blocked.contains("E0308"), "resolved failure still blocked:\n{blocked}");
    assert!(!blocked.contains("`cargo test`"), "resolved failure still blocked:\n{blocked}");
}

/// The lines after `heading` up to the next heading.
fn section<'a>(summary: &'a str, heading: &str) -> &'a str {
    let start = summary.find(heading).map(|at| at + heading.len()).unwrap_or(summary.len());
    let rest = &summary[start..];
    let end = rest.find("\n#").unwrap_or(rest.len());
    &rest[..end]
}
