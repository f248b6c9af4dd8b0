//! Round 17, third class: one thing repeated thousands of times in a transcript (lines of
//! one reply, calls of one reply, one call id, one result, lines waiting for a parent) must
//! cost the import time in proportion to the transcript, not to its square.
//!
//! Each instance is a shape at a size n, imported at n / 4 and at n (the faster of two runs
//! each); it holds when the import at n takes at most 8 times as long as at n / 4, plus a
//! tenth of a second (in proportion: 4 times; quadratic: 16 times), and the session is
//! clean. The instances are ordered by size, then shape, and split as the other classes:
//! `i % 3 == 2` is test.

use std::fmt::Write as _;
use std::time::{Duration, Instant};

use super::super::tests_hostile::structural_problem;
use super::super::*;

/// A Claude Code line.
fn claude(out: &mut String, kind: &str, uuid: &str, parent: Option<&str>, body: &str) {
    let parent = parent.map_or_else(|| "null".to_owned(), |p| format!("\"{p}\""));
    let _ = writeln!(
        out,
        r#"{{"parentUuid":{parent},"isSidechain":false,"sessionId":"g17","cwd":"/w","type":"{kind}","uuid":"{uuid}","timestamp":"2026-01-01T00:00:00.000Z",{body}}}"#
    );
}

fn claude_user(out: &mut String, uuid: &str, parent: Option<&str>, text: &str) {
    claude(
        out,
        "user",
        uuid,
        parent,
        &format!(r#""message":{{"role":"user","content":"{text}"}}"#),
    );
}

fn claude_reply(out: &mut String, uuid: &str, parent: &str, reply: &str, block: &str) {
    let body = format!(
        r#""message":{{"id":"{reply}","role":"assistant","model":"m","content":[{block}]}}"#
    );
    claude(out, "assistant", uuid, Some(parent), &body);
}

fn claude_result(out: &mut String, uuid: &str, parent: &str, call: &str, text: &str) {
    let body = format!(
        r#""message":{{"role":"user","content":[{{"type":"tool_result","tool_use_id":"{call}","content":"{text}"}}]}}"#
    );
    claude(out, "user", uuid, Some(parent), &body);
}

fn tool_use(id: &str, i: usize) -> String {
    format!(r#"{{"type":"tool_use","id":"{id}","name":"Grep","input":{{"pattern":"p{i}"}}}}"#)
}

fn codex_head() -> String {
    let mut out = String::from(
        r#"{"timestamp":"2026-01-01T00:00:00.000Z","type":"session_meta","payload":{"id":"g17","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w"}}"#,
    );
    out.push('\n');
    codex(
        &mut out,
        r#"{"type":"message","role":"user","content":[{"type":"input_text","text":"go"}]}"#,
    );
    out
}

fn codex(out: &mut String, payload: &str) {
    let _ = writeln!(
        out,
        r#"{{"timestamp":"2026-01-01T00:00:00.000Z","type":"response_item","payload":{payload}}}"#
    );
}

fn codex_call(out: &mut String, id: &str, i: usize) {
    let payload = format!(
        r#"{{"type":"function_call","name":"lookup","arguments":"{{\"q\":{i}}}","call_id":"{id}"}}"#
    );
    codex(out, &payload);
}

fn codex_output(out: &mut String, id: &str, i: usize) {
    codex(out, &format!(r#"{{"type":"function_call_output","call_id":"{id}","output":"o{i}"}}"#));
}

/// A shape: its name, its format and its transcript at size n.
type Shape = (&'static str, SourceFormat, fn(usize) -> String);

fn shapes() -> Vec<Shape> {
    vec![
        ("claude: n lines of one reply, a text each", SourceFormat::ClaudeCode, |n| {
            let mut out = String::new();
            claude_user(&mut out, "u", None, "go");
            for i in 0..n {
                let parent = if i == 0 { "u".to_owned() } else { format!("a{}", i - 1) };
                let block = format!(r#"{{"type":"text","text":"part {i}"}}"#);
                claude_reply(&mut out, &format!("a{i}"), &parent, "msg_1", &block);
            }
            out
        }),
        (
            "claude: n lines of one reply, a call each, then n results",
            SourceFormat::ClaudeCode,
            |n| {
                let mut out = String::new();
                claude_user(&mut out, "u", None, "go");
                for i in 0..n {
                    let parent = if i == 0 { "u".to_owned() } else { format!("a{}", i - 1) };
                    let block = tool_use(&format!("toolu_{i}"), i);
                    claude_reply(&mut out, &format!("a{i}"), &parent, "msg_1", &block);
                }
                for i in 0..n {
                    let parent = if i == 0 { format!("a{}", n - 1) } else { format!("r{}", i - 1) };
                    claude_result(&mut out, &format!("r{i}"), &parent, &format!("toolu_{i}"), "ok");
                }
                out
            },
        ),
        (
            "claude: one call id n times in one line, then n results",
            SourceFormat::ClaudeCode,
            |n| {
                let mut out = String::new();
                claude_user(&mut out, "u", None, "go");
                let blocks: Vec<String> = (0..n).map(|i| tool_use("toolu_same", i)).collect();
                claude_reply(&mut out, "a", "u", "msg_1", &blocks.join(","));
                for i in 0..n {
                    let parent = if i == 0 { "a".to_owned() } else { format!("r{}", i - 1) };
                    claude_result(&mut out, &format!("r{i}"), &parent, "toolu_same", "ok");
                }
                out
            },
        ),
        ("claude: n turns all giving one call id", SourceFormat::ClaudeCode, |n| {
            let mut out = String::new();
            let mut last: Option<String> = None;
            for i in 0..n / 3 {
                claude_user(&mut out, &format!("u{i}"), last.as_deref(), "go");
                claude_reply(
                    &mut out,
                    &format!("a{i}"),
                    &format!("u{i}"),
                    &format!("m{i}"),
                    &tool_use("toolu_same", i),
                );
                claude_result(&mut out, &format!("r{i}"), &format!("a{i}"), "toolu_same", "ok");
                last = Some(format!("r{i}"));
            }
            out
        }),
        ("claude: n calls with an empty id, then n results", SourceFormat::ClaudeCode, |n| {
            let mut out = String::new();
            claude_user(&mut out, "u", None, "go");
            let blocks: Vec<String> = (0..n).map(|i| tool_use("", i)).collect();
            claude_reply(&mut out, "a", "u", "msg_1", &blocks.join(","));
            for i in 0..n {
                let parent = if i == 0 { "a".to_owned() } else { format!("r{}", i - 1) };
                claude_result(&mut out, &format!("r{i}"), &parent, "", "ok");
            }
            out
        }),
        ("claude: one call answered n times", SourceFormat::ClaudeCode, |n| {
            let mut out = String::new();
            claude_user(&mut out, "u", None, "go");
            claude_reply(&mut out, "a", "u", "msg_1", &tool_use("toolu_1", 0));
            for i in 0..n {
                let parent = if i == 0 { "a".to_owned() } else { format!("r{}", i - 1) };
                claude_result(&mut out, &format!("r{i}"), &parent, "toolu_1", "again");
            }
            out
        }),
        ("claude: n results of calls in no line", SourceFormat::ClaudeCode, |n| {
            let mut out = String::new();
            claude_user(&mut out, "u", None, "go");
            for i in 0..n {
                let parent = if i == 0 { "u".to_owned() } else { format!("r{}", i - 1) };
                claude_result(&mut out, &format!("r{i}"), &parent, &format!("toolu_gone{i}"), "ok");
            }
            out
        }),
        (
            "claude: n lines each waiting for a parent a later line holds",
            SourceFormat::ClaudeCode,
            |n| {
                let mut out = String::new();
                claude_user(&mut out, "u", None, "go");
                for i in 0..n {
                    claude_user(
                        &mut out,
                        &format!("w{i}"),
                        Some(&format!("late{}", i / 200)),
                        "waiting",
                    );
                    if i % 200 == 199 {
                        claude_user(&mut out, &format!("late{}", i / 200), Some("u"), "late");
                    }
                }
                out
            },
        ),
        ("claude: n user lines under one parent", SourceFormat::ClaudeCode, |n| {
            let mut out = String::new();
            claude_user(&mut out, "u", None, "go");
            for i in 0..n {
                claude_user(&mut out, &format!("s{i}"), Some("u"), &format!("again {i}"));
            }
            out
        }),
        ("claude: n side-chain lines in a main transcript", SourceFormat::ClaudeCode, |n| {
            let mut out = String::new();
            claude_user(&mut out, "u", None, "go");
            for i in 0..n {
                let parent = if i == 0 { "u".to_owned() } else { format!("s{}", i - 1) };
                let body = r#""isSidechain":true,"message":{"role":"user","content":"side"}"#;
                claude(&mut out, "user", &format!("s{i}"), Some(&parent), body);
            }
            claude_user(&mut out, "end", Some(&format!("s{}", n - 1)), "back");
            out
        }),
        ("codex: one call id n times in one reply, then n outputs", SourceFormat::Codex, |n| {
            let mut out = codex_head();
            (0..n).for_each(|i| codex_call(&mut out, "call_same", i));
            (0..n).for_each(|i| codex_output(&mut out, "call_same", i));
            out
        }),
        ("codex: n calls with an empty id, then n outputs", SourceFormat::Codex, |n| {
            let mut out = codex_head();
            (0..n).for_each(|i| codex_call(&mut out, "", i));
            (0..n).for_each(|i| codex_output(&mut out, "", i));
            out
        }),
        ("codex: n calls, then n outputs", SourceFormat::Codex, |n| {
            let mut out = codex_head();
            (0..n).for_each(|i| codex_call(&mut out, &format!("call_{i}"), i));
            (0..n).for_each(|i| codex_output(&mut out, &format!("call_{i}"), i));
            out
        }),
        ("codex: n outputs of calls in no line", SourceFormat::Codex, |n| {
            let mut out = codex_head();
            (0..n).for_each(|i| codex_output(&mut out, &format!("call_gone{i}"), i));
            out
        }),
        ("codex: n reasoning items and texts in one reply", SourceFormat::Codex, |n| {
            let mut out = codex_head();
            for i in 0..n {
                codex(
                    &mut out,
                    &format!(
                        r#"{{"type":"reasoning","summary":[{{"type":"summary_text","text":"step {i}"}}]}}"#
                    ),
                );
                codex(
                    &mut out,
                    &format!(
                        r#"{{"type":"message","role":"assistant","content":[{{"type":"output_text","text":"t{i}"}}]}}"#
                    ),
                );
            }
            out
        }),
        ("codex: n turns all giving one call id", SourceFormat::Codex, |n| {
            let mut out = codex_head();
            for i in 0..n / 3 {
                codex(
                    &mut out,
                    r#"{"type":"message","role":"user","content":[{"type":"input_text","text":"go"}]}"#,
                );
                codex_call(&mut out, "call_same", i);
                codex_output(&mut out, "call_same", i);
            }
            out
        }),
    ]
}

/// The faster of two imports of `text`, or why it fails.
fn timed(format: SourceFormat, text: &str) -> Result<Duration, String> {
    let redactor = Redactor::default();
    let options = ImportOptions { format: Some(format), fallback_cwd: None };
    let mut best = Duration::MAX;
    for _ in 0..2 {
        let start = Instant::now();
        let imported = import_with(text, &options, &redactor).map_err(|e| e.to_string())?;
        best = best.min(start.elapsed());
        if let Some(problem) = structural_problem(&imported.session) {
            return Err(problem);
        }
    }
    Ok(best)
}

/// Every shape imports into a clean session (each result after its call, every id once).
#[test]
fn repeated_things_import_into_a_clean_session() {
    let redactor = Redactor::default();
    for (name, format, write) in shapes() {
        let options = ImportOptions { format: Some(format), fallback_cwd: None };
        let imported = import_with(&write(3000), &options, &redactor)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        if let Some(problem) = structural_problem(&imported.session) {
            panic!("{name}: {problem}");
        }
    }
}

/// The time each shape costs at n against n / 4. A benchmark, not a unit test: it compares
/// wall times, so it runs only when asked, on a machine doing nothing else
/// (`cargo test --release -p compaction-core --lib import::tests_round17::growth --
/// --ignored --nocapture`; figures in BENCHMARKS.md).
#[test]
#[ignore = "a benchmark of wall time; run with --ignored on an idle machine"]
fn repeated_things_cost_time_in_proportion() {
    let sizes = [3000, 4500, 6000];
    let show_test = std::env::var_os("ROUND17_SHOW_TEST").is_some();
    let (mut dev, mut dev_ok, mut test, mut test_ok) = (0, 0, 0, 0);
    let instances = sizes.iter().flat_map(|&n| shapes().into_iter().map(move |s| (n, s)));
    for (i, (n, (name, format, write))) in instances.enumerate() {
        let small = timed(format, &write(n / 4));
        let large = timed(format, &write(n));
        let miss = match (small, large) {
            (Ok(small), Ok(large)) if large <= small * 8 + Duration::from_millis(100) => None,
            (Ok(small), Ok(large)) => Some(format!("{small:.2?} at n/4, {large:.2?} at n")),
            (Err(e), _) | (_, Err(e)) => Some(e),
        };
        let is_test = i % 3 == 2;
        if is_test {
            test += 1;
            test_ok += usize::from(miss.is_none());
        } else {
            dev += 1;
            dev_ok += usize::from(miss.is_none());
        }
        match miss {
            Some(miss) if !is_test || show_test => eprintln!("  #{i} {name}, n = {n}: {miss}"),
            Some(_) => eprintln!("  test #{i} missed"),
            None => {}
        }
    }
    eprintln!("round 17, repetition: dev {dev_ok}/{dev}, test {test_ok}/{test}");
    assert_eq!((dev_ok, test_ok), (dev, test));
}
