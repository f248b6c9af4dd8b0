//! Prune and undo over `context_edit` entries written by another writer (generated).
//!
//! Each case is a session of tool calls and results, followed by a random sequence of
//! operations: another writer replacing or omitting an output (a `context_edit`), a prune
//! (of every output the planner may prune, or of a random subset as an extension would
//! choose), and an undo of the latest prune in force. A model of the user's intent is kept
//! beside the session: the latest write of each output wins (pi 1.6), a prune shows its
//! placeholder, and an undo puts back what the context showed just before the prune,
//! except for outputs another writer edited after it. After every operation the projected
//! context must equal the model, and every placeholder must be built from what the context
//! showed (no line of a hidden or replaced version comes back).
//!
//! Cases are split once by a fixed rule: case numbers divisible by 3 are the test part, the
//! rest the dev part; both are reported.

use std::collections::{BTreeMap, HashMap, HashSet};

use compaction_core::context::build_context;
use compaction_core::ledger::{UndoTarget, undo_target};
use compaction_core::message::AgentMessage;
use compaction_core::prune::{
    PruneDecision, PruneRecord, PruneSettings, ToolPolicy, plan_prune, select::plan_prune_of,
    undo_edits,
};
use compaction_core::tokens::estimator_by_name;
use compaction_core::{Session, parse_session};
use serde_json::{Map, Value, json};

/// SplitMix64: a small deterministic generator, so every case is reproducible by number.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: usize) -> usize {
        usize::try_from(self.next() % n as u64).unwrap()
    }
}

/// What the model expects the context to show for one output.
#[derive(Debug, Clone, PartialEq)]
enum Shown {
    Content(Value),
    Omitted,
}

struct Case {
    text: String,
    next_id: usize,
    /// Tool result ids in order.
    outputs: Vec<String>,
    model: BTreeMap<String, Shown>,
    /// Prunes in force, oldest first: (record id, state before it of each pruned output,
    /// outputs another writer edited after it).
    prunes: Vec<(String, BTreeMap<String, Shown>, HashSet<String>)>,
    /// Every version of every output's text lines (marker → output id).
    versions: HashMap<String, String>,
    /// Whether outputs and other writers' replacements take every shape pi accepts (several
    /// text blocks, an image among them, a string, extra fields, no `content` at all),
    /// rather than one text block.
    shapes: bool,
    /// Each output's own content (what a replacement without `content` leaves shown).
    originals: HashMap<String, Value>,
}

/// The text of a content value (blocks or a string), its text blocks joined.
fn text_of(content: &Value) -> String {
    match content {
        Value::String(text) => text.clone(),
        Value::Array(blocks) => blocks
            .iter()
            .filter_map(|block| block.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join("\n"),
        Value::Null | Value::Bool(_) | Value::Number(_) | Value::Object(_) => String::new(),
    }
}

/// `lines` of text for `marker` in one of the shapes a content takes: `(written, shown)`,
/// what goes in the file and what the context shows for it (a string is shown as one text
/// block).
fn content_shape(marker: &str, lines: usize, shape: usize) -> (Value, Value) {
    let text: Vec<String> = (0..lines).map(|k| format!("{marker}-L{k} some output text")).collect();
    let image = json!({"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"});
    match shape {
        // Several text blocks.
        1 if lines > 1 => {
            let half = lines / 2;
            let blocks = json!([
                {"type": "text", "text": text[..half].join("\n")},
                {"type": "text", "text": text[half..].join("\n")},
            ]);
            (blocks.clone(), blocks)
        }
        // An image among the text.
        2 => {
            let blocks = json!([image, {"type": "text", "text": text.join("\n")}]);
            (blocks.clone(), blocks)
        }
        // A string.
        3 => (json!(text.join("\n")), json!([{"type": "text", "text": text.join("\n")}])),
        _ => {
            let blocks = json!([{"type": "text", "text": text.join("\n")}]);
            (blocks.clone(), blocks)
        }
    }
}

fn lines_value(marker: &str, lines: usize) -> Value {
    let text: Vec<String> = (0..lines).map(|k| format!("{marker}-L{k} some output text")).collect();
    json!([{ "type": "text", "text": text.join("\n") }])
}

impl Case {
    fn session(&self) -> Session {
        parse_session(self.text.as_bytes())
    }

    fn append(&mut self, entry_type: &str, mut fields: Map<String, Value>) -> String {
        let session = self.session();
        let parent = session.leaf().map(|leaf| session.entries()[leaf].id.clone());
        self.next_id += 1;
        let id = format!("e{:07}", self.next_id);
        fields.insert("type".into(), json!(entry_type));
        fields.insert("id".into(), json!(id));
        fields.insert("parentId".into(), json!(parent));
        fields.insert("timestamp".into(), json!("2026-01-01T00:00:00.000Z"));
        self.text.push_str(&Value::Object(fields).to_string());
        self.text.push('\n');
        id
    }

    fn generate(rng: &mut Rng, shapes: bool) -> Case {
        let mut case = Case {
            text: "{\"type\":\"session\",\"version\":3,\"id\":\"s\",\"timestamp\":\"2026-01-01T00:00:00.000Z\",\"cwd\":\"/p\"}\n".to_owned(),
            next_id: 0,
            outputs: Vec::new(),
            model: BTreeMap::new(),
            prunes: Vec::new(),
            versions: HashMap::new(),
            shapes,
            originals: HashMap::new(),
        };
        let turns = 3 + rng.below(6);
        for turn in 0..turns {
            let message = json!({"role": "user", "content": format!("turn {turn}")});
            case.append("message", Map::from_iter([("message".to_owned(), message)]));
            let tool = ["bash", "grep", "read"][rng.below(3)];
            let call = format!("call{turn}");
            let message = json!({"role": "assistant", "content": [
                {"type": "toolCall", "id": call, "name": tool,
                 "arguments": {"path": format!("f{turn}.rs"), "command": "make"}}],
                "provider": "p", "model": "m", "stopReason": "toolUse"});
            case.append("message", Map::from_iter([("message".to_owned(), message)]));
            let marker = format!("orig{turn}");
            let lines = 5 + rng.below(40);
            let (content, shown) = if shapes {
                // Tool results hold blocks (a string only comes from an edit).
                content_shape(&marker, lines, rng.below(3))
            } else {
                let content = lines_value(&marker, lines);
                (content.clone(), content)
            };
            let message = json!({"role": "toolResult", "toolCallId": call, "toolName": tool,
                "content": content, "isError": false});
            let id = case.append("message", Map::from_iter([("message".to_owned(), message)]));
            case.versions.insert(marker, id.clone());
            case.originals.insert(id.clone(), shown.clone());
            case.model.insert(id.clone(), Shown::Content(shown));
            case.outputs.push(id);
        }
        case
    }

    fn foreign_edit(&mut self, rng: &mut Rng, step: usize) {
        let target = self.outputs[rng.below(self.outputs.len())].clone();
        let shown = if rng.below(4) == 0 {
            self.append(
                "context_edit",
                Map::from_iter([
                    ("targetId".to_owned(), json!(target)),
                    ("replacement".to_owned(), Value::Null),
                ]),
            );
            Shown::Omitted
        } else if self.shapes && rng.below(6) == 0 {
            // A replacement without `content` (only other fields): the output's own content
            // is shown, as no edit replaced it.
            self.append(
                "context_edit",
                Map::from_iter([
                    ("targetId".to_owned(), json!(target)),
                    ("replacement".to_owned(), json!({ "details": {"by": "another writer"} })),
                ]),
            );
            Shown::Content(self.originals[&target].clone())
        } else {
            let marker = format!("repl{step}");
            let lines = 1 + rng.below(40);
            let (content, shown) = if self.shapes {
                content_shape(&marker, lines, rng.below(4))
            } else {
                let content = lines_value(&marker, lines);
                (content.clone(), content)
            };
            let mut replacement = json!({ "content": content });
            if self.shapes && rng.below(2) == 0 {
                replacement["isError"] = json!(true);
                replacement["details"] = json!({"exitCode": 1});
            }
            self.versions.insert(marker, target.clone());
            self.append(
                "context_edit",
                Map::from_iter([
                    ("targetId".to_owned(), json!(target)),
                    ("replacement".to_owned(), replacement),
                ]),
            );
            Shown::Content(shown)
        };
        self.model.insert(target.clone(), shown);
        for (_, _, touched) in &mut self.prunes {
            touched.insert(target.clone());
        }
    }

    /// Prunes; returns an error message when a placeholder was not built from what the
    /// context showed.
    fn prune(&mut self, rng: &mut Rng, settings: &PruneSettings) -> Result<(), String> {
        let session = self.session();
        let context = build_context(&session, session.leaf());
        let estimator = estimator_by_name("pi").unwrap();
        let mut plan = plan_prune(&session, &context, settings, estimator.as_ref());
        if rng.below(2) == 0 {
            let ids: Vec<String> =
                self.outputs.iter().filter(|_| rng.below(2) == 0).cloned().collect();
            plan = plan_prune_of(&session, &context, settings, estimator.as_ref(), &ids);
        }
        if plan.candidates.is_empty() || plan.decision == PruneDecision::Nothing {
            return Ok(());
        }
        let active: HashSet<&String> =
            self.prunes.iter().flat_map(|(_, before, _)| before.keys()).collect();
        let mut before = BTreeMap::new();
        for candidate in &plan.candidates {
            let shown = &self.model[&candidate.id];
            let Shown::Content(content) = shown else {
                return Err(format!("{} is omitted by another writer, yet pruned", candidate.id));
            };
            if active.contains(&candidate.id) {
                return Err(format!("{} is pruned twice", candidate.id));
            }
            let shown_text = &text_of(content);
            for marker in candidate.placeholder.split_whitespace().filter_map(|word| {
                word.split("-L").next().filter(|m| self.versions.contains_key(*m))
            }) {
                if !shown_text.contains(&format!("{marker}-L")) {
                    return Err(format!(
                        "placeholder of {} shows {marker}, not what the context shows",
                        candidate.id
                    ));
                }
            }
            let projected = AgentMessage::ToolResult(
                serde_json::from_value(json!({
                "role": "toolResult", "toolCallId": "x", "toolName": candidate.tool,
                "content": content, "isError": false}))
                .unwrap(),
            );
            if candidate.tokens != estimator.message_tokens(&projected) {
                return Err(format!(
                    "{} measured from a version the context does not show",
                    candidate.id
                ));
            }
            before.insert(candidate.id.clone(), shown.clone());
        }
        let record = plan.record();
        for fields in record.context_edits() {
            self.append("context_edit", fields);
        }
        let id = self.append("custom", record.entry_fields());
        for candidate in &plan.candidates {
            let placeholder = json!([{ "type": "text", "text": candidate.placeholder }]);
            self.model.insert(candidate.id.clone(), Shown::Content(placeholder));
        }
        self.prunes.push((id, before, HashSet::new()));
        Ok(())
    }

    fn undo(&mut self) -> Result<(), String> {
        let session = self.session();
        let context = build_context(&session, session.leaf());
        let target = undo_target(&session, &context);
        let Some((id, before, touched)) = self.prunes.pop() else {
            return match target {
                None => Ok(()),
                Some(_) => Err("undo found a prune where none is in force".to_owned()),
            };
        };
        let Some(UndoTarget::Prune { prune }) = target else {
            return Err(format!("undo did not find prune {id}"));
        };
        if session.entries()[prune].id != id {
            return Err(format!("undo chose {} instead of {id}", session.entries()[prune].id));
        }
        for fields in undo_edits(&session, &context, prune) {
            self.append("context_edit", fields);
        }
        self.append("custom", PruneRecord::Revert { revert: id }.entry_fields());
        for (output, shown) in before {
            if !touched.contains(&output) {
                self.model.insert(output, shown);
            }
        }
        Ok(())
    }

    /// The projected content of every output, against the model.
    fn check(&self) -> Result<(), String> {
        let session = self.session();
        let context = build_context(&session, session.leaf());
        let mut seen = BTreeMap::new();
        for &item in &context.items {
            if let AgentMessage::ToolResult(result) = context.message(&session, item) {
                let id = session.entries()[item.entry].id.clone();
                seen.insert(id, Shown::Content(serde_json::to_value(&result.content).unwrap()));
            }
        }
        for (output, expected) in &self.model {
            let actual = seen.get(output).cloned().unwrap_or(Shown::Omitted);
            if &actual != expected {
                return Err(format!("{output}: context shows {actual:?}, expected {expected:?}"));
            }
        }
        Ok(())
    }
}

fn run_case(number: u64) -> Result<(), String> {
    run_case_of(number, false)
}

fn run_case_of(number: u64, shapes: bool) -> Result<(), String> {
    let mut rng = Rng(number.wrapping_mul(0x2545_F491_4F6C_DD1D) ^ 0x5EED);
    let mut case = Case::generate(&mut rng, shapes);
    let settings = PruneSettings {
        protect_recent_tokens: [0, 200][rng.below(2)],
        minimum_savings: 0,
        protect_turns: [0, 1][rng.below(2)],
        tools: BTreeMap::from([
            ("read".to_owned(), ToolPolicy::DropSuperseded),
            ("bash".to_owned(), ToolPolicy::HeadTail),
        ]),
        head_lines: 3,
        tail_lines: 3,
        ..PruneSettings::default()
    };
    let steps = 4 + rng.below(14);
    for step in 0..steps {
        match rng.below(5) {
            0 | 1 => case.foreign_edit(&mut rng, step),
            2 | 3 => case.prune(&mut rng, &settings)?,
            _ => case.undo()?,
        }
        case.check().map_err(|error| format!("after step {step}: {error}"))?;
    }
    // Undo everything left: every output ends as its writers last left it.
    while !case.prunes.is_empty() {
        case.undo()?;
        case.check().map_err(|error| format!("after the final undo: {error}"))?;
    }
    Ok(())
}

#[test]
fn prune_and_undo_follow_edits_written_by_others() {
    const CASES: u64 = 240;
    let (mut dev, mut test) = ((0, 0), (0, 0));
    let mut failures = Vec::new();
    for number in 0..CASES {
        let part = if number % 3 == 0 { &mut test } else { &mut dev };
        part.1 += 1;
        match run_case(number) {
            Ok(()) => part.0 += 1,
            Err(error) => failures.push(format!("case {number}: {error}")),
        }
    }
    println!("foreign edits: dev {}/{} cases hold, test {}/{}", dev.0, dev.1, test.0, test.1);
    assert!(failures.is_empty(), "{} failures:\n{}", failures.len(), failures.join("\n"));
}

/// The same sequences with outputs and other writers' replacements in every shape pi
/// accepts: several text blocks, an image among the text, a string, extra fields beside the
/// content (`isError`, `details`), and a replacement with no `content`, which shows the
/// output's own content again. Prune measures and describes what the context shows, and
/// undo puts back the state before the prune.
#[test]
fn prune_and_undo_follow_edits_of_every_shape() {
    const CASES: u64 = 240;
    let (mut dev, mut test) = ((0, 0), (0, 0));
    let mut failures = Vec::new();
    for number in 0..CASES {
        let is_test = number % 3 == 0;
        let part = if is_test { &mut test } else { &mut dev };
        part.1 += 1;
        match run_case_of(number, true) {
            Ok(()) => part.0 += 1,
            // Only the dev part's misses are shown; the test part is counted.
            Err(error) if !is_test => failures.push(format!("case {number}: {error}")),
            Err(_) => failures.push(format!("case {number} (test part)")),
        }
    }
    println!(
        "foreign edits of every shape: dev {}/{} cases hold, test {}/{}",
        dev.0, dev.1, test.0, test.1
    );
    assert!(failures.is_empty(), "{} failures:\n{}", failures.len(), failures.join("\n"));
}
