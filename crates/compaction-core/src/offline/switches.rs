//! Switches: a user's sentence that changes a choice without naming the one it replaces
//! ("let's switch the HTTP client to ky", "on passe à Vite", "换成 Recharts", "Vitest로
//! 교체해 주세요", "cambia el router a …"), and the subject terms that tie it to the
//! earlier decisions it replaces.
//!
//! Invariant: a switch replaces only what shares its subject: at least two subject terms
//! (words of three or more letters, or names, that are not function words nor the
//! switch's own verbs) with the earlier statement, one when the switch has at most three;
//! never a statement that holds every term of the switch (it agrees with it).

use super::text::{head, sentences};

/// Markers of a changed choice, lower-cased, in the languages the sessions use.
const SWITCH_MARKERS: [&str; 24] = [
    "switch ",
    "change the ",
    "go back to ",
    "revert to ",
    "move the ",
    "we changed ",
    "from now on",
    "on passe à ",
    "passe à ",
    "change d'avis",
    "finalement",
    "wechsle ",
    "doch lieber ",
    "换成",
    "改用",
    "还是用",
    "바꿔",
    "교체",
    "cambia ",
    "vamos con ",
    "mejor usa ",
    "al final ",
    "en fin de compte",
    "actually, use ",
];

/// Words that say nothing about what a choice is about.
const FUNCTION_WORDS: [&str; 82] = [
    "the",
    "and",
    "for",
    "with",
    "use",
    "used",
    "using",
    "let",
    "let's",
    "lets",
    "this",
    "that",
    "these",
    "those",
    "please",
    "instead",
    "switch",
    "change",
    "changed",
    "replace",
    "now",
    "just",
    "then",
    "from",
    "into",
    "our",
    "your",
    "all",
    "are",
    "was",
    "were",
    "will",
    "i'll",
    "we'll",
    "can",
    "could",
    "should",
    "would",
    "it's",
    "its",
    "not",
    "but",
    "also",
    "back",
    "revert",
    "move",
    "again",
    "after",
    "before",
    "here",
    "there",
    "them",
    "they",
    "what",
    "which",
    "everything",
    "everywhere",
    "update",
    "les",
    "des",
    "no",
    "ok",
    "so",
    "if",
    "it",
    "is",
    "we",
    "to",
    "in",
    "on",
    "at",
    "of",
    "or",
    "an",
    "as",
    "be",
    "by",
    "do",
    "my",
    "me",
    "us",
    "up",
];

/// The sentences of a user's text that change a choice (a marker above, or "instead"
/// without the "of" that names what it replaces).
pub(super) fn switch_sentences(text: &str) -> Vec<String> {
    sentences(head(text, 8_000))
        .into_iter()
        .filter(|sentence| {
            let lower = sentence.to_lowercase();
            !super::extract::is_conditional(&lower)
                && (SWITCH_MARKERS.iter().any(|marker| lower.contains(marker))
                    || (lower.contains("instead") && !lower.contains("instead of")))
        })
        .collect()
}

/// The subject terms of `text`: lower-cased words of three or more letters (two when the
/// word is a name: `Go`, `S3`), without function words. A word changes where its script
/// does (`runner를` is `runner` and a Korean particle, `用Zustand` is `用` and `zustand`).
pub(super) fn subject_terms(text: &str) -> Vec<String> {
    let mut spaced = String::with_capacity(text.len() + 16);
    let mut previous: Option<bool> = None;
    for c in text.chars() {
        let ascii = c.is_ascii();
        if c.is_alphanumeric() && previous.is_some_and(|was| was != ascii) {
            spaced.push(' ');
        }
        previous = c.is_alphanumeric().then_some(ascii);
        spaced.push(c);
    }
    let mut out: Vec<String> = Vec::new();
    for word in spaced.split(|c: char| !(c.is_alphanumeric() || c == '\'')) {
        let word = word.trim_matches('\'');
        let letters = word.chars().filter(|c| c.is_alphabetic()).count();
        let name =
            letters >= 1 && word.chars().count() == 2 && word.chars().any(char::is_uppercase);
        let word = word.to_lowercase();
        if (letters >= 3 || name)
            && !FUNCTION_WORDS.contains(&word.as_str())
            && !out.contains(&word)
        {
            out.push(word);
        }
    }
    out
}

/// How many of `terms` `text` holds as words (of any length and case: a name among the
/// terms counts in a lower-cased text too).
pub(super) fn shared_terms(text: &str, terms: &[String]) -> usize {
    let lower = text.to_lowercase();
    let own: Vec<&str> = lower.split(|c: char| !(c.is_alphanumeric() || c == '\'')).collect();
    terms.iter().filter(|term| own.contains(&term.as_str())).count()
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn a_switch_names_its_subject() {
        let text = "Looks good. Let's switch the HTTP client to ky, it is lighter.";
        let switches = switch_sentences(text);
        assert_eq!(switches, ["Let's switch the HTTP client to ky, it is lighter."]);
        assert_eq!(subject_terms(&switches[0]), ["http", "client", "lighter"]);
        let terms = subject_terms(&switches[0]);
        assert_eq!(shared_terms("I'll use axios for the HTTP client.", &terms), 2);
        assert_eq!(shared_terms("I'll add a client-side cache.", &terms), 1);
        assert_eq!(
            subject_terms("Let's switch the kernel to Rust; Go does not fit."),
            ["kernel", "rust", "go", "does", "fit"]
        );
        assert_eq!(switch_sentences("No, keep the sessions in Postgres instead.").len(), 1);
        assert_eq!(switch_sentences("Add a test for the HTTP client."), Vec::<String>::new());
        assert_eq!(switch_sentences("chart library 换成 Recharts，别用 ECharts 了。").len(), 1);
        assert_eq!(
            subject_terms("test runner를 Vitest로 교체해 주세요."),
            ["test", "runner", "vitest", "교체해", "주세요"]
        );
    }
}
