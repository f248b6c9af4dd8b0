//! Entries pi 1.6 writes (with `GenerateOptions::pi16`): the system message of the first
//! request and later patches of its sections and tools, `usage` entries from cache warming,
//! `context_edit` entries that omit or replace earlier tool outputs on the path, and the
//! `systemMessage` checkpoint of compactions.

use serde_json::{Map, Value, json};

use super::{NodeKind, SessionGenerator, tokens_of};
use crate::vocabulary::{WORDS, fill};

/// The tools the first system message declares.
const TOOLS: [&str; 4] = ["read", "bash", "edit", "write"];

fn tool_declaration(name: &str) -> Value {
    json!({
        "name": name,
        "description": format!("The {name} tool of the coding agent."),
        "parameters": {"type": "object", "required": ["path"], "properties": {"path": {"type": "string"}}},
    })
}

impl SessionGenerator {
    /// The system message of the session's first request: every section and tool.
    pub(super) fn first_system_message(&mut self) {
        let mut sections = Map::new();
        sections.insert(
            "preamble".into(),
            Value::from("You are a coding assistant. Help the user inspect and change code."),
        );
        sections.insert(
            "tools".into(),
            Value::from(format!(
                "<tools>\n{}\n</tools>",
                TOOLS.map(|t| format!("- {t}")).join("\n")
            )),
        );
        sections.insert("cwd".into(), Value::from(format!("<cwd>\n{}\n</cwd>", self.cwd)));
        for (name, value) in &sections {
            self.system_sections.insert(name.clone(), value.clone());
        }
        let tools: Vec<Value> = TOOLS.iter().map(|name| tool_declaration(name)).collect();
        self.system_tools = TOOLS.iter().map(|name| (*name).to_owned()).collect();
        let message = json!({
            "role": "system", "content": "", "sections": sections, "toolsAdded": tools,
            "timestamp": self.timestamp_ms(),
        });
        let tokens = tokens_of(&message.to_string());
        self.push_message(message, NodeKind::Other, tokens);
    }

    /// The pi 1.6 events between turns.
    pub(super) fn pi16_events(&mut self) {
        if self.event(0.03) {
            self.system_patch();
        }
        if self.event(0.03) {
            self.cache_warm_usage();
        }
        if self.event(0.05) {
            self.context_edit();
        }
    }

    /// A later system message: a section added, changed or removed, or a tool removed or
    /// added again.
    fn system_patch(&mut self) {
        let mut message = Map::new();
        message.insert("role".into(), "system".into());
        message.insert("content".into(), "".into());
        match self.rng.below(3) {
            0 if self.system_sections.contains_key("style") => {
                self.system_sections.shift_remove("style");
                message.insert("sections".into(), json!({"style": null}));
            }
            0 | 1 => {
                let style =
                    fill(&mut self.rng, "<style>\nKeep answers about {word} short.\n</style>", "");
                self.system_sections.insert("style".into(), Value::from(style.clone()));
                message.insert("sections".into(), json!({"style": style}));
            }
            _ => {
                let name: String = (*self.rng.pick(&TOOLS)).to_owned();
                if self.system_tools.contains(&name) {
                    self.system_tools.retain(|tool| *tool != name);
                    message.insert("toolsRemoved".into(), json!([{"name": name}]));
                } else {
                    self.system_tools.push(name.clone());
                    message.insert("toolsAdded".into(), json!([tool_declaration(&name)]));
                }
            }
        }
        message.insert("timestamp".into(), self.timestamp_ms());
        let message = Value::Object(message);
        let tokens = tokens_of(&message.to_string());
        self.push_message(message, NodeKind::Other, tokens);
    }

    /// Tokens a cache warm-up spent: counted in the session's totals, never in the context.
    fn cache_warm_usage(&mut self) {
        let read = self.rng.range(2_000, 60_000) as u64;
        let mut body = Map::new();
        body.insert("kind".into(), "cache_warm".into());
        body.insert("provider".into(), "anthropic".into());
        body.insert("model".into(), "claude-sonnet-4-5".into());
        body.insert(
            "usage".into(),
            json!({"input": 0, "output": 0, "cacheRead": read, "cacheWrite": 0, "totalTokens": read,
                "cost": {"input": 0, "output": 0, "cacheRead": read as f64 * 3e-7, "cacheWrite": 0,
                    "total": read as f64 * 3e-7}}),
        );
        self.push("usage", Map::new(), body, NodeKind::Other, 0);
    }

    /// An edit of a tool output on the path after the latest compaction: left out, or
    /// replaced by a short note.
    fn context_edit(&mut self) {
        let start = self.last_compaction().map_or(0, |at| at + 1);
        let candidates: Vec<String> = self.path[start..]
            .iter()
            .filter(|node| self.tool_results.contains(&node.id))
            .map(|node| node.id.clone())
            .collect();
        if candidates.is_empty() {
            return;
        }
        let target = self.rng.pick(&candidates).clone();
        let mut body = Map::new();
        body.insert("targetId".into(), target.into());
        let replacement = if self.rng.chance(0.4) {
            Value::Null
        } else {
            let note = format!("[output of no further use: {}]", self.rng.pick(WORDS));
            json!({"content": [{"type": "text", "text": note}]})
        };
        body.insert("replacement".into(), replacement);
        self.push("context_edit", Map::new(), body, NodeKind::Other, 0);
    }

    /// The `systemMessage` a compaction carries: the prompt and tools as they are now.
    pub(super) fn system_checkpoint(&mut self) -> Value {
        let tools: Vec<Value> =
            self.system_tools.iter().map(|name| tool_declaration(name)).collect();
        json!({
            "role": "system", "content": "", "sections": self.system_sections.clone(),
            "toolsAdded": tools, "timestamp": self.clock_ms,
        })
    }
}
