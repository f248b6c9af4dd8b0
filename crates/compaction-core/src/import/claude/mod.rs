//! Claude Code transcripts: `user` / `assistant` lines linked by `uuid` / `parentUuid`.
//!
//! This file orders the lines (a line whose parent comes later waits for it, a resent
//! message's first version is recognized from the first pass); `lines` converts each kind of
//! line, `blocks` the content blocks. Claude Code writes one line per content block of a
//! reply (the lines share `message.id`); consecutive lines of one reply become one assistant
//! message. Each
//! `tool_result` block becomes a pi tool result, chained after the previous result of the same
//! reply, so a reply's results never branch. A line whose parent was left out (bookkeeping,
//! side chains) hangs from the nearest kept ancestor; a root that continues an earlier
//! conversation (after Claude Code's own compaction, `logicalParentUuid`) hangs from what it
//! continues, or from the entry before it. Side chains (sub-agent conversations) are left out
//! of a main transcript; a sub-agent's own file, which is all side chain, is kept whole.
//!
//! Invariant: every tool result entry follows (on its branch) the assistant entry holding its
//! call, when that call is in the transcript.

use std::collections::{HashMap, HashSet, VecDeque};
use std::hash::{BuildHasher as _, BuildHasherDefault, DefaultHasher};

use serde_json::Value;

mod blocks;
mod lines;

use super::build::{Builder, Header};
use lines::{assistant_line, attachment_line, resent_line, user_line, users_words};

/// The `customType` of a message's first version that the user edited and sent again.
const RESENT_CUSTOM_TYPE: &str = "imported-resent-message";

/// How many lines a line whose parent comes later in the file waits for it. Claude Code
/// sometimes writes a tool result a line or two before the reply line holding its call.
const MAX_WAIT_LINES: usize = 256;
/// How many lines may wait at once.
const MAX_WAITING: usize = 256;
/// How many queued inputs are remembered while waiting to see them reach the model.
const MAX_QUEUED: usize = 256;

/// What the first pass learns: the header, whether the file is all side chain, and which
/// line ids it holds (so a line whose parent comes later waits for it, and one whose parent
/// is in no line of the file does not).
#[derive(Debug, Clone, Default)]
pub(super) struct Scan {
    header: Header,
    messages: usize,
    side_chain_messages: usize,
    uuids: HashSet<u64>,
    /// Lines read.
    lines: usize,
    /// The line ids other lines name as their parent (hashed).
    referenced: HashSet<u64>,
    /// Parent id (hashed) → the last line (number) of the user's own words under it.
    last_user_child: HashMap<u64, usize>,
}

/// A fixed hash of a line id (the same in both passes).
fn uuid_hash(uuid: &str) -> u64 {
    BuildHasherDefault::<DefaultHasher>::default().hash_one(uuid)
}

impl Scan {
    pub(super) fn line(&mut self, value: &Value) {
        let text = |key: &str| value.get(key).and_then(Value::as_str).filter(|t| !t.is_empty());
        if self.header.id.is_empty()
            && let Some(session) = text("sessionId")
        {
            session.clone_into(&mut self.header.id);
        }
        if self.header.cwd.is_empty()
            && let Some(cwd) = text("cwd")
        {
            cwd.clone_into(&mut self.header.cwd);
        }
        if self.header.timestamp.is_empty()
            && let Some(timestamp) = text("timestamp")
        {
            timestamp.clone_into(&mut self.header.timestamp);
        }
        self.lines += 1;
        if let Some(uuid) = text("uuid") {
            self.uuids.insert(uuid_hash(uuid));
        }
        if let Some(parent) = text("parentUuid") {
            self.referenced.insert(uuid_hash(parent));
            if users_words(value) {
                self.last_user_child.insert(uuid_hash(parent), self.lines);
            }
        }
        if matches!(value.get("type").and_then(Value::as_str), Some("user" | "assistant")) {
            self.messages += 1;
            if value.get("isSidechain").and_then(Value::as_bool) == Some(true) {
                self.side_chain_messages += 1;
            }
        }
    }

    pub(super) fn header(&self) -> Header {
        let mut header = self.header.clone();
        if header.id.is_empty() {
            header.id = "imported-claude-code-session".into();
        }
        header
    }
}

/// Where lines of the transcript went.
#[derive(Default)]
pub(super) struct State {
    /// A sub-agent's own transcript (`agent-*.jsonl`) is all side chain: keep it then.
    only_side_chain: bool,
    /// Source `uuid` → the entry that stands for it (or for its nearest kept ancestor).
    entry_of: HashMap<String, Option<String>>,
    /// Tool call id → (pi tool name, the assistant entry holding the call), for the latest
    /// call given that id.
    calls: HashMap<String, (String, String)>,
    /// (Tool call id, assistant entry) → pi tool name, for every call (a transcript may
    /// give an id again, in the same reply or another).
    calls_in: HashMap<(String, String), String>,
    /// Assistant entry → the last tool result chained after it.
    result_tail: HashMap<String, String>,
    /// Tool result entry → the assistant entry it is chained after.
    result_reply: HashMap<String, String>,
    /// The `message.id` of the last assistant entry written, while it is the last entry.
    open_reply: Option<(String, String)>,
    /// Whether that entry holds a tool call.
    open_reply_calls: bool,
    /// The last entry written.
    last: Option<String>,
    /// Lines whose parent has not appeared yet, with the line count when they arrived.
    waiting: VecDeque<(usize, Value)>,
    /// Lines seen.
    seen: usize,
    /// The line ids of the file (hashed).
    uuids: HashSet<u64>,
    /// What the first pass learned about parents (see [`Scan`]).
    referenced: HashSet<u64>,
    last_user_child: HashMap<u64, usize>,
    /// Entry → the entry written after it in its place (a message's first version that the
    /// user edited and sent again): the next line under that entry hangs from it instead.
    after: HashMap<String, String>,
    /// The token count before Claude Code's own compaction (its `compact_boundary` line).
    compact_tokens: Option<u64>,
    /// Text the user queued while the agent worked, not yet seen reaching the model.
    queued: Vec<String>,
}

impl State {
    pub(super) fn new(scan: &Scan) -> Self {
        State {
            only_side_chain: scan.messages > 0 && scan.side_chain_messages == scan.messages,
            uuids: scan.uuids.clone(),
            referenced: scan.referenced.clone(),
            last_user_child: scan.last_user_child.clone(),
            ..State::default()
        }
    }

    /// The entry a line hangs from, past the first versions of resent messages. Every entry
    /// passed on the way then leads there at once: a message resent many times under one
    /// parent made each later line walk the whole chain (quadratic in the transcript).
    fn parent(&mut self, value: &Value) -> Option<String> {
        let start = self.named_parent(value)?;
        let mut end = start.clone();
        while let Some(next) = self.after.get(&end) {
            end.clone_from(next);
        }
        let mut at = start;
        while let Some(next) = self.after.get(&at).cloned() {
            if next == end {
                break;
            }
            self.after.insert(at, end.clone());
            at = next;
        }
        Some(end)
    }

    /// The entry a line names as its parent (or the nearest kept ancestor).
    fn named_parent(&self, value: &Value) -> Option<String> {
        let lookup = |key: &str| -> Option<Option<String>> {
            let uuid = value.get(key)?.as_str()?;
            self.entry_of.get(uuid).cloned()
        };
        if let Some(found) = lookup("parentUuid") {
            return found;
        }
        if let Some(Some(found)) = lookup("logicalParentUuid") {
            return Some(found);
        }
        self.last.clone()
    }

    fn record(&mut self, value: &Value, entry: Option<String>) {
        if let Some(uuid) = value.get("uuid").and_then(Value::as_str) {
            self.entry_of.insert(uuid.to_owned(), entry);
        }
    }

    /// Whether the line names a parent that a later line of the file holds.
    fn parent_later(&self, value: &Value) -> bool {
        value.get("parentUuid").and_then(Value::as_str).is_some_and(|uuid| {
            !self.entry_of.contains_key(uuid) && self.uuids.contains(&uuid_hash(uuid))
        })
    }

    /// Converts one line. A line whose parent appears later in the file (Claude Code writes
    /// some tool results before the reply line with their call) waits for it, a few lines
    /// at most; the lines waiting for a line are converted right after it.
    pub(super) fn line(&mut self, value: Value, builder: &mut Builder<'_>) {
        self.seen += 1;
        if self.parent_later(&value) {
            self.waiting.push_back((self.seen, value));
        } else {
            self.convert_then_waiting(self.seen, value, builder);
        }
        // A parent that did not come in time: the line hangs from the entry before it.
        while let Some((since, _)) = self.waiting.front() {
            if self.seen - since < MAX_WAIT_LINES && self.waiting.len() <= MAX_WAITING {
                break;
            }
            if let Some((number, value)) = self.waiting.pop_front() {
                self.convert_then_waiting(number, value, builder);
            }
        }
    }

    /// Converts `value`, then every waiting line whose parent it is (and theirs).
    fn convert_then_waiting(&mut self, number: usize, value: Value, builder: &mut Builder<'_>) {
        let mut ready = vec![(number, value)];
        while let Some((number, value)) = ready.pop() {
            self.convert(number, &value, builder);
            if let Some(uuid) = value.get("uuid").and_then(Value::as_str) {
                let (children, rest): (VecDeque<_>, VecDeque<_>) =
                    std::mem::take(&mut self.waiting).into_iter().partition(|(_, line)| {
                        line.get("parentUuid").and_then(Value::as_str) == Some(uuid)
                    });
                self.waiting = rest;
                // In file order: the stack pops the last pushed first.
                ready.extend(children.into_iter().rev());
            }
        }
    }

    /// Ends the conversion: lines still waiting hang from the entry before them; queued
    /// input never seen reaching the model is counted.
    pub(super) fn finish(&mut self, builder: &mut Builder<'_>) {
        while let Some((number, value)) = self.waiting.pop_front() {
            self.convert_then_waiting(number, value, builder);
        }
        builder.drop_n(
            "queued input never sent to the model (`queue-operation` enqueue)",
            self.queued.len(),
        );
    }

    /// Whether line `number` is the user's message that they edited and sent again: no line
    /// hangs from it, and a later message of theirs hangs from the same parent.
    fn resent(&self, number: usize, value: &Value) -> bool {
        let text = |key: &str| value.get(key).and_then(Value::as_str);
        let (Some(uuid), Some(parent)) = (text("uuid"), text("parentUuid")) else { return false };
        users_words(value)
            && !self.referenced.contains(&uuid_hash(uuid))
            && self.last_user_child.get(&uuid_hash(parent)).is_some_and(|&last| last > number)
    }

    fn convert(&mut self, number: usize, value: &Value, builder: &mut Builder<'_>) {
        let timestamp = value.get("timestamp").and_then(Value::as_str).unwrap_or("");
        let kind = value.get("type").and_then(Value::as_str).unwrap_or("");
        if !self.only_side_chain && value.get("isSidechain").and_then(Value::as_bool) == Some(true)
        {
            builder.drop("side-chain (sub-agent) line");
            let parent = self.parent(value);
            self.record(value, parent);
            return;
        }
        if self.resent(number, value) {
            return resent_line(value, timestamp, self, builder);
        }
        match kind {
            "user" => user_line(value, timestamp, self, builder),
            "assistant" => assistant_line(value, timestamp, self, builder),
            "attachment" => attachment_line(value, timestamp, self, builder),
            "queue-operation" => {
                self.queue_operation(value);
                builder.drop("`queue-operation` line (queue bookkeeping)");
            }
            "system" => {
                let subtype = value.get("subtype").and_then(Value::as_str).unwrap_or("");
                if subtype == "compact_boundary" {
                    // Becomes the `compaction` entry with the summary that follows it.
                    self.compact_tokens = value
                        .get("compactMetadata")
                        .and_then(|m| m.get("preTokens"))
                        .and_then(Value::as_u64);
                } else {
                    let subtype = if subtype.is_empty() { "untyped" } else { subtype };
                    builder.drop(format!("`system` line ({subtype})"));
                }
                let parent = self.parent(value);
                self.record(value, parent);
            }
            other => {
                builder
                    .drop(format!("`{}` line", if other.is_empty() { "untyped" } else { other }));
                let parent = self.parent(value);
                self.record(value, parent);
            }
        }
    }

    /// Remembers text the user queued while the agent worked.
    fn queue_operation(&mut self, value: &Value) {
        let operation = value.get("operation").and_then(Value::as_str);
        let content = value.get("content").and_then(Value::as_str).map(str::trim);
        if let (Some("enqueue"), Some(text)) = (operation, content)
            && !text.is_empty()
            && self.queued.len() < MAX_QUEUED
        {
            self.queued.push(text.to_owned());
        }
    }

    /// Marks queued input that `text` (which reached the model) carries as delivered.
    fn delivered(&mut self, text: &str) {
        if !self.queued.is_empty() {
            self.queued.retain(|queued| !text.contains(queued.as_str()));
        }
    }
}
