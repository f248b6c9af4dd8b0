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
//! with whitespace runs collapsed. Invariant: the input session is only read; all writing
//! happens in a temporary directory.

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
    expect: Vec<String>,
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
        if probe.expect.iter().all(|text| text.trim().is_empty()) {
            return Err(CommandError::usage(format!(
                "{}: probe {} expects nothing",
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
    let mut scores: BTreeMap<String, [usize; 2]> = BTreeMap::new();
    let mut misses = Vec::new();
    for probe in probes {
        let missing: Vec<String> = probe
            .expect
            .iter()
            .filter(|expected| !haystack.contains(&normalize(expected)))
            .cloned()
            .collect();
        let slot = scores.entry(probe.category.clone()).or_default();
        slot[1] += 1;
        if missing.is_empty() {
            slot[0] += 1;
        } else {
            misses.push(Miss {
                category: probe.category.clone(),
                question: probe.question.clone(),
                missing,
            });
        }
    }
    let summary = last_compaction
        .as_deref()
        .and_then(|id| session.index_of(id))
        .and_then(|index| session.entries()[index].kind.as_compaction())
        .map(|data| data.summary.clone());
    Ok(Run { compactions_asked: count, compactions_made: made, notes, scores, misses, summary })
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
                    writeln!(
                        out,
                        "    miss [{}] {} (missing: {})",
                        miss.category,
                        miss.question,
                        miss.missing.join(" | ")
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
