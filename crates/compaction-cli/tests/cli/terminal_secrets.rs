//! The class "a secret from a session shown on the terminal": every command that prints what
//! it read (messages, previews, a recalled entry, a quoted line in an error, a JSON
//! document) must show it redacted, as what is sent to a model or stored is.
//!
//! The generated secret corpus (`compaction_testdata::secrets`, split by family into dev and
//! test by the SHA-256 of the family's name), one secret of each family in each shape, is
//! planted in one session (user messages, tool
//! results, shell output, tool call arguments, image data), and each view is scored by the
//! samples it keeps out: `context` (text and `--json`), `leaves`, `tree`, `recall` of an
//! entry, and the error of a command given a file whose first line is the secret (a `.env`
//! taken for a session). Both parts are printed; only the dev part's leaks are listed.
//!
//! `cargo test -p compaction-cli --test cli terminal_secrets -- --nocapture`

use std::path::Path;

use compaction_testdata::secrets::{Plant, Sample, corpus, leaked, strings_of};
use serde_json::{Value, json};

/// The least share of samples kept out per view, dev and test parts: what the redaction
/// reaches on the transcript path (RELIABILITY.md), less a margin, so a view that stops
/// redacting fails. Previews show the start of a message only, so they can only do better.
/// The test part's floor is 0.88 since round 16 of the secrets: its 8 new held-out families
/// (caught at 190 of 210 on the transcript path) entered the test part and `context` measured
/// 88.39% there (dev 92.11%, the lowest view of each part). It is 0.87 since round 19: its 3
/// new held-out families (36 of 90 on the transcript path) entered the test part and
/// `context` measured 87.46% there before that round's rules and 87.59% after. The dev floor
/// is 0.90 since round 20: its 8 new dev families (153 of 240 on the transcript path before
/// its rules) entered the dev part and `context` measured 90.08% dev before that round's
/// rules and 90.34% after (test 87.02% and 87.60%).
const REQUIRED: [f64; 2] = [0.90, 0.87];

/// Every `RECALLED`-th sample is recalled (and quoted in an error) on its own: each is a
/// process of its own, and the rule is the same for all.
const RECALLED: usize = 8;

/// The corpus with one secret of each family in each shape: the views differ in where they
/// show a text, not in which secrets the redaction knows.
fn samples() -> Vec<Sample> {
    let mut seen = std::collections::HashSet::new();
    corpus()
        .into_iter()
        .filter(|sample| seen.insert((sample.family, sample.shape.clone())))
        .collect()
}

/// The session's lines, and for each sample the id of the entry that holds it.
fn session(samples: &[Sample]) -> (String, Vec<String>) {
    let mut lines = vec![json!({"type": "session", "version": 3, "id": "terminal-secrets",
        "timestamp": "2026-01-01T00:00:00.000Z", "cwd": "/work"})];
    let mut parent: Option<String> = None;
    let mut push = |lines: &mut Vec<Value>, message: Value| -> String {
        let id = format!("e{:05}", lines.len());
        lines.push(json!({"type": "message", "id": id, "parentId": parent,
            "timestamp": "2026-01-01T00:00:01.000Z", "message": message}));
        parent = Some(id.clone());
        id
    };
    push(&mut lines, json!({"role": "user", "content": "Set up the deploy.", "timestamp": 1}));
    let mut holders = Vec::new();
    for (index, sample) in samples.iter().enumerate() {
        let call = format!("call-{index}");
        let holder = match &sample.plant {
            Plant::Text(text) => match index % 3 {
                0 => push(&mut lines, json!({"role": "user", "content": text, "timestamp": 1})),
                1 => {
                    push(
                        &mut lines,
                        json!({"role": "assistant", "content": [{"type": "toolCall", "id": call,
                            "name": "read", "arguments": {"path": "settings"}}], "timestamp": 1}),
                    );
                    push(
                        &mut lines,
                        json!({"role": "toolResult", "toolCallId": call, "toolName": "read",
                            "content": [{"type": "text", "text": text}], "isError": false,
                            "timestamp": 1}),
                    )
                }
                _ => push(
                    &mut lines,
                    json!({"role": "bashExecution", "command": "cat settings", "output": text,
                        "exitCode": 0, "cancelled": false, "truncated": false, "timestamp": 1}),
                ),
            },
            Plant::Arguments(arguments) => {
                let id = push(
                    &mut lines,
                    json!({"role": "assistant", "content": [{"type": "toolCall", "id": call,
                        "name": "mcp_ops_call", "arguments": arguments}], "timestamp": 1}),
                );
                push(
                    &mut lines,
                    json!({"role": "toolResult", "toolCallId": call, "toolName": "mcp_ops_call",
                        "content": [{"type": "text", "text": "ok"}], "isError": false,
                        "timestamp": 1}),
                );
                id
            }
            Plant::Image(data) => push(
                &mut lines,
                json!({"role": "toolResult", "toolCallId": call, "toolName": "read",
                    "content": [{"type": "image", "data": data, "mimeType": "image/png"}],
                    "isError": false, "timestamp": 1}),
            ),
        };
        holders.push(holder);
    }
    let text: String = lines.iter().map(|line| format!("{line}\n")).collect();
    (text, holders)
}

/// Runs the binary; its stdout and stderr together.
fn output(args: &[&str], cwd: &Path) -> String {
    let output = super::isolated_output(args, cwd);
    format!(
        "{}\n{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

/// A JSON output as its strings (escapes undone), with anything that is not JSON kept as is.
fn json_strings(output: &str) -> String {
    let mut text = String::new();
    let mut rest = output;
    while let Some(start) = rest.find(['{', '[']) {
        let mut stream = serde_json::Deserializer::from_str(&rest[start..]).into_iter::<Value>();
        match stream.next() {
            Some(Ok(value)) => {
                text.push_str(&strings_of(&value));
                rest = &rest[start + stream.byte_offset()..];
            }
            _ => {
                text.push_str(&rest[..=start]);
                rest = &rest[start + 1..];
            }
        }
    }
    text.push_str(rest);
    text
}

/// The share of the part's samples (of those `scored`) kept out of `found`'s leaks.
fn figure(samples: &[Sample], scored: &[bool], found: &[bool], test: bool) -> (usize, usize) {
    samples
        .iter()
        .zip(scored)
        .zip(found)
        .filter(|((sample, scored), _)| sample.test == test && **scored)
        .fold((0, 0), |(kept, total), (_, leaked)| (kept + usize::from(!leaked), total + 1))
}

#[test]
fn no_view_of_a_session_shows_its_secrets() {
    let samples = samples();
    let dir = tempfile::tempdir().unwrap();
    let (text, holders) = session(&samples);
    std::fs::write(dir.path().join("session.jsonl"), &text).unwrap();
    let everything = vec![true; samples.len()];
    let mut views: Vec<(&str, Vec<bool>, Vec<bool>)> = Vec::new();
    for (view, args, as_json) in [
        ("context", vec!["context", "session.jsonl"], false),
        ("context --json", vec!["context", "session.jsonl", "--json"], true),
        ("leaves", vec!["leaves", "session.jsonl"], false),
        ("tree", vec!["tree", "session.jsonl"], false),
    ] {
        let shown = output(&args, dir.path());
        let shown = if as_json { json_strings(&shown) } else { shown };
        views.push((view, everything.clone(), leaked(&samples, &shown)));
    }
    // `recall` of an entry, and the error quoting a file's first line, one sample at a time.
    let mut recalled = vec![false; samples.len()];
    let mut recall_leaked = vec![false; samples.len()];
    let mut quoted = vec![false; samples.len()];
    let mut quote_leaked = vec![false; samples.len()];
    for (index, sample) in samples.iter().enumerate().filter(|(index, _)| index % RECALLED == 0) {
        let alone = std::slice::from_ref(sample);
        let shown = output(&["recall", "session.jsonl", &holders[index]], dir.path());
        recalled[index] = true;
        recall_leaked[index] = leaked(alone, &json_strings(&shown))[0];
        if let Plant::Text(text) = &sample.plant
            && let Some(first) = text.lines().find(|line| !line.trim().is_empty())
        {
            std::fs::write(dir.path().join("taken.env"), format!("{first}\n")).unwrap();
            let shown = output(&["stats", "taken.env"], dir.path());
            quoted[index] = sample.leaks_into(first);
            quote_leaked[index] = leaked(alone, &shown)[0];
        }
    }
    views.push(("recall", recalled, recall_leaked));
    views.push(("error quoting line 1", quoted, quote_leaked));

    let mut failures = Vec::new();
    for (view, scored, found) in &views {
        for (part, test) in [("dev", false), ("test", true)] {
            let (kept, total) = figure(&samples, scored, found, test);
            let rate = kept as f64 / total.max(1) as f64;
            eprintln!("{view}, {part}: {kept}/{total} samples kept out ({:.2}%)", rate * 100.0);
            if !test {
                for ((sample, scored), leaked) in samples.iter().zip(scored).zip(found) {
                    if !sample.test && *scored && *leaked {
                        eprintln!("  leaked {} [{}]", sample.family, sample.shape);
                    }
                }
            }
            if rate < REQUIRED[usize::from(test)] {
                failures.push(format!("{view}, {part}: {:.2}%", rate * 100.0));
            }
        }
    }
    assert!(failures.is_empty(), "below {REQUIRED:?}: {failures:?}");
}
