//! Errors and their fixes across rounds: what a round learns about an item the previous
//! summary carried goes with that item (issue 27, "errors without their fix").

use super::*;

/// The summary of `messages` after `previous`.
fn next_round(previous: &str, messages: &[AgentMessage]) -> String {
    summarize_after(messages, previous, 20_000)
}

#[test]
fn the_answer_a_part_opens_with_goes_with_the_carried_latest_request() {
    // The cut fell between the user's question and its answer: the first round has the
    // question, the second opens with the answer.
    let first = summarize(&[
        user("Add a tooltip to the option button."),
        assistant("Added the tooltip to `OptionButton`.", &[]),
        user("Why does the avatar tooltip have no arrow?"),
    ]);
    let second = next_round(
        &first,
        &[
            assistant("Found the cause: `tooltipProps` sets `arrow: false` explicitly.", &[]),
            user("Then give the overflow tooltip only the title."),
            assistant("The overflow tooltip now gets only `title`.", &[]),
        ],
    );
    let goal = bullets(&second, "## Goal");
    assert!(
        goal.iter().any(|item| item.contains("no arrow") && item.contains("`arrow: false`")),
        "{second}"
    );
}

#[test]
fn the_answer_a_part_opens_with_goes_with_the_carried_pasted_error() {
    let first = summarize(&[
        user("Add the time fields to the daily form."),
        assistant("Added `time_in` and `time_out` to the form.", &[]),
        user(
            "Submitting the form now fails:\n```\nTypeError: Cannot read properties of null \
             (reading 'value')\n```",
        ),
    ]);
    assert!(first.contains("Error the user reported: "), "{first}");
    let second = next_round(
        &first,
        &[
            assistant("Fixed `daily_form.js`: it still read the removed `hours_spent` field.", &[]),
            user("Good, now commit it."),
            assistant("Committed as `4f2a9c1`.", &[]),
        ],
    );
    let critical = bullets(&second, "## Critical Context");
    assert!(
        critical.iter().any(|item| item.starts_with("Error the user reported: ")
            && item.contains("Cannot read properties of null")
            && item.contains("daily_form.js")),
        "{second}"
    );
}

#[test]
fn a_check_that_prints_error_lines_records_what_it_found() {
    let summary = summarize(&[
        user("Why does the db MCP server not appear?"),
        assistant("", &[("1", "bash", json!({"command": "tail -n 50 log/tui.log"}))]),
        result(
            "1",
            "bash",
            "2025-10-03T22:37:48Z INFO aggregated 24 tools from 2 servers\n\
             error: MCP client for `db` failed to start: request timed out",
            false,
        ),
        assistant("The log says the server timed out at startup.", &[]),
    ]);
    let critical = bullets(&summary, "## Critical Context");
    assert!(
        critical.iter().any(|item| item.contains("`tail -n 50 log/tui.log`")
            && item.contains("failed to start: request timed out")),
        "{summary}"
    );
}

/// The sections one round assembles from `messages` after `previous`.
fn round_sections(previous: Option<&str>, messages: &[AgentMessage]) -> Sections {
    let mut digest = Digest::default();
    if let Some(previous) = previous.map(PreviousSummary::parse) {
        digest.seed_proposals(&previous);
        digest.previous = Some(previous);
    }
    for message in messages {
        digest.observe(message);
    }
    digest.into_sections(OfflineKind::History, None)
}

#[test]
fn a_carried_item_keeps_the_priority_of_its_kind() {
    // A round's Critical Context items compete by kind and age the same way at every
    // round: being carried neither promotes a check above the kinds that outrank it when
    // fresh, nor demotes an error the user pasted.
    let messages = [
        user("Why does the db server not appear?"),
        assistant("", &[("1", "bash", json!({"command": "tail -n 50 log/tui.log"}))]),
        result("1", "bash", "error: MCP client for `db` failed to start: request timed out", false),
        assistant("", &[("2", "bash", json!({"command": "cargo build --release"}))]),
        result("2", "bash", "Finished `release` profile", false),
        user("Now the form fails:\n```\nTypeError: Cannot read properties of null\n```"),
        assistant("Fixed `form.js`: it read a removed field.", &[]),
        user("Thanks."),
    ];
    let first = round_sections(None, &messages);
    let rendered = render(&first.items);
    let second = round_sections(Some(&rendered), &[]);
    let mut compared = 0;
    for item in &second.items {
        if item.section != Section::Critical {
            continue;
        }
        if let Some(fresh) = first
            .items
            .iter()
            .find(|fresh| fresh.section == item.section && fresh.text == item.text)
        {
            assert_eq!(item.priority, fresh.priority, "{}\n{rendered}", item.text);
            compared += 1;
        }
    }
    for kind in ["Check: ", "Error the user reported: "] {
        assert!(second.items.iter().any(|item| item.text.starts_with(kind)), "{kind}\n{rendered}");
    }
    assert!(compared >= 2, "{rendered}");
}
