//! Pruning: old tool outputs replaced by placeholders in the context, without an LLM call.
//!
//! A prune never deletes anything. It is written as `context_edit` entries that show a
//! placeholder instead of each pruned output (pi 1.6 applies them with no package), and a
//! pi `custom` entry (`customType: "compaction.prune"`) listing the pruned entries and their
//! placeholders, for `dropped`, `stats` and `undo` ([`record::PruneView`]). A later
//! `compaction.prune` entry with a `revert` field, after edits that put back what the
//! context showed before the prune ([`undo::undo_edits`]), undoes one. [`select::plan_prune`] decides what to prune at a leaf: it protects the newest
//! tool output and the last user turns, applies a policy per tool, prunes disposable
//! results and superseded reads first, and prunes only when the saving is worth a break of
//! the prompt cache.
//!
//! Invariant: a prune replaces the *content* of `toolResult` messages and nothing else, so
//! every tool call keeps its result and every result its call; the original bytes stay in
//! the log and can be recalled by entry id.

pub mod placeholder;
pub mod record;
pub mod select;
pub mod undo;

#[cfg(test)]
mod tests_round18;

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

pub use record::{PRUNE_CUSTOM_TYPE, PruneRecord, PruneView, PrunedItem, context_edit_fields};
pub use select::{PruneCandidate, PruneDecision, PrunePlan, PruneReason, plan_prune};
pub use undo::undo_edits;

/// How a compaction reduces the context.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Strategy {
    /// Summarize with the summarizer (an LLM, or the offline one); never prune.
    Summarize,
    /// Prune old tool outputs; never summarize.
    Prune,
    /// Prune first; summarize only when pruning does not bring the context under the
    /// trigger threshold (or there was nothing worth pruning).
    #[default]
    Hybrid,
}

impl Strategy {
    /// The name used in flags, settings and output.
    pub fn as_str(self) -> &'static str {
        match self {
            Strategy::Summarize => "summarize",
            Strategy::Prune => "prune",
            Strategy::Hybrid => "hybrid",
        }
    }

    /// Parses `summarize`, `prune` or `hybrid`.
    pub fn parse(name: &str) -> Option<Strategy> {
        match name {
            "summarize" => Some(Strategy::Summarize),
            "prune" => Some(Strategy::Prune),
            "hybrid" => Some(Strategy::Hybrid),
            _ => None,
        }
    }
}

/// What happens to one tool's old results.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ToolPolicy {
    /// Never pruned.
    Protect,
    /// Replaced by a one-line placeholder naming the tool, its arguments, the size and the
    /// entry id to recall.
    Elide,
    /// The first and last lines are kept (test and build output), with the exit status.
    HeadTail,
    /// A `read` whose path was read, edited or written again later is pruned whatever its
    /// age; an old read that was not superseded is elided.
    DropSuperseded,
}

impl ToolPolicy {
    /// The name used in settings and in the prune record.
    pub fn as_str(self) -> &'static str {
        match self {
            ToolPolicy::Protect => "protect",
            ToolPolicy::Elide => "elide",
            ToolPolicy::HeadTail => "head_tail",
            ToolPolicy::DropSuperseded => "drop_superseded",
        }
    }
}

/// The prune rules (the `prune` object of the compaction settings).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default, deny_unknown_fields)]
pub struct PruneSettings {
    /// Tokens of the newest tool output that are never pruned (40000).
    pub protect_recent_tokens: u64,
    /// A prune happens only when it saves at least this many tokens (20000), so the prompt
    /// cache breaks rarely and in batches.
    pub minimum_savings: u64,
    /// The last user turns that are never pruned (2).
    pub protect_turns: u64,
    /// Policy per tool name (`read`: `drop_superseded`, `bash`: `head_tail`).
    pub tools: BTreeMap<String, ToolPolicy>,
    /// Policy of tools not listed in `tools` (`elide`).
    pub default_policy: ToolPolicy,
    /// Tool names whose results are disposable and pruned first; `*` matches any run of
    /// characters (none by default). A result with `details.disposable: true` is disposable
    /// too.
    pub disposable_tools: Vec<String>,
    /// Lines kept at the start of a `head_tail` output (10).
    pub head_lines: u64,
    /// Lines kept at the end of a `head_tail` output (10).
    pub tail_lines: u64,
}

impl Default for PruneSettings {
    fn default() -> Self {
        PruneSettings {
            protect_recent_tokens: 40_000,
            minimum_savings: 20_000,
            protect_turns: 2,
            tools: BTreeMap::from([
                ("read".to_owned(), ToolPolicy::DropSuperseded),
                ("bash".to_owned(), ToolPolicy::HeadTail),
            ]),
            default_policy: ToolPolicy::Elide,
            disposable_tools: Vec::new(),
            head_lines: 10,
            tail_lines: 10,
        }
    }
}

impl PruneSettings {
    /// The policy for results of `tool`.
    pub fn policy(&self, tool: &str) -> ToolPolicy {
        self.tools.get(tool).copied().unwrap_or(self.default_policy)
    }

    /// Whether results of `tool` are disposable by name.
    pub fn is_disposable_tool(&self, tool: &str) -> bool {
        self.disposable_tools.iter().any(|pattern| glob_matches(pattern, tool))
    }
}

/// Matches `text` against `pattern`, where `*` stands for any run of characters.
fn glob_matches(pattern: &str, text: &str) -> bool {
    let mut parts = pattern.split('*');
    let Some(first) = parts.next() else { return text.is_empty() };
    let Some(mut rest) = text.strip_prefix(first) else { return false };
    let parts: Vec<&str> = parts.collect();
    let Some((last, middle)) = parts.split_last() else { return rest.is_empty() };
    for part in middle {
        match rest.find(part) {
            Some(at) => rest = &rest[at + part.len()..],
            None => return false,
        }
    }
    rest.len() >= last.len() && rest.ends_with(last)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn glob_patterns_match_tool_names() {
        assert!(glob_matches("ls", "ls"));
        assert!(!glob_matches("ls", "lsx"));
        assert!(glob_matches("mcp_*", "mcp_search"));
        assert!(glob_matches("*_search", "web_search"));
        assert!(glob_matches("a*b*c", "aXXbYYc"));
        assert!(!glob_matches("a*b*c", "aXXcYYb"));
        assert!(glob_matches("*", ""));
        assert!(!glob_matches("ab*ba", "aba"));
    }

    #[test]
    fn settings_read_camel_case_and_reject_unknown_keys() {
        let settings: PruneSettings = serde_json::from_value(serde_json::json!({
            "protectRecentTokens": 1000,
            "tools": {"grep": "head_tail"},
            "disposableTools": ["ls"]
        }))
        .unwrap();
        assert_eq!(settings.protect_recent_tokens, 1000);
        assert_eq!(settings.minimum_savings, 20_000);
        assert_eq!(settings.policy("grep"), ToolPolicy::HeadTail);
        assert_eq!(settings.policy("read"), ToolPolicy::Elide);
        assert!(settings.is_disposable_tool("ls"));
        let unknown = serde_json::from_value::<PruneSettings>(serde_json::json!({"protect": 1}));
        assert!(unknown.is_err());
    }
}
