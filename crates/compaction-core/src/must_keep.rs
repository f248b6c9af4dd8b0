//! The facts a summary must keep: what a resuming agent cannot do without.
//!
//! `must_keep` reads the region being summarized (the history and the split turn's prefix),
//! the previous summary and the file operations, and returns the modified files, the user's
//! explicit constraints in their own words, the latest user request verbatim, and the last
//! failure that no later success resolved. It shares its fact extraction with the offline
//! summarizer, so the offline summary and the facts a gate checks it against agree.
//! Invariant: a pure function of its input; every string is copied from the input (paths as
//! recorded, sentences as the user wrote them, error lines as they were printed).

use serde::Serialize;

use crate::files::{FileOperations, sort_like_javascript};
use crate::message::AgentMessage;
use crate::offline::key_facts;
use crate::prepare::CompactionPreparation;
use crate::redact::Redactor;

/// The facts a summary of a region must keep.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct MustKeep {
    /// Paths modified in the summarized region and in earlier summaries, sorted as pi sorts
    /// them.
    pub modified_files: Vec<String>,
    /// The user's explicit constraints and preferences, in the user's own words, oldest
    /// first (carried ones from the previous summary before new ones).
    pub constraints: Vec<String>,
    /// The latest user request, verbatim (trimmed).
    pub latest_request: Option<String>,
    /// The last failing command or test and its error line, when no later success resolved
    /// it.
    pub unresolved_error: Option<UnresolvedError>,
}

/// A failure still open at the end of the summarized region.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct UnresolvedError {
    /// The command that failed (or the operation and its path, e.g. `edit src/a.rs`).
    pub command: String,
    /// Its error line as printed.
    pub error_line: String,
}

/// The must-keep facts of a region: `messages` (the history being summarized) followed by
/// `turn_prefix` (the split turn's early part), after `previous_summary`, with the region's
/// cumulative `file_operations`.
pub fn must_keep(
    messages: &[AgentMessage],
    turn_prefix: &[AgentMessage],
    previous_summary: Option<&str>,
    file_operations: &FileOperations,
) -> MustKeep {
    let region: Vec<AgentMessage> = messages.iter().chain(turn_prefix).cloned().collect();
    let facts = key_facts(&region, previous_summary);
    let mut modified_files = file_operations.modified();
    for path in facts.modified_files {
        if !modified_files.contains(&path) {
            modified_files.push(path);
        }
    }
    sort_like_javascript(&mut modified_files);
    MustKeep {
        modified_files,
        constraints: facts.constraints,
        latest_request: facts.latest_request,
        unresolved_error: facts
            .unresolved_error
            .map(|(command, error_line)| UnresolvedError { command, error_line }),
    }
}

impl MustKeep {
    /// These facts with every string through `redactor`: what a summary is checked against,
    /// repaired with (its Must Keep section), what a report names and what `plan` lists.
    /// The summary a summarizer answers is redacted before it is checked, so a fact holding
    /// a secret is kept, reported and repaired as the summary can hold it, never as the
    /// session has it.
    pub fn redacted(self, redactor: &Redactor) -> MustKeep {
        let redact = |text: String| match redactor.redact(&text) {
            std::borrow::Cow::Borrowed(_) => text,
            std::borrow::Cow::Owned(redacted) => redacted,
        };
        MustKeep {
            modified_files: self.modified_files.into_iter().map(redact).collect(),
            constraints: self.constraints.into_iter().map(redact).collect(),
            latest_request: self.latest_request.map(redact),
            unresolved_error: self.unresolved_error.map(|error| UnresolvedError {
                command: redact(error.command),
                error_line: redact(error.error_line),
            }),
        }
    }
}

impl CompactionPreparation {
    /// The must-keep facts of this preparation's region (see [`must_keep`]), redacted by
    /// `redactor` ([`MustKeep::redacted`]): the one way the facts leave the fact extraction
    /// for a check, a repair, a report or a listing.
    pub fn must_keep(&self, redactor: &Redactor) -> MustKeep {
        must_keep(
            &self.messages_to_summarize,
            &self.turn_prefix_messages,
            self.previous_summary.as_deref(),
            &self.file_operations,
        )
        .redacted(redactor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    fn message(value: serde_json::Value) -> AgentMessage {
        serde_json::from_value(value).unwrap_or_else(|error| panic!("{error}"))
    }

    #[test]
    fn facts_of_a_region_with_a_constraint_an_edit_and_an_open_failure() {
        let messages = vec![
            AgentMessage::user_text("Port the exporter to CSV. Never change the file format."),
            message(json!({"role":"assistant","content":[
                {"type":"toolCall","id":"1","name":"edit","arguments":{"path":"src/export.ts"}}]})),
            message(json!({"role":"toolResult","toolCallId":"1","toolName":"edit",
                "content":[{"type":"text","text":"Successfully replaced text"}],"isError":false})),
        ];
        let prefix = vec![
            AgentMessage::user_text("  Now run the tests.  "),
            message(json!({"role":"assistant","content":[
                {"type":"toolCall","id":"2","name":"bash","arguments":{"command":"npm test"}}]})),
            message(json!({"role":"toolResult","toolCallId":"2","toolName":"bash",
                "content":[{"type":"text","text":"TypeError: rows is not iterable\n\nCommand exited with code 1"}],
                "isError":true})),
        ];
        let mut files = FileOperations::default();
        for message in messages.iter().chain(&prefix) {
            files.add_message(message);
        }
        let facts = must_keep(
            &messages,
            &prefix,
            Some(
                "## Constraints & Preferences\n- Use pnpm.\n\n<modified-files>\nREADME.md\n</modified-files>",
            ),
            &files,
        );
        assert_eq!(
            facts,
            MustKeep {
                modified_files: vec!["README.md".into(), "src/export.ts".into()],
                constraints: vec!["Use pnpm.".into(), "Never change the file format.".into()],
                latest_request: Some("Now run the tests.".into()),
                unresolved_error: Some(UnresolvedError {
                    command: "npm test".into(),
                    error_line: "TypeError: rows is not iterable".into(),
                }),
            }
        );
        let json = serde_json::to_value(&facts).unwrap_or_default();
        assert_eq!(json["unresolvedError"]["errorLine"], "TypeError: rows is not iterable");
        assert_eq!(json["latestRequest"], "Now run the tests.");
    }

    #[test]
    fn a_later_pass_leaves_no_unresolved_error() {
        let messages = vec![
            message(json!({"role":"assistant","content":[
                {"type":"toolCall","id":"1","name":"bash","arguments":{"command":"pytest"}}]})),
            message(json!({"role":"toolResult","toolCallId":"1","toolName":"bash",
                "content":[{"type":"text","text":"E   AssertionError: 3 != 4\nCommand exited with code 1"}],"isError":true})),
            message(json!({"role":"assistant","content":[
                {"type":"toolCall","id":"2","name":"bash","arguments":{"command":"pytest"}}]})),
            message(json!({"role":"toolResult","toolCallId":"2","toolName":"bash",
                "content":[{"type":"text","text":"4 passed in 0.2s"}],"isError":false})),
        ];
        let facts = must_keep(&messages, &[], None, &FileOperations::default());
        assert_eq!(facts.unresolved_error, None);
        assert_eq!(facts.latest_request, None);
    }
}
