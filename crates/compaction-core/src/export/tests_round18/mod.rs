//! Hardening round 18: `compaction export` of hostile pi sessions.
//!
//! Two classes, each generated (pi sessions written here, exported in process to Claude Code
//! and Codex, with a marker in every text, argument and output):
//! - *What the agent refuses*: call ids another provider wrote (a `|`, 200 characters,
//!   empty, spaces, given twice in a reply or by an earlier turn), arguments that are no
//!   object, an empty tool name, a stray result or a user message among a reply's results,
//!   a result before its call, a call with no result, an error result with no content,
//!   images of a type or data the agent cannot read, redacted and signed reasoning, odd
//!   characters, an output of two megabytes. Each line must satisfy the target format's
//!   invariants (`check.rs`).
//! - *What vanishes without a word*: on the same instances, every marker of the session's
//!   context must be in the transcript, or the report must count at least as many items
//!   left out (`dropped`) as markers are missing (tool arguments the agent's tool has no
//!   place for, given in a form the mapping does not read, or colliding with the name the
//!   mapping writes, among them).
//!
//! The split was fixed before any fix: instance `i` (in the order generated) is in the test
//! part when `i % 3 == 2`, else in the dev part. The suite prints the dev part's misses in
//! full and the test part's by number (`ROUND18_SHOW_TEST=1` prints them).

mod check;
mod shapes;
mod write;

use std::collections::HashSet;

use serde_json::Value;

use super::*;
use crate::parse_session;
use shapes::{SHAPES, Turn};
use write::{Marks, session_text, turn};

const ID: &str = "0f1e2d3c-4b5a-4978-8695-a4b3c2d1e0f9";

struct Instance {
    name: String,
    format: TargetFormat,
    session: String,
    markers: Vec<String>,
}

/// Every instance, in generation order: shape × format × (ordinary turns before 0–2 ×
/// calls in the hostile reply 1–3).
fn instances() -> Vec<Instance> {
    let mut out = Vec::new();
    for (shape, change) in SHAPES {
        for format in [TargetFormat::ClaudeCode, TargetFormat::Codex] {
            for filler in 0..3 {
                for calls in 1..=3 {
                    let mut marks = Marks::new(out.len());
                    let mut messages = Vec::new();
                    for f in 0..filler {
                        messages.extend(turn(&format!("f{f}"), 1 + f, &mut marks));
                    }
                    let mut h = turn("x", calls, &mut marks);
                    change(&mut Turn { h: &mut h, calls, filler, marks: &mut marks });
                    messages.extend(h);
                    let session = session_text(&messages);
                    // A marker a shape took out again is not in the session.
                    let markers = marks.made.into_iter().filter(|m| session.contains(m)).collect();
                    out.push(Instance {
                        name: format!(
                            "{shape} ({}, {filler} turns before, {calls} calls)",
                            format.as_str()
                        ),
                        format,
                        session,
                        markers,
                    });
                }
            }
        }
    }
    out
}

/// The data of every redacted reasoning block in the session.
fn redacted(session: &str) -> HashSet<String> {
    let mut out = HashSet::new();
    for line in session.lines() {
        let Ok(entry) = serde_json::from_str::<Value>(line) else { continue };
        for block in entry["message"]["content"].as_array().into_iter().flatten() {
            if block["redacted"] == true {
                out.extend(block["thinkingSignature"].as_str().map(str::to_owned));
            }
        }
    }
    out
}

/// The two classes' misses of one instance.
fn misses(instance: &Instance) -> (Vec<String>, Vec<String>) {
    let session = parse_session(instance.session.as_bytes());
    let options = ExportOptions {
        session_id: ID.into(),
        cwd: "/work/app".into(),
        timestamp: "2026-01-01T00:00:00.000Z".into(),
    };
    let exported =
        match export(&session, session.leaf(), instance.format, &options, &Redactor::default()) {
            Ok(exported) => exported,
            Err(error) => return (vec![format!("export failed: {error}")], Vec::new()),
        };
    if std::env::var("ROUND18_DUMP").is_ok_and(|name| instance.name.starts_with(&name)) {
        eprintln!("{}\n{}\n{}", instance.name, instance.session, exported.transcript);
    }
    let mut lines = Vec::new();
    for (n, line) in exported.transcript.lines().enumerate() {
        match serde_json::from_str::<Value>(line) {
            Ok(value) => lines.push(value),
            Err(error) => return (vec![format!("line {} is no JSON: {error}", n + 1)], Vec::new()),
        }
    }
    let refused = match instance.format {
        TargetFormat::ClaudeCode => check::claude(&lines, ID, &redacted(&instance.session)),
        TargetFormat::Codex => check::codex(&lines),
    };
    let missing: Vec<&String> =
        instance.markers.iter().filter(|m| !exported.transcript.contains(m.as_str())).collect();
    let dropped: usize = exported.report.dropped.values().sum();
    let vanished = if missing.len() > dropped {
        vec![format!(
            "{} markers missing ({missing:?}), {dropped} items counted as dropped",
            missing.len()
        )]
    } else {
        Vec::new()
    };
    (refused, vanished)
}

#[test]
fn exports_of_hostile_sessions_are_what_the_agent_takes_and_lose_nothing_unsaid() {
    let show_test = std::env::var_os("ROUND18_SHOW_TEST").is_some();
    let instances = instances();
    // [class][part]: (held, total)
    let mut tally = [[(0usize, 0usize); 2]; 2];
    let mut shown = 0;
    for (i, instance) in instances.iter().enumerate() {
        let test = i % 3 == 2;
        let (refused, vanished) = misses(instance);
        for (class, problems) in [&refused, &vanished].into_iter().enumerate() {
            let count = &mut tally[class][usize::from(test)];
            count.1 += 1;
            if problems.is_empty() {
                count.0 += 1;
            } else if (!test || show_test) && shown < 400 {
                shown += 1;
                let part = if test { "test" } else { "dev" };
                let class = ["refused", "vanished"][class];
                eprintln!(
                    "#{i} [{part}] {class}: {}\n    {}",
                    instance.name,
                    problems.join("\n    ")
                );
            }
        }
    }
    let names = ["what the agent refuses", "what vanishes without a word"];
    for (class, name) in names.iter().enumerate() {
        let [(dev, dev_all), (test, test_all)] = tally[class];
        eprintln!("{name}: dev {dev}/{dev_all}, test {test}/{test_all}");
    }
    assert!(
        tally.iter().all(|parts| parts.iter().all(|(held, all)| held == all)),
        "round 18 export classes: {tally:?}"
    );
}
