//! Errors and what commands did: a runner's own count, TypeScript, npm and Python errors,
//! moves and deletions, log lines at an error level, long commands.

use super::super::*;
use pretty_assertions::assert_eq;

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
