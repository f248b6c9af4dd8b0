//! `compaction tree`: the session tree, one line per entry.
//!
//! Children of a branch point are drawn indented under it; a long linear run of ordinary
//! entries is collapsed to its ends (`--full` shows everything). Labels, compactions,
//! branch summaries and the current leaf are marked. The walk is iterative, so a session
//! of any depth draws without recursion.

use std::io::Write as _;

use compaction_core::{EntryKind, Session};
use serde::Serialize;

use super::ExitStatus;
use crate::cli::TreeArgs;
use crate::output::{message_preview, print_json};

/// Entries kept at each end of a collapsed linear run.
const RUN_ENDS: usize = 2;
/// Linear runs longer than this are collapsed.
const RUN_LIMIT: usize = 2 * RUN_ENDS + 2;
/// Branch levels drawn as indentation; deeper ones are numbered instead, so a line stays
/// short however deep the branching goes (each level drawn is three characters on every
/// line below it: a session that branches at each of 10,000 entries printed 3 GB).
const INDENT_LEVELS: usize = 32;
const PREVIEW_CHARS: usize = 72;

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct TreeNode {
    id: String,
    parent_id: Option<String>,
    line: usize,
    #[serde(rename = "type")]
    entry_type: String,
    role: Option<String>,
    label: Option<String>,
    children: usize,
    is_leaf: bool,
    preview: String,
}

pub fn run(args: &TreeArgs) -> anyhow::Result<ExitStatus> {
    let session = crate::load::read_session(&args.file)?;
    if args.json {
        let leaf = session.leaf();
        let nodes: Vec<TreeNode> = (0..session.entries().len())
            .map(|index| {
                let entry = &session.entries()[index];
                TreeNode {
                    id: entry.id.clone(),
                    parent_id: session.parent_of(index).map(|p| session.entries()[p].id.clone()),
                    line: entry.line,
                    entry_type: entry.kind.type_name().to_owned(),
                    role: entry.role().map(str::to_owned),
                    label: session.label(&entry.id).map(str::to_owned),
                    children: session.children_of(index).len(),
                    is_leaf: Some(index) == leaf,
                    preview: describe(&session, index),
                }
            })
            .collect();
        print_json(&nodes)?;
    } else {
        let mut out = crate::output::Visible(std::io::stdout().lock());
        for line in render(&session, args.full) {
            writeln!(out, "{line}")?;
        }
    }
    Ok(ExitStatus::Success)
}

/// Renders the tree as text lines.
pub fn render(session: &Session, full: bool) -> Vec<String> {
    let mut lines = Vec::new();
    let leaf = session.leaf();
    let on_leaf_path: Vec<bool> = {
        let mut marks = vec![false; session.entries().len()];
        for index in session.path_to_leaf() {
            marks[index] = true;
        }
        marks
    };
    // Stack of (entry, prefix for its own line, prefix for lines below it, branch level).
    let mut stack: Vec<(usize, String, String, usize)> = Vec::new();
    let roots = session.roots();
    for (position, &root) in roots.iter().enumerate().rev() {
        let last = position + 1 == roots.len();
        let (own, below) = if roots.len() == 1 {
            (String::new(), String::new())
        } else if last {
            ("└─ ".to_owned(), "   ".to_owned())
        } else {
            ("├─ ".to_owned(), "│  ".to_owned())
        };
        stack.push((root, own, below, 0));
    }
    while let Some((start, own_prefix, below_prefix, level)) = stack.pop() {
        // Follow the linear run from `start` while entries have exactly one child.
        let mut run = vec![start];
        let mut current = start;
        while let [only] = session.children_of(current) {
            current = *only;
            run.push(current);
        }
        let notable = |index: usize| {
            Some(index) == leaf
                || session.label(&session.entries()[index].id).is_some()
                || matches!(
                    session.entries()[index].kind,
                    EntryKind::Compaction(_) | EntryKind::BranchSummary(_)
                )
        };
        let mut first = true;
        let mut skipped = 0usize;
        for (position, &index) in run.iter().enumerate() {
            // pi 1.6 hides usage entries (cache warming, …) from the tree.
            if matches!(session.entries()[index].kind, EntryKind::Usage { .. })
                && Some(index) != leaf
            {
                continue;
            }
            let at_end = position < RUN_ENDS || position + RUN_ENDS >= run.len();
            if full || run.len() <= RUN_LIMIT || at_end || notable(index) {
                if skipped > 0 {
                    lines.push(format!("{below_prefix}┆  … {skipped} more entries …"));
                    skipped = 0;
                }
                let prefix = if first { &own_prefix } else { &below_prefix };
                first = false;
                let marker = if Some(index) == leaf {
                    "◉"
                } else if on_leaf_path[index] {
                    "●"
                } else {
                    "○"
                };
                lines.push(format!("{prefix}{marker} {}", describe(session, index)));
            } else {
                skipped += 1;
            }
        }
        let children = session.children_of(current);
        for (position, &child) in children.iter().enumerate().rev() {
            let last = position + 1 == children.len();
            let branch = if last { "└─ " } else { "├─ " };
            let (own, below) = if level + 1 > INDENT_LEVELS {
                let deep = format!("[level {}] ", level + 1);
                (format!("{deep}{branch}"), format!("{deep}   "))
            } else if last {
                (format!("{below_prefix}{branch}"), format!("{below_prefix}   "))
            } else {
                (format!("{below_prefix}{branch}"), format!("{below_prefix}│  "))
            };
            stack.push((child, own, below, level + 1));
        }
    }
    lines
}

/// One-line description of an entry: id, kind, preview, label.
fn describe(session: &Session, index: usize) -> String {
    let entry = &session.entries()[index];
    let body = match &entry.kind {
        EntryKind::Message { role } => match entry.message() {
            Some(Ok(message)) => format!("{role}: {}", message_preview(&message, PREVIEW_CHARS)),
            Some(Err(_)) | None => format!("{role}: (unreadable message body)"),
        },
        EntryKind::ThinkingLevelChange { thinking_level } => {
            format!("thinking level → {thinking_level}")
        }
        EntryKind::ModelChange { provider, model_id } => format!("model → {provider}/{model_id}"),
        EntryKind::Compaction(data) => format!(
            "[compaction{}] keeps from {}, {} tokens before: {}",
            if data.from_hook { " by extension" } else { "" },
            data.first_kept_entry_id,
            data.tokens_before,
            crate::output::preview(&data.summary, 40)
        ),
        EntryKind::BranchSummary(data) => format!(
            "[branch summary{}, from {}]: {}",
            if data.from_hook { " by extension" } else { "" },
            data.from_id,
            crate::output::preview(&data.summary, 40)
        ),
        EntryKind::Custom { custom_type } => format!("custom state ({custom_type})"),
        EntryKind::CustomMessage { custom_type, .. } => format!("custom message ({custom_type})"),
        EntryKind::Label { target_id, label } => match label {
            Some(label) => format!("label {target_id} = {label:?}"),
            None => format!("label {target_id} removed"),
        },
        EntryKind::SessionInfo { name } => {
            format!("session name: {}", name.as_deref().unwrap_or("(none)"))
        }
        EntryKind::ContextEdit { target_id, omit: true } => {
            format!("context edit: {target_id} left out of the context")
        }
        EntryKind::ContextEdit { target_id, omit: false } => {
            format!("context edit: {target_id} replaced in the context")
        }
        EntryKind::Usage { kind } => format!("usage ({kind})"),
        EntryKind::Unknown { entry_type } => format!("unknown entry type {entry_type}"),
    };
    let label = session.label(&entry.id).map(|l| format!("  ⟨{l}⟩")).unwrap_or_default();
    let leaf = if Some(index) == session.leaf() { "  ← leaf" } else { "" };
    format!("{} {body}{label}{leaf}", entry.id)
}
