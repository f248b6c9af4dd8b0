//! Rules that real transcripts imported from other agents asked for: what the user's tools
//! wrap around their words, calls the user stopped.

use super::*;

#[test]
fn a_command_the_user_aborted_is_not_a_blocker() {
    let summary = summarize(&[
        user("sleep 5 seconds via bash"),
        assistant("", &[("c1", "bash", json!({"command": "sleep 5"}))]),
        result("c1", "bash", "Command aborted", true),
        user("ok, make the muted color brighter"),
        assistant("Done.", &[]),
    ]);
    assert_structure(&summary);
    assert!(!summary.contains("### Blocked"), "{summary}");
    assert!(bullets(&summary, "## Next Steps").iter().all(|b| !b.contains("sleep")), "{summary}");
}

#[test]
fn a_tool_use_the_user_rejected_is_not_a_failure() {
    let summary = summarize(&[
        user("build an implementation plan"),
        assistant("", &[("c1", "ExitPlanMode", json!({"plan": "# Plan"}))]),
        result(
            "c1",
            "ExitPlanMode",
            "The user doesn't want to proceed with this tool use. The tool use was rejected.",
            true,
        ),
        user("[Request interrupted by user for tool use]"),
    ]);
    assert_structure(&summary);
    assert!(!summary.contains("### Blocked"), "{summary}");
    assert!(!summary.contains("Request interrupted"), "{summary}");
    let decisions = bullets(&summary, "## Key Decisions").join("\n");
    assert!(decisions.contains("The user rejected the call of `ExitPlanMode`"), "{summary}");
}

#[test]
fn ide_notices_are_not_the_users_request_or_rules() {
    let summary = summarize(&[user(
        "<ide_opened_file>The user opened the file /w/docs/SPEC.md in the IDE. This may or may \
         not be related to the current task.</ide_opened_file>\nlet's add a README for the team",
    )]);
    assert!(summary.contains("let's add a README for the team"), "{summary}");
    assert!(!summary.contains("ide_opened_file"), "{summary}");
    assert!(!summary.contains("may not be related"), "{summary}");
}

#[test]
fn an_ide_context_header_is_not_the_request() {
    let summary = summarize(&[user(
        "# Context from my IDE setup:\n\n## Open tabs:\n- README.md: README.md\n\n\
         ## My request for Codex:\nRun pnpm test and fix what fails",
    )]);
    assert!(summary.contains("Run pnpm test and fix what fails"), "{summary}");
    assert!(!summary.contains("Open tabs"), "{summary}");
    assert!(!summary.contains("Context from my IDE setup"), "{summary}");
}

#[test]
fn command_echoes_and_interruptions_are_not_the_latest_request() {
    let summary = summarize(&[
        user("fix the parser"),
        assistant("Fixed.", &[]),
        user("now add a test for empty input"),
        assistant("Added.", &[]),
        user(
            "<command-name>/exit</command-name>\n<command-message>exit</command-message>\n\
             <command-args></command-args>",
        ),
        user("<local-command-stdout>(no content)</local-command-stdout>"),
        user("[Request interrupted by user]"),
    ]);
    let goal = bullets(&summary, "## Goal").join("\n");
    assert!(goal.contains("now add a test for empty input"), "{summary}");
    assert!(!summary.contains("/exit") && !summary.contains("local-command"), "{summary}");
}

#[test]
fn what_the_user_typed_after_a_command_is_their_request() {
    let summary = summarize(&[
        user(
            "<command-message>review is running…</command-message>\n\
             <command-name>/review</command-name>\n\
             <command-args>check the retry logic in queue.ts for races</command-args>",
        ),
        assistant("Reviewed.", &[]),
    ]);
    let goal = bullets(&summary, "## Goal").join("\n");
    assert!(goal.contains("check the retry logic in queue.ts for races"), "{summary}");
    // A word or two after a command is an option, not a request.
    assert_eq!(
        human_words("<command-name>/model</command-name>\n<command-args>sonnet</command-args>"),
        ""
    );
}

#[test]
fn the_users_input_in_a_command_template_is_theirs_and_the_template_is_not() {
    let template = "---\ndescription: Create a feature specification.\n---\n\n## User Input\n\n\
                    ```text\nA booking page for the clinic: patients pick a slot, no login.\n```\n\n\
                    You **MUST** consider the user input before proceeding (if not empty).\n\n\
                    ## Outline\n\n1. Run `.specify/scripts/bash/create-new-feature.sh --json`.\n";
    assert_eq!(
        human_words(template),
        "A booking page for the clinic: patients pick a slot, no login."
    );
    let summary = summarize(&[user(template), assistant("Specified.", &[])]);
    let goal = bullets(&summary, "## Goal").join("\n");
    assert!(goal.contains("patients pick a slot, no login"), "{summary}");
    assert!(!goal.contains("MUST"), "{summary}");
    // Without input (the placeholder), the message is what it was.
    let empty = template
        .replace("A booking page for the clinic: patients pick a slot, no login.", "$ARGUMENTS");
    assert!(human_words(&empty).contains("## Outline"));
    // Pasted documentation with an arguments section stays the user's message.
    let pasted = "Why does this fail?\n\n## Arguments\n\n```text\npath: the file to read\n```";
    assert_eq!(human_words(pasted), pasted);
}

#[test]
fn the_users_own_markup_is_kept() {
    assert_eq!(
        human_words("center it with <p align=\"center\"></p> and keep Vec<String>"),
        "center it with <p align=\"center\"></p> and keep Vec<String>"
    );
    assert_eq!(human_words("<system-reminder>be brief</system-reminder>\nship it"), "ship it");
    assert_eq!(human_words("[Request interrupted by user for tool use]"), "");
}

#[test]
fn a_preference_the_user_states_is_kept_as_a_constraint() {
    let summary = summarize(&[
        user(
            "1. CPU and CUDA come first. 2. I would much prefer MIT license alternatives where \
             possible but only if it wont hurt performance.",
        ),
        assistant("Noted.", &[]),
    ]);
    let constraints = bullets(&summary, "## Constraints & Preferences").join("\n");
    assert!(constraints.contains("I would much prefer MIT license alternatives"), "{summary}");
}

#[test]
fn a_one_word_request_is_the_latest_request_but_a_go_ahead_is_not() {
    let summary = summarize(&[
        user("fix the flaky hook test"),
        assistant("Fixed and committed.", &[]),
        user("push"),
        assistant("Pushed.", &[]),
        user("ok"),
    ]);
    let goal = bullets(&summary, "## Goal").join("\n");
    assert!(goal.contains("Latest request: push"), "{summary}");
    assert!(!goal.contains("Latest request: ok"), "{summary}");
}

#[test]
fn a_failed_read_is_over_once_the_file_is_read_under_another_path() {
    let summary = summarize(&[
        user("continue where we left off in the status file"),
        assistant("", &[("c1", "read", json!({"path": "/w/vsla/status.md"}))]),
        result("c1", "read", "File does not exist.", true),
        assistant("", &[("c2", "read", json!({"path": "/w/vsla/STATUS.md"}))]),
        result("c2", "read", "# Status", false),
        assistant("Read it.", &[]),
    ]);
    assert!(!summary.contains("### Blocked"), "{summary}");
    assert!(!summary.contains("Resolve the failure"), "{summary}");
}

#[test]
fn a_test_summary_that_counts_failures_is_a_failure_without_an_exit_code() {
    for output in [
        "Tests:       8 failed, 524 passed, 532 total",
        "===== 8 failed, 524 passed in 12.31s =====",
        " Tests  2 failed | 14 passed (16)",
        "test result: FAILED. 11 passed; 1 failed; 0 ignored",
    ] {
        let summary = summarize(&[
            user("run the suite"),
            assistant("", &[("c1", "bash", json!({"command": "make test"}))]),
            result("c1", "bash", output, false),
        ]);
        let blocked = bullets(&summary, "### Blocked").join("\n");
        assert!(blocked.contains("make test"), "{output}:\n{summary}");
        assert!(!summary.contains("(passed)"), "{output}:\n{summary}");
    }
}

#[test]
fn test_runner_summaries_are_read_for_their_failure_count() {
    assert_eq!(failed_test_count("Tests:       8 failed, 524 passed, 532 total"), Some(8));
    assert_eq!(failed_test_count("==== 1 failed, 2 errors, 30 passed in 3s ===="), Some(3));
    assert_eq!(failed_test_count(" Tests  2 failed | 14 passed (16)"), Some(2));
    assert_eq!(failed_test_count("Tests run: 10, Failures: 2, Errors: 0, Skipped: 1"), Some(2));
    assert_eq!(failed_test_count("10 examples, 0 failures"), Some(0));
    assert_eq!(failed_test_count("Tests: 532 passed, 532 total"), None);
    assert_eq!(failed_test_count("3 errors generated."), None);
}

#[test]
fn an_answer_given_through_a_question_tool_is_a_decision() {
    let summary = summarize(&[
        user("add a database layer"),
        assistant(
            "",
            &[("q1", "AskUserQuestion", json!({"questions": [{"question": "Which database?"}]}))],
        ),
        result(
            "q1",
            "AskUserQuestion",
            "User has answered your questions: \"Which database?\"=\"Postgres\".",
            false,
        ),
        assistant("Going with Postgres.", &[]),
    ]);
    let decisions = bullets(&summary, "## Key Decisions").join("\n");
    assert!(decisions.contains("\"Which database?\"=\"Postgres\""), "{summary}");
}

#[test]
fn a_problem_the_user_settles_is_not_a_blocker() {
    let lint = || {
        vec![
            user("tidy up the parser"),
            assistant("", &[("c1", "bash", json!({"command": "npm run lint"}))]),
            result("c1", "bash", "src/a.ts:3:1 warning no-console\nexited with code 1", true),
        ]
    };
    let mut settled = lint();
    settled.push(user("ignore the lint warnings, they are a known issue"));
    let summary = summarize(&settled);
    assert!(!summary.contains("### Blocked"), "{summary}");
    let mut open = lint();
    open.push(user("also rename the module"));
    let summary = summarize(&open);
    assert!(bullets(&summary, "### Blocked").join("\n").contains("npm run lint"), "{summary}");
}

#[test]
fn rules_inside_a_pasted_document_are_not_the_users_constraints() {
    let review = "**Review, round 3**\n\n### 1 Scope\nThe rewrite must keep the ABI stable.\n\n\
                  ### 2 Concerns\n| Area | Note |\n|---|---|\n| Threads | Ensure that global state \
                  remains race-free. |\n\n### 3 Verdict\nThe manuscript should be updated.";
    let summary = summarize(&[
        user(review),
        assistant("Noted.", &[]),
        user(
            "Don't touch the CUDA \
                              backend yet.",
        ),
    ]);
    let constraints = bullets(&summary, "## Constraints & Preferences");
    assert_eq!(constraints, vec!["Don't touch the CUDA backend yet."], "{summary}");
}

#[test]
fn an_error_the_user_pasted_is_told_with_the_answer_to_it() {
    let summary = summarize(&[
        user(
            "the build breaks:\n\n```\napi.go:91:94: not enough arguments in call to storage.NewStorage\n```",
        ),
        assistant(
            "Let me look. The callers still pass two arguments; the fix is to pass `time.Now` as the new `nowFunc` argument.",
            &[],
        ),
        user("ok, and add a test for the expiry loop"),
        assistant("Added the test.", &[]),
    ]);
    assert_structure(&summary);
    let line = bullets(&summary, "## Critical Context")
        .into_iter()
        .find(|bullet| bullet.starts_with("Error the user reported:"))
        .unwrap_or_default();
    assert!(line.contains("not enough arguments in call to storage.NewStorage"), "{summary}");
    assert!(line.contains("→ reply:") && line.contains("`time.Now`"), "{summary}");
}

#[test]
fn a_code_block_of_an_earlier_summary_is_no_section() {
    let previous = PreviousSummary::parse(
        "## Key Decisions\n- One header for every back-end.\n```c\n#endif /* VSLA_H */\n#include \"x.h\"\n```\n- C17, not C23.\n",
    );
    assert_eq!(
        previous.section(Section::Decisions),
        ["One header for every back-end.", "C17, not C23."]
    );
    assert!(previous.section(Section::Critical).is_empty(), "{:?}", previous.items);
}
