//! The checks: empty, refusal, cut off, structure, and the must-keep facts, each a
//! [`Problem`] when it fails; facts the verbatim user messages quote count as kept.

use crate::must_keep::UnresolvedError;

use super::matching::*;
use super::*;

/// Every problem of `summary`; empty when it passes. `truncated` is the summarizer's signal
/// that it stopped at the output limit.
pub fn check_summary(summary: &str, truncated: bool, facts: &GateFacts<'_>) -> Vec<Problem> {
    if !summary.chars().any(char::is_alphanumeric) {
        return vec![Problem::Empty];
    }
    let mut problems = Vec::new();
    if let Some(line) = refusal_line(summary) {
        problems.push(Problem::Refusal { line });
    }
    if let Some(what) = echo(summary) {
        problems.push(Problem::Echo { what });
    }
    if truncated {
        problems.push(Problem::Truncated);
    }
    if facts.checkpoint {
        let missing = missing_headings(summary);
        if !missing.is_empty() {
            problems.push(Problem::MissingSections { headings: missing });
        }
    }
    let minimum = minimum_words(facts.summarized_tokens, facts.checkpoint);
    let words = content_words(summary);
    if words < minimum {
        problems.push(Problem::TooShort { words, minimum });
    }
    problems.extend(missing_facts(summary, facts));
    problems
}

/// Whether a summary (as [`normalize`] gives it) holds `pin`'s text: copied as given, or
/// as its element shows it (delimiters escaped).
pub(super) fn holds_pin(normalized: &str, pin: &Pin) -> bool {
    contains_words(normalized, &pin.text)
        || contains_words(normalized, &crate::serialize::escape_delimiters(&pin.text))
}

/// The must-keep facts and pins `summary` lacks (no structural checks).
pub fn missing_facts(summary: &str, facts: &GateFacts<'_>) -> Vec<Problem> {
    let normalized = normalize(summary);
    let mut problems = Vec::new();
    for path in &facts.must_keep.modified_files {
        if !contains_path(summary, path) {
            problems.push(Problem::MissingFile { path: path.clone() });
        }
    }
    for text in &facts.must_keep.constraints {
        if !contains_quote(&normalized, text) {
            problems.push(Problem::MissingConstraint { text: text.clone() });
        }
    }
    if let Some(text) = &facts.must_keep.latest_request
        && !contains_quote(&normalized, text)
    {
        problems.push(Problem::MissingLatestRequest { text: text.clone() });
    }
    if let Some(UnresolvedError { command, error_line }) = &facts.must_keep.unresolved_error
        && !recognises_error(summary, &normalized, error_line)
    {
        problems.push(Problem::MissingError {
            command: command.clone(),
            error_line: error_line.clone(),
        });
    }
    for pin in facts.pins {
        if !holds_pin(&normalized, pin) {
            problems.push(Problem::MissingPin { id: pin.id.clone(), text: pin.text.clone() });
        }
    }
    problems
}

/// `problems` less the ones that `kept_user_messages` (the verbatim user messages section
/// stored after the summary, see [`crate::user_messages`]) resolves: a constraint, the
/// latest request or a pin that the section quotes in the user's words is kept in the
/// context as surely as in the summary. Every other problem stays: structure, files and
/// errors are the summarizer's job.
pub fn resolved_by_user_messages(
    problems: Vec<Problem>,
    kept_user_messages: &str,
    facts: &GateFacts<'_>,
) -> Vec<Problem> {
    let still_missing = missing_facts(kept_user_messages, facts);
    problems
        .into_iter()
        .filter(|problem| match problem {
            Problem::MissingConstraint { .. }
            | Problem::MissingLatestRequest { .. }
            | Problem::MissingPin { .. } => still_missing.contains(problem),
            Problem::Empty
            | Problem::Refusal { .. }
            | Problem::Echo { .. }
            | Problem::Truncated
            | Problem::MissingSections { .. }
            | Problem::TooShort { .. }
            | Problem::MissingFile { .. }
            | Problem::MissingError { .. } => true,
        })
        .collect()
}

/// Tags that start a line of what the summarizer is sent (our fences and the transcript's
/// blocks) or of a chat template, never a line of a summary written for it. A pinned
/// instruction's tag is left out: the summary repeats pins in it.
const ECHO_TAGS: &[&str] = &[
    "<conversation>",
    "</conversation>",
    "<previous-summary>",
    "</previous-summary>",
    "<instructions>",
    "</instructions>",
    "<user>",
    "</user>",
    "<assistant>",
    "<assistant ",
    "</assistant>",
    "<tool-call ",
    "<tool-call>",
    "</tool-call>",
    "<tool-result ",
    "<tool-result>",
    "</tool-result>",
    "<thinking>",
    "</thinking>",
    "<interruption>",
    "<start_of_turn>",
    "<end_of_turn>",
    "<|im_start|>",
    "<|im_end|>",
];

/// Characters a sentence of our prompts must have to count as echoed when a summary holds it.
const ECHO_LINE_CHARS: usize = 60;

/// What `summary` echoes of the request, if anything: a line that starts with one of
/// `ECHO_TAGS` (our fences, the transcript's tags, chat-template markers), or a sentence of
/// our prompt texts of `ECHO_LINE_CHARS` (60) or more
/// characters (whitespace collapsed), quoted.
pub fn echo(summary: &str) -> Option<String> {
    for line in summary.lines() {
        let trimmed = line.trim_start().to_lowercase();
        if let Some(tag) = ECHO_TAGS.iter().find(|tag| trimmed.starts_with(*tag)) {
            return Some(format!("a line starts with the tag {}", tag.trim_end()));
        }
    }
    let normalized = normalize(summary);
    let prompts = [
        crate::prompts::SYSTEM_PROMPT,
        crate::prompts::HISTORY_PROMPT,
        crate::prompts::UPDATE_PROMPT,
        crate::prompts::TURN_PREFIX_PROMPT,
        crate::prompts::BRANCH_PROMPT,
        crate::prompts::PINS_PROMPT,
    ];
    // Each sentence of each line (a paragraph is one line in the prompt files).
    let sentences = prompts
        .iter()
        .flat_map(|prompt| prompt.lines())
        .flat_map(|line| line.split_inclusive(". "))
        .map(|sentence| normalize(sentence.trim().trim_start_matches(['-', '*', ' '])));
    sentences
        .filter(|sentence| sentence.chars().count() >= ECHO_LINE_CHARS)
        .find(|sentence| normalized.contains(sentence.as_str()))
        .map(|sentence| {
            let shown: String = sentence.chars().take(60).collect();
            format!("it repeats the prompt's words \"{shown}…\"")
        })
}

fn refusal_line(summary: &str) -> Option<String> {
    let first = summary.lines().map(str::trim).find(|line| !line.is_empty())?;
    let short = summary.trim().chars().count() < 400;
    let candidates: Vec<&str> = if short { summary.lines().collect() } else { vec![first] };
    candidates.into_iter().find_map(|line| {
        let lowered = line.to_lowercase().replace(['\u{2019}', '\u{2018}'], "'");
        let lowered = lowered.trim_start_matches(|c: char| !c.is_alphanumeric());
        REFUSALS
            .iter()
            .any(|phrase| lowered.starts_with(phrase) || (short && lowered.contains(phrase)))
            .then(|| line.trim().to_owned())
    })
}

/// Words with a letter or digit outside heading lines (Markdown headings of level 1 to 4, and
/// lines of bold text alone).
pub fn content_words(summary: &str) -> u64 {
    summary
        .lines()
        .filter(|line| heading_text(line).is_none())
        .flat_map(str::split_whitespace)
        .filter(|word| word.chars().any(char::is_alphanumeric))
        .count() as u64
}

/// The text of a heading line: a Markdown heading of level 1 to 4 (`## Goal`), or a line
/// that is bold text alone (`**Goal:**`), with a trailing `:` and a leading number (`1.`)
/// left out. Models write the checkpoint's headings in each of these ways.
fn heading_text(line: &str) -> Option<String> {
    let line = line.trim();
    let hashes = line.chars().take_while(|c| *c == '#').count();
    let text = if (1..=4).contains(&hashes) {
        line[hashes..].strip_prefix(' ')?
    } else {
        let rest = line.strip_prefix("**")?;
        rest.strip_suffix("**").or_else(|| rest.strip_suffix("**:"))?
    };
    let text = text.trim().trim_matches('*').trim().trim_end_matches(':').trim();
    let text = text.trim_start_matches(|c: char| c.is_ascii_digit() || c == '.' || c == ')');
    Some(text.trim().replace(" and ", " & ").to_lowercase())
}

/// The checkpoint headings the summary lacks, when that breaks the structure: `Goal` is
/// required, and at least one of the other five (empty sections may be left out, so the
/// others are not required one by one).
fn missing_headings(summary: &str) -> Vec<String> {
    let present: Vec<String> = summary.lines().filter_map(heading_text).collect();
    let has = |heading: &str| present.iter().any(|p| p == &heading.to_lowercase());
    let goal = has(CHECKPOINT_HEADINGS[0]);
    let others = CHECKPOINT_HEADINGS[1..].iter().any(|heading| has(heading));
    match (goal, others) {
        (true, true) => Vec::new(),
        (false, true) => vec![CHECKPOINT_HEADINGS[0].to_owned()],
        (true, false) => CHECKPOINT_HEADINGS[1..].iter().map(|h| (*h).to_owned()).collect(),
        (false, false) => CHECKPOINT_HEADINGS.iter().map(|h| (*h).to_owned()).collect(),
    }
}
