//! What the user typed apart from what they pasted (logs, diffs, quoted messages), and
//! slash commands.

use super::*;

/// Whether the message is a slash command (`/mode`, `/model sonnet`), not a request.
pub(crate) fn is_slash_command(text: &str) -> bool {
    let text = text.trim();
    let Some(rest) = text.strip_prefix('/') else { return false };
    let name: String = rest.chars().take_while(|c| !c.is_whitespace()).collect();
    !text.contains('\n')
        && !name.is_empty()
        && name.chars().all(|c| c.is_ascii_alphanumeric() || "-_:".contains(c))
}

/// Whether a line of a user message looks pasted from a terminal, a log or a browser
/// console rather than written: error and stack lines, indented code, JSON.
fn looks_pasted(line: &str) -> bool {
    let trimmed = line.trim();
    let lower = trimmed.to_lowercase();
    line.starts_with("  ")
        || line.starts_with('\t')
        || error_line(trimmed)
        || lower.starts_with("at ")
        || lower.starts_with("file \"")
        || trimmed.starts_with('{')
        || trimmed.starts_with('[')
        || trimmed.starts_with('>')
        || trimmed.starts_with('$')
        || trimmed.contains("\":")
        || trimmed.contains("\\n")
}

/// The text of a message whose every line is quoted (`> …`) and reads as prose, without
/// the quote marks; `None` for any other message (one with a line of its own, or a quoted
/// program echo such as npm's `> app@1.0.0 build`).
fn unquoted_message(text: &str) -> Option<String> {
    let lines: Vec<&str> = head(text.trim(), 16_000).lines().collect();
    let quoted = |line: &&str| line.trim().is_empty() || line.trim_start().starts_with('>');
    if lines.is_empty() || !lines.iter().all(quoted) {
        return None;
    }
    let body: Vec<&str> = lines
        .iter()
        .map(|line| line.trim_start().trim_start_matches('>').trim_start_matches(['>', ' ']))
        .collect();
    let words: Vec<&str> = body.iter().flat_map(|line| line.split_whitespace()).collect();
    let wordy = words
        .iter()
        .filter(|word| word.chars().filter(|c| c.is_alphabetic()).count() * 2 > word.len())
        .count();
    let echo = body.iter().any(|line| {
        line.split_whitespace().next().is_some_and(|first| first.contains('@'))
            && line.split_whitespace().count() <= 3
    });
    if words.len() < 8 || wordy * 4 < words.len() * 3 || echo {
        return None;
    }
    // A quote is often wrapped by hand: a line that does not open a list item goes on the
    // sentence of the line before.
    let mut out = String::new();
    for line in body {
        let item =
            line.starts_with(['-', '*', '+']) || line.starts_with(|c: char| c.is_ascii_digit());
        if !out.is_empty() {
            let joins = !line.is_empty() && !item && !out.ends_with('\n');
            out.push(if joins { ' ' } else { '\n' });
        }
        out.push_str(line);
    }
    Some(out)
}

/// Splits a user message into what the user wrote and what they pasted: code fences, and
/// paragraphs at least half of whose lines look pasted. Returns the written prose (the
/// paragraphs joined by blank lines) and the pasted lines.
pub(in crate::offline) fn split_user_text(text: &str) -> (String, Vec<String>) {
    // A message written wholly as a quote block is the user's words passed on (a handoff
    // note, a ticket): read without its quote marks. A quote beside the user's own prose
    // stays what it quotes.
    let unquoted = unquoted_message(text);
    let text = unquoted.as_deref().unwrap_or(text);
    let mut prose: Vec<String> = Vec::new();
    let mut pasted: Vec<String> = Vec::new();
    let mut paragraph: Vec<&str> = Vec::new();
    let mut in_fence = false;
    let flush = |paragraph: &mut Vec<&str>, prose: &mut Vec<String>, pasted: &mut Vec<String>| {
        if paragraph.is_empty() {
            return;
        }
        // One line on its own needs strong evidence: indentation alone is not enough.
        let looks = if paragraph.len() == 1 {
            usize::from(looks_pasted(paragraph[0].trim_start()))
        } else {
            paragraph.iter().filter(|line| looks_pasted(line)).count()
        };
        if looks * 2 >= paragraph.len() && looks > 0 {
            pasted.extend(paragraph.iter().map(|line| (*line).to_owned()));
        } else {
            prose.push(paragraph.join("\n"));
        }
        paragraph.clear();
    };
    for line in head(text.trim(), 16_000).lines() {
        if line.trim_start().starts_with("```") {
            flush(&mut paragraph, &mut prose, &mut pasted);
            in_fence = !in_fence;
            continue;
        }
        if in_fence {
            pasted.push(line.to_owned());
            continue;
        }
        if line.trim().is_empty() {
            flush(&mut paragraph, &mut prose, &mut pasted);
            continue;
        }
        paragraph.push(line);
    }
    flush(&mut paragraph, &mut prose, &mut pasted);
    (prose.join("\n\n"), pasted)
}
