//! Secrets in the columns of a delimited table: a CSV, TSV or semicolon-separated export
//! (a password manager's, a database dump's, a spreadsheet's) whose header names a secret
//! column (`username,password`, `name\turl\tpassword`), or a table a CLI prints with bars
//! (`| user | host | password |`, box-drawing bars read as `|` by a view). Each row with as
//! many fields as the header gives up the value in that column; rule lines (`+---+`, `├─┼─┤`)
//! between rows are passed over.
//!
//! Invariant: a range covers one field's value, never a delimiter.

use std::ops::Range;
use std::sync::OnceLock;

use aho_corasick::AhoCorasick;

/// Fields of a header that name a secret column.
pub(super) fn secret_column(field: &str) -> bool {
    let lower = field.trim().trim_matches(['"', '\'']).to_ascii_lowercase();
    [
        "password",
        "passwd",
        "pass",
        "pwd",
        "secret",
        "token",
        "api_key",
        "apikey",
        "api key",
        "private_key",
        "secret_key",
        "access_token",
        "passphrase",
        "client_secret",
    ]
    .iter()
    .any(|name| lower == *name || lower.ends_with(&format!("_{name}")))
}

/// Ranges of `text` holding a value in a secret column of a delimited table.
pub(super) fn secret_columns(text: &str, out: &mut Vec<Range<usize>>) {
    // A cheap test first: a header is a short line holding a delimiter and a secret word
    // (one pass of a case-insensitive automaton over the text).
    static WORDS: OnceLock<Option<AhoCorasick>> = OnceLock::new();
    let Some(words) = WORDS
        .get_or_init(|| {
            AhoCorasick::builder()
                .ascii_case_insensitive(true)
                .build(["pass", "pwd", "secret", "token", "key"])
                .ok()
        })
        .as_ref()
    else {
        return;
    };
    let header_like = |at: usize| {
        let start = text[..at].rfind('\n').map_or(0, |i| i + 1);
        let end = text[at..].find('\n').map_or(text.len(), |i| at + i);
        end - start <= 400 && text[start..end].contains([',', '\t', ';', '|'])
    };
    if !words.find_iter(text).any(|found| header_like(found.start())) {
        return;
    }
    let lines = lines_at(text);
    let mut index = 0;
    while index < lines.len() {
        let (_, header) = lines[index];
        index += 1;
        let Some(delimiter) = [',', '\t', ';', '|'].into_iter().find(|d| header.contains(*d))
        else {
            continue;
        };
        let bars = delimiter == '|';
        let names: Vec<&str> = header.split(delimiter).collect();
        let columns: Vec<usize> = (0..names.len()).filter(|&i| secret_column(names[i])).collect();
        // A header is a few short names, none of them empty (but the outer cells of a table
        // drawn with bars) or a sentence.
        let last = names.len() - 1;
        if columns.is_empty()
            || names.len() > 30
            || names.iter().enumerate().any(|(i, name)| {
                name.trim().is_empty() && !(bars && (i == 0 || i == last))
                    || name.trim().contains(' ') && name.len() > 24
            })
        {
            continue;
        }
        while index < lines.len() {
            let (start, row) = lines[index];
            // A rule line between the header and the rows, or between rows.
            if bars && !row.is_empty() && !row.chars().any(char::is_alphanumeric) {
                index += 1;
                continue;
            }
            let fields: Vec<&str> = row.split(delimiter).collect();
            if fields.len() != names.len() {
                break;
            }
            index += 1;
            let mut offset = start;
            for (column, field) in fields.iter().enumerate() {
                let value = field.trim().trim_matches('"');
                if columns.contains(&column)
                    && value.len() >= 4
                    && !value.starts_with(['$', '%', '{', '<'])
                    && (!bars || made_like_a_password(value))
                {
                    let inner = field.find(value).unwrap_or(0);
                    out.push(offset + inner..offset + inner + value.len());
                }
                offset += field.len() + 1;
            }
        }
    }
}

/// The lines of `text` (without a `\r` before the newline), each with the byte offset it
/// starts at.
pub(super) fn lines_at(text: &str) -> Vec<(usize, &str)> {
    let mut lines = Vec::new();
    let mut at = 0;
    for line in text.split('\n') {
        lines.push((at, line.strip_suffix('\r').unwrap_or(line)));
        at += line.len() + 1;
    }
    lines
}

/// A value in a table drawn with bars (where a column of descriptions is common): one word,
/// six characters or more, holding a digit or a symbol.
pub(super) fn made_like_a_password(value: &str) -> bool {
    value.len() >= 6
        && !value.contains(char::is_whitespace)
        && value.chars().any(|c| c.is_ascii_digit() || c.is_ascii_punctuation())
        && !value.chars().all(|c| c.is_ascii_digit() || c.is_ascii_punctuation())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn found(text: &str) -> Vec<&str> {
        let mut out = Vec::new();
        secret_columns(text, &mut out);
        out.into_iter().map(|span| &text[span]).collect()
    }

    #[test]
    fn values_under_a_secret_column_are_found() {
        assert_eq!(found("username,password\nadmin,harbor&7489Violet\n"), ["harbor&7489Violet"]);
        assert_eq!(
            found("name\turl\tusername\tpassword\nGitHub\thttps://github.com\talice\tTq8mz\n"),
            ["Tq8mz"]
        );
        assert_eq!(found("id;\"db_password\"\n1;\"Maple42x\"\n"), ["Maple42x"]);
        assert_eq!(
            found("| User  | Password   |\n|-------+------------|\n| admin | Walnut#552 |\n"),
            ["Walnut#552"]
        );
        assert_eq!(
            found(" NAME | TOKEN\n------+------\n ci   | Qp3H6J0HAa83x\n"),
            ["Qp3H6J0HAa83x"]
        );
    }

    #[test]
    fn ordinary_tables_are_left_alone() {
        assert!(found("name,size,type\nfoo,12,file\n").is_empty());
        assert!(found("The password, if any, is read from stdin.\nNext line, here.").is_empty());
        assert!(found("user,password\nalice,${PASSWORD}\n").is_empty());
        // A column of descriptions or numbers under a secret's name.
        assert!(found("| Option | Token |\n|---|---|\n| -t | the token to send |\n").is_empty());
        assert!(found("| id | token |\n| 1 | 12345678 |\n").is_empty());
    }
}
