//! `compaction run`: the main job. Plan, summarize, append one compaction entry.
//!
//! The session is opened for writing first, so the write lock is held from planning to
//! appending: what was summarized is still the leaf the entry is appended to. Ctrl-C or any
//! error leaves the file byte-identical (the store appends only after every summarizer call
//! succeeded). With `-o OUT`, the input is only read: the compaction is appended to a copy in
//! a temporary file beside `OUT`, which appears at `OUT` only after the entry is durably
//! written (never replacing a file unless `--force`, never the input itself).

use crate::output::plural;
use compaction::compact::{
    CompactError, CompactRequest, CompactionReason, recorded_usage_note, token_change,
};
use serde_json::json;

use super::{CommandError, ExitStatus, open, setup};
use crate::cli::{PlanArgs, RunArgs, SessionArgs};
use crate::output::print_json;
use crate::progress::{Progress, ProgressOutput, block_on_cancellable};

/// Why a prune's estimate could rise (it cannot, unless a placeholder outgrows its output).
pub(super) const PRUNE_GREW: &str = "the placeholders are longer than the outputs";
/// Why a compaction's estimate could rise.
const SUMMARY_GREW: &str = "the summary is longer than what it replaced";

/// One line on the files re-read into the context.
fn restore_line(restored: &compaction::restore::RestoreOutcome) -> String {
    let files: Vec<String> = restored
        .restored
        .iter()
        .map(|file| {
            let cut = if file.truncated { ", cut" } else { "" };
            format!("{} ({} tokens{cut})", file.path, file.tokens)
        })
        .collect();
    let skipped: Vec<String> = restored
        .skipped
        .iter()
        .map(|file| format!("{} ({})", file.path, skip_text(file.reason)))
        .collect();
    let mut line = match (&restored.entry, files.is_empty()) {
        (Some(entry), false) => {
            format!("restored files: {}; appended custom_message {}", files.join(", "), entry.id)
        }
        (Some(_) | None, _) => "restored files: none".to_owned(),
    };
    if !skipped.is_empty() {
        line.push_str(&format!("; skipped: {}", skipped.join(", ")));
    }
    line
}

fn skip_text(reason: compaction::restore::SkipReason) -> &'static str {
    use compaction::restore::SkipReason;
    match reason {
        SkipReason::OutsideCwd => "outside the session's cwd",
        SkipReason::Missing => "missing",
        SkipReason::Binary => "binary",
        SkipReason::Unreadable => "not a readable file",
        SkipReason::NoBudget => "no token budget left",
        SkipReason::TooLarge => "larger than 16 MiB",
        SkipReason::FolderRefused => "the session's folder is no project folder",
        SkipReason::Redacted => "its name holds a secret and no write or edit gives it",
    }
}

/// One line on the quality gate's verdict.
fn quality_line(quality: &compaction_core::quality::QualityReport) -> String {
    use compaction_core::quality::QualityStatus;
    if let Some(fallback) = &quality.fallback {
        return format!(
            "quality: {}'s summary was unusable ({}); the {} summary stored {}",
            fallback.instead_of,
            fallback.reason.join("; "),
            fallback.summarizer,
            quality.status.as_str()
        );
    }
    match (quality.status, quality.attempts) {
        (QualityStatus::Passed, 1) => "quality: passed".to_owned(),
        (QualityStatus::Passed, _) => format!(
            "quality: passed on the retry (the first summary lacked: {})",
            quality.first_attempt_missing.join("; ")
        ),
        (QualityStatus::Repaired, _) => format!(
            "quality: repaired after {}: a Must Keep section adds what the summary lacked ({})",
            plural(quality.attempts, "attempt"),
            quality.missing.join("; ")
        ),
    }
}

pub fn run(args: &RunArgs) -> anyhow::Result<ExitStatus> {
    if args.dry_run {
        return super::plan::run(&PlanArgs {
            session: SessionArgs {
                file: args.session.file.clone(),
                leaf: args.session.leaf.clone(),
            },
            compaction: args.compaction.clone(),
            summarizer: args.summarizer.clone(),
            instructions: args.instructions.clone(),
            ask: args.ask,
            json: args.json,
        });
    }
    if let Some((backend, id)) = super::store::database_session(&args.session.file)? {
        return super::run_stored::run(args, backend, &id);
    }
    let mut store = match &args.output {
        Some(output) => open::open_copy(&args.session.file, output, args.force)?,
        None => open::open_store(&args.session.file, true, args.wait)?,
    };
    let path = args.output.as_ref().unwrap_or(&args.session.file);
    let leaf = store
        .session()
        .resolve_leaf(args.session.leaf.as_deref())
        .map_err(|e| CommandError::usage(format!("{}: {e}", path.display())))?;
    let session_model = setup::session_model(store.session(), leaf);
    let mut toolkit = setup::toolkit(
        &args.compaction,
        &args.summarizer,
        &args.extension,
        session_model.as_ref(),
        compaction_core::import::recorded_context_window(store.session()),
        false,
    )?;
    if args.strict {
        toolkit.settings.strict_quality = true;
    }
    let summarizer = &toolkit.summarizer;
    let compactor = toolkit.compactor();
    let request = CompactRequest {
        leaf: args.session.leaf.clone(),
        instructions: args.instructions.clone(),
        reason: CompactionReason::Manual,
        strategy: args.strategy.map(Into::into),
    };
    let progress = Progress::new(
        ProgressOutput::of(args.quiet, args.json),
        summarizer.label(),
        compactor.deadline(),
    );
    let store_ref = &mut store;
    let result = block_on_cancellable(|cancel| async move {
        compactor.run(store_ref, &request, &cancel, &|p| progress.update(p)).await
    })?;
    let result = result.and_then(|outcome| {
        if !args.restore_files || outcome.entry.kind.as_compaction().is_none() {
            return Ok((outcome, None));
        }
        let limits = compaction::restore::RestoreLimits::from_settings(&toolkit.settings);
        let estimator = toolkit.estimator.as_ref();
        let redactor = &toolkit.redactor;
        compaction::restore::restore_files(
            &mut store,
            &outcome.entry.id,
            limits,
            None,
            estimator,
            redactor,
        )
        .map(|restored| (outcome, Some(restored)))
        .map_err(CompactError::Store)
    });
    let result = match result {
        Ok(outcome) if args.output.is_some() => {
            store.publish().map(|_| outcome).map_err(compaction::compact::CompactError::Store)
        }
        other => other,
    };
    match result {
        Ok((outcome, restored)) => {
            for warning in &outcome.warnings {
                crate::output::eprint_shown(&format!("warning: {warning}"));
            }
            if let Some(refused) = restored.as_ref().and_then(|r| r.refused_folder.as_ref()) {
                let names: Vec<&str> = restored
                    .iter()
                    .flat_map(|r| r.skipped.iter().map(|file| file.path.as_str()))
                    .collect();
                crate::output::eprint_shown(&format!(
                    "warning: no file restored from the session's folder {:?}: {}; files it \
                     names that were not read: {}",
                    refused.cwd,
                    refused.reason,
                    if names.is_empty() { "none".to_owned() } else { names.join(", ") }
                ));
            }
            let mut stages = Vec::new();
            if outcome.pruned.is_some() {
                stages.push("prune");
            }
            if outcome.summarized {
                stages.push("summarize");
            }
            let pruned = outcome.pruned.as_ref().map(|pruned| {
                json!({
                    "entryId": pruned.entry.id,
                    "entries": pruned.plan.candidates.iter().map(|c| c.id.as_str()).collect::<Vec<_>>(),
                    "estimatedTokensBefore": pruned.tokens_before,
                    "estimatedTokensAfter": pruned.tokens_after,
                    "recordedUsageTokens": pruned.recorded_usage,
                })
            });
            if args.json {
                print_json(&json!({
                    "compacted": true,
                    "strategy": outcome.strategy.as_str(),
                    "stages": stages,
                    "pruned": pruned,
                    "entryId": outcome.entry.id,
                    "firstKeptEntryId": outcome.entry.kind.as_compaction().map(|c| c.first_kept_entry_id.clone()),
                    "estimatedTokensBefore": outcome.tokens_before,
                    "estimatedTokensAfter": outcome.tokens_after,
                    "recordedUsageTokens": outcome.recorded_usage,
                    "summarizer": summarizer.label(),
                    "summarizerCalls": outcome.summarizer_calls,
                    "usage": outcome.usage.stored(),
                    "extension": outcome.decided_by,
                    "fromHook": outcome.decided_by.is_some(),
                    "warnings": outcome.warnings.iter().map(ToString::to_string).collect::<Vec<_>>(),
                    "quality": outcome.quality,
                    "restoredFiles": restored,
                }))?;
            } else if !outcome.summarized {
                let count = outcome.pruned.as_ref().map_or(0, |p| p.plan.candidates.len());
                println!(
                    "pruned {}: {}, {}{}; appended compaction.prune {} (strategy {}: no \
                     summary needed)",
                    path.display(),
                    plural(count, "old tool output"),
                    token_change(outcome.tokens_before, outcome.tokens_after, PRUNE_GREW),
                    recorded_usage_note(outcome.recorded_usage),
                    outcome.entry.id,
                    outcome.strategy.as_str(),
                );
            } else {
                if let Some(pruned) = &outcome.pruned {
                    println!(
                        "pruned {} first: {}; appended compaction.prune {}",
                        plural(pruned.plan.candidates.len(), "old tool output"),
                        token_change(pruned.tokens_before, pruned.tokens_after, PRUNE_GREW),
                        pruned.entry.id,
                    );
                }
                let fallback = outcome.quality.as_ref().and_then(|q| q.fallback.as_ref());
                let by = match (&outcome.decided_by, fallback) {
                    (Some(extension), _) => format!("written by extension `{extension}`"),
                    (None, Some(fallback)) => format!(
                        "FALLBACK: written by the {} summarizer, because {}'s summary was \
                         unusable after {} (fallbackToOffline)",
                        fallback.summarizer,
                        fallback.instead_of,
                        plural(fallback.requests, "request"),
                    ),
                    (None, None) => format!(
                        "{} via {}",
                        plural(outcome.summarizer_calls, "summarizer call"),
                        summarizer.label()
                    ),
                };
                println!(
                    "compacted {}: {}{}; appended compaction {} ({by})",
                    path.display(),
                    token_change(outcome.tokens_before, outcome.tokens_after, SUMMARY_GREW),
                    recorded_usage_note(outcome.recorded_usage),
                    outcome.entry.id,
                );
                if let Some(quality) = &outcome.quality {
                    println!("{}", quality_line(quality));
                }
                if let Some(restored) = &restored {
                    println!("{}", restore_line(restored));
                }
            }
            Ok(ExitStatus::Success)
        }
        Err(CompactError::Nothing(reason)) => {
            if args.json {
                print_json(
                    &json!({"compacted": false, "compactable": false, "reason": reason.to_string()}),
                )?;
            } else {
                println!("nothing to compact in {}: {reason}", args.session.file.display());
                if let Some(output) = &args.output {
                    println!("{} was not written", output.display());
                }
            }
            Ok(ExitStatus::Success)
        }
        Err(CompactError::NothingToPrune { saved, minimum }) => {
            if args.json {
                print_json(
                    &json!({"compacted": false, "compactable": false, "reason": format!("nothing worth pruning: {saved} tokens saved, {minimum} needed")}),
                )?;
            } else {
                println!(
                    "nothing worth pruning in {}: old tool outputs would save {saved} tokens, \
                     below the {minimum} a prune needs",
                    path.display()
                );
            }
            Ok(ExitStatus::Success)
        }
        Err(CompactError::Cancelled { reason, extension, warnings }) => {
            for warning in &warnings {
                crate::output::eprint_shown(&format!("warning: {warning}"));
            }
            if args.json {
                print_json(
                    &json!({"compacted": false, "cancelled": true, "extension": extension, "reason": reason}),
                )?;
            } else {
                println!(
                    "extension `{extension}` cancelled the compaction: {reason}; nothing written"
                );
            }
            Ok(ExitStatus::Success)
        }
        Err(error) => {
            let unchanged = match &args.output {
                Some(output) => format!(
                    "{}: compaction failed; {} was not changed and {} was not written",
                    args.session.file.display(),
                    args.session.file.display(),
                    output.display()
                ),
                None => {
                    format!("{}: compaction failed; {}", path.display(), open::unchanged_note())
                }
            };
            Err(anyhow::Error::new(error).context(unchanged))
        }
    }
}
