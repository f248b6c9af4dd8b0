//! `compaction run` on a session in a database (`sqlite:DB#ID`, `postgres://…#ID`).
//!
//! The same orchestration path as for a file ([`compaction::stores::compact_stored`]): the
//! compaction is computed on a private scratch copy and appended to the database only when
//! the session's leaf is still the one it was planned against; otherwise nothing is written
//! and the command fails, asking to run it again.

use compaction::compact::{CompactError, CompactRequest, CompactionReason};
use compaction::stores::{SessionBackend, StoredCompactError, compact_stored};
use serde_json::json;

use super::{CommandError, ExitStatus, setup};
use crate::cli::RunArgs;
use crate::output::{plural, print_json};
use crate::progress::{Progress, ProgressOutput, block_on_cancellable};

pub fn run(
    args: &RunArgs,
    backend: Box<dyn SessionBackend>,
    id: &str,
) -> anyhow::Result<ExitStatus> {
    let name = format!("{}#{id}", backend.describe());
    if args.output.is_some() || args.restore_files {
        return Err(CommandError::usage(format!(
            "{name}: --output and --restore-files work on session files; `compaction store \
             export` writes a file to use them on"
        )));
    }
    let read = backend
        .read_path(id, args.session.leaf.as_deref())
        .map_err(|e| super::store::backend_error(&e))?;
    let session_model = read.context().model;
    let mut toolkit = setup::toolkit(
        &args.compaction,
        &args.summarizer,
        &args.extension,
        session_model.as_ref(),
        None,
        false,
    )?;
    drop(read);
    if args.strict {
        toolkit.settings.strict_quality = true;
    }
    let compactor = toolkit.compactor();
    let request = CompactRequest {
        leaf: args.session.leaf.clone(),
        instructions: args.instructions.clone(),
        reason: CompactionReason::Manual,
        strategy: args.strategy.map(Into::into),
    };
    let label = toolkit.summarizer.label();
    let progress = Progress::new(
        ProgressOutput::of(args.quiet, args.json),
        label.clone(),
        compactor.deadline(),
    );
    // A scratch copy a killed run or worker left in the temporary folder is removed here
    // (the compaction below would remove it silently).
    for file in compaction::disk::reclaim_temp_scratch() {
        eprintln!(
            "removed {}, a scratch copy left by an interrupted compaction (its process is gone)",
            file.display()
        );
    }
    let backend = backend.as_ref();
    let result = block_on_cancellable(|cancel| async move {
        compact_stored(backend, id, &compactor, &request, &cancel, &|p| progress.update(p)).await
    })?;
    match result {
        Ok(outcome) => {
            for warning in &outcome.warnings {
                crate::output::eprint_shown(&format!("warning: {warning}"));
            }
            if args.json {
                print_json(&json!({
                    "compacted": true,
                    "strategy": outcome.strategy.as_str(),
                    "summarized": outcome.summarized,
                    "entryId": outcome.entry.id,
                    "tokensBefore": outcome.tokens_before,
                    "estimatedTokensAfter": outcome.tokens_after,
                    "firstKeptEntryId": outcome.entry.kind.as_compaction().map(|c| c.first_kept_entry_id.clone()),
                    "summarizer": label,
                    "summarizerCalls": outcome.summarizer_calls,
                    "usage": outcome.usage.stored(),
                    "extension": outcome.decided_by,
                    "fromHook": outcome.decided_by.is_some(),
                    "warnings": outcome.warnings.iter().map(ToString::to_string).collect::<Vec<_>>(),
                }))?;
            } else {
                let what = if outcome.summarized { "compaction" } else { "compaction.prune" };
                println!(
                    "compacted {name}: {} → about {} tokens; appended {what} {} ({} via \
                     {label})",
                    outcome.tokens_before,
                    outcome.tokens_after,
                    outcome.entry.id,
                    plural(outcome.summarizer_calls, "summarizer call"),
                );
            }
            Ok(ExitStatus::Success)
        }
        Err(StoredCompactError::Compact(CompactError::Nothing(reason))) => {
            if args.json {
                print_json(
                    &json!({"compacted": false, "compactable": false, "reason": reason.to_string()}),
                )?;
            } else {
                println!("nothing to compact in {name}: {reason}");
            }
            Ok(ExitStatus::Success)
        }
        Err(StoredCompactError::Compact(error)) => Err(anyhow::Error::new(error)
            .context(format!("{name}: compaction failed; nothing was written"))),
        Err(StoredCompactError::Moved(error)) => Err(CommandError::with_kind(
            super::ErrorKind::Failed,
            format!("{error}; run the compaction again"),
        )),
        Err(StoredCompactError::Backend(error)) => Err(super::store::backend_error(&error)),
    }
}
