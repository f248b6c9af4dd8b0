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
