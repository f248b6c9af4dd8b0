//! Passwords as the values of a map named for users: `users = { "admin" => "…" }`,
//! `USERS = {'grafana': '…'}`, a `[users]` section of `name = "…"` lines, a YAML `accounts:`
//! block of `name: …` lines. The map's name says its keys are accounts; a value made like a
//! password under a login name is that account's password, whatever the syntax.
//!
//! Invariant: a range covers a value only, and only one made like a password (the judgement of
//! a record's password field) under a key that is a login name.

use std::ops::Range;
use std::sync::OnceLock;

use regex::Regex;

use super::structure::regex;

/// The names of a map whose keys are accounts.
const MAP_NAMES: &str = r"(?:users|accounts|logins|credentials|passwords|user_passwords)";

/// Ranges of values made like passwords under a login name in a map named for users.
pub(super) fn user_map_values(text: &str, out: &mut Vec<Range<usize>>) {
    static INLINE: OnceLock<Option<Regex>> = OnceLock::new();
    static BLOCK: OnceLock<Option<Regex>> = OnceLock::new();
    static ENTRY: OnceLock<Option<Regex>> = OnceLock::new();
    let lower = text.to_ascii_lowercase();
    if !["user", "account", "login", "credential", "password"].iter().any(|n| lower.contains(n)) {
        return;
    }
    let Some(entry) = regex(
        &ENTRY,
        r#"(?m)(?:^|[{,\s])["']?(?P<user>[a-z][a-z0-9._@-]{1,40})["']?[ \t]*(?:=>|=|:)[ \t]*(?P<q>["']?)(?P<value>[^"'\s,}]{8,64})"#,
    ) else {
        return;
    };
    let mut take = |body: &str, base: usize| {
        for captures in entry.captures_iter(body) {
            let (Some(user), Some(value)) = (captures.name("user"), captures.name("value")) else {
                continue;
            };
            let word = value.as_str();
            if super::accounts::is_login_name(user.as_str())
                && super::accounts::made_like_password(word)
            {
                out.push(base + value.start()..base + value.end());
            }
        }
    };
    // An inline map after the name: `users = { … }`, `USERS = {…}`, `users: {…}`.
    if let Some(inline) = regex(
        &INLINE,
        &format!(r"(?i)\b{MAP_NAMES}\b[ \t]*(?:=>|:=|=|:)[ \t]*\{{(?P<body>[^{{}}\n]{{1,400}})\}}"),
    ) {
        for captures in inline.captures_iter(text) {
            if let Some(body) = captures.name("body") {
                take(body.as_str(), body.start());
            }
        }
    }
    // A section or a block headed by the name: `[users]`, `users:` and the lines under it,
    // up to a blank line or the next section.
    if let Some(block) = regex(
        &BLOCK,
        &format!(
            r"(?im)^[ \t]*(?:\[{MAP_NAMES}\]|{MAP_NAMES}:)[ \t]*\r?\n(?P<body>(?:[ \t]*[^\s\[][^\n]*\n?){{1,12}})"
        ),
    ) {
        for captures in block.captures_iter(text) {
            if let Some(body) = captures.name("body") {
                take(body.as_str(), body.start());
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn found(text: &str) -> Vec<&str> {
        let mut out = Vec::new();
        user_map_values(text, &mut out);
        out.into_iter().map(|span| &text[span]).collect()
    }

    #[test]
    fn passwords_in_a_map_named_for_users_are_found() {
        assert_eq!(
            found(r#"users = { "admin" => "Harvest-harvest-Lantern-8978" }"#),
            ["Harvest-harvest-Lantern-8978"]
        );
        assert_eq!(
            found("USERS = {'grafana': 'Falcon-shadow-Harvest-6496'}"),
            ["Falcon-shadow-Harvest-6496"]
        );
        assert_eq!(
            found("[users]\nops = \"Willow-harvest-7359\"\nci = \"see vault\"\n"),
            ["Willow-harvest-7359"]
        );
        assert_eq!(found("accounts:\n  deploy: Gq7#vR2mLx9p\n"), ["Gq7#vR2mLx9p"]);
    }

    #[test]
    fn maps_of_other_values_stay() {
        assert!(found("users = { \"admin\" => \"administrator\" }").is_empty());
        assert!(found("[users]\nmax_connections = 100\nhome_dir = /home/users\n").is_empty());
        assert!(found("accounts:\n  default: AccountService\n").is_empty());
        assert!(found("settings = { 'admin': 'Harvest-harvest-Lantern-8978' }").is_empty());
    }
}
