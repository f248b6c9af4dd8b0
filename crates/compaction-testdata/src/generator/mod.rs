//! The session simulation: the current path, ids, the clock and token estimates.
//!
//! [`SessionGenerator`] keeps the path from the root to the current leaf; every entry it
//! appends becomes a child of that leaf. The stages of a session live beside this file:
//! `turn` (user prompts and the events between turns), `reply` (assistant replies, tool
//! calls and their results) and `summaries` (compactions and branch summaries).

mod pi16;
mod reply;
mod summaries;
mod turn;

use std::collections::{BTreeSet, HashSet, VecDeque};

use serde_json::{Map, Value, json};

use crate::GenerateOptions;
use crate::random::Rng;
use crate::timestamp::iso_timestamp;
use crate::vocabulary::{MODELS, MODULES, THINKING_LEVELS};

/// Approximate tokens of a text (pi's chars / 4, rounded up).
pub(crate) fn tokens_of(text: &str) -> u64 {
    (text.len() as u64).div_ceil(4)
}

/// What a node on the current path is, for branching and compaction decisions.
#[derive(Debug, Clone, Copy, PartialEq)]
enum NodeKind {
    /// A user message: a valid first kept entry and a turn start.
    User,
    /// The final assistant reply of a turn: a place to branch from.
    TurnEnd,
    /// A compaction with the path position of its first kept entry.
    Compaction {
        first_kept: usize,
        summary_tokens: u64,
    },
    Other,
}

/// One entry on the current path.
#[derive(Debug, Clone)]
struct Node {
    id: String,
    kind: NodeKind,
    /// Estimated context tokens of this and all earlier path entries (compactions excluded).
    cumulative_tokens: u64,
    /// A compaction's `details` (its file lists), carried into the next compaction.
    details: Option<Value>,
}

/// A file the assistant read (`modified == false`) or changed, at a path position.
#[derive(Debug, Clone)]
struct FileOp {
    position: usize,
    file: String,
    modified: bool,
}

/// Streams the lines of a generated session (without line endings): the header, then
/// exactly `entries` entries.
#[derive(Debug)]
pub struct SessionGenerator {
    options: GenerateOptions,
    rng: Rng,
    header_done: bool,
    emitted: usize,
    queue: VecDeque<String>,
    used_ids: HashSet<u32>,
    path: Vec<Node>,
    file_ops: Vec<FileOp>,
    clock_ms: u64,
    model: usize,
    thinking: usize,
    turns: usize,
    tool_output_mean: usize,
    cwd: String,
    files: Vec<String>,
    named: bool,
    /// Ids of the tool results written (pi 1.6 context edits target them).
    tool_results: HashSet<String>,
    /// The prompt sections and tools the system messages declared so far (pi 1.6).
    system_sections: Map<String, Value>,
    system_tools: Vec<String>,
}

/// Fixed bytes per entry of the default mix (envelope, prompts, replies, thinking), and the
/// share of one tool-output mean each entry carries on average. Calibrated by measuring
/// generated sessions (see the `average_entry_size_follows_the_option` test).
const FIXED_BYTES_PER_ENTRY: f64 = 838.0;
const TOOL_OUTPUT_SHARE: f64 = 0.301;

impl SessionGenerator {
    /// A generator drawing from `options` (deterministic for a seed).
    pub fn new(options: GenerateOptions) -> SessionGenerator {
        let mut rng = Rng(options.seed ^ 0x5EED_0F5E_5510_0000);
        let tool_output_mean = (((options.average_entry_bytes as f64) - FIXED_BYTES_PER_ENTRY)
            / TOOL_OUTPUT_SHARE)
            .max(120.0) as usize;
        let project = rng.pick(&["atlas", "ledger", "quill", "harbor", "lumen"]).to_owned();
        let files: Vec<String> = (0..rng.range(8, 16))
            .map(|_| match rng.below(6) {
                0 => format!("src/{}/mod.rs", rng.pick(MODULES)),
                1 => format!("tests/{}.rs", rng.pick(MODULES)),
                2 => "Cargo.toml".to_owned(),
                _ => format!("src/{}.rs", rng.pick(MODULES)),
            })
            .collect::<BTreeSet<_>>()
            .into_iter()
            .collect();
        // 2025-01-01 plus up to a year, so different seeds start on different days.
        let clock_ms = 1_735_689_600_000 + (rng.next_u64() % 31_536_000) * 1000;
        SessionGenerator {
            model: rng.below(MODELS.len()),
            thinking: rng.range(1, THINKING_LEVELS.len() - 1),
            options,
            rng,
            header_done: false,
            emitted: 0,
            queue: VecDeque::new(),
            used_ids: HashSet::new(),
            path: Vec::new(),
            file_ops: Vec::new(),
            clock_ms,
            turns: 0,
            tool_output_mean,
            cwd: format!("/home/dev/{project}"),
            files,
            named: false,
            tool_results: HashSet::new(),
            system_sections: Map::new(),
            system_tools: Vec::new(),
        }
    }

    fn header(&mut self) -> String {
        let r = &mut self.rng;
        let id = format!(
            "{}-{}-4{}-{}{}-{}",
            r.hex(8),
            r.hex(4),
            r.hex(3),
            r.pick(&["8", "9", "a", "b"]),
            r.hex(3),
            r.hex(12)
        );
        let value = json!({
            "type": "session",
            "version": 3,
            "id": id,
            "timestamp": iso_timestamp(self.clock_ms),
            "cwd": self.cwd,
        });
        value.to_string()
    }

    fn new_id(&mut self) -> String {
        loop {
            let candidate = self.rng.next_u64() as u32;
            if self.used_ids.insert(candidate) {
                return format!("{candidate:08x}");
            }
        }
    }

    fn tick(&mut self, low_ms: usize, high_ms: usize) -> u64 {
        self.clock_ms += self.rng.range(low_ms.max(1), high_ms.max(1)) as u64;
        self.clock_ms
    }

    fn leaf_id(&self) -> Value {
        self.path.last().map_or(Value::Null, |node| Value::String(node.id.clone()))
    }

    /// Appends an entry as a child of the current leaf. `head` fields come before the
    /// envelope (pi writes `custom` and `custom_message` that way), `body` after it.
    fn push(
        &mut self,
        entry_type: &str,
        head: Map<String, Value>,
        body: Map<String, Value>,
        kind: NodeKind,
        tokens: u64,
    ) -> String {
        let id = self.new_id();
        let timestamp = iso_timestamp(self.tick(50, 900));
        let mut map = Map::new();
        map.insert("type".into(), entry_type.into());
        map.extend(head);
        map.insert("id".into(), Value::String(id.clone()));
        map.insert("parentId".into(), self.leaf_id());
        map.insert("timestamp".into(), Value::String(timestamp));
        map.extend(body);
        let cumulative_tokens = self.path.last().map_or(0, |n| n.cumulative_tokens) + tokens;
        self.path.push(Node { id: id.clone(), kind, cumulative_tokens, details: None });
        self.queue.push_back(Value::Object(map).to_string());
        id
    }

    fn push_message(&mut self, message: Value, kind: NodeKind, tokens: u64) -> String {
        let tool_result = message.get("role").and_then(Value::as_str) == Some("toolResult");
        let mut body = Map::new();
        body.insert("message".into(), message);
        let id = self.push("message", Map::new(), body, kind, tokens);
        if tool_result {
            self.tool_results.insert(id.clone());
        }
        id
    }

    fn cumulative_before(&self, position: usize) -> u64 {
        position.checked_sub(1).map_or(0, |p| self.path[p].cumulative_tokens)
    }

    fn last_compaction(&self) -> Option<usize> {
        self.path.iter().rposition(|node| matches!(node.kind, NodeKind::Compaction { .. }))
    }

    /// Estimated tokens of the context rebuilt at the current leaf.
    fn context_tokens(&self) -> u64 {
        let end = self.path.last().map_or(0, |n| n.cumulative_tokens);
        match self.last_compaction() {
            Some(at) => match self.path[at].kind {
                NodeKind::Compaction { first_kept, summary_tokens } => {
                    summary_tokens + self.cumulative_before(at) - self.cumulative_before(first_kept)
                        + end
                        - self.path[at].cumulative_tokens
                }
                NodeKind::User | NodeKind::TurnEnd | NodeKind::Other => end,
            },
            None => end,
        }
    }

    fn timestamp_ms(&mut self) -> Value {
        Value::from(self.tick(5, 60) - self.rng.range(1, 4) as u64)
    }

    fn random_file(&mut self) -> String {
        self.rng.pick(&self.files).clone()
    }
}

impl Iterator for SessionGenerator {
    type Item = String;

    fn next(&mut self) -> Option<String> {
        if !self.header_done {
            self.header_done = true;
            return Some(self.header());
        }
        if self.emitted >= self.options.entries {
            return None;
        }
        while self.queue.is_empty() {
            self.turn();
        }
        self.emitted += 1;
        self.queue.pop_front()
    }
}
