//! Passwords given in prose, in any language: the word for a password, at most three more
//! words, then a colon, a copula or a particle, and a value made like a password ("Das
//! Passwort ist …", "La contraseña es …", "Le mot de passe est …", "Пароль от сервера: …",
//! "服务器的密码是 …", "パスワードは … です", "서버 비밀번호는 … 입니다").
//!
//! A finder rather than a rule: the words are found by a search for literals alone, and the
//! few characters after each are read by hand (one regular expression for the whole shape,
//! Unicode classes and all, cost a fifth of all redaction time).
//!
//! Invariant: a range covers the value only.

use std::ops::Range;
use std::sync::OnceLock;

use regex::Regex;

use super::checks::{ends_in_entity, looks_like_password};

/// Copulas and particles that put a value after the word: German, Spanish, French,
/// Portuguese, Italian, Dutch, Swedish, Polish, Czech, English.
const COPULAS: &[&str] = &[
    "ist", "lautet", "es", "est", "é", "è", "er", "är", "is", "jest", "je", "on", "era", "était",
    "foi", "war", "was",
];

/// Ranges of `text` holding a value given as a password in prose.
pub(super) fn password_values(text: &str, out: &mut Vec<Range<usize>>) {
    static WORD: OnceLock<Option<Regex>> = OnceLock::new();
    let Some(word) = WORD
        .get_or_init(|| {
            Regex::new(concat!(
                r"(?i)password|passwort|kennwort|wachtwoord|lösenord|losenord|passord|adgangskode|",
                r"salasana|contraseña|contrasena|mot de passe|senha|palavra-passe|пароль|hasło|",
                r"haslo|heslo|jelszó|jelszo|şifre|sifre|parool|密码|密碼|口令|パスワード|비밀번호|",
                r"mật khẩu|mat khau|รหัสผ่าน|kata sandi|clave|parola"
            ))
            .ok()
        })
        .as_ref()
    else {
        return;
    };
    for found in word.find_iter(text) {
        if let Some(value) = value_after(text, found.end()) {
            out.push(value);
        }
    }
}

/// The value after a password word ending at `at`: up to three words, then `:`, `=`, a
/// copula or a particle, then the value (up to a space or a quote).
fn value_after(text: &str, at: usize) -> Option<Range<usize>> {
    let mut end = text.len().min(at + 120);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let rest = &text[at..end];
    let rest = &rest[..rest.find('\n').unwrap_or(rest.len())];
    let mut offset = 0;
    for _ in 0..4 {
        let part = &rest[offset..];
        // A particle glued to the word (`密码是`, `パスワードは`, `비밀번호는`).
        let glued = ["是", "は", "는", "은", "为", "為"].iter().find(|p| part.starts_with(**p));
        let trimmed = part.trim_start_matches([' ', '\t']);
        let spaces = part.len() - trimmed.len();
        let separator = trimmed.strip_prefix([':', '=']).or_else(|| trimmed.strip_prefix('：'));
        let start = if let Some(particle) = glued {
            offset + particle.len()
        } else if let Some(after) = separator {
            offset + part.len() - after.len()
        } else {
            let next = trimmed.split([' ', '\t']).next().unwrap_or_default();
            if spaces == 0 || next.is_empty() {
                return None;
            }
            if COPULAS.iter().any(|copula| next.eq_ignore_ascii_case(copula))
                && trimmed.len() > next.len()
            {
                offset + spaces + next.len()
            } else {
                // Another word between the name and the value (`от сервера`, `for the`).
                if next.contains([':', '：', '=']) {
                    let cut = next.find([':', '：', '=']).unwrap_or(0);
                    offset += spaces + cut;
                } else {
                    offset += spaces + next.len();
                }
                continue;
            }
        };
        let value_text = &rest[start..];
        let lead = value_text.len() - value_text.trim_start_matches([' ', '\t']).len();
        let value_text = &value_text[lead..];
        let value_text = value_text.trim_start_matches(['"', '\'', '`', '«', '“']);
        let skipped = rest[start..].len() - value_text.len();
        let end = value_text
            .find(|c: char| c.is_whitespace() || "\"'`,;»”".contains(c))
            .unwrap_or(value_text.len());
        let value = &value_text[..end];
        if !(6..=64).contains(&value.len()) || !looks_like_password(value) || ends_in_entity(value)
        {
            return None;
        }
        let from = at + start + skipped;
        return Some(from..from + value.trim_end_matches(|c: char| c.is_ascii_punctuation()).len());
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn found(text: &str) -> Vec<&str> {
        let mut out = Vec::new();
        password_values(text, &mut out);
        out.into_iter().map(|span| &text[span]).collect()
    }

    #[test]
    fn passwords_in_prose_of_any_language_are_found() {
        for (text, value) in [
            ("Das Passwort ist Tulip!2231maple, bitte nicht weitergeben.", "Tulip!2231maple"),
            ("La contraseña es Qx7#mPa9zz para el servidor.", "Qx7#mPa9zz"),
            ("Le mot de passe est orbit*7818Granite pour l'admin.", "orbit*7818Granite"),
            ("Пароль от сервера: Falcon-river-448", "Falcon-river-448"),
            ("服务器的密码是 Copper4411lantern", "Copper4411lantern"),
            ("サーバーのパスワードは Violet~4854orbit です", "Violet~4854orbit"),
            ("서버 비밀번호는 Quartz9911meadow 입니다", "Quartz9911meadow"),
        ] {
            assert_eq!(found(text), [value], "{text}");
        }
    }

    #[test]
    fn prose_about_passwords_is_left_alone() {
        for text in [
            "Password is correct.",
            "printf(&quot;Password is incorrect.&quot;);",
            "the password for the account: root",
            "#define PQnoPasswordSupplied \"fe_sendauth: no password supplied\"",
            "Passwort vergessen? Klicken Sie hier.",
            // The window read after the word ends inside a character.
            &format!("password {}", "비밀번호".repeat(40)),
        ] {
            assert!(found(text).is_empty(), "{text}: {:?}", found(text));
        }
    }
}
