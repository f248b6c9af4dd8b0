//! Maps from users to their passwords: a map, a section or a table whose name says it holds
//! accounts (`users = { "admin" => "…" }`, `USERS = {'grafana': '…'}`, `[users]` then
//! `ops = "…"`, `accounts:` then `  deploy: …`). A map's key and value are how every config
//! is written, so neither alone says "password"; the map's name does, and then an entry whose
//! key is a login name and whose value is made like a password is an account.
//!
//! Invariant: a range covers one entry's value only; entries are read on the map's line up to
//! its closing bracket, or on the few lines of a section under its header, and only when the
//! value is made like a password as `accounts.rs` judges the second field of a record.

use std::ops::Range;
use std::sync::OnceLock;

use regex::Regex;

use super::structure::regex;

/// How many lines under a section's header (`[users]`, `users:`) are read.
const SECTION_LINES: usize = 12;

/// Ranges of the values of entries of maps named as sets of accounts.
pub(super) fn account_map_values(text: &str, out: &mut Vec<Range<usize>>) {
    static NAME: OnceLock<Option<Regex>> = OnceLock::new();
    static ENTRY: OnceLock<Option<Regex>> = OnceLock::new();
    let lower = text.to_ascii_lowercase();
    if !["user", "account", "login", "credential"].iter().any(|name| lower.contains(name)) {
        return;
    }
    // The map's name ends a word of its own (`users`, `basic_auth_users`, `ACCOUNTS`), then
    // opens a map on its line, or is a section's header alone on its line.
    let (Some(name), Some(entry)) = (
        regex(
            &NAME,
            r"(?im)^[ \t]*(?:\[[ \t]*)?(?:[\w.-]*[_.-])?(?:users|accounts|logins|credentials)[ \t]*(?P<open>(?:=|:|=>)[ \t]*[{(\[]|\][ \t]*$|:[ \t]*$)",
        ),
        regex(
            &ENTRY,
            r#"["']?(?P<user>[a-z][a-z0-9._@-]{1,31})["']?[ \t]*(?::|=>|=)[ \t]*["']?(?P<value>[^\s"',}\]]{8,64})"#,
        ),
    ) else {
        return;
    };
    for found in name.captures_iter(text) {
        let (Some(whole), Some(open)) = (found.get(0), found.name("open")) else { continue };
        let region = if open.as_str().ends_with(['{', '(', '[']) {
            // A map on its line: up to its closing bracket or the line's end.
            let rest = &text[open.end()..];
            let end = rest.find(['}', ')', ']', '\n']).unwrap_or(rest.len());
            open.end()..open.end() + end
        } else {
            // A section: the lines under the header, up to the next header or a blank line.
            let start = whole.end().min(text.len());
            let mut end = start;
            for line in text[start..].split_inclusive('\n').take(SECTION_LINES + 1) {
                let content = line.trim();
                if end > start && (content.is_empty() || content.starts_with('[')) {
                    break;
                }
                end += line.len();
            }
            start..end
        };
        for captures in entry.captures_iter(&text[region.clone()]) {
            let (Some(user), Some(value)) = (captures.name("user"), captures.name("value")) else {
                continue;
            };
            let word = value.as_str().trim_end_matches(['.', ';', ')']);
            if super::accounts::is_login_name(user.as_str())
                && super::accounts::made_like_password(word)
            {
                let start = region.start + value.start();
                out.push(start..start + word.len());
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn found(text: &str) -> Vec<&str> {
        let mut out = Vec::new();
        account_map_values(text, &mut out);
        out.into_iter().map(|span| &text[span]).collect()
    }

    #[test]
    fn a_password_in_a_map_of_accounts_is_found() {
        assert_eq!(found(r#"users = { "admin" => "Willow_sunset_1559" }"#), ["Willow_sunset_1559"]);
        assert_eq!(
            found("USERS = {'grafana': 'Falcon-shadow-Harvest-6496'}"),
            ["Falcon-shadow-Harvest-6496"]
        );
        assert_eq!(
            found("[users]\nops = \"Willow-harvest-7359\"\nci = \"see vault\""),
            ["Willow-harvest-7359"]
        );
        assert_eq!(found("accounts:\n  deploy: Harvest.pebble.4821\n"), ["Harvest.pebble.4821"]);
    }

    #[test]
    fn maps_of_other_things_stay() {
        assert!(found(r#"users = { "alice": "Alice Smith", "bob": "admin" }"#).is_empty());
        assert!(found("[users]\nmax_count = 1024\ndefault_shell = /bin/bash").is_empty());
        assert!(found(r#"settings = { "theme": "Solarized-dark-2024" }"#).is_empty());
        assert!(found("users:\n  - name: alice\n    uid: 1001").is_empty());
    }
}
