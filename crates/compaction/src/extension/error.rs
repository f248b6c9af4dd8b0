//! Errors of extensions and of the replacements they return.
//!
//! [`ExtensionError`] is why one extension could not give an answer; the registry turns it
//! into an [`ExtensionWarning`](super::ExtensionWarning) and moves on, so it never stops a
//! compaction. [`InvalidReplacement`] is why a replacement cannot be written as it stands;
//! the caller then falls back to the built-in summary. Invariant: messages quote at most a
//! short excerpt of what a child process printed.

use std::time::Duration;

/// Why an extension gave no usable answer. None of these is fatal: the built-in path runs.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ExtensionError {
    /// The extension reported a failure of its own.
    #[error("{0}")]
    Failed(String),
    /// The hook panicked; the payload's text when it was a string.
    #[error("panicked: {0}")]
    Panicked(String),
    /// The hook did not answer within its time limit (a child process is killed).
    #[error("did not answer within {} ms", .0.as_millis())]
    TimedOut(Duration),
    /// The operation was cancelled while the hook ran.
    #[error("cancelled while the extension was running")]
    Cancelled,
    /// The child process could not be started.
    #[error("could not start `{command}`: {source}")]
    Spawn {
        /// The program (or shell command line) that failed to start.
        command: String,
        /// The operating system's error.
        source: std::io::Error,
    },
    /// Reading from or writing to the child process failed.
    #[error("talking to the child process failed: {0}")]
    Io(#[source] std::io::Error),
    /// The child process exited unsuccessfully.
    #[error("exited with {status}{}", stderr_suffix(.stderr))]
    Exit {
        /// The exit status as the operating system describes it.
        status: String,
        /// The end of what the child wrote to stderr.
        stderr: String,
    },
    /// The child printed something that is not a protocol-1 decision.
    #[error("printed an invalid decision: {message} (output began with {excerpt:?})")]
    BadOutput {
        /// What is wrong with it.
        message: String,
        /// The first characters of the output.
        excerpt: String,
    },
}

/// What an extension wrote to stderr, for an error message: redacted, as an extension
/// is given the session and may echo it.
fn stderr_suffix(stderr: &str) -> String {
    let stderr = stderr.trim();
    if stderr.is_empty() {
        return String::new();
    }
    format!("; stderr: {}", compaction_core::serialize::Redactor::default().redact(stderr))
}

/// Why a replacement from an extension cannot be written.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum InvalidReplacement {
    /// The summary is empty or only whitespace (and no message was preserved into it).
    #[error("the replacement summary is empty")]
    EmptySummary,
    /// `firstKeptEntryId` names no entry on the compacted path.
    #[error("firstKeptEntryId {0:?} is not on the session path being compacted")]
    FirstKeptNotOnPath(String),
    /// `firstKeptEntryId` is on the path but before the region this compaction covers
    /// (it was summarized by an earlier compaction).
    #[error("firstKeptEntryId {0:?} lies before the region being compacted")]
    FirstKeptBeforeRegion(String),
    /// `firstKeptEntryId` names a tool result, which would separate it from its call.
    #[error("firstKeptEntryId {0:?} is a tool result; keeping it would cut it off from its call")]
    FirstKeptIsToolResult(String),
    /// A kept message id names no message-producing entry in the region.
    #[error("keptMessageIds entry {0:?} is not a message in the region being summarized")]
    KeptMessageNotInRegion(String),
    /// The summary is larger than the summary budget (`maxSummaryTokens`, or
    /// `branchMaxSummaryTokens` for a branch summary).
    #[error(
        "the replacement summary is about {tokens} tokens, over the summary budget of {limit} \
         tokens ({setting})"
    )]
    SummaryTooLarge {
        /// Its size as pi 1.6 estimates text.
        tokens: u64,
        /// The budget.
        limit: u64,
        /// The setting that gives it.
        setting: &'static str,
    },
    /// A branch summary replacement named a first kept entry; branch summaries keep none.
    #[error("firstKeptEntryId is not allowed for a branch summary")]
    FirstKeptInBranchSummary,
}
