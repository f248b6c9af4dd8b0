//! Classifiers of one piece of text: what a user message asks and requires, what an
//! assistant text decides and plans, what a command's output says.
//!
//! Invariant: each extractor reads only the text it is given and returns sentences or
//! lines copied from it (clipped), never invented wording.

use super::text::*;

/// The request a user message makes: its first one or two sentences, clipped.
pub(super) fn request_of(text: &str) -> Option<String> {
    let mut request = String::new();
    for sentence in sentences(head(text, 8_000)) {
        if request.is_empty() && is_acknowledgement(&sentence) {
            continue;
        }
        if !request.is_empty()
            && (char_len(&request) >= 120 || char_len(&request) + char_len(&sentence) > 260)
        {
            break;
        }
        if !request.is_empty() {
            request.push(' ');
        }
        request.push_str(&sentence);
    }
    if request.is_empty() {
        return None;
    }
    Some(clip(&request, 260))
}

/// A short opener such as "Great, thanks." that carries no request.
pub(super) fn is_acknowledgement(sentence: &str) -> bool {
    const OPENERS: [&str; 10] = [
        "great",
        "thanks",
        "thank you",
        "ok",
        "okay",
        "nice",
        "perfect",
        "cool",
        "good",
        "awesome",
    ];
    let lower = sentence.to_lowercase();
    char_len(&lower) <= 30
        && OPENERS.iter().any(|opener| {
            lower.strip_prefix(opener).is_some_and(|rest| {
                rest.chars().all(|c| c.is_whitespace() || c.is_ascii_punctuation())
                    || rest.starts_with(", ")
            })
        })
}

pub(super) const IMPERATIVE_STARTS: [&str; 22] = [
    "always ",
    "never ",
    "don't ",
    "dont ",
    "do not ",
    "use ",
    "make sure ",
    "prefer ",
    "must ",
    "avoid ",
    "keep ",
    "only ",
    "ensure ",
    "stick to ",
    "no ",
    "stop ",
    "remember ",
    "we must ",
    "you must ",
    "you should ",
    "we should ",
    "should ",
];

pub(super) const IMPERATIVE_ANYWHERE: [&str; 8] = [
    " must ",
    " must not ",
    " never ",
    " always ",
    " don't ",
    " do not ",
    " make sure ",
    " instead of ",
];

pub(super) const IMPERATIVE_CJK: [&str; 14] = [
    "不要",
    "必须",
    "务必",
    "总是",
    "永远",
    "别",
    "一定要",
    "请勿",
    "禁止",
    "ください",
    "しないで",
    "必ず",
    "반드시",
    "하지 마",
];

/// The user's rules and preferences: imperative sentences.
pub(super) fn constraints_of(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for sentence in sentences(head(text, 8_000)) {
        let lower = sentence.to_lowercase();
        let lower = lower.trim_start_matches(['-', '*', ' ']);
        let lower = lower.strip_prefix("please ").unwrap_or(lower);
        let lower = lower.strip_prefix("also ").unwrap_or(lower);
        let padded = format!(" {lower} ");
        let imperative = IMPERATIVE_STARTS.iter().any(|start| lower.starts_with(start))
            || IMPERATIVE_ANYWHERE.iter().any(|marker| padded.contains(marker))
            || IMPERATIVE_CJK.iter().any(|marker| sentence.contains(marker));
        if imperative {
            out.push(clip(&sentence, 200));
        }
    }
    out
}

pub(super) const DECISION_MARKERS: [&str; 14] = [
    "the fix is",
    "the problem is",
    "the issue is",
    "the cause is",
    "root cause",
    "the bug is",
    "instead of",
    "decided",
    "i chose",
    "going with",
    "rather than",
    "i'll use",
    "we'll use",
    "because",
];

pub(super) const PLAN_STARTS: [&str; 13] = [
    "i'll ",
    "i will ",
    "let me ",
    "next,",
    "next ",
    "then ",
    "now i",
    "after that",
    "finally,",
    "i need to ",
    "we need to ",
    "i'm going to ",
    "the next step",
];

/// Sentences of an assistant text that state a decision or a diagnosis.
pub(super) fn decisions_of(text: &str) -> Vec<String> {
    sentences(head(text, 16_000))
        .into_iter()
        .filter(|sentence| {
            let lower = sentence.to_lowercase();
            DECISION_MARKERS.iter().any(|marker| lower.contains(marker))
        })
        .map(|sentence| clip(&sentence, 220))
        .collect()
}

/// Plan statements of an assistant text: "I'll…", "Let me…", "Next, …" sentences and the
/// items of numbered lists.
pub(super) fn plan_of(text: &str) -> Vec<String> {
    let text = head(text, 16_000);
    let mut out = Vec::new();
    for line in text.lines() {
        let trimmed = line.trim_start();
        let digits = trimmed.chars().take_while(char::is_ascii_digit).count();
        if digits > 0 && digits < 3 {
            let rest = &trimmed[digits..];
            if let Some(item) = rest.strip_prefix(". ").or_else(|| rest.strip_prefix(") ")) {
                out.push(clip(item.trim(), 200));
            }
        }
    }
    for sentence in sentences(text) {
        let lower = sentence.to_lowercase();
        let first_digits = lower.chars().take_while(char::is_ascii_digit).count();
        if first_digits > 0 {
            continue;
        }
        if PLAN_STARTS.iter().any(|start| lower.starts_with(start)) {
            out.push(clip(&sentence, 200));
        }
    }
    out
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
    /// The exit code pi's bash tool appends to a failing command's output.
    pub(super) exit_code: Option<i64>,
}

pub(super) const ERROR_NOISE: [&str; 5] = [
    "error: could not compile",
    "error: aborting due to",
    "error: test failed",
    "error: build failed",
    "error: process didn't exit successfully",
];

pub(super) fn error_line(line: &str) -> bool {
    let trimmed = line.trim_start();
    let lower = trimmed.to_lowercase();
    if ERROR_NOISE.iter().any(|noise| lower.starts_with(noise)) {
        return false;
    }
    // A test runner's progress line names tests, not failures (`test error_case ... ok`).
    if lower.starts_with("test ") && lower.contains(" ... ") {
        return false;
    }
    lower.starts_with("error[")
        || lower.starts_with("error:")
        || lower.starts_with("error ")
        || lower.starts_with("fatal:")
        || lower.starts_with("panic:")
        || lower.starts_with("traceback")
        || lower.starts_with("exception")
        || lower.contains("panicked at")
        || lower.starts_with("assertion")
        || lower.contains("command not found")
        || lower.contains("no such file or directory")
        || lower.contains("error:")
        || lower.contains("exception:")
        || lower.contains("err!")
}

pub(super) fn scan_output<'a>(lines: impl IntoIterator<Item = &'a str>) -> OutputScan {
    let mut scan = OutputScan::default();
    let mut lines = lines.into_iter().peekable();
    while let Some(line) = lines.next() {
        let trimmed = line.trim();
        if trimmed.is_empty() {
            continue;
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
            }
            continue;
        }
        if let Some(code) = exit_code_of(trimmed) {
            scan.exit_code = Some(code);
            continue;
        }
        if scan.errors.len() < 3 && error_line(trimmed) {
            let mut error = code(&clip(trimmed, 240));
            let panicked = trimmed.contains("panicked at");
            // The location follows on the next line (`--> file:line`), or for a panic, the
            // message does.
            if let Some(next) = lines.peek() {
                let next = next.trim();
                if let Some(location) = next.strip_prefix("-->") {
                    error = format!("{error} at {}", code(location.trim()));
                } else if panicked && !next.is_empty() {
                    error = format!("{error} {}", code(&clip(next, 160)));
                }
            }
            if !scan.errors.contains(&error) {
                scan.errors.push(error);
            }
        }
    }
    scan
}

/// Reads pi's "Command exited with code N" trailer.
pub(super) fn exit_code_of(line: &str) -> Option<i64> {
    let lower = line.to_lowercase();
    let at = lower.find("exited with code ")?;
    let digits: String = lower[at + "exited with code ".len()..]
        .chars()
        .take_while(|c| c.is_ascii_digit() || *c == '-')
        .collect();
    digits.parse().ok()
}
