//! The texts that stand in for pruned tool outputs.
//!
//! Every placeholder names the tool, its arguments, the size of what was removed and the
//! entry id the `recall` tool (or `compaction recall FILE ID`) takes to bring it back.
//! Invariant: placeholders are pure functions of their inputs (a dry run shows exactly what
//! a prune writes), and arguments are cut on character boundaries.

use serde_json::Value;

use crate::plural::plural;

/// Characters of the tool arguments a placeholder shows.
const ARGUMENT_CHARS: usize = 160;
/// Characters of one kept line of a `head_tail` placeholder.
const LINE_CHARS: usize = 300;

/// The arguments of a tool call as short compact JSON.
pub fn arguments_preview(arguments: &Value) -> String {
    if arguments.is_null() {
        return String::new();
    }
    cut_chars(&serde_json::to_string(arguments).unwrap_or_default(), ARGUMENT_CHARS)
}

/// The output a placeholder stands for.
#[derive(Debug, Clone, Copy)]
pub struct PrunedOutput<'a> {
    /// The tool that produced it.
    pub tool: &'a str,
    /// The call's arguments (`Value::Null` when the call is not known).
    pub arguments: &'a Value,
    /// Estimated tokens of the output.
    pub tokens: u64,
    /// The id of its entry, to recall it.
    pub id: &'a str,
}

fn cut_chars(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_owned(),
    }
}

fn call(output: &PrunedOutput<'_>) -> String {
    let arguments = arguments_preview(output.arguments);
    let tool = output.tool;
    if arguments.is_empty() { tool.to_owned() } else { format!("{tool} {arguments}") }
}

fn lines(text: &str) -> usize {
    text.lines().count()
}

/// A one-line placeholder for an old output.
pub fn elide(output: &PrunedOutput<'_>, text: &str) -> String {
    format!(
        "[output pruned: {} returned {} ({}); recall entry {} to see it]",
        call(output),
        plural(output.tokens, "token"),
        plural(lines(text), "line"),
        output.id,
    )
}

/// A one-line placeholder for a read that a later read, edit or write of the same path
/// made out of date.
pub fn superseded(output: &PrunedOutput<'_>, by: &str) -> String {
    format!(
        "[output pruned: {} ({}) is out of date, the path was used again in entry {by}; \
         recall entry {} to see the old output]",
        call(output),
        plural(output.tokens, "token"),
        output.id,
    )
}

/// The first and last lines of an output with a marker for what lies between, and the
/// exit status; `None` when the output is too short to gain anything.
pub fn head_tail(
    output: &PrunedOutput<'_>,
    text: &str,
    (head, tail): (usize, usize),
    status: Option<&str>,
) -> Option<String> {
    let all: Vec<&str> = text.lines().collect();
    if all.len() <= head.saturating_add(tail) {
        return None;
    }
    let mut out = format!(
        "[{} output, {}, {}; middle pruned]\n",
        call(output),
        plural(all.len(), "line"),
        plural(output.tokens, "token")
    );
    for line in &all[..head] {
        out.push_str(&cut_chars(line, LINE_CHARS));
        out.push('\n');
    }
    out.push_str(&format!(
        "[… {} pruned; recall entry {} for the full output …]\n",
        plural(all.len() - head - tail, "line"),
        output.id,
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
        let arguments = json!({"path":"src/lib.rs"});
        let output =
            PrunedOutput { tool: "read", arguments: &arguments, tokens: 1234, id: "ab12cd34" };
        let text = elide(&output, "a\nb\nc");
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
        let arguments = json!({"command":"cargo test"});
        let output = PrunedOutput { tool: "bash", arguments: &arguments, tokens: 99, id: "x1" };
        let out = head_tail(&output, &text, (2, 2), Some("exit code 101")).unwrap();
        assert_eq!(
            out,
            "[bash {\"command\":\"cargo test\"} output, 30 lines, 99 tokens; middle pruned]\n\
             line 1\nline 2\n[… 26 lines pruned; recall entry x1 for the full output …]\n\
             line 29\nline 30\n[exit code 101]"
        );
        let short = PrunedOutput { tool: "bash", arguments: &Value::Null, tokens: 1, id: "x" };
        assert_eq!(head_tail(&short, "a\nb\nc", (2, 2), None), None);
    }
}
