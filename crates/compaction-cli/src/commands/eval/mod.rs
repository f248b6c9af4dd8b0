//! `compaction eval`: how much of what matters survives 1, 2 and 3 successive compactions.
//!
//! A probe file names a session and lists probes: a category (recall, artifact,
//! continuation, decision, constraint), a question, and the exact strings an answer must
//! contain (`probes`). For each count N, the session's path is replayed into a scratch file
//! in N stages, with a compaction through the one orchestration path (`Compactor::run`)
//! after each; each later stage keeps fewer recent tokens (`replay`). The context after the
//! last compaction is then scored (`score`): an answer counts only from a summary line that
//! does not contradict it or from the kept messages, and says which of the two gave it; a
//! summary longer than `maxSummaryTokens` is reported. Invariant: the input session is only
//! read; all writing happens in a temporary directory.

mod probes;
mod replay;
mod score;

use std::collections::BTreeMap;
use std::io::Write as _;
use std::path::{Path, PathBuf};

use compaction_core::TokenEstimator as _;
use serde::Serialize;
use serde_json::Value;

use super::{CommandError, ExitStatus, setup};
use crate::cli::{CompactionFlags, EvalArgs};
use crate::output::print_json;
use probes::{CATEGORIES, read_probe_file};
use replay::read_path_lines;
use score::{Answer, Miss};

/// Recent tokens kept verbatim when `--keep-recent` is not given: a tenth of the session's
/// messages, within these bounds, so the summary (not the kept messages) has to answer
/// most probes. Later stages keep less (the first stage's value divided by the stage
/// number, not below the lower bound).
const EVAL_KEEP_RECENT_TOKENS: (u64, u64) = (200, 20_000);
/// User turns kept verbatim when `--min-turns` is not given.
const EVAL_MIN_TURNS: u64 = 1;

/// The outcome of one probe file at one compaction count.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct Run {
    compactions_asked: usize,
    compactions_made: usize,
    /// Why stages were skipped (nothing to compact yet, …).
    notes: Vec<String>,
    /// `keepRecentTokens` of each stage.
    keep_recent_tokens: Vec<u64>,
    /// Category → [answered, total].
    scores: BTreeMap<String, [usize; 2]>,
    /// Category → answered from the summary alone.
    from_summary: BTreeMap<String, usize>,
    answers: Vec<Answer>,
    misses: Vec<Miss>,
    /// The summary of the last compaction made.
    summary: Option<String>,
    /// Its length (pi's estimate: characters / 4).
    summary_tokens: Option<u64>,
    /// The budget it had to keep.
    max_summary_tokens: u64,
}

/// Runs and scores one probe file at one count.
fn evaluate(
    lines: &replay::PathLines,
    probes: &[probes::Probe],
    count: usize,
    flags: &CompactionFlags,
    args: &EvalArgs,
) -> anyhow::Result<Run> {
    let replayed = replay::replay(lines, count, flags, args)?;
    let scored = score::score(probes, replayed.summary.as_deref(), &replayed.kept);
    let max_summary_tokens = setup::settings(flags)?.max_summary_tokens;
    let summary_tokens = replayed
        .summary
        .as_deref()
        .map(|summary| compaction_core::tokens::PiEstimator.text_tokens(summary));
    Ok(Run {
        compactions_asked: count,
        compactions_made: replayed.made,
        notes: replayed.notes,
        keep_recent_tokens: replayed.keep_recent,
        scores: scored.scores,
        from_summary: scored.from_summary,
        answers: scored.answers,
        misses: scored.misses,
        summary: replayed.summary,
        summary_tokens,
        max_summary_tokens,
    })
}

pub fn run(args: &EvalArgs) -> anyhow::Result<ExitStatus> {
    if args.compactions.contains(&0) {
        return Err(CommandError::usage("--compactions: each count must be at least 1"));
    }
    let mut reports = Vec::new();
    let mut totals: Totals = BTreeMap::new();
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
                slot[2] += run.from_summary.get(category).copied().unwrap_or(0);
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
            .map(|(count, scores)| {
                let answered: BTreeMap<&String, [usize; 2]> =
                    scores.iter().map(|(c, [a, all, _])| (c, [*a, *all])).collect();
                let from_summary: BTreeMap<&String, usize> =
                    scores.iter().map(|(c, [_, _, s])| (c, *s)).collect();
                serde_json::json!({
                    "compactions": count,
                    "scores": answered,
                    "fromSummary": from_summary,
                })
            })
            .collect();
        print_json(&serde_json::json!({"files": files, "totals": totals}))?;
    } else {
        print_human(&reports, &totals, args)?;
    }
    Ok(ExitStatus::Success)
}

type Report = (PathBuf, PathBuf, Option<String>, Vec<Run>);
/// Count → category → [answered, total, answered from the summary].
type Totals = BTreeMap<usize, BTreeMap<String, [usize; 3]>>;

/// A score cell: `answered/total`, then how many of the answered the summary alone gave
/// (`s3`), or `-` when the category has no probe.
fn cell(answered: usize, all: usize, from_summary: usize) -> String {
    format!("{answered}/{all} s{from_summary}")
}

fn print_human(reports: &[Report], totals: &Totals, args: &EvalArgs) -> anyhow::Result<()> {
    let mut out = std::io::stdout().lock();
    let header = format!(
        "{:<14}{}",
        "compactions",
        CATEGORIES.iter().map(|c| format!("{c:>16}")).collect::<String>()
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
            let cells: String = CATEGORIES
                .iter()
                .map(|c| {
                    let text = match run.scores.get(*c) {
                        Some([answered, all]) => {
                            cell(*answered, *all, run.from_summary.get(*c).copied().unwrap_or(0))
                        }
                        None => "-".to_owned(),
                    };
                    format!("{text:>16}")
                })
                .collect();
            writeln!(out, "  {made:<14}{cells}")?;
            let keep: Vec<String> = run.keep_recent_tokens.iter().map(u64::to_string).collect();
            let budget = match run.summary_tokens {
                Some(tokens) if tokens > run.max_summary_tokens => format!(
                    "summary {tokens} tokens, OVER its budget of {}",
                    run.max_summary_tokens
                ),
                Some(tokens) => format!("summary {tokens}/{} tokens", run.max_summary_tokens),
                None => "no summary".to_owned(),
            };
            writeln!(out, "    keepRecentTokens {}; {budget}", keep.join(" → "))?;
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
                    if !miss.contradicted.is_empty() {
                        why.push(format!(
                            "only where the summary contradicts it: {}",
                            miss.contradicted.join(" | ")
                        ));
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
    writeln!(out, "all probe files (answered/total, s: answered from the summary alone)")?;
    writeln!(out, "  {header}")?;
    for (count, scores) in totals {
        let cells: String = CATEGORIES
            .iter()
            .map(|c| {
                let text = match scores.get(*c) {
                    Some([answered, all, from_summary]) => cell(*answered, *all, *from_summary),
                    None => "-".to_owned(),
                };
                format!("{text:>16}")
            })
            .collect();
        writeln!(out, "  {count:<14}{cells}")?;
    }
    Ok(())
}
