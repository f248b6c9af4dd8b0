//! `compaction eval`: how much of what matters survives 1, 2 and 3 successive compactions.
//!
//! A probe file names a session (a pi session beside it, or a raw transcript of the
//! real-transcript corpus) and lists probes: a category, a question, the strings naming its
//! subject, the strings an answer must contain and the statements a summary must not make
//! (`probes`). A transcript is converted as `compaction import` or `compaction migrate`
//! would, optionally cut to some user turns, and placed in the corpus's dev or test part
//! (`corpus`). For each count N, the session's path is replayed into a scratch file in N
//! stages, with a compaction through the one orchestration path (`Compactor::run`) after
//! each; each later stage keeps fewer recent tokens (`replay`). The context after the last
//! compaction is then graded (`score`): answered, partial, missed or contradicted, and
//! reported per part, per count and per category (`report`). Invariant: the inputs are
//! only read; all writing happens in temporary directories.

mod corpus;
mod probes;
mod replay;
mod report;
mod score;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use compaction_core::TokenEstimator as _;
use serde::Serialize;

use super::{CommandError, ExitStatus, setup};
use crate::cli::{CompactionFlags, EvalArgs, EvalPart};
use corpus::{Converted, Part, Sources};
use probes::read_probe_file;
use replay::read_path_lines;
use score::{Context, Graded, Tally};

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
    /// Category → every outcome's count.
    tallies: BTreeMap<String, Tally>,
    /// Each probe's result.
    probes: Vec<Graded>,
    /// The summary of the last compaction made.
    summary: Option<String>,
    /// Its length without the verbatim user messages section (pi's estimate: characters / 4).
    summary_tokens: Option<u64>,
    /// The budget it had to keep (`maxSummaryTokens`).
    max_summary_tokens: u64,
    /// The length of its verbatim user messages section (0 without one).
    user_messages_tokens: u64,
    /// The section's own room on top of the summary's budget (`keepUserMessagesTokens`).
    user_messages_budget: u64,
}

/// One probe file's report.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct FileReport {
    /// The probe file.
    probes: String,
    /// The session or transcript read.
    session: String,
    /// The transcript (relative to the transcripts root), for a corpus probe file.
    transcript: Option<String>,
    turns: Option<[usize; 2]>,
    part: String,
    description: Option<String>,
    /// Why the transcript could not be converted; the file then has no runs.
    not_importable: Option<String>,
    /// How many probes the file holds.
    probe_count: usize,
    runs: Vec<Run>,
}

/// Runs and scores one session at one count.
fn evaluate(
    lines: &replay::PathLines,
    probes: &[probes::Probe],
    count: usize,
    flags: &CompactionFlags,
    args: &EvalArgs,
) -> anyhow::Result<Run> {
    let replayed = replay::replay(lines, count, flags, args)?;
    let context = Context {
        summary: replayed.summary.as_deref(),
        kept: &replayed.kept,
        pins: &replayed.pins,
    };
    let (graded, tallies) = score::score(probes, &context);
    let settings = setup::settings(flags)?;
    let tokens = |text: &str| compaction_core::tokens::PiEstimator.text_tokens(text);
    let (summary_tokens, user_messages_tokens) = match replayed.summary.as_deref() {
        Some(summary) => {
            let (plain, _) = compaction_core::user_messages::split_kept_user_messages(summary);
            let plain = tokens(&plain);
            (Some(plain), tokens(summary).saturating_sub(plain))
        }
        None => (None, 0),
    };
    Ok(Run {
        compactions_asked: count,
        compactions_made: replayed.made,
        notes: replayed.notes,
        keep_recent_tokens: replayed.keep_recent,
        scores: tallies.iter().map(|(c, t)| (c.clone(), [t.answered, t.total])).collect(),
        from_summary: tallies.iter().map(|(c, t)| (c.clone(), t.from_summary)).collect(),
        tallies,
        probes: graded,
        summary: replayed.summary,
        summary_tokens,
        max_summary_tokens: settings.max_summary_tokens,
        user_messages_tokens,
        user_messages_budget: settings.keep_user_messages_tokens,
    })
}

/// The probe files named: files as given, folders searched (recursively, sorted) for
/// `*.probes.json`.
fn probe_files(args: &EvalArgs) -> anyhow::Result<Vec<PathBuf>> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) -> anyhow::Result<()> {
        let cannot = |e| CommandError::io(format!("cannot read {}", dir.display()), e);
        let mut entries: Vec<(PathBuf, std::fs::FileType)> = std::fs::read_dir(dir)
            .map_err(cannot)?
            .map(|entry| entry.and_then(|e| Ok((e.path(), e.file_type()?))))
            .collect::<Result<_, _>>()
            .map_err(cannot)?;
        entries.sort_by(|a, b| a.0.cmp(&b.0));
        for (path, kind) in entries {
            // A link to a folder is not followed (it may lead back up, or to `/`): said so.
            if kind.is_symlink() && path.is_dir() {
                eprintln!("skipped {}: a link to a folder is not searched", path.display());
            } else if kind.is_dir() {
                walk(&path, out)?;
            } else if path.to_string_lossy().ends_with(".probes.json") {
                out.push(path);
            }
        }
        Ok(())
    }
    let mut out = Vec::new();
    for path in &args.probes {
        if path.is_dir() {
            let before = out.len();
            walk(path, &mut out)?;
            if out.len() == before {
                return Err(CommandError::usage(format!(
                    "{}: a folder holding no `*.probes.json` file",
                    path.display()
                )));
            }
        } else {
            out.push(path.clone());
        }
    }
    Ok(out)
}

/// The transcripts root and its sources (see `corpus`).
fn find_corpus(args: &EvalArgs) -> anyhow::Result<(PathBuf, Sources)> {
    let cwd = std::env::current_dir()
        .map_err(|e| CommandError::io("cannot read the current directory", e))?;
    let root = corpus::transcripts_root(
        args.transcripts.as_deref(),
        std::env::var_os(corpus::TRANSCRIPTS_ENV),
        &cwd,
    )
    .map_err(CommandError::usage)?;
    let sources = Sources::read(&root)?;
    Ok((root, sources))
}

pub fn run(args: &EvalArgs) -> anyhow::Result<ExitStatus> {
    if args.compactions.contains(&0) {
        return Err(CommandError::usage("--compactions: each count must be at least 1"));
    }
    let files = probe_files(args)?
        .into_iter()
        .map(|path| read_probe_file(&path).map(|file| (path, file)))
        .collect::<anyhow::Result<Vec<_>>>()?;
    let corpus = if files.iter().any(|(_, file)| file.transcript.is_some()) {
        Some(find_corpus(args)?)
    } else {
        None
    };
    // Scratch folders a killed evaluation (or copies a killed compaction) left behind.
    for stale in compaction::disk::reclaim_temp_scratch() {
        eprintln!("removed {}, left by an interrupted run (its process is gone)", stale.display());
    }
    let mut reports = Vec::new();
    let mut left_out = 0;
    for (probe_path, file) in files {
        let (source, part) = match (&file.transcript, &corpus) {
            (Some(transcript), Some((root, sources))) => {
                (corpus::transcript_path(root, transcript)?, sources.part(transcript)?)
            }
            _ => {
                let session = file.session.clone().unwrap_or_default();
                (probe_path.parent().unwrap_or(Path::new(".")).join(session), Part::Unsplit)
            }
        };
        let selected = match args.part {
            EvalPart::All => true,
            EvalPart::Dev => part == Part::Dev,
            EvalPart::Test => part == Part::Test,
        };
        if !selected {
            left_out += 1;
            continue;
        }
        let scratch = compaction::disk::TempScratch::folder_in(&std::env::temp_dir())
            .map_err(CommandError::disk)?;
        let converted =
            corpus::convert(&source, file.transcript.is_some(), file.turns, scratch.path())?;
        let mut report = FileReport {
            probes: probe_path.display().to_string(),
            session: source.display().to_string(),
            transcript: file.transcript.clone(),
            turns: file.turns,
            part: part.to_string(),
            description: file.description.clone(),
            not_importable: None,
            probe_count: file.probes.len(),
            runs: Vec::new(),
        };
        let session_path = match converted {
            Converted::Session(path) => path,
            Converted::NotImportable(reason) => {
                report.not_importable = Some(reason);
                reports.push(report);
                continue;
            }
        };
        let lines = read_path_lines(&session_path)
            .map_err(|e| e.context(format!("{}", source.display())))?;
        let (low, high) = EVAL_KEEP_RECENT_TOKENS;
        let flags = CompactionFlags {
            keep_recent: Some(
                args.compaction.keep_recent.unwrap_or((lines.message_tokens / 10).clamp(low, high)),
            ),
            min_turns: Some(args.compaction.min_turns.unwrap_or(EVAL_MIN_TURNS)),
            ..args.compaction.clone()
        };
        for &count in &args.compactions {
            let run = evaluate(&lines, &file.probes, count, &flags, args)
                .map_err(|e| e.context(format!("{}", source.display())))?;
            report.runs.push(run);
        }
        reports.push(report);
    }
    report::print(&reports, left_out, args)?;
    Ok(ExitStatus::Success)
}
