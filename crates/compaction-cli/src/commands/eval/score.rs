//! Scoring: which probes the context answers after the last compaction, and from where.
//!
//! A probe is answered when each expected string occurs in the context, and no `absent`
//! rule matches a line of the last summary. An expected string counts from the summary only
//! on a line that does not contradict it: a line under `Blocked` answers only `continuation`
//! probes (what fails now), and a line that says `rejected` answers no `decision` probe. Each
//! answer says where it came from: the summary alone, or the kept messages (the session's
//! own words, which a summary did not have to carry).
//!
//! Invariant: normalisation is the same for expected strings, summary lines and kept text:
//! lowercase, whitespace runs collapsed to one space.

use std::collections::BTreeMap;

use serde::Serialize;

use super::probes::{Absent, Probe};

/// Where an answered probe's expected strings were found.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub(super) enum Source {
    /// Every expected string is on a summary line that does not contradict it (or the
    /// probe only forbids statements).
    Summary,
    /// Some expected string is only in the kept messages.
    Kept,
}

/// An answered probe.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct Answer {
    pub(super) category: String,
    pub(super) question: String,
    pub(super) source: Source,
}

/// A probe the context does not answer.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct Miss {
    pub(super) category: String,
    pub(super) question: String,
    pub(super) missing: Vec<String>,
    /// Summary lines that make a statement an `absent` rule forbids.
    pub(super) present: Vec<String>,
    /// Expected strings found only on summary lines that contradict them (a fixed error
    /// under `Blocked`, a decision on a `rejected` line).
    pub(super) contradicted: Vec<String>,
}

/// The probes' outcome.
#[derive(Debug, Default)]
pub(super) struct Scored {
    /// Category → [answered, total].
    pub(super) scores: BTreeMap<String, [usize; 2]>,
    /// Category → answered from the summary alone.
    pub(super) from_summary: BTreeMap<String, usize>,
    pub(super) answers: Vec<Answer>,
    pub(super) misses: Vec<Miss>,
}

/// Whether a summary line may answer a probe of `category`.
fn line_may_answer(category: &str, line: &SectionLine) -> bool {
    let blocked = line.sections.iter().any(|section| section.contains("blocked"));
    match category {
        "continuation" => true,
        "decision" => !blocked && !line.line.contains("rejected"),
        _ => !blocked,
    }
}

/// Scores `probes` against the last summary and the kept messages.
pub(super) fn score(probes: &[Probe], summary: Option<&str>, kept: &str) -> Scored {
    let lines = summary.map(section_lines).unwrap_or_default();
    let kept = normalize(kept);
    let mut scored = Scored::default();
    for probe in probes {
        let slot = scored.scores.entry(probe.category.clone()).or_default();
        slot[1] += 1;
        let mut missing = Vec::new();
        let mut contradicted = Vec::new();
        let mut all_in_summary = true;
        for expected in &probe.expect {
            let wanted = normalize(expected);
            let on_lines: Vec<&SectionLine> =
                lines.iter().filter(|line| line.line.contains(wanted.as_str())).collect();
            let in_summary = on_lines.iter().any(|line| line_may_answer(&probe.category, line));
            let in_kept = kept.contains(wanted.as_str());
            if !in_summary {
                all_in_summary = false;
            }
            if !in_summary && !in_kept {
                if on_lines.is_empty() {
                    missing.push(expected.clone());
                } else {
                    contradicted.push(expected.clone());
                }
            }
        }
        let present: Vec<String> =
            probe.absent.iter().flat_map(|rule| violations(rule, &lines)).collect();
        if missing.is_empty() && contradicted.is_empty() && present.is_empty() {
            slot[0] += 1;
            let source = if all_in_summary { Source::Summary } else { Source::Kept };
            if source == Source::Summary {
                *scored.from_summary.entry(probe.category.clone()).or_default() += 1;
            }
            scored.answers.push(Answer {
                category: probe.category.clone(),
                question: probe.question.clone(),
                source,
            });
        } else {
            scored.misses.push(Miss {
                category: probe.category.clone(),
                question: probe.question.clone(),
                missing,
                present,
                contradicted,
            });
        }
    }
    scored
}

/// A summary line (normalized) with the headings and tags it lies under (lowercase).
pub(super) struct SectionLine {
    line: String,
    sections: Vec<String>,
}

/// The summary's non-heading lines, each with the Markdown headings (up to the next heading
/// of the same or a higher level) and `<tag>`…`</tag>` blocks it lies in.
pub(super) fn section_lines(summary: &str) -> Vec<SectionLine> {
    let mut headings: Vec<(usize, String)> = Vec::new();
    let mut tag: Option<String> = None;
    let mut out = Vec::new();
    for line in summary.lines() {
        let trimmed = line.trim();
        let level = trimmed.chars().take_while(|&c| c == '#').count();
        if level > 0 && trimmed[level..].starts_with(' ') {
            headings.retain(|(open, _)| *open < level);
            headings.push((level, normalize(&trimmed[level..])));
            continue;
        }
        if let Some(name) = trimmed.strip_prefix('<').and_then(|rest| rest.strip_suffix('>')) {
            if let Some(closed) = name.strip_prefix('/') {
                if tag.as_deref() == Some(closed) {
                    tag = None;
                }
            } else if !name.contains(' ') {
                tag = Some(name.to_owned());
            }
            continue;
        }
        if trimmed.is_empty() {
            continue;
        }
        let mut sections: Vec<String> = headings.iter().map(|(_, title)| title.clone()).collect();
        sections.extend(tag.iter().map(|name| name.to_lowercase()));
        out.push(SectionLine { line: normalize(trimmed), sections });
    }
    out
}

/// The summary lines that break `rule`, each named with the rule's text.
pub(super) fn violations(rule: &Absent, lines: &[SectionLine]) -> Vec<String> {
    let wanted: Vec<String> = rule.sections.iter().map(|section| normalize(section)).collect();
    let texts: Vec<String> = rule.text.iter().map(|text| normalize(text)).collect();
    lines
        .iter()
        .filter(|line| wanted.is_empty() || line.sections.iter().any(|s| wanted.contains(s)))
        .filter(|line| texts.iter().all(|text| line.line.contains(text.as_str())))
        .map(|line| format!("{} in: {}", rule.text.join(" + "), line.line))
        .collect()
}

/// Lowercase with whitespace runs collapsed to one space.
pub(super) fn normalize(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ").to_lowercase()
}

#[cfg(test)]
mod tests {
    use super::*;

    const SUMMARY: &str = "## Goal\n- Speed up loading.\n\n## Progress\n### Done\n- Edited `src/a.ts`\n\
                           ### Blocked\n- `npm test` failed: TS2353\n\n## Key Decisions\n\
                           - Use a Set instead of a Map.\n\n## Critical Context\n\
                           - Last error (unresolved, `npm test`): TS2353\n\n<modified-files>\nsrc/a.ts\n</modified-files>";

    fn rule(text: &[&str], sections: &[&str]) -> Absent {
        Absent {
            text: text.iter().map(|t| (*t).to_owned()).collect(),
            sections: sections.iter().map(|s| (*s).to_owned()).collect(),
        }
    }

    #[test]
    fn absent_rules_match_lines_within_their_sections_or_tags() {
        let lines = section_lines(SUMMARY);
        // `### Blocked` lies under `## Progress` too; `## Key Decisions` ends it.
        assert_eq!(violations(&rule(&["TS2353"], &["Blocked"]), &lines).len(), 1);
        assert_eq!(violations(&rule(&["TS2353"], &["Progress"]), &lines).len(), 1);
        assert!(violations(&rule(&["TS2353"], &["Key Decisions"]), &lines).is_empty());
        // Every string on one line, anywhere in the summary.
        assert_eq!(violations(&rule(&["ts2353", "UNRESOLVED"], &[]), &lines).len(), 1);
        assert!(violations(&rule(&["Set", "unresolved"], &[]), &lines).is_empty());
        // A tag block is a section of its own; headings are not searched.
        assert_eq!(violations(&rule(&["src/a.ts"], &["modified-files"]), &lines).len(), 1);
        assert!(violations(&rule(&["Goal"], &[]), &lines).is_empty());
        assert_eq!(
            violations(&rule(&["Map"], &["key decisions"]), &lines),
            vec!["Map in: - use a set instead of a map."]
        );
    }

    fn probe(category: &str, expect: &[&str]) -> Probe {
        Probe {
            category: category.to_owned(),
            question: "q".to_owned(),
            expect: expect.iter().map(|t| (*t).to_owned()).collect(),
            absent: Vec::new(),
        }
    }

    #[test]
    fn an_answer_only_under_blocked_does_not_count_for_a_fixed_error() {
        let summary = "## Progress\n### Done\n- Edited `src/a.ts`\n### Blocked\n- TS2353\n";
        let scored = score(&[probe("recall", &["TS2353"])], Some(summary), "");
        assert_eq!(scored.scores["recall"], [0, 1]);
        assert_eq!(scored.misses[0].contradicted, vec!["TS2353".to_owned()]);
        // The same string on a line that does not contradict it answers.
        let scored = score(&[probe("recall", &["TS2353"])], Some(SUMMARY), "");
        assert_eq!(scored.scores["recall"], [1, 1]);
        // What fails now is what Blocked is for.
        let scored = score(&[probe("continuation", &["TS2353"])], Some(summary), "");
        assert_eq!(scored.scores["continuation"], [1, 1]);
    }

    #[test]
    fn a_decision_on_a_rejected_line_does_not_count() {
        let summary = "## Constraints & Preferences\n- Rejected by the user: use a Map\n";
        let scored = score(&[probe("decision", &["use a Map"])], Some(summary), "");
        assert_eq!(scored.scores["decision"], [0, 1]);
        let scored = score(&[probe("decision", &["use a Set"])], Some(SUMMARY), "");
        assert_eq!(scored.scores["decision"], [1, 1]);
    }

    #[test]
    fn each_answer_says_whether_the_summary_or_the_kept_messages_gave_it() {
        let probes = [probe("artifact", &["src/a.ts"]), probe("recall", &["retry budget"])];
        let scored = score(&probes, Some(SUMMARY), "we agreed on a retry budget of 3");
        let sources: Vec<Source> = scored.answers.iter().map(|a| a.source).collect();
        assert_eq!(sources, [Source::Summary, Source::Kept]);
        assert_eq!(scored.from_summary.get("artifact"), Some(&1));
        assert_eq!(scored.from_summary.get("recall"), None);
    }
}
