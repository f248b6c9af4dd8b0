//! The quality gate's checks: is a summary fit to replace the history it summarizes?
//!
//! [`check_summary`] rejects a summary that is empty, a refusal, cut off by the output limit,
//! missing the checkpoint's structure, or missing a must-keep fact ([`MustKeep`] and the
//! active pins). [`retry_instructions`] tells the summarizer exactly what to fix, and
//! [`repair`] appends a deterministic "Must Keep" section built from the facts when the
//! retry fails too. Orchestration (`Compactor::run`) decides when to call which.
//!
//! What "present" means, precisely (matching is on the summary text as written by the
//! summarizer, before the file-list appendix):
//! - a **modified file**: its path appears verbatim, not as part of a longer path or name
//!   (the characters around it are not letters, digits, `_`, `-` or `/`, and a following
//!   `.` is not followed by a letter or digit);
//! - a **pin**: its text appears with runs of whitespace collapsed to one space (case,
//!   wording and punctuation kept), ignoring surrounding quotes and a final `.`, `!` or `;`;
//! - a **constraint** and the **latest request**: the same, for their opening: the whole
//!   text when it has at most [`QUOTE_CHARS`] characters, otherwise the sentences that end
//!   within the first [`QUOTE_CHARS`] characters (or, with no sentence end there, the words
//!   that fit), so a long pasted request need not be copied whole; sentences of three words
//!   or fewer ("Great, thanks.") may be left out of that opening;
//! - the **unresolved error**: its error line appears whole (whitespace collapsed), or the
//!   summary contains at least two thirds (rounded up) of the line's distinctive tokens,
//!   always including the first. Distinctive tokens are the whitespace-separated words of
//!   the line, stripped of surrounding quotes, brackets and punctuation, that were quoted
//!   (`'rows'`), or contain a digit, `_`, `/`, `.`, `:` or `::`, or an upper-case letter
//!   after the first character,
//!   or are all upper case with at least 3 letters, or are at least 8 characters long
//!   (`E0308`, `TS2353`, `TypeError`, `ENOENT`, `src/lib.rs:42:7`, `check_total`). A line
//!   without such tokens must appear whole.
//!
//! With `keepUserMessagesTokens` on, the user's words in the verbatim user messages section
//! count for constraints, the latest request and pins ([`resolved_by_user_messages`]); the
//! structure, files and errors must be in the summarizer's own text.
//!
//! Invariant: every check is a pure function of its inputs; [`repair`] only appends (or,
//! for a summary with no usable text, replaces) and its result passes every fact check.

use std::fmt;

use serde::Serialize;

use crate::must_keep::{MustKeep, UnresolvedError};
use crate::pins::Pin;

/// The top-level headings of the checkpoint format (`prompts/checkpoint-format.md`).
pub const CHECKPOINT_HEADINGS: [&str; 6] = [
    "Goal",
    "Constraints & Preferences",
    "Progress",
    "Key Decisions",
    "Next Steps",
    "Critical Context",
];

/// Characters of a constraint or request that a summary must quote (see the module docs).
pub const QUOTE_CHARS: usize = 160;

/// The heading of the section [`repair`] appends.
pub const MUST_KEEP_HEADING: &str = "## Must Keep";

/// Openings of a refusal, compared lower-cased with typographic apostrophes straightened.
const REFUSALS: [&str; 16] = [
    "i can't help",
    "i cannot help",
    "i can't assist",
    "i cannot assist",
    "i can't comply",
    "i cannot comply",
    "i can't provide",
    "i cannot provide",
    "i can't do that",
    "i'm sorry, but",
    "i am sorry, but",
    "sorry, but i",
    "i'm unable to",
    "i am unable to",
    "i won't be able",
    "as an ai",
];

/// One reason a summary was rejected.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "camelCase")]
#[non_exhaustive]
pub enum Problem {
    /// The summary has no text (no letter or digit).
    Empty,
    /// The summary is a refusal, not a summary.
    Refusal {
        /// The line that reads as a refusal.
        line: String,
    },
    /// The summarizer stopped at its output limit; the summary may be cut short.
    Truncated,
    /// The checkpoint structure is missing: the `## Goal` heading, or every other one.
    MissingSections {
        /// The headings not found.
        headings: Vec<String>,
    },
    /// A modified file's path is not in the summary.
    MissingFile {
        /// The path.
        path: String,
    },
    /// A constraint of the user is not in the summary in the user's words.
    MissingConstraint {
        /// The constraint, as the user wrote it.
        text: String,
    },
    /// The latest user request is not in the summary verbatim.
    MissingLatestRequest {
        /// The request, as the user wrote it.
        text: String,
    },
    /// The unresolved failure is not recognisable in the summary.
    MissingError {
        /// The command that failed.
        command: String,
        /// Its error line.
        error_line: String,
    },
    /// A pinned instruction is not in the summary verbatim.
    MissingPin {
        /// The pin entry's id.
        id: String,
        /// The pinned text.
        text: String,
    },
}

impl Problem {
    /// Whether the summary's text is unusable as a summary (empty or a refusal): a repair
    /// replaces it instead of appending to it.
    pub fn discards_text(&self) -> bool {
        matches!(self, Problem::Empty | Problem::Refusal { .. })
    }
}

fn shorten(text: &str, chars: usize) -> String {
    let one_line = collapse_whitespace(text);
    match one_line.char_indices().nth(chars) {
        Some((at, _)) => format!("{}…", &one_line[..at]),
        None => one_line,
    }
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Problem::Empty => write!(f, "empty summary"),
            Problem::Refusal { line } => write!(f, "refusal: \"{}\"", shorten(line, 80)),
            Problem::Truncated => {
                write!(f, "cut off at the output limit (raise maxSummaryTokens)")
            }
            Problem::MissingSections { headings } => {
                write!(f, "missing sections: {}", headings.join(", "))
            }
            Problem::MissingFile { path } => write!(f, "missing file {path}"),
            Problem::MissingConstraint { text } => {
                write!(f, "missing constraint \"{}\"", shorten(text, 80))
            }
            Problem::MissingLatestRequest { text } => {
                write!(f, "missing latest request \"{}\"", shorten(text, 80))
            }
            Problem::MissingError { command, error_line } => {
                write!(
                    f,
                    "missing error of `{}`: {}",
                    shorten(command, 60),
                    shorten(error_line, 80)
                )
            }
            Problem::MissingPin { id, .. } => write!(f, "missing pinned instruction {id}"),
        }
    }
}

/// Everything a summary is checked against.
#[derive(Debug, Clone, Copy)]
pub struct GateFacts<'a> {
    /// The must-keep facts of the summarized region.
    pub must_keep: &'a MustKeep,
    /// The pins active at the compacted leaf.
    pub pins: &'a [Pin],
    /// Whether the summary must have the checkpoint's structure (false when only a split
    /// turn's prefix was summarized, which has its own short format).
    pub checkpoint: bool,
}

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
    if truncated {
        problems.push(Problem::Truncated);
    }
    if facts.checkpoint {
        let missing = missing_headings(summary);
        if !missing.is_empty() {
            problems.push(Problem::MissingSections { headings: missing });
        }
    }
    problems.extend(missing_facts(summary, facts));
    problems
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
        if !contains_words(&normalized, &pin.text) {
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
            | Problem::Truncated
            | Problem::MissingSections { .. }
            | Problem::MissingFile { .. }
            | Problem::MissingError { .. } => true,
        })
        .collect()
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

fn heading_text(line: &str) -> Option<&str> {
    let rest = line.trim_start().strip_prefix("## ")?;
    Some(rest.trim().trim_end_matches(':').trim())
}

/// The checkpoint headings the summary lacks, when that breaks the structure: `Goal` is
/// required, and at least one of the other five (empty sections may be left out, so the
/// others are not required one by one).
fn missing_headings(summary: &str) -> Vec<String> {
    let present: Vec<String> =
        summary.lines().filter_map(heading_text).map(str::to_lowercase).collect();
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

fn collapse_whitespace(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn normalize(text: &str) -> String {
    collapse_whitespace(
        &text.replace(['\u{2019}', '\u{2018}'], "'").replace(['\u{201c}', '\u{201d}'], "\""),
    )
}

/// The text a fact must contain: whitespace collapsed, quotes and a final `.`/`!`/`;`
/// stripped.
fn fact_words(text: &str) -> String {
    let normalized = normalize(text);
    normalized
        .trim_matches(|c: char| c == '"' || c == '\'' || c == '`')
        .trim_end_matches(['.', '!', ';'])
        .trim()
        .to_owned()
}

/// The part of a constraint or request a summary must quote: the whole text up to
/// [`QUOTE_CHARS`] characters, else its sentences ending within them, else the words that
/// fit.
pub fn opening(text: &str) -> String {
    let collapsed = collapse_whitespace(text);
    if collapsed.chars().count() <= QUOTE_CHARS {
        return collapsed;
    }
    let limit = collapsed.char_indices().nth(QUOTE_CHARS).map_or(collapsed.len(), |(at, _)| at);
    let head = &collapsed[..limit];
    let sentence_end = head
        .char_indices()
        .filter(|&(at, c)| {
            matches!(c, '.' | '?' | '!' | '。' | '？' | '！')
                && head[at + c.len_utf8()..].chars().next().is_none_or(char::is_whitespace)
        })
        .map(|(at, c)| at + c.len_utf8())
        .next_back();
    match sentence_end {
        Some(end) => head[..end].to_owned(),
        None => match head.rfind(' ') {
            Some(space) if space > 0 => head[..space].to_owned(),
            Some(_) | None => head.to_owned(),
        },
    }
}

/// Whether the summary quotes `text`: its [`opening`], or every sentence of the opening
/// longer than three words.
fn contains_quote(normalized_summary: &str, text: &str) -> bool {
    let opening = opening(text);
    if contains_words(normalized_summary, &opening) {
        return true;
    }
    let mut sentences = Vec::new();
    let mut start = 0;
    for (at, c) in opening.char_indices() {
        let end = at + c.len_utf8();
        if matches!(c, '.' | '?' | '!' | '。' | '？' | '！')
            && opening[end..].chars().next().is_none_or(char::is_whitespace)
        {
            sentences.push(&opening[start..end]);
            start = end;
        }
    }
    sentences.push(&opening[start..]);
    let long: Vec<&str> =
        sentences.into_iter().filter(|s| s.split_whitespace().count() > 3).collect();
    !long.is_empty() && long.iter().all(|sentence| contains_words(normalized_summary, sentence))
}

/// [`opening`], marked with `…` when it is shorter than the text.
fn quoted_opening(text: &str) -> String {
    let opening = opening(text);
    if opening.len() < collapse_whitespace(text).len() { format!("{opening} …") } else { opening }
}

fn contains_words(normalized_summary: &str, text: &str) -> bool {
    let words = fact_words(text);
    words.is_empty() || normalized_summary.contains(&words)
}

fn is_path_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_' || c == '-' || c == '/'
}

fn contains_path(summary: &str, path: &str) -> bool {
    if path.is_empty() {
        return true;
    }
    summary.match_indices(path).any(|(at, _)| {
        let before = summary[..at].chars().next_back();
        let mut after = summary[at + path.len()..].chars();
        let next = after.next();
        let before_ok = before.is_none_or(|c| !is_path_char(c) && c != '.');
        let after_ok = match next {
            None => true,
            Some('.') => after.next().is_none_or(|c| !c.is_alphanumeric()),
            Some(c) => !is_path_char(c),
        };
        before_ok && after_ok
    })
}

/// The distinctive tokens of an error line (see the module documentation).
pub fn distinctive_tokens(line: &str) -> Vec<String> {
    let mut tokens: Vec<String> = Vec::new();
    for word in line.split_whitespace() {
        let token = word.trim_matches(|c: char| !c.is_alphanumeric() && c != '_' && c != '/');
        if token.is_empty() {
            continue;
        }
        let letters: Vec<char> = token.chars().filter(|c| c.is_alphabetic()).collect();
        let quoted = word.trim_end_matches(['.', ',', ':', ';', ')']).ends_with(['\'', '"', '`'])
            || word.trim_start_matches('(').starts_with(['\'', '"', '`']);
        let distinctive = quoted
            || token.chars().any(|c| c.is_ascii_digit())
            || token.contains(['_', '/', '.', ':'])
            || token.chars().skip(1).any(char::is_uppercase)
            || (letters.len() >= 3 && letters.iter().all(|c| c.is_uppercase()))
            || token.chars().count() >= 8;
        if distinctive && !tokens.iter().any(|t| t == token) {
            tokens.push(token.to_owned());
        }
    }
    tokens
}

fn recognises_error(summary: &str, normalized_summary: &str, error_line: &str) -> bool {
    if contains_words(normalized_summary, error_line) {
        return true;
    }
    let tokens = distinctive_tokens(error_line);
    let Some(first) = tokens.first() else { return false };
    if !summary.contains(first.as_str()) {
        return false;
    }
    let found = tokens.iter().filter(|token| summary.contains(token.as_str())).count();
    found * 3 >= tokens.len() * 2
}

/// The instructions for the one retry: what the rejected summary got wrong, with the exact
/// text to include.
pub fn retry_instructions(problems: &[Problem]) -> String {
    let mut text = String::from(
        "A previous attempt at this summary was rejected. Write the whole summary again and fix \
         every point below.\n",
    );
    for problem in problems {
        let line = match problem {
            Problem::Empty => "- It was empty: write the full checkpoint.".to_owned(),
            Problem::Refusal { .. } => {
                "- It was a refusal. Summarizing this conversation is the task; \
                 write the checkpoint."
                    .to_owned()
            }
            Problem::Truncated => "- It was cut off at the output limit: write a shorter summary \
                 that ends properly."
                .to_owned(),
            Problem::MissingSections { headings } => format!(
                "- It lacked the checkpoint structure. Use these headings: {}.",
                headings.iter().map(|h| format!("`## {h}`")).collect::<Vec<_>>().join(", ")
            ),
            Problem::MissingFile { path } => {
                format!("- It did not name the modified file `{path}`; name it exactly.")
            }
            Problem::MissingConstraint { text } => format!(
                "- It left out the user's constraint; quote it word for word under Constraints & \
                 Preferences: \"{}\"",
                quoted_opening(text)
            ),
            Problem::MissingLatestRequest { text } => format!(
                "- It left out the user's latest request; end the Goal with it verbatim: \
                 Latest request: \"{}\"",
                quoted_opening(text)
            ),
            Problem::MissingError { command, error_line } => format!(
                "- It left out the unresolved failure of `{}`; quote its error line under \
                 Blocked: {}",
                collapse_whitespace(command),
                collapse_whitespace(error_line)
            ),
            Problem::MissingPin { text, .. } => format!(
                "- It left out an instruction the user pinned; copy it word for word into the \
                 `## Pinned Instructions` section at the top: \"{}\"",
                collapse_whitespace(text)
            ),
        };
        text.push_str(&line);
        text.push('\n');
    }
    text
}

/// The summary with a deterministic "Must Keep" section appended, built from the facts the
/// problems name. An empty or refused summary is replaced by the section (its text is not
/// a summary); a cut-off or unstructured one keeps its text and gets every fact.
pub fn repair(summary: &str, problems: &[Problem], facts: &GateFacts<'_>) -> String {
    let discard = problems.iter().any(Problem::discards_text);
    let whole = problems.iter().any(|problem| {
        matches!(
            problem,
            Problem::Empty
                | Problem::Refusal { .. }
                | Problem::Truncated
                | Problem::MissingSections { .. }
        )
    });
    let mut section = String::from(MUST_KEEP_HEADING);
    section.push('\n');
    if problems.iter().any(|p| matches!(p, Problem::Truncated)) && !discard {
        section.push_str("(The summary above was cut off at the output limit.)\n");
    }
    let wanted = |problem: &Problem| whole || problems.contains(problem);
    for path in &facts.must_keep.modified_files {
        if wanted(&Problem::MissingFile { path: path.clone() }) {
            section.push_str(&format!("- Modified: `{path}`\n"));
        }
    }
    for text in &facts.must_keep.constraints {
        if wanted(&Problem::MissingConstraint { text: text.clone() }) {
            section
                .push_str(&format!("- Constraint (user's words): \"{}\"\n", quoted_opening(text)));
        }
    }
    if let Some(text) = &facts.must_keep.latest_request
        && wanted(&Problem::MissingLatestRequest { text: text.clone() })
    {
        section.push_str(&format!("- Latest request: \"{}\"\n", quoted_opening(text)));
    }
    if let Some(UnresolvedError { command, error_line }) = &facts.must_keep.unresolved_error
        && wanted(&Problem::MissingError {
            command: command.clone(),
            error_line: error_line.clone(),
        })
    {
        section.push_str(&format!(
            "- Unresolved failure: `{}` failed with: {}\n",
            collapse_whitespace(command),
            collapse_whitespace(error_line)
        ));
    }
    for pin in facts.pins {
        if wanted(&Problem::MissingPin { id: pin.id.clone(), text: pin.text.clone() }) {
            section.push_str("- Pinned instruction:\n\n");
            crate::pins::push_pinned_element(&mut section, &pin.text);
            section.push('\n');
        }
    }
    if discard {
        return section.trim_end().to_owned();
    }
    format!("{}\n\n{}", summary.trim_end(), section.trim_end())
}

/// What the gate did, as recorded in the compaction entry's `details.quality`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct QualityReport {
    /// `passed` (the summarizer's summary passed, possibly after the retry) or `repaired`
    /// (a Must Keep section was added).
    pub status: QualityStatus,
    /// Summarizer attempts: 1, or 2 after a retry.
    pub attempts: u32,
    /// What the last attempt's summary lacked (empty when it passed).
    pub missing: Vec<String>,
    /// What the first attempt's summary lacked, when a retry was made.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub first_attempt_missing: Vec<String>,
}

/// The gate's verdict.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum QualityStatus {
    /// The summary passed every check.
    Passed,
    /// The summary failed the checks twice; a Must Keep section was appended.
    Repaired,
}

impl QualityStatus {
    /// `passed` or `repaired`.
    pub fn as_str(self) -> &'static str {
        match self {
            QualityStatus::Passed => "passed",
            QualityStatus::Repaired => "repaired",
        }
    }
}

/// Problems as the strings recorded in `details.quality.missing`.
pub fn describe(problems: &[Problem]) -> Vec<String> {
    problems.iter().map(ToString::to_string).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn facts() -> MustKeep {
        MustKeep {
            modified_files: vec!["src/export.ts".into(), "README.md".into()],
            constraints: vec!["Never change the file format.".into()],
            latest_request: Some("Now run the tests.".into()),
            unresolved_error: Some(UnresolvedError {
                command: "npm test".into(),
                error_line: "error TS2353: Object literal may only specify known properties, and 'rows' does not exist in type 'Options'.".into(),
            }),
        }
    }

    fn pins() -> Vec<Pin> {
        vec![Pin {
            id: "p1".into(),
            text: "Use rgb values,\n  no indices".into(),
            source_entry_id: None,
        }]
    }

    const GOOD: &str = "## Goal\nPort the exporter. Latest request: \"Now run the tests.\"\n\n\
        ## Constraints & Preferences\n- \"Never change the file format\"\n- Use rgb values, no indices\n\n\
        ## Progress\n### Done\n- Edited `src/export.ts` and README.md.\n### Blocked\n\
        - `npm test`: error TS2353 ('rows' does not exist in type 'Options')\n";

    fn check(summary: &str, truncated: bool) -> Vec<Problem> {
        let must_keep = facts();
        let pins = pins();
        check_summary(
            summary,
            truncated,
            &GateFacts { must_keep: &must_keep, pins: &pins, checkpoint: true },
        )
    }

    #[test]
    fn a_summary_with_every_fact_passes() {
        assert_eq!(check(GOOD, false), []);
    }

    #[test]
    fn empty_refusal_and_truncation_are_rejected() {
        assert_eq!(check("  \n## \n", false), [Problem::Empty]);
        assert!(matches!(
            check("I’m sorry, but I can't help with that.", false).first(),
            Some(Problem::Refusal { .. })
        ));
        assert!(
            check("I can't help with summarizing this.", false)
                .iter()
                .any(|p| matches!(p, Problem::Refusal { .. }))
        );
        assert!(check(GOOD, true).contains(&Problem::Truncated));
        // A quoted apology deep inside a long summary is not a refusal.
        let long = format!(
            "{GOOD}\n## Critical Context\n- The user wrote: \"I'm sorry, but the build is red\".\n{}",
            "x ".repeat(300)
        );
        assert_eq!(check(&long, false), []);
    }

    #[test]
    fn sections_need_goal_and_one_more() {
        let no_goal = GOOD.replace("## Goal", "## Aim");
        assert_eq!(
            check(&no_goal, false),
            [Problem::MissingSections { headings: vec!["Goal".into()] }]
        );
        assert!(matches!(
            check("Latest request: \"Now run the tests.\" Never change the file format. src/export.ts README.md Use rgb values, no indices; error TS2353 'Options'", false).first(),
            Some(Problem::MissingSections { .. })
        ));
    }

    #[test]
    fn paths_must_appear_whole() {
        let summary = GOOD.replace("`src/export.ts`", "`src/export.tsx`");
        assert_eq!(check(&summary, false), [Problem::MissingFile { path: "src/export.ts".into() }]);
        assert!(contains_path("Edited src/export.ts.", "src/export.ts"));
        assert!(!contains_path("Edited lib/src/export.ts", "src/export.ts"));
        assert!(!contains_path("Edited src/export.ts.bak", "src/export.ts"));
    }

    #[test]
    fn constraints_requests_and_pins_need_the_users_words() {
        let summary = GOOD
            .replace("Never change the file format", "Do not alter the format")
            .replace("Now run the tests.", "run tests")
            .replace("Use rgb values, no indices", "Use rgb values");
        assert_eq!(
            check(&summary, false),
            [
                Problem::MissingConstraint { text: "Never change the file format.".into() },
                Problem::MissingLatestRequest { text: "Now run the tests.".into() },
                Problem::MissingPin {
                    id: "p1".into(),
                    text: "Use rgb values,\n  no indices".into()
                },
            ]
        );
    }

    #[test]
    fn a_long_request_is_quoted_by_its_opening_sentences() {
        let long =
            format!("Please continue with step 7. Keep going. {}", "filler text ".repeat(40));
        assert_eq!(opening(&long), "Please continue with step 7. Keep going.");
        let words = "word ".repeat(60);
        assert_eq!(opening(&words).chars().count(), 159);
        assert_eq!(opening("Short one."), "Short one.");
        // A short courtesy sentence may be left out; a long one may not.
        let polite = "Great, thanks. Now add support for comments to the lexer.";
        assert!(contains_quote("Request: Now add support for comments to the lexer.", polite));
        assert!(!contains_quote("Request: Great, thanks. Now add comments.", polite));
        let must_keep = MustKeep { latest_request: Some(long.clone()), ..MustKeep::default() };
        let gate = GateFacts { must_keep: &must_keep, pins: &[], checkpoint: false };
        assert_eq!(
            missing_facts("- Latest request: Please continue with step 7. Keep going.", &gate),
            []
        );
        let problems = missing_facts("nothing", &gate);
        let repaired = repair("nothing", &problems, &gate);
        assert!(repaired.ends_with("\"Please continue with step 7. Keep going. …\""), "{repaired}");
        assert_eq!(missing_facts(&repaired, &gate), []);
    }

    #[test]
    fn an_error_line_may_be_abbreviated_but_must_be_recognisable() {
        assert_eq!(
            distinctive_tokens(
                "error TS2353: Object literal may only specify known properties, and 'rows' does not exist in type 'Options'."
            ),
            ["TS2353", "properties", "rows", "Options"]
        );
        // Three of four tokens including the first: recognisable.
        let abbreviated = GOOD.replace(
            "error TS2353 ('rows' does not exist in type 'Options')",
            "TS2353, rows not in Options",
        );
        assert_eq!(check(&abbreviated, false), []);
        // Without the first (the error code), not recognisable.
        let vague = GOOD.replace(
            "error TS2353 ('rows' does not exist in type 'Options')",
            "a type error about Options properties",
        );
        assert!(matches!(check(&vague, false).as_slice(), [Problem::MissingError { .. }]));
    }

    #[test]
    fn the_users_words_in_the_kept_messages_count_for_requests_constraints_and_pins() {
        let summary = "## Goal\n- CSV export\n\n## Progress\n- started";
        let facts = facts();
        let pins = pins();
        let gate = GateFacts { must_keep: &facts, pins: &pins, checkpoint: true };
        let problems = check_summary(summary, false, &gate);
        let section = format!(
            "## User messages (verbatim)\n\n```text\n{}\n{}\n{}\n```",
            facts.latest_request.clone().unwrap_or_default(),
            facts.constraints.join("\n"),
            pins.iter().map(|pin| pin.text.as_str()).collect::<Vec<_>>().join("\n")
        );
        let left = resolved_by_user_messages(problems.clone(), &section, &gate);
        // Files and the error are the summarizer's job; the user's words are resolved.
        assert!(
            left.iter().all(|problem| matches!(
                problem,
                Problem::MissingFile { .. } | Problem::MissingError { .. }
            )),
            "{left:?}"
        );
        assert!(left.len() < problems.len());
        assert_eq!(resolved_by_user_messages(problems.clone(), "", &gate), problems);
    }

    #[test]
    fn repair_appends_only_missing_facts_and_then_passes() {
        let must_keep = facts();
        let pins = pins();
        let gate = GateFacts { must_keep: &must_keep, pins: &pins, checkpoint: true };
        let summary = GOOD
            .replace("`src/export.ts`", "the exporter")
            .replace("- Use rgb values, no indices\n", "");
        let problems = check_summary(&summary, false, &gate);
        let repaired = repair(&summary, &problems, &gate);
        assert!(repaired.starts_with(summary.trim_end()));
        assert!(repaired.ends_with("## Must Keep\n- Modified: `src/export.ts`\n- Pinned instruction:\n\n<pinned-instruction>\nUse rgb values,\n  no indices\n</pinned-instruction>"), "{repaired}");
        assert_eq!(check_summary(&repaired, false, &gate), []);
    }

    #[test]
    fn repair_replaces_a_refusal_with_every_fact() {
        let must_keep = facts();
        let pins = pins();
        let gate = GateFacts { must_keep: &must_keep, pins: &pins, checkpoint: false };
        let refusal = "I'm sorry, but I can't help with that.";
        let problems = check_summary(refusal, false, &gate);
        let repaired = repair(refusal, &problems, &gate);
        assert!(
            repaired.starts_with(MUST_KEEP_HEADING) && !repaired.contains("sorry"),
            "{repaired}"
        );
        assert_eq!(missing_facts(&repaired, &gate), []);
        assert!(retry_instructions(&problems).contains("refusal"));
    }
}
