//! `compaction branch`: move to another entry, summarizing the branch left behind.
//!
//! Without `--summarize` nothing is written: pi's format has no "current leaf" record (the
//! leaf is the last entry of the file), so a move is only visible once something is
//! appended under the target; the output says so and names `--leaf` and `--summarize`.
//! With `--summarize` the `branch_summary` entry is appended as a child of the target
//! (`fromId` = old leaf) and becomes the leaf.

use crate::output::plural;
use compaction::navigate::{BranchPlan, NavigateError, NavigateRequest};
use compaction_core::Session;
use serde_json::{Value, json};

use super::{CommandError, ExitStatus, open, setup};
use crate::cli::BranchArgs;
use crate::output::print_json;
use crate::progress::{Progress, ProgressOutput, block_on_cancellable};

pub fn run(args: &BranchArgs) -> anyhow::Result<ExitStatus> {
    let path = &args.file;
    let writing = args.summarize && !args.dry_run;
    let mut store = open::open_store(path, writing, args.wait)?;
    let from = store
        .session()
        .resolve_leaf(args.from.as_deref())
        .map_err(|e| CommandError::usage(format!("{}: {e}", path.display())))?;
    let session_model = setup::session_model(store.session(), from);
    // A dry run never calls a model, so it needs no provider (nor its key).
    // `--max-summary-tokens` bounds the branch summary here (`branchMaxSummaryTokens`), not
    // the compaction summary.
    let flags = crate::cli::CompactionFlags { max_summary_tokens: None, ..args.compaction.clone() };
    let mut toolkit = setup::toolkit(
        &flags,
        &args.summarizer,
        &args.extension,
        session_model.as_ref(),
        None,
        !writing,
    )?;
    if let Some(tokens) = args.compaction.max_summary_tokens {
        toolkit.settings.branch_max_summary_tokens = tokens.max(1);
    }
    let summarizer = &toolkit.summarizer;
    let compactor = toolkit.compactor();
    let request = NavigateRequest {
        target: args.to.clone(),
        from: args.from.clone(),
        summarize: writing,
        instructions: args.instructions.clone(),
        replace_instructions: args.replace_instructions,
        token_budget: None,
    };
    if !writing {
        let plan = compactor
            .plan_navigation(store.session(), &request)
            .map_err(|e| CommandError::usage(format!("{}: {e}", path.display())))?;
        let mut report = plan_report(store.session(), &plan);
        let hint = nothing_written_hint(&args.to, args.summarize);
        if let Value::Object(fields) = &mut report {
            fields.insert("written".into(), Value::Bool(false));
            fields.insert("hint".into(), Value::String(hint.clone()));
        }
        if args.json {
            print_json(&report)?;
        } else {
            print_plan(&report);
            println!("{hint}");
        }
        return Ok(ExitStatus::Success);
    }
    let progress = Progress::new(
        ProgressOutput::of(args.quiet, args.json),
        summarizer.label(),
        compactor.deadline(),
    );
    let outcome = block_on_cancellable(|cancel| async move {
        compactor.navigate(&mut store, &request, &cancel, &|p| progress.update(p)).await
    })?;
    if let Err(NavigateError::Cancelled { reason, extension, warnings }) = &outcome {
        for warning in warnings {
            crate::output::eprint_shown(&format!("warning: {warning}"));
        }
        if args.json {
            print_json(
                &json!({"written": false, "cancelled": true, "extension": extension, "reason": reason}),
            )?;
        } else {
            println!(
                "extension `{extension}` cancelled the branch summary: {reason}; nothing written"
            );
        }
        return Ok(ExitStatus::Success);
    }
    let outcome = outcome.map_err(|e| {
        anyhow::Error::new(e).context(format!(
            "{}: branch summary failed; {}",
            path.display(),
            super::open::unchanged_note()
        ))
    })?;
    for warning in &outcome.warnings {
        crate::output::eprint_shown(&format!("warning: {warning}"));
    }
    match &outcome.entry {
        Some(entry) => {
            if args.json {
                print_json(&json!({
                    "written": true,
                    "entryId": entry.id,
                    "parentId": entry.parent_id,
                    "fromId": entry.kind.as_branch_summary().map(|b| b.from_id.clone()),
                    "messages": outcome.plan.preparation.messages.len(),
                    "usage": outcome.usage,
                    "extension": outcome.decided_by,
                    "fromHook": outcome.decided_by.is_some(),
                }))?;
            } else {
                println!(
                    "summarized {} of the abandoned branch into {} under {}; continue from {}",
                    plural(outcome.plan.preparation.messages.len(), "message"),
                    entry.id,
                    args.to,
                    entry.id
                );
            }
        }
        None => {
            if args.json {
                print_json(
                    &json!({"written": false, "reason": "the abandoned branch has no messages to summarize"}),
                )?;
            } else {
                println!("nothing to summarize on the abandoned branch; nothing written");
            }
        }
    }
    Ok(ExitStatus::Success)
}

fn plan_report(session: &Session, plan: &BranchPlan) -> Value {
    let id = |index: usize| session.entries()[index].id.clone();
    json!({
        "fromId": id(plan.old_leaf),
        "targetId": id(plan.target),
        "commonAncestorId": plan.collection.common_ancestor.map(id),
        "entries": plan.collection.entries.iter().map(|&i| id(i)).collect::<Vec<_>>(),
        "messages": plan.preparation.messages.len(),
        "messageEntryIds": plan.preparation.entry_ids,
        "totalTokens": plan.preparation.total_tokens,
        "tokenBudget": plan.token_budget,
        "readFiles": plan.preparation.read_files,
        "modifiedFiles": plan.preparation.modified_files,
    })
}

/// What happened (nothing was written) and how to make the move real, in pi's terms.
fn nothing_written_hint(target: &str, dry_run_of_summarize: bool) -> String {
    if dry_run_of_summarize {
        return format!(
            "nothing written (dry run); without --dry-run a branch_summary entry is appended \
             under {target} and becomes the leaf"
        );
    }
    format!(
        "nothing written: in pi's format the leaf is the last entry of the file, so a move \
         is persisted only by the next entry appended under {target}. To work from {target}, \
         pass `--leaf {target}` to later commands (context, plan, run), or rerun with \
         --summarize to append a branch summary under it (it becomes the leaf)"
    )
}

fn print_plan(report: &Value) {
    let text = |key: &str| report.get(key).and_then(Value::as_str).unwrap_or("-").to_owned();
    let count = |key: &str| report.get(key).and_then(Value::as_array).map_or(0, Vec::len);
    println!(
        "from {} to {} (common ancestor {})",
        text("fromId"),
        text("targetId"),
        text("commonAncestorId")
    );
    println!(
        "abandoned entries: {}; messages to summarize: {} ({} tokens of a {} budget)",
        count("entries"),
        report.get("messages").and_then(Value::as_u64).unwrap_or(0),
        report.get("totalTokens").and_then(Value::as_u64).unwrap_or(0),
        report.get("tokenBudget").and_then(Value::as_u64).unwrap_or(0)
    );
    for (key, label) in [("readFiles", "read"), ("modifiedFiles", "modified")] {
        let files: Vec<&str> = report
            .get(key)
            .and_then(Value::as_array)
            .map(|items| items.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        if !files.is_empty() {
            println!("{label} files: {}", files.join(", "));
        }
    }
}
