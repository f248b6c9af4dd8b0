//! Hardening round 18, class 2: prune records and context edits other writers left, and
//! `undo` of the latest prune over them.
//!
//! Each instance is a session of tool turns, earlier prunes, another writer's edits and one
//! last prune `P` (its `context_edit` entries, then its `compaction.prune` record), changed
//! by a hostile shape: a record naming an entry that does not exist, one on another branch,
//! a user message, one target twice, a target whose own edit is missing while another
//! writer's edit stands before; another writer's edit between `P`'s edits and its record,
//! of `P`'s record, of `P`'s own edit, of nowhere; reverts of nowhere, of a revert, placed
//! before the prune they name, of a prune on another branch; a record whose counts another
//! writer wrote as text or with fields this version does not know; a record of a thousand
//! targets; a thousand earlier prunes each reverted.
//!
//! The invariant: `undo` at the leaf takes back `P` (the latest prune in force), and the
//! context at the new leaf is the context of the same session in which `P`'s own lines were
//! never written (each line under the nearest line kept above it): every other writer's
//! edit stays in force, every output `P` hid is back.
//!
//! The split was fixed before any fix: instance `i` (in the order generated) is in the test
//! part when `i % 3 == 2`, else in the dev part; dev misses are printed in full, test misses
//! by count (`ROUND18_SHOW_TEST=1` prints them).

use std::collections::HashSet;

use serde_json::{Value, json};

use super::record::PruneRecord;
use super::undo::undo_edits;
use crate::context::build_context;
use crate::ledger::{UndoTarget, undo_target};
use crate::parse_session;
use crate::session::Session;

/// A session being written: lines in order, each under `parent` unless given.
struct Writer {
    lines: Vec<Value>,
    parent: Option<String>,
    /// The ids of `P`'s own lines.
    own: HashSet<String>,
    next: usize,
}

impl Writer {
    fn new() -> Self {
        Writer { lines: Vec::new(), parent: None, own: HashSet::new(), next: 0 }
    }

    fn id(&mut self, prefix: &str) -> String {
        self.next += 1;
        format!("{prefix}{}", self.next)
    }

    /// Appends an entry of `fields` under the current parent; returns its id.
    fn push(&mut self, prefix: &str, mut fields: Value) -> String {
        let id = self.id(prefix);
        fields["id"] = json!(id);
        if fields.get("parentId").is_none() {
            fields["parentId"] = json!(self.parent);
        }
        fields["timestamp"] = json!("2025-01-01T00:00:01.000Z");
        self.lines.push(fields);
        self.parent = Some(id.clone());
        id
    }

    fn message(&mut self, prefix: &str, message: Value) -> String {
        self.push(prefix, json!({ "type": "message", "message": message }))
    }

    /// A tool turn; returns the ids of (user message, tool result).
    fn turn(&mut self, n: usize) -> (String, String) {
        let user = self
            .message("u", json!({ "role": "user", "content": format!("ask {n}"), "timestamp": 1 }));
        self.message("a", json!({
            "role": "assistant",
            "content": [{ "type": "toolCall", "id": format!("c{n}"), "name": "bash", "arguments": { "command": format!("ls {n}") } }],
            "api": "anthropic-messages", "provider": "anthropic", "model": "m",
            "usage": { "input": 1, "output": 1, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 2 },
            "stopReason": "toolUse", "timestamp": 2,
        }));
        let result = self.message(
            "r",
            json!({
                "role": "toolResult", "toolCallId": format!("c{n}"), "toolName": "bash",
                "content": [{ "type": "text", "text": format!("output {n} {}", "x".repeat(40)) }],
                "isError": false, "timestamp": 3,
            }),
        );
        (user, result)
    }

    fn edit(&mut self, target: &str, text: &str) -> String {
        let replacement = json!({ "content": [{ "type": "text", "text": text }] });
        self.push(
            "e",
            json!({ "type": "context_edit", "targetId": target, "replacement": replacement }),
        )
    }

    fn record(&mut self, data: Value) -> String {
        self.push("p", json!({ "type": "custom", "customType": "compaction.prune", "data": data }))
    }

    /// A prune as this tool writes it: an edit per target, then the record.
    fn prune(&mut self, targets: &[String], tag: &str) -> String {
        for target in targets {
            self.edit(target, &placeholder(target, tag));
        }
        self.record(record_data(targets, tag))
    }

    fn revert(&mut self, prune: &str) -> String {
        self.record(json!({ "revert": prune }))
    }

    /// Marks the lines written by `f` as `P`'s own.
    fn own<T>(&mut self, f: impl FnOnce(&mut Writer) -> T) -> T {
        let from = self.lines.len();
        let out = f(self);
        for line in &self.lines[from..] {
            self.own.insert(line["id"].as_str().unwrap_or_default().to_owned());
        }
        out
    }

    fn text(&self, skip_own: bool) -> String {
        let mut out = vec![json!({
            "type": "session", "version": 3, "id": "s", "timestamp": "2025-01-01T00:00:00.000Z", "cwd": "/w",
        })
        .to_string()];
        let parents: std::collections::HashMap<&str, &Value> = self
            .lines
            .iter()
            .map(|line| (line["id"].as_str().unwrap_or_default(), &line["parentId"]))
            .collect();
        for line in &self.lines {
            if skip_own && self.own.contains(line["id"].as_str().unwrap_or_default()) {
                continue;
            }
            let mut line = line.clone();
            if skip_own {
                // Under the nearest line kept above it.
                let mut parent = line["parentId"].clone();
                while let Some(id) = parent.as_str().filter(|id| self.own.contains(*id)) {
                    parent = parents.get(id).map_or(Value::Null, |p| (*p).clone());
                }
                line["parentId"] = parent;
            }
            out.push(line.to_string());
        }
        out.join("\n") + "\n"
    }
}

fn placeholder(target: &str, tag: &str) -> String {
    format!("[output of {target} pruned by {tag}]")
}

fn record_data(targets: &[String], tag: &str) -> Value {
    let entries: Vec<Value> = targets
        .iter()
        .map(|id| json!({ "id": id, "placeholder": placeholder(id, tag), "tool": "bash", "tokens": 20, "tokensAfter": 5 }))
        .collect();
    json!({ "entries": entries, "tokensBefore": 100, "tokensSaved": 15, "contextEdits": true })
}

/// What a shape is given: the writer after the ordinary turns, their (user, result) ids.
type Shape = (&'static str, fn(&mut Writer, &[(String, String)]));

fn results(turns: &[(String, String)]) -> Vec<String> {
    turns.iter().map(|(_, result)| result.clone()).collect()
}

const SHAPES: &[Shape] = &[
    ("an ordinary prune (control)", |w, t| {
        let targets = results(&t[..2]);
        w.own(|w| w.prune(&targets, "P"));
    }),
    ("a record naming an entry that does not exist", |w, t| {
        let mut targets = results(&t[..1]);
        targets.push("nowhere".into());
        w.own(|w| w.prune(&targets, "P"));
    }),
    ("a record naming an entry on another branch", |w, t| {
        let leaf = w.parent.clone();
        w.parent = Some(t[0].1.clone());
        let (_, side) = w.turn(900);
        w.parent = leaf;
        let targets = vec![t[1].1.clone(), side];
        w.own(|w| w.prune(&targets, "P"));
    }),
    ("a record naming a user message", |w, t| {
        let targets = vec![t[0].0.clone(), t[1].1.clone()];
        w.own(|w| w.prune(&targets, "P"));
    }),
    ("a record naming one target twice", |w, t| {
        let target = t[1].1.clone();
        w.own(|w| {
            w.edit(&target, &placeholder(&target, "P"));
            w.record(record_data(&[target.clone(), target.clone()], "P"))
        });
    }),
    ("a target whose own edit is missing, another writer's edit before", |w, t| {
        let target = t[1].1.clone();
        w.edit(&target, "another writer's view");
        let other = t[0].1.clone();
        w.own(|w| {
            w.edit(&other, &placeholder(&other, "P"));
            w.record(record_data(&[other.clone(), target.clone()], "P"))
        });
    }),
    ("another writer's edit between the prune's edits and its record", |w, t| {
        let targets = results(&t[..2]);
        let first = targets[0].clone();
        w.own(|w| {
            for target in &targets {
                w.edit(target, &placeholder(target, "P"));
            }
        });
        w.edit(&first, "another writer's view");
        w.own(|w| w.record(record_data(&targets, "P")));
    }),
    ("another writer's edit of the prune's record", |w, t| {
        let targets = results(&t[..1]);
        let record = w.own(|w| w.prune(&targets, "P"));
        w.edit(&record, "an edit of a record");
    }),
    ("another writer's edit of the prune's own edit", |w, t| {
        let target = t[0].1.clone();
        let edit = w.own(|w| {
            let edit = w.edit(&target, &placeholder(&target, "P"));
            w.record(record_data(std::slice::from_ref(&target), "P"));
            edit
        });
        w.edit(&edit, "an edit of an edit");
    }),
    ("another writer's edit of nowhere after the prune", |w, t| {
        let targets = results(&t[..1]);
        w.own(|w| w.prune(&targets, "P"));
        w.edit("nowhere", "an edit of nowhere");
    }),
    ("a revert of nowhere and a revert of a revert", |w, t| {
        let earlier = w.prune(&results(&t[..1]), "P0");
        let revert = w.revert(&earlier);
        w.revert("nowhere");
        w.revert(&revert);
        let targets = results(&t[1..2]);
        w.own(|w| w.prune(&targets, "P"));
    }),
    ("a revert placed before the prune it names", |w, t| {
        let targets = results(&t[..2]);
        // The record's id is known before it is written: the writer's next `p` id.
        let future = format!("p{}", w.next + 1 + targets.len() + 1);
        w.revert(&future);
        w.own(|w| w.prune(&targets, "P"));
    }),
    ("a revert of a prune on another branch", |w, t| {
        let leaf = w.parent.clone();
        w.parent = Some(t[0].1.clone());
        let side = w.prune(&results(&t[1..2]), "S");
        w.parent = leaf;
        w.revert(&side);
        let targets = results(&t[1..2]);
        w.own(|w| w.prune(&targets, "P"));
    }),
    ("a record whose counts are text", |w, t| {
        let targets = results(&t[..2]);
        w.own(|w| {
            for target in &targets {
                w.edit(target, &placeholder(target, "P"));
            }
            let mut data = record_data(&targets, "P");
            data["tokensBefore"] = json!("100");
            data["entries"][0]["tokens"] = json!("20");
            w.record(data)
        });
    }),
    ("a record with fields this version does not know", |w, t| {
        let targets = results(&t[..2]);
        w.own(|w| {
            for target in &targets {
                w.edit(target, &placeholder(target, "P"));
            }
            let mut data = record_data(&targets, "P");
            data["policy"] = json!({ "future": true });
            data["entries"][0]["policy"] = json!("a policy of a later version");
            data["entries"][1]["reason"] = json!(7);
            w.record(data)
        });
    }),
    ("an earlier prune of the same output (control)", |w, t| {
        let targets = results(&t[..1]);
        w.prune(&targets, "P0");
        w.own(|w| w.prune(&targets, "P"));
    }),
    ("a record of a thousand targets", |w, _| {
        let mut targets = Vec::new();
        for n in 0..1000 {
            targets.push(w.turn(1000 + n).1);
        }
        w.own(|w| w.prune(&targets, "P"));
    }),
    ("a thousand earlier prunes, each reverted", |w, t| {
        let target = results(&t[..1]);
        for n in 0..1000 {
            let earlier = w.prune(&target, &format!("E{n}"));
            w.revert(&earlier);
        }
        w.own(|w| w.prune(&target, "P"));
    }),
];

/// Every instance in generation order: shape × turns (3, 5, 8) × another writer's edit of
/// the last turn's output before the prune (no, yes).
fn instances() -> Vec<(String, Writer)> {
    let mut out = Vec::new();
    for (name, shape) in SHAPES {
        for turns in [3usize, 5, 8] {
            for other in [false, true] {
                let mut w = Writer::new();
                let ids: Vec<(String, String)> = (0..turns).map(|n| w.turn(n)).collect();
                if other {
                    let last = ids[turns - 1].1.clone();
                    w.edit(&last, "another writer's summary of the last output");
                }
                shape(&mut w, &ids);
                out.push((format!("{name} ({turns} turns, other writer's edit: {other})"), w));
            }
        }
    }
    out
}

/// The context at the leaf: each item's entry id and message.
fn context_of(session: &Session, leaf: Option<usize>) -> Vec<(String, Value)> {
    if leaf.is_none() {
        return Vec::new();
    }
    let context = build_context(session, leaf);
    context
        .items
        .iter()
        .map(|&item| {
            let message = context.message(session, item);
            let id = session.entries()[item.entry].id.clone();
            (id, serde_json::to_value(message).unwrap_or(Value::Null))
        })
        .collect()
}

/// The miss of one instance, if any.
fn miss(w: &Writer) -> Option<String> {
    let text = w.text(false);
    let session = parse_session(text.as_bytes());
    let leaf = session.leaf();
    let context = build_context(&session, leaf);
    let prune = match undo_target(&session, &context) {
        Some(UndoTarget::Prune { prune }) => prune,
        other => return Some(format!("undo takes back {other:?}, not the last prune")),
    };
    let id = &session.entries()[prune].id;
    if !w.own.contains(id) {
        return Some(format!("undo takes back {id}, not the last prune"));
    }
    // The undo's lines, as `compaction undo` writes them: its edits, then the revert.
    let mut after = text.clone();
    let mut parent = leaf.map(|leaf| session.entries()[leaf].id.clone());
    let revert = PruneRecord::Revert { revert: id.clone() }.entry_fields();
    let news = undo_edits(&session, &context, prune)
        .into_iter()
        .map(|fields| ("context_edit", fields))
        .chain([("custom", revert)]);
    for (n, (kind, fields)) in news.enumerate() {
        let mut line = Value::Object(fields);
        line["type"] = json!(kind);
        line["id"] = json!(format!("undo{n}"));
        line["parentId"] = json!(parent);
        line["timestamp"] = json!("2025-01-02T00:00:00.000Z");
        after.push_str(&format!("{line}\n"));
        parent = Some(format!("undo{n}"));
    }
    let undone = parse_session(after.as_bytes());
    let got = context_of(&undone, undone.leaf());
    let model = parse_session(w.text(true).as_bytes());
    // The model's leaf: the session's, or the nearest line kept above it.
    let mut at = leaf;
    while let Some(index) = at.filter(|&index| w.own.contains(&session.entries()[index].id)) {
        at = session.parent_of(index);
    }
    let model_leaf = at.and_then(|index| model.index_of(&session.entries()[index].id));
    let want = context_of(&model, model_leaf);
    if got == want {
        return None;
    }
    let differ: Vec<String> = got
        .iter()
        .zip(&want)
        .filter(|(g, w)| g != w)
        .take(2)
        .map(|(g, w)| format!("{}: {} instead of {}", g.0, g.1["content"], w.1["content"]))
        .collect();
    Some(format!("{} items against {}; {}", got.len(), want.len(), differ.join("; ")))
}

#[test]
fn undo_over_records_and_edits_of_other_writers_takes_back_exactly_the_last_prune() {
    let show_test = std::env::var_os("ROUND18_SHOW_TEST").is_some();
    let mut tally = [(0usize, 0usize); 2];
    for (i, (name, w)) in instances().iter().enumerate() {
        let test = i % 3 == 2;
        let count = &mut tally[usize::from(test)];
        count.1 += 1;
        match miss(w) {
            None => count.0 += 1,
            Some(problem) if !test || show_test => {
                let part = if test { "test" } else { "dev" };
                eprintln!("#{i} [{part}] {name}\n    {problem}");
            }
            Some(_) => {}
        }
    }
    let [(dev, dev_all), (test, test_all)] = tally;
    eprintln!(
        "undo over other writers' records and edits: dev {dev}/{dev_all}, test {test}/{test_all}"
    );
    assert!(dev == dev_all && test == test_all, "round 18 undo class: {tally:?}");
}
