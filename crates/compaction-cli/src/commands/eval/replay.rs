//! Replaying a session's path into a scratch file in stages, compacting after each.
//!
//! Invariant: the input session is only read; every write goes to a temporary directory,
//! and each stage's first entry hangs from the compaction just written, so the path runs
//! through every compaction made.

use std::io::Write as _;
use std::path::Path;

use compaction::compact::{CompactError, CompactRequest, CompactionReason};
use compaction_core::AgentMessage;
use compaction_core::TokenEstimator as _;
use compaction_core::pins::PINS_MESSAGE_CUSTOM_TYPE;
use serde_json::Value;

use super::super::{CommandError, open, setup};
use crate::cli::{CompactionFlags, EvalArgs, ExtensionFlags};
use crate::progress::block_on_cancellable;

/// The session's header line and the raw lines of the entries on the leaf's path.
pub(super) struct PathLines {
    header: String,
    entries: Vec<String>,
    /// Positions in `entries` of user messages (where a stage may end).
    user_positions: Vec<usize>,
    /// Estimated tokens of the path's messages (heuristic estimator).
    pub(super) message_tokens: u64,
    /// Compaction entries at the end of the path, after the last message, left out: the
    /// replay ends at the last message, so its last stage has something to compact.
    pub(super) trailing_compactions: usize,
    /// Compaction entries inside the path, left out (see `read_path_lines`).
    pub(super) held_compactions: usize,
}

/// `line` with its `parentId` set to `parent`.
fn with_parent(line: &str, parent: Option<&str>) -> anyhow::Result<String> {
    let mut value: serde_json::Value = serde_json::from_str(line)?;
    if let Some(object) = value.as_object_mut() {
        object.insert(
            "parentId".to_owned(),
            parent.map_or(serde_json::Value::Null, |id| serde_json::Value::String(id.to_owned())),
        );
    }
    Ok(serde_json::to_string(&value)?)
}

pub(super) fn read_path_lines(path: &Path) -> anyhow::Result<PathLines> {
    // Bounded, and only a regular file, before the session reader streams it.
    let text = super::corpus::read_bounded(path, super::corpus::MAX_TRANSCRIPT_BYTES)?;
    let session = crate::load::read_session(path)?;
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
    let mut path = session.path(leaf);
    let mut trailing_compactions = 0;
    while path.last().is_some_and(|&index| entries[index].kind.as_compaction().is_some()) {
        path.pop();
        trailing_compactions += 1;
    }
    // Compactions the session already holds (pi's own, or an imported Claude Code or Codex
    // one) are left out, and the entry after each is relinked to the entry before it, so every
    // answer the eval scores comes from this engine's summaries of the session's messages.
    let mut held_compactions = 0;
    let mut relink: Option<Option<String>> = None;
    for index in path {
        let entry = &entries[index];
        if entry.kind.as_compaction().is_some() {
            held_compactions += 1;
            if relink.is_none() {
                relink = Some(entry.parent_id.clone());
            }
            continue;
        }
        if let Some(Ok(message)) = entry.message() {
            message_tokens += estimator.message_tokens(&message);
        }
        if entry.role() == Some("user") {
            user_positions.push(lines.len());
        }
        let raw = entry.raw().trim_end();
        match relink.take() {
            Some(parent) => lines.push(with_parent(raw, parent.as_deref())?),
            None => lines.push(raw.to_owned()),
        }
    }
    Ok(PathLines {
        header,
        entries: lines,
        user_positions,
        message_tokens,
        trailing_compactions,
        held_compactions,
    })
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

/// What a replay left: the last summary, the kept messages, and how it went.
pub(super) struct Replay {
    /// Compactions made.
    pub(super) made: usize,
    /// Why stages were skipped (nothing to compact yet, …).
    pub(super) notes: Vec<String>,
    /// The summary of the last compaction made.
    pub(super) summary: Option<String>,
    /// Every string of the context after the last compaction except its summary: kept
    /// messages, pins, tool arguments.
    pub(super) kept: Vec<String>,
    /// The texts of the pinned instructions in that context.
    pub(super) pins: Vec<String>,
    /// `keepRecentTokens` of each stage, in order.
    pub(super) keep_recent: Vec<u64>,
}

/// `keepRecentTokens` for a stage (1-based): the first stage's value divided by the stage
/// number, at least the lower bound, so each later compaction keeps less and its summary
/// must carry more.
pub(super) fn stage_keep_recent(first: u64, stage: usize, floor: u64) -> u64 {
    (first / stage.max(1) as u64).max(floor.min(first))
}

/// Replays the path in `count` stages with a compaction after each.
pub(super) fn replay(
    lines: &PathLines,
    count: usize,
    flags: &CompactionFlags,
    args: &EvalArgs,
) -> anyhow::Result<Replay> {
    let dir = compaction::disk::TempScratch::folder_in(&std::env::temp_dir())
        .map_err(CommandError::disk)?;
    let file = dir.path().join("session.jsonl");
    std::fs::write(&file, format!("{}\n", lines.header))
        .map_err(|e| CommandError::io(format!("cannot write {}", file.display()), e))?;
    let mut start = 0;
    let mut last_compaction: Option<String> = None;
    let mut made = 0;
    let mut notes = Vec::new();
    if lines.trailing_compactions > 0 {
        notes.push(format!(
            "left out {} compaction entries that end the session (the replay ends at its last \
             message)",
            lines.trailing_compactions
        ));
    }
    if lines.held_compactions > 0 {
        notes.push(format!(
            "left out {} compaction entries the session already held (every summary scored is \
             this engine's own)",
            lines.held_compactions
        ));
    }
    let mut keep_recent = Vec::new();
    let first_keep = flags.keep_recent.unwrap_or(super::EVAL_KEEP_RECENT_TOKENS.0);
    let ends = stage_ends(lines, count);
    for (stage, &end) in ends.iter().enumerate() {
        append_stage(&file, &lines.entries[start..end], last_compaction.as_deref())?;
        start = end;
        let keep = stage_keep_recent(first_keep, stage + 1, super::EVAL_KEEP_RECENT_TOKENS.0);
        keep_recent.push(keep);
        let stage_flags = CompactionFlags { keep_recent: Some(keep), ..flags.clone() };
        let mut store = open::open_store(&file, true, false)?;
        let leaf = store.session().leaf();
        let session_model = setup::session_model(store.session(), leaf);
        let toolkit = setup::toolkit(
            &stage_flags,
            &args.summarizer,
            &ExtensionFlags { no_extensions: true, ..ExtensionFlags::default() },
            session_model.as_ref(),
            None,
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
    let mut kept = Vec::new();
    let mut pins = Vec::new();
    for message in context.agent_messages(&session) {
        if matches!(message, AgentMessage::CompactionSummary(_)) {
            continue;
        }
        if let AgentMessage::Custom(custom) = &message
            && custom.custom_type == PINS_MESSAGE_CUSTOM_TYPE
        {
            pins.push(custom.content.joined_text());
        }
        collect_strings(&serde_json::to_value(&message).unwrap_or_default(), &mut kept);
    }
    let summary = last_compaction
        .as_deref()
        .and_then(|id| session.index_of(id))
        .and_then(|index| session.entries()[index].kind.as_compaction())
        .map(|data| data.summary.clone());
    Ok(Replay { made, notes, summary, kept, pins, keep_recent })
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

/// Every string in `value` (message text, tool arguments, summaries).
fn collect_strings(value: &Value, out: &mut Vec<String>) {
    match value {
        Value::String(text) => out.push(text.clone()),
        Value::Array(items) => items.iter().for_each(|item| collect_strings(item, out)),
        Value::Object(fields) => fields.values().for_each(|item| collect_strings(item, out)),
        Value::Null | Value::Bool(_) | Value::Number(_) => {}
    }
}
