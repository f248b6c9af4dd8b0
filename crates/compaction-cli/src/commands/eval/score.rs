//! Scoring: what the context after the last compaction answers, and what it contradicts.
//!
//! The context is read as items: each line of the last summary (with the heading or tag
//! block it lies directly under), each paragraph of the kept messages (the session's own
//! words after the cut, tool arguments, pins). An expected string counts only in an item
//! that also holds one of the probe's `subject` strings (when the probe names one) outside
//! the expected string itself, so a bare identifier elsewhere answers nothing and an answer
//! does not name its own subject. From the summary it counts only on a line
//! that does not contradict it: a line under `Blocked` answers only `continuation` and
//! `open` probes (what fails now, what nobody solved), and a line that says `rejected`
//! answers no `decision` probe.
//!
//! Each probe ends in one outcome: `contradicted` when an `absent` rule matches a line of
//! the summary or of the pinned instructions (a must-not stated as current), else
//! `answered` when every expected string counts, `partial` when some do, `missed` when none
//! does. An answer says whether the summary alone gave it.
//!
//! Invariant: normalisation is the same for expected strings, subjects and items:
//! lowercase, whitespace runs collapsed to one space.

use std::collections::BTreeMap;

use compaction_core::grade::{self, SummaryLine, normalize};
use serde::Serialize;

use super::probes::{Absent, Probe};

/// How a probe fared.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub(super) enum Outcome {
    Answered,
    Partial,
    Missed,
    Contradicted,
}

/// Where an answered probe's expected strings were found.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub(super) enum Source {
    /// Every expected string is on a summary line that may answer it (or the probe only
    /// forbids statements).
    Summary,
    /// Some expected string is only in the kept messages.
    Kept,
}

/// One probe's result.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct Graded {
    pub(super) category: String,
    pub(super) question: String,
    pub(super) outcome: Outcome,
    /// For an answered probe: where the answer came from.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) source: Option<Source>,
    /// Expected strings found in no item that names the subject (outside the string).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub(super) missing: Vec<String>,
    /// Of `missing`: strings the context holds, but only away from the subject.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub(super) off_subject: Vec<String>,
    /// Of `missing`: strings found only on summary lines that contradict them (a fixed
    /// error under `Blocked`, a decision on a `rejected` line).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub(super) misplaced: Vec<String>,
    /// Lines of the summary or the pins that make a statement an `absent` rule forbids.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub(super) stated: Vec<String>,
}

/// Per category: how many probes had each outcome.
#[derive(Debug, Default, Clone, Copy, Serialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct Tally {
    pub(super) total: usize,
    pub(super) answered: usize,
    /// Answered from the summary alone.
    pub(super) from_summary: usize,
    pub(super) partial: usize,
    pub(super) missed: usize,
    pub(super) contradicted: usize,
}

impl Tally {
    pub(super) fn add(&mut self, other: &Tally) {
        self.total += other.total;
        self.answered += other.answered;
        self.from_summary += other.from_summary;
        self.partial += other.partial;
        self.missed += other.missed;
        self.contradicted += other.contradicted;
    }

    fn count(&mut self, graded: &Graded) {
        self.total += 1;
        match graded.outcome {
            Outcome::Answered => self.answered += 1,
            Outcome::Partial => self.partial += 1,
            Outcome::Missed => self.missed += 1,
            Outcome::Contradicted => self.contradicted += 1,
        }
        if graded.source == Some(Source::Summary) {
            self.from_summary += 1;
        }
    }
}

/// The context after the last compaction, as the scorer reads it.
pub(super) struct Context<'a> {
    /// The last summary.
    pub(super) summary: Option<&'a str>,
    /// The texts of the kept messages (message text, tool arguments, …), one per string.
    pub(super) kept: &'a [String],
    /// The pinned instructions the context carries.
    pub(super) pins: &'a [String],
}

/// Scores `probes` against `context`: each probe's result, and a tally per category.
pub(super) fn score(
    probes: &[Probe],
    context: &Context<'_>,
) -> (Vec<Graded>, BTreeMap<String, Tally>) {
    let lines = context.summary.map(grade::summary_lines).unwrap_or_default();
    let pins: Vec<SummaryLine> = context
        .pins
        .iter()
        .flat_map(|pin| pin.lines())
        .filter(|line| !line.trim().is_empty())
        .map(|line| SummaryLine { line: normalize(line), sections: vec!["pins".to_owned()] })
        .collect();
    let paragraphs: Vec<String> = context.kept.iter().flat_map(|text| paragraphs(text)).collect();
    let mut graded = Vec::new();
    let mut tallies: BTreeMap<String, Tally> = BTreeMap::new();
    for probe in probes {
        let result = grade(probe, &lines, &pins, &paragraphs);
        tallies.entry(probe.category.clone()).or_default().count(&result);
        graded.push(result);
    }
    (graded, tallies)
}

fn grade(
    probe: &Probe,
    lines: &[SummaryLine],
    pins: &[SummaryLine],
    paragraphs: &[String],
) -> Graded {
    let subjects: Vec<String> =
        probe.subject.iter().map(|s| normalize(s)).filter(|s| !s.is_empty()).collect();
    let names_subject =
        |text: &str| subjects.is_empty() || subjects.iter().any(|s| text.contains(s.as_str()));
    let expected: Vec<&String> = probe.expect.iter().filter(|e| !e.trim().is_empty()).collect();
    let mut missing = Vec::new();
    let mut off_subject = Vec::new();
    let mut misplaced = Vec::new();
    let mut all_in_summary = true;
    for text in &expected {
        let wanted = normalize(text);
        let on_subject: Vec<&SummaryLine> = lines
            .iter()
            .filter(|line| line.line.contains(wanted.as_str()))
            .filter(|line| {
                names_subject(&line.line.replace(wanted.as_str(), "\u{0}"))
                    || line.sections.last().is_some_and(|s| names_subject(s))
            })
            .collect();
        let in_summary = on_subject.iter().any(|line| line_may_answer(&probe.category, line));
        let in_kept = paragraphs.iter().any(|p| {
            p.contains(wanted.as_str()) && names_subject(&p.replace(wanted.as_str(), "\u{0}"))
        });
        all_in_summary &= in_summary;
        if in_summary || in_kept {
            continue;
        }
        missing.push((*text).clone());
        if !on_subject.is_empty() {
            misplaced.push((*text).clone());
        } else if lines.iter().any(|line| line.line.contains(wanted.as_str()))
            || paragraphs.iter().any(|p| p.contains(wanted.as_str()))
        {
            off_subject.push((*text).clone());
        }
    }
    let stated: Vec<String> = probe
        .absent
        .iter()
        .flat_map(|rule| violations(rule, lines).into_iter().chain(violations(rule, pins)))
        .collect();
    let found = expected.len() - missing.len();
    let outcome = if !stated.is_empty() {
        Outcome::Contradicted
    } else if missing.is_empty() {
        Outcome::Answered
    } else if found > 0 {
        Outcome::Partial
    } else {
        Outcome::Missed
    };
    let source = (outcome == Outcome::Answered).then_some(if all_in_summary {
        Source::Summary
    } else {
        Source::Kept
    });
    Graded {
        category: probe.category.clone(),
        question: probe.question.clone(),
        outcome,
        source,
        missing,
        off_subject,
        misplaced,
        stated,
    }
}

/// Whether a summary line may answer a probe of `category`.
fn line_may_answer(category: &str, line: &SummaryLine) -> bool {
    let blocked = line.sections.iter().any(|section| section.contains("blocked"));
    match category {
        "continuation" | "open" => true,
        "decision" => !blocked && !line.line.contains("rejected"),
        _ => !blocked,
    }
}

/// The paragraphs of `text` (runs of non-blank lines), normalized.
fn paragraphs(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut current = String::new();
    for line in text.lines() {
        if line.trim().is_empty() {
            if !current.is_empty() {
                out.push(normalize(&current));
                current.clear();
            }
            continue;
        }
        current.push_str(line);
        current.push('\n');
    }
    if !current.is_empty() {
        out.push(normalize(&current));
    }
    out
}

/// The lines that break `rule`, each named with the rule's text. A line that names one of
/// the rule's strings only as what was replaced (`A → B`: each time it occurs, an arrow
/// follows it) does not state it as current.
pub(super) fn violations(rule: &Absent, lines: &[SummaryLine]) -> Vec<String> {
    let wanted: Vec<String> = rule.sections.iter().map(|section| normalize(section)).collect();
    let texts: Vec<String> = rule.text.iter().map(|text| normalize(text)).collect();
    grade::stated_as_current(lines, &texts, &wanted)
        .map(|line| format!("{} in: {}", rule.text.join(" + "), line.line))
        .collect()
}

#[cfg(test)]
#[path = "score_tests.rs"]
mod tests;
