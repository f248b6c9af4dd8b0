//! Whose words a user-role text holds: the user's own, or what their tools wrapped around
//! them (IDE notices, command echoes, reminders, interruption notices), a document they
//! pasted, the answer they gave through a question tool; and whether they said a problem is
//! settled.
//!
//! Invariant: these only classify or remove; the words kept are the user's, unchanged.

/// The words a user wrote in a user-role message, without what their tools wrapped around
/// them: harness blocks (`<ide_opened_file>`, `<ide_selection>`, `<system-reminder>`,
/// `<command-name>`, `<local-command-stdout>`, `<task-notification>` and other tags with a
/// `_` or `-` in their name), an IDE context header before `## My request for …:`, and
/// interruption notices (`[Request interrupted by user]`). Empty when nothing is the user's.
pub(super) fn human_words(text: &str) -> String {
    let mut text = text;
    // A command's prompt template with the user's input in a block of its own (spec-kit's
    // "## User Input" fence): the block is the user's, the template around it is not.
    if let Some(input) = template_input(text) {
        text = input;
    }
    // Codex's IDE extension: "# Context from my IDE setup: … ## My request for Codex:".
    if let Some(at) = text.find("## My request for ") {
        let after = &text[at..];
        text = after.split_once('\n').map_or("", |(_, rest)| rest);
    }
    let mut out = String::new();
    let mut rest = text;
    // Where each end tag stands, found in one pass: looking for it from every `<` instead
    // made a text of unclosed tags quadratic.
    let closings = end_tags(text);
    while let Some(start) = rest.find('<') {
        let tag: String = rest[start + 1..]
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_' || *c == '-')
            .collect();
        let closes = rest[start + 1 + tag.len()..].starts_with('>');
        let harness =
            tag.contains(['_', '-']) && tag.chars().next().is_some_and(|c| c.is_ascii_lowercase());
        let end_tag = format!("</{tag}>");
        let at = text.len() - rest.len() + start;
        let end = (closes && harness)
            .then(|| closings.get(tag.as_str()))
            .flatten()
            .and_then(|found| found.get(found.partition_point(|&p| p < at)))
            .map(|&p| p - at);
        match end {
            Some(end) => {
                out.push_str(&rest[..start]);
                // What the user typed after a command's name is theirs: the request the
                // command works on (a word or two is an option, such as a model's name).
                if tag == "command-args" {
                    out.push_str(typed_request(&rest[start + tag.len() + 2..start + end]));
                }
                rest = &rest[start + end + end_tag.len()..];
            }
            None => {
                out.push_str(&rest[..=start]);
                rest = &rest[start + 1..];
            }
        }
    }
    out.push_str(rest);
    let trimmed = out.trim();
    if trimmed.starts_with("[Request interrupted by user") && trimmed.ends_with(']') {
        return String::new();
    }
    trimmed.to_owned()
}

/// The positions of the end tags (`</name>`, a name of letters, digits, `_` and `-`) of
/// `text`, by name, in order.
fn end_tags(text: &str) -> std::collections::HashMap<&str, Vec<usize>> {
    let mut found: std::collections::HashMap<&str, Vec<usize>> = std::collections::HashMap::new();
    let mut from = 0;
    while let Some(at) = text[from..].find("</").map(|p| p + from) {
        let name_start = at + 2;
        let name_len = text[name_start..]
            .bytes()
            .take_while(|b| b.is_ascii_alphanumeric() || *b == b'_' || *b == b'-')
            .count();
        let name_end = name_start + name_len;
        if text[name_end..].starts_with('>') {
            found.entry(&text[name_start..name_end]).or_default().push(at);
        }
        from = name_end.max(at + 1);
    }
    found
}

/// The user's input in a prompt template: the fenced block right under a heading that
/// names it as the user's ("User Input", "User Request"), when it holds more than a
/// placeholder. A heading such as "Arguments" is not enough: documentation the user pastes
/// has those, and the user's own words around it must stay theirs.
fn template_input(text: &str) -> Option<&str> {
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        offset += line.len();
        let title = line.trim().trim_start_matches('#').trim().to_lowercase();
        if !line.trim_start().starts_with('#')
            || !["user input", "user request"].contains(&title.as_str())
        {
            continue;
        }
        let rest = &text[offset..];
        let open = rest.trim_start();
        let fence = if open.starts_with("```") {
            "```"
        } else if open.starts_with("~~~") {
            "~~~"
        } else {
            return None;
        };
        let body_start = open.find('\n')? + 1;
        let body = &open[body_start..];
        let end =
            body.find(&format!("\n{fence}")).or_else(|| body.starts_with(fence).then_some(0))?;
        let input = body[..end].trim();
        let placeholder = input.is_empty() || input.starts_with('$') && !input.contains(' ');
        return (!placeholder).then_some(input);
    }
    None
}

/// Words of a user message that say a problem is settled: known, expected, to be ignored.
const SETTLING: [&str; 19] = [
    "ignore ",
    "ignore it",
    "don't worry about",
    "dont worry about",
    "not a problem",
    "no problem",
    "that's fine",
    "thats fine",
    "it's fine",
    "its fine",
    " is fine",
    " are fine",
    " is expected",
    " are expected",
    "known issue",
    "doesn't matter",
    "not important",
    "won't fix",
    "can live with",
];

/// Whether a user message says some problem is settled ("ignore the lint warnings", "that
/// timeout is expected").
pub(super) fn settles(prose: &str) -> bool {
    let lower = format!(" {} ", prose.to_lowercase());
    SETTLING.iter().any(|phrase| lower.contains(phrase))
}

/// The words of a user message that can name what failed (three letters or more, not the
/// words that say it is settled).
pub(super) fn naming_words(prose: &str) -> Vec<String> {
    const PLAIN: [&str; 30] = [
        "the",
        "and",
        "for",
        "you",
        "are",
        "that",
        "this",
        "those",
        "these",
        "about",
        "with",
        "its",
        "it's",
        "don't",
        "dont",
        "worry",
        "ignore",
        "fine",
        "problem",
        "expected",
        "known",
        "issue",
        "doesn't",
        "matter",
        "important",
        "won't",
        "fix",
        "can",
        "live",
        "not",
    ];
    prose
        .to_lowercase()
        .split(|c: char| !(c.is_alphanumeric() || "._-/'".contains(c)))
        .map(|word| word.trim_matches(['.', '\'']))
        .filter(|word| word.chars().count() >= 3 && !PLAIN.contains(word))
        .map(str::to_owned)
        .collect()
}

/// What the user typed after a command's name, when it is a request: three words or more
/// (or six wide characters); a word or two is an option, such as a model's name.
fn typed_request(args: &str) -> &str {
    let args = args.trim();
    let words = args.split_whitespace().count();
    let wide = args.chars().filter(|c| !c.is_ascii()).count();
    if words >= 3 || wide >= 6 { args } else { "" }
}

/// Whether a tool asks the user a question (Claude Code's `AskUserQuestion`, `ask_user`,
/// `question`): its result is the user's answer.
pub(super) fn asks_the_user(tool: &str) -> bool {
    let name: String =
        tool.chars().filter(char::is_ascii_alphanumeric).collect::<String>().to_lowercase();
    name.contains("askuser") || name == "question" || name == "askquestion"
}

/// A Markdown heading line (`## Scope`).
pub(super) fn is_heading(line: &str) -> bool {
    let level = line.chars().take_while(|&c| c == '#').count();
    (1..=6).contains(&level) && line[level..].starts_with(' ')
}

/// Whether a user message is a pasted document rather than what the user wrote: three
/// Markdown headings or more, or three table rows or more.
pub(super) fn is_document(prose: &str) -> bool {
    let headings = prose.lines().filter(|line| is_heading(line.trim_start())).count();
    let rows = prose.lines().filter(|line| line.trim_start().starts_with('|')).count();
    headings >= 3 || rows >= 3
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The tag loop of `human_words` as it was before round 14 (an end tag looked for from
    /// every `<`), the reference the one-pass version must agree with.
    fn reference(text: &str) -> String {
        let mut out = String::new();
        let mut rest = text;
        while let Some(start) = rest.find('<') {
            let tag: String = rest[start + 1..]
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_' || *c == '-')
                .collect();
            let closes = rest[start + 1 + tag.len()..].starts_with('>');
            let harness = tag.contains(['_', '-'])
                && tag.chars().next().is_some_and(|c| c.is_ascii_lowercase());
            let end_tag = format!("</{tag}>");
            match rest[start..].find(&end_tag) {
                Some(end) if closes && harness => {
                    out.push_str(&rest[..start]);
                    if tag == "command-args" {
                        out.push_str(typed_request(&rest[start + tag.len() + 2..start + end]));
                    }
                    rest = &rest[start + end + end_tag.len()..];
                }
                Some(_) | None => {
                    out.push_str(&rest[..=start]);
                    rest = &rest[start + 1..];
                }
            }
        }
        out.push_str(rest);
        out.trim().to_owned()
    }

    /// Texts of tags opened, closed, nested, repeated and left open, from a fixed seed.
    #[test]
    fn the_one_pass_tag_reading_agrees_with_the_reference() {
        const PIECES: [&str; 14] = [
            "<x-y>",
            "</x-y>",
            "<command-args>",
            "</command-args>",
            "fix the build now ",
            "<",
            "</",
            "<a_b>",
            "</a_b>",
            "<p>",
            "</p>",
            "Vec<String> ",
            "<x-y",
            "日本語のテキスト ",
        ];
        let mut seed = 0x2545_f491_4f6c_dd1d_u64;
        for _ in 0..3000 {
            let mut text = String::new();
            for _ in 0..(seed % 24) {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                text.push_str(PIECES[(seed % PIECES.len() as u64) as usize]);
            }
            seed = seed.wrapping_add(0x9e37_79b9_7f4a_7c15);
            assert_eq!(human_words(&text), reference(&text), "{text:?}");
        }
    }
}
