//! Text helpers of the offline summarizer: sentences, inline code, clipping, paths.
//!
//! Invariant: every cut falls on a character boundary; nothing here allocates more than
//! the text it returns.

use crate::message::{Content, ContentBlock};

/// Collapses all whitespace runs to single spaces and trims.
pub(super) fn one_line(text: &str) -> String {
    let mut out = String::with_capacity(text.len().min(512));
    for word in text.split_whitespace() {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(word);
    }
    out
}

/// At most `max` characters of `text`, ending in `…` when cut; cuts on char boundaries.
///
/// A cut never keeps a piece of a token: when it falls inside a run of token characters
/// (see [`is_token_char`]: a word, a path, a key), the whole run is left out. The summary is
/// redacted after it is written, and a piece of a secret is no secret the rules know (the
/// head of a JSON Web Token in a quoted command, the folder of a path named by a token).
pub(super) fn clip(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        None => text.to_owned(),
        Some(_) => {
            let keep: Vec<char> = text.chars().take(max.saturating_sub(1)).collect();
            let next = text.chars().nth(keep.len());
            let mut end = keep.len();
            if next.is_some_and(is_token_char) {
                while end > 0 && is_token_char(keep[end - 1]) {
                    end -= 1;
                }
            }
            let keep: String = keep[..end].iter().collect();
            format!("{}…", keep.trim_end())
        }
    }
}

/// Whether `ch` belongs to a token a cut must not split: ASCII letters and digits and the
/// punctuation of keys, paths and URLs (`-_.+/=~%:@`).
fn is_token_char(ch: char) -> bool {
    ch.is_ascii_alphanumeric()
        || matches!(ch, '-' | '_' | '.' | '+' | '/' | '=' | '~' | '%' | ':' | '@')
}

/// The most characters a command is shown with (a rejected call, a run, a failure alike).
pub(super) const COMMAND_CHARS: usize = 160;

/// A shell command on one line, within `max` characters: when it is longer, each path
/// argument of more than two folders is shortened to `…/` and its last two parts first (the
/// file lists and edit items name files in full), so what the command does (a commit
/// message, a flag, the program after a long `cd`) survives the cut; then it is clipped.
pub(super) fn command_shown(command: &str, max: usize) -> String {
    let line = one_line(command);
    if line.chars().count() <= max {
        return line;
    }
    let shortened: Vec<String> = line.split(' ').map(shorten_path_word).collect();
    clip(&shortened.join(" "), max)
}

/// `word` as `…/parent/name` when it is a path of more than two folders (quotes around it
/// kept), else unchanged.
fn shorten_path_word(word: &str) -> String {
    let quote = |c: char| matches!(c, '"' | '\'');
    let inner = word.trim_matches(quote);
    let parts: Vec<&str> = inner.split('/').filter(|part| !part.is_empty()).collect();
    let pathlike = parts.len() > 3
        && !inner.contains("://")
        && parts.iter().all(|part| !part.contains(['=', '(', ')', '{', '}', '$', '`']));
    if !pathlike {
        return word.to_owned();
    }
    let tail = parts[parts.len() - 2..].join("/");
    let (open, close) = (
        &word[..word.len() - word.trim_start_matches(quote).len()],
        &word[word.trim_end_matches(quote).len()..],
    );
    format!("{open}…/{tail}{close}")
}

/// `text` on one line, cut to at most `max` characters at a word boundary without an
/// ellipsis: a verbatim prefix, so a check for the words finds them as written.
pub(super) fn verbatim_prefix(text: &str, max: usize) -> String {
    let line = one_line(text);
    match line.char_indices().nth(max) {
        None => line,
        Some((at, _)) => {
            let cut = &line[..at];
            match cut.rfind(' ') {
                Some(space) if space > 0 => cut[..space].to_owned(),
                Some(_) | None => cut.to_owned(),
            }
        }
    }
}

/// Inline code for `text`, using double backticks when the text holds one.
pub(super) fn code(text: &str) -> String {
    if text.contains('`') { format!("`` {text} ``") } else { format!("`{text}`") }
}

/// The first `limit` bytes of `text`, cut back to a char boundary.
pub(super) fn head(text: &str, limit: usize) -> &str {
    if text.len() <= limit {
        return text;
    }
    let mut end = limit;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

/// Splits prose into sentences: on line ends, on `.`, `!`, `?` followed by a space, and
/// after CJK full stops. Lines inside code fences are skipped.
pub(super) fn sentences(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut in_fence = false;
    for line in text.lines() {
        let trimmed = line.trim();
        if trimmed.starts_with("```") {
            in_fence = !in_fence;
            continue;
        }
        if in_fence || trimmed.is_empty() {
            continue;
        }
        let mut current = String::new();
        let mut chars = trimmed.chars().peekable();
        while let Some(c) = chars.next() {
            current.push(c);
            let ends = match c {
                '。' | '！' | '？' => true,
                '.' | '!' | '?' => chars.peek().is_none_or(|next| next.is_whitespace()),
                _ => false,
            };
            if ends {
                let sentence = current.trim();
                if !sentence.is_empty() {
                    out.push(sentence.to_owned());
                }
                current.clear();
            }
        }
        let sentence = current.trim();
        if !sentence.is_empty() {
            out.push(sentence.to_owned());
        }
    }
    out
}

/// Text of the spans between single backticks.
pub(super) fn backticked(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(start) = rest.find('`') {
        let after = &rest[start + 1..];
        match after.find('`') {
            Some(end) => {
                let span = after[..end].trim();
                if !span.is_empty() {
                    out.push(span);
                }
                rest = &after[end + 1..];
            }
            None => break,
        }
    }
    out
}

/// Whether `text` looks like a file path rather than an identifier.
pub(super) fn looks_like_path(text: &str) -> bool {
    if text.contains(char::is_whitespace) {
        return false;
    }
    if text.contains('/') {
        return true;
    }
    let Some((stem, extension)) = text.rsplit_once('.') else {
        return false;
    };
    !stem.is_empty()
        && matches!(
            extension,
            "rs" | "toml"
                | "md"
                | "json"
                | "jsonl"
                | "ts"
                | "tsx"
                | "js"
                | "py"
                | "go"
                | "c"
                | "h"
                | "cpp"
                | "java"
                | "yaml"
                | "yml"
                | "txt"
                | "lock"
                | "sh"
        )
}

/// Whether a backticked span is worth keeping as an identifier.
pub(super) fn looks_like_identifier(text: &str) -> bool {
    let length = char_len(text);
    (2..=60).contains(&length)
        && !text.contains(char::is_whitespace)
        && !looks_like_path(text)
        && text.chars().any(|c| c.is_alphabetic())
        // Short plain words (`out`, `ok`) say little; `Vec`, `f()` or `a_b` still count.
        && (length >= 4 || text.chars().any(|c| c.is_uppercase() || "_:()".contains(c)))
}

pub(super) fn content_text(content: &Content) -> String {
    content.joined_text()
}

/// Lines of the text blocks of `content`, lazily: nothing is joined or collected.
pub(super) fn content_lines(content: &Content) -> impl Iterator<Item = &str> + Clone {
    let (text, blocks): (Option<&str>, &[ContentBlock]) = match content {
        Content::Text(text) => (Some(text.as_str()), &[]),
        Content::Blocks(blocks) => (None, blocks.as_slice()),
    };
    let block_texts = blocks.iter().filter_map(|block| match block {
        ContentBlock::Text(text) => Some(text.text.as_str()),
        ContentBlock::Image(_)
        | ContentBlock::Thinking(_)
        | ContentBlock::ToolCall(_)
        | ContentBlock::Other(_) => None,
    });
    text.into_iter().chain(block_texts).flat_map(str::lines)
}

pub(super) fn char_len(text: &str) -> usize {
    text.chars().count()
}

pub(super) fn strip_bullet(line: &str) -> &str {
    let line = line.trim();
    if let Some(rest) = line.strip_prefix("- ").or_else(|| line.strip_prefix("* ")) {
        // A task-list bullet (`- [x] done`, `- [ ] open`): the box is markup.
        let rest = rest.trim_start();
        for checkbox in ["[ ] ", "[x] ", "[X] "] {
            if let Some(task) = rest.strip_prefix(checkbox) {
                return task.trim();
            }
        }
        return rest.trim();
    }
    let digits = line.chars().take_while(char::is_ascii_digit).count();
    if digits > 0
        && let Some(rest) = line[digits..].strip_prefix(". ")
    {
        return rest.trim();
    }
    line
}

pub(super) fn first_line<'a>(lines: impl Iterator<Item = &'a str>) -> Option<String> {
    lines.map(str::trim).find(|line| !line.is_empty()).map(|line| clip(line, 240))
}

pub(super) fn capitalised(name: &str) -> String {
    let mut chars = name.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

/// Whether a character is of a script written without spaces between words, or in
/// syllable blocks (Han, Kana, Hangul): a sentence of them has few spaces.
pub(super) fn is_wide(c: char) -> bool {
    matches!(
        c,
        '\u{3040}'..='\u{30FF}' | '\u{3400}'..='\u{4DBF}' | '\u{4E00}'..='\u{9FFF}' | '\u{AC00}'..='\u{D7A3}'
    )
}
