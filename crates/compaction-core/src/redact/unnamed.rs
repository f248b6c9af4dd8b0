//! A generated password with no name, in a credential's context: a word rich in symbols
//! (`s~qviTBtGS(DK~wzY+Sx9xX4%`, `JQ~EwSctpLx@yMuaCMo!QK9+`) on a line that, or whose line
//! before, speaks of logging in or of an account (`ssh root@10.0.0.5`, `su -`, `user admin`,
//! `u: ops  p: …`, `svc_backup -> …`, `Generated: …`). Neither the shape alone (code is rich
//! in symbols too) nor the context alone (a login line holds names and hosts) says a secret;
//! together they do.
//!
//! Invariant: a range covers one word of 12 to 64 characters holding upper and lower case
//! letters, a digit and two symbols or more of a password generator's alphabet (two kinds
//! of them not used to join names in code: `!#$%&*+=?@^~`), and none of
//! quotes, slashes, backslashes, commas, braces or angle brackets; on a line, or after a line,
//! holding a word of a login (see [`CONTEXT`]) or an address `user@host`.

use std::ops::Range;

/// Words of a login or an account, whole and in any case.
const CONTEXT: &[&str] = &[
    "ssh",
    "su",
    "sudo",
    "login",
    "logon",
    "user",
    "username",
    "admin",
    "root",
    "creds",
    "credentials",
    "account",
    "generated",
    "copied",
    "pw",
    "pwd",
    "mysql",
    "psql",
];

/// Whether `line` holds a word of [`CONTEXT`] or an address `user@host`.
fn speaks_of_login(line: &str) -> bool {
    line.split(|c: char| !c.is_ascii_alphanumeric() && c != '@' && c != '_')
        .filter(|word| !word.is_empty())
        .any(|word| {
            let lower = word.to_ascii_lowercase();
            CONTEXT.contains(&lower.as_str())
                || word.split_once('@').is_some_and(|(user, host)| {
                    user.starts_with(|c: char| c.is_ascii_lowercase())
                        && user.chars().all(|c| c.is_ascii_lowercase() || c == '_')
                        && host.starts_with(|c: char| c.is_ascii_alphanumeric())
                })
        })
        || line.contains(" -> ")
        || line.contains("u: ")
        || line.contains("p: ")
}

/// Symbols of a password generator's alphabet.
const SYMBOLS: &str = "!#$%&*+-=?@^_~.:()[];";

/// The symbols of that alphabet that join no names in code (not `_`, `.`, `-`, `:`,
/// brackets or `;`).
const STRONG_SYMBOLS: &str = "!#$%&*+=?@^~";

/// Whether `word` is made like a generated password rich in symbols.
pub(super) fn symbol_rich(word: &str) -> bool {
    if !(12..=64).contains(&word.len()) || !word.is_ascii() {
        return false;
    }
    let upper = word.bytes().filter(u8::is_ascii_uppercase).count();
    let lower = word.bytes().filter(u8::is_ascii_lowercase).count();
    let digits = word.bytes().filter(u8::is_ascii_digit).count();
    let symbols: Vec<char> = word.chars().filter(|c| SYMBOLS.contains(*c)).collect();
    let strong: Vec<char> = word.chars().filter(|c| STRONG_SYMBOLS.contains(*c)).collect();
    let mut kinds = strong.clone();
    kinds.sort_unstable();
    kinds.dedup();
    let others = word.chars().any(|c| !c.is_ascii_alphanumeric() && !SYMBOLS.contains(c));
    // Letters of a generator change case often; names in code keep runs of one case.
    let longest_lower =
        word.split(|c: char| !c.is_ascii_lowercase()).map(str::len).max().unwrap_or(0);
    let mut all_kinds = symbols.clone();
    all_kinds.sort_unstable();
    all_kinds.dedup();
    // Two strong symbols of two kinds; or, from 16 characters, one strong symbol beside
    // symbols of another kind (`YTOPV5I.msHYrRZf0F6+`), which base64 never holds.
    // The one strong symbol is no pointer or reference mark (`*`, `&`, `$`), no bracket or
    // `;` of code is there, and the letters are drawn (`*SRP_VBASE_get1_by_user(…` stays).
    let one_strong = word.len() >= 16
        && strong.iter().all(|c| !"*&$".contains(*c))
        && !strong.is_empty()
        && all_kinds.len() >= 2
        && upper >= 3
        && lower >= 3
        && !word.contains(['(', ')', '[', ']', ';'])
        && super::shape::word_pair_share(word) < 0.6;
    let strong_enough = strong.len() >= 2 && kinds.len() >= 2 || one_strong;
    upper >= 2
        && lower >= 2
        && digits >= 1
        && symbols.len() >= 2
        && strong_enough
        && !word.contains("__")
        && !word.contains("@@")
        && !word.contains("->")
        && !word.contains("**")
        && !word.contains("&#")
        && !others
        && longest_lower <= 6
        && !word.contains("::")
        && !word.contains("()")
}

/// Ranges of symbol-rich words on lines in a login's context.
pub(super) fn unnamed_passwords(text: &str, out: &mut Vec<Range<usize>>) {
    let mut offset = 0;
    let mut previous_speaks = false;
    for line in text.split_inclusive('\n') {
        let start = offset;
        offset += line.len();
        let speaks = speaks_of_login(line);
        if speaks || previous_speaks {
            let bytes = line.as_bytes();
            let mut at = 0;
            while at < bytes.len() {
                if bytes[at].is_ascii_whitespace() || matches!(bytes[at], b'`' | b',') {
                    at += 1;
                    continue;
                }
                let word_start = at;
                while at < bytes.len()
                    && !bytes[at].is_ascii_whitespace()
                    && !matches!(bytes[at], b'`' | b',')
                {
                    at += 1;
                }
                let mut word = &line[word_start..at];
                // A bracket that closes a list around the word is not part of it.
                let mut word_at = word_start;
                if word.ends_with(')') && !word.contains('(') {
                    word = &word[..word.len() - 1];
                }
                if word.starts_with('(') && !word.contains(')') {
                    word = &word[1..];
                    word_at += 1;
                }
                if symbol_rich(word) {
                    out.push(start + word_at..start + word_at + word.len());
                }
            }
        }
        // A line of text carries its context to the next; a blank line does not.
        previous_speaks = speaks && !line.trim().is_empty();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn found(text: &str) -> Vec<&str> {
        let mut out = Vec::new();
        unnamed_passwords(text, &mut out);
        out.into_iter().map(|span| &text[span]).collect()
    }

    #[test]
    fn a_symbol_rich_password_in_a_login_context_is_found() {
        assert_eq!(
            found("ssh root@10.0.0.5\ns~qviTBtGS(DK~wzY+Sx9xX4%"),
            ["s~qviTBtGS(DK~wzY+Sx9xX4%"]
        );
        assert_eq!(found("su -\nMAQ5~(:UxJ[eq!N2?"), ["MAQ5~(:UxJ[eq!N2?"]);
        assert_eq!(found("u: ops  p: +o5jXv@3abTAJHe*RU6SKB3+"), ["+o5jXv@3abTAJHe*RU6SKB3+"]);
        assert_eq!(found("svc_backup -> JQ~EwSctpLx@yMuaCMo!QK9+"), ["JQ~EwSctpLx@yMuaCMo!QK9+"]);
        assert_eq!(found("Generated: rRnV#=7L%Q*mhL^#38GJw@"), ["rRnV#=7L%Q*mhL^#38GJw@"]);
        // One strong symbol beside symbols of another kind.
        assert_eq!(found("copied from the vault: YTOPV5I.msHYrRZf0F6+"), ["YTOPV5I.msHYrRZf0F6+"]);
    }

    #[test]
    fn code_and_symbol_rich_words_out_of_context_stay() {
        for text in [
            "s~qviTBtGS(DK~wzY+Sx9xX4%",
            "x = a[i]+B[j]*C2-D3;",
            "user.setName(Foo::Bar2::Baz());",
            "ssh -o StrictHostKeyChecking=no root@host",
            "sudo date +%Y-%m-%dT%H:%M:%SZ",
            "login: [A-Za-z0-9+=]{20,40}",
            "admin\n\nHTTP_X_FORWARDED_FOR=1.2.3.4",
            "root  Makefile.am:12: AM_INIT_AUTOMAKE([1.11 foreign])",
            "FUNC:__cxa_bad_cast@@CXXABI_1.3",
            "ASN1_PCTX_get_flags(const ASN1_PCTX *p);",
            "user = Some(a*b+C2**D3);",
            "    ciptr->priv=(char *)&LOCALtrans2devtab[i];",
            "SRP_user_pwd *SRP_VBASE_get1_by_user(SRP_VBASE *vb, char *username);",
        ] {
            assert!(found(text).is_empty(), "{text}");
        }
    }
}
