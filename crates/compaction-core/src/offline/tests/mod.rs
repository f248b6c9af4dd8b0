//! Unit tests of the offline summarizer's stages; `shapes` holds one test per rule that
//! real sessions needed (other ecosystems' output, corrections, open turns, carried items).

mod held_out;
mod shapes;

use super::extract::*;
use super::previous::PreviousSummary;
use super::render::*;
use super::scan::*;
use super::sections::*;
use super::text::*;
use super::*;
use crate::message::{Content, ContentBlock};
use serde_json::Value;

use crate::message::{AssistantMessage, BashExecutionMessage, Extra, ToolCall, ToolResultMessage};
use pretty_assertions::assert_eq;
use serde_json::json;

fn user(text: &str) -> AgentMessage {
    AgentMessage::user_text(text)
}

fn assistant(text: &str, calls: &[(&str, &str, Value)]) -> AgentMessage {
    let mut content = Vec::new();
    if !text.is_empty() {
        content.push(ContentBlock::text(text));
    }
    for (id, name, arguments) in calls {
        content.push(ContentBlock::ToolCall(ToolCall {
            id: (*id).to_owned(),
            name: (*name).to_owned(),
            arguments: arguments.clone(),
            extra: Extra::new(),
        }));
    }
    AgentMessage::Assistant(AssistantMessage {
        content,
        provider: None,
        model: None,
        usage: None,
        // A reply with calls waits for their results; one without ends the turn.
        stop_reason: Some(if calls.is_empty() { "stop" } else { "toolUse" }.to_owned()),
        error_message: None,
        extra: Extra::new(),
    })
}

fn result(id: &str, name: &str, text: &str, is_error: bool) -> AgentMessage {
    AgentMessage::ToolResult(ToolResultMessage {
        tool_call_id: id.to_owned(),
        tool_name: name.to_owned(),
        content: Content::Blocks(vec![ContentBlock::text(text)]),
        is_error,
        extra: Extra::new(),
    })
}

fn bash_run(command: &str, output: &str, exit_code: i64) -> AgentMessage {
    AgentMessage::BashExecution(BashExecutionMessage {
        command: command.to_owned(),
        output: output.to_owned(),
        exit_code: Some(exit_code),
        cancelled: false,
        truncated: false,
        full_output_path: None,
        exclude_from_context: None,
        extra: Extra::new(),
    })
}

fn summarize(messages: &[AgentMessage]) -> String {
    summarize_offline(&OfflineInput {
        kind: OfflineKind::History,
        messages,
        previous_summary: None,
        instructions: None,
        pins: &[],
        max_chars: 20_000,
    })
}

/// The bullets under `heading`, up to the next heading.
fn bullets(summary: &str, heading: &str) -> Vec<String> {
    let mut lines = summary.lines().skip_while(|line| *line != heading).skip(1);
    let mut out = Vec::new();
    for line in lines.by_ref() {
        if line.starts_with('#') {
            break;
        }
        if let Some(bullet) = line.strip_prefix("- ") {
            out.push(bullet.to_owned());
        }
    }
    out
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

fn assert_structure(summary: &str) {
    // Goal always; the other headings only over items, in order; never an empty section.
    assert!(summary.starts_with("## Goal\n"), "{summary}");
    let mut last = 0;
    for line in summary.lines().filter(|line| line.starts_with('#')) {
        let position = HEADINGS
            .iter()
            .position(|heading| *heading == line)
            .unwrap_or_else(|| panic!("unknown heading {line}:\n{summary}"));
        assert!(position >= last, "{line} out of order:\n{summary}");
        last = position;
    }
    assert!(!summary.contains("(none)"), "{summary}");
}

#[test]
fn sentences_split_on_latin_and_cjk_stops_and_skip_code() {
    let text =
        "Fix it. Then test!\n```\nnot. a sentence\n```\n修复这个错误。不要改测试。v1.2 stays";
    assert_eq!(
        sentences(text),
        vec!["Fix it.", "Then test!", "修复这个错误。", "不要改测试。", "v1.2 stays"]
    );
}

#[test]
fn clip_and_head_cut_on_char_boundaries() {
    assert_eq!(clip("日本語のテキスト", 4), "日本語…");
    assert_eq!(clip("short", 10), "short");
    assert_eq!(head("héllo", 2), "h");
    assert_eq!(head("héllo", 3), "hé");
}

#[test]
fn code_spans_survive_backticks_inside() {
    assert_eq!(code("cargo test"), "`cargo test`");
    assert_eq!(code("unneeded `return`"), "`` unneeded `return` ``");
}

#[test]
fn request_skips_acknowledgements_and_stays_short() {
    assert_eq!(
        request_of("Great, thanks. Now add comments to the lexer. Then run tests.", true)
            .as_deref(),
        Some("Now add comments to the lexer. Then run tests.")
    );
    let long = "word ".repeat(200);
    let request = request_of(&long, true).unwrap_or_default();
    assert!(char_len(&request) <= 260, "{request}");
    assert_eq!(request_of("  \n ", true), None);
}

#[test]
fn constraints_are_imperative_sentences_in_any_language() {
    let text = "The parser is slow. Always run cargo fmt. Please don't touch the CI config. \
                We must keep MSRV 1.70. I think it is fine. 请不要修改 Cargo.toml。テストを必ず実行してください。";
    assert_eq!(
        constraints_of(text),
        vec![
            "Always run cargo fmt.",
            "Please don't touch the CI config.",
            "We must keep MSRV 1.70.",
            "请不要修改 Cargo.toml。",
            "テストを必ず実行してください。",
        ]
    );
}

#[test]
fn decisions_and_plans_come_from_assistant_statements() {
    let text = "The fix is to borrow instead of clone. I'll update `parse`.\n\
                Plan:\n1. Edit src/a.rs\n2) Run tests\nLet me check the docs. It compiles.";
    assert_eq!(decisions_of(text), vec!["The fix is to borrow instead of clone."]);
    assert_eq!(
        plan_of(text),
        vec!["Edit src/a.rs", "Run tests", "I'll update `parse`.", "Let me check the docs."]
    );
}

#[test]
fn output_scan_finds_compiler_errors_with_locations() {
    let output = "   Compiling x v0.1.0\nerror[E0308]: mismatched types\n  --> src/parser.rs:47:24\n   |\n\
                  error: could not compile `x` (lib) due to 1 previous error\n\nCommand exited with code 101";
    let scan = scan_output(output.lines());
    assert_eq!(scan.errors, vec!["`error[E0308]: mismatched types` at `src/parser.rs:47:24`"]);
    assert_eq!(scan.exit_code, Some(101));
    assert_eq!(scan.passed, None);
}

#[test]
fn output_scan_ignores_progress_lines_that_mention_errors() {
    let output = "test parser::tests::error_recovery ... ok\nwarning: unused variable: `x`\n\
                  0 errors, 1 warning\nTypeError: cannot read properties of undefined\n";
    let scan = scan_output(output.lines());
    assert_eq!(scan.errors, vec!["`TypeError: cannot read properties of undefined`"]);
}

#[test]
fn output_scan_reads_panics_and_test_results() {
    let output = "running 2 tests\nthread 't::a' panicked at src/a.rs:3:5:\nboom\n\
                  test result: FAILED. 1 passed; 1 failed; 0 ignored";
    let scan = scan_output(output.lines());
    assert_eq!(scan.errors, vec!["`thread 't::a' panicked at src/a.rs:3:5:` `boom`"]);
    assert!(scan.tests_failed);
    let passing = scan_output("test result: ok. 7 passed; 0 failed; 0 ignored".lines());
    assert_eq!(passing.passed.as_deref(), Some("7 passed; 0 failed"));
    assert!(!passing.tests_failed);
    assert!(passing.errors.is_empty());
}

#[test]
fn previous_summary_parses_sections_and_file_lists() {
    let text = "## Goal\n- Ship v2\n\n## Progress\n### Done\n- Edited `a.rs`\n### Blocked\n- (none)\n\
                ## Critical Context\n- Modified files: `a.rs`\n\n<read-files>\nb.rs\n</read-files>\n\n\
                <modified-files>\nc.rs\n</modified-files>";
    let parsed = PreviousSummary::parse(text);
    assert_eq!(parsed.section(Section::Goal), ["Ship v2"]);
    assert_eq!(parsed.section(Section::Done), ["Edited `a.rs`"]);
    assert!(parsed.section(Section::Blocked).is_empty());
    assert_eq!(parsed.section(Section::Critical), ["Modified files: `a.rs`"]);
    assert_eq!(parsed.read_files, ["b.rs"]);
    assert_eq!(parsed.modified_files, ["c.rs"]);
    assert_eq!(parsed.unstructured, None);
    let loose = PreviousSummary::parse("We fixed the lexer.\nTests pass.");
    assert_eq!(loose.unstructured.as_deref(), Some("We fixed the lexer. Tests pass."));
}

#[test]
fn done_lists_successful_edits_and_passing_commands() {
    let messages = [
        user("Rename the config loader."),
        assistant("", &[("1", "edit", json!({"path": "src/config.rs"}))]),
        result("1", "edit", "Successfully replaced text in src/config.rs.", false),
        assistant("", &[("2", "write", json!({"path": "src/new.rs", "content": "x"}))]),
        result("2", "write", "Could not write: permission denied", true),
        assistant("", &[("3", "bash", json!({"command": "cargo test"}))]),
        result("3", "bash", "test result: ok. 3 passed; 0 failed; 0 ignored", false),
        bash_run("git status --short", " M src/config.rs\n", 0),
    ];
    let summary = summarize(&messages);
    assert_eq!(
        bullets(&summary, "### Done"),
        vec![
            "Edited `src/config.rs`",
            // `git status` only reads: not progress.
            "Ran `cargo test` (tests passed: 3 passed; 0 failed)",
        ]
    );
    assert_eq!(
        bullets(&summary, "### Blocked"),
        vec!["Write of `src/new.rs` failed: `Could not write: permission denied`"]
    );
    assert!(summary.contains("- Modified files: `src/config.rs`\n"), "{summary}");
}

#[test]
fn a_later_pass_resolves_a_failure_of_the_same_command() {
    let failing = "error[E0425]: cannot find value `x` in this scope\n --> src/a.rs:2:5\nCommand exited with code 101";
    let messages = [
        user("Make the build green."),
        assistant("", &[("1", "bash", json!({"command": "cargo build"}))]),
        result("1", "bash", failing, true),
        assistant("", &[("2", "bash", json!({"command": "cargo build"}))]),
        result("2", "bash", "Finished dev profile", false),
        bash_run("make lint", "lint.sh: line 3: shellcheck: command not found\n", 127),
    ];
    let summary = summarize(&messages);
    assert_eq!(
        bullets(&summary, "### Blocked"),
        vec!["`make lint` failed (exit 127): `lint.sh: line 3: shellcheck: command not found`"]
    );
    assert!(
        summary.contains(
            "`cargo build` passes now (earlier failure: `` error[E0425]: cannot find value `x` in this scope `` at `src/a.rs:2:5`)"
        ),
        "{summary}"
    );
    assert!(
        summary.contains(
            "- Last error (unresolved, `make lint`): `lint.sh: line 3: shellcheck: command not found`"
        ),
        "{summary}"
    );
}

#[test]
fn a_later_edit_resolves_a_failed_edit_of_the_same_file() {
    let messages = [
        assistant("", &[("1", "edit", json!({"path": "a.rs"}))]),
        result("1", "edit", "Could not find the exact text in a.rs", true),
        assistant("", &[("2", "edit", json!({"path": "a.rs"}))]),
        result("2", "edit", "Successfully replaced text in a.rs.", false),
    ];
    let summary = summarize(&messages);
    assert!(bullets(&summary, "### Blocked").is_empty(), "{summary}");
    assert!(summary.contains("Last error (since resolved)"), "{summary}");
}

#[test]
fn in_progress_names_calls_without_results_and_the_last_step() {
    let messages = [
        user("Profile the importer."),
        assistant(
            "I'll run the benchmark now.",
            &[("1", "bash", json!({"command": "cargo bench -p importer"}))],
        ),
    ];
    let summary = summarize(&messages);
    assert_eq!(
        bullets(&summary, "### In Progress"),
        vec![
            "Running `cargo bench -p importer` (no result yet)",
            "Last assistant step: I'll run the benchmark now.",
        ]
    );
    assert_eq!(bullets(&summary, "## Next Steps"), vec!["I'll run the benchmark now."]);
}

#[test]
fn goal_keeps_the_first_request_and_labels_later_ones() {
    let messages =
        [user("Add a CSV exporter."), user("Also support TSV."), user("Finally, document both.")];
    let summary = summarize(&messages);
    assert_eq!(
        bullets(&summary, "## Goal"),
        vec![
            "Add a CSV exporter.",
            "Earlier request: Also support TSV.",
            "Latest request: Finally, document both."
        ]
    );
}

#[test]
fn identifiers_come_from_backticks_and_paths_are_not_identifiers() {
    let messages = [user("Why does `Parser::next` panic in `src/parser.rs`?")];
    let summary = summarize(&messages);
    assert!(summary.contains("- Identifiers: `Parser::next`\n"), "{summary}");
}

#[test]
fn tracked_lengths_match_the_rendered_text() {
    let mut sections = Sections::default();
    sections.push(Section::Goal, "Ship it", 1);
    sections.push(Section::Blocked, "`make` failed: 修复", 2);
    sections.push(Section::Blocked, "second", 3);
    let items = sections.items;
    let mut lengths = SectionLengths::new(&items);
    assert_eq!(lengths.total(), char_len(&render(&items)));
    lengths.remove(&items[1]);
    assert_eq!(lengths.total(), char_len(&render(&[items[0].clone(), items[2].clone()])));
    assert_eq!(SectionLengths::new(&[]).total(), char_len(&render(&[])));
}

#[test]
fn the_budget_is_respected_and_headings_survive() {
    let mut messages = vec![user("Port the engine to the new allocator.")];
    for index in 0..60 {
        let id = format!("c{index}");
        messages.push(assistant(
            &format!("The fix is to align chunk {index}. I'll edit `chunk_{index}`."),
            &[(id.as_str(), "edit", json!({"path": format!("src/chunk_{index}.rs")}))],
        ));
        messages.push(result(&id, "edit", "ok", false));
    }
    let full = summarize(&messages);
    let skeleton_len = char_len(&render(&[]));
    for max_chars in [0, 10, skeleton_len, skeleton_len + 40, 600, 1_500, 4_000, 100_000] {
        let summary = summarize_offline(&OfflineInput {
            kind: OfflineKind::History,
            messages: &messages,
            previous_summary: None,
            instructions: None,
            pins: &[],
            max_chars,
        });
        assert!(char_len(&summary) <= max_chars, "{max_chars}: {}", char_len(&summary));
        if max_chars >= skeleton_len {
            assert_structure(&summary);
        }
        if max_chars >= full.chars().count() {
            assert_eq!(summary, full);
        }
    }
    let tight = summarize_offline(&OfflineInput {
        kind: OfflineKind::History,
        messages: &messages,
        previous_summary: None,
        instructions: None,
        pins: &[],
        max_chars: 700,
    });
    // The main goal outlives the low-priority items.
    assert!(tight.contains("Port the engine to the new allocator."), "{tight}");
    assert!(!tight.contains("Identifiers:"), "{tight}");
}

#[test]
fn focus_instructions_are_named_and_rank_matching_items_higher() {
    let messages =
        [user("Speed up the importer. Keep the public API stable. Use rayon for parallel work.")];
    let input = |max_chars| OfflineInput {
        kind: OfflineKind::History,
        messages: &messages,
        previous_summary: None,
        instructions: Some("rayon usage"),
        pins: &[],
        max_chars,
    };
    let full = summarize_offline(&input(10_000));
    assert!(full.contains("- Focus requested: rayon usage\n"), "{full}");
    // With room for one constraint only, the one about rayon wins.
    let with_one = char_len(&full) - char_len("- Keep the public API stable.\n");
    let tight = summarize_offline(&input(with_one));
    assert_eq!(
        bullets(&tight, "## Constraints & Preferences"),
        vec!["Use rayon for parallel work."]
    );
}

#[test]
fn huge_outputs_are_scanned_without_blowing_up_the_summary() {
    let mut output = String::new();
    for index in 0..200_000 {
        output.push_str(&format!("line {index} of noisy build output\n"));
    }
    output.push_str("error: linker `cc` not found\n");
    let messages = [
        assistant("", &[("1", "bash", json!({"command": "cargo build --release"}))]),
        result("1", "bash", &output, true),
    ];
    let summary = summarize(&messages);
    assert!(
        summary.contains("`error: linker `cc` not found`")
            || summary.contains("`` error: linker `cc` not found ``"),
        "{summary}"
    );
    assert!(summary.len() < 4_000, "{}", summary.len());
}

#[test]
fn turn_prefix_and_branch_kinds_label_their_content() {
    let messages = [
        user("Migrate the store to SQLite."),
        assistant("", &[("1", "write", json!({"path": "src/store/sqlite.rs"}))]),
        result("1", "write", "Successfully wrote 300 bytes", false),
        assistant("SQLite migration is drafted.", &[]),
    ];
    let prefix = summarize_offline(&OfflineInput {
        kind: OfflineKind::TurnPrefix,
        messages: &messages,
        previous_summary: None,
        instructions: None,
        pins: &[],
        max_chars: 4_000,
    });
    assert!(prefix.contains("- Request of this turn: Migrate the store to SQLite.\n"), "{prefix}");
    let branch = summarize_offline(&OfflineInput {
        kind: OfflineKind::Branch,
        messages: &messages,
        previous_summary: None,
        instructions: None,
        pins: &[],
        max_chars: 4_000,
    });
    assert!(
        branch.contains("- Explored on this branch: Migrate the store to SQLite.\n"),
        "{branch}"
    );
    assert!(branch.contains("- Files changed on this branch: `src/store/sqlite.rs`\n"), "{branch}");
    assert!(branch.contains("- Outcome: SQLite migration is drafted.\n"), "{branch}");
}

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

fn aborted() -> AgentMessage {
    AgentMessage::Assistant(AssistantMessage {
        content: Vec::new(),
        provider: None,
        model: None,
        usage: None,
        stop_reason: Some("aborted".to_owned()),
        error_message: Some("Request was aborted".to_owned()),
        extra: Extra::new(),
    })
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
    assert!(summary.contains("- Modified files: `src/export/paletteExport.ts`\n"), "{summary}");
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
    assert!(second.contains("- Latest request: Then add TSV.\n"), "{second}");
    assert_eq!(
        second.matches("`src/csv.ts`").count(),
        2,
        "one Done item and the file list:\n{second}"
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
        kind: OfflineKind::History,
        messages: &[user("Add an OFX importer.")],
        previous_summary: Some(previous),
        instructions: None,
        pins: &[],
        max_chars: 20_000,
    });
    assert!(
        summary.contains("- Modified files: `ledger/cli.py`, `ledger/io/csv_import.py`\n"),
        "{summary}"
    );
}

#[test]
fn the_gates_must_keep_section_goes_back_to_its_sections_and_pins_are_not_carried() {
    let previous = "## Goal\n- Ship it.\n\n## Must Keep\n- Modified: `src/a.ts`\n\
                    - Constraint (user's words): \"Never change the file format.\"\n\
                    - Pinned instruction:\n\n<pinned-instruction>\nRun npm test first.\n</pinned-instruction>";
    let summary = summarize_offline(&OfflineInput {
        kind: OfflineKind::History,
        messages: &[user("Add the CSV export.")],
        previous_summary: Some(previous),
        instructions: None,
        pins: &[],
        max_chars: 20_000,
    });
    assert!(summary.contains("- Modified files: `src/a.ts`\n"), "{summary}");
    assert!(
        bullets(&summary, "## Constraints & Preferences")
            .contains(&"Never change the file format.".to_owned()),
        "{summary}"
    );
    assert!(!summary.contains("pinned") && !summary.contains("Run npm test first"), "{summary}");
    assert!(!summary.contains("Must Keep"), "{summary}");
}
