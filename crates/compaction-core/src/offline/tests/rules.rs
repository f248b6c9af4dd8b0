//! The invariants on arbitrary messages, and the rules that the evaluation of real pi
//! sessions asked for: interrupts, rejected proposals, pi-written summaries, real
//! constraints, other ecosystems' errors, moves and deletions, successive summaries.

use super::*;
use pretty_assertions::assert_eq;

fn arbitrary_message() -> impl proptest::strategy::Strategy<Value = AgentMessage> {
    use proptest::prelude::*;
    let text: BoxedStrategy<String> =
        "([a-z]{1,8}|Always|Never|I'll|Next,|`[a-z_:]{1,12}`|error\\[E0[0-9]{3}\\]:|[.!?\\n ]|修复|不要|。|é){0,40}"
            .boxed();
    let name = prop_oneof![Just("edit"), Just("write"), Just("read"), Just("bash"), Just("grep")];
    prop_oneof![
        text.clone().prop_map(AgentMessage::user_text),
        text.clone().prop_map(|text| assistant(&text, &[])),
        (text.clone(), name.clone(), 0u8..4).prop_map(|(text, name, id)| {
            let id = format!("c{id}");
            assistant(&text, &[(id.as_str(), name, json!({"path": text, "command": text}))])
        }),
        (text.clone(), name, 0u8..4, any::<bool>())
            .prop_map(|(text, name, id, error)| { result(&format!("c{id}"), name, &text, error) }),
        (text.clone(), text, -1i64..3)
            .prop_map(|(command, output, code)| { bash_run(&command, &output, code) }),
    ]
}

proptest::proptest! {
    // Generating the transcripts dominates the cost; 64 cases keep the suite quick.
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]
    #[test]
    fn any_transcript_fits_the_budget_and_is_deterministic(
        messages in proptest::collection::vec(arbitrary_message(), 0..40),
        previous in proptest::option::of("(## Goal|### Blocked|- `cargo test` failed|[a-z ]{0,20}|\n){0,12}"),
        max_chars in 0usize..3_000,
        kind in proptest::sample::select(vec![OfflineKind::History, OfflineKind::TurnPrefix, OfflineKind::Branch]),
    ) {
        let input = OfflineInput {
            after: &[],
            kind,
            messages: &messages,
            previous_summary: previous.as_deref(),
            instructions: Some("error handling"),
            pins: &[],
            max_chars,
        };
        let summary = summarize_offline(&input);
        proptest::prop_assert!(char_len(&summary) <= max_chars);
        proptest::prop_assert_eq!(&summary, &summarize_offline(&input));
        if max_chars >= char_len(&render(&[])) {
            assert_structure(&summary);
        }
    }
}

#[test]
fn empty_input_gives_the_bare_structure() {
    let summary = summarize(&[]);
    assert_structure(&summary);
    assert_eq!(summary, "## Goal\n");
}

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

#[test]
fn a_failing_run_keeps_the_runners_own_count_of_what_failed() {
    let scan = scan_output(
        "test result: FAILED. 41 passed; 5 failed; 0 ignored; 0 measured; 0 filtered out\n\n\
         error: test failed, to rerun pass `-p ledger-core --lib`"
            .lines(),
    );
    assert_eq!(
        scan.failure_counts,
        vec!["`test result: FAILED. 41 passed; 5 failed; 0 ignored; 0 measured; 0 filtered out`"]
    );
    let summary = summarize(&[
        user("Run the jest suite."),
        assistant("", &[("j1", "bash", json!({ "command": "npx jest --silent" }))]),
        result(
            "j1",
            "bash",
            "Test Suites: 2 failed, 14 passed, 16 total\nTests:       3 failed, 212 passed, 215 total\n\
             Ran all test suites.",
            true,
        ),
        assistant("Three tests fail.", &[]),
    ]);
    let blocked = bullets(&summary, "### Blocked").join("\n");
    assert!(blocked.contains("Tests: 3 failed, 212 passed, 215 total"), "{summary}");
}

#[test]
fn typescript_npm_and_python_errors_are_captured() {
    let scan = scan_output(
        "> app@1.0.0 test\nsrc/a.ts(4,7): error TS2353: Object literal may only specify known properties.\n\
         npm ERR! Lifecycle script `test` failed with error:\nnpm ERR! Error: command failed"
            .lines(),
    );
    assert_eq!(
        scan.errors[0],
        "`src/a.ts(4,7): error TS2353: Object literal may only specify known properties.`"
    );
    let scan = scan_output(
        "Traceback (most recent call last):\n  File \"ledger/csv_import.py\", line 27, in parse\n    return x[name]\nKeyError: 'date'"
            .lines(),
    );
    assert_eq!(scan.errors, vec!["`KeyError: 'date'` at `ledger/csv_import.py:27`"]);
    let scan = scan_output(
        "E   AssertionError: assert 3 == 4\nFAILED tests/test_a.py::test_x - AssertionError"
            .lines(),
    );
    assert_eq!(scan.errors[0], "`AssertionError: assert 3 == 4`");
    let scan =
        scan_output("npm ERR! code ENOENT\nnpm ERR! enoent Could not read package.json".lines());
    assert!(scan.errors[0].contains("ENOENT"), "{:?}", scan.errors);
}

#[test]
fn renamed_and_deleted_files_are_not_modified_under_old_paths_and_greps_are_not_progress() {
    let messages = [
        user("Rename the exporter and drop the legacy index."),
        assistant("", &[("1", "edit", json!({"path": "src/export/palette.ts"}))]),
        result("1", "edit", "Successfully replaced text", false),
        assistant(
            "",
            &[(
                "2",
                "bash",
                json!({"command": "git mv src/export/palette.ts src/export/paletteExport.ts"}),
            )],
        ),
        result("2", "bash", "", false),
        assistant("", &[("3", "bash", json!({"command": "rm src/legacy/colorIndex.ts"}))]),
        result("3", "bash", "", false),
        assistant("", &[("4", "bash", json!({"command": "rg -n colorIndex src"}))]),
        result("4", "bash", "\n\nCommand exited with code 1", true),
        assistant("", &[("5", "bash", json!({"command": "ls src"}))]),
        result("5", "bash", "export\nindex.ts", false),
    ];
    let summary = summarize(&messages);
    assert_eq!(key_facts(&messages, None).modified_files, ["src/export/paletteExport.ts"]);
    assert!(
        summary.contains("- Moved `src/export/palette.ts` to `src/export/paletteExport.ts`"),
        "{summary}"
    );
    assert!(summary.contains("- Deleted `src/legacy/colorIndex.ts`"), "{summary}");
    assert!(!summary.contains("rg -n"), "{summary}");
    assert!(!summary.contains("`ls src`"), "{summary}");
    assert!(!summary.contains("### Blocked"), "{summary}");
}

#[test]
fn successive_summaries_keep_one_latest_request_and_no_repeated_done_items() {
    let first = summarize(&[
        user("Port the exporter."),
        user("Now add CSV."),
        assistant("", &[("1", "edit", json!({"path": "src/csv.ts"}))]),
        result("1", "edit", "ok", false),
    ]);
    let second = summarize_offline(&OfflineInput {
        after: &[],
        kind: OfflineKind::History,
        messages: &[
            user("Then add TSV."),
            assistant("", &[("2", "edit", json!({"path": "src/csv.ts"}))]),
            result("2", "edit", "ok", false),
        ],
        previous_summary: Some(&format!(
            "{first}\n\n---\n\n**Earlier in the turn that is still in progress:**\n\n## Goal\n- Request of this turn: Now add CSV."
        )),
        instructions: None,
        pins: &[],
        max_chars: 20_000,
    });
    assert_eq!(second.matches("Latest request:").count(), 1, "{second}");
    assert!(second.contains("- Latest request: Then add TSV. → edited `src/csv.ts`\n"), "{second}");
    assert_eq!(second.matches("Now add CSV.").count(), 1, "one line per request:\n{second}");
    assert_eq!(
        second.matches("- Edited `src/csv.ts`").count(),
        1,
        "one Done item (the entry appends the file list):\n{second}"
    );
    assert!(!second.contains("- ---") && !second.contains("**Earlier"), "{second}");
}

#[test]
fn sentences_never_come_from_json_or_tool_output() {
    let pasted = "No fixes applied.\n\n> @mariozechner/pi-proxy@0.14.2 check\n\
                  \"}],\"isError\":false,\"timestamp\":1765200000000}";
    let messages = [
        user("Check the proxy package."),
        assistant("", &[("1", "bash", json!({"command": "npm run check"}))]),
        result("1", "bash", pasted, false),
        user(pasted),
        user("ls"),
    ];
    let summary = summarize(&messages);
    assert!(!summary.contains("isError"), "{summary}");
    assert!(!summary.contains("Latest request: ls"), "{summary}");
    assert!(!summary.contains("pi-proxy"), "{summary}");
    assert!(bullets(&summary, "## Constraints & Preferences").is_empty(), "{summary}");
}

#[test]
fn a_correction_across_a_compaction_boundary_keeps_the_words_and_names_the_proposal() {
    // The proposal ended the earlier part; the correction opens this one.
    let prefix = summarize_offline(&OfflineInput {
        after: &[],
        kind: OfflineKind::TurnPrefix,
        messages: &[
            user("No, that's wrong. Keep the stdlib csv module."),
            assistant("Understood, I'll profile the stdlib reader instead.", &[]),
        ],
        previous_summary: None,
        instructions: None,
        pins: &[],
        max_chars: 8_000,
    });
    assert!(
        prefix.contains("- User correction: No, that's wrong. Keep the stdlib csv module.\n"),
        "{prefix}"
    );
    assert!(
        prefix.contains(
            "- After the user's correction: Understood, I'll profile the stdlib reader instead."
        ),
        "{prefix}"
    );
    let previous = format!(
        "## Goal\n- Make the import faster.\n\n## Next Steps\n- I'll switch to pandas.read_csv.\n\n---\n\n{prefix}"
    );
    let merged = summarize_offline(&OfflineInput {
        after: &[],
        kind: OfflineKind::History,
        messages: &[user("Now add an OFX importer.")],
        previous_summary: Some(&previous),
        instructions: None,
        pins: &[],
        max_chars: 20_000,
    });
    assert!(
        merged.contains("- User correction: No, that's wrong. Keep the stdlib csv module. (rejected: I'll switch to pandas.read_csv.)"),
        "{merged}"
    );
    let again = summarize_offline(&OfflineInput {
        after: &[],
        kind: OfflineKind::History,
        messages: &[user("Then document it.")],
        previous_summary: Some(&merged),
        instructions: None,
        pins: &[],
        max_chars: 20_000,
    });
    assert_eq!(again.matches("(rejected:").count(), 1, "{again}");
}

#[test]
fn a_move_recorded_in_the_previous_summary_renames_its_listed_files() {
    let previous = "## Progress\n### Done\n- Moved `ledger/importers` to `ledger/io`\n\n\
                    ## Critical Context\n- Modified files: `ledger/cli.py`, `ledger/importers/csv_import.py`";
    let summary = summarize_offline(&OfflineInput {
        after: &[],
        kind: OfflineKind::History,
        messages: &[user("Add an OFX importer.")],
        previous_summary: Some(previous),
        instructions: None,
        pins: &[],
        max_chars: 20_000,
    });
    assert!(!summary.contains("Modified files"), "{summary}");
    assert_eq!(
        key_facts(&[user("Add an OFX importer.")], Some(previous)).modified_files,
        ["ledger/cli.py", "ledger/io/csv_import.py"]
    );
}

#[test]
fn the_gates_must_keep_section_goes_back_to_its_sections_and_pins_are_not_carried() {
    let previous = "## Goal\n- Ship it.\n\n## Must Keep\n- Modified: `src/a.ts`\n\
                    - Constraint (user's words): \"Never change the file format.\"\n\
                    - Pinned instruction:\n\n<pinned-instruction>\nRun npm test first.\n</pinned-instruction>";
    let summary = summarize_offline(&OfflineInput {
        after: &[],
        kind: OfflineKind::History,
        messages: &[user("Add the CSV export.")],
        previous_summary: Some(previous),
        instructions: None,
        pins: &[],
        max_chars: 20_000,
    });
    assert_eq!(key_facts(&[], Some(previous)).modified_files, ["src/a.ts"]);
    assert!(
        bullets(&summary, "## Constraints & Preferences")
            .contains(&"Never change the file format.".to_owned()),
        "{summary}"
    );
    assert!(!summary.contains("pinned") && !summary.contains("Run npm test first"), "{summary}");
    assert!(!summary.contains("Must Keep"), "{summary}");
}

#[test]
fn the_final_reply_of_a_turn_that_ended_is_done_not_in_progress() {
    let finished = [
        user("The api container keeps flapping between healthy and unhealthy."),
        assistant(
            "Checking the healthcheck.",
            &[("1", "bash", json!({"command": "docker compose ps"}))],
        ),
        result("1", "bash", "api   Up 2 minutes (healthy)", false),
        assistant("The api container is healthy now, with a Python healthcheck.", &[]),
    ];
    let summary = summarize(&finished);
    assert_eq!(
        bullets(&summary, "### Done").last().map(String::as_str),
        Some(
            "Last reply (turn ended): The api container is healthy now, with a Python healthcheck."
        )
    );
    assert!(!summary.contains("### In Progress"), "{summary}");

    // A later part replaces it with its own last reply, and the same rejection rules apply:
    // a correction of the finished reply rejects it.
    let later = summarize_offline(&OfflineInput {
        after: &[],
        kind: OfflineKind::History,
        messages: &[
            user("no, don't touch the healthcheck, revert it and pin the image instead"),
            assistant("Reverted the healthcheck and pinned the image digest.", &[]),
        ],
        previous_summary: Some(&summary),
        instructions: None,
        pins: &[],
        max_chars: 20_000,
    });
    let done = bullets(&later, "### Done");
    assert_eq!(
        done.iter().filter(|item| item.starts_with("Last reply (turn ended): ")).count(),
        1,
        "{later}"
    );
    assert!(
        done.contains(
            &"Last reply (turn ended): Reverted the healthcheck and pinned the image digest."
                .to_owned()
        ),
        "{later}"
    );
    assert!(
        section_text_of(&later, "## Constraints & Preferences")
            .contains("The api container is healthy now"),
        "{later}"
    );

    // A turn still open, or one that ended on a plan, keeps its last step in progress.
    let planned = [
        user("Add rate limiting per API key."),
        assistant("I'll add a token bucket per key in the middleware next.", &[]),
    ];
    assert!(summarize(&planned).contains("- Last assistant step: I'll add a token bucket"));
    let mut open = finished.to_vec();
    open.push(assistant(
        "Now checking the logs.",
        &[("2", "bash", json!({"command": "docker logs api"}))],
    ));
    let summary = summarize(&open);
    assert!(
        bullets(&summary, "### In Progress")
            .iter()
            .any(|item| item.starts_with("Running `docker logs api`")),
        "{summary}"
    );
}

fn section_text_of(summary: &str, heading: &str) -> String {
    bullets(summary, heading).join("\n")
}

#[test]
fn an_injected_skill_or_agents_file_gives_rules_not_a_request() {
    let skill = "Base directory for this skill: /home/u/.claude/skills/commit-rules\n\n\
                 ## Rules\n\n**Always make a plan first**, listing every git command.\n\
                 - Commit messages are one line.\n";
    // Codex appends its own skills section: how Codex uses skills, no rule of the project.
    let agents = "# AGENTS.md instructions for /repo\n\n<INSTRUCTIONS>\n- Never push to main.\n\
                  - Run `npm run lint` before a commit.\n## Skills\n\
                  A skill is a set of local instructions to follow.\n### How to use skills\n\
                  - Trigger rules: you must use that skill for that turn.\n</INSTRUCTIONS>";
    let messages = [
        user("Fix the tooltip arrow."),
        assistant("Done: the tooltip shows its arrow.", &[]),
        user(skill),
        user(agents),
    ];
    let summary = summarize(&messages);
    let constraints = bullets(&summary, "## Constraints & Preferences");
    for rule in [
        "From `commit-rules/SKILL.md` (Rules): **Always make a plan first**, listing every git command.",
        "From `commit-rules/SKILL.md` (Rules): Commit messages are one line.",
        "From `AGENTS.md`: Never push to main.",
    ] {
        assert!(constraints.iter().any(|item| item == rule), "{rule} in {constraints:#?}");
    }
    assert!(
        constraints.iter().all(|item| !item.contains("skill for that turn")),
        "{constraints:#?}"
    );
    let goal = bullets(&summary, "## Goal");
    assert!(goal.iter().all(|item| !item.contains("Base directory")), "{goal:#?}");
    assert!(goal.iter().all(|item| !item.contains("instructions for")), "{goal:#?}");
}

#[test]
fn instruction_files_are_known_by_name_and_by_folder() {
    use super::super::outcomes::is_instruction_file;
    for path in [
        "AGENTS.md",
        "/repo/CLAUDE.md",
        "docs/CONTRIBUTING.ko.md",
        "/home/u/.claude/skills/git/SKILL.md",
        ".claude/commands/review.md",
        "/repo/.cursor/rules/style.mdc",
        ".github/instructions/rust.instructions.md",
    ] {
        assert!(is_instruction_file(path), "{path}");
    }
    for path in [
        "README.md",
        "docs/skills.txt",
        "/repo/src/claude.rs",
        "notes/rules.txt",
        "/home/u/.claude/projects/-repo/memory/MEMORY.md",
    ] {
        assert!(!is_instruction_file(path), "{path}");
    }
}

#[test]
fn facts_said_along_the_way_are_noted_carried_and_dropped_first() {
    let messages = [
        user("Import the spreadsheet into the CRM."),
        assistant(
            "I read the sheet with `import.py` first. The loader skips 2 blank rows. \
             The header sits on row 3, so PROJECT_HEADER_ROW is now 3. It looks fine otherwise.",
            &[],
        ),
        user("Good. Weather stays on the daily report, 5 fields in all."),
        assistant("Done.", &[]),
        user("Now the invoices."),
    ];
    let summary = summarize(&messages);
    let critical = bullets(&summary, "## Critical Context");
    assert!(
        critical.iter().any(|item| item.starts_with("Assistant noted (on «Import the spreadsheet")
            && item.contains("The header sits on row 3, so PROJECT_HEADER_ROW is now 3.")),
        "{summary}"
    );
    assert!(
        critical.iter().all(|item| !item.contains("It looks fine otherwise")),
        "a sentence without a fact is not a note: {critical:#?}"
    );
    assert!(
        summary.contains("Weather stays on the daily report, 5 fields in all."),
        "the user's sentence is kept whole: {summary}"
    );

    // The next round carries the notes while there is room.
    let later = [user("Then send them."), assistant("Sent 12 invoices.", &[])];
    let next = summarize_after(&later, &summary, 20_000);
    assert!(next.contains("PROJECT_HEADER_ROW is now 3"), "{next}");
    // Under a tight budget the notes go before the requests.
    let tight = summarize_after(&later, &summary, next.chars().count() - 30);
    assert!(!tight.contains("PROJECT_HEADER_ROW is now 3"), "{tight}");
    assert!(tight.contains("Then send them."), "{tight}");
}

#[test]
fn items_past_a_cap_go_in_when_there_is_room_and_are_counted_when_dropped() {
    // 40 requests, each with an edit: more earlier requests and edits than their caps.
    let mut messages = Vec::new();
    for n in 0..40 {
        messages.push(user(&format!("Add the field number {n} to the ledger schema.")));
        let id = format!("e{n}");
        messages
            .push(assistant("", &[(id.as_str(), "edit", json!({"path": format!("src/f{n}.rs")}))]));
        messages.push(result(&id, "edit", "Successfully replaced text", false));
    }
    let roomy = summarize_within(&messages, 200_000);
    // With room, none is left out: the oldest earlier request and edit are there.
    assert!(
        roomy.contains("Earlier request: Add the field number 1 to the ledger schema."),
        "{roomy}"
    );
    assert!(roomy.contains("`src/f0.rs`"), "{roomy}");
    assert!(!roomy.contains("left out"), "{roomy}");
    // Tight, the oldest go first and the summary says how many items it left out.
    let tight = summarize_within(&messages, 2_500);
    assert!(!tight.contains("Add the field number 1 to"), "{tight}");
    assert!(
        tight.contains("Earlier request: Add the field number 38 to the ledger schema."),
        "{tight}"
    );
    assert!(tight.contains("lower-priority items were left out"), "{tight}");
}

#[test]
fn a_log_line_at_an_error_level_is_an_error_line() {
    use super::super::scan::error_line;
    for line in [
        "2026-03-01 12:00:00,123 ERROR [main] Payment worker crashed",
        "2026-03-01T12:00:00Z ERROR api::handler: upstream returned 502",
        "[2026-03-01 12:00:00] local.ERROR: SQLSTATE[42S02]: table not found",
        "12:00:01.554 | FATAL | db pool exhausted",
        "time=2026-03-01T12:00:00Z level=error msg=\"dial tcp: refused\"",
        "{\"time\":\"2026-03-01\",\"level\":\"error\",\"msg\":\"boom\"}",
    ] {
        assert!(error_line(line), "{line}");
    }
    for line in [
        "2026-03-01 12:00:00,123 INFO [main] error budget at 3%",
        "2026-03-01T12:00:00Z WARN retrying after Error 2 of 5",
        "404 ERROR PAGE TEMPLATE",
        "2026 annual report: errors fell by half",
    ] {
        assert!(!error_line(line), "{line}");
    }
}

#[test]
fn a_long_command_keeps_what_it_does_and_shortens_its_paths() {
    let folder = "web/src/pages/app/_components/MenuOptions/_components";
    let command = format!(
        "git add {folder}/EllipsisText/index.tsx {folder}/OptionButton/index.tsx && \
         git commit -m \"refactor: isolate the tooltip props\""
    );
    let messages = [
        assistant("Committing.", &[("c1", "bash", json!({ "command": command }))]),
        result("c1", "bash", "[main 1a2b3c4] refactor: isolate the tooltip props", false),
    ];
    let summary = summarize(&messages);
    assert!(
        summary.contains(
            "`git add …/EllipsisText/index.tsx …/OptionButton/index.tsx && git commit -m \
             \"refactor: isolate the tooltip props\"`"
        ),
        "{summary}"
    );
    // A command that fits is shown as written, paths and all.
    let short = format!("cat {folder}/x.ts");
    let messages = [
        assistant("Reading.", &[("c2", "bash", json!({ "command": format!("{short} && false") }))]),
        result("c2", "bash", "exit status 1", true),
    ];
    assert!(summarize(&messages).contains(&format!("`{short} && false`")));
}
