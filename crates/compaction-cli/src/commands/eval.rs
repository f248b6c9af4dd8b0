//! `compaction eval`: how much of what matters survives 1, 2 and 3 successive compactions.
//!
//! A probe file names a session and lists probes: a category (recall, artifact,
//! continuation, decision, constraint), a question, and the exact strings an answer must
//! contain. For each count N, the session's path is replayed into a scratch file in N
//! stages: the first stage ends before the user message nearest to 1/N of the path, the
//! last at the leaf; after each stage the configured summarizer compacts through the one
//! orchestration path (`Compactor::run`) and the next stage's entries are appended after the
//! compaction entry. A probe is answered when every expected string occurs in the context
//! after the last compaction (summary, pins, kept messages), compared case-insensitively
//! with whitespace runs collapsed, and no `absent` rule matches a line of the last summary
//! (a rejected approach stated as a decision, a fixed error stated as open). Invariant: the
//! input session is only read; all writing happens in a temporary directory.

use std::collections::BTreeMap;
use std::io::Write as _;
use std::path::{Path, PathBuf};

use compaction::compact::{CompactError, CompactRequest, CompactionReason};
use compaction_core::TokenEstimator as _;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{CommandError, ExitStatus, setup};
use crate::cli::{CompactionFlags, EvalArgs, ExtensionFlags};
use crate::output::print_json;
use crate::progress::block_on_cancellable;

/// Recent tokens kept verbatim when `--keep-recent` is not given: a tenth of the session's
/// messages, within these bounds, so the summary (not the kept messages) has to answer
/// most probes.
const EVAL_KEEP_RECENT_TOKENS: (u64, u64) = (200, 20_000);
/// User turns kept verbatim when `--min-turns` is not given.
const EVAL_MIN_TURNS: u64 = 1;

/// The probe categories, in report order.
const CATEGORIES: [&str; 5] = ["artifact", "constraint", "recall", "continuation", "decision"];

/// A probe file.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ProbeFile {
    /// The session, relative to the probe file.
    session: PathBuf,
    /// What the session is (shown in reports).
    #[serde(default)]
    description: Option<String>,
    probes: Vec<Probe>,
}

/// One question about the session.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
struct Probe {
    category: String,
    question: String,
    /// Every one of these must occur in the context after compaction.
    #[serde(default)]
    expect: Vec<String>,
    /// Statements the last summary must not make.
    #[serde(default)]
    absent: Vec<Absent>,
}

/// A statement the last summary must not make: no line of it (within `sections`, when
/// given) contains every string of `text`. Kept messages are not searched: they are the
/// session's own words, stale ones included.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
struct Absent {
    /// Strings that must not all occur on one line.
    text: Vec<String>,
    /// Headings (`Key Decisions`, `Blocked`) or tags (`modified-files`) whose lines are
    /// searched; a heading's lines run to the next heading of the same or a higher level.
    /// Empty: the whole summary.
    #[serde(default)]
    sections: Vec<String>,
}

/// The outcome of one probe file at one compaction count.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct Run {
    compactions_asked: usize,
    compactions_made: usize,
    /// Why stages were skipped (nothing to compact yet, …).
    notes: Vec<String>,
    /// Category → [answered, total].
    scores: BTreeMap<String, [usize; 2]>,
    misses: Vec<Miss>,
    /// The summary of the last compaction made.
    summary: Option<String>,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct Miss {
    category: String,
    question: String,
    missing: Vec<String>,
    /// Summary lines that make a statement an `absent` rule forbids.
    present: Vec<String>,
}

pub fn run(args: &EvalArgs) -> anyhow::Result<ExitStatus> {
    if args.compactions.contains(&0) {
        return Err(CommandError::usage("--compactions: each count must be at least 1"));
    }
    let mut reports = Vec::new();
    let mut totals: BTreeMap<usize, BTreeMap<String, [usize; 2]>> = BTreeMap::new();
    for probe_path in &args.probes {
        let file = read_probe_file(probe_path)?;
        let session_path = probe_path.parent().unwrap_or(Path::new(".")).join(&file.session);
        let lines = read_path_lines(&session_path)?;
        let (low, high) = EVAL_KEEP_RECENT_TOKENS;
        let flags = CompactionFlags {
            keep_recent: Some(
                args.compaction.keep_recent.unwrap_or((lines.message_tokens / 10).clamp(low, high)),
            ),
            min_turns: Some(args.compaction.min_turns.unwrap_or(EVAL_MIN_TURNS)),
            ..args.compaction.clone()
        };
        let mut runs = Vec::new();
        for &count in &args.compactions {
            let run = evaluate(&lines, &file.probes, count, &flags, args)
                .map_err(|e| e.context(format!("{}", session_path.display())))?;
            let total = totals.entry(count).or_default();
            for (category, [answered, all]) in &run.scores {
                let slot = total.entry(category.clone()).or_default();
                slot[0] += answered;
                slot[1] += all;
            }
            runs.push(run);
        }
        reports.push((probe_path.clone(), session_path, file.description, runs));
    }
    if args.json {
        let files: Vec<Value> = reports
            .iter()
            .map(|(probes, session, description, runs)| {
                serde_json::json!({
                    "probes": probes.display().to_string(),
                    "session": session.display().to_string(),
                    "description": description,
                    "runs": runs,
                })
            })
            .collect();
        let totals: Vec<Value> = totals
            .iter()
            .map(|(count, scores)| serde_json::json!({"compactions": count, "scores": scores}))
            .collect();
        print_json(&serde_json::json!({"files": files, "totals": totals}))?;
    } else {
        print_human(&reports, &totals, args)?;
    }
    Ok(ExitStatus::Success)
}

fn read_probe_file(path: &Path) -> anyhow::Result<ProbeFile> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| CommandError::io(format!("cannot read {}", path.display()), e))?;
    let file: ProbeFile = serde_json::from_str(&text).map_err(|e| {
        CommandError::usage(format!("{}:{}: not a probe file: {e}", path.display(), e.line()))
    })?;
    for (index, probe) in file.probes.iter().enumerate() {
        if !CATEGORIES.contains(&probe.category.as_str()) {
            return Err(CommandError::usage(format!(
                "{}: probe {} has category `{}`; expected one of {}",
                path.display(),
                index + 1,
                probe.category,
                CATEGORIES.join(", ")
            )));
        }
        let expects = probe.expect.iter().any(|text| !text.trim().is_empty());
        if !expects && probe.absent.is_empty() {
            return Err(CommandError::usage(format!(
                "{}: probe {} expects nothing",
                path.display(),
                index + 1
            )));
        }
        if probe.absent.iter().any(|rule| rule.text.iter().all(|text| text.trim().is_empty())) {
            return Err(CommandError::usage(format!(
                "{}: probe {} has an `absent` rule without text",
                path.display(),
                index + 1
            )));
        }
    }
    Ok(file)
}

/// The session's header line and the raw lines of the entries on the leaf's path.
struct PathLines {
    header: String,
    entries: Vec<String>,
    /// Positions in `entries` of user messages (where a stage may end).
    user_positions: Vec<usize>,
    /// Estimated tokens of the path's messages (heuristic estimator).
    message_tokens: u64,
}

fn read_path_lines(path: &Path) -> anyhow::Result<PathLines> {
    let session = crate::load::read_session(path)?;
    let text = std::fs::read_to_string(path)
        .map_err(|e| CommandError::io(format!("cannot read {}", path.display()), e))?;
    let header = text.lines().next().unwrap_or_default().to_owned();
    let version = session.source_version();
    if version != compaction_core::entry::CURRENT_VERSION {
        // Stages are replayed from the file's own lines, which must carry ids and parents.
        return Err(CommandError::usage(format!(
            "{}: a version {version} session; run `compaction migrate {}` first",
            path.display(),
            path.display()
        )));
    }
    let Some(leaf) = session.leaf() else {
        return Err(CommandError::usage(format!("{}: the session has no entries", path.display())));
    };
    let entries = session.entries();
    let mut lines = Vec::new();
    let mut user_positions = Vec::new();
    let mut message_tokens = 0;
    let estimator = compaction_core::tokens::HeuristicEstimator;
    for index in session.path(leaf) {
        let entry = &entries[index];
        if let Some(Ok(message)) = entry.message() {
            message_tokens += estimator.message_tokens(&message);
        }
        if entry.role() == Some("user") {
            user_positions.push(lines.len());
        }
        lines.push(entry.raw().trim_end().to_owned());
    }
    Ok(PathLines { header, entries: lines, user_positions, message_tokens })
}

/// Where each of `count` stages ends (exclusive), the last at the end of the path.
fn stage_ends(lines: &PathLines, count: usize) -> Vec<usize> {
    let total = lines.entries.len();
    let mut ends = Vec::new();
    for stage in 1..count {
        let target = total * stage / count;
        let nearest = lines
            .user_positions
            .iter()
            .copied()
            .filter(|&position| position > ends.last().copied().unwrap_or(0))
            .min_by_key(|&position| position.abs_diff(target));
        if let Some(position) = nearest {
            ends.push(position);
        }
    }
    ends.push(total);
    ends.dedup();
    ends
}

fn evaluate(
    lines: &PathLines,
    probes: &[Probe],
    count: usize,
    flags: &CompactionFlags,
    args: &EvalArgs,
) -> anyhow::Result<Run> {
    let dir = tempfile::tempdir()?;
    let file = dir.path().join("session.jsonl");
    std::fs::write(&file, format!("{}\n", lines.header))
        .map_err(|e| CommandError::io(format!("cannot write {}", file.display()), e))?;
    let mut start = 0;
    let mut last_compaction: Option<String> = None;
    let mut made = 0;
    let mut notes = Vec::new();
    let ends = stage_ends(lines, count);
    for (stage, &end) in ends.iter().enumerate() {
        append_stage(&file, &lines.entries[start..end], last_compaction.as_deref())?;
        start = end;
        let mut store = setup::open_store(&file, true, false)?;
        let leaf = store.session().leaf();
        let session_model = setup::session_model(store.session(), leaf);
        let toolkit = setup::Toolkit::resolve(
            flags,
            &args.summarizer,
            &ExtensionFlags { no_extensions: true, ..ExtensionFlags::default() },
            session_model.as_ref(),
            false,
        )?;
        let compactor = toolkit.compactor();
        // The evaluation scores summaries: every compaction summarizes.
        let request = CompactRequest {
            leaf: None,
            instructions: None,
            reason: CompactionReason::Threshold,
            strategy: Some(compaction_core::prune::Strategy::Summarize),
        };
        let result = block_on_cancellable(|cancel| async move {
            compactor.run(&mut store, &request, &cancel, &|_| {}).await
        })?;
        match result {
            Ok(outcome) => {
                made += 1;
                last_compaction = Some(outcome.entry.id.clone());
            }
            Err(
                error @ (CompactError::Nothing(_)
                | CompactError::NotReducing { .. }
                | CompactError::Cancelled { .. }),
            ) => {
                notes.push(format!("stage {}: {error}", stage + 1));
            }
            Err(error) => return Err(error.into()),
        }
    }
    let session = crate::load::read_session(&file)?;
    let context = compaction_core::context::build_context(&session, session.leaf());
    let mut text = String::new();
    for message in context.agent_messages(&session) {
        collect_strings(&serde_json::to_value(&message).unwrap_or_default(), &mut text);
    }
    let haystack = normalize(&text);
    let summary = last_compaction
        .as_deref()
        .and_then(|id| session.index_of(id))
        .and_then(|index| session.entries()[index].kind.as_compaction())
        .map(|data| data.summary.clone());
    let summary_lines = summary.as_deref().map(section_lines).unwrap_or_default();
    let mut scores: BTreeMap<String, [usize; 2]> = BTreeMap::new();
    let mut misses = Vec::new();
    for probe in probes {
        let missing: Vec<String> = probe
            .expect
            .iter()
            .filter(|expected| !haystack.contains(&normalize(expected)))
            .cloned()
            .collect();
        let present: Vec<String> =
            probe.absent.iter().flat_map(|rule| violations(rule, &summary_lines)).collect();
        let slot = scores.entry(probe.category.clone()).or_default();
        slot[1] += 1;
        if missing.is_empty() && present.is_empty() {
            slot[0] += 1;
        } else {
            misses.push(Miss {
                category: probe.category.clone(),
                question: probe.question.clone(),
                missing,
                present,
            });
        }
    }
    Ok(Run { compactions_asked: count, compactions_made: made, notes, scores, misses, summary })
}

/// A summary line (normalized) with the headings and tags it lies under (lowercase).
struct SectionLine {
    line: String,
    sections: Vec<String>,
}

/// The summary's non-heading lines, each with the Markdown headings (up to the next heading
/// of the same or a higher level) and `<tag>`…`</tag>` blocks it lies in.
fn section_lines(summary: &str) -> Vec<SectionLine> {
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
fn violations(rule: &Absent, lines: &[SectionLine]) -> Vec<String> {
    let wanted: Vec<String> = rule.sections.iter().map(|section| normalize(section)).collect();
    let texts: Vec<String> = rule.text.iter().map(|text| normalize(text)).collect();
    lines
        .iter()
        .filter(|line| wanted.is_empty() || line.sections.iter().any(|s| wanted.contains(s)))
        .filter(|line| texts.iter().all(|text| line.line.contains(text.as_str())))
        .map(|line| format!("{} in: {}", rule.text.join(" + "), line.line))
        .collect()
}

/// Appends `entries` to the scratch session; the first is reattached to `parent` (the
/// compaction just written) so the path runs through it.
fn append_stage(file: &Path, entries: &[String], parent: Option<&str>) -> anyhow::Result<()> {
    let mut out = std::fs::OpenOptions::new()
        .append(true)
        .open(file)
        .map_err(|e| CommandError::io(format!("cannot open {}", file.display()), e))?;
    for (position, line) in entries.iter().enumerate() {
        let line = match (position, parent) {
            (0, Some(parent)) => {
                let mut value: Value = serde_json::from_str(line)?;
                if let Some(object) = value.as_object_mut() {
                    object.insert("parentId".into(), Value::String(parent.to_owned()));
                }
                value.to_string()
            }
            (_, _) => line.clone(),
        };
        writeln!(out, "{line}")
            .map_err(|e| CommandError::io(format!("cannot write {}", file.display()), e))?;
    }
    Ok(())
}

/// Every string in `value` (message text, tool arguments, summaries), one per line.
fn collect_strings(value: &Value, out: &mut String) {
    match value {
        Value::String(text) => {
            out.push_str(text);
            out.push('\n');
        }
        Value::Array(items) => items.iter().for_each(|item| collect_strings(item, out)),
        Value::Object(fields) => fields.values().for_each(|item| collect_strings(item, out)),
        Value::Null | Value::Bool(_) | Value::Number(_) => {}
    }
}

/// Lowercase with whitespace runs collapsed to one space.
fn normalize(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ").to_lowercase()
}

type Report = (PathBuf, PathBuf, Option<String>, Vec<Run>);

fn print_human(
    reports: &[Report],
    totals: &BTreeMap<usize, BTreeMap<String, [usize; 2]>>,
    args: &EvalArgs,
) -> anyhow::Result<()> {
    let mut out = std::io::stdout().lock();
    let cell = |scores: &BTreeMap<String, [usize; 2]>, category: &str| -> String {
        match scores.get(category) {
            Some([answered, all]) => format!("{answered}/{all}"),
            None => "-".to_owned(),
        }
    };
    let header = format!(
        "{:<14}{}",
        "compactions",
        CATEGORIES.iter().map(|c| format!("{c:>14}")).collect::<String>()
    );
    for (probes, session, description, runs) in reports {
        writeln!(out, "{} ({})", probes.display(), session.display())?;
        if let Some(description) = description {
            writeln!(out, "  {description}")?;
        }
        writeln!(out, "  {header}")?;
        for run in runs {
            let made = if run.compactions_made == run.compactions_asked {
                format!("{}", run.compactions_asked)
            } else {
                format!("{} ({} made)", run.compactions_asked, run.compactions_made)
            };
            let cells: String =
                CATEGORIES.iter().map(|c| format!("{:>14}", cell(&run.scores, c))).collect();
            writeln!(out, "  {made:<14}{cells}")?;
            for note in &run.notes {
                writeln!(out, "    note: {note}")?;
            }
            if args.show_summaries
                && let Some(summary) = &run.summary
            {
                writeln!(out, "    summary after the last compaction:")?;
                for line in summary.lines() {
                    writeln!(out, "    | {line}")?;
                }
            }
            if args.show_misses {
                for miss in &run.misses {
                    let mut why = Vec::new();
                    if !miss.missing.is_empty() {
                        why.push(format!("missing: {}", miss.missing.join(" | ")));
                    }
                    if !miss.present.is_empty() {
                        why.push(format!("stated: {}", miss.present.join(" | ")));
                    }
                    writeln!(
                        out,
                        "    miss [{}] {} ({})",
                        miss.category,
                        miss.question,
                        why.join("; ")
                    )?;
                }
            }
        }
    }
    writeln!(out, "all probe files")?;
    writeln!(out, "  {header}")?;
    for (count, scores) in totals {
        let cells: String = CATEGORIES.iter().map(|c| format!("{:>14}", cell(scores, c))).collect();
        writeln!(out, "  {count:<14}{cells}")?;
    }
    Ok(())
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
}
