//! A value on the line after its name: a line that is only a secret's name (`DB_PASSWORD:`,
//! `/config/ledger/password`, `Your new API key`, `value:` under `- name: API_TOKEN`), then,
//! past blank lines and rule lines (`----`), a line that is only one value made like a
//! password. Describe output (`DB_PASS:` ⏎ `----` ⏎ `…`), key stores that print a key then
//! its value, `strings … | grep -A1`, YAML whose scalar continues on the next line and notes
//! copied from a web page all put a name and its value on two lines.
//!
//! Invariant: a range covers the one value of the line found, made like a password (see
//! [`super::tables`]), never a path, a URL, a reference or words.

use std::ops::Range;

use super::columns::secret_header;
use super::tables::made_like_a_password;

/// Lines looked at after a name for its value (blank and rule lines included).
const LOOKAHEAD: usize = 3;

/// Ranges of values on a line of their own after a line that names a secret.
pub(super) fn values_on_the_next_line(text: &str, out: &mut Vec<Range<usize>>) {
    if super::s21_off("nextline") {
        return;
    }
    let mut lines = Vec::new();
    let mut at = 0;
    for line in text.split('\n') {
        lines.push((at, line.strip_suffix('\r').unwrap_or(line)));
        at += line.len() + 1;
    }
    for (index, &(_, line)) in lines.iter().enumerate() {
        if !names_a_secret_alone(line, lines.get(index.wrapping_sub(1)).map(|l| l.1)) {
            continue;
        }
        for &(start, next) in lines.iter().skip(index + 1).take(LOOKAHEAD) {
            let trimmed = next.trim();
            if trimmed.is_empty() || !trimmed.chars().any(char::is_alphanumeric) {
                continue;
            }
            let value = trimmed.trim_matches(['"', '\'', '`']);
            if value.len() >= 6
                && value.len() <= 128
                && !value.contains(char::is_whitespace)
                && !value.starts_with(['/', '.', '~', '$', '{', '<', '%', '-', '#', '['])
                && !value.contains("://")
                && !value.ends_with(':')
                && made_like_a_password(value)
            {
                let inner = next.find(value).unwrap_or(0);
                out.push(start + inner..start + inner + value.len());
            }
            break;
        }
    }
}

/// Whether `line` is only a secret's name (a key, a path, a short label, with a `:` or `=`
/// after it), or a YAML `value:` with nothing after it under `- name: <secret's name>`.
fn names_a_secret_alone(line: &str, previous: Option<&str>) -> bool {
    let trimmed = line.trim().trim_start_matches("- ");
    let name = trimmed.trim_end_matches([':', '=', ' ']).trim_matches(['"', '\'']);
    if name.is_empty() || name.len() > 64 || name.split_whitespace().count() > 4 {
        return false;
    }
    if name.eq_ignore_ascii_case("value")
        && trimmed.ends_with(':')
        && let Some(previous) = previous
        && let Some(named) = previous.trim().trim_start_matches("- ").strip_prefix("name:")
    {
        return secret_header(named.trim().trim_matches(['"', '\'']));
    }
    name.chars().all(|c| c.is_alphanumeric() || " _-./:".contains(c)) && secret_header(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn found(text: &str) -> Vec<&str> {
        let mut out = Vec::new();
        values_on_the_next_line(text, &mut out);
        out.into_iter().map(|span| &text[span]).collect()
    }

    #[test]
    fn values_after_a_name_alone_are_found() {
        assert_eq!(found("DB_PASS:\n----\nHeron%7712\n"), ["Heron%7712"]);
        assert_eq!(found("/config/ops/password\nPlover-ivy-81\n"), ["Plover-ivy-81"]);
        assert_eq!(found("Your new API key\n\n    maple5359x\n"), ["maple5359x"]);
        assert_eq!(
            found("- name: API_TOKEN\n  value:\n    \"5gEOiQ2p20oXwmdKUPf4\"\n"),
            ["5gEOiQ2p20oXwmdKUPf4"]
        );
    }

    #[test]
    fn names_followed_by_other_lines_are_left_alone() {
        assert!(found("password:\n  type: string\n").is_empty());
        assert!(found("Password\n--------\nThe password used to sign in.\n").is_empty());
        assert!(found("token:\n  /var/run/secrets/token\n").is_empty());
        assert!(found("secret:\n  enabled\n").is_empty());
        assert!(found("password:\n- ${DB_PASSWORD}\n").is_empty());
    }
}
