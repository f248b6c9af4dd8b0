//! Notes: the sentences of each turn that state a fact, kept whole so a summary can carry
//! what the structured sections do not name.
//!
//! The structured sections say what was asked, done, decided and left open; what a reader
//! later needs is often a plain fact said along the way (a count, a value the user chose, a
//! cause the assistant found, a setting, a rule in the user's own language). A turn's notes
//! hold the user's own sentences (all of them: the user's words are never guessed at) and
//! the assistant's sentences that carry a checkable fact (a number, inline code, a path, a
//! name written as code is, a cause or a choice), and the sentences of each document the
//! turn wrote (its facts first). They are rendered with a low priority, so
//! they fill the room the budget leaves and are the first to go when it is tight, oldest
//! first.
//!
//! Invariant: every note is a whole sentence of the transcript, never cut; a turn's notes
//! are bounded in characters, so a long message cannot crowd out the others.

use super::extract::is_acknowledgement;
use super::text::*;

/// The most characters of the user's sentences one turn keeps.
const USER_CHARS: usize = 1_600;
/// The most characters of the assistant's sentences one turn keeps.
const ASSISTANT_CHARS: usize = 1_400;
/// The most characters of one document's sentences one turn keeps.
const DOCUMENT_CHARS: usize = 1_400;
/// A sentence longer than this is not a note (a pasted block, a table row, a log line).
const SENTENCE_CHARS: usize = 320;
/// How far into one text the notes look, in bytes.
const SCAN_BYTES: usize = 24_000;

/// The notes of one user turn (or of what came before the first user message).
#[derive(Debug, Clone, Default)]
pub(super) struct TurnNotes {
    /// The start of the user's request, naming what the turn was about.
    pub(super) about: Option<String>,
    /// The user's sentences, in order.
    pub(super) user: Vec<String>,
    /// The assistant's sentences that state a fact, in order.
    pub(super) assistant: Vec<String>,
    /// The documents the turn wrote, each with its fact-bearing sentences (see
    /// `documents`), in the order they were first written.
    pub(super) documents: Vec<(String, Vec<String>)>,
}

impl TurnNotes {
    /// A turn opened by the user's prose: its sentences, up to the turn's share.
    pub(super) fn opened_by(prose: &str) -> Self {
        let mut notes = TurnNotes { about: Some(gist(prose)), ..TurnNotes::default() };
        let mut room = USER_CHARS;
        for sentence in sentences(head(prose, SCAN_BYTES)) {
            let sentence = one_line(&sentence);
            if !says_enough(&sentence) || is_acknowledgement(&sentence) {
                continue;
            }
            let length = char_len(&sentence);
            if length > room {
                break;
            }
            room -= length;
            if !notes.user.contains(&sentence) {
                notes.user.push(sentence);
            }
        }
        notes
    }

    /// Adds the fact-bearing sentences of an assistant text, up to the turn's share.
    pub(super) fn add_assistant(&mut self, text: &str) {
        let used: usize = self.assistant.iter().map(|sentence| char_len(sentence)).sum();
        let mut room = ASSISTANT_CHARS.saturating_sub(used);
        for sentence in sentences(head(text, SCAN_BYTES)) {
            let sentence = one_line(&sentence);
            if !says_enough(&sentence) || !states_a_fact(&sentence) {
                continue;
            }
            let length = char_len(&sentence);
            if length > room {
                continue;
            }
            if self.assistant.contains(&sentence) {
                continue;
            }
            room -= length;
            self.assistant.push(sentence);
        }
    }
}

impl TurnNotes {
    /// Adds the sentences of the prose a call wrote into the document `path`, up to the
    /// document's share: those that state a fact first, then the others (a document is
    /// written to be read, so a choice in plain words counts too), kept in the document's
    /// order. A later write of the same document in the turn replaces what an earlier one
    /// said.
    pub(super) fn add_document(&mut self, path: &str, text: &str) {
        let mut candidates: Vec<String> = Vec::new();
        for line in super::documents::prose_lines(head(text, SCAN_BYTES)) {
            for sentence in sentences(line) {
                let sentence = one_line(&sentence);
                if says_enough(&sentence) && !candidates.contains(&sentence) {
                    candidates.push(sentence);
                }
            }
        }
        let mut chosen = vec![false; candidates.len()];
        let mut room = DOCUMENT_CHARS;
        for facts_first in [true, false] {
            for (index, sentence) in candidates.iter().enumerate() {
                let length = char_len(sentence);
                if chosen[index] || states_a_fact(sentence) != facts_first || length > room {
                    continue;
                }
                room -= length;
                chosen[index] = true;
            }
        }
        let kept: Vec<String> = candidates
            .into_iter()
            .zip(chosen)
            .filter_map(|(sentence, chosen)| chosen.then_some(sentence))
            .collect();
        if kept.is_empty() {
            return;
        }
        match self.documents.iter_mut().find(|(known, _)| known == path) {
            Some((_, sentences)) => *sentences = kept,
            None => self.documents.push((path.to_owned(), kept)),
        }
    }
}

/// The first words of a request (past an opening "thanks"), to name the turn its notes
/// belong to.
fn gist(prose: &str) -> String {
    let text = head(prose, 2_000);
    let start = sentences(text)
        .into_iter()
        .find(|sentence| !is_acknowledgement(sentence))
        .and_then(|sentence| text.find(sentence.as_str()))
        .unwrap_or(0);
    clip(&one_line(&text[start..]), 60)
}

/// Long enough to say something, short enough to be a sentence rather than a pasted block.
fn says_enough(sentence: &str) -> bool {
    let length = char_len(sentence);
    let words = sentence.split_whitespace().count();
    let wide = sentence.chars().filter(|c| !c.is_ascii()).count();
    length <= SENTENCE_CHARS
        && (words >= 3 || wide >= 6)
        && !sentence.trim_start().starts_with(['|', '#', '>'])
        && !sentence.ends_with(['?', '？'])
}

/// A sentence that states something checkable: a number, inline code, a path or a name
/// written as code names are, quoted words, or a cause, fix or choice.
fn states_a_fact(sentence: &str) -> bool {
    const MARKERS: [&str; 16] = [
        "because",
        "caused",
        "the cause",
        "root cause",
        "fixed",
        "the fix",
        "instead",
        "chose",
        "decided",
        "switched",
        "replaced",
        "now uses",
        "no longer",
        "turns out",
        "means that",
        "so that",
    ];
    let lower = sentence.to_lowercase();
    let lead_in = ["let me ", "now let me ", "i'll ", "i will ", "i'm going to ", "next, i"]
        .iter()
        .any(|lead| lower.starts_with(lead));
    if lead_in {
        return false;
    }
    sentence.chars().any(|c| c.is_ascii_digit())
        || sentence.contains('`')
        || sentence.contains('"')
        || sentence.contains('“')
        || sentence.split_whitespace().any(is_named_thing)
        || MARKERS.iter().any(|marker| lower.contains(marker))
}

/// A word written the way names of code are: a path, `snake_case`, `camelCase`, a dotted
/// name, or an acronym-like capital run.
fn is_named_thing(word: &str) -> bool {
    let word = word.trim_matches(|c: char| !c.is_alphanumeric() && !"_./-".contains(c));
    if char_len(word) < 3 {
        return false;
    }
    let inner_capital = word.chars().skip(1).any(|c| c.is_ascii_uppercase())
        && word.chars().any(|c| c.is_ascii_lowercase());
    let joined = word.contains('_') || (word.contains('.') && !word.ends_with('.'));
    let capitals = word.chars().all(|c| c.is_ascii_uppercase() || c.is_ascii_digit())
        && word.chars().filter(|c| c.is_ascii_uppercase()).count() >= 2;
    inner_capital || joined || capitals || looks_like_path(word)
}

/// Packs sentences into lines of at most `width` characters each (a sentence longer than
/// `width` is a line of its own), in order.
pub(super) fn pack(sentences: &[&str], width: usize) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    let mut current = String::new();
    for sentence in sentences {
        if !current.is_empty() && char_len(&current) + 1 + char_len(sentence) > width {
            lines.push(std::mem::take(&mut current));
        }
        if !current.is_empty() {
            current.push(' ');
        }
        current.push_str(sentence);
    }
    if !current.is_empty() {
        lines.push(current);
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn user_sentences_are_kept_whole_in_any_language() {
        let notes = TurnNotes::opened_by(
            "발행하기 버튼을 누르면 파이어베이스로 이름과 선택번호들을 저장한다. Thanks. \
             Use 5 seconds between draws, and never repeat a number.",
        );
        assert_eq!(
            notes.user,
            vec![
                "발행하기 버튼을 누르면 파이어베이스로 이름과 선택번호들을 저장한다.",
                "Use 5 seconds between draws, and never repeat a number."
            ]
        );
    }

    #[test]
    fn assistant_sentences_need_a_fact() {
        let mut notes = TurnNotes::default();
        notes.add_assistant(
            "Let me check the config. The header row is PROJECT_HEADER_ROW, not row 1. \
             That looks good overall. All 66 tests pass across three suites.",
        );
        assert_eq!(
            notes.assistant,
            vec![
                "The header row is PROJECT_HEADER_ROW, not row 1.",
                "All 66 tests pass across three suites."
            ]
        );
    }

    #[test]
    fn a_turn_keeps_a_bounded_share() {
        let mut notes = TurnNotes::default();
        let long: String =
            (0..400).map(|i| format!("Step {i} edited `src/file{i}.rs` fine. ")).collect();
        notes.add_assistant(&long);
        let total: usize = notes.assistant.iter().map(|s| char_len(s)).sum();
        assert!(total <= ASSISTANT_CHARS, "{total}");
        assert!(!notes.assistant.is_empty());
    }

    #[test]
    fn a_document_gives_its_facts_first_then_its_plain_sentences_in_its_order() {
        let mut notes = TurnNotes::default();
        // Forty plain sentences, more than the document's share.
        let filler: String = (0..40u8)
            .map(|i| {
                let part = format!("{}{}", char::from(b'a' + i / 26), char::from(b'a' + i % 26));
                format!("The reader of the plan learns about its part {part} here. ")
            })
            .collect();
        let plan = format!(
            "# Plan\n\n{filler}\n\nSessions move to signed cookies rather than the table.\n\n\
             ```sql\nSET LOCAL app.tenant = 1;\n```\n- Add `setTenantContext()` in store.go."
        );
        notes.add_document("plan.md", &plan);
        let (path, said) = &notes.documents[0];
        assert_eq!(path, "plan.md");
        // The fact (inline code) is in although the plain sentences before it fill the share;
        // the plain sentences fill what is left in the document's order.
        assert_eq!(said.last().map(String::as_str), Some("Add `setTenantContext()` in store.go."));
        assert_eq!(said[0], "The reader of the plan learns about its part aa here.");
        assert!(said.iter().all(|sentence| !sentence.contains("signed cookies")), "{said:?}");
        assert!(said.iter().all(|sentence| !sentence.contains("SET LOCAL")), "{said:?}");
        let total: usize = said.iter().map(|s| char_len(s)).sum();
        assert!(total <= DOCUMENT_CHARS, "{total}");
        // A later write of the same document replaces what the earlier one said.
        notes.add_document("plan.md", "Sessions stay in the database table after all.");
        assert_eq!(
            notes.documents,
            vec![(
                "plan.md".to_owned(),
                vec!["Sessions stay in the database table after all.".to_owned()]
            )]
        );
    }

    #[test]
    fn packing_keeps_order_and_width() {
        let lines = pack(&["aaaa bbbb.", "cc dd.", "eeeeeeeeeeee ffff."], 18);
        assert_eq!(lines, vec!["aaaa bbbb. cc dd.", "eeeeeeeeeeee ffff."]);
    }
}
