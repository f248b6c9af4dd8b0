//! The offline summarizer: a structured checkpoint built from the transcript itself.
//!
//! It is the default when no model provider is configured. It reads the messages once and
//! extracts what a reader needs to carry on: the user's requests and rules, the files edited
//! and commands that passed, the failures still open, the assistant's latest plan, and the
//! exact paths, identifiers and error lines involved. The output uses the same Markdown
//! sections as the model-written checkpoint, so a later compaction (offline or not) can
//! merge it.
//!
//! Stages, one module each, each using only the ones listed before it: `text` (string
//! helpers), `scan` (command lines and outputs), `origin` (whose words a user-role text
//! holds), `extract` (what a text asks, rules, decides), `switches` (a user's change of a
//! choice and the subject it is about), `calls` (tool roles, arguments,
//! command parts and runs), `sections` (headings, priorities, the summary's wording),
//! `changes` (the lines each edit added), `documents` (the prose a call wrote into a plan,
//! a README or a note), `values` (values later steps replaced, and how
//! the summary marks them), `previous` (the previous summary parsed back),
//! `notes` (the fact-bearing sentences of each turn), `digest` (the records one pass
//! collects), `outcomes` (tool results and commands into the digest), `facts` (the pass
//! over the messages; the same digest [`crate::must_keep`] reads), `assemble` (the digest
//! and the previous summary into prioritised bullets) and `render` (printed within the
//! budget).
//!
//! The active pins open the summary in a `## Pinned Instructions` section, verbatim; a
//! previous summary's pinned section is never carried (the pins active now replace it), so
//! each pin appears once and an unpinned one is gone from the next summary.
//!
//! Invariants: the output is a pure function of the input (same input, same bytes); it never
//! exceeds `max_chars` characters besides the pinned instructions (never cut), dropping the
//! least important items first while keeping
//! every section heading whenever the empty skeleton (headings and `(none)` lines) fits;
//! text is only ever cut on character boundaries; tool outputs are scanned line by line and
//! never copied whole.

mod assemble;
mod calls;
mod changes;
mod corrections;
mod digest;
mod documents;
mod extract;
mod facts;
mod notes;
mod origin;
mod outcomes;
mod previous;
mod render;
mod replacements;
mod scan;
mod sections;
mod switches;
mod terminal;
#[cfg(test)]
mod tests;
mod text;
mod values;

use std::collections::BTreeSet;

use crate::message::AgentMessage;
use crate::pins::pinned_section;
pub(crate) use extract::is_slash_command;
use facts::Digest;
use previous::PreviousSummary;
use render::render_within;
use sections::Section;
use text::backticked;

/// Which kind of summary is asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OfflineKind {
    /// The history before a compaction's cut point.
    History,
    /// The early part of a turn that a cut split in two; shorter.
    TurnPrefix,
    /// The work on a branch the user is leaving.
    Branch,
}

/// Everything the offline summarizer reads.
#[derive(Debug, Clone, Copy)]
pub struct OfflineInput<'a> {
    /// What the summary is for.
    pub kind: OfflineKind,
    /// The messages to summarize, oldest first.
    pub messages: &'a [AgentMessage],
    /// The messages that follow them in the context, oldest first: a split turn's early
    /// part and the messages kept verbatim. They are not summarized; they only settle what
    /// the summary would otherwise state as current (a newer request, a failure that
    /// passes, a value or a path changed since). Empty for a branch summary.
    pub after: &'a [AgentMessage],
    /// The summary of an earlier compaction, merged into the new one.
    pub previous_summary: Option<&'a str>,
    /// The user's focus for this summary; named in the output and used to rank items.
    pub instructions: Option<&'a str>,
    /// The pinned instructions active where the summary goes, verbatim, oldest first: written
    /// whole in a section before the Goal (see [`crate::pins::pinned_section`]).
    pub pins: &'a [String],
    /// Upper bound on the output length, in characters (Unicode scalar values). Pinned
    /// instructions are never cut: the rest of the summary fits in what they leave.
    pub max_chars: usize,
}

/// The facts of a transcript (and the summary before it) that a summary must keep.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct KeyFacts {
    pub(crate) modified_files: Vec<String>,
    pub(crate) constraints: Vec<String>,
    pub(crate) latest_request: Option<String>,
    /// The failing command (or operation) and its error line.
    pub(crate) unresolved_error: Option<(String, String)>,
}

/// Reads the key facts of `messages`, oldest first, after `previous_summary`: the same
/// digest the summary is rendered from, so every fact is in the summary word for word.
pub(crate) fn key_facts(messages: &[AgentMessage], previous_summary: Option<&str>) -> KeyFacts {
    let messages = terminal::messages_as_shown(messages);
    let messages = messages.as_ref();
    let mut digest = Digest::default();
    let previous = previous_summary.map(PreviousSummary::parse);
    if let Some(previous) = &previous {
        digest.seed_proposals(previous);
    }
    digest.previous = previous.clone();
    for message in messages {
        digest.observe(message);
    }
    let mut modified: BTreeSet<String> = digest.modified_files.clone();
    let mut constraints: Vec<String> = Vec::new();
    let mut latest_request = digest.latest_request.clone();
    if let Some(previous) = &previous {
        modified.extend(digest.carried_paths(&previous.modified_files));
        for item in previous.section(Section::Critical) {
            if let Some(list) = item.strip_prefix("Modified files:") {
                let listed: Vec<String> = backticked(list).into_iter().map(str::to_owned).collect();
                modified.extend(digest.carried_paths(&listed));
            }
        }
        constraints.extend(previous.section(Section::Constraints).iter().cloned());
        if latest_request.is_none() {
            latest_request = previous
                .section(Section::Goal)
                .iter()
                .find_map(|goal| goal.strip_prefix("Latest request: ").map(str::to_owned));
        }
    }
    for constraint in &digest.constraints {
        if !constraints.contains(constraint) {
            constraints.push(constraint.clone());
        }
    }
    let unresolved_error = digest
        .failures
        .iter()
        .rev()
        .find(|failure| failure.is_open() && failure.key != "model-reply")
        .map(|failure| {
            let line = failure.error_line.clone().unwrap_or_else(|| failure.text.clone());
            (failure.what.clone(), line)
        });
    KeyFacts {
        modified_files: modified.into_iter().collect(),
        constraints,
        latest_request,
        unresolved_error,
    }
}

/// The characters of the file lists a compaction entry appends after the summary (pi's
/// `<read-files>` and `<modified-files>`): the lists of the previous summary and the files
/// these messages touched, as the entry will hold them.
fn file_lists_room(messages: &[AgentMessage], previous: Option<&PreviousSummary>) -> usize {
    let mut files = crate::files::FileOperations::default();
    if let Some(previous) = previous {
        files.add_details(&serde_json::json!({
            "readFiles": previous.read_files,
            "modifiedFiles": previous.modified_files,
        }));
    }
    for message in messages {
        files.add_message(message);
    }
    text::char_len(&crate::files::file_lists_appendix(&files.read_only(), &files.modified()))
}

/// Summarizes `input.messages` without a model. See the module documentation.
///
/// The summary and the file lists the entry appends after it fit `max_chars` together: the
/// lists' length is left free (down to a quarter of the budget kept for the summary).
pub fn summarize_offline(input: &OfflineInput) -> String {
    let (messages, after) =
        (terminal::messages_as_shown(input.messages), terminal::messages_as_shown(input.after));
    let input = &OfflineInput { messages: &messages, after: &after, ..*input };
    let pinned = pinned_section(input.pins);
    let mut digest = Digest::default();
    let parsed = input.previous_summary.map(PreviousSummary::parse);
    // The summary keeps at least a quarter of the budget however long the lists are (and
    // the empty skeleton whenever that fits): the goal is never given up for a file list.
    let floor = (input.max_chars / 4).max(text::char_len(&render::render(&[])));
    let max_chars = input
        .max_chars
        .saturating_sub(file_lists_room(input.messages, parsed.as_ref()))
        .max(floor.min(input.max_chars));
    if let Some(previous) = parsed {
        digest.seed_proposals(&previous);
        digest.previous = Some(previous);
    }
    for message in input.messages {
        digest.observe(message);
    }
    digest.settle(input.after);
    let sections = digest.into_sections(input.kind, input.instructions);
    let Some(pinned) = pinned else {
        return render_within(sections, max_chars);
    };
    // The pins come first, where a resuming reader starts; a blank line separates them.
    let room = max_chars.saturating_sub(text::char_len(&pinned) + 2);
    let body = render_within(sections, room);
    if body.is_empty() { pinned } else { format!("{pinned}\n\n{body}") }
}
