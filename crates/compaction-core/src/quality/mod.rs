//! The quality gate's checks: is a summary fit to replace the history it summarizes?
//!
//! [`check_summary`] rejects a summary that is empty, a refusal, an echo of the request
//! ([`echo`]), cut off by the output limit, missing the checkpoint's structure, far shorter
//! than what it replaces calls for ([`minimum_words`]), or missing a must-keep fact
//! ([`MustKeep`] and the active pins). [`retry_instructions`] tells the summarizer exactly
//! what to fix, and [`repair`] appends a deterministic "Must Keep" section built from the
//! facts when the retry fails too. Only such small defects are repaired: a text that is
//! unusable as a summary (empty, a refusal, an echo, cut off, without the structure, too
//! short) never is. Orchestration (`Compactor::run`) decides when to call which.
//!
//! What "present" means, precisely (matching is on the summary text as written by the
//! summarizer, before the file-list appendix):
//! - a **modified file**: its path appears verbatim, not as part of a longer path or name
//!   (the characters around it are not letters, digits, `_`, `-` or `/`, and a following
//!   `.` is not followed by a letter or digit);
//! - a **pin**: its text appears with runs of whitespace collapsed to one space (case,
//!   wording and punctuation kept), ignoring surrounding quotes and a final `.`, `!` or `;`;
//! - a **constraint** and the **latest request**: the same, for their opening: the whole
//!   text when it has at most [`QUOTE_CHARS`] characters, otherwise the sentences that end
//!   within the first [`QUOTE_CHARS`] characters (or, with no sentence end there, the words
//!   that fit), so a long pasted request need not be copied whole; sentences of three words
//!   or fewer ("Great, thanks.") may be left out of that opening;
//! - the **unresolved error**: its error line appears whole (whitespace collapsed), or the
//!   summary contains at least two thirds (rounded up) of the line's distinctive tokens,
//!   always including the first. Distinctive tokens are the whitespace-separated words of
//!   the line, stripped of surrounding quotes, brackets and punctuation, that were quoted
//!   (`'rows'`), or contain a digit, `_`, `/`, `.`, `:` or `::`, or an upper-case letter
//!   after the first character,
//!   or are all upper case with at least 3 letters, or are at least 8 characters long
//!   (`E0308`, `TS2353`, `TypeError`, `ENOENT`, `src/lib.rs:42:7`, `check_total`). A line
//!   without such tokens must appear whole.
//!
//! With `keepUserMessagesTokens` on, the user's words in the verbatim user messages section
//! count for constraints, the latest request and pins ([`resolved_by_user_messages`]); the
//! structure, files and errors must be in the summarizer's own text.
//!
//! Invariant: every check is a pure function of its inputs; [`repair`] only appends, its
//! result passes every fact check, and it refuses unusable text.
//!
//! Stages, one module each: `problem` (what can be wrong), `check` (the checks), `matching`
//! (what "present" means), `repair` (the retry's instructions and the Must Keep section)
//! and `report` (what the entry records).

mod check;
mod matching;
mod problem;
mod repair;
mod report;
#[cfg(test)]
mod tests;

pub use check::{check_summary, content_words, echo, missing_facts, resolved_by_user_messages};
pub use matching::{distinctive_tokens, opening};
pub use problem::Problem;
pub use repair::{repair, retry_instructions};
pub use report::{Fallback, QualityReport, QualityStatus, describe};

use crate::must_keep::MustKeep;
use crate::pins::Pin;

/// The top-level headings of the checkpoint format (`prompts/checkpoint-format.md`).
pub const CHECKPOINT_HEADINGS: [&str; 6] = [
    "Goal",
    "Constraints & Preferences",
    "Progress",
    "Key Decisions",
    "Next Steps",
    "Critical Context",
];

/// Characters of a constraint or request that a summary must quote (see the module docs).
pub const QUOTE_CHARS: usize = 160;

/// The heading of the section [`repair`] appends.
pub const MUST_KEEP_HEADING: &str = "## Must Keep";

/// Openings of a refusal, compared lower-cased with typographic apostrophes straightened.
/// They only name the problem for the retry: a refusal in any language also lacks the
/// checkpoint structure and is far too short, which the gate rejects on its own.
const REFUSALS: [&str; 24] = [
    "i can't help",
    "i cannot help",
    "i can't assist",
    "i cannot assist",
    "i can't comply",
    "i cannot comply",
    "i can't provide",
    "i cannot provide",
    "i can't do that",
    "i'm sorry, but",
    "i am sorry, but",
    "sorry, but i",
    "i'm unable to",
    "i am unable to",
    "i won't be able",
    "as an ai",
    "je ne peux pas",
    "désolé, mais",
    "lo siento, pero",
    "no puedo ayudar",
    "es tut mir leid",
    "ich kann dir nicht",
    "ich kann ihnen nicht",
    "抱歉",
];

/// Everything a summary is checked against.
#[derive(Debug, Clone, Copy)]
pub struct GateFacts<'a> {
    /// The must-keep facts of the summarized region.
    pub must_keep: &'a MustKeep,
    /// The pins active at the compacted leaf.
    pub pins: &'a [Pin],
    /// Whether the summary must have the checkpoint's structure (false when only a split
    /// turn's prefix was summarized, which has its own short format).
    pub checkpoint: bool,
    /// Estimated tokens of the transcript the summary replaces (0: no length floor). A
    /// summary far shorter than [`minimum_words`] for it is no summary.
    pub summarized_tokens: u64,
}

/// Words a summary of the checkpoint's structure needs at the least.
pub const MIN_SUMMARY_WORDS: u64 = 30;

/// Words a shorter summary (a split turn's prefix, a branch) needs at the least.
pub const MIN_SHORT_SUMMARY_WORDS: u64 = 12;

/// Transcript tokens per word of the length floor below [`MIN_SUMMARY_WORDS`].
pub const TOKENS_PER_MIN_WORD: u64 = 20;

/// The fewest words (outside headings) a summary of `summarized_tokens` tokens of
/// transcript may have: one per [`TOKENS_PER_MIN_WORD`] tokens, at most
/// [`MIN_SUMMARY_WORDS`] for a checkpoint and [`MIN_SHORT_SUMMARY_WORDS`] for the shorter
/// formats. A real summary of a few hundred tokens of conversation already says more; a
/// five-word reply in place of a long history is no summary.
pub fn minimum_words(summarized_tokens: u64, checkpoint: bool) -> u64 {
    let most = if checkpoint { MIN_SUMMARY_WORDS } else { MIN_SHORT_SUMMARY_WORDS };
    (summarized_tokens / TOKENS_PER_MIN_WORD).min(most)
}

/// Whether [`GateFacts::summarized_tokens`] can change what [`check_summary`] finds for
/// `summary`: only when it has fewer content words than the highest floor
/// ([`minimum_words`] is at most that, whatever the count). A gate counts the tokens of the
/// transcript only then, and gives 0 (no floor) otherwise, with the same result.
pub fn length_floor_applies(summary: &str, checkpoint: bool) -> bool {
    content_words(summary) < minimum_words(u64::MAX, checkpoint)
}
