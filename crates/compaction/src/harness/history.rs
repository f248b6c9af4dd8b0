//! Tools that let the model get back what compaction took out of its context.
//!
//! Prunes and compactions are views over the append-only log, so nothing the model once
//! saw is gone. An agent registers [`history_tools`] with its model (name, description,
//! JSON schema of the arguments) and routes calls to [`CompactingSession::recall`] and
//! [`CompactingSession::search`]. Placeholders and the context name the entry ids these
//! tools take.
//!
//! Invariant: one call returns at most [`super::HarnessSettings::history_tool_max_chars`]
//! characters (cut on a character boundary, with the offset to ask for the rest); bad
//! arguments are answered with an error text for the model, never a panic.

use compaction_core::context::build_context;
use compaction_core::recall::{HiddenBy, recall, search};
use serde_json::{Value, json};

use super::CompactingSession;

/// The name of the recall tool.
pub const RECALL_TOOL: &str = "recall";
/// The name of the search tool.
pub const SEARCH_TOOL: &str = "search_history";

/// A tool as an agent registers it with its model.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolDefinition {
    /// The tool name the model calls.
    pub name: &'static str,
    /// What the tool does, for the model.
    pub description: &'static str,
    /// JSON schema of the arguments.
    pub parameters: Value,
}

impl ToolDefinition {
    /// The definition as one JSON object (`name`, `description`, `parameters`).
    pub fn to_json(&self) -> Value {
        json!({ "name": self.name, "description": self.description, "parameters": self.parameters })
    }
}

/// The recall and search tools.
pub fn history_tools() -> Vec<ToolDefinition> {
    vec![
        ToolDefinition {
            name: RECALL_TOOL,
            description: "Return the original content of an earlier message or tool output \
                          that was pruned or summarized out of the conversation, by the entry \
                          id a placeholder or search result names. Long content comes in \
                          pages: call again with the offset given at the end.",
            parameters: json!({
                "type": "object",
                "properties": {
                    "id": {"type": "string", "description": "The entry id, e.g. 3f2a1b9c."},
                    "offset": {"type": "integer", "minimum": 0, "description": "Character offset to continue from (default 0)."}
                },
                "required": ["id"],
                "additionalProperties": false
            }),
        },
        ToolDefinition {
            name: SEARCH_TOOL,
            description: "Search the earlier parts of this conversation that were pruned or \
                          summarized away (case-insensitive text match). Returns entry ids with \
                          a snippet; pass an id to recall for the full content.",
            parameters: json!({
                "type": "object",
                "properties": {
                    "query": {"type": "string", "description": "Text to find."},
                    "limit": {"type": "integer", "minimum": 1, "maximum": 50, "description": "Most results (default 10)."}
                },
                "required": ["query"],
                "additionalProperties": false
            }),
        },
    ]
}

/// Cuts `text` to `max` characters from character `offset`, with a note saying how to get
/// the rest.
fn page(text: &str, offset: usize, max: usize) -> String {
    let total = text.chars().count();
    if offset >= total && total > 0 {
        return format!("[offset {offset} is past the end: the content has {total} characters]");
    }
    let chunk: String = text.chars().skip(offset).take(max).collect();
    let end = offset + chunk.chars().count();
    if end < total {
        format!(
            "{chunk}\n[characters {offset}–{end} of {total}; call recall again with offset {end} \
             for more]"
        )
    } else {
        chunk
    }
}

impl CompactingSession {
    /// Handles a `recall` tool call: `{"id": "...", "offset": 0}`. Returns the text for the
    /// tool result (an explanation when the arguments or the id are wrong).
    pub fn recall(&self, arguments: &Value) -> String {
        let max = self.harness.history_tool_max_chars.max(1);
        let Some(id) = arguments.get("id").and_then(Value::as_str) else {
            return "recall needs an `id` (an entry id from a placeholder or a search result)"
                .to_owned();
        };
        let offset = arguments
            .get("offset")
            .and_then(Value::as_u64)
            .and_then(|offset| usize::try_from(offset).ok())
            .unwrap_or(0);
        match recall(self.store.session(), id) {
            Ok(recalled) => page(&recalled.text, offset, max),
            Err(error) => format!("{error}"),
        }
    }

    /// Handles a `search_history` tool call: `{"query": "...", "limit": 10}`. Returns the
    /// hits as text: entry id, role or tool, what hid it, and a snippet.
    pub fn search(&self, arguments: &Value) -> String {
        let max = self.harness.history_tool_max_chars.max(1);
        let Some(query) = arguments.get("query").and_then(Value::as_str) else {
            return "search_history needs a `query`".to_owned();
        };
        let limit = arguments
            .get("limit")
            .and_then(Value::as_u64)
            .and_then(|limit| usize::try_from(limit).ok())
            .unwrap_or(10)
            .clamp(1, 50);
        let session = self.store.session();
        let context = build_context(session, self.leaf);
        let hits = search(session, &context, query, limit, None);
        if hits.is_empty() {
            return format!("no match for `{query}` in the pruned or summarized history");
        }
        let mut out = String::new();
        for hit in hits {
            let hidden = match hit.hidden_by {
                HiddenBy::Compaction { .. } => "summarized",
                HiddenBy::Prune { .. } => "pruned",
                HiddenBy::Edit { .. } => "edited out",
            };
            let who = hit.tool.unwrap_or(hit.role);
            out.push_str(&format!("{} ({who}, {hidden}): {}\n", hit.id, hit.snippet));
        }
        page(out.trim_end(), 0, max)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pages_cut_on_characters_and_say_how_to_continue() {
        assert_eq!(page("héllo", 0, 10), "héllo");
        assert_eq!(
            page("héllo wörld", 0, 5),
            "héllo\n[characters 0–5 of 11; call recall again with offset 5 for more]"
        );
        assert_eq!(page("héllo wörld", 6, 10), "wörld");
        assert!(page("abc", 9, 2).contains("past the end"));
    }

    #[test]
    fn tool_definitions_are_objects_with_schemas() {
        let tools = history_tools();
        assert_eq!(tools.iter().map(|t| t.name).collect::<Vec<_>>(), [RECALL_TOOL, SEARCH_TOOL]);
        for tool in tools {
            let value = tool.to_json();
            assert_eq!(value["parameters"]["type"], "object");
            assert!(value["parameters"]["required"].is_array());
        }
    }
}
