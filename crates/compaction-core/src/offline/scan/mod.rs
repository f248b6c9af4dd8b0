//! Command lines and their output: which commands only read (`command`), and what an
//! output says (its most telling error lines, test counts, the exit code pi appends) in any
//! of the ecosystems a session meets: Rust, TypeScript and npm, Python tracebacks and
//! pytest, Go builds, tests and the race detector, Java and Gradle, ESLint, ruff, mypy.
//!
//! Invariant: outputs are read line by line and only the lines kept are copied.

use super::text::*;

mod command;
pub(super) use command::*;

/// Whether a tool result says the user stopped the call rather than the call failing:
/// pi's `Command aborted`, Claude Code's `[Request interrupted by user…]` and its notice that
/// the user rejected the tool use. Such a call is neither progress nor a failure to fix.
pub(super) fn stopped_by_user<'a>(mut lines: impl Iterator<Item = &'a str>) -> bool {
    let Some(first) = lines.find(|line| !line.trim().is_empty()) else { return false };
    let first = first.trim();
    first == "Command aborted"
        || first.starts_with("[Request interrupted by user")
        || first.starts_with("The user doesn't want to proceed with this tool use")
}

/// What a command's output says: the first error lines (with their `-->` location) and
/// whether tests passed. Reads line by line and copies only the lines it keeps.
#[derive(Debug, Default, PartialEq)]
pub(super) struct OutputScan {
    /// Up to three error lines, verbatim in inline code, each followed by its location (or
    /// a panic's message) when the next line gives one.
    pub(super) errors: Vec<String>,
    /// The counts of the first `test result: ok` line (`7 passed; 0 failed`).
    pub(super) passed: Option<String>,
    /// A `test result: FAILED` line, or other evidence that tests failed.
    pub(super) tests_failed: bool,
    /// The runner's own lines that count the failures (`test result: FAILED. 41 passed; 5
    /// failed`, `Tests: 3 failed, 212 passed`), the first two, verbatim in inline code: the
    /// evidence of how a failing run ended.
    pub(super) failure_counts: Vec<String>,
    /// The exit code pi's bash tool appends to a failing command's output.
    pub(super) exit_code: Option<i64>,
}

pub(super) const ERROR_NOISE: [&str; 11] = [
    "error: could not compile",
    "error: aborting due to",
    "error: test failed",
    "error: build failed",
    "error: process didn't exit successfully",
    "npm err! lifecycle script",
    "npm err! error: command failed",
    "npm err! a complete log",
    "npm err! code elifecycle",
    "npm err! errno",
    "traceback (most recent call last)",
];

/// Whether the line opens with an exception name and a colon (`KeyError: 'x'`,
/// `decimal.InvalidOperation: …`, `TypeError: …`): a dotted identifier whose last part is
/// CamelCase.
fn exception_line(line: &str) -> bool {
    let Some((name, _)) = line.split_once(':') else { return false };
    let last = name.rsplit('.').next().unwrap_or(name);
    !name.is_empty()
        && name.chars().all(|c| c.is_alphanumeric() || c == '_' || c == '.')
        && last.starts_with(|c: char| c.is_ascii_uppercase())
        && last.chars().skip(1).any(|c| c.is_ascii_uppercase())
        && last.chars().any(|c| c.is_ascii_lowercase())
}

/// Whether the line is a compiler or linter diagnostic in the `path:line:column: message`
/// form (Go, gcc and clang, ruff, mypy with columns, shellcheck, ESLint's unix format), or
/// ESLint's "stylish" `line:column  error  message  rule`.
fn diagnostic_line(line: &str) -> bool {
    let numeric = |text: &str| !text.is_empty() && text.chars().all(|c| c.is_ascii_digit());
    let mut parts = line.splitn(4, ':');
    if let (Some(path), Some(row), Some(column), Some(message)) =
        (parts.next(), parts.next(), parts.next(), parts.next())
        && looks_like_path(path)
        && numeric(row)
        && numeric(column)
        && message.starts_with(' ')
        && !message.trim().is_empty()
        // A warning or a note is not an error.
        && !message.trim_start().starts_with("warning")
        && !message.trim_start().starts_with("note")
    {
        return true;
    }
    let mut words = line.split_whitespace();
    matches!(
        (words.next(), words.next()),
        (Some(place), Some("error"))
            if place.split_once(':').is_some_and(|(row, column)| numeric(row) && numeric(column))
    )
}

/// How telling an error line is: 0 for the root cause of a chained exception (Java's
/// `Caused by: …`), 1 for a specific error (a compiler diagnostic, an exception, a failed
/// assertion or test), 2 for a generic one (`npm ERR!`, `fatal:`).
fn error_rank(line: &str) -> u8 {
    let lower = line.to_lowercase();
    // Jest's `FAIL tests/a.test.ts` names only the file; its `● suite › test` the test.
    let file_only = lower
        .strip_prefix("fail ")
        .is_some_and(|rest| !rest.trim().is_empty() && !rest.trim().contains(char::is_whitespace));
    if lower.starts_with("caused by:") {
        0
    } else if file_only {
        2
    } else if lower.starts_with("error[")
        || lower.contains("error ts")
        || exception_line(line)
        || diagnostic_line(line)
        || lower.contains("panicked at")
        || lower.starts_with("panic:")
        || lower.starts_with("--- fail:")
        || lower.contains("data race")
        || lower.starts_with("● ")
        || lower.starts_with("assertion")
        || lower.starts_with("fail ")
        || lower.starts_with("failed ")
    {
        1
    } else {
        2
    }
}

pub(super) fn error_line(line: &str) -> bool {
    let trimmed = line.trim_start();
    // A log line states its status by its level: an `INFO` line that mentions an error
    // (`retrying: previous error: …`, `0 errors`) records no error, an `ERROR` line does.
    if let Some(error) = log_level(trimmed) {
        return error;
    }
    let lower = trimmed.to_lowercase();
    if ERROR_NOISE.iter().any(|noise| lower.starts_with(noise)) {
        return false;
    }
    // A test runner's progress line names tests, not failures (`test error_case ... ok`).
    if lower.starts_with("test ") && lower.contains(" ... ") {
        return false;
    }
    lower.starts_with("error[")
        || lower.contains("error ts")
        || exception_line(trimmed)
        || diagnostic_line(trimmed)
        || lower.starts_with("--- fail:")
        || lower.starts_with("warning: data race")
        || lower.starts_with("● ")
        || lower.contains("[error]")
        || lower.contains(": error ")
        || lower.starts_with("fail ")
        || (lower.starts_with("failed ") && lower.contains("::"))
        || lower.contains("enoent")
        || says_after(&lower, "error:")
        || lower.starts_with("error ")
        || lower.starts_with("fatal:")
        || lower.starts_with("panic:")
        || lower.starts_with("exception")
        || lower.contains("panicked at")
        || lower.starts_with("assertion")
        || lower.contains("command not found")
        || lower.contains("no such file or directory")
        || says_after(&lower, "error:")
        || says_after(&lower, "exception:")
        || lower.contains("err!")
}

/// The levels a logger marks a line with, the error levels first.
const ERROR_LEVELS: [&str; 5] = ["ERROR", "FATAL", "CRITICAL", "PANIC", "ERR"];
const OTHER_LEVELS: [&str; 7] = ["TRACE", "DEBUG", "INFO", "NOTICE", "WARN", "WARNING", "VERBOSE"];

/// The level a log line states, when it is a log line: it opens with a timestamp (a date, a
/// time, possibly in brackets) and names a level as a word of its own in capitals (the
/// first such word), or it carries `level=…` (logfmt) or `"level":"…"` (JSON logs). `Some(true)`
/// for an error level (`ERROR`, `FATAL`, `CRITICAL`, `PANIC`, `ERR`), `Some(false)` for
/// another (`INFO`, `WARN`, `DEBUG`…): the logger's own word for what the line records.
pub(super) fn log_level(line: &str) -> Option<bool> {
    let lower = line.to_lowercase();
    for (marker, quote) in [("level=", ""), ("\"level\":\"", "\"")] {
        if let Some(at) = lower.find(marker) {
            let rest = &lower[at + marker.len()..];
            let level: String = rest
                .trim_start_matches(quote)
                .chars()
                .take_while(char::is_ascii_alphabetic)
                .collect();
            if let Some(error) = level_is_error(&level.to_uppercase()) {
                return Some(error);
            }
        }
    }
    let body = line.trim_start_matches(['[', '(', ' ']);
    let digits = body.chars().take_while(char::is_ascii_digit).count();
    let stamped = matches!(digits, 2 | 4) && body[digits..].starts_with(['-', ':', '/', '.']);
    if !stamped {
        return None;
    }
    line.split(|c: char| c.is_whitespace() || matches!(c, '[' | ']' | '|' | ':' | '(' | ')'))
        .find_map(level_is_error)
}

/// Whether `word` (in capitals) names an error level (`Some(true)`), another level
/// (`Some(false)`), or no level.
fn level_is_error(word: &str) -> Option<bool> {
    if ERROR_LEVELS.contains(&word) {
        Some(true)
    } else if OTHER_LEVELS.contains(&word) {
        Some(false)
    } else {
        None
    }
}

/// Whether `marker` stands in `lower` with something after it on the line. A line that ends
/// on it ("here is the error:", a traceback's source line `except Exception:`) introduces
/// what follows, and is no error message itself.
fn says_after(lower: &str, marker: &str) -> bool {
    lower.match_indices(marker).any(|(at, _)| !lower[at + marker.len()..].trim().is_empty())
}

/// How many tests a test runner's summary line says failed: `8 failed, 524 passed`
/// (pytest, Jest, Vitest's `2 failed | 14 passed`), `3 failing` (Mocha), `10 examples, 2
/// failures` (RSpec), `Tests run: 10, Failures: 2, Errors: 0` (JUnit, Maven), `5 tests
/// completed, 2 failed` (Gradle). `None` when the line is no such summary: it must speak of
/// tests, passes, a total or examples, so a compiler's `3 errors` is read elsewhere.
pub(super) fn failed_test_count(line: &str) -> Option<u64> {
    let lower = line.to_lowercase();
    let summary = ["pass", "test", "total", "example", "spec"].iter().any(|w| lower.contains(w));
    if !summary {
        return None;
    }
    let words: Vec<&str> = lower
        .split(|c: char| c.is_whitespace() || matches!(c, ',' | '|' | ';' | '(' | ')' | '='))
        .filter(|word| !word.is_empty())
        .collect();
    let is_failure = |word: &str| {
        let word = word.trim_end_matches([':', '.']);
        word.starts_with("fail") || word == "error" || word == "errors"
    };
    let mut found = None;
    for (index, word) in words.iter().enumerate() {
        // `8 failed`, `2 failures`, `1 error`.
        if let Ok(count) = word.parse::<u64>()
            && words.get(index + 1).is_some_and(|next| !next.ends_with(':') && is_failure(next))
        {
            *found.get_or_insert(0) += count;
        }
        // `Failures: 2`, `failed: 1`.
        if word.ends_with(':')
            && is_failure(word)
            && let Some(count) = words.get(index + 1).and_then(|next| next.parse::<u64>().ok())
        {
            *found.get_or_insert(0) += count;
        }
    }
    found
}

pub(super) fn scan_output<'a>(lines: impl IntoIterator<Item = &'a str>) -> OutputScan {
    let mut scan = OutputScan::default();
    let mut lines = lines.into_iter().peekable();
    // The innermost `File "…", line N` of a Python traceback, for the exception line.
    let mut traceback_location: Option<String> = None;
    let mut ranks: Vec<u8> = Vec::new();
    let mut shapes: Vec<String> = Vec::new();
    while let Some(line) = lines.next() {
        let mut trimmed = line.trim();
        if trimmed.is_empty() {
            continue;
        }
        if let Some(rest) = trimmed.strip_prefix("File \"")
            && let Some((file, tail)) = rest.split_once('"')
        {
            let number: String = tail
                .trim_start_matches(", line ")
                .chars()
                .take_while(char::is_ascii_digit)
                .collect();
            // The innermost frame of the project's own code: library frames say where the
            // error surfaced, not what to fix.
            let library = ["site-packages/", "dist-packages/", "node_modules/", "<frozen"]
                .iter()
                .any(|marker| file.contains(marker));
            if !library || traceback_location.is_none() {
                traceback_location = Some(if number.is_empty() {
                    file.to_owned()
                } else {
                    format!("{file}:{number}")
                });
            }
            continue;
        }
        // pytest marks the failing line of an assertion with `E   `.
        if let Some(rest) = trimmed.strip_prefix("E ") {
            trimmed = rest.trim_start();
        }
        if let Some(rest) = trimmed.strip_prefix("test result: ") {
            if rest.starts_with("ok") {
                if scan.passed.is_none() {
                    let counts = rest.trim_start_matches("ok").trim_start_matches(['.', ' ']);
                    let counts: Vec<&str> = counts.split(';').map(str::trim).take(2).collect();
                    scan.passed = Some(clip(&counts.join("; "), 80));
                }
            } else if rest.starts_with("FAILED") {
                scan.tests_failed = true;
                if scan.failure_counts.len() < 2 {
                    scan.failure_counts.push(code(&clip(trimmed, 120)));
                }
            }
            continue;
        }
        if let Some(code) = exit_code_of(trimmed) {
            scan.exit_code = Some(code);
            continue;
        }
        match failed_test_count(trimmed) {
            Some(count) if count > 0 => {
                scan.tests_failed = true;
                if scan.failure_counts.len() < 2 {
                    scan.failure_counts.push(code(&clip(trimmed, 120)));
                }
            }
            Some(_) | None if scan.passed.is_none() && passing_summary(trimmed) => {
                scan.passed = Some(clip(trimmed, 80));
            }
            Some(_) | None => {}
        }
        if scan.errors.len() < 6 && error_line(trimmed) {
            let mut error = code(&clip(trimmed, 240));
            if exception_line(trimmed)
                && let Some(location) = traceback_location.take()
            {
                error = format!("{error} at {}", code(&location));
            }
            let panicked = trimmed.contains("panicked at");
            let failed_test = trimmed.starts_with("--- FAIL:");
            // The location follows on the next line (`--> file:line`), or for a panic, the
            // message does, and for a failed Go test its indented first message.
            if let Some(next_line) = lines.peek() {
                let next = next_line.trim();
                if let Some(location) = next.strip_prefix("-->") {
                    error = format!("{error} at {}", code(location.trim()));
                } else if (panicked && !next.is_empty())
                    || (failed_test
                        && next_line.starts_with([' ', '\t'])
                        && !next.is_empty()
                        && !next.starts_with("--- "))
                {
                    error = format!("{error} {}", code(&clip(next, 160)));
                }
            }
            // The same error again (a log repeating it under new timestamps): its first
            // occurrence stands for all, so the lines kept name different errors.
            let shape = without_stamp(&error).to_owned();
            if !shapes.contains(&shape) {
                shapes.push(shape);
                scan.errors.push(error);
                ranks.push(error_rank(trimmed));
            }
        }
    }
    // The most telling errors first, in order of appearance; at most three.
    let mut ranked: Vec<(u8, String)> = ranks.into_iter().zip(scan.errors).collect();
    ranked.sort_by_key(|(rank, _)| *rank);
    scan.errors = ranked.into_iter().map(|(_, error)| error).take(3).collect();
    scan
}

/// `text` without the timestamp it opens with (the leading words made of digits, the
/// marks dates and times use and `T`/`Z`): two log lines that differ only in their stamp
/// are the same line repeated.
fn without_stamp(text: &str) -> &str {
    let mut rest = text.trim_start_matches('`');
    loop {
        let word = rest.split_whitespace().next().unwrap_or("");
        let stamp = word.chars().any(|c| c.is_ascii_digit())
            && word.chars().all(|c| c.is_ascii_digit() || "-:/.,+[]()TZ".contains(c));
        if !stamp {
            return rest;
        }
        rest = rest.trim_start()[word.len()..].trim_start();
    }
}

/// Reads pi's "Command exited with code N" trailer.
pub(super) fn exit_code_of(line: &str) -> Option<i64> {
    let lower = line.to_lowercase();
    // Claude Code's "Exit code 1" line.
    if let Some(rest) = lower.strip_prefix("exit code ")
        && let Ok(code) = rest.trim().parse()
    {
        return Some(code);
    }
    let at = lower.find("exited with code ")?;
    let digits: String = lower[at + "exited with code ".len()..]
        .chars()
        .take_while(|c| c.is_ascii_digit() || *c == '-')
        .collect();
    digits.parse().ok()
}

/// Whether a line is a test runner's own summary of a run in which tests passed and none
/// failed: `536 passed in 41.2s` (pytest), `Tests  212 passed (212)` (Vitest), `Tests: 9
/// passed, 9 total` (Jest), `ok example.com/app 0.4s` (tab-separated) (go test), `OK (12 tests)` (JUnit).
pub(super) fn passing_summary(line: &str) -> bool {
    let lower = line.to_lowercase();
    if failed_test_count(line).is_some_and(|count| count > 0) {
        return false;
    }
    let words: Vec<&str> = lower.split(|c: char| c.is_whitespace() || c == ',').collect();
    let counted_pass = words.windows(2).any(|pair| {
        pair[0].parse::<u64>().is_ok_and(|n| n > 0)
            && (pair[1].starts_with("passed") || pair[1].starts_with("passing"))
    });
    let go_ok = lower.starts_with("ok ") && line.contains('\t');
    let junit_ok = lower.starts_with("ok (") && lower.contains(" test");
    counted_pass || go_ok || junit_ok
}
