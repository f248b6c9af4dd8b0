//! One test per rule that the held-out sessions (Express/Prisma, Docker/CI, FastAPI after
//! an abandoned branch) needed: provider failures, corrections aimed at one step, answers
//! to the assistant's questions, calls that never ran, split turns carried into the next
//! summary, and pi's branch summaries.

use super::*;
use pretty_assertions::assert_eq;

fn history(messages: &[AgentMessage], previous: Option<&str>) -> String {
    summarize_offline(&OfflineInput {
        after: &[],
        kind: OfflineKind::History,
        messages,
        previous_summary: previous,
        instructions: None,
        max_chars: 20_000,
        pins: &[],
    })
}

fn section_text(summary: &str, heading: &str) -> String {
    bullets(summary, heading).join("\n")
}

fn bash(id: &str, command: &str) -> AgentMessage {
    assistant("", &[(id, "bash", json!({ "command": command }))])
}

fn failed_reply(stop_reason: &str, error: &str) -> AgentMessage {
    AgentMessage::Assistant(AssistantMessage {
        content: Vec::new(),
        provider: None,
        model: None,
        usage: None,
        stop_reason: Some(stop_reason.to_owned()),
        error_message: Some(error.to_owned()),
        extra: Extra::new(),
    })
}

#[test]
fn a_provider_failure_a_later_reply_follows_is_no_error_of_the_work() {
    let messages = [
        user("Fix the pagination test."),
        assistant(
            "I'll add `skip: 1`.",
            &[("1", "edit", json!({"path": "src/lib/pagination.ts"}))],
        ),
        result("1", "edit", "Successfully replaced text in src/lib/pagination.ts.", false),
        failed_reply("error", "529 {\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}"),
        user("continue"),
        assistant("The test passes now.", &[]),
    ];
    let summary = history(&messages, None);
    assert!(!summary.to_lowercase().contains("overloaded"), "{summary}");
    // Still open when nothing succeeded after it.
    let open = history(&messages[..4], None);
    assert!(section_text(&open, "### Blocked").contains("Overloaded"), "{open}");
}

#[test]
fn a_correction_aimed_at_one_step_rejects_that_step_not_the_whole_turn() {
    let messages = [
        user("Add cursor pagination to GET /invoices."),
        assistant(
            "I'll put the cursor logic in a helper because payments need it too.",
            &[("1", "write", json!({"path": "src/lib/pagination.ts"}))],
        ),
        result("1", "write", "Successfully wrote 142 bytes to src/lib/pagination.ts", false),
        assistant(
            "The query values are untyped. I'll cast them with `req.query.limit as any`.",
            &[("2", "edit", json!({"path": "src/routes/invoices.ts"}))],
        ),
        result("2", "edit", "Successfully replaced text in src/routes/invoices.ts.", false),
        user("wait, that's not right. no `as any` here. parse the query with zod."),
        assistant("Now the zod version.", &[]),
    ];
    let summary = history(&messages, None);
    let constraints = section_text(&summary, "## Constraints & Preferences");
    assert!(
        constraints.contains("Rejected by the user: The query values are untyped. I'll cast them"),
        "{summary}"
    );
    assert!(!constraints.contains("cursor logic in a helper"), "{summary}");
    assert!(
        section_text(&summary, "## Key Decisions").contains("cursor logic in a helper"),
        "{summary}"
    );
    // The correction redirects the request before it; it is not a request of its own.
    let goal = section_text(&summary, "## Goal");
    assert_eq!(goal, "Add cursor pagination to GET /invoices.");
    assert!(shares_a_term("I'll cast with `x as any`.", "no `as any` here"));
    assert!(!shares_a_term("I'll cast the query values.", "no casts, use zod"));
}

#[test]
fn a_short_reply_to_a_question_is_its_answer_not_a_new_request() {
    let messages = [
        user("Add an index on Invoice(customerId, id) and make a migration."),
        assistant("The database isn't running. Is it started through docker compose here?", &[]),
        user("yes, `docker compose up -d postgres`"),
        assistant("Started it; the migration is applied.", &[]),
    ];
    let summary = history(&messages, None);
    let goal = section_text(&summary, "## Goal");
    assert_eq!(goal, "Add an index on Invoice(customerId, id) and make a migration.");
    assert!(
        section_text(&summary, "## Key Decisions").contains(
            "Asked \"Is it started through docker compose here?\"; the user answered: yes, `docker compose up -d postgres`"
        ),
        "{summary}"
    );
    // A long message after a question is a request of its own.
    assert!(!is_short_answer(
        "ok. now also add the same pagination to payments, and then update the docs for both endpoints with an example of the cursor and the limit params in the readme",
        &[]
    ));
    assert!(!is_short_answer("which one?", &[]));
}

#[test]
fn an_edit_the_user_interrupted_before_it_ran_changed_no_file() {
    let aborted = AgentMessage::Assistant(AssistantMessage {
        content: Vec::new(),
        provider: None,
        model: None,
        usage: None,
        stop_reason: Some("aborted".to_owned()),
        error_message: Some("Request was aborted".to_owned()),
        extra: Extra::new(),
    });
    let messages = [
        user("The healthcheck flaps."),
        assistant("I'll install curl.", &[("1", "edit", json!({"path": "Dockerfile"}))]),
        aborted,
        user("no, keep the image small"),
        assistant("", &[("2", "edit", json!({"path": "docker-compose.yml"}))]),
        result("2", "edit", "Successfully replaced text in docker-compose.yml.", false),
    ];
    let mut files = crate::files::FileOperations::default();
    files.add_messages(messages.iter());
    assert_eq!(files.modified(), vec!["docker-compose.yml"]);
    // One message at a time (pi's rule), every call counts.
    let mut every = crate::files::FileOperations::default();
    for message in &messages {
        every.add_message(message);
    }
    assert_eq!(every.modified(), vec!["Dockerfile", "docker-compose.yml"]);
}

#[test]
fn a_split_turns_part_settles_what_the_history_part_left_open() {
    let previous = "## Goal\n- The healthcheck flaps.\n\n## Progress\n### In Progress\n\
        - Current approach: I'll install curl with `apt-get install curl`.\n### Blocked\n\
        - `pnpm tsc --noEmit` failed (exit 2): `src/a.ts:7:26 - error TS2365: Operator '??' cannot be applied`\n\n\
        ## Next Steps\n- Resolve the failure of `pnpm tsc --noEmit` (see Blocked)\n\n\
        ## Critical Context\n- Last error (unresolved, `pnpm tsc --noEmit`): `src/a.ts:7:26 - error TS2365`\n\n\
        ---\n\n**Earlier in the turn that is still in progress:**\n\n## Goal\n\
        - Request of this turn: no, keep the image small, use python for the check\n\n\
        ## Constraints & Preferences\n- User correction: no, keep the image small, use python for the check\n\n\
        ## Critical Context\n- Commands run: `pnpm tsc --noEmit` (passed), `npx jest` (failed)\n";
    let parsed = PreviousSummary::parse(previous);
    assert_eq!(
        parsed.section(Section::Constraints),
        [
            "User correction: no, keep the image small, use python for the check (rejected: I'll install curl with `apt-get install curl`.)"
        ]
    );
    assert!(parsed.section(Section::InProgress).is_empty(), "{parsed:?}");
    assert!(parsed.section(Section::Blocked).is_empty(), "{parsed:?}");
    assert!(parsed.section(Section::NextSteps).is_empty(), "{parsed:?}");
    let summary = history(&[user("go on"), assistant("Done.", &[])], Some(previous));
    assert!(!section_text(&summary, "## Key Decisions").contains("apt-get"), "{summary}");
    assert!(!summary.contains("TS2365"), "{summary}");
}

#[test]
fn a_branch_the_user_came_back_from_is_told_without_markdown_not_as_the_goal() {
    let branch = AgentMessage::BranchSummary(crate::message::SummaryMessage {
        summary: "## Goal\nSoft-delete notes.\n\n## Progress\n### Done\n- [x] Tried an `is_archived` flag with a global filter\n\n\
                  ## Key Decisions\n- **Global filter abandoned**: breaks the export job\n"
            .to_owned(),
        extra: Extra::new(),
    });
    let messages = [
        user("Archive notes instead of deleting them."),
        branch,
        assistant("Back here: I'll use an `archived_at` column instead of a flag.", &[]),
    ];
    let summary = history(&messages, None);
    assert_eq!(section_text(&summary, "## Goal"), "Archive notes instead of deleting them.");
    assert!(
        section_text(&summary, "## Key Decisions").contains(
            "On a branch the user left: Goal: Soft-delete notes. Done: Tried an `is_archived` flag with a global filter. Key Decisions: Global filter abandoned: breaks the export job"
        ),
        "{summary}"
    );
    assert!(!summary.contains("## Goal Soft"), "{summary}");
}

#[test]
fn edits_of_one_file_carried_twice_are_told_once_with_their_counts_added() {
    let previous = "## Goal\n- Paginate invoices.\n\n## Progress\n### Done\n- Edited `src/routes/invoices.ts`\n\
        - Wrote `src/lib/pagination.ts`\n\n---\n\n**Earlier in the turn that is still in progress:**\n\n\
        ## Progress\n### Done\n- Edited `src/routes/invoices.ts` (2 times)\n- Edited `src/lib/pagination.ts`\n";
    let summary = history(&[user("go on"), assistant("Done.", &[])], Some(previous));
    assert_eq!(
        bullets(&summary, "### Done"),
        vec![
            "Edited `src/routes/invoices.ts` (3 times)",
            "Wrote/edited `src/lib/pagination.ts` (2 times)",
            "Last reply (turn ended): Done."
        ]
    );
}

#[test]
fn an_earlier_error_of_a_command_that_passes_since_is_labelled_resolved() {
    let messages = [
        user("Archive notes instead of deleting them."),
        bash("1", "uv run pytest -q"),
        result(
            "1",
            "bash",
            "E   ModuleNotFoundError: No module named 'notes_service'\n\nCommand exited with code 4",
            true,
        ),
        bash("2", "uv run pytest -q"),
        result(
            "2",
            "bash",
            "FAILED tests/test_notes.py::test_archive - AssertionError: assert 1 == 0\n1 failed, 4 passed in 0.38s\n\nCommand exited with code 1",
            true,
        ),
        bash("3", "uv run pytest -q"),
        result("3", "bash", ".....\n5 passed in 0.31s\n", false),
        assistant("All 5 tests pass.", &[]),
    ];
    let summary = history(&messages, None);
    let critical = section_text(&summary, "## Critical Context");
    assert!(
        critical.contains(
            "Error seen (since resolved): `ModuleNotFoundError: No module named 'notes_service'`"
        ),
        "{summary}"
    );
    assert!(!summary.contains("### Blocked"), "{summary}");
}

#[test]
fn jests_failing_test_comes_before_the_file_it_is_in() {
    let jest = scan_output(
        " FAIL  tests/invoices.test.ts\n  GET /invoices\n    ✕ returns the next page (12 ms)\n\n\
         \x20 ● GET /invoices › returns the next page\n\n    expect(received).toEqual(expected)\n"
            .lines(),
    );
    assert_eq!(jest.errors[0], "`● GET /invoices › returns the next page`");
    // Vitest's FAIL line names the test itself.
    let vitest = scan_output(" FAIL  src/cart.test.ts > setQuantity > clamps at zero\nAssertionError: expected -1 to be +0".lines());
    assert!(vitest.errors[0].contains("clamps at zero"), "{vitest:?}");
}

#[test]
fn a_carried_correction_is_no_earlier_request_beside_the_goal_it_corrected() {
    let previous = "## Goal\n- Paginate GET /invoices.\n- Earlier request: wait, that's not right. parse the query with zod.\n\
        - Latest request: add an index too\n\n## Constraints & Preferences\n\
        - User correction: wait, that's not right. parse the query with zod.\n";
    let summary =
        history(&[user("now the same for payments"), assistant("On it.", &[])], Some(previous));
    assert_eq!(
        bullets(&summary, "## Goal"),
        vec![
            "Paginate GET /invoices.",
            "Earlier request: add an index too",
            "Latest request: now the same for payments"
        ]
    );
    assert!(
        section_text(&summary, "## Constraints & Preferences").contains("parse the query with zod")
    );
}

#[test]
fn the_history_parts_last_step_is_not_rejected_by_a_correction_of_the_split_turn() {
    let previous = "## Goal\n- Fix the build.\n\n## Progress\n### In Progress\n\
        - Last assistant step: The image builds again with psycopg2-binary 2.9.9.\n\
        - Current approach: I'll pin 2.9.9 because 2.9.3 has no 3.12 wheels.\n\n\
        ---\n\n**Earlier in the turn that is still in progress:**\n\n## Goal\n\
        - Request of this turn: the healthcheck flaps too\n";
    let parsed = PreviousSummary::parse(previous);
    assert!(parsed.section(Section::InProgress).is_empty(), "{parsed:?}");
    assert_eq!(
        parsed.section(Section::Decisions),
        ["I'll pin 2.9.9 because 2.9.3 has no 3.12 wheels."]
    );
    let messages = [
        assistant("I'll install curl in the image.", &[]),
        user("no, keep the image small, use python for the check"),
        assistant("Right, a python check.", &[]),
    ];
    let summary = history(&messages, Some(previous));
    let constraints = section_text(&summary, "## Constraints & Preferences");
    assert!(
        constraints.contains("Rejected by the user: I'll install curl in the image."),
        "{summary}"
    );
    assert!(!constraints.contains("psycopg2"), "{summary}");
}

#[test]
fn a_failure_in_a_split_turns_part_is_open_where_the_kept_messages_begin_not_blocked() {
    let messages = [
        user("Push the image only on version tags."),
        bash("1", "actionlint .github/workflows/ci.yml"),
        result(
            "1",
            "bash",
            ".github/workflows/ci.yml:12:9: shellcheck reported issue in this script: SC2086:info:1:18: Double quote\n\nCommand exited with code 1",
            true,
        ),
    ];
    let prefix = summarize_offline(&OfflineInput {
        after: &[],
        kind: OfflineKind::TurnPrefix,
        messages: &messages,
        previous_summary: None,
        instructions: None,
        max_chars: 20_000,
        pins: &[],
    });
    assert!(!prefix.contains("### Blocked") && !prefix.contains("## Next Steps"), "{prefix}");
    assert!(
        section_text(&prefix, "### In Progress").starts_with(
            "Failing where the kept messages begin: `actionlint .github/workflows/ci.yml` failed (exit 1)"
        ),
        "{prefix}"
    );
    // The history of the same messages reports it blocked.
    assert!(history(&messages, None).contains("### Blocked"));
}
