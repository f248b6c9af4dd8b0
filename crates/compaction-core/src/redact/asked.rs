//! A password given as the answer to a question that asks for one.
//!
//! In a chat log, a ticket or a thread, a line asks for a secret (`what's the vpn password
//! again?`, `db password pls`, `anyone have the grafana admin login?`) and one of the next few
//! lines answers it with a lone word: after a stamp and a speaker (`[3/12/26 2:15 PM] Alex:`,
//! `<lee>`, `— jo (12:02):`) or on a line of its own. The question names what the word is; the
//! word alone, made like a password, is what was asked for.
//!
//! Invariant: a range covers the answering word only, and only a word made like a password
//! (the judgement of a record's password field) on one of the four lines after the question.

use std::ops::Range;

/// How many lines after a question an answer is looked for.
const ANSWER_WINDOW: usize = 4;

/// Words that ask for a secret when a line asking a question holds them.
const ASKED_FOR: &[&str] = &[
    "password",
    "passwords",
    "passwd",
    "pass",
    "pw",
    "pwd",
    "passphrase",
    "passcode",
    "login",
    "creds",
    "credentials",
    "token",
    "secret",
    "pin",
];

/// Whether `line` asks for a secret: it is short, ends a question (`?`) or a request (`pls`,
/// `please`), and holds one of [`ASKED_FOR`] as a word.
fn asks_for_secret(line: &str) -> bool {
    let line = line.trim();
    if line.len() > 200 || line.contains(['=', '{', '}', ';']) {
        return false;
    }
    let lower = line.to_ascii_lowercase();
    let asking = lower.ends_with('?')
        || ["pls", "please", "plz"]
            .iter()
            .any(|word| lower.trim_end_matches(['.', '!']).ends_with(word));
    asking
        && lower.split(|c: char| !c.is_ascii_alphanumeric()).any(|word| ASKED_FOR.contains(&word))
}

/// The answering word of `line`, with its offset in the line: the line's last word, when what
/// stands before it is empty or ends as a speaker's label does (`:`, `>`, `]`, `|`, `)`).
fn answer_of(line: &str) -> Option<(usize, &str)> {
    let trimmed = line.trim_end();
    let at = trimmed.rfind(char::is_whitespace).map_or(0, |at| at + 1);
    let word = &trimmed[at..];
    let before = trimmed[..at].trim_end();
    let labelled = before.is_empty() || before.ends_with([':', '>', ']', '|', ')']);
    (labelled && !word.is_empty()).then_some((at, word))
}

/// Ranges of words that answer a line asking for a secret.
pub(super) fn answers(text: &str, out: &mut Vec<Range<usize>>) {
    if !text.contains(['?', 'p', 'P']) {
        return;
    }
    let mut lines = Vec::new();
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        lines.push((offset, line));
        offset += line.len();
    }
    for (index, (_, line)) in lines.iter().enumerate() {
        if !asks_for_secret(line) {
            continue;
        }
        for (start, next) in lines.iter().skip(index + 1).take(ANSWER_WINDOW) {
            if asks_for_secret(next) {
                break;
            }
            let Some((at, word)) = answer_of(next) else { continue };
            if super::accounts::made_like_password(word) {
                out.push(start + at..start + at + word.len());
                break;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn found(text: &str) -> Vec<&str> {
        let mut out = Vec::new();
        answers(text, &mut out);
        out.into_iter().map(|span| &text[span]).collect()
    }

    #[test]
    fn a_password_answering_a_question_for_one_is_found() {
        assert_eq!(
            found(
                "[3/12/26 2:14 PM] Sam: db password pls\n[3/12/26 2:15 PM] Alex: Thunder.pebble.4781\n"
            ),
            ["Thunder.pebble.4781"]
        );
        assert_eq!(
            found(
                "Ana Silva, 10:41 AM\nwhat's the vpn password again?\nTom Berg, 10:42 AM\nCopper-shadow-Pebble-2389\n"
            ),
            ["Copper-shadow-Pebble-2389"]
        );
        assert_eq!(
            found(
                "<dana> anyone have the staging db creds?\n<li> user app\n<li> Granite?9001Copper\n"
            ),
            ["Granite?9001Copper"]
        );
    }

    #[test]
    fn answers_that_are_no_password_and_other_questions_stay() {
        // An ordinary answer, a word of code, a version.
        assert!(found("what's the password policy?\nbob: it changed last week\n").is_empty());
        assert!(found("which token type?\n> BearerToken\n").is_empty());
        assert!(found("where is the login page?\nsee: https://example.com/login\n").is_empty());
        // A question that names no secret.
        assert!(found("what's the build number?\nops: Granite?9001Copper\n").is_empty());
        // An answer too far from the question.
        assert!(found("db password pls\na\nb\nc\nd\nThunder.pebble.4781\n").is_empty());
    }
}
