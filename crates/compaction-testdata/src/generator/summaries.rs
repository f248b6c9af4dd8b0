//! Compactions and branch summaries, with the read and modified file lists pi carries in
//! their `details`. A compaction keeps a user message on its own path, after the previous
//! compaction.

use std::collections::BTreeSet;

use serde_json::{Map, Value, json};

use super::{NodeKind, SessionGenerator, tokens_of};
use crate::vocabulary::{LABELS, fill};

impl SessionGenerator {
    /// Read-only and modified files of the path from `start`, merged with `previous` lists.
    pub(super) fn file_lists(
        &self,
        start: usize,
        previous: Option<&Value>,
    ) -> (Vec<String>, Vec<String>) {
        let mut read = BTreeSet::new();
        let mut modified = BTreeSet::new();
        if let Some(previous) = previous {
            for (key, set) in [("readFiles", &mut read), ("modifiedFiles", &mut modified)] {
                if let Some(list) = previous.get(key).and_then(Value::as_array) {
                    set.extend(list.iter().filter_map(Value::as_str).map(str::to_owned));
                }
            }
        }
        for op in self.file_ops.iter().filter(|op| op.position >= start) {
            if op.modified {
                modified.insert(op.file.clone());
            } else {
                read.insert(op.file.clone());
            }
        }
        let read_only = read.difference(&modified).cloned().collect();
        (read_only, modified.into_iter().collect())
    }

    pub(super) fn summary_text(
        &mut self,
        heading: &str,
        read: &[String],
        modified: &[String],
    ) -> String {
        let file = self.random_file();
        let mut text = format!("## {heading}\n");
        text.push_str(&fill(&mut self.rng, "Make `{verb}_{word}` in {file} handle an empty {word} and keep the {module} tests green.\n\n## Progress\n", &file));
        for _ in 0..self.rng.range(2, 6) {
            let line = fill(&mut self.rng, "- [x] {verb} the {word} in {file}\n", &file);
            text.push_str(&line);
        }
        text.push_str("\n## Next steps\n");
        text.push_str(&fill(
            &mut self.rng,
            "- re-run the {module} tests after the {word} change\n",
            &file,
        ));
        if !read.is_empty() {
            text.push_str(&format!("\n<read-files>\n{}\n</read-files>", read.join("\n")));
        }
        if !modified.is_empty() {
            text.push_str(&format!(
                "\n<modified-files>\n{}\n</modified-files>",
                modified.join("\n")
            ));
        }
        text
    }

    pub(super) fn compaction(&mut self) {
        let region_start = match self.last_compaction() {
            Some(at) => at + 1,
            None => 0,
        };
        let users: Vec<usize> = (region_start..self.path.len())
            .filter(|&p| self.path[p].kind == NodeKind::User)
            .collect();
        if users.len() < 3 {
            return;
        }
        // Keep about 20 000 tokens of recent context, starting at a user message.
        let end = self.path.last().map_or(0, |n| n.cumulative_tokens);
        let first_kept = users
            .iter()
            .rev()
            .copied()
            .find(|&p| end - self.cumulative_before(p) >= 20_000)
            .unwrap_or(users[users.len() - 1]);
        let previous = self.last_compaction().and_then(|at| self.path[at].details.clone());
        let (read, modified) = self.file_lists(region_start, previous.as_ref());
        let summary = self.summary_text("Goal", &read, &modified);
        let summary_tokens = tokens_of(&summary);
        let mut body = Map::new();
        body.insert("summary".into(), summary.into());
        body.insert("firstKeptEntryId".into(), self.path[first_kept].id.clone().into());
        body.insert("tokensBefore".into(), self.context_tokens().into());
        let details = json!({"readFiles": read, "modifiedFiles": modified});
        body.insert("details".into(), details.clone());
        body.insert("fromHook".into(), false.into());
        if self.options.pi16 {
            let checkpoint = self.system_checkpoint();
            body.insert("systemMessage".into(), checkpoint);
        }
        self.push(
            "compaction",
            Map::new(),
            body,
            NodeKind::Compaction { first_kept, summary_tokens },
            0,
        );
        if let Some(node) = self.path.last_mut() {
            node.details = Some(details);
        }
    }

    /// Moves the leaf back to an earlier turn boundary, as pi's tree navigation does, and
    /// usually leaves a branch summary of the abandoned work there.
    pub(super) fn branch(&mut self) {
        let low = self.last_compaction().map_or(1, |at| at + 1).max(1);
        let candidates: Vec<usize> = (low..self.path.len().saturating_sub(2))
            .filter(|&p| matches!(self.path[p].kind, NodeKind::User | NodeKind::TurnEnd))
            .collect();
        let Some(&target) = candidates.get(self.rng.below(candidates.len().max(1))) else {
            return;
        };
        // Navigating to a user message puts the leaf on its parent (the prompt goes back to
        // the editor); navigating to a reply keeps the reply.
        let new_leaf = if self.path[target].kind == NodeKind::User { target - 1 } else { target };
        let (read, modified) = self.file_lists(new_leaf + 1, None);
        self.path.truncate(new_leaf + 1);
        self.file_ops.retain(|op| op.position <= new_leaf);
        if self.rng.chance(0.7) {
            let summary = self.summary_text("Abandoned branch", &read, &modified);
            let tokens = tokens_of(&summary);
            let mut body = Map::new();
            // pi 0.73.1 records the entry the summary is attached to as `fromId`.
            body.insert("fromId".into(), self.path[new_leaf].id.clone().into());
            body.insert("summary".into(), summary.into());
            body.insert("details".into(), json!({"readFiles": read, "modifiedFiles": modified}));
            body.insert("fromHook".into(), false.into());
            let id = self.push("branch_summary", Map::new(), body, NodeKind::Other, tokens);
            if self.rng.chance(0.3) {
                let mut body = Map::new();
                body.insert("targetId".into(), id.into());
                body.insert("label".into(), (*self.rng.pick(LABELS)).into());
                self.push("label", Map::new(), body, NodeKind::Other, 0);
            }
        }
    }
}
