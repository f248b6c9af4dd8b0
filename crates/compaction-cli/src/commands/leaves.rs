//! `compaction leaves`: the tips of the session tree, to pick a `branch --to` target.

use compaction_core::Session;
use serde_json::json;

use super::ExitStatus;
use crate::cli::LeavesArgs;
use crate::output::{message_preview, print_json};

/// The last message on the path to `leaf`, as a preview.
fn last_message(session: &Session, leaf: usize) -> String {
    let mut current = Some(leaf);
    while let Some(index) = current {
        if let Some(Ok(message)) = session.entries()[index].message() {
            return format!("{}: {}", message.role(), message_preview(&message, 80));
        }
        current = session.parent_of(index);
    }
    "(no messages)".to_owned()
}

pub fn run(args: &LeavesArgs) -> anyhow::Result<ExitStatus> {
    let session = crate::load::read_session(&args.file)?;
    let current = session.leaf();
    let leaves = session.leaves();
    if args.json {
        let rows: Vec<_> = leaves
            .iter()
            .map(|&leaf| {
                let entry = &session.entries()[leaf];
                json!({
                    "id": entry.id,
                    "current": Some(leaf) == current,
                    "depth": session.path(leaf).len(),
                    "label": session.label(&entry.id),
                    "timestamp": entry.timestamp(),
                    "lastMessage": last_message(&session, leaf),
                })
            })
            .collect();
        print_json(&rows)?;
    } else {
        for &leaf in &leaves {
            let entry = &session.entries()[leaf];
            let marker = if Some(leaf) == current { "◉" } else { "○" };
            let label = session.label(&entry.id).map(|l| format!(" ⟨{l}⟩")).unwrap_or_default();
            println!(
                "{marker} {} depth {}{label}  {}",
                entry.id,
                session.path(leaf).len(),
                last_message(&session, leaf)
            );
        }
    }
    Ok(ExitStatus::Success)
}
