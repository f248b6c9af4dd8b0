//! The turn notes: the user's own sentences and the assistant's fact-bearing ones, after
//! everything else in the Critical Context, at a low priority.
//!
//! Invariant: a note repeats no sentence another item already holds; a carried note keeps
//! its low priority and comes before this part's, so the budget drops the oldest notes
//! first; notes are whole sentences, packed into lines of at most [`NOTE_WIDTH`] characters;
//! a sentence a later change of mind replaced (see `Digest::superseded_after_turn`) is left
//! out, carried or new.

use std::collections::HashSet;

use super::super::notes::pack;
use super::super::sections::*;
use super::super::text::{code, sentences};
use super::Assembly;

/// How a line of the user's sentences starts.
pub(in super::super) const USER_NOTE: &str = "User wrote";
/// How a line of the assistant's sentences starts.
pub(in super::super) const ASSISTANT_NOTE: &str = "Assistant noted";
/// How a line of what a written document says starts (its path follows).
pub(in super::super) const DOCUMENT_NOTE: &str = "Document written";
/// The widest a line of notes gets, in characters (a longer sentence stands alone).
const NOTE_WIDTH: usize = 420;

impl Assembly<'_> {
    /// Pushes the carried notes, then this part's, turn by turn.
    pub(super) fn notes(&mut self) {
        let digest = self.digest;
        for item in self.carried_items(Section::Critical) {
            let priority = if item.starts_with(USER_NOTE) {
                PRIORITY_USER_NOTE
            } else if item.starts_with(DOCUMENT_NOTE) {
                PRIORITY_DOCUMENT_NOTE
            } else if item.starts_with(ASSISTANT_NOTE) {
                PRIORITY_ASSISTANT_NOTE
            } else {
                continue;
            };
            let Some(item) = current_note(item, |s| digest.superseded_after_turn(s, None)) else {
                continue;
            };
            self.sections.push(Section::Critical, item, priority);
        }
        let said: Vec<&str> = self.sections.items.iter().map(|item| item.text.as_str()).collect();
        let sentences = digest.notes.iter().flat_map(|turn| {
            turn.user
                .iter()
                .chain(&turn.assistant)
                .chain(turn.documents.iter().flat_map(|(_, written)| written))
        });
        let repeated = contained_in_any(&said, sentences.map(String::as_str));
        for (index, turn) in digest.notes.iter().enumerate() {
            // A sentence a later change of mind replaced is no longer what holds.
            let new = |sentence: &&String| {
                !repeated.contains(sentence.as_str())
                    && digest.superseded_after_turn(sentence, Some(index)).is_none()
            };
            let about = turn.about.as_deref().map(|about| format!(" (on «{about}»)"));
            let user: Vec<&str> = turn.user.iter().filter(new).map(String::as_str).collect();
            for line in pack(&user, NOTE_WIDTH) {
                self.sections.push(
                    Section::Critical,
                    format!("{USER_NOTE}: {line}"),
                    PRIORITY_USER_NOTE,
                );
            }
            for (path, written) in &turn.documents {
                let written: Vec<&str> = written.iter().filter(new).map(String::as_str).collect();
                for line in pack(&written, NOTE_WIDTH) {
                    self.sections.push(
                        Section::Critical,
                        format!("{DOCUMENT_NOTE} {}: {line}", code(path)),
                        PRIORITY_DOCUMENT_NOTE,
                    );
                }
            }
            let assistant: Vec<&str> =
                turn.assistant.iter().filter(new).map(String::as_str).collect();
            for line in pack(&assistant, NOTE_WIDTH) {
                self.sections.push(
                    Section::Critical,
                    format!("{ASSISTANT_NOTE}{}: {line}", about.as_deref().unwrap_or("")),
                    PRIORITY_ASSISTANT_NOTE,
                );
            }
        }
    }
}

/// `text` without the sentences `stale` finds replaced: `None` when none is left, `text`
/// as it was when none is replaced.
pub(super) fn current_sentences<'a>(
    text: &str,
    stale: impl Fn(&str) -> Option<&'a str>,
) -> Option<String> {
    let all = sentences(text);
    let kept: Vec<&str> =
        all.iter().map(String::as_str).filter(|sentence| stale(sentence).is_none()).collect();
    match kept.len() {
        0 => None,
        n if n == all.len() => Some(text.to_owned()),
        _ => Some(kept.join(" ")),
    }
}

/// A carried note line without the sentences `stale` finds replaced (its label kept).
fn current_note<'a>(line: &str, stale: impl Fn(&str) -> Option<&'a str>) -> Option<String> {
    match line.split_once(": ") {
        Some((label, body)) => {
            current_sentences(body, stale).map(|body| format!("{label}: {body}"))
        }
        None => Some(line.to_owned()),
    }
}

/// Above this many sentence × item searches, one automaton pass is cheaper.
const DIRECT_SEARCHES: usize = 20_000;

/// The sentences that occur (as a substring) in one of `texts`: one pass over each text
/// for all sentences at once, so a session of thousands of turns is read in linear time
/// (a search of every text for every sentence was quadratic: 30 s for 10,000 messages).
fn contained_in_any<'a>(
    texts: &[&str],
    sentences: impl Iterator<Item = &'a str>,
) -> HashSet<&'a str> {
    let mut patterns: Vec<&'a str> = sentences.collect();
    patterns.sort_unstable();
    patterns.dedup();
    let mut found = HashSet::new();
    if texts.is_empty() {
        return found;
    }
    if let Some(position) = patterns.iter().position(|pattern| pattern.is_empty()) {
        // The empty sentence is in every text.
        found.insert(patterns.remove(position));
    }
    // Building the automaton costs more than a few direct searches: a small summary (a few
    // hundred sentences and items) is searched directly.
    let searcher = match patterns.len().saturating_mul(texts.len()) > DIRECT_SEARCHES {
        true => aho_corasick::AhoCorasick::new(&patterns).ok(),
        false => None,
    };
    match searcher {
        Some(searcher) => {
            for text in texts {
                for found_at in searcher.find_overlapping_iter(*text) {
                    found.insert(patterns[found_at.pattern().as_usize()]);
                }
            }
        }
        None => {
            // A small summary, or too many patterns for the automaton: the direct search.
            for pattern in patterns {
                if texts.iter().any(|text| text.contains(pattern)) {
                    found.insert(pattern);
                }
            }
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::{DIRECT_SEARCHES, contained_in_any};

    #[test]
    fn finds_exactly_the_sentences_a_direct_search_finds() {
        let texts = [
            "User wrote: fix the parser. Then run it.",
            "Assistant noted: the parser is fixed; ababab",
            "",
        ];
        // Overlapping and nested sentences, repeats, the empty one, absent ones.
        let sentences = [
            "fix the parser.",
            "the parser",
            "parser",
            "run it",
            "absent",
            "",
            "fixed",
            "bab",
            "abab",
            "the parser",
            "Then run it. More",
        ];
        let found = contained_in_any(&texts, sentences.iter().copied());
        for sentence in sentences {
            let direct = texts.iter().any(|text| text.contains(sentence));
            assert_eq!(found.contains(sentence), direct, "{sentence:?}");
        }
        assert!(contained_in_any(&[], sentences.iter().copied()).is_empty());
        // Past the direct searches' bound the automaton answers, the same way.
        let many_texts: Vec<String> =
            (0..300).map(|n| format!("Assistant noted: step {n} wrote file{}.rs", n * 7)).collect();
        let many_texts: Vec<&str> = many_texts.iter().map(String::as_str).collect();
        let many: Vec<String> = (0..100).map(|n| format!("file{n}.rs")).collect();
        assert!(many_texts.len() * many.len() > DIRECT_SEARCHES);
        let found = contained_in_any(&many_texts, many.iter().map(String::as_str));
        for sentence in &many {
            let direct = many_texts.iter().any(|text| text.contains(sentence.as_str()));
            assert_eq!(found.contains(sentence.as_str()), direct, "{sentence:?}");
        }
    }
}
