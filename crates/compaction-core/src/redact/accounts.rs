//! Passwords that no name introduces, found by what stands around them. Two finders.
//!
//! A user and its password as the two fields of one record: two literals of a tuple or a
//! list (`("admin", "…")`, `["backup", "…"]`), two Markdown code spans (`` `grafana` / `…` ``,
//! `` Sign in as `ops` with `…` ``), two cells of a table row (`| deploy | … |`), or a login
//! name and a word joined by `/`, `+`, `->` or `|` (`login is deploy / …`), or standing alone
//! on a line with a blank, `:` or `,` between (`www-data …`, `jenkins: …`). The first field
//! is a login name (lower case letters, digits, `-`, `_`, `.`; or an address); the second is
//! made like a password: three classes of characters and not a name in code, rich in a
//! generator's symbols, or capitalised words and a number (`Falcon-orbit-761`). A record of
//! a name and a value is how accounts are written down; which user does not matter.
//!
//! A word made like a password in a line of conversation: a line of at least three words of
//! lower-case letters, with no code around (no `=`, `;`, braces, calls), where one word mixes
//! upper and lower case and digits the way a person's or a generator's password does
//! (`try raven-QGBsbS3590 for the vpn`, `got in with badger-YSgiSBK80`).
//! People give passwords in chat without naming them; prose seldom holds such a word.
//!
//! Invariant: a range covers the value field only, never the user or the words around it;
//! a value is taken only when it is made like a password as above.

use std::ops::Range;
use std::sync::OnceLock;

use regex::Regex;

use super::checks::is_camel_case_name;
use super::nearby::{judged_bare, judged_secret};
use super::structure::regex;
use super::unnamed::symbol_rich;

/// Whether `name` is a login name: 2 to 32 characters of lower-case letters, digits, `-`,
/// `_`, `.`, starting with a letter, or an address `user@host`.
fn is_login_name(name: &str) -> bool {
    let (user, host) = name.split_once('@').unwrap_or((name, ""));
    (2..=32).contains(&user.len())
        && user.starts_with(|c: char| c.is_ascii_lowercase())
        && user.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || "-_.".contains(c))
        && host.chars().all(|c| c.is_ascii_alphanumeric() || "-.".contains(c))
}

/// Whether `value` is capitalised words and a number joined by one separator
/// (`Falcon-orbit-761`, `River.orbit.Quartz.2921`): two words of four letters or more, one
/// of them capitalised, and a number of three or four digits at the end.
fn is_words_and_number(value: &str) -> bool {
    let Some(sep) = ['-', '.', '_'].into_iter().find(|sep| value.contains(*sep)) else {
        return false;
    };
    let parts: Vec<&str> = value.split(sep).collect();
    let Some((number, words)) = parts.split_last() else { return false };
    (3..=4).contains(&number.len())
        && number.bytes().all(|b| b.is_ascii_digit())
        && words.len() >= 2
        && words.iter().all(|word| {
            word.len() >= 4
                && word.bytes().all(|b| b.is_ascii_alphabetic())
                && word[1..].bytes().all(|b| b.is_ascii_lowercase())
        })
        && words.iter().any(|word| word.starts_with(|c: char| c.is_ascii_uppercase()))
}

/// Whether `value`, a field standing bare after a login name (no quotes or code spans mark
/// the fields), is made like a password: symbol-rich, words and a number, or mixed as
/// [`mixed_like_password`] says; a bare word of code after a type or a keyword
/// (`int dbgCachedRVTs`, `char name[NAME_MAX+1]`) is none of them.
fn bare_like_password(value: &str) -> bool {
    // A call with its arguments (`Log(2)`, `type((_CharT*)0`) is code.
    let call = value
        .as_bytes()
        .windows(2)
        .position(|pair| pair[0].is_ascii_alphanumeric() && pair[1] == b'(')
        .is_some_and(|at| value[at..].contains(')'));
    (8..=64).contains(&value.len())
        && !call
        && !value.contains("((")
        && (symbol_rich(value) || is_words_and_number(value) || mixed_like_password(value))
}

/// Whether `value`, the field after a login name, is made like a password.
fn made_like_password(value: &str) -> bool {
    (8..=64).contains(&value.len())
        && (symbol_rich(value)
            || is_words_and_number(value)
            || judged_bare("", value)
            || mixed_like_password(value))
}

/// Ranges of the value fields of records of a login name and a password.
pub(super) fn user_and_password_fields(text: &str, out: &mut Vec<Range<usize>>) {
    static QUOTED: OnceLock<Option<Regex>> = OnceLock::new();
    static SPANS: OnceLock<Option<Regex>> = OnceLock::new();
    static JOINED: OnceLock<Option<Regex>> = OnceLock::new();
    static ALONE: OnceLock<Option<Regex>> = OnceLock::new();
    let mut found = |captures: regex::Captures<'_>, bare: bool| {
        let (Some(user), Some(value)) = (captures.name("user"), captures.name("value")) else {
            return;
        };
        let word = value.as_str().trim_end_matches(['.', ',', ';', ')']);
        let judged = if bare { bare_like_password(word) } else { made_like_password(word) };
        if is_login_name(user.as_str()) && judged {
            out.push(value.start()..value.start() + word.len());
        }
    };
    // Two literals of a tuple, a list or a set.
    if text.contains(['"', '\''])
        && let Some(quoted) = regex(
            &QUOTED,
            r#"[(\[{]\s*(["'])(?P<user>[a-z][a-z0-9._@-]{1,40})["']\s*,\s*["'](?P<value>[^"'\s]{8,64})["']"#,
        )
    {
        quoted.captures_iter(text).for_each(|captures| found(captures, false));
    }
    // Two code spans with at most three words between.
    if text.contains('`')
        && let Some(spans) = regex(
            &SPANS,
            r"`(?P<user>[a-z][a-z0-9._@-]{1,40})`[^`\n]{0,24}?`(?P<value>[^`\s]{8,64})`",
        )
    {
        for captures in spans.captures_iter(text) {
            let between = captures.get(0).map_or("", |whole| whole.as_str());
            let inner = between.split('`').nth(2).unwrap_or("");
            if inner.split_whitespace().count() <= 3 {
                found(captures, false);
            }
        }
    }
    // A login name and a word joined by `/`, `+`, `->` or `|` with blanks around.
    if let Some(joined) = regex(
        &JOINED,
        r"(?m)(?:^|[\s(`*|])(?P<user>[a-z][a-z0-9._@-]{1,40})\s+(?:/|\+|->|\|)\s+(?P<value>[^\s`|]{8,64})",
    ) {
        joined.captures_iter(text).for_each(|captures| found(captures, true));
    }
    // A line that is a login name and a word (a list item or a quote mark before them).
    if let Some(alone) = regex(
        &ALONE,
        r"(?m)^[ \t]*(?:[-*>|][ \t]*)?(?P<user>[a-z][a-z0-9._@-]{1,40})(?:[ \t]+|[ \t]*[:,][ \t]*)(?P<value>[^\s]{8,64})[ \t|]*\r?$",
    ) {
        alone.captures_iter(text).for_each(|captures| found(captures, true));
    }
}

/// Whether `line` reads as conversation: at least three words of lower-case letters, and
/// none of the marks of code (`=`, `;`, braces, a call's `(` glued to a name).
fn is_conversation(line: &str) -> bool {
    // A comment of code or a config (`* …`, `# …`, `/* … */`) is documentation, not chat.
    let lead = line.trim_start();
    if line.contains(['=', ';', '{', '}', '<', '>', '$', '\\'])
        || line.contains("//")
        || line.contains("::")
        || line.contains("*/")
        || lead.starts_with(['*', '#', '/', '%', '@', '!'])
        || lead.starts_with("--")
    {
        return false;
    }
    let bytes = line.as_bytes();
    if bytes.windows(2).any(|pair| pair[0].is_ascii_alphanumeric() && pair[1] == b'(') {
        return false;
    }
    line.split(|c: char| c.is_whitespace() || ",.!?:'\"".contains(c))
        .filter(|word| word.len() >= 2 && word.bytes().all(|b| b.is_ascii_lowercase()))
        .count()
        >= 3
}

/// Whether `word` mixes upper and lower case and digits the way a password does: a part
/// (between `-`, `_`, `.`) of five characters or more holding all three and no name in
/// CamelCase (`raven-QGBsbS3590`, `HFf4xut8QXjcbgepi`); and no name in code, version, path
/// or address (the judgement of a value after a name).
fn mixed_like_password(word: &str) -> bool {
    // Letters whose case changes twice or more, not words in CamelCase (`QGBsbS3590`, not
    // `ChaCha20`, `Poly1305`, `LGPLv2`, `0xMNN00PP0L`).
    let mixed = |part: &str| {
        let letters: String = part.chars().filter(char::is_ascii_alphabetic).collect();
        let changes = letters
            .as_bytes()
            .windows(2)
            .filter(|pair| pair[0].is_ascii_uppercase() != pair[1].is_ascii_uppercase())
            .count();
        part.len() >= 5
            && part.bytes().filter(u8::is_ascii_uppercase).count() >= 2
            && part.bytes().filter(u8::is_ascii_lowercase).count() >= 2
            && part.bytes().any(|b| b.is_ascii_digit())
            && changes >= 2
            && !part.starts_with("0x")
            && !is_camel_case_name(&letters)
    };
    (8..=40).contains(&word.len())
        && word.bytes().all(|b| b.is_ascii_alphanumeric() || b"-_.!#%+=?@^~*&".contains(&b))
        && (word.split(['-', '_', '.']).any(mixed))
        && !is_camel_case_name(word)
        && judged_secret("", word)
}

/// Whether `word` is a word a person chose and a tail drawn at random from lower-case letters
/// and digits, with one capital or none (`cedar-ec7t517`, `willowr66Eg3z39`,
/// `harvest.0sI4hr50`): a word of four letters or more, then (after `-`, `_`, `.` or nothing)
/// five characters or more of letters and digits where digits stand in two runs or more with
/// a letter between them, three digits or more, two letters or more, not all of them
/// hexadecimal. A version or a name in code keeps its digits in one run or splits them with
/// marks (`python3.11`, `x86_64`, `utf8mb4`, `windows10x64`); a hash is hexadecimal.
fn word_and_drawn_tail(word: &str) -> bool {
    if !(9..=40).contains(&word.len())
        || word.bytes().filter(u8::is_ascii_uppercase).count() > 1
        || !word.bytes().all(|b| b.is_ascii_alphanumeric() || b"-_.".contains(&b))
    {
        return false;
    }
    let lead = word.bytes().take_while(u8::is_ascii_lowercase).count();
    let Some(tail) =
        word.get(lead..).map(|rest| rest.strip_prefix(['-', '_', '.']).unwrap_or(rest))
    else {
        return false;
    };
    let digits = tail.bytes().filter(u8::is_ascii_digit).count();
    let letters = tail.bytes().filter(u8::is_ascii_alphabetic).count();
    // Digit runs with a letter between two of them.
    let runs = tail.split(|c: char| !c.is_ascii_digit()).filter(|run| !run.is_empty()).count();
    let interleaved =
        tail.trim_matches(|c: char| c.is_ascii_digit()).contains(|c: char| c.is_ascii_digit());
    lead >= 4
        && tail.len() >= 5
        && tail.bytes().all(|b| b.is_ascii_alphanumeric())
        && digits >= 3
        && letters >= 2
        && runs >= 2
        && interleaved
        && !tail.bytes().all(|b| b.is_ascii_hexdigit())
        && judged_secret("", word)
}

/// Ranges of words made like passwords in lines of conversation.
pub(super) fn conversation_passwords(text: &str, out: &mut Vec<Range<usize>>) {
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        let start = offset;
        offset += line.len();
        if line.len() > 240 || !is_conversation(line) {
            continue;
        }
        let mut at = 0;
        for word in line.split_inclusive(|c: char| c.is_whitespace()) {
            let word_at = at;
            at += word.len();
            // A code span is code, not a word of the conversation.
            if word.contains('`') {
                continue;
            }
            let trimmed = word.trim_end().trim_end_matches([',', '.', '!', '?', ':', ')']);
            let lead = trimmed.len() - trimmed.trim_start_matches(['(', '"', '\'', '`']).len();
            let value = &trimmed[lead..];
            let value = value.trim_end_matches(['"', '\'', '`']);
            if mixed_like_password(value) || word_and_drawn_tail(value) {
                out.push(start + word_at + lead..start + word_at + lead + value.len());
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fields(text: &str) -> Vec<&str> {
        let mut out = Vec::new();
        user_and_password_fields(text, &mut out);
        out.into_iter().map(|span| &text[span]).collect()
    }

    fn chat(text: &str) -> Vec<&str> {
        let mut out = Vec::new();
        conversation_passwords(text, &mut out);
        out.into_iter().map(|span| &text[span]).collect()
    }

    #[test]
    fn a_user_and_a_password_as_two_fields_are_found() {
        assert_eq!(fields(r#"USERS = [("admin", "Orbit.tulip.1024")]"#), ["Orbit.tulip.1024"]);
        assert_eq!(fields(r#"{"svc-report", "Maple-ember-6207"},"#), ["Maple-ember-6207"]);
        assert_eq!(fields("`grafana` / `-d!vmsxQ3-#T^-o2AK4@`"), ["-d!vmsxQ3-#T^-o2AK4@"]);
        assert_eq!(fields("Sign in as `ops` with `Tq9#vX2mLp!`."), ["Tq9#vX2mLp!"]);
        assert_eq!(fields("| deploy | River.orbit.Quartz.2921 |"), ["River.orbit.Quartz.2921"]);
        assert_eq!(fields("www-data X#S[d8jN6fcQg7T2au?SY8%"), ["X#S[d8jN6fcQg7T2au?SY8%"]);
        assert_eq!(fields("jenkins: xRHjFY:Th7ZSv^][uRPK2?"), ["xRHjFY:Th7ZSv^][uRPK2?"]);
        assert_eq!(fields("login is deploy / cedar-eC7tFq517"), ["cedar-eC7tFq517"]);
    }

    #[test]
    fn names_and_values_that_are_no_account_stay() {
        for text in [
            r#"headers = [("content-type", "application/json")]"#,
            r#"("timeout", "30"), ("region", "eu-west-1")"#,
            "`make` / `make install`",
            "| name | Description of the field |",
            "version: 2.14.0-rc1",
            "int a / sizeof(BufferSize)",
            "see: https://example.org/a/b",
            "Depends: libc6 (>= 2.34)",
            "license: GPL-2.0-or-later",
            "    int	dbgCachedRVTs",
            "	char name[NAME_MAX+1];",
            "	if (IN6_IS_ADDR_LOOPBACK(&saddr6.sin6_addr))",
            "          return &DS.Stack[Pos-1];",
            "                          llvm_v8i16_ty, llvm_v8i16_ty],",
            "struct ChaCha20Poly1305ContextStr;",
            "dmetrics e!bit_FM",
            "      if (!_S_is_basic_char_type((_CharT*)0))",
            " *     pkt:=2.00743*Log(2)*k*2^-k*(A+B);",
        ] {
            assert!(fields(text).is_empty(), "{text}");
        }
    }

    #[test]
    fn a_password_in_a_line_of_conversation_is_found() {
        assert_eq!(chat("juniper-iConeoB84 should work for the router"), ["juniper-iConeoB84"]);
        assert_eq!(chat("creds are ops and raven-QGBsbS3590"), ["raven-QGBsbS3590"]);
        assert_eq!(chat("got in with badger-YSgiSBK80 👍"), ["badger-YSgiSBK80"]);
        assert_eq!(chat("try cedar-8ObiJOa82 for the jumpbox"), ["cedar-8ObiJOa82"]);
        // A word and a drawn tail of lower-case letters and digits, one capital or none.
        assert_eq!(chat("ok try willowr66Eg3z39 for the jumpbox"), ["willowr66Eg3z39"]);
        assert_eq!(chat("the wifi in the lab is harvest.0sI4hr50"), ["harvest.0sI4hr50"]);
    }

    #[test]
    fn words_of_prose_and_code_stay() {
        for text in [
            "this package was built for x86_64 and aarch64 with GCC12 support",
            "the release of python3.11 and utf8mb4 on x86_64 for windows10x64 builds",
            "fixed in commit 3f2a9c1be4 for the release",
            "the build of libx264v2 and ffmpeg-4.4.2 for the arm64 box",
            "see the table kerberos5 and the mp4v2 tools in the docs",
            "see the README.md file for the details of OpenSSL3",
            "the value of maxBufferSize2 is set in config.h",
            "it's set by getUserName2(id) for the account",
            "uses SHA256 and the Base64Url encoding for the token",
            "the IPv6 address and the Qt5Core library are linked",
            "   *   list of FreeType~2 modules that are statically linked to new library",
            "i.e. LGPLv2.1+ for the main library and GPLv3+ for Gnutls extra.",
            "The more recent ChaCha-Poly1305 may also be an attractive but",
            " * Prioritize Chacha20Poly1305 when client does.",
            "The `'hash'` and `'mgf1Hash'` options are replaced with `'hashAlgorithm'`",
            "indicators at the end of the name.  For example 64Sto32U means a",
            "#	tests most of dc.sed:	echo 16oAk2vp | dc.sed",
            "ping time in 49.152MHz clocks if the code is complete",
        ] {
            assert!(chat(text).is_empty(), "{text}");
        }
    }
}

/// Which finder takes each line of a false-positive report (`PROBE=report.txt cargo test -p
/// compaction-core --lib probe_lines -- --ignored --nocapture`): the lines each of this module's
/// finders and the finders beside it take, with what they take.
#[cfg(test)]
mod probe {
    #[test]
    #[ignore = "probe"]
    fn probe_lines() {
        let Ok(path) = std::env::var("PROBE") else { return };
        let text = std::fs::read_to_string(path).unwrap();
        for line in text.lines() {
            let line = line.split_once(": ").map_or(line, |(_, rest)| rest);
            let mut tags = Vec::new();
            let mut out = Vec::new();
            super::user_and_password_fields(line, &mut out);
            if !out.is_empty() {
                tags.push(format!(
                    "fields{:?}",
                    out.iter().map(|s| &line[s.clone()]).collect::<Vec<_>>()
                ));
            }
            out.clear();
            super::conversation_passwords(line, &mut out);
            if !out.is_empty() {
                tags.push(format!(
                    "chat{:?}",
                    out.iter().map(|s| &line[s.clone()]).collect::<Vec<_>>()
                ));
            }
            out.clear();
            super::super::unnamed::unnamed_passwords(line, &mut out);
            if !out.is_empty() {
                tags.push(format!(
                    "unnamed{:?}",
                    out.iter().map(|s| &line[s.clone()]).collect::<Vec<_>>()
                ));
            }
            out.clear();
            super::super::nearby::values_after_names(line, &mut out);
            if !out.is_empty() {
                tags.push(format!(
                    "nearby{:?}",
                    out.iter().map(|s| &line[s.clone()]).collect::<Vec<_>>()
                ));
            }
            out.clear();
            super::super::preceding::values_before_names(line, &mut out);
            if !out.is_empty() {
                tags.push(format!(
                    "preceding{:?}",
                    out.iter().map(|s| &line[s.clone()]).collect::<Vec<_>>()
                ));
            }
            out.clear();
            super::super::phrases::continued_runs(line, &mut out);
            if !out.is_empty() {
                tags.push("continued".to_owned());
            }
            if !tags.is_empty() {
                println!("{} || {}", tags.join(" "), &line[..line.len().min(160)]);
            }
        }
    }
}
