//! What "present" means: whitespace-collapsed quotes and openings, paths as whole names,
//! and error lines recognised by their distinctive tokens (see the module doc).

use super::*;

pub(super) fn collapse_whitespace(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

pub(super) fn normalize(text: &str) -> String {
    collapse_whitespace(
        &text.replace(['\u{2019}', '\u{2018}'], "'").replace(['\u{201c}', '\u{201d}'], "\""),
    )
}

/// The text a fact must contain: whitespace collapsed, quotes and a final `.`/`!`/`;`
/// stripped.
pub(super) fn fact_words(text: &str) -> String {
    let normalized = normalize(text);
    normalized
        .trim_matches(|c: char| c == '"' || c == '\'' || c == '`')
        .trim_end_matches(['.', '!', ';'])
        .trim()
        .to_owned()
}

/// The part of a constraint or request a summary must quote: the whole text up to
/// [`QUOTE_CHARS`] characters, else its sentences ending within them, else the words that
/// fit.
pub fn opening(text: &str) -> String {
    let collapsed = collapse_whitespace(text);
    if collapsed.chars().count() <= QUOTE_CHARS {
        return collapsed;
    }
    let limit = collapsed.char_indices().nth(QUOTE_CHARS).map_or(collapsed.len(), |(at, _)| at);
    let head = &collapsed[..limit];
    let sentence_end = head
        .char_indices()
        .filter(|&(at, c)| {
            matches!(c, '.' | '?' | '!' | '。' | '？' | '！')
                && head[at + c.len_utf8()..].chars().next().is_none_or(char::is_whitespace)
        })
        .map(|(at, c)| at + c.len_utf8())
        .next_back();
    match sentence_end {
        Some(end) => head[..end].to_owned(),
        None => match head.rfind(' ') {
            Some(space) if space > 0 => head[..space].to_owned(),
            Some(_) | None => head.to_owned(),
        },
    }
}

/// Whether the summary quotes `text`: its [`opening`], or every sentence of the opening
/// longer than three words.
pub(super) fn contains_quote(normalized_summary: &str, text: &str) -> bool {
    let opening = opening(text);
    if contains_words(normalized_summary, &opening) {
        return true;
    }
    let mut sentences = Vec::new();
    let mut start = 0;
    for (at, c) in opening.char_indices() {
        let end = at + c.len_utf8();
        if matches!(c, '.' | '?' | '!' | '。' | '？' | '！')
            && opening[end..].chars().next().is_none_or(char::is_whitespace)
        {
            sentences.push(&opening[start..end]);
            start = end;
        }
    }
    sentences.push(&opening[start..]);
    let long: Vec<&str> =
        sentences.into_iter().filter(|s| s.split_whitespace().count() > 3).collect();
    !long.is_empty() && long.iter().all(|sentence| contains_words(normalized_summary, sentence))
}

/// [`opening`], marked with `…` when it is shorter than the text.
pub(super) fn quoted_opening(text: &str) -> String {
    let opening = opening(text);
    if opening.len() < collapse_whitespace(text).len() { format!("{opening} …") } else { opening }
}

pub(super) fn contains_words(normalized_summary: &str, text: &str) -> bool {
    let words = fact_words(text);
    words.is_empty() || normalized_summary.contains(&words)
}

pub(super) fn is_path_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_' || c == '-' || c == '/'
}

pub(super) fn contains_path(summary: &str, path: &str) -> bool {
    if path.is_empty() {
        return true;
    }
    summary.match_indices(path).any(|(at, _)| {
        let before = summary[..at].chars().next_back();
        let mut after = summary[at + path.len()..].chars();
        let next = after.next();
        let before_ok = before.is_none_or(|c| !is_path_char(c) && c != '.');
        let after_ok = match next {
            None => true,
            Some('.') => after.next().is_none_or(|c| !c.is_alphanumeric()),
            Some(c) => !is_path_char(c),
        };
        before_ok && after_ok
    })
}

/// The distinctive tokens of an error line (see the module documentation).
pub fn distinctive_tokens(line: &str) -> Vec<String> {
    let mut tokens: Vec<String> = Vec::new();
    for word in line.split_whitespace() {
        let token = word.trim_matches(|c: char| !c.is_alphanumeric() && c != '_' && c != '/');
        if token.is_empty() {
            continue;
        }
        let letters: Vec<char> = token.chars().filter(|c| c.is_alphabetic()).collect();
        let quoted = word.trim_end_matches(['.', ',', ':', ';', ')']).ends_with(['\'', '"', '`'])
            || word.trim_start_matches('(').starts_with(['\'', '"', '`']);
        let distinctive = quoted
            || token.chars().any(|c| c.is_ascii_digit())
            || token.contains(['_', '/', '.', ':'])
            || token.chars().skip(1).any(char::is_uppercase)
            || (letters.len() >= 3 && letters.iter().all(|c| c.is_uppercase()))
            || token.chars().count() >= 8;
        if distinctive && !tokens.iter().any(|t| t == token) {
            tokens.push(token.to_owned());
        }
    }
    tokens
}

pub(super) fn recognises_error(summary: &str, normalized_summary: &str, error_line: &str) -> bool {
    if contains_words(normalized_summary, error_line) {
        return true;
    }
    let tokens = distinctive_tokens(error_line);
    let Some(first) = tokens.first() else { return false };
    if !summary.contains(first.as_str()) {
        return false;
    }
    let found = tokens.iter().filter(|token| summary.contains(token.as_str())).count();
    found * 3 >= tokens.len() * 2
}
