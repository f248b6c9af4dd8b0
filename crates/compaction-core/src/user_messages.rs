//! The user's own words, kept verbatim through compactions (`keepUserMessagesTokens`).
//!
//! A summary paraphrases; the user's requests and rules lose their exact wording. A
//! compaction keeps the most recent user messages of the region it summarizes word for
//! word, in the room the summary leaves of its budget plus `keepUserMessagesTokens`
//! ([`crate::plan::PlannedCompaction::user_messages_after`]), in a section appended to the
//! summary after the summarizer (offline or a model) has written it:
//!
//! ````text
//! ## User messages (verbatim)
//! The user's latest messages from the summarized part of the conversation, oldest first, word for word:
//!
//! ```text
//! Port the exporter to CSV. Never change the file format.
//! ```
//! ````
//!
//! The section lives inside the `compaction` entry's `summary`, so pi, which rebuilds its
//! context from the summary and the entries from `firstKeptEntryId`, sees what we see.
//!
//! Rules, all deterministic:
//! - **Which messages**: `user` messages of the summarized region (history and a split
//!   turn's prefix) with text; slash commands (`/mode`, `/model sonnet`) are commands to the
//!   agent, not requests, and are left out, as the offline summarizer and the must-keep facts
//!   leave them out. Images are left out; their text blocks are kept.
//! - **Successive compactions**: the previous summary's section is taken off it
//!   ([`split_kept_user_messages`]) before anything reads the previous summary, so no
//!   summarizer sees or copies it, and its messages become the oldest candidates of the new
//!   section. Regions never overlap, so no message appears twice; the budget applies to
//!   the new section as a whole.
//! - **Selection**: newest first, while the section's estimate stays within the budget;
//!   the section lists them oldest to newest. The first message that does not fit whole is
//!   cut to the room left (its beginning kept, with a line saying how many characters were
//!   cut) when at least [`MIN_CUT_CHARS`] characters of it fit, and selection stops there,
//!   so the section is always an unbroken run of the latest messages.
//! - **Escaping**: every message passes the redactor used for everything sent or stored,
//!   then [`escape_delimiters`] (so `</summary>` or `<system>` in a message cannot close
//!   pi's summary wrapper or open a role tag), and sits in its own code fence longer than
//!   any backtick run inside it (so it cannot close its fence, and a `## Goal` line inside
//!   it is text, not a heading).
//!
//! Invariant: the estimate of the rendered section never exceeds the budget; every
//! selected message's text (after redaction and escaping) is in it byte for byte, or its
//! beginning when it was cut.

use std::borrow::Cow;

use crate::message::AgentMessage;
use crate::offline::is_slash_command;
use crate::serialize::{Redactor, escape_delimiters};
use crate::tokens::TokenEstimator;

/// The heading of the section.
pub const USER_MESSAGES_HEADING: &str = "## User messages (verbatim)";

/// The line under the heading.
pub const USER_MESSAGES_PREFACE: &str = "The user's latest messages from the summarized part of \
     the conversation, oldest first, word for word:";

/// The info string of each message's code fence.
const FENCE_INFO: &str = "text";

/// The fewest characters of a message worth keeping when it must be cut; a message with
/// less room left is not kept at all (and older ones neither).
pub const MIN_CUT_CHARS: usize = 40;

/// The section chosen for one compaction.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeptUserMessages {
    /// The section as appended to the summary (heading, preface, one fence per message).
    pub section: String,
    /// Estimated tokens of `section`; at most the budget.
    pub tokens: u64,
    /// Messages in the section.
    pub messages: usize,
    /// Messages that could have been kept (previous section's and the region's).
    pub candidates: usize,
    /// Whether the oldest message in the section was cut to fit.
    pub cut: bool,
}

/// The text of every user message in `messages` that the section may keep, oldest first:
/// trimmed, with text, and not a slash command.
pub fn user_message_texts<'a>(messages: impl IntoIterator<Item = &'a AgentMessage>) -> Vec<String> {
    messages
        .into_iter()
        .filter_map(|message| match message {
            AgentMessage::User(user) => Some(user.content.joined_text()),
            AgentMessage::Assistant(_)
            | AgentMessage::ToolResult(_)
            | AgentMessage::BashExecution(_)
            | AgentMessage::Custom(_)
            | AgentMessage::BranchSummary(_)
            | AgentMessage::CompactionSummary(_)
            | AgentMessage::System(_)
            | AgentMessage::Other(_) => None,
        })
        .map(|text| text.trim().to_owned())
        .filter(|text| !text.is_empty() && !is_slash_command(text))
        .collect()
}

/// Takes the section off a stored summary: returns the summary without it (exactly as it
/// would be had the section never been added) and the messages it held, oldest first, as
/// they were written into it (already redacted and escaped). A summary without the section
/// is returned unchanged.
///
/// The section is the first heading-and-preface pair, at the start of a line, whose fenced
/// messages run to the end of the summary or to its file lists (`<read-files>`,
/// `<modified-files>`): a message that quotes the heading sits inside a fence, so the text
/// after its copy never ends that way, and it cannot be taken for the section.
pub fn split_kept_user_messages(summary: &str) -> (Cow<'_, str>, Vec<String>) {
    let marker = format!("{USER_MESSAGES_HEADING}\n{USER_MESSAGES_PREFACE}\n");
    for (start, _) in summary.match_indices(marker.as_str()) {
        if start > 0 && !summary[..start].ends_with('\n') {
            continue;
        }
        let mut rest = &summary[start + marker.len()..];
        let mut messages = Vec::new();
        while let Some((body, after)) = parse_block(rest.trim_start_matches('\n')) {
            messages.push(body.to_owned());
            rest = after;
        }
        let ends_section = rest.is_empty()
            || rest.starts_with("\n\n<read-files>\n")
            || rest.starts_with("\n\n<modified-files>\n");
        if messages.is_empty() || !ends_section {
            continue;
        }
        let before = summary[..start].trim_end();
        return (Cow::Owned(format!("{before}{rest}")), messages);
    }
    (Cow::Borrowed(summary), Vec::new())
}

/// One fenced message at the start of `text`: its body and the text after the closing
/// fence line (which starts at the newline ending it, or is empty).
fn parse_block(text: &str) -> Option<(&str, &str)> {
    let (opening, mut rest) = text.split_once('\n')?;
    let ticks = opening.len() - opening.trim_start_matches('`').len();
    if ticks < 3 || &opening[ticks..] != FENCE_INFO {
        return None;
    }
    let fence = &opening[..ticks];
    let body_start = text.len() - rest.len();
    loop {
        let (line, after) = match rest.split_once('\n') {
            Some((line, after)) => (line, Some(after)),
            None => (rest, None),
        };
        if line == fence {
            let line_start = text.len() - rest.len();
            let body = text[body_start..line_start].strip_suffix('\n').unwrap_or("");
            let after_fence = &text[line_start + line.len()..];
            return Some((body, after_fence));
        }
        rest = after?;
    }
}

/// The summary with `section` appended (unchanged without one).
pub fn with_kept_user_messages(summary: &str, section: Option<&KeptUserMessages>) -> String {
    match section {
        Some(kept) if summary.trim().is_empty() => kept.section.clone(),
        Some(kept) => format!("{}\n\n{}", summary.trim_end(), kept.section),
        None => summary.to_owned(),
    }
}

/// Chooses and renders the section: `carried` (the previous section's messages, as
/// [`split_kept_user_messages`] returned them) then `region` (the summarized region's
/// [`user_message_texts`]), both oldest first, within `budget` tokens as `estimator`
/// counts them. `None` when the budget is 0 or nothing fits.
pub fn keep_user_messages(
    carried: &[String],
    region: &[String],
    budget: u64,
    estimator: &dyn TokenEstimator,
    redactor: &Redactor,
) -> Option<KeptUserMessages> {
    if budget == 0 {
        return None;
    }
    let candidates = carried.len() + region.len();
    let fits = |bodies: &[String]| -> Option<Rendered> {
        let section = render(bodies.iter().rev().map(String::as_str));
        let tokens = estimator.text_tokens(&section);
        (tokens <= budget).then_some(Rendered { section, tokens })
    };
    // Newest first.
    let mut kept: Vec<String> = Vec::new();
    let mut best: Option<Rendered> = None;
    let mut cut = false;
    for text in carried.iter().chain(region).rev() {
        let body = escape_delimiters(&redactor.redact(text)).into_owned();
        kept.push(body);
        if let Some(rendered) = fits(&kept) {
            best = Some(rendered);
            continue;
        }
        let Some(body) = kept.pop() else { break };
        if let Some((shortened, rendered)) = longest_cut_that_fits(&body, &mut kept, &fits) {
            kept.push(shortened);
            best = Some(rendered);
            cut = true;
        }
        break;
    }
    let Rendered { section, tokens } = best?;
    Some(KeptUserMessages { section, tokens, messages: kept.len(), candidates, cut })
}

/// A rendered section and its estimate.
struct Rendered {
    section: String,
    tokens: u64,
}

/// Renders the section for bodies given newest first, when it fits the budget.
type Fits<'a> = dyn Fn(&[String]) -> Option<Rendered> + 'a;

/// The longest beginning of `body` (at least [`MIN_CUT_CHARS`] characters, marked as cut)
/// that fits after `newer`, with the rendered section; `newer` is left as it was.
fn longest_cut_that_fits(
    body: &str,
    newer: &mut Vec<String>,
    fits: &Fits<'_>,
) -> Option<(String, Rendered)> {
    let total = body.chars().count();
    let mut try_cut = |chars: usize| -> Option<(String, Rendered)> {
        let shortened = cut_body(body, chars, total);
        newer.push(shortened);
        let rendered = fits(newer);
        let shortened = newer.pop().unwrap_or_default();
        rendered.map(|rendered| (shortened, rendered))
    };
    let (mut low, mut high) = (MIN_CUT_CHARS, total.saturating_sub(1));
    let mut found = None;
    // Largest `chars` in [low, high] that fits; the estimate grows with the text.
    while low <= high {
        let middle = low + (high - low) / 2;
        match try_cut(middle) {
            Some(result) => {
                found = Some(result);
                low = middle + 1;
            }
            None => high = middle - 1,
        }
    }
    found
}

/// The first `chars` characters of `body` and a line saying how many of `total` were cut.
fn cut_body(body: &str, chars: usize, total: usize) -> String {
    let end = body.char_indices().nth(chars).map_or(body.len(), |(at, _)| at);
    format!("{}\n[… {} more characters of this message cut]", body[..end].trim_end(), total - chars)
}

/// The section for `bodies`, oldest first.
fn render<'a>(bodies: impl Iterator<Item = &'a str>) -> String {
    let mut out = format!("{USER_MESSAGES_HEADING}\n{USER_MESSAGES_PREFACE}");
    for body in bodies {
        let fence = "`".repeat(longest_backtick_run(body).max(2) + 1);
        out.push_str(&format!("\n\n{fence}{FENCE_INFO}\n{body}\n{fence}"));
    }
    out
}

fn longest_backtick_run(text: &str) -> usize {
    let (mut longest, mut current) = (0, 0);
    for c in text.chars() {
        current = if c == '`' { current + 1 } else { 0 };
        longest = longest.max(current);
    }
    longest
}

#[cfg(test)]
mod tests;
