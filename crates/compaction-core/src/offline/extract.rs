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

pub(super) const IMPERATIVE_STARTS: [&str; 23] = [
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
    "without ",
];

pub(super) const IMPERATIVE_ANYWHERE: [&str; 16] = [
    " must ",
    " must not ",
    " never ",
    " always ",
    " don't ",
    " do not ",
    " make sure ",
    " needs to be ",
    " need to be ",
    " has to be ",
    " have to be ",
    " must be ",
    " should not ",
    " shouldn't ",
    " not allowed",
    " mustn't ",
];

pub(super) const IMPERATIVE_CJK: [&str; 13] = [
    "不要",
    "必须",
    "务必",
    "总是",
    "永远",
    "别",
    "一定要",
    "请勿",
    "禁止",
    "しないで",
    "必ず",
    "반드시",
    "하지 마",
];

/// Openers that join a sentence to the previous one and say nothing themselves.
const CONNECTIVES: [&str; 12] = [
    "please ",
    "also ",
    "and ",
    "but ",
    "plus ",
    "so ",
    "oh and ",
    "btw ",
    "btw, ",
    "ok, ",
    "okay, ",
    "and also ",
];

/// The lower-cased sentence without list markers and connectives.
fn bare_lower(sentence: &str) -> String {
    let lower = sentence.to_lowercase();
    let mut rest = lower.trim_start_matches(['-', '*', ' ']);
    while let Some(stripped) =
        CONNECTIVES.iter().find_map(|connective| rest.strip_prefix(connective))
    {
        rest = stripped.trim_start();
    }
    rest.to_owned()
}

/// The user's rules and preferences in the prose of a user message: imperative sentences
/// ("Never change the file format."), requirements ("It needs to be fully clean.") and
/// short preferences ("Type hints everywhere, please."). Questions are not rules, and a
/// bare "No," answers rather than rules.
pub(super) fn constraints_of(prose: &str) -> Vec<String> {
    let mut out = Vec::new();
    for sentence in sentences(head(prose, 8_000)) {
        if sentence.ends_with('?') || sentence.ends_with('？') {
            continue;
        }
        let lower = bare_lower(&sentence);
        if lower.starts_with("no,") || lower.starts_with("no.") || lower.starts_with("no!") {
            continue;
        }
        // "No fixes applied." reports; "No console logs." rules.
        if lower.starts_with("no ")
            && lower
                .split_whitespace()
                .any(|word| word.trim_end_matches(['.', '!', ',']).ends_with("ed"))
        {
            continue;
        }
        let padded = format!(" {lower} ");
        let words = lower.split_whitespace().count();
        let short_preference = words <= 8
            && (lower.ends_with("please.")
                || lower.ends_with("please")
                || lower.ends_with("please!"));
        let imperative = IMPERATIVE_STARTS.iter().any(|start| lower.starts_with(start))
            || IMPERATIVE_ANYWHERE.iter().any(|marker| padded.contains(marker))
            || IMPERATIVE_CJK.iter().any(|marker| sentence.contains(marker))
            || short_preference;
        if imperative {
            out.push(verbatim_prefix(&sentence, 300));
        }
    }
    out
}

/// Openings of a user message that correct what the assistant just did or proposed.
const CORRECTIONS: [&str; 22] = [
    "wait",
    "no,",
    "no.",
    "no!",
    "nope",
    "stop",
    "hold on",
    "hang on",
    "that's wrong",
    "that is wrong",
    "that's not",
    "that is not",
    "that doesn't",
    "that does not",
    "thats not",
    "not like that",
    "undo",
    "revert",
    "don't do that",
    "do not do that",
    "actually, no",
    "this is wrong",
];

/// Whether a user message opens by correcting the assistant.
pub(super) fn is_correction(prose: &str) -> bool {
    let lower = bare_lower(prose.trim());
    CORRECTIONS.iter().any(|opening| {
        lower
            .strip_prefix(opening)
            .is_some_and(|rest| rest.is_empty() || rest.starts_with(|c: char| !c.is_alphanumeric()))
    })
}

/// Whether the message is a slash command (`/mode`, `/model sonnet`), not a request.
pub(super) fn is_slash_command(text: &str) -> bool {
    let text = text.trim();
    let Some(rest) = text.strip_prefix('/') else { return false };
    let name: String = rest.chars().take_while(|c| !c.is_whitespace()).collect();
    !text.contains('\n')
        && !name.is_empty()
        && name.chars().all(|c| c.is_ascii_alphanumeric() || "-_:".contains(c))
}

/// Whether a line of a user message looks pasted from a terminal, a log or a browser
/// console rather than written: error and stack lines, indented code, JSON.
fn looks_pasted(line: &str) -> bool {
    let trimmed = line.trim();
    let lower = trimmed.to_lowercase();
    line.starts_with("  ")
        || line.starts_with('\t')
        || error_line(trimmed)
        || lower.starts_with("at ")
        || lower.starts_with("file \"")
        || trimmed.starts_with('{')
        || trimmed.starts_with('[')
        || trimmed.starts_with('>')
        || trimmed.starts_with('$')
        || trimmed.contains("\":")
        || trimmed.contains("\\n")
}

/// Splits a user message into what the user wrote and what they pasted: code fences, and
/// paragraphs at least half of whose lines look pasted. Returns the written prose (the
/// paragraphs joined by blank lines) and the pasted lines.
pub(super) fn split_user_text(text: &str) -> (String, Vec<String>) {
    let mut prose: Vec<String> = Vec::new();
    let mut pasted: Vec<String> = Vec::new();
    let mut paragraph: Vec<&str> = Vec::new();
    let mut in_fence = false;
    let flush = |paragraph: &mut Vec<&str>, prose: &mut Vec<String>, pasted: &mut Vec<String>| {
        if paragraph.is_empty() {
            return;
        }
        // One line on its own needs strong evidence: indentation alone is not enough.
        let looks = if paragraph.len() == 1 {
            usize::from(looks_pasted(paragraph[0].trim_start()))
        } else {
            paragraph.iter().filter(|line| looks_pasted(line)).count()
        };
        if looks * 2 >= paragraph.len() && looks > 0 {
            pasted.extend(paragraph.iter().map(|line| (*line).to_owned()));
        } else {
            prose.push(paragraph.join("\n"));
        }
        paragraph.clear();
    };
    for line in head(text.trim(), 16_000).lines() {
        if line.trim_start().starts_with("```") {
            flush(&mut paragraph, &mut prose, &mut pasted);
            in_fence = !in_fence;
            continue;
        }
        if in_fence {
            pasted.push(line.to_owned());
            continue;
        }
        if line.trim().is_empty() {
            flush(&mut paragraph, &mut prose, &mut pasted);
            continue;
        }
        paragraph.push(line);
    }
    flush(&mut paragraph, &mut prose, &mut pasted);
    (prose.join("\n\n"), pasted)
}

/// Whether a shell command only reads (lists, searches, shows): its outcome is not
/// progress, and a search that finds nothing (exit 1) is not a failure.
pub(super) fn is_read_only_command(command: &str) -> bool {
    const READERS: [&str; 22] = [
        "ls", "ll", "cat", "grep", "rg", "ag", "find", "fd", "head", "tail", "wc", "pwd", "echo",
        "tree", "which", "file", "stat", "du", "df", "less", "type", "whereis",
    ];
    const GIT_READERS: [&str; 7] = ["status", "diff", "log", "show", "blame", "grep", "branch"];
    command.split("&&").flat_map(|part| part.split(['|', ';'])).all(|segment| {
        let mut words = segment.split_whitespace();
        match words.next() {
            None => true,
            Some("cd") => true,
            Some("git") => words.next().is_some_and(|sub| GIT_READERS.contains(&sub)),
            Some("sed") => words.next() == Some("-n"),
            Some(program) => READERS.contains(&program),
        }
    })
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

/// How telling an error line is: 0 for a specific error (a compiler diagnostic, an
/// exception, a failed assertion or test), 1 for a generic one (`npm ERR!`, `fatal:`).
fn error_rank(line: &str) -> u8 {
    let lower = line.to_lowercase();
    if lower.starts_with("error[")
        || lower.contains("error ts")
        || exception_line(line)
        || lower.contains("panicked at")
        || lower.starts_with("assertion")
        || lower.starts_with("fail ")
        || lower.starts_with("failed ")
    {
        0
    } else {
        1
    }
}

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
        || lower.contains("error ts")
        || exception_line(trimmed)
        || lower.starts_with("fail ")
        || (lower.starts_with("failed ") && lower.contains("::"))
        || lower.contains("enoent")
        || lower.starts_with("error:")
        || lower.starts_with("error ")
        || lower.starts_with("fatal:")
        || lower.starts_with("panic:")
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
    // The innermost `File "…", line N` of a Python traceback, for the exception line.
    let mut traceback_location: Option<String> = None;
    let mut ranks: Vec<u8> = Vec::new();
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
            traceback_location =
                Some(if number.is_empty() { file.to_owned() } else { format!("{file}:{number}") });
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
            }
            continue;
        }
        if let Some(code) = exit_code_of(trimmed) {
            scan.exit_code = Some(code);
            continue;
        }
        if scan.errors.len() < 6 && error_line(trimmed) {
            let mut error = code(&clip(trimmed, 240));
            if exception_line(trimmed)
                && let Some(location) = traceback_location.take()
            {
                error = format!("{error} at {}", code(&location));
            }
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
