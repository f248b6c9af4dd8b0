//! `compaction dropped`: every compaction and prune on the path, with what each removed
//! from the context (entries, tokens, files). Read-only.

use crate::output::plural;
use compaction_core::context::build_context;
use compaction_core::ledger::{DroppedStep, StepKind, dropped};
use serde_json::json;

use super::{ExitStatus, setup};
use crate::cli::{CompactionFlags, DroppedArgs};
use crate::output::print_json;

pub fn run(args: &DroppedArgs) -> anyhow::Result<ExitStatus> {
    let (session, leaf) = super::load_with_leaf(&args.session)?;
    let flags = CompactionFlags { estimator: args.estimator.clone(), ..CompactionFlags::default() };
    let settings = setup::settings(&flags)?;
    let estimator = setup::estimator(&settings)?;
    let context = build_context(&session, leaf);
    let steps = dropped(&session, &context, estimator.as_ref());
    if args.json {
        print_json(&json!({ "estimator": estimator.name(), "steps": steps }))?;
    } else {
        print_human(&steps);
    }
    crate::load::release_at_exit(session);
    Ok(ExitStatus::Success)
}

fn print_human(steps: &[DroppedStep]) {
    if steps.is_empty() {
        println!("nothing dropped: no compaction or prune on this path");
        return;
    }
    for step in steps {
        let kind = match step.kind {
            StepKind::Compaction if step.from_hook => "compaction (extension)",
            StepKind::Compaction => "compaction",
            StepKind::Prune => "prune",
        };
        let verb = match step.kind {
            StepKind::Compaction => "summarized",
            StepKind::Prune => "pruned",
        };
        let reverted = match &step.reverted_by {
            Some(revert) => format!(" — reverted by {revert}"),
            None => String::new(),
        };
        println!(
            "{} {kind} {}: {verb} {}, about {}{reverted}",
            step.timestamp.as_deref().unwrap_or("-"),
            step.id,
            plural(step.entries.len(), "entry"),
            plural(step.tokens, "token"),
        );
        if let (Some(first), Some(last)) = (step.entries.first(), step.entries.last()) {
            println!("    entries {first} … {last}");
        }
        if !step.files.is_empty() {
            // The lists as another writer stored them (pi keeps paths as recorded): a path
            // holding a secret is shown redacted, as `--json` shows it.
            let files: Vec<_> = step.files.iter().map(|file| crate::output::shown(file)).collect();
            println!("    files: {}", files.join(", "));
        }
    }
}
