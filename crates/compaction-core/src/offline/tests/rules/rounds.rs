//! Successive summaries: one latest request, no repeated Done items, corrections across a
//! boundary, moves recorded earlier, the gate's must-keep section, turns that ended,
//! injected skills and instruction files.

use super::super::*;
use pretty_assertions::assert_eq;

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
