//! Entries of a user file: after a line naming a file whose name says it lists users and
//! their passwords (`users.properties`, `realm.properties`, `lighttpd.user`, `/etc/dovecot/
//! users`, `.htpasswd`, `passwd.client`), the lines `login:password`, `login=password` or
//! `login: password,role` that follow it. No name says the value is a password; the file's
//! name and the entry's place after a login do. A value behind a plain-text scheme
//! (`{PLAIN}…`, `{CLEARTEXT}…`) is read past the scheme; a hash (`$apr1$…`, `{SHA}…`) or an
//! obfuscated value (`OBF:…`) is not plain text and stays.
//!
//! Invariant: a range covers one entry's value, never its login; only lines right after the
//! naming line (up to [`MAX_ENTRIES`], comments skipped, a blank line ends them) are read.

use std::ops::Range;

use super::checks::looks_like_password;

/// Most entry lines read after a line naming a user file.
const MAX_ENTRIES: usize = 20;

/// Stems of file names that list users and their passwords.
const STEMS: &[&str] = &["users", "user", "passwd", "htpasswd", "realm", "userdb", "passwords"];

/// Ranges of `text` holding the password of an entry of a user file named just before.
pub(super) fn user_file_entries(text: &str, out: &mut Vec<Range<usize>>) {
    if super::off("user-files") {
        return;
    }
    let mut offset = 0;
    let lines: Vec<(usize, &str)> = text
        .split('\n')
        .map(|line| {
            let at = offset;
            offset += line.len() + 1;
            (at, line)
        })
        .collect();
    let mut index = 0;
    while index < lines.len() {
        let (_, line) = lines[index];
        index += 1;
        if !names_a_user_file(line) {
            continue;
        }
        let mut read = 0;
        while index < lines.len() && read < MAX_ENTRIES {
            let (at, entry) = lines[index];
            let trimmed = entry.trim_end_matches('\r');
            if trimmed.trim().is_empty() {
                break;
            }
            index += 1;
            if trimmed.starts_with('#') {
                continue;
            }
            read += 1;
            match entry_value(trimmed) {
                Some(range) => out.push(at + range.start..at + range.end),
                None if !is_entry(trimmed) => break,
                None => {}
            }
        }
    }
}

/// Whether `line` names a file whose name lists users (`# conf/users.properties`, `$ cat
/// /etc/lighttpd/lighttpd.user`).
fn names_a_user_file(line: &str) -> bool {
    line.len() <= 200
        && line.split_whitespace().any(|word| {
            let word = word.trim_matches(|c: char| !(c.is_ascii_alphanumeric() || c == '.'));
            if !word.contains(['/', '.']) {
                return false;
            }
            let base = word.rsplit('/').next().unwrap_or(word).to_ascii_lowercase();
            let base = base.trim_start_matches('.');
            let stem = base.split('.').next().unwrap_or(base);
            let extension = base.rsplit_once('.').map(|(_, ext)| ext);
            base != "passwd" && STEMS.contains(&stem)
                || extension.is_some_and(|ext| STEMS.contains(&ext))
        })
}

/// Whether `line` is made like an entry: a login, then `:` or `=`.
fn is_entry(line: &str) -> bool {
    let login = line.bytes().take_while(|b| b.is_ascii_alphanumeric() || b"_.-*".contains(b));
    let length = login.count();
    (1..=64).contains(&length) && matches!(line.as_bytes().get(length), Some(b':' | b'=' | b' '))
}

/// The range of an entry's password in `line`, when it holds one made like a password.
fn entry_value(line: &str) -> Option<Range<usize>> {
    if !is_entry(line) {
        return None;
    }
    let login = line.bytes().take_while(|b| b.is_ascii_alphanumeric() || b"_.-*".contains(b));
    let mut start = login.count();
    let bytes = line.as_bytes();
    while start < bytes.len() && matches!(bytes[start], b' ' | b'\t' | b':' | b'=') {
        start += 1;
    }
    let rest = &line[start..];
    for scheme in ["{plain}", "{cleartext}", "{clear}", "{plaintext}"] {
        if rest.len() > scheme.len() && rest[..scheme.len()].eq_ignore_ascii_case(scheme) {
            start += scheme.len();
            break;
        }
    }
    let length = line[start..].find([':', ',', ' ', '\t']).unwrap_or(line.len() - start);
    let value = &line[start..start + length];
    let hashed = value.starts_with(['$', '{', '!', '*']);
    (!hashed && looks_like_password(value) && value.len() >= 6).then_some(start..start + length)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn found(text: &str) -> Vec<&str> {
        let mut out = Vec::new();
        user_file_entries(text, &mut out);
        out.into_iter().map(|range| &text[range]).collect()
    }

    #[test]
    fn entries_after_a_user_file_are_found() {
        assert_eq!(
            found("# conf/users.properties\nops=Cypress5179\nmon=OBF:1uh8"),
            ["Cypress5179"]
        );
        assert_eq!(found("$ cat /etc/lighttpd/lighttpd.user\njdoe:larch704"), ["larch704"]);
        assert_eq!(found("# etc/realm.properties\nops: q9extN9Cx,admin,user"), ["q9extN9Cx"]);
        assert_eq!(
            found("# /etc/dovecot/users\nops:{PLAIN}oC6Spf#Vu8:1001:1001::"),
            ["oC6Spf#Vu8"]
        );
    }

    #[test]
    fn hashes_and_other_files_are_left() {
        assert!(found("$ cat .htpasswd\nops:$apr1$x8Kd$Q2bq0e9a1bC").is_empty());
        assert!(found("$ cat /etc/passwd\nroot:x:0:0:root:/root:/bin/bash").is_empty());
        assert!(found("# config.properties\nhost=db2024x").is_empty());
        assert!(found("# users.properties\n\nops=Cypress5179").is_empty());
    }
}
