//! The texts that stand in for pruned tool outputs.
//!
//! Every placeholder names the tool, its arguments, the size of what was removed and the
//! entry id the `recall` tool (or `compaction recall FILE ID`) takes to bring it back.
//! Invariant: placeholders are pure functions of their inputs (a dry run shows exactly what
//! a prune writes), and arguments are cut on character boundaries.

use serde_json::Value;

/// Characters of the tool arguments a placeholder shows.
const ARGUMENT_CHARS: usize = 160;
/// Characters of one kept line of a `head_tail` placeholder.
const LINE_CHARS: usize = 300;

/// The arguments of a tool call as short compact JSON.
pub fn arguments_preview(arguments: &Value) -> String {
    let text = match arguments {
        Value::Null => return String::new(),
        other => serde_json::to_string(other).unwrap_or_default(),
    };
    cut_chars(&text, ARGUMENT_CHARS)
}

fn cut_chars(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_owned(),
    }
}

fn call(tool: &str, arguments: &Value) -> String {
    let arguments = arguments_preview(arguments);
    if arguments.is_empty() { tool.to_owned() } else { format!("{tool} {arguments}") }
}

fn lines(text: &str) -> usize {
    text.lines().count()
}

/// A one-line placeholder for an old output.
pub fn elide(tool: &str, arguments: &Value, text: &str, tokens: u64, id: &str) -> String {
    format!(
        "[output pruned: {} returned {tokens} tokens ({} lines); recall entry {id} to see it]",
        call(tool, arguments),
        lines(text),
    )
}

/// A one-line placeholder for a read that a later read, edit or write of the same path
/// made out of date.
pub fn superseded(tool: &str, arguments: &Value, tokens: u64, id: &str, by: &str) -> String {
    format!(
        "[output pruned: {} ({tokens} tokens) is out of date, the path was used again in \
         entry {by}; recall entry {id} to see the old output]",
        call(tool, arguments),
    )
}

/// The first and last lines of an output with a marker for what lies between, and the
/// exit status; `None` when the output is too short to gain anything.
pub fn head_tail(
    tool: &str,
    arguments: &Value,
    text: &str,
    tokens: u64,
    id: &str,
    head: usize,
    tail: usize,
    status: Option<&str>,
) -> Option<String> {
    let all: Vec<&str> = text.lines().collect();
    if all.len() <= head + tail {
        return None;
    }
    let mut out = format!(
        "[{} output, {} lines, {tokens} tokens; middle pruned]\n",
        call(tool, arguments),
        all.len()
    );
    for line in &all[..head] {
        out.push_str(&cut_chars(line, LINE_CHARS));
        out.push('\n');
    }
    out.push_str(&format!(
        "[… {} lines pruned; recall entry {id} for the full output …]\n",
        all.len() - head - tail
    ));
    for line in &all[all.len() - tail..] {
        out.push_str(&cut_chars(line, LINE_CHARS));
        out.push('\n');
    }
    match status {
        Some(status) => out.push_str(&format!("[{status}]")),
        None => {
            out.pop();
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn elide_names_tool_arguments_size_and_id() {
        let text = elide("read", &json!({"path":"src/lib.rs"}), "a\nb\nc", 1234, "ab12cd34");
        assert_eq!(
            text,
            "[output pruned: read {\"path\":\"src/lib.rs\"} returned 1234 tokens (3 lines); \
             recall entry ab12cd34 to see it]"
        );
    }

    #[test]
    fn long_arguments_are_cut_on_a_character_boundary() {
        let long = "é".repeat(400);
        let preview = arguments_preview(&json!({ "content": long }));
        assert_eq!(preview.chars().count(), ARGUMENT_CHARS + 1);
        assert!(preview.ends_with('…'));
    }

    #[test]
    fn head_tail_keeps_both_ends_and_the_status() {
        let text: String = (1..=30).map(|n| format!("line {n}\n")).collect();
        let out = head_tail(
            "bash",
            &json!({"command":"cargo test"}),
            &text,
            99,
            "x1",
            2,
            2,
            Some("exit code 101"),
        )
        .unwrap();
        assert_eq!(
            out,
            "[bash {\"command\":\"cargo test\"} output, 30 lines, 99 tokens; middle pruned]\n\
             line 1\nline 2\n[… 26 lines pruned; recall entry x1 for the full output …]\n\
             line 29\nline 30\n[exit code 101]"
        );
        assert_eq!(head_tail("bash", &Value::Null, "a\nb\nc", 1, "x", 2, 2, None), None);
    }
}
