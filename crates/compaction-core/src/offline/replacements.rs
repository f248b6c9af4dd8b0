//! Replacements: what a later statement replaces. A user's switch ("let's switch the HTTP
//! client to ky"), a phrase a statement says it replaces ("use X instead of Y") and a
//! corrected value ("3001, not 8080") are recorded with how much came before them, so the
//! assembly can tell a decision, rule, note or reply they made stale from one said after.

use super::digest::*;
use super::extract::replaced_phrases;
use super::text::*;

impl Digest {
    /// Records the choices `text` says it replaces (before its own decisions are kept), and
    /// the values it corrects; a user's `text` also replaces what its switches are about.
    pub(super) fn note_replacements(&mut self, text: &str, from_user: bool) {
        // A user's message opens a turn (recorded after this): every turn before it ended.
        // The assistant speaks within the latest turn, which it may still be answering.
        let (turns_at, requests_at) = match from_user {
            true => (self.notes.len(), self.requests.len()),
            false => (self.notes.len().saturating_sub(1), self.requests.len().saturating_sub(1)),
        };
        for change in super::values::corrected_values(head(text, 8_000)) {
            self.note_value_change(change);
        }
        if from_user {
            for sentence in super::switches::switch_sentences(text) {
                let terms = super::switches::subject_terms(&sentence);
                if terms.len() < 2 {
                    continue;
                }
                self.replacements.push(Replacement {
                    phrase: String::new(),
                    from_user,
                    by: clip(&sentence, 200),
                    decisions_at: self.decisions.len(),
                    constraints_at: self.constraints.len(),
                    turns_at,
                    requests_at,
                    terms,
                });
            }
        }
        for phrase in replaced_phrases(text, from_user) {
            let by = sentences(head(text, 8_000))
                .into_iter()
                .find(|sentence| sentence.to_lowercase().contains(&phrase))
                .unwrap_or_default();
            let terms = super::switches::subject_terms(&by);
            self.replacements.push(Replacement {
                phrase,
                from_user,
                by: clip(&by, 200),
                terms,
                decisions_at: self.decisions.len(),
                constraints_at: self.constraints.len(),
                turns_at,
                requests_at,
            });
        }
    }

    /// The statement that replaced `text` (a decision or a constraint at `index` of its
    /// list, or a carried one when `index` is `None`), if a later one did, and whether the
    /// user said it.
    pub(super) fn superseded_by(
        &self,
        text: &str,
        index: Option<usize>,
        decision: bool,
    ) -> Option<(&str, bool)> {
        let before = |r: &Replacement| {
            let at = if decision { r.decisions_at } else { r.constraints_at };
            index.is_none_or(|index| index < at)
        };
        self.replacing(text, before).map(|r| (r.by.as_str(), r.from_user))
    }

    /// The statement that replaced a sentence of turn `turn` of these messages (a carried
    /// one when `None`): a note or a reply a later change of mind makes stale.
    pub(super) fn superseded_after_turn(&self, text: &str, turn: Option<usize>) -> Option<&str> {
        self.replacing(text, |r| turn.is_none_or(|turn| turn < r.turns_at)).map(|r| r.by.as_str())
    }

    /// The statement that replaced the reply to request `request` (a carried one when
    /// `None`).
    pub(super) fn superseded_reply(&self, text: &str, request: Option<usize>) -> Option<&str> {
        self.replacing(text, |r| request.is_none_or(|request| request < r.requests_at))
            .map(|r| r.by.as_str())
    }

    /// The first replacement among those `after` admits (the ones made after `text`) that
    /// replaces `text` without quoting it.
    fn replacing(&self, text: &str, after: impl Fn(&Replacement) -> bool) -> Option<&Replacement> {
        let lower = text.to_lowercase();
        self.replacements
            .iter()
            .filter(|r| after(r))
            .find(|r| replaces(r, &lower) && !lower.contains(&r.by.to_lowercase()))
    }
}

/// Whether the statement of `replacement` replaces `lower` (a lower-cased decision or
/// rule): it holds the replaced phrase; or the phrase's first word and one subject term of
/// the statement (the user's only); or, for a switch that names no phrase, two subject
/// terms (one of a switch of at most three), but not all of them.
pub(super) fn replaces(replacement: &Replacement, lower: &str) -> bool {
    use super::switches::shared_terms;
    let phrase = replacement.phrase.as_str();
    if phrase.is_empty() {
        let terms = replacement.terms.len();
        let shared = shared_terms(lower, &replacement.terms);
        let needed = if terms <= 3 { 1 } else { 2 };
        return shared >= needed && shared < terms;
    }
    if contains_words(lower, phrase) {
        return true;
    }
    let first = phrase.split_whitespace().next().unwrap_or(phrase);
    let others: Vec<String> = replacement
        .terms
        .iter()
        .filter(|term| !phrase.split_whitespace().any(|word| word == term.as_str()))
        .cloned()
        .collect();
    replacement.from_user
        && first.chars().count() >= 3
        && contains_words(lower, first)
        && shared_terms(lower, &others) >= 1
}

/// Whether `phrase` occurs in `text` as whole words.
fn contains_words(text: &str, phrase: &str) -> bool {
    text.match_indices(phrase).any(|(at, _)| {
        let before = text[..at].chars().next_back();
        let after = text[at + phrase.len()..].chars().next();
        let boundary = |c: Option<char>| c.is_none_or(|c| !c.is_alphanumeric());
        boundary(before) && boundary(after)
    })
}
