//! `compaction undo`: take back the last compaction or prune in force, append-only.
//!
//! A prune is taken back by `context_edit` entries that put back what the context showed
//! before it (so plain pi 1.6 shows it too; an edit another writer made after the prune
//! stays in force) and a `compaction.prune` entry with `revert`, written under
//! the leaf as one write. A
//! compaction is taken back by a `custom` entry (`compaction.undo`) whose parent is the
//! entry the compaction was appended after: it becomes the last entry of the file, so pi
//! and this tool make the path before the compaction current again. Entries appended after
//! the compaction stay in the file on their branch (`compaction branch --to` goes back).
//! Nothing is ever removed from the log.

use crate::output::plural;
use compaction::store::{NewEntry, Parent};
use compaction_core::context::build_context;
use compaction_core::ledger::{DroppedStep, UNDO_CUSTOM_TYPE, UndoTarget, dropped, undo_target};
use compaction_core::prune::{PruneRecord, undo_edits};
use serde_json::{Map, Value, json};

use super::{CommandError, ExitStatus, open, setup};
use crate::cli::{CompactionFlags, UndoArgs};
use crate::output::print_json;

pub fn run(args: &UndoArgs) -> anyhow::Result<ExitStatus> {
    let path = &args.session.file;
    let mut store = open::open_store(path, !args.dry_run, args.wait)?;
    let session = store.session();
    let leaf = session
        .resolve_leaf(args.session.leaf.as_deref())
        .map_err(|e| CommandError::usage(format!("{}: {e}", path.display())))?;
    let flags = CompactionFlags { estimator: args.estimator.clone(), ..CompactionFlags::default() };
    let settings = setup::settings(&flags)?;
    let estimator = setup::estimator(&settings)?;
    let context = build_context(session, leaf);
    let Some(target) = undo_target(session, &context) else {
        if args.json {
            print_json(&json!({"undone": false, "reason": "no compaction or prune on this path"}))?;
        } else {
            println!("nothing to undo: no compaction or prune in force on this path");
        }
        return Ok(ExitStatus::Success);
    };
    let (target_index, news) = match target {
        UndoTarget::Prune { prune } => {
            let parent = leaf.map_or(Parent::Root, |i| Parent::Id(session.entries()[i].id.clone()));
            let mut news = restoring_edits(session, &context, prune);
            let record = PruneRecord::Revert { revert: session.entries()[prune].id.clone() };
            news.push(NewEntry::new("custom", record.entry_fields()));
            if let Some(first) = news.first_mut() {
                first.parent = parent;
            }
            (prune, news)
        }
        UndoTarget::Compaction { compaction, parent } => {
            let mut fields = Map::new();
            fields.insert("customType".into(), Value::from(UNDO_CUSTOM_TYPE));
            fields.insert(
                "data".into(),
                json!({ "compaction": session.entries()[compaction].id.clone() }),
            );
            let parent =
                parent.map_or(Parent::Root, |i| Parent::Id(session.entries()[i].id.clone()));
            (compaction, vec![NewEntry::new("custom", fields).with_parent(parent)])
        }
    };
    let target_id = session.entries()[target_index].id.clone();
    let steps = dropped(session, &context, estimator.as_ref());
    let step = steps.into_iter().find(|step| step.id == target_id);
    let left_behind = match target {
        UndoTarget::Compaction { compaction, .. } => {
            let position = context.path.iter().position(|&i| i == compaction).unwrap_or(0);
            context.path.len().saturating_sub(position + 1)
        }
        UndoTarget::Prune { .. } => 0,
    };
    let old_leaf = leaf.map(|i| session.entries()[i].id.clone());
    let written = if args.dry_run {
        None
    } else {
        let mut written = store.append_all(news).map_err(|e| CommandError::store(&e))?;
        written.pop()
    };
    if args.json {
        print_json(&json!({
            "undone": written.is_some(),
            "dryRun": args.dry_run,
            "entryId": written.as_ref().map(|e| e.id.clone()),
            "step": step,
            "leftOnBranch": left_behind,
            "previousLeaf": old_leaf,
        }))?;
    } else {
        print_human(
            path,
            step.as_ref(),
            written.as_ref().map(|e| e.id.as_str()),
            left_behind,
            old_leaf.as_deref(),
        );
    }
    Ok(ExitStatus::Success)
}

/// The `context_edit` entries that put back what the context showed before the prune at
/// `prune` (see [`undo_edits`]).
fn restoring_edits(
    session: &compaction_core::Session,
    context: &compaction_core::context::SessionContext,
    prune: usize,
) -> Vec<NewEntry> {
    undo_edits(session, context, prune)
        .into_iter()
        .map(|fields| NewEntry::new("context_edit", fields))
        .collect()
}

fn print_human(
    path: &std::path::Path,
    step: Option<&DroppedStep>,
    written: Option<&str>,
    left_behind: usize,
    old_leaf: Option<&str>,
) {
    let Some(step) = step else { return };
    let what = match step.kind {
        compaction_core::ledger::StepKind::Compaction => "compaction",
        compaction_core::ledger::StepKind::Prune => "prune",
    };
    let head = match written {
        Some(id) => format!("undid {what} {} in {} (appended {id})", step.id, path.display()),
        None => format!("would undo {what} {} in {}", step.id, path.display()),
    };
    println!(
        "{head}: {} back in the context, about {}",
        plural(step.entries.len(), "entry"),
        plural(step.tokens, "token")
    );
    if let (Some(first), Some(last)) = (step.entries.first(), step.entries.last()) {
        println!("    entries {first} … {last}");
    }
    if !step.files.is_empty() {
        println!("    files: {}", step.files.join(", "));
    }
    if left_behind > 0
        && let Some(old_leaf) = old_leaf
    {
        println!(
            "    {} after the compaction stay on their branch (leaf {old_leaf}; \
             `compaction branch {} --to {old_leaf}` goes back)",
            plural(left_behind, "entry"),
            path.display()
        );
    }
}
