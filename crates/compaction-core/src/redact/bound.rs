//! Values bound to a statement's placeholders: a SQL statement whose column list pairs a
//! secret's column with a placeholder (`insert into app_user (login, password) values (?,
//! ?)`, `SET password = ?`, `$2`), then the values bound to it in the log lines that follow
//! (Hibernate's `binding parameter [2] as [VARCHAR] - [...]`, JDBC's `setString(2, "...")`,
//! PostgreSQL's `parameters: $2 = '...'`, a list after the statement, `; admin,...`, or a
//! tuple on the next line, `('admin', '...')`). The statement names the column; the position
//! pairs it with its value.
//!
//! Invariant: a range covers one bound value, at the position of a placeholder whose column
//! names a secret, within a few lines after the statement.

use std::ops::Range;
use std::sync::OnceLock;

use regex::Regex;

use super::columns::secret_header;

/// Lines after a statement where its bound values are looked for.
const BINDING_LINES: usize = 8;

/// Ranges of values bound to a placeholder of a secret's column.
pub(super) fn bound_values(text: &str, out: &mut Vec<Range<usize>>) {
    if super::s21_off("bound") || !text.contains(['?', '$']) {
        return;
    }
    static INSERT: OnceLock<Option<Regex>> = OnceLock::new();
    static SET: OnceLock<Option<Regex>> = OnceLock::new();
    static BINDING: OnceLock<Option<Regex>> = OnceLock::new();
    let (Some(insert), Some(set), Some(binding)) = (
        INSERT
            .get_or_init(|| {
                Regex::new(r"(?i)\binsert\s+into\s+[`\x22\w.\[\]]+\s*\(([^()\n]{1,400})\)\s*values\s*\(([^()\n]{1,400})\)").ok()
            })
            .as_ref(),
        SET.get_or_init(|| Regex::new(r"(?i)[`\x22\[]?(\w+)[`\x22\]]?\s*=\s*(\?|\$\d+)").ok())
            .as_ref(),
        BINDING
            .get_or_init(|| {
                Regex::new(concat!(
                    r"(?i)binding parameter \[(\d+)\] as \[\w+\] - \[([^\]\n]{1,200})\]",
                    r#"|\bset\w+\((\d+),\s*"([^"\n]{1,200})"\)"#,
                    r"|\$(\d+) = '([^'\n]{1,200})'",
                ))
                .ok()
            })
            .as_ref(),
    ) else {
        return;
    };
    let mut line_starts = vec![0];
    line_starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
    let line_of = |at: usize| line_starts.partition_point(|&start| start <= at) - 1;
    // Each statement's line, and the placeholder positions (1-based) of secret columns.
    let mut statements: Vec<(usize, usize, Vec<usize>)> = Vec::new();
    for found in insert.captures_iter(text) {
        let (Some(whole), Some(columns), Some(values)) = (found.get(0), found.get(1), found.get(2))
        else {
            continue;
        };
        let columns: Vec<&str> = columns.as_str().split(',').collect();
        let values: Vec<&str> = values.as_str().split(',').collect();
        if columns.len() != values.len() {
            continue;
        }
        let mut placeholder = 0;
        let mut secret = Vec::new();
        for (column, value) in columns.iter().zip(&values) {
            let value = value.trim();
            let position = if value == "?" {
                placeholder += 1;
                placeholder
            } else if let Some(n) = value.strip_prefix('$').and_then(|n| n.parse().ok()) {
                n
            } else {
                continue;
            };
            if secret_header(column.trim().trim_matches(['`', '"', '[', ']'])) {
                secret.push(position);
            }
        }
        statements.push((line_of(whole.start()), whole.end(), secret));
    }
    for (number, line) in text.split('\n').enumerate() {
        if !line.to_ascii_lowercase().contains("update ")
            && !line.to_ascii_lowercase().contains("where ")
        {
            continue;
        }
        let mut placeholder = 0;
        let mut secret = Vec::new();
        for found in set.captures_iter(line) {
            let (Some(column), Some(mark)) = (found.get(1), found.get(2)) else { continue };
            let position = if mark.as_str() == "?" {
                placeholder += 1;
                placeholder
            } else {
                mark.as_str()[1..].parse().unwrap_or(0)
            };
            if secret_header(column.as_str()) {
                secret.push(position);
            }
        }
        if !secret.is_empty() {
            statements.push((number, line_starts[number] + line.len(), secret));
        }
    }
    for (line, statement_end, secret) in statements {
        if secret.is_empty() {
            continue;
        }
        let from = line_starts[line];
        let to = line_starts.get(line + BINDING_LINES + 1).map_or(text.len(), |&end| end);
        let window = &text[from..to];
        let mut found_binding = false;
        for found in binding.captures_iter(window) {
            let pairs = [(1, 2), (3, 4), (5, 6)];
            for (index, value) in pairs {
                let (Some(index), Some(value)) = (found.get(index), found.get(value)) else {
                    continue;
                };
                found_binding = true;
                if index.as_str().parse().is_ok_and(|n: usize| secret.contains(&n))
                    && plain(value.as_str())
                {
                    out.push(from + value.start()..from + value.end());
                }
            }
        }
        if found_binding {
            continue;
        }
        // A list of the bound values after the statement: `; a,b` on its line, or a tuple or
        // list on the next line (`('a', 'b')`, `[a, b]`).
        let rest_of_line = &text[statement_end
            ..text[statement_end..].find('\n').map_or(text.len(), |i| statement_end + i)];
        let list_at = if let Some(semi) = rest_of_line.find(';') {
            Some((statement_end + semi + 1, rest_of_line[semi + 1..].trim_end()))
        } else {
            let next_start = statement_end + rest_of_line.len() + 1;
            text.get(next_start..).and_then(|next| {
                let line = next.split('\n').next().unwrap_or_default();
                let open = line.find(['(', '['])?;
                let close = line.rfind([')', ']'])?;
                (close > open).then(|| (next_start + open + 1, &line[open + 1..close]))
            })
        };
        let Some((list_start, list)) = list_at else { continue };
        let mut at = list_start;
        for (position, item) in list.split(',').enumerate() {
            let lead = item.len() - item.trim_start().len();
            let value = item.trim().trim_matches(['\'', '"']);
            let inner = item.find(value).unwrap_or(lead);
            if secret.contains(&(position + 1)) && plain(value) {
                out.push(at + inner..at + inner + value.len());
            }
            at += item.len() + 1;
        }
    }
}

/// A bound value that may be a secret: four characters or more, no space, not a name of a
/// type or a null.
fn plain(value: &str) -> bool {
    value.len() >= 4
        && value.len() <= 200
        && !value.contains(char::is_whitespace)
        && !["null", "none", "true", "false", "default"]
            .contains(&value.to_ascii_lowercase().as_str())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn found(text: &str) -> Vec<&str> {
        let mut out = Vec::new();
        bound_values(text, &mut out);
        out.into_iter().map(|span| &text[span]).collect()
    }

    #[test]
    fn values_bound_to_a_secret_column_are_found() {
        let hibernate = "insert into app_user (login, password, role) values (?, ?, ?)\nbinding parameter [1] as [VARCHAR] - [ops]\nbinding parameter [2] as [VARCHAR] - [Egret%7123]\nbinding parameter [3] as [VARCHAR] - [admin]";
        assert_eq!(found(hibernate), ["Egret%7123"]);
        let sequelize =
            "INSERT INTO `credentials` (`id`,`user`,`pass`) VALUES (DEFAULT,?,?); admin,rvk%Oecx8";
        assert_eq!(found(sequelize), ["rvk%Oecx8"]);
        let tuple = "INSERT INTO users (name, password) VALUES (?, ?)\n[generated in 0.0001s] ('alice', 'Plover9912')";
        assert_eq!(found(tuple), ["Plover9912"]);
        let update = "UPDATE users SET password = $1 WHERE id = $2\nDETAIL:  parameters: $1 = 'Rowan-ivy-51', $2 = '7'";
        assert_eq!(found(update), ["Rowan-ivy-51"]);
    }

    #[test]
    fn values_bound_to_other_columns_are_left_alone() {
        let other = "insert into app_user (login, role) values (?, ?)\nbinding parameter [1] as [VARCHAR] - [ops]";
        assert!(found(other).is_empty());
        let null = "UPDATE users SET password = ? WHERE id = ?\nbinding parameter [1] as [VARCHAR] - [null]";
        assert!(found(null).is_empty());
    }
}
