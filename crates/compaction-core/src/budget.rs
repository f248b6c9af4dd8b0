//! Keeping every summarizer request inside the summary model's window.
//!
//! The transcript budget is what remains of the window after the prompt, the running
//! summary carried from chunk to chunk, and the output allowance, minus a safety margin
//! for estimation error. A transcript over budget is split into ordered chunks, each
//! summarized in turn with the previous chunk's summary as input. Invariants: no chunk's
//! estimate exceeds the budget, chunks keep transcript order, and joining them gives back
//! every character of the transcript.

/// The sizes that decide how much transcript one request can carry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SummarizerBudget {
    /// The summary model's context window.
    pub context_window: u64,
    /// System prompt and instructions.
    pub prompt_tokens: u64,
    /// Output tokens reserved for the summary.
    pub max_output_tokens: u64,
    /// Tokens of the summary carried into the request (previous or running summary).
    pub carried_summary_tokens: u64,
}

/// Percent of the computed room used for transcript; the rest absorbs estimation error.
const SAFETY_PERCENT: u64 = 90;

impl SummarizerBudget {
    /// Tokens of transcript one request may carry (0 when nothing fits).
    pub fn transcript_tokens(&self) -> u64 {
        let room = self
            .context_window
            .saturating_sub(self.prompt_tokens)
            .saturating_sub(self.max_output_tokens)
            .saturating_sub(self.carried_summary_tokens);
        room * SAFETY_PERCENT / 100
    }
}

/// The window cannot hold even the prompt and the output.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "the summary model's window of {context_window} tokens leaves no room for the transcript \
     after {prompt_tokens} prompt tokens, {max_output_tokens} output tokens and \
     {carried_summary_tokens} tokens of carried summary"
)]
pub struct NoRoomForTranscript {
    /// The summary model's window.
    pub context_window: u64,
    /// Tokens of the prompt text around the transcript.
    pub prompt_tokens: u64,
    /// Tokens reserved for the summary.
    pub max_output_tokens: u64,
    /// Tokens of the running summary carried into the request.
    pub carried_summary_tokens: u64,
}

/// Splits transcript blocks into chunks of at most `budget` tokens each.
///
/// Blocks are kept whole where they fit; a block larger than the budget is split at line
/// breaks, and a line larger than the budget at character boundaries. Chunks join blocks
/// with a blank line, as the transcript does.
pub fn chunk_blocks(
    blocks: &[String],
    budget: SummarizerBudget,
    tokens: &dyn Fn(&str) -> u64,
) -> Result<Vec<String>, NoRoomForTranscript> {
    let limit = budget.transcript_tokens();
    if limit == 0 {
        return Err(NoRoomForTranscript {
            context_window: budget.context_window,
            prompt_tokens: budget.prompt_tokens,
            max_output_tokens: budget.max_output_tokens,
            carried_summary_tokens: budget.carried_summary_tokens,
        });
    }
    let mut chunks = Vec::new();
    let mut current = String::new();
    let mut current_tokens = 0u64;
    let mut push_piece = |piece: &str, separator: &str, chunks: &mut Vec<String>| {
        let piece_tokens = tokens(piece) + if current.is_empty() { 0 } else { tokens(separator) };
        if !current.is_empty() && current_tokens + piece_tokens > limit {
            chunks.push(std::mem::take(&mut current));
            current_tokens = 0;
        }
        if !current.is_empty() {
            current.push_str(separator);
        }
        current.push_str(piece);
        // Estimates are close to additive; summing avoids re-counting the whole chunk.
        current_tokens += piece_tokens;
    };
    for block in blocks {
        if tokens(block) <= limit {
            push_piece(block, "\n\n", &mut chunks);
            continue;
        }
        // Oversized block: split it into pieces that each fit, joined by newlines.
        let mut first = true;
        for piece in split_to_fit(block, limit, tokens) {
            push_piece(&piece, if first { "\n\n" } else { "\n" }, &mut chunks);
            first = false;
        }
    }
    if !current.is_empty() {
        chunks.push(current);
    }
    Ok(chunks)
}

/// Splits a transcript chunk in two near its middle, for a request the model rejected as too
/// long: at the message boundary (blank line) closest to the middle, else at the closest line
/// break, else between characters. The separator at the cut is dropped; `None` when the text
/// holds fewer than two characters. Both halves are non-empty and keep the text's order.
pub fn split_in_two(text: &str) -> Option<(&str, &str)> {
    let middle = text.len() / 2;
    for separator in ["\n\n", "\n"] {
        let best = text
            .match_indices(separator)
            .map(|(at, _)| at)
            .filter(|&at| at > 0 && at + separator.len() < text.len())
            .min_by_key(|&at| at.abs_diff(middle));
        if let Some(at) = best {
            return Some((&text[..at], &text[at + separator.len()..]));
        }
    }
    let chars = text.chars().count();
    if chars < 2 {
        return None;
    }
    let at = text.char_indices().nth(chars / 2).map_or(text.len(), |(index, _)| index);
    Some((&text[..at], &text[at..]))
}

/// Splits text at line breaks (and long lines at characters) into pieces under `limit`.
fn split_to_fit(text: &str, limit: u64, tokens: &dyn Fn(&str) -> u64) -> Vec<String> {
    let mut pieces = Vec::new();
    let mut current = String::new();
    for line in text.split('\n') {
        let candidate_fits = {
            let mut candidate = current.clone();
            if !candidate.is_empty() {
                candidate.push('\n');
            }
            candidate.push_str(line);
            tokens(&candidate) <= limit
        };
        if candidate_fits {
            if !current.is_empty() {
                current.push('\n');
            }
            current.push_str(line);
            continue;
        }
        if !current.is_empty() {
            pieces.push(std::mem::take(&mut current));
        }
        if tokens(line) <= limit {
            current.push_str(line);
        } else {
            // A single line over the limit: cut it by characters, halving until it fits.
            let mut rest = line;
            while !rest.is_empty() {
                let mut take = rest.chars().count();
                let mut end = rest.len();
                while take > 1 && tokens(&rest[..end]) > limit {
                    take /= 2;
                    end = rest.char_indices().nth(take).map_or(rest.len(), |(i, _)| i);
                }
                pieces.push(rest[..end].to_owned());
                rest = &rest[end..];
            }
        }
    }
    if !current.is_empty() {
        pieces.push(current);
    }
    pieces
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn chars_over_four(text: &str) -> u64 {
        (text.chars().count() as u64).div_ceil(4)
    }

    fn budget(window: u64) -> SummarizerBudget {
        SummarizerBudget {
            context_window: window,
            prompt_tokens: 10,
            max_output_tokens: 10,
            carried_summary_tokens: 0,
        }
    }

    #[test]
    fn small_transcript_is_one_chunk() {
        let blocks =
            vec!["<user>\nhi\n</user>".to_owned(), "<assistant>\nhello\n</assistant>".to_owned()];
        let chunks = chunk_blocks(&blocks, budget(1000), &chars_over_four).unwrap();
        assert_eq!(chunks, vec![blocks.join("\n\n")]);
    }

    #[test]
    fn no_room_is_an_error() {
        assert!(chunk_blocks(&["x".to_owned()], budget(20), &chars_over_four).is_err());
    }

    #[test]
    fn split_in_two_prefers_message_then_line_boundaries() {
        assert_eq!(split_in_two("aaaa\n\nbb\n\ncccc"), Some(("aaaa\n\nbb", "cccc")));
        assert_eq!(split_in_two("one\ntwo\nthree"), Some(("one\ntwo", "three")));
        assert_eq!(split_in_two("abcd日"), Some(("ab", "cd日")));
        assert_eq!(split_in_two("日"), None);
        assert_eq!(split_in_two("\n\n"), Some(("\n", "\n")));
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]
        #[test]
        fn split_in_two_keeps_every_character_but_the_cut(text in "[a-z日\n]{0,200}") {
            if let Some((first, second)) = split_in_two(&text) {
                prop_assert!(!first.is_empty() && !second.is_empty());
                let rest = &text[first.len()..text.len() - second.len()];
                prop_assert!(["", "\n", "\n\n"].contains(&rest), "cut dropped {rest:?}");
                prop_assert!(text.starts_with(first) && text.ends_with(second));
            } else {
                prop_assert!(text.chars().count() < 2);
            }
        }

        #[test]
        fn chunks_fit_keep_order_and_lose_nothing(
            blocks in proptest::collection::vec("[a-z日😀 \n]{0,400}", 1..30),
            window in 60u64..400,
        ) {
            let blocks: Vec<String> = blocks.into_iter().filter(|b| !b.is_empty()).collect();
            let b = budget(window);
            let chunks = chunk_blocks(&blocks, b, &chars_over_four).unwrap();
            for chunk in &chunks {
                prop_assert!(chars_over_four(chunk) <= b.transcript_tokens(), "chunk over budget");
            }
            // Nothing lost, order kept: removing separators gives the same characters.
            let strip = |s: &str| s.chars().filter(|c| *c != '\n').collect::<String>();
            let original: String = blocks.iter().map(|b| strip(b)).collect();
            let rejoined: String = chunks.iter().map(|c| strip(c)).collect();
            prop_assert_eq!(original, rejoined);
        }
    }
}
