//! The offline summarizer against a realistic coding session committed as a fixture.
#![allow(clippy::unwrap_used, clippy::expect_used)]

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
        after: &[],
        kind: OfflineKind::History,
        messages,
        previous_summary: None,
        instructions: None,
        pins: &[],
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

fn summary_of(
    kind: OfflineKind,
    messages: &[AgentMessage],
    previous_summary: Option<&str>,
    max_chars: usize,
) -> String {
    summarize_offline(&OfflineInput {
        after: &[],
        kind,
        messages,
        previous_summary,
        instructions: None,
        pins: &[],
        max_chars,
    })
}

const HEADINGS: [&str; 9] = [
    "## Goal",
    "## Constraints & Preferences",
    "## Progress",
    "### Done",
    "### In Progress",
    "### Blocked",
    "## Key Decisions",
    "## Next Steps",
    "## Critical Context",
];

fn headings_of(summary: &str) -> Vec<&str> {
    summary.lines().filter(|line| line.starts_with('#')).collect()
}

/// Asserts the headings are checkpoint headings in order, starting with Goal.
fn assert_headings_in_order(summary: &str) {
    let headings = headings_of(summary);
    assert_eq!(headings.first(), Some(&"## Goal"), "{summary}");
    let positions: Vec<usize> = headings
        .iter()
        .map(|heading| HEADINGS.iter().position(|known| known == heading).unwrap())
        .collect();
    assert!(positions.windows(2).all(|pair| pair[0] < pair[1]), "{summary}");
    assert!(!summary.contains("(none)"), "{summary}");
}

#[test]
fn fixture_summary_is_deterministic() {
    let messages = fixture_messages();
    let first = summarize_offline(&input(&messages));
    let second = summarize_offline(&input(&fixture_messages()));
    assert_eq!(first, second);
}

#[test]
fn truncation_keeps_structure_and_the_most_important_items() {
    let messages = fixture_messages();
    let full = summary_of(OfflineKind::History, &messages, None, 16_000);
    let mut previous_len = usize::MAX;
    for max_chars in [1_500, 1_000, 700] {
        let summary = summary_of(OfflineKind::History, &messages, None, max_chars);
        let length = summary.chars().count();
        assert!(length <= max_chars, "{length} > {max_chars}:\n{summary}");
        assert!(length < full.chars().count());
        assert!(length <= previous_len);
        previous_len = length;
        assert_headings_in_order(&summary);
        assert!(summary.contains("parses_nested_lists"), "main goal lost:\n{summary}");
        assert!(summary.contains("src/comments.rs"), "modified files lost:\n{summary}");
        // Every line that remains is a line of the full summary (or a shortened one).
        for line in summary.lines().filter(|line| line.starts_with("- ") && *line != "- (none)") {
            let stem = line.trim_end_matches('…');
            assert!(full.contains(stem), "line not in the full summary: {line}");
        }
    }
}

#[test]
fn merging_with_a_previous_summary_keeps_its_items_and_drops_resolved_blockers() {
    let messages = fixture_messages();
    // Split right after the compile error, before the fix.
    let split = messages
        .iter()
        .position(|message| {
            matches!(message, AgentMessage::ToolResult(result)
                if result.content.joined_text().contains("E0308"))
        })
        .map(|at| at + 1)
        .unwrap_or_default();
    assert!(split > 0);
    let (older, newer) = messages.split_at(split);
    let previous = summary_of(OfflineKind::History, older, None, 16_000);
    assert!(
        section(&previous, "### Blocked").contains("`cargo test` failed"),
        "the older half should end blocked:\n{previous}"
    );

    let merged = summary_of(OfflineKind::History, newer, Some(&previous), 16_000);
    insta::assert_snapshot!("offline_coding_merged", merged);
    assert_headings_in_order(&merged);
    // The original goal stays the main goal; the new request is a follow-up.
    let goal = section(&merged, "## Goal");
    assert!(
        goal.starts_with("\n- The test `parser::tests::parses_nested_lists` is failing"),
        "{goal}"
    );
    assert!(goal.contains("Latest request: Great, thanks. Now add support for comments"), "{goal}");
    // The earlier `cargo test` failure was resolved by a later pass.
    let blocked = section(&merged, "### Blocked");
    assert!(!blocked.contains("`cargo test`"), "{blocked}");
    assert!(blocked.contains("cargo clippy"), "{blocked}");
    // Done items accumulate; the file lists are the entry's, appended after the summary.
    assert!(merged.contains("- Edited `src/lib.rs`"), "{merged}");
    assert!(!merged.contains("Modified files"), "{merged}");
    assert!(merged.contains("- `cargo test` passes now (it was blocked before)"), "{merged}");
    // Critical context merges instead of repeating: one list per kind, older errors kept.
    assert_eq!(merged.matches("- Commands run:").count(), 1, "{merged}");
    assert_eq!(merged.matches("- Identifiers:").count(), 1, "{merged}");
    assert_eq!(merged.matches("- Last error").count(), 1, "{merged}");
    assert!(
        merged.contains("- Error seen (since resolved): `error[E0308]: mismatched types`"),
        "{merged}"
    );
    assert!(merged.contains("`cargo test` (passed after earlier failures)"), "{merged}");
    // Constraints from the older half survive.
    assert!(merged.contains("Don't change the public signature of `parse_expr`."), "{merged}");
}

#[test]
fn an_unstructured_previous_summary_is_kept_as_earlier_context() {
    let messages = fixture_messages();
    let merged = summary_of(
        OfflineKind::History,
        &messages,
        Some("We set up the mini-parse crate and its lexer tests."),
        16_000,
    );
    assert!(
        merged.contains("- Earlier: We set up the mini-parse crate and its lexer tests.\n"),
        "{merged}"
    );
}

#[test]
fn branch_and_turn_prefix_summaries_of_the_fixture() {
    let messages = fixture_messages();
    let branch = summary_of(OfflineKind::Branch, &messages, None, 16_000);
    insta::assert_snapshot!("offline_coding_branch", branch);
    assert!(branch.contains("- Outcome: left with an open failure:"), "{branch}");
    // A split turn: the last user request up to the clippy run.
    let turn_start = messages
        .iter()
        .rposition(|message| matches!(message, AgentMessage::User(_)))
        .unwrap_or_default();
    let prefix = summary_of(OfflineKind::TurnPrefix, &messages[turn_start..], None, 4_000);
    insta::assert_snapshot!("offline_coding_turn_prefix", prefix);
    assert!(
        prefix.contains("- Request of this turn: Great, thanks. Now add support for comments"),
        "{prefix}"
    );
    assert!(prefix.len() < branch.len());
}

/// The offline summary of a region holds every must-keep fact of that region word for word
/// (whitespace aside), so a gate checking the facts never has to repair it: at every user
/// message of the bundled sessions, with a small kept part.
#[test]
fn offline_summaries_hold_every_must_keep_fact() {
    use compaction_core::prepare::{PrepareOptions, prepare_compaction};
    use compaction_core::tokens::{HeuristicEstimator, TokenEstimator};
    let sessions = [
        FIXTURE,
        include_str!("../../../examples/eval/typescript-npm.jsonl"),
        include_str!("../../../examples/eval/python-pytest.jsonl"),
        include_str!("../../../examples/coding-session.jsonl"),
    ];
    let normalize = |text: &str| text.split_whitespace().collect::<Vec<_>>().join(" ");
    let mut checked = 0;
    for text in sessions {
        let session = compaction_core::parse_session(text.as_bytes());
        let leaf = session.leaf().unwrap();
        let path = session.path(leaf);
        for &index in path.iter().filter(|&&index| session.entries()[index].role() == Some("user"))
        {
            let options = PrepareOptions {
                keep_recent_tokens: 300,
                reserve_tokens: 1_000,
                min_turns_to_keep: 0,
                max_summary_tokens: 4_000,
                keep_user_messages_tokens: 0,
                context_window: 200_000,
            };
            let estimate = |message: &AgentMessage| HeuristicEstimator.message_tokens(message);
            let Ok(preparation) = prepare_compaction(&session, Some(index), options, &estimate, 0)
            else {
                continue;
            };
            let facts = preparation.must_keep(&compaction_core::serialize::Redactor::default());
            let history = summary_of(
                OfflineKind::History,
                &preparation.messages_to_summarize,
                preparation.previous_summary.as_deref(),
                16_000,
            );
            let prefix =
                summary_of(OfflineKind::TurnPrefix, &preparation.turn_prefix_messages, None, 8_000);
            // The entry appends the file lists after the summary: they are part of what the
            // model reads.
            let lists = compaction_core::files::file_lists_appendix(
                &preparation.read_files(),
                &preparation.modified_files(),
            );
            let summary = normalize(&format!("{history}\n{prefix}{lists}"));
            for path in &facts.modified_files {
                // A move in the split turn renames files only the history summary knows
                // under their old names; the summary names the move instead.
                let moved_in_prefix = prefix.lines().any(|line| {
                    line.starts_with("- Moved ")
                        && line.split('`').nth(3).is_some_and(|to| path.starts_with(to))
                });
                assert!(
                    summary.contains(path.as_str()) || moved_in_prefix,
                    "{path} missing:\n{summary}"
                );
            }
            for constraint in &facts.constraints {
                assert!(
                    summary.contains(&normalize(constraint)),
                    "{constraint} missing:\n{summary}"
                );
            }
            if let Some(request) = &facts.latest_request {
                assert!(summary.contains(&normalize(request)), "{request} missing:\n{summary}");
            }
            if let Some(error) = &facts.unresolved_error {
                assert!(
                    summary.contains(&normalize(&error.error_line)),
                    "{error:?} missing:\n{summary}"
                );
            }
            checked += 1;
        }
    }
    assert!(checked > 20, "{checked}");
}

/// A user message holding pasted tool output (JSON fragments of a tool result) and a bare
/// `ls`: nothing of it becomes a constraint or the latest request.
#[test]
fn pasted_tool_output_snapshot() {
    let pasted = "No fixes applied.\n\n> @mariozechner/pi-proxy@0.14.2 check\n> biome check .\n\n\
                  \"}],\"isError\":false,\"timestamp\":1765200000000}";
    let messages = vec![
        AgentMessage::user_text("Run the checks in the proxy package and fix what they report."),
        AgentMessage::user_text(pasted),
        AgentMessage::user_text("ls"),
    ];
    insta::assert_snapshot!("offline_pasted_tool_output", summarize_offline(&input(&messages)));
}

fn pinned_summary(previous: Option<&str>, pins: &[String], max_chars: usize) -> String {
    let messages = fixture_messages();
    summarize_offline(&OfflineInput {
        after: &[],
        kind: OfflineKind::History,
        messages: &messages,
        previous_summary: previous,
        instructions: None,
        pins,
        max_chars,
    })
}

#[test]
fn pins_open_the_summary_verbatim_and_are_never_cut() {
    let pins =
        vec!["Never change the file format.".to_owned(), "  Keep\n\n  two spaces.  ".to_owned()];
    let summary = pinned_summary(None, &pins, 16_000);
    assert!(summary.starts_with("## Pinned Instructions\n"), "{summary}");
    for pin in &pins {
        let element = format!("<pinned-instruction>\n{pin}\n</pinned-instruction>");
        assert_eq!(summary.matches(&element).count(), 1, "{summary}");
    }
    assert!(summary.contains("</pinned-instruction>\n\n## Goal\n"), "{summary}");
    assert!(summary.chars().count() <= 16_000);
    // A tight budget shortens the rest of the summary, never a pin.
    let tight = pinned_summary(None, &pins, 600);
    assert!(tight.chars().count() <= 600, "{tight}");
    assert!(
        tight.contains("<pinned-instruction>\n  Keep\n\n  two spaces.  \n</pinned-instruction>")
    );
    assert!(tight.contains("## Goal"), "{tight}");
    // Without pins there is no section at all.
    let plain = pinned_summary(None, &[], 16_000);
    assert!(!plain.contains("Pinned"), "{plain}");
    assert!(plain.starts_with("## Goal\n"), "{plain}");
}

#[test]
fn successive_summaries_keep_each_pin_once_and_drop_an_unpinned_one() {
    let pins =
        vec!["Never change the file format.".to_owned(), "Use rgb values, no indices".to_owned()];
    let mut summary = pinned_summary(None, &pins, 16_000);
    for _ in 0..5 {
        summary = pinned_summary(Some(&summary), &pins, 16_000);
        assert_eq!(summary.matches("## Pinned Instructions").count(), 1, "{summary}");
        for pin in &pins {
            assert_eq!(summary.matches(pin.as_str()).count(), 1, "{pin}:\n{summary}");
        }
    }
    // After an unpin, the next summary carries only the pin still active, anywhere.
    let after = pinned_summary(Some(&summary), &pins[1..], 16_000);
    assert!(!after.contains("Never change the file format."), "{after}");
    assert_eq!(after.matches("Use rgb values, no indices").count(), 1, "{after}");
    let none = pinned_summary(Some(&after), &[], 16_000);
    assert!(!none.contains("Pinned") && !none.contains("rgb values"), "{none}");
}
