//! What the messages after the summarized part settle (`OfflineInput::after`): the summary
//! sits before them in the context and states nothing as current that they changed.

use super::*;

fn summarize_before(messages: &[AgentMessage], after: &[AgentMessage]) -> String {
    summarize_offline(&OfflineInput {
        kind: OfflineKind::History,
        messages,
        after,
        previous_summary: None,
        instructions: None,
        pins: &[],
        max_chars: 20_000,
    })
}

fn run(id: &str, command: &str, output: &str, failed: bool) -> [AgentMessage; 2] {
    [
        assistant("", &[(id, "bash", json!({ "command": command }))]),
        result(id, "bash", output, failed),
    ]
}

fn first_two_requests() -> Vec<AgentMessage> {
    vec![
        user("Add retries to the fetcher."),
        assistant("Done: three retries with backoff.", &[]),
        user("Now log each retry at warn level."),
        assistant("Each retry is logged at warn level.", &[]),
    ]
}

#[test]
fn a_newer_request_after_the_cut_makes_the_last_one_summarized_an_earlier_one() {
    let messages = first_two_requests();
    let alone = summarize_before(&messages, &[]);
    assert!(alone.contains("- Latest request: Now log each retry at warn level."), "{alone}");
    let after = [user("Next, expose the retry count as a metric."), assistant("On it.", &[])];
    let settled = summarize_before(&messages, &after);
    assert!(!settled.contains("Latest request"), "{settled}");
    // Still told, word for word: it is what the kept messages follow on from.
    assert!(settled.contains("- Earlier request: Now log each retry at warn level."), "{settled}");
    // Nothing of the later messages is told as work of this part.
    assert!(!settled.contains("metric"), "{settled}");
}

#[test]
fn an_answer_after_the_cut_is_not_a_newer_request() {
    let messages = first_two_requests();
    let after = [user("ok"), assistant("Anything else?", &[])];
    let settled = summarize_before(&messages, &after);
    assert!(settled.contains("- Latest request: Now log each retry at warn level."), "{settled}");
}

#[test]
fn a_run_passing_after_the_cut_resolves_its_failure_and_a_failing_one_does_not() {
    let mut messages = vec![user("Run the tests and fix them.")];
    messages.extend(run(
        "t1",
        "cargo test -p ledger",
        "error[E0308]: mismatched types\nExit code 1",
        true,
    ));
    messages.push(assistant("The entry type was wrong; I changed it.", &[]));
    let open = summarize_before(&messages, &[]);
    assert!(
        bullets(&open, "### Blocked").iter().any(|b| b.contains("cargo test -p ledger")),
        "{open}"
    );
    let mut passing = vec![user("Run them again.")];
    passing.extend(run(
        "t2",
        "cargo test -p ledger",
        "test result: ok. 58 passed; 0 failed",
        false,
    ));
    let settled = summarize_before(&messages, &passing);
    assert!(bullets(&settled, "### Blocked").is_empty(), "{settled}");
    assert!(!bullets(&settled, "## Next Steps").iter().any(|b| b.contains("ledger")), "{settled}");
    let done = bullets(&settled, "### Done");
    assert!(
        done.iter()
            .any(|b| b.contains("`cargo test -p ledger` passes now")
                && b.contains("mismatched types")),
        "{settled}"
    );
    // The passing run itself is the kept messages' to tell.
    assert!(!settled.contains("58 passed"), "{settled}");
    let mut failing = vec![user("Run them again.")];
    failing.extend(run(
        "t2",
        "cargo test -p ledger",
        "error[E0308]: mismatched types\nExit code 1",
        true,
    ));
    let still = summarize_before(&messages, &failing);
    assert!(
        bullets(&still, "### Blocked").iter().any(|b| b.contains("cargo test -p ledger")),
        "{still}"
    );
}

#[test]
fn a_move_and_a_value_changed_after_the_cut_are_marked_as_replaced() {
    let messages = vec![
        user("Create the date helper and set the timeout."),
        assistant(
            "",
            &[("w1", "write", json!({ "path": "src/utils/date.ts", "content": "export {};" }))],
        ),
        result("w1", "write", "Successfully wrote 10 bytes to src/utils/date.ts", false),
        assistant(
            "",
            &[(
                "e1",
                "edit",
                json!({ "path": "config.yaml", "oldText": "timeout: 10s", "newText": "timeout: 30s" }),
            )],
        ),
        result("e1", "edit", "Successfully replaced text in config.yaml.", false),
        assistant("Created `src/utils/date.ts` and set `timeout: 30s`.", &[]),
    ];
    let mut after = vec![user("Move the helper under lib and make the timeout 90s.")];
    after.extend(run("m1", "git mv src/utils/date.ts src/lib/date.ts", "", false));
    after.push(assistant(
        "",
        &[(
            "e2",
            "edit",
            json!({ "path": "config.yaml", "oldText": "timeout: 30s", "newText": "timeout: 90s" }),
        )],
    ));
    after.push(result("e2", "edit", "Successfully replaced text in config.yaml.", false));
    let settled = summarize_before(&messages, &after);
    let done = bullets(&settled, "### Done").join("\n");
    assert!(done.contains("`src/utils/date.ts` → `src/lib/date.ts`"), "{settled}");
    assert!(done.contains("30s` → `90s`") || done.contains("30s → 90s"), "{settled}");
}
