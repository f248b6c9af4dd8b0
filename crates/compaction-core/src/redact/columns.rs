//! Secrets in the columns of tables `tables.rs` does not split: tables aligned with spaces (a
//! query tool's or a CLI's output, `column -t`, a Splunk `table`), header lines that begin
//! with a marker (Zeek's `#fields`, W3C's `#Fields:`), wiki tables (Confluence's `||a||b||`,
//! MediaWiki's `! a !! b`), HTML rows (`<th>`, `<td>`) and LaTeX rows (`a & b \\`). The
//! header names the columns, one of them a secret's (`password`, `cs(X-Api-Password)`,
//! `Passwort`); each row below it with as many cells gives up the value in that column.
//!
//! Invariant: a range covers one cell's value, made like a password (see
//! [`super::tables`]), never a delimiter; a table ends at the first row that does not split
//! into as many cells as its header.

use std::ops::Range;

use super::tables::{lines_at, made_like_a_password, secret_column};

/// How a header splits into cells, and so how its rows do.
#[derive(Clone, Copy, PartialEq)]
enum Style {
    /// Cells apart by a tab or by two spaces or more.
    Aligned,
    /// A marker (`#fields`, `#Fields:`) then cells apart by any whitespace.
    Marked,
    /// `||` or `!!` between header cells, `|` or `||` between row cells.
    Wiki,
    /// `<th>` header cells, `<td>` row cells.
    Html,
    /// `&` between cells, `\\` at the end.
    Latex,
}

/// Words a secret's column name ends in, besides those of [`secret_column`].
const LAST_WORDS: &[&str] =
    &["password", "passwd", "passwort", "pass", "pwd", "secret", "token", "passphrase"];

/// Whether a header cell names a secret's column.
fn secret_header(name: &str) -> bool {
    let name = name.trim().trim_matches(['"', '\'', '*', ':']);
    if secret_column(name) {
        return true;
    }
    let lower = name.to_ascii_lowercase();
    let words: Vec<&str> =
        lower.split(|c: char| !c.is_ascii_alphanumeric()).filter(|w| !w.is_empty()).collect();
    match words.as_slice() {
        [.., "api", "key"] => true,
        [.., last] => LAST_WORDS.contains(last),
        [] => false,
    }
}

/// Ranges of `text` holding a value under a secret's column of a table.
pub(super) fn columns_under_a_header(text: &str, out: &mut Vec<Range<usize>>) {
    let lower = text.to_ascii_lowercase();
    if !["pass", "pwd", "secret", "token", "key"].iter().any(|word| lower.contains(word)) {
        return;
    }
    let lines = lines_at(text);
    let mut index = 0;
    while index < lines.len() {
        let (_, line) = lines[index];
        index += 1;
        let Some((style, names)) = header(line) else { continue };
        let columns: Vec<usize> =
            (0..names.len()).filter(|&i| secret_header(&line[names[i].clone()])).collect();
        if columns.is_empty() {
            continue;
        }
        while index < lines.len() {
            let (row_start, row) = lines[index];
            // A rule line, or a marked header's other meta lines (Zeek's `#types`).
            if rule_line(row) || style == Style::Marked && row.starts_with('#') {
                index += 1;
                continue;
            }
            let Some(cells) = row_cells(style, row, names.len()) else { break };
            index += 1;
            for &column in &columns {
                let span = cells[column].clone();
                let value = &row[span.clone()];
                if value.len() >= 6
                    && !value.starts_with(['$', '%', '{', '<', '('])
                    && made_like_a_password(value)
                {
                    out.push(row_start + span.start..row_start + span.end);
                }
            }
        }
    }
}

/// A line between a header and its rows (`-----  ------`, `|-`, `\hline`, `====`).
fn rule_line(line: &str) -> bool {
    let trimmed = line.trim();
    !trimmed.is_empty()
        && (["|-", "\\hline", "<tr>", "</tr>"].contains(&trimmed)
            || !trimmed.chars().any(char::is_alphanumeric))
}

/// The cells of a header line and how it splits, if it is one.
fn header(line: &str) -> Option<(Style, Vec<Range<usize>>)> {
    if line.len() > 400 || line.trim().is_empty() {
        return None;
    }
    let (style, cells) = if line.contains("<th") {
        (Style::Html, tagged(line, "th"))
    } else if line.contains("||") || line.contains("!!") || line.trim_start().starts_with('!') {
        (Style::Wiki, split_on(line, &["||", "!!", "!", "|"]))
    } else if line.trim_end().ends_with("\\\\") && line.contains('&') {
        (Style::Latex, latex(line))
    } else if line.trim_start().starts_with('#') {
        let trimmed = line.trim_start();
        let marker = trimmed.find(char::is_whitespace)?;
        let offset = line.len() - trimmed.len() + marker;
        let cells = words(&line[offset..]);
        let cells = cells.into_iter().map(|r| r.start + offset..r.end + offset).collect();
        (Style::Marked, cells)
    } else if line.contains('\t') || line.trim().contains("  ") {
        (Style::Aligned, aligned(line))
    } else {
        return None;
    };
    let cells: Vec<Range<usize>> = cells;
    let name_like = |cell: &Range<usize>| {
        let name = line[cell.clone()].trim();
        !name.is_empty()
            && name.len() <= 40
            && name.split_whitespace().count() <= 2
            && name.chars().any(char::is_alphabetic)
            && name.chars().all(|c| c.is_alphanumeric() || " _-.()#:*'\"".contains(c))
    };
    (cells.len() >= 2 && cells.len() <= 30 && cells.iter().all(name_like)).then_some((style, cells))
}

/// The cells of a row under a header of `style` with `count` cells, if it has that many.
fn row_cells(style: Style, row: &str, count: usize) -> Option<Vec<Range<usize>>> {
    let cells = match style {
        Style::Html => tagged(row, "td"),
        Style::Wiki => split_on(row, &["||", "|"]),
        Style::Latex => latex(row),
        Style::Marked => words(row),
        Style::Aligned => {
            let cells = aligned(row);
            if cells.len() == count { cells } else { words(row) }
        }
    };
    (cells.len() == count).then_some(cells)
}

/// Ranges of the whitespace-separated words of `line`.
fn words(line: &str) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    let mut start = None;
    for (i, c) in line.char_indices() {
        match (c.is_whitespace(), start) {
            (false, None) => start = Some(i),
            (true, Some(s)) => {
                out.push(s..i);
                start = None;
            }
            _ => {}
        }
    }
    if let Some(s) = start {
        out.push(s..line.len());
    }
    out
}

/// Ranges of the cells of `line` apart by a tab or two spaces or more.
fn aligned(line: &str) -> Vec<Range<usize>> {
    let mut out: Vec<Range<usize>> = Vec::new();
    for word in words(line) {
        match out.last_mut() {
            Some(last) if line[last.end..word.start] == *" " => last.end = word.end,
            _ => out.push(word),
        }
    }
    out
}

/// Ranges of the cells of `line` apart by any of `separators` (the longest first), trimmed,
/// the empty cells at its ends left out.
fn split_on(line: &str, separators: &[&str]) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    let (mut at, mut start) = (0, 0);
    while at < line.len() {
        if let Some(sep) = separators.iter().find(|sep| line[at..].starts_with(**sep)) {
            out.push(start..at);
            at += sep.len();
            start = at;
        } else {
            at += line[at..].chars().next().map_or(1, char::len_utf8);
        }
    }
    out.push(start..line.len());
    let trimmed: Vec<Range<usize>> = out.into_iter().map(|r| trim(line, r)).collect();
    let first = trimmed.iter().position(|r| !r.is_empty()).unwrap_or(trimmed.len());
    let last = trimmed.iter().rposition(|r| !r.is_empty()).map_or(first, |i| i + 1);
    trimmed[first..last.max(first)].to_vec()
}

/// Ranges of the cells of a LaTeX row (`a & b \\`).
fn latex(line: &str) -> Vec<Range<usize>> {
    let body = line.trim_end();
    let body = body.strip_suffix("\\\\").unwrap_or(body);
    split_on(body, &["&"])
}

/// Ranges of the contents of each `<tag …>…</tag>` of `line`.
fn tagged(line: &str, tag: &str) -> Vec<Range<usize>> {
    let (open, close) = (format!("<{tag}"), format!("</{tag}>"));
    let mut out = Vec::new();
    let mut at = 0;
    while let Some(found) = line[at..].find(&open) {
        let Some(end_of_open) = line[at + found..].find('>') else { break };
        let start = at + found + end_of_open + 1;
        let Some(end) = line[start..].find(&close) else { break };
        out.push(trim(line, start..start + end));
        at = start + end + close.len();
    }
    out
}

/// `range` of `line` without the whitespace at its ends.
fn trim(line: &str, range: Range<usize>) -> Range<usize> {
    let cell = &line[range.clone()];
    let lead = cell.len() - cell.trim_start().len();
    let trail = cell.len() - cell.trim_end().len();
    range.start + lead..(range.end - trail).max(range.start + lead)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn found(text: &str) -> Vec<&str> {
        let mut out = Vec::new();
        columns_under_a_header(text, &mut out);
        out.into_iter().map(|span| &text[span]).collect()
    }

    #[test]
    fn values_under_a_secret_column_are_found() {
        assert_eq!(
            found(
                "_time                user      password      dest\n2026-12-07 09:14:02  ops  Heron%5103  db1\n"
            ),
            ["Heron%5103"]
        );
        assert_eq!(
            found(
                "#fields\tts\tuser\tpassword\n#types\ttime\tstring\tstring\n1.5\tbob\tEgret7781x\n"
            ),
            ["Egret7781x"]
        );
        assert_eq!(
            found(
                "#Fields: date time cs-username cs(X-Api-Password) sc-status\n2026-12-07 09:14:02 bob Dunlin#44 200\n"
            ),
            ["Dunlin#44"]
        );
        assert_eq!(found("||Host||User||Passwort||\n|db1|bob|Lichen-77x|\n"), ["Lichen-77x"]);
        assert_eq!(
            found(
                "{| class=\"wikitable\"\n! Host !! User !! pass\n|-\n| db1 || bob || Ivy-ivy-902\n|}"
            ),
            ["Ivy-ivy-902"]
        );
        assert_eq!(
            found(
                "<tr><th>Host</th><th>Password</th></tr>\n<tr><td>db1</td><td>Rowan!2231</td></tr>"
            ),
            ["Rowan!2231"]
        );
        assert_eq!(
            found("Host & User & pwd \\\\\n\\hline\ndb1 & bob & Nutmeg_88a \\\\"),
            ["Nutmeg_88a"]
        );
    }

    #[test]
    fn ordinary_tables_are_left_alone() {
        // A column of descriptions or of names, and prose under a header.
        assert!(found("OPTION      TOKEN\n-t          the token to send\n").is_empty());
        assert!(found("NAME        TOKEN     AGE\nci          default   3d\n").is_empty());
        assert!(found("user  password\nThe password is read from stdin.\n").is_empty());
        assert!(found("Name  Secret  Type\nsh.helm.v1  Opaque  3\n").is_empty());
    }
}
