//! A "no" that refuses nothing. A user message that opens like a correction ("nope", "no,",
//! "不是") refuses what the assistant proposed or did only when its words do; two kinds of
//! message open so and refuse nothing:
//! - a report that the problem is still there after the last attempt ("nope, still cannot
//!   drag", "no, sigue sin guardar", "不行，还是乱码"): the attempt failed, the problem stays
//!   open, and the approach was not turned down;
//! - after the user's own question, the question they meant ("no, I mean expires_at",
//!   "no, me refiero a la base de datos"): the answer answered another reading of it.
//!
//! Both are told by the words that carry them in the languages users write to agents in
//! (English, Spanish, Portuguese, French, Italian, German, Chinese, Japanese, Korean); a
//! message that also asks for something else ("instead", "use …") stays a refusal.

use crate::offline::text::is_wide;

/// Whether a message that opens like a correction refuses nothing: it says the problem
/// persists, or (when the user's previous message was a question) says which question
/// the user meant, and it names no alternative.
pub(in crate::offline) fn refuses_nothing(prose: &str, after_question: bool) -> bool {
    let lower = lowered(prose);
    !has(&lower, &ALTERNATIVES)
        && (has(&lower, &PERSISTS) || (after_question && has(&lower, &MEANT)))
}

/// Whether a message, after the user's own question, only says which question they meant
/// ("no for the storage i mean"): neither a rule nor a refusal.
pub(in crate::offline) fn restates_question(prose: &str, after_question: bool) -> bool {
    let lower = lowered(prose);
    after_question && has(&lower, &MEANT) && !has(&lower, &ALTERNATIVES)
}

/// Whether a user's message (or the request a summary kept of it) asks a question: it ends
/// with a question mark. A "no, I mean …" right after it restates the question.
pub(in crate::offline) fn asks(text: &str) -> bool {
    text.trim_end().ends_with(['?', '？'])
}

/// `prose` in lower case, with its apostrophes made one (`didn’t`, `didn`t`).
fn lowered(prose: &str) -> String {
    prose.to_lowercase().replace(['’', '`'], "'")
}

/// Whether `lower` holds one of `markers`: words of alphabetic scripts whole, CJK ones
/// anywhere (those scripts put no spaces between words).
fn has(lower: &str, markers: &[&str]) -> bool {
    markers.iter().any(|marker| {
        if marker.chars().any(is_wide) {
            lower.contains(marker)
        } else {
            contains_word(lower, marker)
        }
    })
}

/// Whether `text` holds `word` with no letter or digit right before or after it.
fn contains_word(text: &str, word: &str) -> bool {
    text.match_indices(word).any(|(at, _)| {
        let before = text[..at].chars().next_back();
        let after = text[at + word.len()..].chars().next();
        !before.is_some_and(char::is_alphanumeric) && !after.is_some_and(char::is_alphanumeric)
    })
}

/// Words saying the problem is still there, or that the attempt changed nothing.
const PERSISTS: [&str; 44] = [
    "still",
    "same error",
    "same issue",
    "same problem",
    "same thing",
    "same result",
    "didn't work",
    "did not work",
    "doesn't work",
    "does not work",
    "not working",
    "no luck",
    "no change",
    "nothing changed",
    "no difference",
    // Spanish, Portuguese, Italian.
    "sigue",
    "siguen",
    "todavía",
    "aún",
    "no funcionó",
    "no funciona",
    "ainda",
    "continua",
    "não funcionou",
    "ancora",
    // French, German.
    "toujours",
    "encore",
    "ne marche pas",
    "n'a pas marché",
    "immer noch",
    "noch immer",
    "weiterhin",
    "funktioniert nicht",
    "geht nicht",
    // Chinese, Japanese, Korean.
    "还是",
    "仍然",
    "依然",
    "没用",
    "まだ",
    "相変わらず",
    "変わらない",
    "여전히",
    "아직",
    "안 돼",
];

/// Words saying which question the user meant.
const MEANT: [&str; 26] = [
    "i mean",
    "i meant",
    "talking about",
    "asking about",
    "i was asking",
    "i'm asking",
    "me refiero",
    "hablo de",
    "quiero decir",
    "quise decir",
    "estou falando",
    "quero dizer",
    "je parle de",
    "je veux dire",
    "je voulais dire",
    "intendo",
    "ich meine",
    "ich meinte",
    "我是说",
    "我说的是",
    "我指的是",
    "我是问",
    "我问的是",
    "のことです",
    "말하는",
    "얘기하는",
];

/// Words that ask for something in place of what was done: a refusal.
const ALTERNATIVES: [&str; 14] = [
    "instead",
    "rather",
    "use",
    "don't",
    "do not",
    "en lugar",
    "en vez",
    "usa",
    "utilise",
    "plutôt",
    "stattdessen",
    "nimm",
    "改用",
    "换成",
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_problem_that_persists_refuses_nothing() {
        for prose in [
            "nope, still cannot drag",
            "no, same error as before",
            "no luck, it didn't work",
            "no, sigue sin guardar",
            "non, ça ne marche pas",
            "nein, immer noch kaputt",
            "不行，还是乱码",
            "아니요, 여전히 안 돼요",
        ] {
            assert!(refuses_nothing(prose, false), "{prose}");
        }
    }

    #[test]
    fn the_question_meant_refuses_nothing_only_after_a_question() {
        assert!(refuses_nothing("no, I mean expires_at", true));
        assert!(refuses_nothing("no, me refiero a la base de datos", true));
        assert!(refuses_nothing("不是，我是说数据库", true));
        assert!(!refuses_nothing("no, I mean expires_at", false));
    }

    #[test]
    fn a_refusal_stays_one() {
        for prose in [
            "no, don't add Redis, use Postgres",
            "no, still use the old endpoint instead",
            "nope, not moment, it's too heavy",
            "non, pas Memcached, utilise des cookies signés",
            "wait, that's wrong",
        ] {
            assert!(!refuses_nothing(prose, true), "{prose}");
        }
    }

    #[test]
    fn markers_are_whole_words() {
        // "still" inside "stillborn", "use" inside "because": no marker.
        assert!(!refuses_nothing("no, the stillborn branch", false));
        assert!(refuses_nothing("no, still broken because of the cache", false));
    }
}
