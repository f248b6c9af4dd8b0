//! The last stage: what later steps replaced is never stated as current. A path a move or a
//! deletion of these messages changed is shown with an arrow to where it went
//! (`` `src/a.ts` → `src/b/a.ts` ``, `` `old.py` → deleted ``), and a value an edit, a
//! `sed -i` or a correction replaced is shown with an arrow to its new value, in every item
//! that still names it (carried ones included). The moves, deletions and values the messages
//! after the summarized part changed are marked the same way.
//!
//! Invariants: verbatim items (the user's constraints, the latest request) are never
//! changed; an item that already names the new path, or tells of a deletion, is left as it
//! is; marking is idempotent, so a carried item is never marked twice.

use super::super::facts::*;
use super::super::text::*;
use super::super::values::mark_value;
use super::Assembly;
use crate::files::FileEffect;

impl Assembly<'_> {
    /// Marks the moved and deleted paths and the replaced values in every item.
    pub(super) fn mark_replaced(&mut self) {
        let digest = self.digest;
        // A path written again after its move or deletion is current again.
        let mut gone: Vec<(&str, Option<&str>)> = where_gone(&digest.effects)
            .filter(|(path, _)| {
                !digest.modified_files.contains(*path) && !digest.read_files.contains(*path)
            })
            .collect();
        // What the messages after these moved or deleted came after everything here.
        gone.extend(where_gone(&digest.settled_effects));
        if gone.is_empty() && digest.value_changes.is_empty() && digest.settled_values.is_empty() {
            return;
        }
        for item in self.sections.items.iter_mut().filter(|item| !item.verbatim) {
            let mut text = mark_paths(&item.text, &gone);
            for change in digest.value_changes.iter().chain(&digest.settled_values) {
                text = mark_value(&text, change);
            }
            item.text = text;
        }
    }
}

/// The paths `effects` moved (with where to) or deleted.
fn where_gone(effects: &[FileEffect]) -> impl Iterator<Item = (&str, Option<&str>)> {
    effects.iter().filter_map(|effect| match effect {
        FileEffect::Moved { from, to } => Some((from.as_str(), Some(to.as_str()))),
        FileEffect::Deleted { path } => Some((path.as_str(), None)),
        FileEffect::Written { .. } => None,
    })
}

/// `text` with each code span naming a path in `gone` (or a path under it) followed by an
/// arrow to its new path, or to `deleted`.
fn mark_paths(text: &str, gone: &[(&str, Option<&str>)]) -> String {
    let mut out = text.to_owned();
    let lower = text.to_lowercase();
    let mut spans: Vec<String> = backticked(text).into_iter().map(str::to_owned).collect();
    spans.sort();
    spans.dedup();
    for span in spans {
        let Some((from, to)) = gone.iter().find(|(from, _)| is_under(&span, from)) else {
            continue;
        };
        let marked = match to {
            Some(to) => {
                let moved = format!("{to}{}", &span[from.len()..]);
                if out.contains(&code(&moved)) {
                    continue;
                }
                format!("{} → {}", code(&span), code(&moved))
            }
            None if lower.contains("delet") || lower.contains("remov") => continue,
            None => format!("{} → deleted", code(&span)),
        };
        out = out.replace(&code(&span), &marked);
    }
    out
}
