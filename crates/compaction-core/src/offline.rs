//! The offline summarizer: a structured checkpoint built from the transcript itself.
//!
//! It is the default when no model provider is configured. It reads the messages once and
//! extracts what a reader needs to carry on: the user's requests and rules, the files edited
//! and commands that passed, the failures still open, the assistant's latest plan, and the
//! exact paths, identifiers and error lines involved. The output uses the same Markdown
//! sections as the model-written checkpoint, so a later compaction (offline or not) can
//! merge it.
//!
//! Invariants: the output is a pure function of the input (same input, same bytes); it never
//! exceeds `max_chars` characters, dropping the least important items first while keeping
//! every section heading whenever the empty skeleton (headings and `(none)` lines) fits;
//! text is only ever cut on character boundaries; tool outputs are scanned line by line and
//! never copied whole.

use std::collections::BTreeSet;

use serde_json::Value;

use crate::message::{AgentMessage, Content, ContentBlock};

/// Which kind of summary is asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OfflineKind {
    /// The history before a compaction's cut point.
    History,
    /// The early part of a turn that a cut split in two; shorter.
    TurnPrefix,
    /// The work on a branch the user is leaving.
    Branch,
}

/// Everything the offline summarizer reads.
#[derive(Debug, Clone, Copy)]
pub struct OfflineInput<'a> {
    /// What the summary is for.
    pub kind: OfflineKind,
    /// The messages to summarize, oldest first.
    pub messages: &'a [AgentMessage],
    /// The summary of an earlier compaction, merged into the new one.
    pub previous_summary: Option<&'a str>,
    /// The user's focus for this summary; named in the output and used to rank items.
    pub instructions: Option<&'a str>,
    /// Upper bound on the output length, in characters (Unicode scalar values).
    pub max_chars: usize,
}

/// The facts of a transcript (and the summary before it) that a summary must keep.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct KeyFacts {
    pub(crate) modified_files: Vec<String>,
    pub(crate) constraints: Vec<String>,
    pub(crate) latest_request: Option<String>,
    /// The failing command (or operation) and its error line.
    pub(crate) unresolved_error: Option<(String, String)>,
}

/// Reads the key facts of `messages`, oldest first, after `previous_summary`.
pub(crate) fn key_facts(messages: &[AgentMessage], previous_summary: Option<&str>) -> KeyFacts {
    let mut digest = Digest::default();
    for message in messages {
        digest.observe(message);
    }
    let previous = previous_summary.map(PreviousSummary::parse);
    let mut modified: BTreeSet<String> = digest.modified_files.clone();
    let mut constraints: Vec<String> = Vec::new();
    if let Some(previous) = &previous {
        modified.extend(previous.modified_files.iter().cloned());
        for item in previous.section(Section::Critical) {
            if let Some(list) = item.strip_prefix("Modified files:") {
                modified.extend(backticked(list).into_iter().map(str::to_owned));
            }
        }
        constraints.extend(previous.section(Section::Constraints).iter().cloned());
    }
    for constraint in &digest.constraints {
        if !constraints.contains(constraint) {
            constraints.push(constraint.clone());
        }
    }
    let unresolved_error = digest
        .failures
        .iter()
        .rev()
        .find(|failure| !failure.resolved && failure.key != "model-reply")
        .map(|failure| {
            let line = failure.error_line.clone().unwrap_or_else(|| failure.text.clone());
            (failure.what.clone(), line)
        });
    KeyFacts {
        modified_files: modified.into_iter().collect(),
        constraints,
        latest_request: digest.latest_request,
        unresolved_error,
    }
}

/// Summarizes `input.messages` without a model. See the module documentation.
pub fn summarize_offline(input: &OfflineInput) -> String {
    let mut digest = Digest::default();
    if let Some(previous) = input.previous_summary {
        digest.previous = Some(PreviousSummary::parse(previous));
    }
    for message in input.messages {
        digest.observe(message);
    }
    let sections = digest.into_sections(input.kind, input.instructions);
    render_within(sections, input.max_chars)
}

// ---------------------------------------------------------------------------------------
// Sections and items

/// The checkpoint's sections, in output order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Section {
    Goal,
    Constraints,
    Done,
    InProgress,
    Blocked,
    Decisions,
    NextSteps,
    Critical,
}

const SECTIONS: [Section; 8] = [
    Section::Goal,
    Section::Constraints,
    Section::Done,
    Section::InProgress,
    Section::Blocked,
    Section::Decisions,
    Section::NextSteps,
    Section::Critical,
];

impl Section {
    fn index(self) -> usize {
        match self {
            Section::Goal => 0,
            Section::Constraints => 1,
            Section::Done => 2,
            Section::InProgress => 3,
            Section::Blocked => 4,
            Section::Decisions => 5,
            Section::NextSteps => 6,
            Section::Critical => 7,
        }
    }

    /// The heading lines printed before this section's items.
    fn heading(self) -> &'static str {
        match self {
            Section::Goal => "## Goal\n",
            Section::Constraints => "## Constraints & Preferences\n",
            Section::Done => "## Progress\n### Done\n",
            Section::InProgress => "### In Progress\n",
            Section::Blocked => "### Blocked\n",
            Section::Decisions => "## Key Decisions\n",
            Section::NextSteps => "## Next Steps\n",
            Section::Critical => "## Critical Context\n",
        }
    }

    /// Recognises a heading of a previous summary (`## Goal`, `### Done`, …).
    fn from_heading(title: &str) -> Option<Section> {
        let title = title.trim().trim_end_matches(':').to_lowercase();
        let section = match title.as_str() {
            "goal" | "goals" | "original request" => Section::Goal,
            "constraints & preferences" | "constraints and preferences" | "constraints" => {
                Section::Constraints
            }
            "done" | "early progress" => Section::Done,
            "in progress" => Section::InProgress,
            "blocked" => Section::Blocked,
            "key decisions" | "decisions" => Section::Decisions,
            "next steps" => Section::NextSteps,
            "critical context" | "context for suffix" => Section::Critical,
            _ => return None,
        };
        Some(section)
    }
}

/// One bullet of the output. Higher `priority` survives trimming longer; among equal
/// priorities the older item (lower `order`) goes first.
#[derive(Debug, Clone)]
struct Item {
    section: Section,
    text: String,
    priority: u32,
    order: usize,
}

/// Item lists per section, in output order within each section.
#[derive(Debug, Default)]
struct Sections {
    items: Vec<Item>,
}

impl Sections {
    fn push(&mut self, section: Section, text: impl Into<String>, priority: u32) {
        let text = one_line(&text.into());
        if text.is_empty() {
            return;
        }
        if self.items.iter().any(|item| item.section == section && item.text == text) {
            return;
        }
        let order = self.items.len();
        self.items.push(Item { section, text, priority, order });
    }
}

// ---------------------------------------------------------------------------------------
// Rendering under a budget

const EMPTY_SECTION: &str = "- (none)\n";
/// Items longer than this are shortened before high-priority items are dropped.
const SHORT_ITEM_CHARS: usize = 160;

fn render(items: &[Item]) -> String {
    let mut out = String::new();
    for (position, section) in SECTIONS.iter().enumerate() {
        if position > 0 && !matches!(section, Section::InProgress | Section::Blocked) {
            out.push('\n');
        }
        out.push_str(section.heading());
        let mut any = false;
        for item in items.iter().filter(|item| item.section == *section) {
            out.push_str("- ");
            out.push_str(&item.text);
            out.push('\n');
            any = true;
        }
        if !any {
            out.push_str(EMPTY_SECTION);
        }
    }
    out
}

fn char_len(text: &str) -> usize {
    text.chars().count()
}

/// Renders the items, dropping the least important ones until the text fits `max_chars`.
///
/// Lengths are tracked per section, so trimming costs one sort plus one final render.
fn render_within(sections: Sections, max_chars: usize) -> String {
    let mut items = sections.items;
    let mut lengths = SectionLengths::new(&items);
    if lengths.total() <= max_chars {
        return render(&items);
    }
    // Drop order: lowest priority first, then oldest first.
    let mut drop_order: Vec<usize> = (0..items.len()).collect();
    drop_order.sort_by_key(|&i| (items[i].priority, items[i].order));
    let mut dropped = vec![false; items.len()];
    let mut shortened = false;
    let mut fits = false;
    for &victim in &drop_order {
        if !shortened && items[victim].priority >= PRIORITY_ESSENTIAL {
            // Before losing essential items, shorten every long one that is left.
            shortened = true;
            for (index, item) in items.iter_mut().enumerate() {
                if !dropped[index] {
                    item.text = clip(&item.text, SHORT_ITEM_CHARS);
                }
            }
            let kept: Vec<Item> = kept_items(&items, &dropped);
            lengths = SectionLengths::new(&kept);
            if lengths.total() <= max_chars {
                fits = true;
                break;
            }
        }
        dropped[victim] = true;
        lengths.remove(&items[victim]);
        if lengths.total() <= max_chars {
            fits = true;
            break;
        }
    }
    let text = render(&kept_items(&items, &dropped));
    if fits {
        return text;
    }
    // Not even the empty skeleton fits: keep whole lines while they fit, then cut.
    let mut out = String::new();
    let mut used = 0;
    for line in text.split_inclusive('\n') {
        let length = char_len(line);
        if used + length > max_chars {
            if out.is_empty() {
                out = line.chars().take(max_chars).collect();
            }
            break;
        }
        out.push_str(line);
        used += length;
    }
    out
}

fn kept_items(items: &[Item], dropped: &[bool]) -> Vec<Item> {
    items
        .iter()
        .zip(dropped)
        .filter(|(_, dropped)| !**dropped)
        .map(|(item, _)| item.clone())
        .collect()
}

/// The rendered length of a set of items, kept up to date as items are removed.
struct SectionLengths {
    /// Headings and blank separator lines, which are always printed.
    fixed: usize,
    counts: [usize; 8],
    chars: [usize; 8],
}

impl SectionLengths {
    fn new(items: &[Item]) -> Self {
        let fixed = SECTIONS.iter().map(|section| char_len(section.heading())).sum::<usize>()
            + SECTIONS
                .iter()
                .skip(1)
                .filter(|s| !matches!(s, Section::InProgress | Section::Blocked))
                .count();
        let mut lengths = SectionLengths { fixed, counts: [0; 8], chars: [0; 8] };
        for item in items {
            lengths.counts[item.section.index()] += 1;
            lengths.chars[item.section.index()] += Self::line_len(item);
        }
        lengths
    }

    /// `- text\n`.
    fn line_len(item: &Item) -> usize {
        char_len(&item.text) + 3
    }

    fn remove(&mut self, item: &Item) {
        let index = item.section.index();
        self.counts[index] -= 1;
        self.chars[index] -= Self::line_len(item);
    }

    fn total(&self) -> usize {
        let placeholder = char_len(EMPTY_SECTION);
        self.fixed
            + (0..8)
                .map(|index| if self.counts[index] == 0 { placeholder } else { self.chars[index] })
                .sum::<usize>()
    }
}

// ---------------------------------------------------------------------------------------
// Priorities

const PRIORITY_ESSENTIAL: u32 = 90;
const PRIORITY_MAIN_GOAL: u32 = 100;
const PRIORITY_LAST_ERROR: u32 = 100;
const PRIORITY_MODIFIED_FILES: u32 = 95;
const PRIORITY_FOCUS: u32 = 98;
const PRIORITY_CURRENT: u32 = 92;
const PRIORITY_NEXT: u32 = 80;
const PRIORITY_FOLLOW_UP: u32 = 78;
const PRIORITY_CONSTRAINT: u32 = 75;
const PRIORITY_BLOCKED: u32 = 72;
const PRIORITY_ERRORS: u32 = 65;
const PRIORITY_DONE_EDIT: u32 = 62;
const PRIORITY_DECISION: u32 = 58;
const PRIORITY_DONE_COMMAND: u32 = 52;
const PRIORITY_COMMANDS: u32 = 45;
const PRIORITY_READ_FILES: u32 = 40;
const PRIORITY_IDENTIFIERS: u32 = 30;
/// Items carried over from a previous summary rank this much lower than fresh ones.
const PREVIOUS_PENALTY: u32 = 8;
/// Items that mention a word of the user's focus rank this much higher.
const FOCUS_BONUS: u32 = 15;

// ---------------------------------------------------------------------------------------
// Text helpers

/// Collapses all whitespace runs to single spaces and trims.
fn one_line(text: &str) -> String {
    let mut out = String::with_capacity(text.len().min(512));
    for word in text.split_whitespace() {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(word);
    }
    out
}

/// At most `max` characters of `text`, ending in `…` when cut; cuts on char boundaries.
fn clip(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        None => text.to_owned(),
        Some(_) => {
            let keep: String = text.chars().take(max.saturating_sub(1)).collect();
            format!("{}…", keep.trim_end())
        }
    }
}

/// Inline code for `text`, using double backticks when the text holds one.
fn code(text: &str) -> String {
    if text.contains('`') { format!("`` {text} ``") } else { format!("`{text}`") }
}

/// The first `limit` bytes of `text`, cut back to a char boundary.
fn head(text: &str, limit: usize) -> &str {
    if text.len() <= limit {
        return text;
    }
    let mut end = limit;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

/// Splits prose into sentences: on line ends, on `.`, `!`, `?` followed by a space, and
/// after CJK full stops. Lines inside code fences are skipped.
fn sentences(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut in_fence = false;
    for line in text.lines() {
        let trimmed = line.trim();
        if trimmed.starts_with("```") {
            in_fence = !in_fence;
            continue;
        }
        if in_fence || trimmed.is_empty() {
            continue;
        }
        let mut current = String::new();
        let mut chars = trimmed.chars().peekable();
        while let Some(c) = chars.next() {
            current.push(c);
            let ends = match c {
                '。' | '！' | '？' => true,
                '.' | '!' | '?' => chars.peek().is_none_or(|next| next.is_whitespace()),
                _ => false,
            };
            if ends {
                let sentence = current.trim();
                if !sentence.is_empty() {
                    out.push(sentence.to_owned());
                }
                current.clear();
            }
        }
        let sentence = current.trim();
        if !sentence.is_empty() {
            out.push(sentence.to_owned());
        }
    }
    out
}

/// Text of the spans between single backticks.
fn backticked(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(start) = rest.find('`') {
        let after = &rest[start + 1..];
        match after.find('`') {
            Some(end) => {
                let span = after[..end].trim();
                if !span.is_empty() {
                    out.push(span);
                }
                rest = &after[end + 1..];
            }
            None => break,
        }
    }
    out
}

/// Whether `text` looks like a file path rather than an identifier.
fn looks_like_path(text: &str) -> bool {
    if text.contains(char::is_whitespace) {
        return false;
    }
    if text.contains('/') {
        return true;
    }
    let Some((stem, extension)) = text.rsplit_once('.') else {
        return false;
    };
    !stem.is_empty()
        && matches!(
            extension,
            "rs" | "toml"
                | "md"
                | "json"
                | "jsonl"
                | "ts"
                | "tsx"
                | "js"
                | "py"
                | "go"
                | "c"
                | "h"
                | "cpp"
                | "java"
                | "yaml"
                | "yml"
                | "txt"
                | "lock"
                | "sh"
        )
}

/// Whether a backticked span is worth keeping as an identifier.
fn looks_like_identifier(text: &str) -> bool {
    let length = char_len(text);
    (2..=60).contains(&length)
        && !text.contains(char::is_whitespace)
        && !looks_like_path(text)
        && text.chars().any(|c| c.is_alphabetic())
        // Short plain words (`out`, `ok`) say little; `Vec`, `f()` or `a_b` still count.
        && (length >= 4 || text.chars().any(|c| c.is_uppercase() || "_:()".contains(c)))
}

fn content_text(content: &Content) -> String {
    content.joined_text()
}

/// Lines of the text blocks of `content`, lazily: nothing is joined or collected.
fn content_lines(content: &Content) -> impl Iterator<Item = &str> + Clone {
    let (text, blocks): (Option<&str>, &[ContentBlock]) = match content {
        Content::Text(text) => (Some(text.as_str()), &[]),
        Content::Blocks(blocks) => (None, blocks.as_slice()),
    };
    let block_texts = blocks.iter().filter_map(|block| match block {
        ContentBlock::Text(text) => Some(text.text.as_str()),
        ContentBlock::Image(_)
        | ContentBlock::Thinking(_)
        | ContentBlock::ToolCall(_)
        | ContentBlock::Other(_) => None,
    });
    text.into_iter().chain(block_texts).flat_map(str::lines)
}

// ---------------------------------------------------------------------------------------
// Extractors: each reads one kind of text and returns plain items.

/// The request a user message makes: its first one or two sentences, clipped.
fn request_of(text: &str) -> Option<String> {
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
fn is_acknowledgement(sentence: &str) -> bool {
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

const IMPERATIVE_STARTS: [&str; 22] = [
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

const IMPERATIVE_ANYWHERE: [&str; 8] = [
    " must ",
    " must not ",
    " never ",
    " always ",
    " don't ",
    " do not ",
    " make sure ",
    " instead of ",
];

const IMPERATIVE_CJK: [&str; 14] = [
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
fn constraints_of(text: &str) -> Vec<String> {
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

const DECISION_MARKERS: [&str; 14] = [
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

const PLAN_STARTS: [&str; 13] = [
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
fn decisions_of(text: &str) -> Vec<String> {
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
fn plan_of(text: &str) -> Vec<String> {
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
struct OutputScan {
    /// Up to three error lines, verbatim in inline code, each followed by its location (or
    /// a panic's message) when the next line gives one.
    errors: Vec<String>,
    /// The counts of the first `test result: ok` line (`7 passed; 0 failed`).
    passed: Option<String>,
    /// A `test result: FAILED` line, or other evidence that tests failed.
    tests_failed: bool,
    /// The exit code pi's bash tool appends to a failing command's output.
    exit_code: Option<i64>,
}

const ERROR_NOISE: [&str; 5] = [
    "error: could not compile",
    "error: aborting due to",
    "error: test failed",
    "error: build failed",
    "error: process didn't exit successfully",
];

fn error_line(line: &str) -> bool {
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

fn scan_output<'a>(lines: impl IntoIterator<Item = &'a str>) -> OutputScan {
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
fn exit_code_of(line: &str) -> Option<i64> {
    let lower = line.to_lowercase();
    let at = lower.find("exited with code ")?;
    let digits: String = lower[at + "exited with code ".len()..]
        .chars()
        .take_while(|c| c.is_ascii_digit() || *c == '-')
        .collect();
    digits.parse().ok()
}

// ---------------------------------------------------------------------------------------
// The previous summary, parsed back into sections

#[derive(Debug, Default)]
struct PreviousSummary {
    /// Bullets per section, in their order (index = `Section::index`).
    items: [Vec<String>; 8],
    read_files: Vec<String>,
    modified_files: Vec<String>,
    /// The whole text, one line, when it has none of our headings.
    unstructured: Option<String>,
}

impl PreviousSummary {
    fn parse(text: &str) -> Self {
        let mut parsed = PreviousSummary::default();
        let mut current: Option<Section> = None;
        let mut recognised = false;
        let mut file_list: Option<bool> = None; // Some(true) = modified, Some(false) = read.
        let mut loose = Vec::new();
        for line in text.lines() {
            let trimmed = line.trim();
            match trimmed {
                "<read-files>" => {
                    file_list = Some(false);
                    continue;
                }
                "<modified-files>" => {
                    file_list = Some(true);
                    continue;
                }
                "</read-files>" | "</modified-files>" => {
                    file_list = None;
                    continue;
                }
                _ => {}
            }
            if let Some(modified) = file_list {
                if !trimmed.is_empty() {
                    let list =
                        if modified { &mut parsed.modified_files } else { &mut parsed.read_files };
                    list.push(trimmed.to_owned());
                }
                continue;
            }
            if let Some(title) = trimmed.strip_prefix('#') {
                let title = title.trim_start_matches('#');
                match Section::from_heading(title) {
                    Some(section) => {
                        current = Some(section);
                        recognised = true;
                    }
                    None if title.trim().eq_ignore_ascii_case("progress") => {
                        current = Some(Section::Done);
                        recognised = true;
                    }
                    None => current = None,
                }
                continue;
            }
            if trimmed.is_empty() {
                continue;
            }
            let bullet = strip_bullet(trimmed);
            if bullet.is_empty() || bullet == "(none)" {
                continue;
            }
            match current {
                Some(section) => parsed.items[section.index()].push(bullet.to_owned()),
                None => loose.push(bullet),
            }
        }
        if !recognised {
            let joined = one_line(&loose.join(" "));
            if !joined.is_empty() {
                parsed.unstructured = Some(clip(&joined, 800));
            }
        }
        parsed
    }

    fn section(&self, section: Section) -> &[String] {
        &self.items[section.index()]
    }
}

fn strip_bullet(line: &str) -> &str {
    let line = line.trim();
    if let Some(rest) = line.strip_prefix("- ").or_else(|| line.strip_prefix("* ")) {
        return rest.trim();
    }
    if let Some(rest) = line.strip_prefix("- [ ] ").or_else(|| line.strip_prefix("- [x] ")) {
        return rest.trim();
    }
    let digits = line.chars().take_while(char::is_ascii_digit).count();
    if digits > 0
        && let Some(rest) = line[digits..].strip_prefix(". ")
    {
        return rest.trim();
    }
    line
}

// ---------------------------------------------------------------------------------------
// The digest: one pass over the messages

/// A tool call whose result has not been seen yet.
#[derive(Debug, Clone)]
struct PendingCall {
    id: String,
    name: String,
    path: Option<String>,
    command: Option<String>,
}

/// A failure seen in the transcript.
#[derive(Debug, Clone)]
struct Failure {
    /// What a later success must match to resolve it (a command, or `edit:path`).
    key: String,
    /// What failed, short (a command in backticks, or "the edit of `path`").
    subject: String,
    /// The bullet text.
    text: String,
    /// The first error line, in inline code.
    error: Option<String>,
    /// What failed, as plain text: the command, or the tool and its path.
    what: String,
    /// The first error line as it appeared, without markup.
    error_line: Option<String>,
    resolved: bool,
}

/// How a command went, each time it ran.
#[derive(Debug, Clone)]
struct CommandRuns {
    command: String,
    passes: usize,
    failures: usize,
    last_passed: Option<bool>,
}

/// A file edited or written, with how many times.
#[derive(Debug, Clone)]
struct FileChange {
    path: String,
    verb: &'static str,
    times: usize,
}

#[derive(Debug, Default)]
struct Digest {
    previous: Option<PreviousSummary>,
    requests: Vec<String>,
    /// The latest user message that makes a request, trimmed.
    latest_request: Option<String>,
    constraints: Vec<String>,
    changes: Vec<FileChange>,
    passing: Vec<(String, String)>,
    fixed: Vec<String>,
    failures: Vec<Failure>,
    commands: Vec<CommandRuns>,
    pending: Vec<PendingCall>,
    read_files: BTreeSet<String>,
    modified_files: BTreeSet<String>,
    identifiers: Vec<String>,
    errors: Vec<String>,
    decisions: Vec<String>,
    /// Plan statements of the latest assistant text that had any.
    plan: Vec<String>,
    /// The first sentence of the latest assistant text.
    last_assistant_statement: Option<String>,
    /// Summaries found among the messages (an older compaction or a branch).
    earlier_summaries: Vec<String>,
    last_was_failure: bool,
}

const MAX_IDENTIFIERS: usize = 24;

impl Digest {
    fn observe(&mut self, message: &AgentMessage) {
        match message {
            AgentMessage::User(user) => self.observe_user(&content_text(&user.content)),
            AgentMessage::Custom(custom) => {
                self.note_identifiers(&content_text(&custom.content));
            }
            AgentMessage::Assistant(assistant) => {
                let mut text = String::new();
                for block in &assistant.content {
                    match block {
                        ContentBlock::Text(block) => {
                            if !text.is_empty() {
                                text.push('\n');
                            }
                            text.push_str(&block.text);
                        }
                        ContentBlock::ToolCall(call) => {
                            self.pending.push(PendingCall {
                                id: call.id.clone(),
                                name: call.name.to_lowercase(),
                                path: path_argument(&call.arguments),
                                command: command_argument(&call.arguments),
                            });
                        }
                        ContentBlock::Image(_)
                        | ContentBlock::Thinking(_)
                        | ContentBlock::Other(_) => {}
                    }
                }
                if !text.trim().is_empty() {
                    self.observe_assistant_text(&text);
                }
                if assistant.is_failed() {
                    let reason = assistant.stop_reason.as_deref().unwrap_or("error");
                    let detail = assistant
                        .error_message
                        .as_deref()
                        .map(|message| format!(": {}", clip(&one_line(message), 200)))
                        .unwrap_or_default();
                    self.fail(
                        "model-reply".to_owned(),
                        "the model reply".to_owned(),
                        format!("The model reply ended with `{reason}`{detail}"),
                        assistant.error_message.as_deref().map(|m| code(&clip(&one_line(m), 200))),
                    );
                } else if !text.trim().is_empty() {
                    self.resolve("model-reply");
                }
            }
            AgentMessage::ToolResult(result) => self.observe_tool_result(result),
            AgentMessage::BashExecution(bash) => {
                let command = one_line(&bash.command);
                let scan = scan_output(bash.output.lines());
                let failed = bash.cancelled
                    || bash.exit_code.is_some_and(|code| code != 0)
                    || scan.tests_failed;
                self.command_outcome(&command, !failed, bash.exit_code, &scan, bash.cancelled);
            }
            AgentMessage::CompactionSummary(summary) => {
                self.earlier_summaries.push(clip(&one_line(&summary.summary), 400));
            }
            AgentMessage::BranchSummary(summary) => {
                self.earlier_summaries
                    .push(format!("Other branch: {}", clip(&one_line(&summary.summary), 400)));
            }
            AgentMessage::Other(_) => {}
        }
    }

    fn observe_user(&mut self, text: &str) {
        if let Some(request) = request_of(text) {
            self.requests.push(request);
            self.latest_request = Some(text.trim().to_owned());
        }
        for constraint in constraints_of(text) {
            if !self.constraints.contains(&constraint) {
                self.constraints.push(constraint);
            }
        }
        self.note_identifiers(head(text, 8_000));
    }

    fn observe_assistant_text(&mut self, text: &str) {
        for decision in decisions_of(text) {
            self.decisions.retain(|known| known != &decision);
            self.decisions.push(decision);
        }
        let plan = plan_of(text);
        if !plan.is_empty() {
            self.plan = plan;
        }
        self.last_assistant_statement = sentences(head(text, 4_000))
            .into_iter()
            .find(|sentence| char_len(sentence) > 3)
            .map(|sentence| clip(&sentence, 200));
        self.note_identifiers(head(text, 16_000));
    }

    fn note_identifiers(&mut self, text: &str) {
        for span in backticked(text) {
            if looks_like_identifier(span) && !self.identifiers.iter().any(|known| known == span) {
                if self.identifiers.len() >= MAX_IDENTIFIERS {
                    self.identifiers.remove(0);
                }
                self.identifiers.push(span.to_owned());
            }
        }
    }

    fn take_pending(&mut self, id: &str, tool_name: &str) -> PendingCall {
        match self.pending.iter().position(|call| call.id == id) {
            Some(position) => self.pending.remove(position),
            None => PendingCall {
                id: id.to_owned(),
                name: tool_name.to_lowercase(),
                path: None,
                command: None,
            },
        }
    }

    fn observe_tool_result(&mut self, result: &crate::message::ToolResultMessage) {
        let call = self.take_pending(&result.tool_call_id, &result.tool_name);
        let lines = content_lines(&result.content);
        match (tool_role(&call.name), call.path.clone(), call.command.clone()) {
            (ToolRole::Modify(verb), Some(path), _) => {
                if result.is_error {
                    let scan = scan_output(lines.clone());
                    let first = scan
                        .errors
                        .first()
                        .cloned()
                        .or_else(|| first_line(lines.clone()).map(|l| code(&l)));
                    let detail = first.as_deref().map(|e| format!(": {e}")).unwrap_or_default();
                    self.fail(
                        format!("modify:{path}"),
                        format!("the {} of {}", call.name, code(&path)),
                        format!("{} of {} failed{detail}", capitalised(&call.name), code(&path)),
                        first,
                    );
                } else {
                    self.modified_files.insert(path.clone());
                    self.resolve(&format!("modify:{path}"));
                    match self.changes.iter_mut().find(|change| change.path == path) {
                        Some(change) => {
                            change.times += 1;
                            if verb == "Wrote" {
                                change.verb = verb;
                            }
                        }
                        None => self.changes.push(FileChange { path, verb, times: 1 }),
                    }
                    self.last_was_failure = false;
                }
            }
            (ToolRole::Read, Some(path), _) => {
                if result.is_error {
                    let first = first_line(lines.clone()).map(|l| code(&l));
                    let detail = first.as_deref().map(|e| format!(": {e}")).unwrap_or_default();
                    self.fail(
                        format!("read:{path}"),
                        format!("reading {}", code(&path)),
                        format!("Reading {} failed{detail}", code(&path)),
                        first,
                    );
                } else {
                    self.read_files.insert(path.clone());
                    self.resolve(&format!("read:{path}"));
                }
            }
            (ToolRole::Shell, _, Some(command)) => {
                let scan = scan_output(lines.clone());
                let failed = result.is_error
                    || scan.exit_code.is_some_and(|code| code != 0)
                    || scan.tests_failed;
                self.command_outcome(&command, !failed, scan.exit_code, &scan, false);
            }
            (ToolRole::Modify(_) | ToolRole::Read | ToolRole::Shell | ToolRole::Other, _, _) => {
                if result.is_error {
                    let scan = scan_output(lines.clone());
                    let first = scan
                        .errors
                        .first()
                        .cloned()
                        .or_else(|| first_line(lines.clone()).map(|l| code(&l)));
                    let detail = first.as_deref().map(|e| format!(": {e}")).unwrap_or_default();
                    let target = call
                        .path
                        .as_deref()
                        .map(|p| format!(" on {}", code(p)))
                        .unwrap_or_default();
                    self.fail(
                        format!("tool:{}:{}", call.name, call.path.as_deref().unwrap_or("")),
                        format!("the tool {}", code(&call.name)),
                        format!("Tool {}{target} failed{detail}", code(&call.name)),
                        first,
                    );
                } else {
                    self.resolve(&format!(
                        "tool:{}:{}",
                        call.name,
                        call.path.as_deref().unwrap_or("")
                    ));
                }
            }
        }
    }

    fn command_outcome(
        &mut self,
        command: &str,
        passed: bool,
        exit_code: Option<i64>,
        scan: &OutputScan,
        cancelled: bool,
    ) {
        if command.is_empty() {
            return;
        }
        let runs = match self.commands.iter().position(|runs| runs.command == command) {
            Some(position) => &mut self.commands[position],
            None => {
                self.commands.push(CommandRuns {
                    command: command.to_owned(),
                    passes: 0,
                    failures: 0,
                    last_passed: None,
                });
                let last = self.commands.len() - 1;
                &mut self.commands[last]
            }
        };
        runs.last_passed = Some(passed);
        if passed {
            runs.passes += 1;
            let detail = scan
                .passed
                .as_deref()
                .map(|counts| format!(" (tests passed: {counts})"))
                .unwrap_or_default();
            let text = format!("Ran {}{detail}", code(&clip(command, 160)));
            self.passing.retain(|(known, _)| known != command);
            self.passing.push((command.to_owned(), text));
            let resolved = self.resolve(&format!("cmd:{command}"));
            if let Some(error) = resolved {
                self.fixed.push(format!(
                    "{} passes now (earlier failure: {error})",
                    code(&clip(command, 160)),
                ));
            }
            self.last_was_failure = false;
        } else {
            runs.failures += 1;
            let status = if cancelled {
                " was cancelled".to_owned()
            } else {
                match exit_code {
                    Some(code) => format!(" failed (exit {code})"),
                    None => " failed".to_owned(),
                }
            };
            let error = scan.errors.first().cloned();
            let mut text = format!("{}{status}", code(&clip(command, 160)));
            if !scan.errors.is_empty() {
                let shown: Vec<String> = scan.errors.iter().take(2).cloned().collect();
                text.push_str(": ");
                text.push_str(&shown.join("; "));
            }
            self.passing.retain(|(known, _)| known != command);
            self.fail(format!("cmd:{command}"), code(&clip(command, 160)), text, error);
        }
    }

    /// Records a failure; a newer failure with the same key replaces the older one.
    fn fail(&mut self, key: String, subject: String, text: String, error: Option<String>) {
        let what = plain_subject(&key);
        let error_line = error.as_deref().map(plain_error);
        self.failures.retain(|failure| failure.key != key || failure.resolved);
        if let Some(error) = &error {
            self.errors.retain(|known| known != error);
            self.errors.push(error.clone());
        }
        self.failures.push(Failure {
            key,
            subject,
            text,
            error,
            what,
            error_line,
            resolved: false,
        });
        self.last_was_failure = true;
    }

    /// Marks the open failures with `key` resolved; returns the first error of the latest.
    fn resolve(&mut self, key: &str) -> Option<String> {
        let mut resolved = None;
        for failure in self.failures.iter_mut().filter(|f| f.key == key && !f.resolved) {
            failure.resolved = true;
            resolved = Some(failure.error.clone().unwrap_or_else(|| failure.text.clone()));
        }
        resolved
    }

    /// Commands that passed in these messages (for resolving a previous summary's items).
    fn passed_commands(&self) -> Vec<&str> {
        self.commands
            .iter()
            .filter(|runs| runs.last_passed == Some(true))
            .map(|runs| runs.command.as_str())
            .collect()
    }

    fn into_sections(self, kind: OfflineKind, instructions: Option<&str>) -> Sections {
        let mut sections = Sections::default();
        let previous = self.previous.as_ref();
        let carried = |priority: u32| priority.saturating_sub(PREVIOUS_PENALTY);
        let limits = Limits::for_kind(kind);

        // Goal.
        if let Some(focus) = instructions.map(one_line).filter(|focus| !focus.is_empty()) {
            sections.push(
                Section::Goal,
                format!("Focus requested: {}", clip(&focus, 300)),
                PRIORITY_FOCUS,
            );
        }
        let mut have_main_goal = false;
        if let Some(previous) = previous {
            if let Some(text) = &previous.unstructured {
                sections.push(Section::Goal, format!("Earlier: {text}"), PRIORITY_ESSENTIAL);
                have_main_goal = true;
            }
            for (index, goal) in previous.section(Section::Goal).iter().enumerate() {
                let priority =
                    if index == 0 { PRIORITY_MAIN_GOAL } else { carried(PRIORITY_FOLLOW_UP) };
                sections.push(Section::Goal, goal.clone(), priority);
                have_main_goal = true;
            }
        }
        for summary in &self.earlier_summaries {
            sections.push(
                Section::Goal,
                format!("Earlier: {summary}"),
                carried(PRIORITY_ESSENTIAL),
            );
        }
        let request_count = self.requests.len();
        for (index, request) in self.requests.iter().enumerate() {
            // Keep the first request and the latest ones.
            if index > 0 && index + limits.requests <= request_count {
                continue;
            }
            let (label, priority) = match (kind, have_main_goal, index) {
                (OfflineKind::TurnPrefix, _, 0) => ("Request of this turn: ", PRIORITY_MAIN_GOAL),
                (OfflineKind::Branch, false, 0) => {
                    ("Explored on this branch: ", PRIORITY_MAIN_GOAL)
                }
                (OfflineKind::History, false, 0) => ("", PRIORITY_MAIN_GOAL),
                (_, _, _) if index + 1 == request_count => ("Latest request: ", PRIORITY_CURRENT),
                (_, _, _) => ("Follow-up: ", PRIORITY_FOLLOW_UP),
            };
            sections.push(Section::Goal, format!("{label}{request}"), priority);
        }

        // Constraints.
        if let Some(previous) = previous {
            for constraint in previous.section(Section::Constraints) {
                sections.push(
                    Section::Constraints,
                    constraint.clone(),
                    carried(PRIORITY_CONSTRAINT),
                );
            }
        }
        let skip = self.constraints.len().saturating_sub(limits.constraints);
        for constraint in self.constraints.iter().skip(skip) {
            sections.push(Section::Constraints, constraint.clone(), PRIORITY_CONSTRAINT);
        }

        // Done.
        if let Some(previous) = previous {
            for done in previous.section(Section::Done) {
                sections.push(Section::Done, done.clone(), carried(PRIORITY_DONE_EDIT));
            }
        }
        // A carried blocker is resolved when its command (its first code span) passed since.
        let passed = self.passed_commands();
        let carried_blockers: Vec<(String, Option<String>)> = previous
            .map(|previous| previous.section(Section::Blocked))
            .unwrap_or_default()
            .iter()
            .map(|item| {
                let resolved = backticked(item)
                    .first()
                    .filter(|command| passed.iter().any(|done| done == *command))
                    .map(|command| (*command).to_owned());
                (item.clone(), resolved)
            })
            .collect();
        for command in carried_blockers.iter().filter_map(|(_, resolved)| resolved.as_ref()) {
            sections.push(
                Section::Done,
                format!("{} passes now (it was blocked before)", code(command)),
                PRIORITY_DONE_EDIT,
            );
        }
        let skip = self.changes.len().saturating_sub(limits.done);
        for change in self.changes.iter().skip(skip) {
            let times =
                if change.times > 1 { format!(" ({} times)", change.times) } else { String::new() };
            let verb = if change.verb == "Wrote" && change.times > 1 {
                "Wrote/edited"
            } else {
                change.verb
            };
            sections.push(
                Section::Done,
                format!("{verb} {}{times}", code(&change.path)),
                PRIORITY_DONE_EDIT,
            );
        }
        for fixed in &self.fixed {
            sections.push(Section::Done, fixed.clone(), PRIORITY_DONE_EDIT);
        }
        let skip = self.passing.len().saturating_sub(limits.done);
        for (_, passing) in self.passing.iter().skip(skip) {
            sections.push(Section::Done, passing.clone(), PRIORITY_DONE_COMMAND);
        }

        // In progress.
        let mut in_progress = Vec::new();
        // A branch summary reads no tool results (their calls carry the meaning), so its
        // calls are what the branch did, not work still waiting for a result.
        let calls_are_done = matches!(kind, OfflineKind::Branch);
        for call in &self.pending {
            if calls_are_done {
                let what = match (&call.command, &call.path) {
                    (Some(command), _) => format!("Ran {}", code(&clip(command, 160))),
                    (None, Some(path)) => format!("{} {}", capitalised(&call.name), code(path)),
                    (None, None) => format!("Called tool {}", code(&call.name)),
                };
                sections.push(Section::Done, what, PRIORITY_DONE_COMMAND);
                continue;
            }
            let what = match (&call.command, &call.path) {
                (Some(command), _) => {
                    format!("Running {} (no result yet)", code(&clip(command, 160)))
                }
                (None, Some(path)) => {
                    format!("{} {} (no result yet)", capitalised(&call.name), code(path))
                }
                (None, None) => format!("Tool {} called (no result yet)", code(&call.name)),
            };
            in_progress.push(what);
        }
        let open: Vec<&Failure> = self.failures.iter().filter(|f| !f.resolved).collect();
        if self.last_was_failure
            && let Some(last) = open.last()
        {
            in_progress.push(format!("Fixing the failure of {} (see Blocked)", last.subject));
        }
        if let Some(statement) = &self.last_assistant_statement {
            in_progress.push(format!("Last assistant step: {statement}"));
        }
        if in_progress.is_empty()
            && let Some(previous) = previous
        {
            for item in previous.section(Section::InProgress) {
                sections.push(Section::InProgress, item.clone(), carried(PRIORITY_CURRENT));
            }
        }
        for item in in_progress {
            sections.push(Section::InProgress, item, PRIORITY_CURRENT);
        }

        // Blocked: carried items not resolved by a command that passed since, then new ones.
        for (item, resolved) in &carried_blockers {
            if resolved.is_none() {
                sections.push(Section::Blocked, item.clone(), carried(PRIORITY_BLOCKED));
            }
        }
        let open_count = open.len();
        for (index, failure) in open.iter().enumerate() {
            if index + limits.blocked < open_count {
                continue;
            }
            let priority =
                if index + 1 == open_count { PRIORITY_LAST_ERROR } else { PRIORITY_BLOCKED };
            sections.push(Section::Blocked, failure.text.clone(), priority);
        }

        // Key decisions.
        if let Some(previous) = previous {
            for decision in previous.section(Section::Decisions) {
                sections.push(Section::Decisions, decision.clone(), carried(PRIORITY_DECISION));
            }
        }
        let skip = self.decisions.len().saturating_sub(limits.decisions);
        for decision in self.decisions.iter().skip(skip) {
            sections.push(Section::Decisions, decision.clone(), PRIORITY_DECISION);
        }

        // Next steps.
        let mut next = Vec::new();
        if let Some(last) = open.last() {
            next.push(format!("Resolve the failure of {} (see Blocked)", last.subject));
        }
        for step in self.plan.iter().take(limits.next_steps) {
            next.push(step.clone());
        }
        if self.plan.is_empty()
            && let Some(previous) = previous
        {
            for step in previous.section(Section::NextSteps) {
                sections.push(Section::NextSteps, step.clone(), carried(PRIORITY_NEXT));
            }
        }
        for step in next {
            sections.push(Section::NextSteps, step, PRIORITY_NEXT);
        }

        // Critical context.
        let mut modified = self.modified_files.clone();
        let mut read = self.read_files.clone();
        let mut earlier_commands: Vec<(String, String)> = Vec::new();
        let mut identifiers: Vec<String> = Vec::new();
        if let Some(previous) = previous {
            modified.extend(previous.modified_files.iter().cloned());
            read.extend(previous.read_files.iter().cloned());
            for item in previous.section(Section::Critical) {
                if let Some(list) = item.strip_prefix("Modified files:") {
                    modified.extend(backticked(list).into_iter().map(str::to_owned));
                } else if let Some(list) = item.strip_prefix("Read files:") {
                    read.extend(backticked(list).into_iter().map(str::to_owned));
                } else if let Some(list) = item.strip_prefix("Commands run:") {
                    earlier_commands.extend(commands_with_status(list));
                } else if let Some(list) = item.strip_prefix("Identifiers:") {
                    identifiers.extend(backticked(list).into_iter().map(str::to_owned));
                } else if item.starts_with("Last error") && !self.errors.is_empty() {
                    // A newer error takes the "last" place; the older one stays as seen.
                    let error = item.split_once(": ").map_or(item.as_str(), |(_, error)| error);
                    sections.push(
                        Section::Critical,
                        format!("Error seen: {error}"),
                        carried(PRIORITY_ERRORS),
                    );
                } else {
                    sections.push(Section::Critical, item.clone(), carried(PRIORITY_ERRORS));
                }
            }
        }
        let read_only: Vec<&String> =
            read.iter().filter(|path| !modified.contains(*path)).collect();
        if !modified.is_empty() {
            let label = match kind {
                OfflineKind::Branch => "Files changed on this branch",
                OfflineKind::History | OfflineKind::TurnPrefix => "Modified files",
            };
            let list: Vec<String> = modified.iter().map(|path| code(path)).collect();
            sections.push(
                Section::Critical,
                format!("{label}: {}", list.join(", ")),
                PRIORITY_MODIFIED_FILES,
            );
        }
        if !read_only.is_empty() {
            let list: Vec<String> = read_only.iter().map(|path| code(path)).collect();
            sections.push(
                Section::Critical,
                format!("Read files: {}", list.join(", ")),
                PRIORITY_READ_FILES,
            );
        }
        if let Some((last, earlier)) = self.errors.split_last() {
            let skip = earlier.len().saturating_sub(limits.errors);
            for error in earlier.iter().skip(skip) {
                sections.push(Section::Critical, format!("Error seen: {error}"), PRIORITY_ERRORS);
            }
            let state =
                if open.iter().any(|failure| failure.error.as_deref() == Some(last.as_str())) {
                    "unresolved"
                } else {
                    "since resolved"
                };
            sections.push(
                Section::Critical,
                format!("Last error ({state}): {last}"),
                PRIORITY_LAST_ERROR,
            );
        }
        if !self.commands.is_empty() || !earlier_commands.is_empty() {
            let mut list: Vec<String> = earlier_commands
                .iter()
                .filter(|(command, _)| !self.commands.iter().any(|runs| &runs.command == command))
                .map(|(command, status)| format!("{} ({status})", code(command)))
                .collect();
            for runs in &self.commands {
                let failed_before = earlier_commands
                    .iter()
                    .any(|(command, status)| command == &runs.command && status.contains("fail"));
                let status = match (failed_before, runs.last_passed, runs.failures) {
                    (true, Some(true), 0) => "passed after earlier failures".to_owned(),
                    (_, _, _) => runs_status(runs),
                };
                list.push(format!("{} ({status})", code(&clip(&runs.command, 120))));
            }
            sections.push(
                Section::Critical,
                format!("Commands run: {}", list.join(", ")),
                PRIORITY_COMMANDS,
            );
        }
        for identifier in &self.identifiers {
            identifiers.retain(|known| known != identifier);
            identifiers.push(identifier.clone());
        }
        let skip = identifiers.len().saturating_sub(MAX_IDENTIFIERS);
        let identifiers: Vec<String> = identifiers
            .iter()
            .skip(skip)
            .filter(|identifier| !self.commands.iter().any(|runs| &runs.command == *identifier))
            .map(|identifier| code(identifier))
            .collect();
        if !identifiers.is_empty() {
            sections.push(
                Section::Critical,
                format!("Identifiers: {}", identifiers.join(", ")),
                PRIORITY_IDENTIFIERS,
            );
        }
        if kind == OfflineKind::Branch {
            let outcome = match (open.last(), &self.last_assistant_statement) {
                (Some(failure), _) => {
                    format!("Outcome: left with an open failure: {}", failure.text)
                }
                (None, Some(statement)) => format!("Outcome: {statement}"),
                (None, None) => "Outcome: no conclusion recorded".to_owned(),
            };
            sections.push(Section::Critical, outcome, PRIORITY_ESSENTIAL);
        }

        apply_focus(&mut sections, instructions);
        sections
    }
}

/// Per-section caps; a turn prefix gets a shorter summary.
struct Limits {
    requests: usize,
    constraints: usize,
    done: usize,
    blocked: usize,
    decisions: usize,
    next_steps: usize,
    errors: usize,
}

impl Limits {
    fn for_kind(kind: OfflineKind) -> Self {
        match kind {
            OfflineKind::History | OfflineKind::Branch => Limits {
                requests: 6,
                constraints: 12,
                done: 20,
                blocked: 8,
                decisions: 8,
                next_steps: 6,
                errors: 4,
            },
            OfflineKind::TurnPrefix => Limits {
                requests: 2,
                constraints: 5,
                done: 8,
                blocked: 3,
                decisions: 3,
                next_steps: 3,
                errors: 2,
            },
        }
    }
}

/// Reads back a "Commands run:" list: each code span and the parenthesised status after it.
fn commands_with_status(list: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut rest = list;
    while let Some(start) = rest.find('`') {
        let after = &rest[start + 1..];
        let Some(end) = after.find('`') else {
            break;
        };
        let command = after[..end].trim().to_owned();
        rest = &after[end + 1..];
        let status = rest
            .strip_prefix(" (")
            .and_then(|tail| tail.find(')').map(|close| tail[..close].to_owned()))
            .unwrap_or_default();
        if !command.is_empty() {
            out.push((command, status));
        }
    }
    out
}

fn runs_status(runs: &CommandRuns) -> String {
    match (runs.last_passed, runs.failures, runs.passes) {
        (Some(true), 0, _) => "passed".to_owned(),
        (Some(true), failures, _) => format!("passed after {failures} failed run(s)"),
        (Some(false), _, 0) => "failed".to_owned(),
        (Some(false), _, _) => "failed on its latest run".to_owned(),
        (None, _, _) => "no result".to_owned(),
    }
}

/// Raises the priority of items that mention a word of the user's focus.
fn apply_focus(sections: &mut Sections, instructions: Option<&str>) {
    let Some(instructions) = instructions else {
        return;
    };
    let words: Vec<String> = instructions
        .split(|c: char| !c.is_alphanumeric() && c != '_' && c != '.' && c != '/')
        .filter(|word| {
            let length = char_len(word);
            length >= 4 || (length >= 2 && !word.is_ascii())
        })
        .map(str::to_lowercase)
        .collect();
    if words.is_empty() {
        return;
    }
    for item in &mut sections.items {
        let lower = item.text.to_lowercase();
        if words.iter().any(|word| lower.contains(word.as_str())) {
            item.priority += FOCUS_BONUS;
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ToolRole {
    Modify(&'static str),
    Read,
    Shell,
    Other,
}

fn tool_role(name: &str) -> ToolRole {
    match name {
        "edit" | "multiedit" | "multi_edit" | "str_replace" | "apply_patch" => {
            ToolRole::Modify("Edited")
        }
        "write" | "create" | "write_file" => ToolRole::Modify("Wrote"),
        "read" | "read_file" | "view" | "cat" => ToolRole::Read,
        "bash" | "shell" | "exec" | "run" | "terminal" => ToolRole::Shell,
        _ => ToolRole::Other,
    }
}

fn path_argument(arguments: &Value) -> Option<String> {
    ["path", "file_path", "filePath", "file"]
        .iter()
        .find_map(|key| arguments.get(*key).and_then(Value::as_str))
        .map(str::to_owned)
        .filter(|path| !path.is_empty())
}

fn command_argument(arguments: &Value) -> Option<String> {
    ["command", "cmd"]
        .iter()
        .find_map(|key| arguments.get(*key).and_then(Value::as_str))
        .map(one_line)
        .filter(|command| !command.is_empty())
}

fn first_line<'a>(lines: impl Iterator<Item = &'a str>) -> Option<String> {
    lines.map(str::trim).find(|line| !line.is_empty()).map(|line| clip(line, 240))
}

/// What a failure key names, as plain text: the command, or the operation and its path.
fn plain_subject(key: &str) -> String {
    match key.split_once(':') {
        Some(("cmd", command)) => command.to_owned(),
        Some(("modify", path)) => format!("edit {path}"),
        Some(("read", path)) => format!("read {path}"),
        Some(("tool", rest)) => rest.trim_end_matches(':').replacen(':', " ", 1),
        Some(_) | None => key.to_owned(),
    }
}

/// The text of the first inline code span of `error` (the error line as it appeared).
fn plain_error(error: &str) -> String {
    if let Some(rest) = error.strip_prefix("`` ")
        && let Some(end) = rest.find(" ``")
    {
        return rest[..end].to_owned();
    }
    if let Some(rest) = error.strip_prefix('`')
        && let Some(end) = rest.find('`')
    {
        return rest[..end].to_owned();
    }
    error.to_owned()
}

fn capitalised(name: &str) -> String {
    let mut chars = name.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::message::{
        AssistantMessage, BashExecutionMessage, Extra, ToolCall, ToolResultMessage,
    };
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
            stop_reason: Some("toolUse".to_owned()),
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
        let mut from = 0;
        for heading in HEADINGS {
            let at = summary[from..]
                .lines()
                .position(|line| line == heading)
                .unwrap_or_else(|| panic!("{heading} missing or out of order:\n{summary}"));
            from += summary[from..].lines().take(at + 1).map(|l| l.len() + 1).sum::<usize>();
        }
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
            request_of("Great, thanks. Now add comments to the lexer. Then run tests.").as_deref(),
            Some("Now add comments to the lexer. Then run tests.")
        );
        let long = "word ".repeat(200);
        let request = request_of(&long).unwrap_or_default();
        assert!(char_len(&request) <= 260, "{request}");
        assert_eq!(request_of("  \n "), None);
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
                "Ran `cargo test` (tests passed: 3 passed; 0 failed)",
                "Ran `git status --short`",
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
                "- Last error (unresolved): `lint.sh: line 3: shellcheck: command not found`"
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
        assert_eq!(bullets(&summary, "### Blocked"), vec!["(none)"]);
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
        let messages = [
            user("Add a CSV exporter."),
            user("Also support TSV."),
            user("Finally, document both."),
        ];
        let summary = summarize(&messages);
        assert_eq!(
            bullets(&summary, "## Goal"),
            vec![
                "Add a CSV exporter.",
                "Follow-up: Also support TSV.",
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
            max_chars: 700,
        });
        // The main goal outlives the low-priority items.
        assert!(tight.contains("Port the engine to the new allocator."), "{tight}");
        assert!(!tight.contains("Identifiers:"), "{tight}");
    }

    #[test]
    fn focus_instructions_are_named_and_rank_matching_items_higher() {
        let messages = [user(
            "Speed up the importer. Keep the public API stable. Use rayon for parallel work.",
        )];
        let input = |max_chars| OfflineInput {
            kind: OfflineKind::History,
            messages: &messages,
            previous_summary: None,
            instructions: Some("rayon usage"),
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
            max_chars: 4_000,
        });
        assert!(
            prefix.contains("- Request of this turn: Migrate the store to SQLite.\n"),
            "{prefix}"
        );
        let branch = summarize_offline(&OfflineInput {
            kind: OfflineKind::Branch,
            messages: &messages,
            previous_summary: None,
            instructions: None,
            max_chars: 4_000,
        });
        assert!(
            branch.contains("- Explored on this branch: Migrate the store to SQLite.\n"),
            "{branch}"
        );
        assert!(
            branch.contains("- Files changed on this branch: `src/store/sqlite.rs`\n"),
            "{branch}"
        );
        assert!(branch.contains("- Outcome: SQLite migration is drafted.\n"), "{branch}");
    }

    fn arbitrary_message() -> impl proptest::strategy::Strategy<Value = AgentMessage> {
        use proptest::prelude::*;
        let text: BoxedStrategy<String> =
            "([a-z]{1,8}|Always|Never|I'll|Next,|`[a-z_:]{1,12}`|error\\[E0[0-9]{3}\\]:|[.!?\\n ]|修复|不要|。|é){0,40}"
                .boxed();
        let name =
            prop_oneof![Just("edit"), Just("write"), Just("read"), Just("bash"), Just("grep")];
        prop_oneof![
            text.clone().prop_map(AgentMessage::user_text),
            text.clone().prop_map(|text| assistant(&text, &[])),
            (text.clone(), name.clone(), 0u8..4).prop_map(|(text, name, id)| {
                let id = format!("c{id}");
                assistant(&text, &[(id.as_str(), name, json!({"path": text, "command": text}))])
            }),
            (text.clone(), name, 0u8..4, any::<bool>()).prop_map(|(text, name, id, error)| {
                result(&format!("c{id}"), name, &text, error)
            }),
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
        assert_eq!(summary.matches("- (none)").count(), 8, "{summary}");
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
            max_chars: 4_000,
        });
        assert!(!branch.contains("no result yet"), "{branch}");
        assert!(
            bullets(&branch, "### Done").iter().any(|b| b.contains("`cargo bench`")),
            "{branch}"
        );
    }
}
