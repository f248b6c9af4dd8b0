//! What can be wrong with a summary ([`Problem`]), each told in one line.

use std::fmt;

use serde::Serialize;

use super::matching::*;

/// One reason a summary was rejected.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "camelCase")]
#[non_exhaustive]
pub enum Problem {
    /// The summary has no text (no letter or digit).
    Empty,
    /// The summary is a refusal, not a summary.
    Refusal {
        /// The line that reads as a refusal.
        line: String,
    },
    /// The summarizer stopped at its output limit; the summary may be cut short.
    Truncated,
    /// The reply repeats what the summarizer was sent (a line of our prompt, or the
    /// transcript's own tags) instead of summarizing it: weak models echo their input.
    Echo {
        /// What was echoed, for the user.
        what: String,
    },
    /// The checkpoint structure is missing: the `## Goal` heading, or every other one.
    MissingSections {
        /// The headings not found.
        headings: Vec<String>,
    },
    /// The summary is far shorter than what it replaces calls for (see
    /// [`super::minimum_words`]).
    TooShort {
        /// Words outside headings.
        words: u64,
        /// The fewest words accepted.
        minimum: u64,
    },
    /// A modified file's path is not in the summary.
    MissingFile {
        /// The path.
        path: String,
    },
    /// A constraint of the user is not in the summary in the user's words.
    MissingConstraint {
        /// The constraint, as the user wrote it.
        text: String,
    },
    /// The latest user request is not in the summary verbatim.
    MissingLatestRequest {
        /// The request, as the user wrote it.
        text: String,
    },
    /// The unresolved failure is not recognisable in the summary.
    MissingError {
        /// The command that failed.
        command: String,
        /// Its error line.
        error_line: String,
    },
    /// A pinned instruction is not in the summary verbatim.
    MissingPin {
        /// The pin entry's id.
        id: String,
        /// The pinned text.
        text: String,
    },
}

impl Problem {
    /// Whether the summary's text is unusable as a summary (empty, a refusal, an echo of
    /// the request, cut off at the output limit, without the checkpoint's structure, or far
    /// too short). Such a summary is never repaired: a Must Keep list is no summary of the
    /// history, so the compaction fails (or falls back to the offline summarizer where that
    /// is configured). The other problems are facts the engine knows and appends itself.
    pub fn is_unusable(&self) -> bool {
        matches!(
            self,
            Problem::Empty
                | Problem::Refusal { .. }
                | Problem::Echo { .. }
                | Problem::Truncated
                | Problem::MissingSections { .. }
                | Problem::TooShort { .. }
        )
    }

    /// Whether the text is no summary whoever wrote it (empty, a refusal, an echo, cut off):
    /// never repaired. A deterministic summarizer's text without the structure, or short
    /// because the history had little to say, is built from the engine's own facts and is
    /// repaired instead (see [`super::repair`]).
    pub fn is_unreadable(&self) -> bool {
        matches!(
            self,
            Problem::Empty | Problem::Refusal { .. } | Problem::Echo { .. } | Problem::Truncated
        )
    }
}

fn shorten(text: &str, chars: usize) -> String {
    let one_line = collapse_whitespace(text);
    match one_line.char_indices().nth(chars) {
        Some((at, _)) => format!("{}…", &one_line[..at]),
        None => one_line,
    }
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Problem::Empty => write!(f, "empty summary"),
            Problem::Refusal { line } => write!(f, "refusal: \"{}\"", shorten(line, 80)),
            Problem::Truncated => {
                write!(f, "cut off at the output limit (raise maxSummaryTokens)")
            }
            Problem::Echo { what } => write!(f, "echo of the request: {what}"),
            Problem::MissingSections { headings } => {
                write!(f, "missing sections: {}", headings.join(", "))
            }
            Problem::TooShort { words, minimum } => write!(
                f,
                "too short: {words} words where the history it replaces needs at least {minimum}"
            ),
            Problem::MissingFile { path } => write!(f, "missing file {path}"),
            Problem::MissingConstraint { text } => {
                write!(f, "missing constraint \"{}\"", shorten(text, 80))
            }
            Problem::MissingLatestRequest { text } => {
                write!(f, "missing latest request \"{}\"", shorten(text, 80))
            }
            Problem::MissingError { command, error_line } => {
                write!(
                    f,
                    "missing error of `{}`: {}",
                    shorten(command, 60),
                    shorten(error_line, 80)
                )
            }
            Problem::MissingPin { id, .. } => write!(f, "missing pinned instruction {id}"),
        }
    }
}
