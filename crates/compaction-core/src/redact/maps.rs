//! Passwords held as the values of a map from login names: a map or section named for users,
//! accounts or logins (`users = { "admin" => "…" }`, `USERS = {'grafana': '…'}`, `[users]` ⏎
//! `ops = "…"`, `basic_auth_users:` ⏎ `  admin: …`). The keys are people or services, so
//! no key names the secret; the container does.
//!
//! Invariant: a range covers one quoted or bare value made like a password (see
//! [`super::tables`]), inside the map's braces or its section (up to the next section, a
//! line at the map's indentation or less, or a blank line).

use std::ops::Range;
use std::sync::OnceLock;

use regex::Regex;

/// Ranges of values of a map from login names to passwords.
pub(super) fn user_maps(text: &str, out: &mut Vec<Range<usize>>) {
    if super::s21_off("maps") {
        return;
    }
    static HEAD: OnceLock<Option<Regex>> = OnceLock::new();
    static ENTRY: OnceLock<Option<Regex>> = OnceLock::new();
    let lower = text.to_ascii_lowercase();
    if !["user", "account", "login"].iter().any(|word| lower.contains(word)) {
        return;
    }
    let Some(head) = HEAD
        .get_or_init(|| {
            Regex::new(
                r#"(?im)^[ \t]*\[?(?:[\w.$-]*[_.-])?(?:users|accounts|logins|user_passwords|basic_auth_users)(?:\]|["']?\s*(?:=>|=|:)\s*(?:\{|\[|dict\(|$))"#,
            )
            .ok()
        })
        .as_ref()
    else {
        return;
    };
    let Some(entry) = ENTRY
        .get_or_init(|| {
            Regex::new(
                r#"(?m)["']?([A-Za-z_][\w.@-]{0,40})["']?\s*(?:=>|:|=)\s*(?:"([^"\s]{6,128})"|'([^'\s]{6,128})'|([^\s"',}{\[\]]{6,128})[ \t]*(?:,|$|\}))"#,
            )
            .ok()
        })
        .as_ref()
    else {
        return;
    };
    for found in head.find_iter(text) {
        // The map's extent: to its closing brace, or the section's or block's end.
        let from = found.end();
        let rest = &text[from..];
        let line_start = text[..found.start()].rfind('\n').map_or(0, |i| i + 1);
        let indent = text[line_start..].len() - text[line_start..].trim_start().len();
        let mut end = from;
        if found.as_str().trim_end().ends_with(['{', '[', '(']) {
            end += rest.find(['}', ']', ')']).unwrap_or(rest.len()).min(2000);
        } else {
            let mut first = true;
            for line in rest.split_inclusive('\n') {
                let body = line.trim_start();
                let lead = line.len() - body.len();
                if !first
                    && (body.trim().is_empty()
                        || body.starts_with('[')
                        || !found.as_str().trim_end().ends_with(']') && lead <= indent)
                {
                    break;
                }
                first = false;
                end += line.len();
                if end - from > 2000 {
                    break;
                }
            }
        }
        for captures in entry.captures_iter(&text[from..end]) {
            let Some(value) = captures.get(2).or(captures.get(3)).or(captures.get(4)) else {
                continue;
            };
            let Some(key) = captures.get(1) else { continue };
            let key = key.as_str().to_ascii_lowercase();
            if ["password", "pass", "name", "user", "username", "host", "role", "email"]
                .contains(&key.as_str())
            {
                continue;
            }
            if super::tables::made_like_a_password(value.as_str())
                && !value.as_str().starts_with(['$', '{', '<', '%', '/', '.', '~'])
                && !value.as_str().contains("://")
            {
                out.push(from + value.start()..from + value.end());
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn found(text: &str) -> Vec<&str> {
        let mut out = Vec::new();
        user_maps(text, &mut out);
        out.into_iter().map(|span| &text[span]).collect()
    }

    #[test]
    fn passwords_in_a_map_of_users_are_found() {
        assert_eq!(found("users = { \"admin\" => \"Heron-ivy-2281\" }"), ["Heron-ivy-2281"]);
        assert_eq!(found("USERS = {'grafana': 'Osprey_lichen_51'}"), ["Osprey_lichen_51"]);
        assert_eq!(
            found("[users]\nops = \"Plover-rowan-71\"\nci = \"see vault\"\n"),
            ["Plover-rowan-71"]
        );
        assert_eq!(found("basic_auth_users:\n  admin: Egret#4471\nport: 80\n"), ["Egret#4471"]);
    }

    #[test]
    fn ordinary_maps_of_users_are_left_alone() {
        assert!(found("users = { \"admin\" => \"Administrator\" }").is_empty());
        assert!(found("[users]\nops = \"/home/ops\"\n").is_empty());
        assert!(found("users:\n  - name: alice\n    role: admin\n").is_empty());
        assert!(found("accounts = {\"alice\": 1024, \"bob\": 2048}").is_empty());
    }
}
