//! Reporting: each probe file's runs, then totals per part (dev, test, unsplit), per
//! compaction count and per category, as text or JSON.
//!
//! Invariant: every probe of every file selected is counted once per count: answered,
//! partial, missed or contradicted, or (when its transcript cannot be converted) under
//! "not importable"; nothing is dropped from the totals silently.

use std::collections::BTreeMap;
use std::io::Write as _;

use serde::Serialize;

use super::probes::CATEGORIES;
use super::score::{Outcome, Tally};
use super::{FileReport, Run};
use crate::cli::EvalArgs;
use crate::output::print_json;

/// Totals of one part at one count.
#[derive(Debug, Default, Serialize)]
#[serde(rename_all = "camelCase")]
struct Total {
    part: String,
    compactions: usize,
    /// Category → [answered, total].
    scores: BTreeMap<String, [usize; 2]>,
    /// Category → answered from the summary alone.
    from_summary: BTreeMap<String, usize>,
    /// Category → every outcome's count.
    tallies: BTreeMap<String, Tally>,
    /// All categories together.
    all: Tally,
}

/// Probe files of a part whose transcript could not be converted.
#[derive(Debug, Default, Serialize)]
#[serde(rename_all = "camelCase")]
struct NotImportable {
    part: String,
    files: usize,
    probes: usize,
}

fn totals(reports: &[FileReport]) -> (Vec<Total>, Vec<NotImportable>) {
    let mut totals: BTreeMap<(String, usize), Total> = BTreeMap::new();
    let mut skipped: BTreeMap<String, NotImportable> = BTreeMap::new();
    for report in reports {
        if report.not_importable.is_some() {
            let slot = skipped.entry(report.part.clone()).or_default();
            slot.part.clone_from(&report.part);
            slot.files += 1;
            slot.probes += report.probe_count;
        }
        for run in &report.runs {
            let total = totals.entry((report.part.clone(), run.compactions_asked)).or_default();
            total.part.clone_from(&report.part);
            total.compactions = run.compactions_asked;
            for (category, tally) in &run.tallies {
                total.tallies.entry(category.clone()).or_default().add(tally);
                total.all.add(tally);
            }
        }
    }
    let mut totals: Vec<Total> = totals.into_values().collect();
    for total in &mut totals {
        total.scores =
            total.tallies.iter().map(|(c, t)| (c.clone(), [t.answered, t.total])).collect();
        total.from_summary =
            total.tallies.iter().map(|(c, t)| (c.clone(), t.from_summary)).collect();
    }
    (totals, skipped.into_values().collect())
}

pub(super) fn print(
    reports: &[FileReport],
    left_out: usize,
    args: &EvalArgs,
) -> anyhow::Result<()> {
    let (totals, not_importable) = totals(reports);
    if args.json {
        return print_json(&serde_json::json!({
            "files": reports,
            "totals": totals,
            "notImportable": not_importable,
            "leftOutByPart": left_out,
        }));
    }
    let mut out = crate::output::Visible(std::io::stdout().lock());
    let header = format!(
        "{:<13}{:>14}{:>8}{:>7}{:>13}   {}",
        "compactions",
        "answered",
        "partial",
        "missed",
        "contradicted",
        CATEGORIES.iter().map(|c| format!("{c:>14}")).collect::<String>()
    );
    for report in reports {
        let mut origin =
            format!("{}: {}", report.part, report.transcript.as_deref().unwrap_or(&report.session));
        if let Some([first, end]) = report.turns {
            origin.push_str(&format!(", user turns {first}–{end}"));
        }
        writeln!(out, "{} ({origin})", report.probes)?;
        if let Some(description) = &report.description {
            writeln!(out, "  {description}")?;
        }
        if let Some(reason) = &report.not_importable {
            writeln!(
                out,
                "  not importable: {reason}; its {} probes are not scored",
                report.probe_count
            )?;
            continue;
        }
        writeln!(out, "  {header}")?;
        for run in &report.runs {
            print_run(&mut out, run, args)?;
        }
    }
    writeln!(
        out,
        "totals per part (answered/total; +N partial, !N contradicted; per category the same)"
    )?;
    for part in ["dev", "test", "unsplit"] {
        let rows: Vec<&Total> = totals.iter().filter(|t| t.part == part).collect();
        let skipped = not_importable.iter().find(|n| n.part == part);
        if rows.is_empty() && skipped.is_none() {
            continue;
        }
        writeln!(out, "part {part}")?;
        if let Some(skipped) = skipped {
            writeln!(
                out,
                "  not importable: {} files, {} probes (not in the totals below)",
                skipped.files, skipped.probes
            )?;
        }
        if !rows.is_empty() {
            writeln!(out, "  {header}")?;
        }
        for total in rows {
            let row = row(&total.compactions.to_string(), &total.all, &total.tallies);
            writeln!(out, "  {row}")?;
        }
    }
    if left_out > 0 {
        writeln!(out, "{left_out} probe files outside --part {} were not run", args.part.as_str())?;
    }
    Ok(())
}

/// A row: the count, the outcomes over all categories, then each category's cell.
fn row(label: &str, all: &Tally, tallies: &BTreeMap<String, Tally>) -> String {
    let percent = (all.answered * 100).checked_div(all.total).unwrap_or(0);
    let answered = format!("{}/{} {percent}%", all.answered, all.total);
    let cells: String = CATEGORIES
        .iter()
        .map(|c| {
            let text = tallies.get(*c).map_or_else(|| "-".to_owned(), cell);
            format!("{text:>14}")
        })
        .collect();
    format!(
        "{label:<13}{answered:>14}{:>8}{:>7}{:>13}   {cells}",
        all.partial, all.missed, all.contradicted
    )
}

/// A category's cell: `answered/total`, then `+N` partial and `!N` contradicted when any.
fn cell(tally: &Tally) -> String {
    let mut text = format!("{}/{}", tally.answered, tally.total);
    if tally.partial > 0 {
        text.push_str(&format!(" +{}", tally.partial));
    }
    if tally.contradicted > 0 {
        text.push_str(&format!(" !{}", tally.contradicted));
    }
    text
}

fn print_run(out: &mut impl std::io::Write, run: &Run, args: &EvalArgs) -> anyhow::Result<()> {
    let made = if run.compactions_made == run.compactions_asked {
        format!("{}", run.compactions_asked)
    } else {
        format!("{} ({} made)", run.compactions_asked, run.compactions_made)
    };
    let mut all = Tally::default();
    run.tallies.values().for_each(|t| all.add(t));
    writeln!(out, "  {}", row(&made, &all, &run.tallies))?;
    let keep: Vec<String> = run.keep_recent_tokens.iter().map(u64::to_string).collect();
    // The section of the user's verbatim messages has `keepUserMessagesTokens` of its own
    // plus whatever the summary leaves of its budget.
    let room = run.max_summary_tokens.saturating_add(run.user_messages_budget);
    let mut budget = match run.summary_tokens {
        Some(tokens) if tokens > run.max_summary_tokens => {
            format!("summary {tokens} tokens, OVER its budget of {}", run.max_summary_tokens)
        }
        Some(tokens) => format!("summary {tokens}/{} tokens", run.max_summary_tokens),
        None => "no summary".to_owned(),
    };
    if let Some(tokens) = run.summary_tokens.filter(|_| run.user_messages_tokens > 0) {
        let total = tokens.saturating_add(run.user_messages_tokens);
        if total > room {
            budget.push_str(&format!(
                ", with the user's messages {total} tokens, OVER the room of {room}"
            ));
        } else {
            budget.push_str(&format!(" + user messages {}", run.user_messages_tokens));
        }
    }
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
        for probe in run.probes.iter().filter(|p| p.outcome != Outcome::Answered) {
            let mut why = Vec::new();
            if !probe.missing.is_empty() {
                why.push(format!("missing: {}", probe.missing.join(" | ")));
            }
            if !probe.off_subject.is_empty() {
                why.push(format!(
                    "found only away from its subject: {}",
                    probe.off_subject.join(" | ")
                ));
            }
            if !probe.misplaced.is_empty() {
                why.push(format!(
                    "only where the summary contradicts it: {}",
                    probe.misplaced.join(" | ")
                ));
            }
            if !probe.stated.is_empty() {
                why.push(format!("stated: {}", probe.stated.join(" | ")));
            }
            let outcome = match probe.outcome {
                Outcome::Partial => "partial",
                Outcome::Contradicted => "contradicted",
                Outcome::Missed | Outcome::Answered => "miss",
            };
            writeln!(
                out,
                "    {outcome} [{}] {} ({})",
                probe.category,
                probe.question,
                why.join("; ")
            )?;
        }
    }
    Ok(())
}
