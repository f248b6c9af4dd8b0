//! Passwords of the kinds people use, drawn from a round's own word list, for the families of
//! rounds 18 and later. Each round passes its words, so its samples stay its own.

use crate::random::Rng;

/// A password of one of the kinds people use: a word, a symbol and a number; a generated one
/// with a symbol; words and a number; or letters and digits only.
pub(super) fn chosen(rng: &mut Rng, words: &[&str]) -> String {
    match rng.below(4) {
        0 => format!(
            "{}{}{}",
            rng.pick(words),
            rng.pick(&["!", "#", "@", "%", "*", "&", "$"]),
            rng.range(100, 99999)
        ),
        1 => {
            let length = rng.range(12, 18);
            let mut out = rng.alphanumeric(length);
            let at = rng.range(1, length - 1);
            out.insert(at, *rng.pick(&['!', '#', '%', '+', '=', '?', '@', '^']));
            out.push(char::from(b"23456789"[rng.below(8)]));
            out
        }
        2 => {
            let first = *rng.pick(words);
            let second = rng.pick(words).to_ascii_lowercase();
            let sep = *rng.pick(&["-", ".", "_"]);
            format!("{first}{sep}{second}{sep}{}", rng.range(10, 9999))
        }
        _ => {
            let length = rng.range(14, 22);
            let mut out = rng.alphanumeric(length);
            out.push(char::from(b"23456789"[rng.below(8)]));
            out
        }
    }
}

/// A password made of a word and digits only (`walnut2024`, `Harbor1987`): what only a name
/// or a context can tell from an ordinary value.
pub(super) fn word_and_digits(rng: &mut Rng, words: &[&str]) -> String {
    let word = *rng.pick(words);
    let word = if rng.chance(0.5) { word.to_ascii_lowercase() } else { word.to_owned() };
    format!("{word}{}", rng.range(10, 9999))
}
