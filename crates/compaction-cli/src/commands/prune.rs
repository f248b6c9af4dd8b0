//! `compaction prune`: replace old tool outputs by placeholders, without an LLM call.
//!
//! Appends one `compaction.prune` entry (a pi `custom` entry, so pi still opens the file
//! and sees the session unpruned) when the saving reaches `prune.minimumSavings`;
//! `--dry-run` shows the same plan and writes nothing.

use crate::output::plural;
use compaction::compact::{
    CompactError, CompactRequest, CompactionReason, recorded_usage_note, token_change,
};
use compaction_core::prune::{PruneDecision, PrunePlan, Strategy};
use serde_json::{Value, json};

use super::run::PRUNE_GREW;
use super::{CommandError, ExitStatus, open, setup};
use crate::cli::{CompactionFlags, PruneArgs, SummarizerFlags};
use crate::output::{preview, print_json};
use crate::progress::block_on_cancellable;

pub fn run(args: &PruneArgs) -> anyhow::Result<ExitStatus> {
    let path = &args.session.file;
    let mut store = open::open_store(path, !args.dry_run, args.wait)?;
    let leaf = store
        .session()
        .resolve_leaf(args.session.leaf.as_deref())
        .map_err(|e| CommandError::usage(format!("{}: {e}", path.display())))?;
    let flags = CompactionFlags { estimator: args.estimator.clone(), ..CompactionFlags::default() };
    let toolkit =
        setup::toolkit(&flags, &SummarizerFlags::default(), &args.extension, None, None, true)?;
    let compactor = toolkit.compactor();
    if args.dry_run {
        let plan = compactor.plan_prune(store.session(), leaf);
        if args.json {
            print_json(&report(&plan, None))?;
        } else {
            print_plan(&plan, true);
        }
        return Ok(ExitStatus::Success);
    }
    let request = CompactRequest {
        leaf: args.session.leaf.clone(),
        instructions: None,
        reason: CompactionReason::Manual,
        strategy: Some(Strategy::Prune),
    };
    let compactor = &compactor;
    let writer = &mut store;
    let result = block_on_cancellable(|cancel| async move {
        compactor.run(writer, &request, &cancel, &|_| {}).await
    })?;
    match result {
        Ok(outcome) => {
            for warning in &outcome.warnings {
                crate::output::eprint_shown(&format!("warning: {warning}"));
            }
            let Some(outcome) = outcome.pruned else {
                return Err(anyhow::anyhow!("the prune strategy wrote no prune entry"));
            };
            if args.json {
                let mut report = report(&outcome.plan, Some(&outcome.entry.id));
                if let Value::Object(fields) = &mut report {
                    fields.insert("estimatedTokensAfter".into(), json!(outcome.tokens_after));
                }
                print_json(&report)?;
            } else {
                println!(
                    "pruned {}: {}, {}{}; appended compaction.prune {}",
                    path.display(),
                    plural(outcome.plan.candidates.len(), "tool output"),
                    token_change(outcome.tokens_before, outcome.tokens_after, PRUNE_GREW),
                    recorded_usage_note(outcome.recorded_usage),
                    outcome.entry.id,
                );
                print_candidates(&outcome.plan);
            }
            Ok(ExitStatus::Success)
        }
        Err(CompactError::Cancelled { reason, extension, warnings }) => {
            for warning in &warnings {
                crate::output::eprint_shown(&format!("warning: {warning}"));
            }
            if args.json {
                print_json(
                    &json!({"pruned": false, "cancelled": true, "extension": extension, "reason": reason}),
                )?;
            } else {
                println!("extension `{extension}` cancelled the prune: {reason}; nothing written");
            }
            Ok(ExitStatus::Success)
        }
        Err(CompactError::NothingToPrune { .. }) => {
            let plan = compactor.plan_prune(store.session(), leaf);
            if args.json {
                print_json(&report(&plan, None))?;
            } else {
                print_plan(&plan, false);
            }
            Ok(ExitStatus::Success)
        }
        Err(error) => Err(anyhow::Error::new(error).context(format!(
            "{}: prune failed; {}",
            path.display(),
            super::open::unchanged_note()
        ))),
    }
}

/// The plan as JSON (`prune --json`, with or without `--dry-run`).
fn report(plan: &PrunePlan, entry_id: Option<&str>) -> Value {
    json!({
        "pruned": entry_id.is_some(),
        "entryId": entry_id,
        "decision": plan.decision,
        "estimatedTokensBefore": plan.tokens_before,
        "tokensSaved": plan.tokens_saved,
        "recordedUsageTokens": plan.recorded_usage,
        "minimumSavings": plan.minimum_savings,
        "protectedFrom": plan.protected_from,
        "candidates": plan.candidates,
    })
}

fn print_plan(plan: &PrunePlan, dry_run: bool) {
    match plan.decision {
        PruneDecision::Prune => println!(
            "would prune {}: {}{}",
            plural(plan.candidates.len(), "tool output"),
            token_change(plan.tokens_before, plan.tokens_after(), PRUNE_GREW),
            recorded_usage_note(plan.recorded_usage),
        ),
        PruneDecision::BelowMinimum => println!(
            "nothing worth pruning: {} would save {}, below the minimum of {} \
             (prune.minimumSavings){}",
            plural(plan.candidates.len(), "old tool output"),
            plural(plan.tokens_saved, "token"),
            plan.minimum_savings,
            if dry_run { "" } else { "; nothing written" },
        ),
        PruneDecision::Nothing => println!(
            "nothing to prune: every tool output is recent, protected or already pruned{}",
            if dry_run { "" } else { "; nothing written" },
        ),
    }
    print_candidates(plan);
}

fn print_candidates(plan: &PrunePlan) {
    for candidate in &plan.candidates {
        println!(
            "  {}  {:<10} {:<11} {:>6} → {:<4} {}",
            candidate.id,
            candidate.reason.as_str(),
            candidate.policy.as_str(),
            candidate.tokens,
            candidate.tokens_after,
            preview(&format!("{} {}", candidate.tool, candidate.arguments), 60),
        );
    }
}
