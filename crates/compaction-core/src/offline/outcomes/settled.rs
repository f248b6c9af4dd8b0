//! What the messages after the summarized part settle. The summary sits before them in the
//! context (a split turn's early part, then the messages kept verbatim), so it may not state
//! as current what they already changed: a newer request makes the last one summarized an
//! earlier one, a run that passes there resolves the failure of the same command (or a
//! narrower run of it), an edit that succeeds there resolves the failed edit of its file,
//! and the values and paths they change are marked as replaced.
//!
//! Invariant: nothing of those messages is told as work of the summarized part; they are
//! read with a digest of their own, and only the settling crosses over.

use super::commands::covers;
use super::*;
use crate::message::AgentMessage;

impl Digest {
    /// Reads `after` (the messages that follow the summarized ones) and settles what they
    /// settle.
    pub(in super::super) fn settle(&mut self, after: &[AgentMessage]) {
        if after.is_empty() {
            return;
        }
        let mut later = Digest::default();
        for message in after {
            later.observe(message);
        }
        self.request_after = !later.requests.is_empty();
        // Each passing command, with every `a && b` part of it, resolves the open failures
        // it covers; its failure is then told as fixed, with what was done before the cut.
        let passed: Vec<String> = later
            .commands
            .iter()
            .filter(|runs| runs.last_passed == Some(true))
            .map(|runs| runs.command.clone())
            .collect();
        for command in &passed {
            let keys: Vec<String> = self
                .failures
                .iter()
                .filter(|failure| failure.is_open())
                .filter_map(|failure| failure.key.strip_prefix("cmd:"))
                .filter(|failed| {
                    command_parts(command).into_iter().any(|part| covers(part, failed))
                })
                .map(|failed| format!("cmd:{failed}"))
                .collect();
            for key in keys {
                if let Some((error, decisions_at, edits_at)) = self.resolve(&key) {
                    let fixed = self.fixed_by(command, error, None, decisions_at, edits_at);
                    self.fixed.push(fixed);
                }
            }
        }
        for path in &later.edit_log {
            self.resolve(&format!("modify:{path}"));
        }
        self.settled_values = later.value_changes;
        self.settled_effects = later.effects;
    }
}
