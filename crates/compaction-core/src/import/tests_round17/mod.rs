//! Hardening round 17: transcripts that are valid JSON but lie about calls and results.
//!
//! Two classes, each generated (Claude Code transcripts and Codex rollouts written here,
//! with a marker in every text, every call's input and every output):
//! - *A result placed where its call is not in its context*: a tool result whose parent is
//!   a line on another branch, a line after the agent's own compaction, a later turn, the
//!   user's next message, the call's own parent, or a line of another session; Codex
//!   outputs after a `compacted` line, after the next user message or after a later reply.
//! - *Ids given twice*: the same tool call id for two calls of one reply or of two turns
//!   (results in order, or the first call's result late on its own branch), empty ids, a
//!   line id (`uuid`) given again by a later line, a reply id (`message.id`) of an earlier
//!   reply given again.
//!
//! Every instance must import without a panic into a session that parses with no warning,
//! whose context at every entry is one a provider accepts (each tool result answers a call
//! of the nearest assistant message before it, past other results only, and no call is
//! answered twice there), in which every output that answers a call is paired with that
//! call (its input's marker), where every text of the transcript is kept, and where a result
//! the transcript places right after its call (on the call's branch) stays a tool result.
//!
//! The split was fixed before any fix: instance `i` (in the order generated) is in the test
//! part when `i % 3 == 2`, else in the dev part. `ROUND17_SHOW_TEST=1` prints the test
//! part's misses too.

mod growth;
mod write;

use serde_json::Value;

use super::tests_hostile::structural_problem;
use super::*;
use write::{Claude, Codex, Instance};

/// A shape of instance: its name and what it writes.
type Shape<F> = (&'static str, F);
/// Writes what follows an open reply (the last line's uuid given).
type ClaudeTail = fn(&mut Claude, &str);
/// Writes turns after a parent (its uuid) with a count.
type ClaudeTurns = fn(&mut Claude, &str, usize);
/// Writes turns with a count.
type CodexTurns = fn(&mut Codex, usize);

/// The variations every shape is generated in: complete turns before it, and calls in the
/// reply whose last call is answered out of place (the others in place).
fn variations() -> Vec<(usize, usize)> {
    (0..3).flat_map(|filler| (1..=3).map(move |calls| (filler, calls))).collect()
}

/// Claude Code: the reply `a` with `calls` calls after user line `u`; the first `calls - 1`
/// answered in place; returns the last line's uuid (the hostile call is `toolu_x`).
fn claude_open_reply(cc: &mut Claude, parent: &str, calls: usize) -> String {
    cc.user("u", Some(parent).filter(|p| !p.is_empty()), 1);
    let mut ids: Vec<(String, usize)> =
        (1..calls).map(|c| (format!("toolu_p{c}"), 10 + c)).collect();
    ids.push(("toolu_x".into(), 99));
    let pairs: Vec<(&str, usize)> = ids.iter().map(|(id, n)| (id.as_str(), *n)).collect();
    cc.reply("a", Some("u"), "msg_a", &pairs);
    let mut last = "a".to_owned();
    for (id, n) in ids.iter().take(calls - 1) {
        let uuid = format!("r{n}");
        cc.result(&uuid, Some(&last), id, *n, true);
        last = uuid;
    }
    last
}

/// Class 1: results placed where their call is not in the context.
fn misplaced_results() -> Vec<Instance> {
    let mut out = Vec::new();
    let claude: [Shape<ClaudeTail>; 6] = [
        ("fork", |cc, last| {
            // The user edited their message: a new branch beside `u`, answered by `a2`.
            let parent = cc
                .lines
                .iter()
                .find(|l| l["uuid"] == "u")
                .and_then(|l| l["parentUuid"].as_str())
                .map(str::to_owned);
            cc.user("u2", parent.as_deref(), 2);
            cc.reply("a2", Some("u2"), "msg_a2", &[]);
            let _ = last;
            cc.result("rx", Some("a2"), "toolu_x", 99, false);
        }),
        ("after-compaction", |cc, last| {
            cc.compact("b", last);
            cc.result("rx", Some("bs"), "toolu_x", 99, false);
        }),
        ("later-turn", |cc, last| {
            cc.user("u2", Some(last), 2);
            cc.reply("a2", Some("u2"), "msg_a2", &[]);
            cc.result("rx", Some("a2"), "toolu_x", 99, false);
        }),
        ("after-user", |cc, last| {
            cc.user("u2", Some(last), 2);
            cc.result("rx", Some("u2"), "toolu_x", 99, false);
        }),
        ("beside-the-call", |cc, _| cc.result("rx", Some("u"), "toolu_x", 99, false)),
        ("parent-in-another-session", |cc, last| {
            cc.user("u2", Some(last), 2);
            cc.result("rx", Some("elsewhere-4f1c"), "toolu_x", 99, false);
        }),
    ];
    for (k, (shape, (filler, calls))) in
        claude.iter().flat_map(|s| variations().into_iter().map(move |v| (s, v))).enumerate()
    {
        let mut cc = Claude::new(k);
        let before = cc.turns("f", None, filler, 1);
        let last = claude_open_reply(&mut cc, &before, calls);
        (shape.1)(&mut cc, &last);
        out.push(cc.done(format!("claude {} filler={filler} calls={calls}", shape.0)));
    }
    let codex: [Shape<fn(&mut Codex)>; 4] = [
        ("after-compacted", |cx| {
            cx.compacted();
            cx.output("call_x", 99, false);
        }),
        ("after-next-user", |cx| {
            cx.user(2);
            cx.output("call_x", 99, false);
        }),
        ("after-later-reply", |cx| {
            cx.user(2);
            cx.say();
            cx.output("call_x", 99, false);
        }),
        ("after-compacted-and-user", |cx| {
            cx.compacted();
            cx.user(2);
            cx.say();
            cx.output("call_x", 99, false);
        }),
    ];
    let base = out.len();
    for (i, (shape, (filler, calls))) in
        codex.iter().flat_map(|s| variations().into_iter().map(move |v| (s, v))).enumerate()
    {
        let mut cx = Codex::new(base + i);
        cx.turns(filler, 1);
        cx.user(1);
        cx.say();
        for c in 1..calls {
            cx.call(&format!("call_p{c}"), 10 + c);
        }
        cx.call("call_x", 99);
        for c in 1..calls {
            cx.output(&format!("call_p{c}"), 10 + c, true);
        }
        (shape.1)(&mut cx);
        out.push(cx.done(format!("codex {} filler={filler} calls={calls}", shape.0)));
    }
    out
}

/// Class 2: ids given twice.
fn ids_given_twice() -> Vec<Instance> {
    let mut out = Vec::new();
    let claude: [Shape<ClaudeTurns>; 6] = [
        ("call-id-twice-in-one-reply", |cc, p, calls| {
            cc.user("u", Some(p).filter(|p| !p.is_empty()), 1);
            let pairs: Vec<(&str, usize)> = (0..=calls).map(|c| ("toolu_same", 10 + c)).collect();
            cc.reply("a", Some("u"), "msg_a", &pairs);
            let mut last = "a".to_owned();
            for c in 0..=calls {
                let uuid = format!("r{c}");
                cc.result(&uuid, Some(&last), "toolu_same", 10 + c, true);
                last = uuid;
            }
        }),
        ("call-id-again-next-turn", |cc, p, calls| {
            let mut last = p.to_owned();
            for t in 0..=calls {
                let (u, a, r) = (format!("u{t}"), format!("a{t}"), format!("r{t}"));
                cc.user(&u, Some(&last).filter(|p| !p.is_empty()).map(String::as_str), t);
                cc.reply(&a, Some(&u), &format!("msg_{t}"), &[("toolu_same", 10 + t)]);
                cc.result(&r, Some(&a), "toolu_same", 10 + t, true);
                last = r;
            }
        }),
        ("call-id-again-first-answered-late", |cc, p, calls| {
            // The first call's result comes after the later calls, on the first call's line.
            cc.user("u0", Some(p).filter(|p| !p.is_empty()), 0);
            cc.reply("a0", Some("u0"), "msg_0", &[("toolu_same", 10)]);
            let mut last = "a0".to_owned();
            for t in 1..=calls {
                let (u, a, r) = (format!("u{t}"), format!("a{t}"), format!("r{t}"));
                cc.user(&u, Some(&last), t);
                cc.reply(&a, Some(&u), &format!("msg_{t}"), &[("toolu_same", 10 + t)]);
                cc.result(&r, Some(&a), "toolu_same", 10 + t, true);
                last = r;
            }
            cc.result("r0", Some("a0"), "toolu_same", 10, true);
        }),
        ("empty-call-ids", |cc, p, calls| {
            cc.user("u", Some(p).filter(|p| !p.is_empty()), 1);
            let pairs: Vec<(&str, usize)> = (0..=calls).map(|c| ("", 10 + c)).collect();
            cc.reply("a", Some("u"), "msg_a", &pairs);
            let mut last = "a".to_owned();
            for c in 0..=calls {
                let uuid = format!("r{c}");
                cc.result(&uuid, Some(&last), "", 10 + c, true);
                last = uuid;
            }
        }),
        ("line-id-given-again", |cc, p, calls| {
            // A later turn's lines reuse the ids of the turn before.
            let mut last = p.to_owned();
            for t in 0..=calls {
                cc.user("u", Some(&last).filter(|p| !p.is_empty()).map(String::as_str), t);
                let id = format!("toolu_{t}");
                cc.reply("a", Some("u"), &format!("msg_{t}"), &[(&id, 10 + t)]);
                cc.result("r", Some("a"), &id, 10 + t, true);
                last = "r".into();
            }
        }),
        ("reply-id-given-again", |cc, p, calls| {
            // Every reply carries the first reply's `message.id`.
            let mut last = p.to_owned();
            for t in 0..=calls {
                let (u, a, r) = (format!("u{t}"), format!("a{t}"), format!("r{t}"));
                cc.user(&u, Some(&last).filter(|p| !p.is_empty()).map(String::as_str), t);
                let id = format!("toolu_{t}");
                cc.reply(&a, Some(&u), "msg_same", &[(&id, 10 + t)]);
                cc.result(&r, Some(&a), &id, 10 + t, true);
                last = r;
            }
        }),
    ];
    for (k, (shape, (filler, calls))) in
        claude.iter().flat_map(|s| variations().into_iter().map(move |v| (s, v))).enumerate()
    {
        let mut cc = Claude::new(1000 + k);
        let before = cc.turns("f", None, filler, 1);
        (shape.1)(&mut cc, &before, calls);
        out.push(cc.done(format!("claude {} filler={filler} calls={calls}", shape.0)));
    }
    let codex: [Shape<CodexTurns>; 3] = [
        ("call-id-twice-in-one-reply", |cx, calls| {
            cx.user(1);
            cx.say();
            (0..=calls).for_each(|c| cx.call("call_same", 10 + c));
            (0..=calls).for_each(|c| cx.output("call_same", 10 + c, true));
        }),
        ("call-id-again-next-turn", |cx, calls| {
            for t in 0..=calls {
                cx.user(t);
                cx.say();
                cx.call("call_same", 10 + t);
                cx.output("call_same", 10 + t, true);
            }
        }),
        ("empty-call-ids", |cx, calls| {
            cx.user(1);
            cx.say();
            (0..=calls).for_each(|c| cx.call("", 10 + c));
            (0..=calls).for_each(|c| cx.output("", 10 + c, true));
        }),
    ];
    let base = out.len();
    for (i, (shape, (filler, calls))) in
        codex.iter().flat_map(|s| variations().into_iter().map(move |v| (s, v))).enumerate()
    {
        let mut cx = Codex::new(1000 + base + i);
        cx.turns(filler, 1);
        (shape.1)(&mut cx, calls);
        out.push(cx.done(format!("codex {} filler={filler} calls={calls}", shape.0)));
    }
    out
}

/// The markers of `what` in a JSON value's text.
fn marker_in(value: &Value, what: &str) -> Option<String> {
    let text = value.to_string();
    let start = text.find(&format!("{what}-"))?;
    let rest = &text[start..];
    let end = rest.find(|c: char| !(c.is_ascii_alphanumeric() || c == '-')).unwrap_or(rest.len());
    Some(rest[..end].to_owned())
}

/// What is wrong with the context at `leaf`, if anything: a tool result that does not
/// answer an unanswered call of the nearest assistant message before it.
fn context_problem(session: &crate::Session, leaf: usize) -> Option<String> {
    let context = crate::context::build_context(session, Some(leaf));
    let messages: Vec<Value> = context
        .llm_messages(session)
        .iter()
        .map(|m| serde_json::to_value(m).unwrap_or(Value::Null))
        .collect();
    for (at, message) in messages.iter().enumerate() {
        if message["role"] != "toolResult" {
            continue;
        }
        let id = message["toolCallId"].as_str().unwrap_or("");
        let mut before = at;
        let mut answered = false;
        while before > 0 && messages[before - 1]["role"] == "toolResult" {
            before -= 1;
            answered |= messages[before]["toolCallId"] == id;
        }
        let call = before.checked_sub(1).map(|b| &messages[b]).filter(|m| m["role"] == "assistant");
        let holds = call.is_some_and(|m| {
            m["content"].as_array().is_some_and(|blocks| {
                blocks.iter().any(|b| b["type"] == "toolCall" && b["id"] == id)
            })
        });
        if !holds || answered {
            let why =
                if answered { "answered twice" } else { "no call of that id right before it" };
            return Some(format!("context at entry {leaf}: result for {id:?}: {why}"));
        }
    }
    None
}

/// What is wrong with the import of `instance`, if anything.
fn judge(instance: &Instance) -> Option<String> {
    let redactor = Redactor::default();
    let options = ImportOptions { format: Some(instance.format), fallback_cwd: None };
    let imported =
        match std::panic::catch_unwind(|| import_with(&instance.text, &options, &redactor)) {
            Err(_) => return Some("panicked".into()),
            Ok(Err(error)) => return Some(format!("import failed: {error}")),
            Ok(Ok(imported)) => imported,
        };
    let session = &imported.session;
    if let Some(problem) = structural_problem(session) {
        return Some(problem);
    }
    for marker in &instance.markers {
        if !session.contains(marker.as_str()) {
            return Some(format!("{marker} lost"));
        }
    }
    let entries: Vec<Value> =
        session.lines().skip(1).filter_map(|l| serde_json::from_str(l).ok()).collect();
    let arg_of = |id: &str| {
        entries
            .iter()
            .filter_map(|e| e["message"]["content"].as_array())
            .flatten()
            .find(|b| b["type"] == "toolCall" && b["id"] == id)
            .and_then(|b| marker_in(&b["arguments"], "ARG"))
    };
    for entry in &entries {
        let message = &entry["message"];
        if message["role"] != "toolResult" {
            continue;
        }
        let out = marker_in(&message["content"], "OUT").unwrap_or_default();
        let arg = arg_of(message["toolCallId"].as_str().unwrap_or("")).unwrap_or_default();
        if out.strip_prefix("OUT") != arg.strip_prefix("ARG") {
            return Some(format!("{out} paired with the call of {arg}"));
        }
    }
    for out in &instance.results {
        let kept = entries.iter().any(|e| {
            e["message"]["role"] == "toolResult"
                && marker_in(&e["message"]["content"], "OUT").as_deref() == Some(out.as_str())
        });
        if !kept {
            return Some(format!("{out} answers the call before it but is no tool result"));
        }
    }
    let parsed = crate::parse_session(session.as_bytes());
    if let Some(problem) = (0..parsed.entries().len()).find_map(|l| context_problem(&parsed, l)) {
        return Some(problem);
    }
    // Resumed, the session shows what the transcript's own path shows.
    let leaf = parsed.entries().len().checked_sub(1);
    let context = crate::context::build_context(&parsed, leaf);
    let shown = serde_json::to_string(&context.llm_messages(&parsed)).unwrap_or_default();
    let missing = instance.on_path.iter().find(|m| !shown.contains(m.as_str()))?;
    Some(format!("{missing} is on the transcript's path but not in the resumed context"))
}

/// Runs a class and prints its figures; the dev part's misses in full.
fn report(class: &str, instances: &[Instance]) -> (usize, usize, usize, usize) {
    let show_test = std::env::var_os("ROUND17_SHOW_TEST").is_some();
    let (mut dev, mut dev_ok, mut test, mut test_ok) = (0, 0, 0, 0);
    for (i, instance) in instances.iter().enumerate() {
        let is_test = i % 3 == 2;
        let miss = judge(instance);
        if is_test {
            test += 1;
            test_ok += usize::from(miss.is_none());
            if let (Some(miss), true) = (&miss, show_test) {
                eprintln!("  test #{i} {}: {miss}", instance.name);
            } else if miss.is_some() {
                eprintln!("  test #{i} missed");
            }
        } else {
            dev += 1;
            dev_ok += usize::from(miss.is_none());
            if let Some(miss) = miss {
                eprintln!("  dev #{i} {}: {miss}", instance.name);
            }
        }
    }
    eprintln!("round 17, {class}: dev {dev_ok}/{dev}, test {test_ok}/{test}");
    (dev, dev_ok, test, test_ok)
}

#[test]
fn results_placed_where_their_call_is_not_in_the_context() {
    let (dev, dev_ok, test, test_ok) = report("misplaced results", &misplaced_results());
    assert_eq!((dev_ok, test_ok), (dev, test));
}

#[test]
fn ids_given_twice_pair_each_result_with_its_own_call() {
    let (dev, dev_ok, test, test_ok) = report("ids given twice", &ids_given_twice());
    assert_eq!((dev_ok, test_ok), (dev, test));
}
