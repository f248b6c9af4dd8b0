//! One test per rule that sessions of other shapes needed: Go, Java, ESLint and ruff output,
//! corrections opened by an interjection, rules given in passing, compound commands, files
//! written by the shell, failures of a rejected turn, interrupted steps, pi's checkbox
//! bullets, open turns, and items carried across successive compactions.

use super::*;
use pretty_assertions::assert_eq;

fn history(messages: &[AgentMessage], previous: Option<&str>) -> String {
    summarize_offline(&OfflineInput {
        after: &[],
        kind: OfflineKind::History,
        messages,
        previous_summary: previous,
        instructions: None,
        pins: &[],
        max_chars: 20_000,
    })
}

fn bash(id: &str, command: &str) -> AgentMessage {
    assistant("", &[(id, "bash", json!({ "command": command }))])
}

fn section_text(summary: &str, heading: &str) -> String {
    bullets(summary, heading).join("\n")
}

#[test]
fn go_java_eslint_and_ruff_errors_are_recognised_with_the_root_cause_first() {
    let go = scan_output(
        "# example.com/svc/internal/api\ninternal/api/server.go:24:9: undefined: ratelimit".lines(),
    );
    assert_eq!(go.errors, vec!["`internal/api/server.go:24:9: undefined: ratelimit`"]);
    let go_test = scan_output(
        "--- FAIL: TestRejectedMetric (0.00s)\n    ratelimit_test.go:21: rejected_total = 0, want 1\nFAIL\tex/mw\t0.006s"
            .lines(),
    );
    assert_eq!(
        go_test.errors[0],
        "`--- FAIL: TestRejectedMetric (0.00s)` `ratelimit_test.go:21: rejected_total = 0, want 1`"
    );
    let race = scan_output(
        "==================\nWARNING: DATA RACE\nWrite at 0x00c by goroutine 12:".lines(),
    );
    assert_eq!(race.errors, vec!["`WARNING: DATA RACE`"]);
    let eslint = scan_output(
        "/app/src/Cart.tsx\n  23:9  error  'total' is assigned a value but never used  no-unused-vars\n\n✖ 1 problem"
            .lines(),
    );
    assert!(eslint.errors[0].contains("'total' is assigned a value but never used"), "{eslint:?}");
    let ruff = scan_output(
        "pipeline/load.py:1:8: F401 [*] `os` imported but unused\nFound 1 error.".lines(),
    );
    assert!(ruff.errors[0].contains("F401"), "{ruff:?}");
    let java = scan_output(
        "org.springframework.beans.factory.UnsatisfiedDependencyException: Error creating bean\n\
         Caused by: org.postgresql.util.PSQLException: Connection to localhost:5432 refused."
            .lines(),
    );
    assert!(java.errors[0].starts_with("`Caused by: org.postgresql"), "{java:?}");
    // A passing build's lines and prose with colons are not errors.
    let quiet = scan_output("ok  \tex/api\t0.018s\nSee: docs/readme.md for details".lines());
    assert!(quiet.errors.is_empty(), "{quiet:?}");
}

#[test]
fn a_traceback_points_at_the_projects_own_frame_not_a_library() {
    let scan = scan_output(
        "Traceback (most recent call last):\n  File \"/opt/etl/pipeline/transform.py\", line 88, in normalize\n\
         \x20   df[\"c\"] = df[\"c\"].astype(\"int64\")\n  File \"/opt/etl/.venv/lib/python3.11/site-packages/pandas/core/generic.py\", line 6534, in astype\n\
         pandas.errors.IntCastingNaNError: Cannot convert non-finite values (NA or inf) to integer"
            .lines(),
    );
    assert_eq!(
        scan.errors,
        vec![
            "`pandas.errors.IntCastingNaNError: Cannot convert non-finite values (NA or inf) to integer` at `/opt/etl/pipeline/transform.py:88`"
        ]
    );
}

#[test]
fn a_correction_opened_by_an_interjection_rejects_the_proposal() {
    let messages = [
        user("Add rate limiting per API key."),
        assistant(
            "I'll keep the buckets in a package-level map guarded by a mutex.",
            &[("1", "write", json!({"path": "internal/api/ratelimit.go"}))],
        ),
        result("1", "write", "Successfully wrote 1184 bytes", false),
        assistant("Rate limiting is in: a package-level map of token buckets.", &[]),
        user("hmm no, I don't want package-level state. put the limiter on the Server struct"),
        assistant(
            "Got it. I'll move the buckets into a `RateLimiter` type that `Server` owns.",
            &[],
        ),
    ];
    assert!(is_correction("Hmm, no. Not like that.") && is_correction("oh wait, skip it"));
    assert!(!is_correction("Hmm, what about the cache?") && !is_correction("Oh nice, thanks."));
    // In other languages too; a word that only begins like "no" is none.
    assert!(is_correction("non, pas Memcached") && is_correction("不对，头像放到对象存储"));
    assert!(is_correction("아니, XML 말고 JSON lines로 해") && is_correction("아뇨, sharp를 써요"));
    assert!(!is_correction("아니면 Redis는 어때요?") && !is_correction("nonce reuse is fine here"));
    let summary = summarize(&messages);
    let constraints = section_text(&summary, "## Constraints & Preferences");
    assert!(
        constraints.contains("Rejected by the user: I'll keep the buckets in a package-level map"),
        "{summary}"
    );
    assert!(!section_text(&summary, "## Key Decisions").contains("package-level"), "{summary}");
    assert!(
        section_text(&summary, "## Key Decisions")
            .contains("After the user's correction: I'll move the buckets"),
        "{summary}"
    );
    // "Got it." says nothing; the step is the sentence after it.
    assert!(
        summary.contains("- Last assistant step: I'll move the buckets into a `RateLimiter`"),
        "{summary}"
    );
}

#[test]
fn rules_given_in_passing_are_constraints_and_the_request_is_what_is_left() {
    let text = "nice. btw from now on every exported func needs a doc comment, golint runs in CI now. \
                and keep the handlers thin.\n\nnext: the limiter is middleware, not api. move it to internal/middleware";
    assert_eq!(
        constraints_of(text),
        vec![
            "btw from now on every exported func needs a doc comment, golint runs in CI now.",
            "and keep the handlers thin.",
        ]
    );
    assert_eq!(
        request_of(text, true).as_deref(),
        Some("next: the limiter is middleware, not api. move it to internal/middleware")
    );
    assert!(is_rule("Guest orders have to end up with customer_id NULL, not 0."));
    assert!(is_rule("We're on Java 17, so no newer language features."));
    assert!(!is_rule("Do I have to restart the server?"));
    // A message of rules only is its own request.
    assert_eq!(request_of("Always use tabs.", true).as_deref(), Some("Always use tabs."));
}

#[test]
fn a_compound_command_that_passes_resolves_each_of_its_commands() {
    let messages = [
        user("Move the limiter to internal/middleware."),
        bash("1", "go build ./..."),
        result(
            "1",
            "bash",
            "internal/api/server.go:13:11: undefined: RateLimiter\n\nCommand exited with code 1",
            true,
        ),
        bash("2", "ruff check pipeline"),
        result(
            "2",
            "bash",
            "a.py:1:8: F401 `os` imported but unused\n\nCommand exited with code 1",
            true,
        ),
        bash("3", "go build ./... && go vet ./..."),
        result("3", "bash", "", false),
        bash("4", "ruff check pipeline && mypy pipeline"),
        result("4", "bash", "All checks passed!\nSuccess: no issues found", false),
        assistant("Both pass now.", &[]),
    ];
    let summary = summarize(&messages);
    assert!(!summary.contains("### Blocked"), "{summary}");
    assert!(!summary.contains("unresolved"), "{summary}");
    let done = section_text(&summary, "### Done");
    assert!(
        done.contains("`go build ./... && go vet ./...` passes now (earlier failure: `internal/api/server.go:13:11: undefined: RateLimiter`)"),
        "{summary}"
    );
    assert!(summary.contains("`go build ./...` (failed, passes since)"), "{summary}");
    // With a clean output, `;` and `&` joined commands count too; with errors they do not.
    let background = [
        user("Fix the local profile."),
        AgentMessage::BashExecution(BashExecutionMessage {
            command: "./gradlew bootRun".to_owned(),
            output: "Caused by: org.postgresql.util.PSQLException: Connection refused.".to_owned(),
            exit_code: Some(1),
            cancelled: false,
            truncated: false,
            full_output_path: None,
            exclude_from_context: None,
            extra: Extra::new(),
        }),
        bash("5", "./gradlew bootRun & sleep 20; curl -s localhost:8080/actuator/health; kill %1"),
        result("5", "bash", "{\"status\":\"UP\"}", false),
    ];
    let summary = summarize(&background);
    assert!(!summary.contains("### Blocked"), "{summary}");
    assert!(summary.contains("`./gradlew bootRun` (failed, passes since)"), "{summary}");
}

#[test]
fn a_shell_given_a_command_runs_that_command_whatever_its_own_options() {
    for (line, inner) in [
        ("bash --noprofile --norc -c 'pytest -q'", "pytest -q"),
        ("sh -e -c 'make all'", "make all"),
        ("/bin/zsh -l -c 'swift build'", "swift build"),
        ("pwsh.exe -NoLogo -NoProfile -Command \"npm test\"", "npm test"),
        ("powershell -ExecutionPolicy Bypass -Command \"dotnet build\"", "dotnet build"),
        ("cmd.exe /d /s /c \"mvnw.cmd test\"", "mvnw.cmd test"),
    ] {
        assert_eq!(super::super::scan::wrapped_command(line).as_deref(), Some(inner), "{line}");
    }
    // A script's path ends the shell's options: its own `-c` is the script's argument.
    assert_eq!(super::super::scan::wrapped_command("bash build.sh -c"), None);
    // A PowerShell cmdlet reads by its verb; `xargs` reads when what it runs does.
    for command in [
        "pwsh -NoLogo -Command 'Get-ChildItem src | Select-Object -First 5'",
        "Get-Content .env | Where-Object { $_ -match 'PORT' } | Format-Table",
        "ls deploy/*.yaml | xargs grep -l replicas",
        "cmd.exe /c \"findstr /s /n TODO src\\*.cs\"",
    ] {
        assert!(is_read_only_command(command), "{command}");
    }
    for command in [
        "pwsh -Command 'Set-Content a.txt x'",
        "Get-ChildItem *.log | Remove-Item",
        "Get-Process | Out-File procs.txt",
        "find . -name '*.tmp' | xargs rm",
    ] {
        assert!(!is_read_only_command(command), "{command}");
    }
}

#[test]
fn package_queries_and_version_checks_only_read_and_file_writes_do_not() {
    for command in [
        "pip show pyarrow",
        "python -m pip list",
        "npm ls react",
        "node --version",
        "go env GOPATH",
    ] {
        assert!(is_read_only_command(command), "{command}");
    }
    for command in [
        "cat > src/setup.py << 'EOF'\nprint(1)\nEOF",
        "echo x >> .gitignore",
        "pip install -r r.txt",
    ] {
        assert!(!is_read_only_command(command), "{command}");
    }
    let messages = [
        user("Use pyarrow."),
        bash("1", "pip show pyarrow"),
        result(
            "1",
            "bash",
            "WARNING: Package(s) not found: pyarrow\n\nCommand exited with code 1",
            true,
        ),
        bash("2", "pip install -r requirements.txt"),
        result("2", "bash", "Successfully installed pyarrow-16.0.0", false),
    ];
    let summary = summarize(&messages);
    assert!(!summary.contains("pip show"), "{summary}");
    assert!(!summary.contains("### Blocked"), "{summary}");
}

#[test]
fn files_edited_by_sed_or_written_by_a_redirect_are_modified_not_read() {
    let messages = [
        user("Fix the imports after the move."),
        assistant("", &[("1", "read", json!({"path": "pipeline/run.py"}))]),
        result("1", "read", "from pipeline.load import load_orders", false),
        bash(
            "2",
            "sed -i 's/pipeline.load/pipeline.loaders.warehouse/' pipeline/run.py tests/test_load.py",
        ),
        result("2", "bash", "", false),
        bash("3", "cat > docs/notes.md << 'EOF'\nrm -rf build\nEOF"),
        result("3", "bash", "", false),
    ];
    let summary = summarize(&messages);
    assert_eq!(
        key_facts(&messages, None).modified_files,
        ["docs/notes.md", "pipeline/run.py", "tests/test_load.py"]
    );
    assert!(!summary.contains("Read files"), "{summary}");
    assert!(section_text(&summary, "### Done").contains("Edited `pipeline/run.py`"), "{summary}");
    assert!(!summary.contains("Deleted"), "a here-document's text is not a command:\n{summary}");
}

#[test]
fn failures_of_a_turn_the_user_rejects_are_set_aside_not_blocked() {
    let messages = [
        user("Install framer-motion for the slide-in animation."),
        bash("1", "npm install framer-motion"),
        result(
            "1",
            "bash",
            "npm ERR! code ERESOLVE\nnpm ERR! ERESOLVE unable to resolve dependency tree\n\nCommand exited with code 1",
            true,
        ),
        assistant(
            "framer-motion 12 wants React 19. I'll install it with `--legacy-peer-deps`.",
            &[("2", "bash", json!({"command": "npm install framer-motion --legacy-peer-deps"}))],
        ),
        aborted(),
        user("no, don't force peer deps. do the slide with a tailwind transition"),
        assistant("Right. I'll animate with Tailwind's `transition-transform`.", &[]),
    ];
    let summary = summarize(&messages);
    assert!(!summary.contains("### Blocked"), "{summary}");
    assert!(!summary.contains("Resolve the failure"), "{summary}");
    assert!(!summary.contains("unresolved"), "{summary}");
    assert!(
        summary.contains("- Last error (of `npm install framer-motion`, before the user's correction): `npm ERR! code ERESOLVE`"),
        "{summary}"
    );
    assert!(!section_text(&summary, "## Key Decisions").contains("legacy-peer-deps"), "{summary}");
}

#[test]
fn a_correction_opening_the_next_part_sets_aside_the_failure_the_previous_summary_left() {
    let first = history(
        &[
            user("Install framer-motion."),
            bash("1", "npm install framer-motion"),
            result("1", "bash", "npm ERR! code ERESOLVE\n\nCommand exited with code 1", true),
            assistant(
                "framer-motion 12 wants React 19. I'll install it with `--legacy-peer-deps`.",
                &[],
            ),
        ],
        None,
    );
    assert!(first.contains("### Blocked"), "{first}");
    let second = history(
        &[
            user("no, don't force peer deps. use a tailwind transition"),
            assistant("Right. I'll use `transition-transform`.", &[]),
        ],
        Some(&first),
    );
    assert!(!second.contains("### Blocked"), "{second}");
    assert!(!second.contains("Resolve the failure"), "{second}");
    assert!(second.contains("Error seen (before the user's correction)"), "{second}");
    assert!(!section_text(&second, "## Key Decisions").contains("legacy-peer-deps"), "{second}");
    let rejected = section_text(&second, "## Constraints & Preferences");
    assert!(
        rejected.contains("Rejected by the user: framer-motion 12 wants React 19."),
        "{second}"
    );
    assert!(!rejected.contains("Resolve the failure"), "{second}");
}

#[test]
fn an_interrupted_step_is_labelled_and_its_plan_is_not_next() {
    let messages = [
        user("run the full backfill for april"),
        assistant(
            "Starting the April backfill. Next, I'll check the row counts.",
            &[("1", "bash", json!({"command": "python -m pipeline.backfill --start 2024-04-01"}))],
        ),
        aborted(),
    ];
    let summary = summarize(&messages);
    assert!(
        summary.contains(
            "- Last assistant step (interrupted by the user): Starting the April backfill.\n"
        ),
        "{summary}"
    );
    assert!(!summary.contains("## Next Steps"), "{summary}");
    assert!(!summary.contains("no result yet"), "{summary}");
}

#[test]
fn pi_checkbox_bullets_lose_their_boxes() {
    let previous = "## Goal\nBuild the cart drawer.\n\n## Progress\n### Done\n- [x] Created src/CartDrawer.tsx\n\n\
                    ### In Progress\n- [ ] Quantity stepper\n\n### Blocked\n- (none)\n\n## Key Decisions\n\
                    - **Portal**: rendered into #drawer-root";
    let summary = history(&[user("continue with the stepper")], Some(previous));
    assert!(summary.contains("- Created src/CartDrawer.tsx\n"), "{summary}");
    assert!(!summary.contains("[x]") && !summary.contains("[ ]"), "{summary}");
    assert!(!summary.contains("(none)"), "{summary}");
    assert_structure(&summary);
}

#[test]
fn a_finding_followed_by_an_action_is_a_decision_and_a_fix_keeps_its_cause() {
    assert_eq!(
        diagnosis_of("`setQuantity` stores whatever it gets. I'll clamp it at zero."),
        Some("`setQuantity` stores whatever it gets. I'll clamp it at zero.".to_owned())
    );
    assert_eq!(diagnosis_of("Let me look at the loader. I'll read it first."), None);
    assert_eq!(diagnosis_of("Understood. I'll revert it."), None);
    assert_eq!(diagnosis_of("I see the issue in the loader. I'll fix it."), None);
    assert_eq!(diagnosis_of("The patch applies cleanly now. I'll run the tests."), None);
    assert_eq!(
        decisions_of(
            "The race is in `allow`: it reads before locking. The fix is to hold `mu` throughout."
        ),
        vec![
            "The race is in `allow`: it reads before locking. The fix is to hold `mu` throughout."
        ]
    );
    let summary = summarize(&[
        user("The cart test fails."),
        assistant("`setQuantity` stores whatever it gets. I'll clamp it at zero.", &[]),
    ]);
    assert!(
        section_text(&summary, "## Key Decisions")
            .contains("`setQuantity` stores whatever it gets."),
        "{summary}"
    );
}

#[test]
fn a_fixed_command_is_one_done_item_with_its_latest_counts_and_its_error_once() {
    let messages = [
        user("Fix the parser."),
        bash("1", "cargo test"),
        result("1", "bash", "error[E0308]: mismatched types\n\nCommand exited with code 101", true),
        bash("2", "cargo test"),
        result("2", "bash", "test result: ok. 6 passed; 0 failed", false),
        bash("3", "cargo test"),
        result("3", "bash", "test result: ok. 7 passed; 0 failed", false),
        user("Now document it."),
    ];
    let summary = summarize(&messages);
    let done = bullets(&summary, "### Done");
    assert_eq!(
        done,
        vec![
            "`cargo test` passes now (7 passed; 0 failed; earlier failure: `error[E0308]: mismatched types`)"
        ],
        "{summary}"
    );
    assert_eq!(summary.matches("mismatched types").count(), 1, "{summary}");
}

#[test]
fn decisions_of_an_open_turn_are_the_current_approach_until_the_user_lets_them_stand() {
    let open = [
        user("Make the import faster."),
        assistant(
            "Parsing row by row is the bottleneck. I'll switch to pandas.read_csv.",
            &[("1", "edit", json!({"path": "requirements.txt"}))],
        ),
        result("1", "edit", "Successfully replaced text in requirements.txt.", false),
    ];
    let first = summarize(&open);
    assert!(
        bullets(&first, "### In Progress").contains(
            &"Current approach: Parsing row by row is the bottleneck. I'll switch to pandas.read_csv."
                .to_owned()
        ),
        "{first}"
    );
    assert!(!first.contains("## Key Decisions"), "{first}");
    // The user turns it down: never a decision.
    let rejected = history(
        &[
            user("No, that's wrong. We don't add dependencies."),
            assistant("Understood, I'll profile the stdlib reader.", &[]),
        ],
        Some(&first),
    );
    assert!(!section_text(&rejected, "## Key Decisions").contains("pandas"), "{rejected}");
    assert!(section_text(&rejected, "## Constraints & Preferences").contains("pandas.read_csv"));
    // The user carries on: it is a decision.
    let kept = history(&[user("Good, now add a progress bar.")], Some(&first));
    assert!(
        section_text(&kept, "## Key Decisions").contains("I'll switch to pandas.read_csv."),
        "{kept}"
    );
}

#[test]
fn a_carried_decision_a_recorded_rejection_covers_is_dropped() {
    let previous = "## Goal\n- Make the import faster.\n\n## Constraints & Preferences\n\
                    - User correction: No, that's wrong. (rejected: I'll replace the csv module with pandas.read_csv, which is faster.)\n\n\
                    ## Key Decisions\n- Parsing is the bottleneck. I'll replace the csv module with pandas.read_csv, which is faster.\n\
                    - After the user's correction: I'll profile the stdlib reader.\n\n\
                    ## Next Steps\n- I'll profile the stdlib reader.";
    let summary = history(&[user("Now add an OFX importer.")], Some(previous));
    let decisions = section_text(&summary, "## Key Decisions");
    assert!(!decisions.contains("pandas"), "{summary}");
    assert!(decisions.contains("I'll profile the stdlib reader."), "{summary}");
}

#[test]
fn carried_items_follow_a_later_move_and_command_statuses_keep_their_parentheses() {
    let previous = "## Progress\n### Done\n- Wrote `src/main/java/com/acme/orders/ProblemHandler.java`\n\n\
                    ## Critical Context\n- Commands run: `./gradlew test` (passed after 1 failed run(s)), `npm ci` (failed)";
    let summary = history(
        &[
            user("Rename the package."),
            bash("1", "git mv src/main/java/com/acme/orders src/main/java/com/acme/ordering"),
            result("1", "bash", "", false),
        ],
        Some(previous),
    );
    assert!(
        summary.contains("- Wrote `src/main/java/com/acme/ordering/ProblemHandler.java`"),
        "{summary}"
    );
    assert!(!summary.contains("com/acme/orders/ProblemHandler"), "{summary}");
    assert!(summary.contains("`./gradlew test` (passed after 1 failed run(s)), "), "{summary}");
    assert_eq!(
        commands_with_status("`a` (passed after 1 failed run(s)), `b` (failed)"),
        vec![
            ("a".to_owned(), "passed after 1 failed run(s)".to_owned()),
            ("b".to_owned(), "failed".to_owned())
        ]
    );
}

#[test]
fn a_request_that_introduces_a_paste_names_the_pasted_error() {
    let summary = summarize(&[
        user(
            "The nightly job failed with this:\n\nTraceback (most recent call last):\n  File \"/srv/a.py\", line 4, in run\n    x()\nValueError: bad amount",
        ),
        user("Then add a test."),
    ]);
    assert!(
        summary.contains(
            "- The nightly job failed with this: `ValueError: bad amount` at `/srv/a.py:4`\n"
        ),
        "{summary}"
    );
}

#[test]
fn an_earlier_fix_is_kept_when_the_same_command_is_fixed_again() {
    let previous = "## Progress\n### Done\n- `npm test` passes now (earlier failure: `error TS2353: Object literal`)";
    let summary = history(
        &[
            user("Add the CSV export."),
            bash("1", "npm test"),
            result(
                "1",
                "bash",
                "FAIL tests/csv.test.ts > orders columns\n\nCommand exited with code 1",
                true,
            ),
            bash("2", "npm test"),
            result("2", "bash", "Tests  16 passed (16)", false),
        ],
        Some(previous),
    );
    let done = section_text(&summary, "### Done");
    assert!(done.contains("earlier failure: `error TS2353: Object literal`"), "{summary}");
    assert!(
        done.contains("earlier failure: `FAIL tests/csv.test.ts > orders columns`"),
        "{summary}"
    );
}
