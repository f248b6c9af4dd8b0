//! The class "a command a shell runs for another": agents on Windows, in sandboxes and in
//! CI run every command through a shell with options of its own (`pwsh.exe -NoLogo
//! -Command '…'`, `powershell.exe -NoProfile -ExecutionPolicy Bypass -Command "…"`, `bash
//! --noprofile --norc -c '…'`, `cmd.exe /d /s /c "…"`). What ran is the command inside: a
//! lookup that found nothing is a lookup, not a failure to fix; a test run that failed
//! through the wrapper is settled when the same run passes later, wrapped another way or
//! not at all. Each family is one shell and its options, with three instances: a failed
//! lookup, a test run settled by a later pass, a build settled by a later pass.

use super::super::*;
use super::Instance;
use super::families::{BLOCKED, NEXT, edit, shell};

const CLASS: &str = "a command a shell runs for another";

/// One family: how the shell wraps a command (`{}` is the command), the way the later pass
/// is written (`{}` again; the bare command or the shell with other options), a lookup with
/// the error it ends with, a test run (command, failing output, passing output) and a build
/// (command, failing output, passing output).
struct Family {
    wrap: &'static str,
    later: &'static str,
    lookup: (&'static str, &'static str),
    test: (&'static str, &'static str, &'static str),
    build: (&'static str, &'static str, &'static str),
    file: &'static str,
}

fn wrapped(form: &str, command: &str) -> String {
    form.replacen("{}", command, 1)
}

fn instances(index: usize, family: Family) -> Vec<Instance> {
    let mut out = Vec::new();
    // 0: a lookup that found nothing, then the work goes on.
    let (lookup, error) = family.lookup;
    let lookup_line = wrapped(family.wrap, lookup);
    let messages = vec![
        user("Find where the retry limit is read before we change it."),
        shell(&format!("w{index}0a"), &lookup_line),
        result(&format!("w{index}0a"), "Bash", &format!("{error}\nExit code 1"), true),
        assistant("Nothing there; the limit must be read elsewhere.", &[]),
        user(&format!("Then set it in {} and move on.", family.file)),
        edit(&format!("w{index}0b"), family.file, "retries = 3", "retries = 5")[0].clone(),
        edit(&format!("w{index}0b"), family.file, "retries = 3", "retries = 5")[1].clone(),
        assistant(&format!("Set the retry limit to 5 in {}.", family.file), &[]),
    ];
    out.push(
        Instance::new(CLASS, index, messages)
            .absent(lookup, &[BLOCKED, NEXT])
            .absent(&lookup_line, &[BLOCKED, NEXT]),
    );
    // 1 and 2: a run that failed through the wrapper, a fix, then the same run passing.
    for (n, (command, failing, passing)) in [family.test, family.build].into_iter().enumerate() {
        let n = n + 1;
        let id = format!("w{index}{n}");
        let first = wrapped(family.wrap, command);
        let second = wrapped(family.later, command);
        let messages = vec![
            user(&format!("Run `{command}` and fix what fails.")),
            shell(&format!("{id}a"), &first),
            result(&format!("{id}a"), "Bash", &format!("{failing}\nExit code 1"), true),
            assistant("It fails; fixing the cause.", &[]),
            edit(&format!("{id}b"), family.file, "old_call()", "new_call()")[0].clone(),
            edit(&format!("{id}b"), family.file, "old_call()", "new_call()")[1].clone(),
            shell(&format!("{id}c"), &second),
            result(&format!("{id}c"), "Bash", passing, false),
            assistant("It passes now.", &[]),
            user("Good. Commit it."),
            shell(&format!("{id}d"), "git commit -am 'Fix the failing run'"),
            result(&format!("{id}d"), "Bash", "[main 4f2a9c1] Fix the failing run", false),
            assistant("Committed.", &[]),
        ];
        out.push(
            Instance::new(CLASS, index, messages)
                .absent(command, &[BLOCKED, NEXT])
                .absent(failing.lines().next().unwrap_or(failing), &[BLOCKED]),
        );
    }
    out
}

pub(super) fn commands_a_shell_runs() -> Vec<Instance> {
    let families = [
        Family {
            wrap: "pwsh.exe -NoLogo -Command '{}'",
            later: "pwsh.exe -NoLogo -NoProfile -Command '{}'",
            lookup: (
                "Get-ChildItem -Recurse -Filter *.config.ts src | Select-Object -First 20",
                "Get-ChildItem: Cannot find path 'C:\\work\\app\\src' because it does not exist.",
            ),
            test: (
                "npx vitest run src/retry.test.ts",
                "FAIL  src/retry.test.ts > retries five times\nAssertionError: expected 3 to be 5",
                " ✓ src/retry.test.ts (4 tests) 12ms\n Test Files  1 passed (1)\n      Tests  4 passed (4)",
            ),
            build: (
                "npm run build",
                "src/retry.ts(14,7): error TS2322: Type 'string' is not assignable to type 'number'.",
                "> app@1.0.0 build\n> tsc -p .\n",
            ),
            file: "src/retry.ts",
        },
        Family {
            wrap: "powershell.exe -NoProfile -ExecutionPolicy Bypass -Command \"{}\"",
            later: "{}",
            lookup: (
                "Select-String -Path .\\config\\*.json -Pattern retryLimit | Measure-Object",
                "Select-String: Cannot find path 'C:\\svc\\config' because it does not exist.",
            ),
            test: (
                "dotnet test Billing.Tests",
                "Failed Billing.Tests.RetryTests.RetriesFiveTimes [12 ms]\nFailed!  - Failed:     1, Passed:    17, Skipped:     0, Total:    18",
                "Passed!  - Failed:     0, Passed:    18, Skipped:     0, Total:    18",
            ),
            build: (
                "dotnet build Billing.sln",
                "Billing/RetryPolicy.cs(22,13): error CS0103: The name 'maxRetries' does not exist in the current context",
                "Build succeeded.\n    0 Warning(s)\n    0 Error(s)",
            ),
            file: "Billing/RetryPolicy.cs",
        },
        Family {
            wrap: "bash --noprofile --norc -c '{}'",
            later: "bash -lc '{}'",
            lookup: (
                "grep -rn 'retry_limit' config/ | head -5",
                "grep: config/: No such file or directory",
            ),
            test: (
                "pytest tests/test_retry.py -q",
                "FAILED tests/test_retry.py::test_retries_five_times - assert 3 == 5\n1 failed, 6 passed in 0.42s",
                "7 passed in 0.39s",
            ),
            build: (
                "python -m build",
                "error: Multiple top-level packages discovered in a flat-layout: ['retry', 'tests'].",
                "Successfully built retry-0.3.0.tar.gz and retry-0.3.0-py3-none-any.whl",
            ),
            file: "retry/policy.py",
        },
        Family {
            wrap: "cmd.exe /d /s /c \"{}\"",
            later: "{}",
            lookup: ("findstr /s /n retryLimit src\\*.java", "FINDSTR: Cannot open src\\*.java"),
            test: (
                "mvnw.cmd -q test -Dtest=RetryTest",
                "[ERROR] RetryTest.retriesFiveTimes:31 expected: <5> but was: <3>\n[ERROR] Tests run: 9, Failures: 1, Errors: 0, Skipped: 0",
                "[INFO] Tests run: 9, Failures: 0, Errors: 0, Skipped: 0\n[INFO] BUILD SUCCESS",
            ),
            build: (
                "mvnw.cmd -q package -DskipTests",
                "[ERROR] /C:/shop/src/main/java/shop/Retry.java:[18,9] cannot find symbol\n[ERROR]   symbol:   variable maxRetries",
                "[INFO] BUILD SUCCESS",
            ),
            file: "src/main/java/shop/Retry.java",
        },
        Family {
            wrap: "/bin/zsh -l -c '{}'",
            later: "{}",
            lookup: (
                "rg -n 'retryLimit(' Sources",
                "regex parse error:\n    retryLimit(\n              ^\nerror: unclosed group",
            ),
            test: (
                "swift test --filter RetryTests",
                "Test Case '-[AppTests.RetryTests testRetriesFiveTimes]' failed (0.003 seconds).\nExecuted 6 tests, with 1 failure (0 unexpected) in 0.021 seconds",
                "Executed 6 tests, with 0 failures (0 unexpected) in 0.019 seconds",
            ),
            build: (
                "swift build -c release",
                "Sources/App/Retry.swift:12:9: error: cannot find 'maxRetries' in scope",
                "Build complete! (4.12s)",
            ),
            file: "Sources/App/Retry.swift",
        },
        Family {
            wrap: "pwsh -NonInteractive -NoProfile -c \"{}\"",
            later: "pwsh -c \"{}\"",
            lookup: (
                "Get-Content .env | Where-Object { $_ -match 'RETRY' }",
                "Get-Content: Cannot find path 'D:\\api\\.env' because it does not exist.",
            ),
            test: (
                "go test ./internal/retry/...",
                "--- FAIL: TestRetriesFiveTimes (0.00s)\n    retry_test.go:21: got 3 attempts, want 5\nFAIL\tapi/internal/retry\t0.004s",
                "ok  \tapi/internal/retry\t0.003s",
            ),
            build: (
                "go build ./cmd/api",
                "internal/retry/policy.go:17:2: undefined: maxRetries",
                "",
            ),
            file: "internal/retry/policy.go",
        },
        Family {
            wrap: "sh -e -c '{}'",
            later: "sh -c '{}'",
            lookup: (
                "ls deploy/*.yaml | xargs grep -l retries",
                "ls: cannot access 'deploy/*.yaml': No such file or directory",
            ),
            test: (
                "cargo test -p retry",
                "test policy::tests::retries_five_times ... FAILED\ntest result: FAILED. 5 passed; 1 failed; 0 ignored",
                "test result: ok. 6 passed; 0 failed; 0 ignored",
            ),
            build: (
                "cargo build --release",
                "error[E0425]: cannot find value `max_retries` in this scope\n --> src/policy.rs:9:5",
                "    Finished `release` profile [optimized] target(s) in 9.84s",
            ),
            file: "src/policy.rs",
        },
        Family {
            wrap: "bash -e -o pipefail -c '{}'",
            later: "{}",
            lookup: (
                "find . -name 'retry*.rb' -path '*lib*' | head",
                "find: './lib': Permission denied",
            ),
            test: (
                "bundle exec rspec spec/retry_spec.rb",
                "Failures:\n  1) Retry retries five times\n     expected: 5\n          got: 3\n6 examples, 1 failure",
                "6 examples, 0 failures",
            ),
            build: (
                "bundle exec rake build",
                "rake aborted!\nNameError: uninitialized constant Retry::MAX_RETRIES",
                "retry 0.4.0 built to pkg/retry-0.4.0.gem.",
            ),
            file: "lib/retry.rb",
        },
        Family {
            wrap: "powershell -NoLogo -NonInteractive -Command \"{}\"",
            later: "powershell -Command \"{}\"",
            lookup: (
                "Get-ChildItem Env: | Where-Object Name -like '*RETRY*' | Format-Table",
                "Get-ChildItem: Cannot find drive. A drive with the name 'Env' does not exist.",
            ),
            test: (
                "npm test -- --runInBand retry",
                "FAIL src/retry.test.js\n  ● retries five times\n    Expected: 5\n    Received: 3\nTests:       1 failed, 8 passed, 9 total",
                "PASS src/retry.test.js\nTests:       9 passed, 9 total",
            ),
            build: (
                "npm run build",
                "ERROR in ./src/retry.js 4:0-27\nModule not found: Error: Can't resolve './limits' in 'C:\\web\\src'",
                "webpack 5.91.0 compiled successfully in 2315 ms",
            ),
            file: "src/retry.js",
        },
    ];
    let mut out = Vec::new();
    for (index, family) in families.into_iter().enumerate() {
        out.extend(instances(index, family));
    }
    out
}
