//! `compaction summarize`: a compaction or branch summary for a host that appends it.
//!
//! pi (through its extension API) and other hosts own their session file and append the
//! entries themselves; they need the summary, not a write. This command runs the same
//! orchestration as `run` and `branch --summarize` ([`Compactor::draft`] and
//! [`Compactor::draft_branch_summary`]: same plan, same extensions, same request bounds)
//! and prints the entry's fields. Invariant: the session file is never modified; it is
//! read under the shared lock (so never in the middle of a write by this tool) and
//! released before any summarizer call.
//!
//! [`Compactor::draft`]: compaction::compact::Compactor::draft
//! [`Compactor::draft_branch_summary`]: compaction::compact::Compactor::draft_branch_summary

use crate::output::plural;
use compaction::compact::{CompactError, CompactRequest, CompactionDraft, CompactionReason};
use compaction::navigate::{BranchSummaryDraft, NavigateError, NavigateRequest};
use compaction::store::{LockWait, OpenOptions, SessionLock, SessionStore};
use compaction_core::Session;
use compaction_core::prune::Strategy;
use serde_json::{Value, json};

use super::{CommandError, ExitStatus, setup};
use crate::cli::{ReasonArg, SummarizeArgs};
use crate::output::print_json;
use crate::progress::{Progress, ProgressOutput, block_on_cancellable};

pub fn run(args: &SummarizeArgs) -> anyhow::Result<ExitStatus> {
    let path = &args.session.file;
    let session = read_locked(path, args.wait)?;
    let leaf_arg = match &args.branch_to {
        Some(_) => args.branch_from.as_deref(),
        None => args.session.leaf.as_deref(),
    };
    let leaf = session
        .resolve_leaf(leaf_arg)
        .map_err(|e| CommandError::usage(format!("{}: {e}", path.display())))?;
    let session_model = setup::session_model(&session, leaf);
    let toolkit = setup::toolkit(
        &args.compaction,
        &args.summarizer,
        &args.extension,
        session_model.as_ref(),
        None,
        false,
    )?;
    let label = toolkit.summarizer.label();
    let compactor = toolkit.compactor();
    let progress = Progress::new(
        ProgressOutput::of(args.quiet, args.json),
        label.clone(),
        compactor.deadline(),
    );
    match &args.branch_to {
        None => {
            let request = CompactRequest {
                leaf: args.session.leaf.clone(),
                instructions: args.instructions.clone(),
                reason: match args.reason {
                    ReasonArg::Manual => CompactionReason::Manual,
                    ReasonArg::Threshold => CompactionReason::Threshold,
                    ReasonArg::Overflow => CompactionReason::Overflow,
                },
                // A prune would have to be written first: the host gets a summary only.
                strategy: Some(Strategy::Summarize),
            };
            let session = &session;
            let result = block_on_cancellable(|cancel| async move {
                compactor.draft(session, &request, &cancel, &|p| progress.update(p)).await
            })?;
            report_compaction(args, result, &label)
        }
        Some(target) => {
            let request = NavigateRequest {
                target: target.clone(),
                from: args.branch_from.clone(),
                summarize: true,
                instructions: args.instructions.clone(),
                replace_instructions: args.replace_instructions,
                token_budget: None,
            };
            let session = &session;
            let result = block_on_cancellable(|cancel| async move {
                compactor
                    .draft_branch_summary(session, &request, &cancel, &|p| progress.update(p))
                    .await
            })?;
            report_branch(args, result, &label)
        }
    }
}

/// Loads the session while holding the shared lock, then lets the lock go: summarizing can
/// take minutes and must not keep writers out.
fn read_locked(path: &std::path::Path, wait: bool) -> anyhow::Result<Session> {
    let wait = if wait { LockWait::Forever } else { LockWait::NoWait };
    let lock = SessionLock::acquire_shared(path, wait)
        .map_err(|e| CommandError::usage(format!("{}: {e}", path.display())))?;
    let (store, report) = SessionStore::open(path, OpenOptions::for_reading())
        .map_err(|e| CommandError::usage(format!("{}: {e}", path.display())))?;
    drop(lock);
    for message in report.messages() {
        crate::output::eprint_shown(&format!("{}: {message}", path.display()));
    }
    Ok(store.into_session())
}

fn warnings_of(warnings: &[compaction::extension::ExtensionWarning]) -> Vec<String> {
    for warning in warnings {
        crate::output::eprint_shown(&format!("warning: {warning}"));
    }
    warnings.iter().map(ToString::to_string).collect()
}

fn report_compaction(
    args: &SummarizeArgs,
    result: Result<CompactionDraft, CompactError>,
    label: &str,
) -> anyhow::Result<ExitStatus> {
    let path = &args.session.file;
    match result {
        Ok(draft) => {
            let warnings = warnings_of(&draft.warnings);
            let field = |key: &str| draft.fields.get(key).cloned().unwrap_or(Value::Null);
            let summary = field("summary");
            if args.json {
                print_json(&json!({
                    "kind": "compaction",
                    "compacted": true,
                    "compaction": {
                        "summary": summary,
                        "firstKeptEntryId": field("firstKeptEntryId"),
                        "tokensBefore": field("tokensBefore"),
                        "details": field("details"),
                    },
                    "entry": draft.fields,
                    "parentId": draft.parent_id,
                    "tokensBefore": draft.tokens_before,
                    "estimatedTokensBefore": draft.estimated_tokens_before,
                    "estimatedTokensAfter": draft.tokens_after,
                    "summarizer": label,
                    "summarizerCalls": draft.summarizer_calls,
                    "usage": draft.usage.stored(),
                    "extension": draft.decided_by,
                    "warnings": warnings,
                }))?;
            } else {
                println!("{}", summary.as_str().unwrap_or_default());
                let change = match draft.tokens_after {
                    Some(after) => compaction::compact::token_change(
                        draft.estimated_tokens_before,
                        after,
                        "the summary is longer than what it replaced",
                    ),
                    None => format!(
                        "{} tokens before (estimated context; after: known once written)",
                        draft.estimated_tokens_before
                    ),
                };
                println!(
                    "\n(first kept entry {}; {change}; nothing written)",
                    field("firstKeptEntryId").as_str().unwrap_or("-"),
                );
            }
            Ok(ExitStatus::Success)
        }
        Err(CompactError::Nothing(reason)) => {
            if args.json {
                print_json(&json!({
                    "kind": "compaction",
                    "compacted": false,
                    "compactable": false,
                    "reason": reason.to_string(),
                }))?;
            } else {
                println!("nothing to compact in {}: {reason}", path.display());
            }
            Ok(ExitStatus::Success)
        }
        Err(CompactError::Cancelled { reason, extension, warnings }) => {
            let warnings = warnings_of(&warnings);
            if args.json {
                print_json(&json!({
                    "kind": "compaction",
                    "compacted": false,
                    "cancelled": true,
                    "extension": extension,
                    "reason": reason,
                    "warnings": warnings,
                }))?;
            } else {
                println!("extension `{extension}` cancelled the compaction: {reason}");
            }
            Ok(ExitStatus::Success)
        }
        Err(error) => Err(anyhow::Error::new(error)
            .context(format!("{}: summarizing for a compaction failed", path.display()))),
    }
}

fn report_branch(
    args: &SummarizeArgs,
    result: Result<BranchSummaryDraft, NavigateError>,
    label: &str,
) -> anyhow::Result<ExitStatus> {
    let path = &args.session.file;
    let draft = match result {
        Ok(draft) => draft,
        Err(NavigateError::Cancelled { reason, extension, warnings }) => {
            let warnings = warnings_of(&warnings);
            if args.json {
                print_json(&json!({
                    "kind": "branch_summary",
                    "summarized": false,
                    "cancelled": true,
                    "extension": extension,
                    "reason": reason,
                    "warnings": warnings,
                }))?;
            } else {
                println!("extension `{extension}` cancelled the branch summary: {reason}");
            }
            return Ok(ExitStatus::Success);
        }
        Err(
            error @ (NavigateError::UnknownEntry(_)
            | NavigateError::AlreadyThere(_)
            | NavigateError::Empty),
        ) => return Err(CommandError::usage(format!("{}: {error}", path.display()))),
        Err(error) => {
            return Err(anyhow::Error::new(error)
                .context(format!("{}: summarizing the branch failed", path.display())));
        }
    };
    let warnings = warnings_of(&draft.warnings);
    let messages = draft.plan.preparation.messages.len();
    let Some(fields) = &draft.fields else {
        if args.json {
            print_json(&json!({
                "kind": "branch_summary",
                "summarized": false,
                "fromId": draft.from_id,
                "targetId": draft.target_id,
                "reason": "the abandoned branch has no messages to summarize",
                "warnings": warnings,
            }))?;
        } else {
            println!("nothing to summarize on the abandoned branch");
        }
        return Ok(ExitStatus::Success);
    };
    let field = |key: &str| fields.get(key).cloned().unwrap_or(Value::Null);
    if args.json {
        print_json(&json!({
            "kind": "branch_summary",
            "summarized": true,
            "summary": { "summary": field("summary"), "details": field("details") },
            "entry": fields,
            "fromId": draft.from_id,
            "targetId": draft.target_id,
            "messages": messages,
            "summarizer": label,
            "usage": draft.usage.stored(),
            "extension": draft.decided_by,
            "warnings": warnings,
        }))?;
    } else {
        println!("{}", field("summary").as_str().unwrap_or_default());
        println!(
            "\n(branch {} left for {}: {} summarized; nothing written)",
            draft.from_id,
            draft.target_id,
            plural(messages, "message")
        );
    }
    Ok(ExitStatus::Success)
}
