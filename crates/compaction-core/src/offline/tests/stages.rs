//! Each stage on its own: sentences and code spans, requests, constraints and decisions,
//! output scans, the previous summary read back, Done and In Progress, the goal, the
//! budget, the focus, and the summary kinds.

use super::super::calls::invocation;
use super::super::outcomes::covers;
use super::*;
use pretty_assertions::assert_eq;

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
fn clip_leaves_out_a_token_it_would_cut() {
    // A cut inside a key, a path or a URL leaves the whole token out, never a piece of it.
    let key = format!("{}{}", "eyJhbGciOiJIUzI1NiJ9.", "x".repeat(40));
    assert_eq!(clip(&format!("curl -H 'Bearer {key}' https://a"), 30), "curl -H 'Bearer…");
    assert_eq!(clip("cat /home/dev/keys/abcdef/config.toml", 20), "cat…");
    assert_eq!(clip("please go on with the migration", 24), "please go on with the…");
    assert_eq!(clip("日本語のテキスト", 4), "日本語…");
}

#[test]
fn code_spans_survive_backticks_inside() {
    assert_eq!(code("cargo test"), "`cargo test`");
    assert_eq!(code("unneeded `return`"), "`` unneeded `return` ``");
}

#[test]
fn request_skips_acknowledgements_keeps_whole_settings_and_stays_bounded() {
    assert_eq!(
        request_of("Great, thanks. Now add comments to the lexer. Then run tests.", true)
            .as_deref(),
        Some("Now add comments to the lexer. Then run tests.")
    );
    let long = "word ".repeat(200);
    let request = request_of(&long, true).unwrap_or_default();
    assert!(char_len(&request) <= 600, "{request}");
    // Later sentences are kept whole while they fit; one that does not fit is left out
    // rather than cut.
    let opening = "We went over the layout of the settings page and the naming of every field \
                   in it, and I think both are fine as they are for now.";
    let filler = "x".repeat(500);
    let text = format!("{opening} {filler}. Set the cooldown to 10 s, then 3 s.");
    assert_eq!(
        request_of(&text, true).as_deref(),
        Some(format!("{opening} Set the cooldown to 10 s, then 3 s.").as_str())
    );
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
        plan_of(text, false).plan,
        vec!["Edit src/a.rs", "Run tests", "I'll update `parse`.", "Let me check the docs."]
    );
}

#[test]
fn a_reply_that_ends_the_turn_lists_a_plan_only_under_a_lead_in_that_looks_ahead() {
    let report = "All done.\n\n## Summary of the changes\n1. **Fixed the loop**: retries once\n   \
                  (see `refresh.ts`)\n2. Added a counter\n";
    // Ending the turn, a report is no plan; going on to act, the same list is the steps.
    let items = vec!["**Fixed the loop**: retries once", "Added a counter"];
    assert_eq!(
        plan_of(report, true),
        Lists { plan: Vec::new(), reported: items.iter().map(|s| s.to_string()).collect() }
    );
    assert_eq!(plan_of(report, false).plan, items);
    let next = "Fixed the loop.\n\nNext steps:\n1. Add a logout endpoint\n2. Show a toast\n";
    assert_eq!(plan_of(next, true).plan, vec!["Add a logout endpoint", "Show a toast"]);
    // Each list has its own lead-in: a report, then the work left.
    let both = "Here's what I did:\n1. Moved the parser\n\nStill to do:\n1. Port the tests\n";
    assert_eq!(
        plan_of(both, true),
        Lists { plan: vec!["Port the tests".into()], reported: vec!["Moved the parser".into()] }
    );
    // A list with no lead-in that ends the turn is no plan either.
    assert_eq!(plan_of("1. Renamed `a`\n2. Removed `b`", true).plan, Vec::<String>::new());
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
    assert_eq!(key_facts(&messages, None).modified_files, ["src/config.rs"]);
    // The entry appends the file lists after the summary; the summary does not repeat them.
    assert!(!summary.contains("Modified files"), "{summary}");
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
            after: &[],
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
        // The budget holds the summary and the file lists the entry appends after it.
        if max_chars >= full.chars().count() + file_lists_room(&messages, None) {
            assert_eq!(summary, full);
        }
    }
    let tight = summarize_offline(&OfflineInput {
        after: &[],
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
        after: &[],
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
        after: &[],
        kind: OfflineKind::TurnPrefix,
        messages: &messages,
        previous_summary: None,
        instructions: None,
        pins: &[],
        max_chars: 4_000,
    });
    assert!(prefix.contains("- Request of this turn: Migrate the store to SQLite.\n"), "{prefix}");
    let branch = summarize_offline(&OfflineInput {
        after: &[],
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
    assert!(!branch.contains("Files changed on this branch"), "{branch}");
    assert!(branch.contains("- Outcome: SQLite migration is drafted.\n"), "{branch}");
}

#[test]
fn runs_that_differ_only_in_environment_wrappers_redirections_or_a_reader_pipe_ran_the_same() {
    let same = [
        ("pnpm --version", "COREPACK_ENABLE_PROJECT_SPEC=0 pnpm --version 2>&1 | tail -3"),
        ("npm test", "CI=1 npm test > test.log"),
        ("cargo build", "env RUSTFLAGS=-Dwarnings cargo build 2> /dev/null"),
        ("pytest tests/", "timeout 300 python_env=1 pytest tests/ | grep -v warn"),
        ("make install", "sudo -E make install"),
        ("go test ./...", "time /usr/local/go/bin/go test ./... 2>&1 | head -50"),
    ];
    for (failed, passed) in same {
        assert_eq!(invocation(failed), invocation(passed), "{failed} / {passed}");
        assert!(covers(passed, failed), "{passed} should cover {failed}");
    }
    // What a run does is not set up: other programs, words or a pipe into a writer differ.
    let different = [
        ("pnpm --version", "pnpm install"),
        ("npm test", "npm run build | tee build.log"),
        ("cargo build", "cargo build | sed -i s/a/b/ x"),
        ("make install", "make"),
    ];
    for (failed, passed) in different {
        assert!(!covers(passed, failed), "{passed} should not cover {failed}");
    }
}

#[test]
fn steps_that_prepare_a_run_and_a_shell_around_it_do_not_change_what_ran() {
    let same = [
        ("cd web && npm test", "npm test"),
        ("mkdir -p out && export CI=1 && cargo test", "cargo test"),
        ("source .venv/bin/activate && pytest -q", "pytest -q"),
        ("bash -e -o pipefail -c 'make check'", "make check"),
        ("pwsh.exe -NoLogo -Command 'npm run build'", "cd app && npm run build"),
    ];
    for (failed, passed) in same {
        assert_eq!(invocation(failed), invocation(passed), "{failed} / {passed}");
        assert!(covers(passed, failed), "{passed} should cover {failed}");
    }
    // A failed chain failed where it stopped: a pass of its last command got past it all.
    assert!(covers("make -j4", "mkdir -p build && cd build && cmake .. && make -j8"));
    assert!(covers("ctest", "cd build && cmake .. && make && ctest"));
    // A step that does work is no setup, and a pass of an earlier step settles nothing.
    assert_ne!(invocation("npm ci && npm test"), invocation("npm test"));
    assert!(!covers("cmake ..", "cmake .. && make"));
    assert!(!covers("npm test", "npm test && npm run lint"));
}

#[test]
fn a_failure_is_resolved_by_a_later_run_that_only_sets_its_environment() {
    let messages = [
        user("Run the readiness check."),
        bash_run(
            "pnpm --version 2>&1",
            "This project is configured to use yarn because package.json has a packageManager field\n",
            1,
        ),
        bash_run("COREPACK_ENABLE_PROJECT_SPEC=0 pnpm --version 2>&1 | tail -3", "10.33.2\n", 0),
    ];
    let summary = summarize(&messages);
    assert!(bullets(&summary, "### Blocked").is_empty(), "{summary}");
    assert!(
        bullets(&summary, "### Done")
            .join("\n")
            .contains("`COREPACK_ENABLE_PROJECT_SPEC=0 pnpm --version 2>&1 | tail -3` passes now"),
        "{summary}"
    );
}

#[test]
fn a_question_the_user_asks_after_the_assistants_question_is_a_request_not_its_answer() {
    let messages = [
        user("How is the list of expired contracts sorted?"),
        assistant("There is no sort option, so the order is undefined. Should I add one?", &[]),
        user("how do i rename a branch"),
        assistant("Use `git branch -m <new-name>` on the current branch.", &[]),
    ];
    let summary = summarize(&messages);
    assert!(summary.contains("- Latest request: how do i rename a branch"), "{summary}");
    assert!(!summary.contains("the user answered: how do i rename"), "{summary}");
}

#[test]
fn a_heredoc_body_redirects_nothing_in_a_shell_call() {
    let script = "node <<'NODE'\nconst mode = count > auto ? 'push' : 'pull';\nfs.writeFileSync('ui/vite.config.ts', text);\nNODE\ncat > docs/notes.md <<'EOF'\nuse a > b here\nEOF";
    let messages = [
        user("Write the config."),
        assistant("", &[("1", "bash", json!({ "command": script }))]),
        result("1", "bash", "", false),
    ];
    // The heredoc's own lines are the program's input; only the shell's `> docs/notes.md`
    // writes a file.
    assert_eq!(key_facts(&messages, None).modified_files, ["docs/notes.md"]);
}

#[test]
fn an_inverted_question_is_no_rule_and_an_order_to_stop_doing_is_one() {
    for question in ["should we use string of Timestamp", "must I rebase first", "Should it retry"]
    {
        assert!(!is_rule(question), "{question}");
    }
    for rule in [
        "fuck me stop making chnages without checking with me first",
        "Please quit adding comments to every line",
        "You should run the linter first.",
    ] {
        assert!(is_rule(rule), "{rule}");
    }
    // A stop that is no order to end a habit.
    assert!(!is_rule("The bus stop is outside the office"));
}

#[test]
fn a_message_written_wholly_as_a_quote_block_is_the_users_words() {
    let handoff = "> Pick up FW-005 first. Add a narrow wallet-readiness demo. Use ZERION_API_KEY or documented\n  > optional x402, do not invent secrets, run pnpm build, commit the feature separately without co-author trailers.";
    let summary = summarize(&[user(handoff), assistant("Starting with FW-005.", &[])]);
    // Read without its quote marks, and its hand-wrapped lines joined into sentences.
    assert!(summary.contains("Pick up FW-005 first."), "{summary}");
    assert!(summary.contains("do not invent secrets, run pnpm build"), "{summary}");
    // A program's echo of its script in quote marks is no message of the user's.
    let (prose, pasted) = split_user_text("> app@1.0.0 build\n> next build");
    assert!(prose.is_empty() && pasted.len() == 2, "{prose:?} {pasted:?}");
}

#[test]
fn a_line_that_ends_on_error_introduces_a_paste_and_is_no_error() {
    for lead_in in [
        "claude me ayudas a arreglar este error:",
        "PERFECTO CLAUDE, empecemos arreglando el bug, te recuerdo el error:",
        "1923 except Exception:",
    ] {
        assert!(!error_line(lead_in), "{lead_in}");
    }
    for error in ["TypeError: unsupported operand type(s)", "Error: Cannot find module 'x'"] {
        assert!(error_line(error), "{error}");
    }
    let pasted = "claude me ayudas a arreglar este error:\nTypeError: unsupported operand type(s) for /: 'int' and 'list'";
    let summary = summarize(&[user(pasted)]);
    assert!(
        summary.contains("Error the user reported: `TypeError: unsupported operand"),
        "{summary}"
    );
    assert!(!summary.contains("Error the user reported: `claude"), "{summary}");
}

#[test]
fn an_earlier_rounds_count_of_left_out_items_is_not_carried() {
    let previous = "## Goal\n- Ship it.\n\n## Critical Context\n- Identifiers: `ship_it`\n\
                    - 41 lower-priority items were left out to fit the summary budget";
    let summary = summarize_offline(&OfflineInput {
        after: &[],
        kind: OfflineKind::History,
        messages: &[user("Add the CSV export.")],
        previous_summary: Some(previous),
        instructions: None,
        pins: &[],
        max_chars: 20_000,
    });
    assert!(summary.contains("`ship_it`"), "{summary}");
    assert!(!summary.contains("41 lower-priority"), "{summary}");
}

#[test]
fn a_reply_or_note_a_later_change_of_mind_replaced_is_left_out() {
    let messages = vec![
        user("How should we store the sessions?"),
        assistant("I recommend keeping the sessions in Redis because it is the simplest.", &[]),
        user("Add a unit test for formatPrice in src/price.ts"),
        assistant("Added the test for formatPrice.", &[]),
        user("No, keep the sessions in Postgres instead."),
        assistant("Understood, the sessions go to Postgres.", &[]),
        user("Add a unit test for parseDate in src/date.ts"),
        assistant("Added the test for parseDate.", &[]),
    ];
    let stale = |summary: &str| {
        summary.lines().filter(|line| line.to_lowercase().contains("sessions in redis")).count()
    };
    let summary = summarize(&messages);
    assert_eq!(stale(&summary), 0, "{summary}");
    // The request stays, the user's words are kept, and the turn before the change of mind
    // (which it does not name) is not what the user rejected.
    assert!(summary.contains("How should we store the sessions?"), "{summary}");
    assert!(summary.contains("- No, keep the sessions in Postgres instead."), "{summary}");
    assert!(!summary.contains("Rejected by the user"), "{summary}");
    // Without the change of mind both are kept.
    let kept = summarize(&messages[..4]);
    assert!(stale(&kept) >= 1, "{kept}");
    // A summary that carried them drops them once a later part replaces the choice.
    let later = summarize_after(&messages[4..], &kept, 20_000);
    assert_eq!(stale(&later), 0, "{later}");
    assert!(later.contains("How should we store the sessions?"), "{later}");
}
