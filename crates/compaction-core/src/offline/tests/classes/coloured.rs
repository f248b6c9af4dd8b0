//! The class "output as the terminal colours it": compilers, test runners and loggers
//! write terminal escape sequences (SGR colours and styles, `ESC [ … m`) into what a tool
//! returns when they think they talk to a terminal, and agents keep those bytes in the
//! transcript (a third of the real dev transcripts hold some). A resuming agent needs what
//! the output says (the error a build printed, the error a log recorded among lines that
//! only mention errors, the pass that settled a failure) and no control bytes it cannot
//! read. Each family is one shape (a failing run, a log read, a failure a later run
//! settles) with one tool's colouring, with three instances.

use super::super::*;
use super::Instance;
use super::families::{edit, filler, shell};

const CLASS: &str = "output as the terminal colours it";

const RESET: &str = "\x1b[0m";

fn red(text: &str) -> String {
    format!("\x1b[31m{text}\x1b[39m")
}

fn green(text: &str) -> String {
    format!("\x1b[32m{text}\x1b[39m")
}

fn bold(text: &str) -> String {
    format!("\x1b[1m{text}\x1b[22m")
}

fn dim(text: &str) -> String {
    format!("\x1b[2m{text}{RESET}")
}

/// The checks every instance shares: no control byte of the output reaches the summary.
fn no_controls(instance: Instance) -> Instance {
    instance.never_current(&["\x1b"], &[])
}

/// What one instance runs and what a probe asks of it.
struct Case {
    /// The user's request that starts the work.
    request: &'static str,
    /// The command, its coloured output, and whether the tool reported an error.
    command: &'static str,
    output: String,
    /// A file the work edits before the run.
    file: &'static str,
    /// The words a summary line about the run must hold, with the run's subject.
    subject: &'static str,
    words: &'static str,
}

/// A run that fails: the error the coloured output gives is what the next step works on.
fn failing(index: usize, cases: [Case; 3]) -> Vec<Instance> {
    let mut out = Vec::new();
    for (n, case) in cases.into_iter().enumerate() {
        let id = format!("c{index}{n}");
        let mut messages = vec![user(case.request)];
        messages.extend(edit(&format!("{id}e"), case.file, "old", "new"));
        messages.push(shell(&format!("{id}r"), case.command));
        messages.push(result(&format!("{id}r"), "Bash", &case.output, true));
        messages.push(assistant("The run fails; I'll look at the error next.", &[]));
        let mut all = filler(1 + n, index);
        all.splice(0..0, messages);
        out.push(no_controls(Instance::new(CLASS, index, all).expect(&[case.subject], case.words)));
    }
    out
}

/// A log read: among lines that mention errors at a lower level, and lines that repeat,
/// the one line the logger recorded as an error names the cause; a config fix follows.
fn log_read(index: usize, cases: [Case; 3]) -> Vec<Instance> {
    let mut out = Vec::new();
    for (n, case) in cases.into_iter().enumerate() {
        let id = format!("l{index}{n}");
        let mut messages = vec![user(case.request)];
        messages.push(shell(&format!("{id}r"), case.command));
        messages.push(result(&format!("{id}r"), "Bash", &case.output, false));
        messages.push(assistant("Found it in the log; adjusting the configuration.", &[]));
        messages.extend(edit(&format!("{id}e"), case.file, "old", "new"));
        messages
            .push(assistant("Updated the configuration; restart the service to apply it.", &[]));
        messages.extend(filler(1 + n, index));
        out.push(no_controls(
            Instance::new(CLASS, index, messages).expect(&[case.subject], case.words),
        ));
    }
    out
}

/// A run that fails, an edit, and the same run passing with a coloured summary: the pass
/// settles the failure, and its counts are the evidence.
fn settled(index: usize, cases: [(Case, String); 3]) -> Vec<Instance> {
    let mut out = Vec::new();
    for (n, (case, passing)) in cases.into_iter().enumerate() {
        let id = format!("s{index}{n}");
        let mut messages = vec![user(case.request)];
        messages.push(shell(&format!("{id}a"), case.command));
        messages.push(result(&format!("{id}a"), "Bash", &case.output, true));
        messages.extend(edit(&format!("{id}e"), case.file, "old", "new"));
        messages.push(shell(&format!("{id}b"), case.command));
        messages.push(result(&format!("{id}b"), "Bash", &passing, false));
        messages.push(assistant("All green now.", &[]));
        messages.extend(filler(1 + n, index));
        out.push(no_controls(
            Instance::new(CLASS, index, messages)
                .expect(&[case.subject], case.words)
                .never_current(&[case.command], &["Blocked"]),
        ));
    }
    out
}

pub(super) fn coloured_outputs() -> Vec<Instance> {
    let mut out = Vec::new();
    // Family index / 3 is the shape, so each part has every shape.
    // 0: cargo's diagnostics, bold and coloured per part.
    let cargo = |code: &str, message: &str, place: &str| {
        format!(
            "{}{}{}\n  {}{}\n\n{} {}",
            bold(&red(&format!("error[{code}]"))),
            bold(&format!(": {message}")),
            RESET,
            bold("\x1b[38;5;12m--> \x1b[0m"),
            place,
            bold(&red("error")),
            bold(": could not compile `ledger` (lib) due to 1 previous error"),
        )
    };
    out.extend(failing(
        0,
        [
            Case {
                request: "Make Amount generic over the currency.",
                command: "cargo build",
                output: cargo("E0308", "mismatched types", "src/amount.rs:41:17"),
                file: "src/amount.rs",
                subject: "cargo build",
                words: "mismatched types",
            },
            Case {
                request: "Store the ledger entries in a BTreeMap keyed by date.",
                command: "cargo check --all-targets",
                output: cargo(
                    "E0277",
                    "the trait bound `Entry: Ord` is not satisfied",
                    "src/ledger.rs:88:9",
                ),
                file: "src/ledger.rs",
                subject: "cargo check",
                words: "`Entry: Ord` is not satisfied",
            },
            Case {
                request: "Borrow the journal instead of cloning it in post().",
                command: "cargo build --release",
                output: cargo(
                    "E0502",
                    "cannot borrow `journal` as mutable because it is also borrowed as immutable",
                    "src/post.rs:23:5",
                ),
                file: "src/post.rs",
                subject: "cargo build",
                words: "cannot borrow `journal` as mutable",
            },
        ],
    ));
    // 1: tsc --pretty: the path in cyan, the code in grey, the word "error" in red.
    let tsc = |path: &str, row: u32, code: &str, message: &str| {
        format!(
            "\x1b[96m{path}\x1b[0m:\x1b[93m{row}\x1b[0m:\x1b[93m7\x1b[0m - {} \x1b[90mTS{code}: \x1b[0m{message}\n\n\x1b[7m{row}\x1b[0m     const total = items.reduce(sum);\n\nFound 1 error in {path}\x1b[90m:{row}\x1b[0m",
            red("error")
        )
    };
    out.extend(failing(
        1,
        [
            Case {
                request: "Add a discount field to the cart items.",
                command: "npx tsc --noEmit",
                output: tsc(
                    "src/cart.ts",
                    52,
                    "2339",
                    "Property 'discount' does not exist on type 'CartItem'.",
                ),
                file: "src/cart.ts",
                subject: "tsc",
                words: "Property 'discount' does not exist on type 'CartItem'",
            },
            Case {
                request: "Make the checkout total a number, not a string.",
                command: "npm run typecheck",
                output: tsc(
                    "src/checkout.ts",
                    17,
                    "2322",
                    "Type 'string' is not assignable to type 'number'.",
                ),
                file: "src/checkout.ts",
                subject: "typecheck",
                words: "Type 'string' is not assignable to type 'number'",
            },
            Case {
                request: "Pass the locale to formatPrice everywhere.",
                command: "pnpm tsc -p tsconfig.build.json",
                output: tsc("src/price.ts", 9, "2554", "Expected 2 arguments, but got 1."),
                file: "src/price.ts",
                subject: "tsc",
                words: "Expected 2 arguments, but got 1",
            },
        ],
    ));
    // 2: gcc and go vet: the location in bold, "error:" in bold red.
    let gcc = |place: &str, message: &str| {
        format!(
            "{}{} {}{} {}\n   12 |   return buf;\n      |          ^~~\ncompilation terminated.",
            bold(place),
            RESET,
            bold(&red("error:")),
            RESET,
            message
        )
    };
    out.extend(failing(
        2,
        [
            Case {
                request: "Return the parsed header from read_header.",
                command: "make",
                output: gcc("src/header.c:12:10:", "'buf' undeclared (first use in this function)"),
                file: "src/header.c",
                subject: "make",
                words: "'buf' undeclared",
            },
            Case {
                request: "Use the new ring buffer in the reader.",
                command: "gcc -Wall -o reader src/reader.c src/ring.c",
                output: gcc("src/reader.c:40:3:", "implicit declaration of function 'ring_push'"),
                file: "src/reader.c",
                subject: "gcc",
                words: "implicit declaration of function 'ring_push'",
            },
            Case {
                request: "Switch the tokenizer to size_t indices.",
                command: "cmake --build build",
                output: gcc(
                    "src/tokenizer.c:77:15:",
                    "conflicting types for 'next_token'; have 'size_t(struct lexer *)'",
                ),
                file: "src/tokenizer.c",
                subject: "cmake --build",
                words: "conflicting types for 'next_token'",
            },
        ],
    ));
    // 3: Rust `tracing` logs: a dim timestamp, the level coloured; INFO lines that mention
    // errors, lines that repeat, one ERROR line with the cause.
    let tracing = |noise: &str, cause: &str| {
        let info = |at: &str, text: &str| {
            format!("{} {} {text}", dim(&format!("2025-10-03T22:{at}Z")), green(" INFO"))
        };
        let mut lines = Vec::new();
        for at in ["38:01.120331", "38:04.554949", "38:09.004364", "38:15.062538"] {
            lines.push(info(at, noise));
        }
        lines.push(format!("{} {} {cause}", dim("2025-10-03T22:38:52.280033Z"), red("ERROR")));
        lines.push(info("39:00.100200", "aggregated 23 tools from 1 servers"));
        lines.join("\n")
    };
    out.extend(log_read(
        3,
        [
            Case {
                request: "The MCP tools still don't show up. Check the TUI log.",
                command: "tail -n 50 log/tui.log",
                output: tracing(
                    "ERR: No such file or directory (os error 2)",
                    "MCP client for `tracker` failed to start: Permission denied (os error 13)",
                ),
                file: "config.toml",
                subject: "tui.log",
                words: "Permission denied (os error 13)",
            },
            Case {
                request: "The sync daemon exits right after start. What does its log say?",
                command: "tail -n 80 /var/log/syncd.log",
                output: tracing(
                    "retrying: previous error: connection reset by peer",
                    "store open failed: database is locked",
                ),
                file: "syncd.toml",
                subject: "syncd.log",
                words: "database is locked",
            },
            Case {
                request: "Why does the indexer keep restarting? Look at the logs.",
                command: "grep -n indexer logs/server.log | tail -40",
                output: tracing(
                    "indexer: skipped 0 files with errors",
                    "indexer panicked: index out of bounds: the len is 3 but the index is 7",
                ),
                file: "indexer.toml",
                subject: "server.log",
                words: "the len is 3 but the index is 7",
            },
        ],
    ));
    // 4: Python's logging through colorlog: the whole line coloured by level.
    let colorlog = |noise: &str, cause: &str| {
        let mut lines = Vec::new();
        for second in ["01,112", "03,530", "07,918"] {
            lines.push(format!("\x1b[32m2025-03-01 10:00:{second} INFO worker: {noise}{RESET}"));
        }
        lines.push(format!("\x1b[33m2025-03-01 10:00:08,004 WARNING worker: slow start{RESET}"));
        lines.push(format!("\x1b[31m2025-03-01 10:00:09,441 ERROR worker: {cause}{RESET}"));
        lines.join("\n")
    };
    out.extend(log_read(
        4,
        [
            Case {
                request: "Celery workers don't pick up tasks. Check the worker log.",
                command: "tail -n 40 logs/celery.log",
                output: colorlog(
                    "heartbeat ok, 0 errors in last window",
                    "Cannot connect to amqp://guest@rabbit:5672//: [Errno 111] Connection refused",
                ),
                file: "celeryconfig.py",
                subject: "celery.log",
                words: "[Errno 111] Connection refused",
            },
            Case {
                request: "The importer job fails every night. Read its log.",
                command: "tail -n 100 /var/log/importer/importer.log",
                output: colorlog(
                    "retry policy: on error wait 30s",
                    "UnicodeDecodeError: 'utf-8' codec can't decode byte 0xe9 in position 14",
                ),
                file: "importer/settings.py",
                subject: "importer.log",
                words: "can't decode byte 0xe9",
            },
            Case {
                request: "Emails are not being sent. What's in the mailer log?",
                command: "tail -n 60 logs/mailer.log",
                output: colorlog(
                    "queue drained, error count reset",
                    "SMTPAuthenticationError: (535, b'5.7.8 Username and Password not accepted')",
                ),
                file: "mailer/config.py",
                subject: "mailer.log",
                words: "Username and Password not accepted",
            },
        ],
    ));
    // 5: Node's pino-pretty: a bracketed time, the level coloured, the pid.
    let pino = |noise: &str, cause: &str| {
        let mut lines = Vec::new();
        for at in ["12:00:01.101", "12:00:01.945", "12:00:02.388"] {
            lines.push(format!("[{at}] {} (4121): {noise}", green("INFO")));
        }
        lines.push(format!("[12:00:02.514] {} (4121): {cause}", red("ERROR")));
        lines.push(format!("[12:00:02.520] {} (4121): shutting down", green("INFO")));
        lines.join("\n")
    };
    out.extend(log_read(
        5,
        [
            Case {
                request: "The API container exits on start. Check the logs.",
                command: "docker logs --tail 50 api",
                output: pino(
                    "request failed handler registered for errors",
                    "listen EACCES: permission denied 0.0.0.0:80",
                ),
                file: "docker-compose.yml",
                subject: "docker logs",
                words: "listen EACCES: permission denied 0.0.0.0:80",
            },
            Case {
                request: "Payments webhooks are failing. Look at the server output.",
                command: "tail -n 80 logs/server.log",
                output: pino(
                    "error tracking enabled",
                    "No signatures found matching the expected signature for payload",
                ),
                file: "src/webhooks.ts",
                subject: "server.log",
                words: "No signatures found matching the expected signature",
            },
            Case {
                request: "The scheduler never runs jobs. Check its log.",
                command: "tail -n 40 logs/scheduler.log",
                output: pino(
                    "cron parser ready, errors: none",
                    "Invalid cron expression \"*/5 * * *\": expected 5 fields",
                ),
                file: "scheduler.config.js",
                subject: "scheduler.log",
                words: "expected 5 fields",
            },
        ],
    ));
    // 6: pytest with colour: red FAILED lines and summary, then a green pass.
    let pytest_fail = |test: &str, failed: u32, passed: u32| {
        format!(
            "{}\n{}",
            red(&format!("FAILED {test} - AssertionError: assert 3 == 4")),
            red(&format!(
                "{} {failed} failed, {passed} passed in 0.91s {}",
                "=".repeat(8),
                "=".repeat(8)
            ))
        )
    };
    let pytest_pass = |passed: u32| {
        format!(
            "\x1b[32m{} \x1b[32m\x1b[1m{passed} passed\x1b[0m\x1b[32m in 0.84s {}\x1b[0m",
            "=".repeat(8),
            "=".repeat(8)
        )
    };
    out.extend(settled(
        6,
        [
            (
                Case {
                    request: "Fix the failing invoice tests.",
                    command: "pytest tests/test_invoice.py",
                    output: pytest_fail("tests/test_invoice.py::test_total", 1, 11),
                    file: "billing/invoice.py",
                    subject: "pytest",
                    words: "12 passed",
                },
                pytest_pass(12),
            ),
            (
                Case {
                    request: "The rounding tests broke after the Decimal change; fix them.",
                    command: "python -m pytest -q tests/test_rounding.py",
                    output: pytest_fail("tests/test_rounding.py::test_half_even", 2, 7),
                    file: "billing/rounding.py",
                    subject: "pytest",
                    words: "9 passed",
                },
                pytest_pass(9),
            ),
            (
                Case {
                    request: "Make the CSV export tests pass again.",
                    command: "pytest tests/export",
                    output: pytest_fail("tests/export/test_csv.py::test_header", 1, 23),
                    file: "export/csv.py",
                    subject: "pytest",
                    words: "24 passed",
                },
                pytest_pass(24),
            ),
        ],
    ));
    // 7: Jest: bold labels, red and green counts.
    let jest = |failed: u32, passed: u32| {
        let counts = if failed > 0 {
            format!(
                "{}, {}, {} total",
                bold(&red(&format!("{failed} failed"))),
                bold(&green(&format!("{passed} passed"))),
                failed + passed
            )
        } else {
            format!("{}, {passed} total", bold(&green(&format!("{passed} passed"))))
        };
        format!("{}       {counts}\n{}        0.812 s", bold("Tests:"), bold("Time:"))
    };
    out.extend(settled(
        7,
        [
            (
                Case {
                    request: "Fix the cart reducer tests.",
                    command: "npx jest src/cart",
                    output: format!("{} src/cart/reducer.test.ts\n{}", red("FAIL"), jest(2, 14)),
                    file: "src/cart/reducer.ts",
                    subject: "jest",
                    words: "16 passed",
                },
                jest(0, 16),
            ),
            (
                Case {
                    request: "The date formatting tests fail in CI; fix them.",
                    command: "npm test -- src/format",
                    output: format!("{} src/format/date.test.ts\n{}", red("FAIL"), jest(1, 5)),
                    file: "src/format/date.ts",
                    subject: "npm test",
                    words: "6 passed",
                },
                jest(0, 6),
            ),
            (
                Case {
                    request: "Make the auth hook tests green.",
                    command: "pnpm jest src/hooks/useAuth",
                    output: format!("{} src/hooks/useAuth.test.tsx\n{}", red("FAIL"), jest(3, 8)),
                    file: "src/hooks/useAuth.ts",
                    subject: "jest",
                    words: "11 passed",
                },
                jest(0, 11),
            ),
        ],
    ));
    // 8: cargo test: `test result:` with a coloured verdict.
    let cargo_test = |failed: u32, passed: u32| {
        let verdict = if failed > 0 { red("FAILED") } else { green("ok") };
        format!(
            "running {} tests\ntest result: {verdict}. {passed} passed; {failed} failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.03s",
            passed + failed
        )
    };
    out.extend(settled(
        8,
        [
            (
                Case {
                    request: "Fix the parser tests.",
                    command: "cargo test -p parser",
                    output: cargo_test(2, 29),
                    file: "parser/src/lib.rs",
                    subject: "cargo test",
                    words: "31 passed",
                },
                cargo_test(0, 31),
            ),
            (
                Case {
                    request: "The date tests fail after the chrono upgrade; fix them.",
                    command: "cargo test dates",
                    output: cargo_test(1, 12),
                    file: "src/dates.rs",
                    subject: "cargo test",
                    words: "13 passed",
                },
                cargo_test(0, 13),
            ),
            (
                Case {
                    request: "Make the storage tests pass.",
                    command: "cargo test --package storage",
                    output: cargo_test(4, 40),
                    file: "storage/src/lib.rs",
                    subject: "cargo test",
                    words: "44 passed",
                },
                cargo_test(0, 44),
            ),
        ],
    ));
    out
}
