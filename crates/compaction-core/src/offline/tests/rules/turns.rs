//! What a turn says: branch calls, interrupts, pi-written summaries' unknown sections,
//! rejected proposals, real constraints and the goal.

use super::super::*;
use pretty_assertions::assert_eq;

#[test]
fn branch_calls_without_results_are_work_done_not_pending() {
    // Branch summaries read no tool results, so every call looks unanswered.
    let messages = vec![
        user("Try the cache in src/cache.rs."),
        assistant(
            "Trying it.",
            &[
                ("1", "edit", json!({"path": "src/cache.rs", "edits": []})),
                ("2", "bash", json!({"command": "cargo bench"})),
            ],
        ),
    ];
    let branch = summarize_offline(&OfflineInput {
        after: &[],
        kind: OfflineKind::Branch,
        messages: &messages,
        previous_summary: None,
        instructions: None,
        pins: &[],
        max_chars: 4_000,
    });
    assert!(!branch.contains("no result yet"), "{branch}");
    assert!(bullets(&branch, "### Done").iter().any(|b| b.contains("`cargo bench`")), "{branch}");
}

#[test]
fn an_aborted_turn_is_an_interrupt_not_an_error_and_its_call_is_not_in_progress() {
    let messages = [
        user("Run the linter over everything."),
        assistant("Running eslint.", &[("1", "bash", json!({"command": "npx eslint ."}))]),
        aborted(),
        user("Sorry, skip that. Rename the exporter."),
        assistant("Renaming it now.", &[]),
    ];
    let summary = summarize(&messages);
    assert!(!summary.contains("aborted"), "{summary}");
    assert!(!summary.contains("no result yet"), "{summary}");
    assert!(!summary.contains("### Blocked"), "{summary}");
}

#[test]
fn a_pi_written_previous_summary_keeps_its_unknown_sections() {
    let previous = "## Goal\nShip the palette editor.\n\n## User Preferences\n- Use rgb values, no indices\n\n\
                    ## Key Files\n- src/export/palette.ts: the exporter\n\n## Agreed Structure\n- One module per format";
    let summary = summarize_offline(&OfflineInput {
        after: &[],
        kind: OfflineKind::History,
        messages: &[user("Add the CSV export next.")],
        previous_summary: Some(previous),
        instructions: None,
        pins: &[],
        max_chars: 20_000,
    });
    assert!(
        bullets(&summary, "## Constraints & Preferences")
            .contains(&"Use rgb values, no indices".to_owned()),
        "{summary}"
    );
    assert!(summary.contains("Key Files: src/export/palette.ts: the exporter"), "{summary}");
    assert!(
        bullets(&summary, "## Key Decisions").contains(&"One module per format".to_owned()),
        "{summary}"
    );
    assert!(summary.contains("- Ship the palette editor."), "{summary}");
}

#[test]
fn a_rejected_proposal_is_never_a_decision_and_the_correction_is_kept() {
    let messages = [
        user("Loading is slow. Speed it up."),
        assistant(
            "I'll switch the storage to a Map and bump the file format to version 2.",
            &[("1", "edit", json!({"path": "src/load.ts"}))],
        ),
        result("1", "edit", "Successfully replaced text in src/load.ts.", false),
        user("wait, that doesn't look right. Never change the file format."),
        assistant("Understood. I'll revert it and use a Set instead.", &[]),
    ];
    let summary = summarize(&messages);
    let decisions = bullets(&summary, "## Key Decisions");
    assert!(decisions.iter().all(|d| !d.contains("file format to version 2")), "{summary}");
    assert!(decisions.iter().any(|d| d.contains("use a Set instead")), "{summary}");
    let constraints = bullets(&summary, "## Constraints & Preferences");
    assert!(
        constraints
            .iter()
            .any(|c| c.starts_with("Rejected by the user: I'll switch the storage to a Map")
                && c.contains("wait, that doesn't look right. Never change the file format.")),
        "{summary}"
    );
}

#[test]
fn constraints_are_real_rules_not_questions_or_pasted_lines() {
    let text = "When I click Export I get this:\n\nNo palette loaded yet, using defaults.\n\
                Uncaught TypeError: Cannot read properties of undefined (reading 'map')\n    at exportPalette (a.ts:4:39)\n\n\
                This needs to be fully clean. And no console logs, please. Use rgb values, no indices. \
                No, not like that. Should we use a Set? Type hints everywhere, please.";
    let summary = summarize(&[user(text)]);
    assert_eq!(
        bullets(&summary, "## Constraints & Preferences"),
        vec![
            "This needs to be fully clean.",
            "And no console logs, please.",
            "Use rgb values, no indices.",
            "Type hints everywhere, please.",
        ]
    );
    assert!(
        summary.contains("Error the user reported: `Uncaught TypeError: Cannot read properties of undefined (reading 'map')`"),
        "{summary}"
    );
}

#[test]
fn the_goal_is_never_a_slash_command_or_a_single_word() {
    let summary = summarize(&[user("/mode"), user("Fix the exporter in src/a.ts."), user("ls")]);
    assert_eq!(bullets(&summary, "## Goal"), vec!["Fix the exporter in src/a.ts."]);
}
