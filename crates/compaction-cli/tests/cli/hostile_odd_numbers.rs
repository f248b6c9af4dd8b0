//! Odd JSON numbers (`1e400`, `-1e400`, `1E+999`, 400 nines, `1.5`, `"5000"`, `null`, `-3`)
//! where other programs' JSON comes in besides sessions and provider replies: transcripts to
//! import (Claude Code and Codex: a usage count, an unmodelled field of every line, tool call
//! arguments), an extension's decision (an unmodelled field, `tokensBefore`, `details`) and
//! settings files (`settings.json`: a count and an unmodelled key; `models.json`: a window).
//!
//! What must hold: what `JSON.parse` reads is read (an import keeps every message and reads a
//! count by the rule sessions are read by: past `u64` saturates, a fraction is cut, anything
//! that is no positive number is 0); a setting that is no count is refused naming its file,
//! or read; nothing ever panics.
//!
//! Instances are numbered in the order generated; instance `i` is in the test part when
//! `i % 3 == 0`, else in the dev part (a rule fixed before the instances were run).

use std::os::unix::fs::PermissionsExt as _;
use std::path::Path;
use std::process::Command;

use serde_json::Value;

/// The odd values, as JSON text, with the count each one is read as.
fn odd_values() -> Vec<(String, u64)> {
    vec![
        ("1e400".to_owned(), u64::MAX),
        ("-1e400".to_owned(), 0),
        ("1E+999".to_owned(), u64::MAX),
        ("9".repeat(400), u64::MAX),
        ("1.5".to_owned(), 1),
        ("\"5000\"".to_owned(), 0),
        ("null".to_owned(), 0),
        ("-3".to_owned(), 0),
    ]
}

fn run(args: &[&str], cwd: &Path, agent: Option<&Path>) -> (i32, String, String) {
    let home = tempfile::tempdir().unwrap();
    let mut command = Command::new(env!("CARGO_BIN_EXE_compaction"));
    command
        .args(args)
        .current_dir(cwd)
        .env("HOME", home.path())
        .env_remove("OPENAI_API_KEY")
        .env_remove("ANTHROPIC_API_KEY");
    match agent {
        Some(agent) => command.env("PI_CODING_AGENT_DIR", agent),
        None => command.env_remove("PI_CODING_AGENT_DIR"),
    };
    let output = command.output().unwrap();
    (
        output.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

/// The roles and every string of the messages of an imported session (ids, timestamps and
/// the literal `5000` aside), and the `usage.input` of each assistant message.
fn messages(session: &str) -> (Vec<String>, Vec<Option<u64>>) {
    let (mut texts, mut inputs) = (Vec::new(), Vec::new());
    for line in session.lines().skip(1) {
        let value: Value = serde_json::from_str(line).unwrap();
        let Some(message) = value.get("message") else { continue };
        texts.push(format!("role {}", message["role"]));
        strings(message, &mut texts);
        if message["role"] == "assistant" {
            inputs.push(message.pointer("/usage/input").and_then(Value::as_u64));
        }
    }
    (texts, inputs)
}

fn strings(value: &Value, out: &mut Vec<String>) {
    match value {
        Value::String(text) if text != "5000" => out.push(text.clone()),
        Value::Array(items) => items.iter().for_each(|item| strings(item, out)),
        Value::Object(map) => {
            for (key, item) in map {
                if !matches!(key.as_str(), "id" | "timestamp" | "toolCallId" | "responseId") {
                    strings(item, out);
                }
            }
        }
        Value::String(_) | Value::Null | Value::Bool(_) | Value::Number(_) => {}
    }
}

/// One import instance: the transcript with `odd` put in place; `usage` says the place is
/// the usage count every assistant message's `input` comes from.
fn import_holds(original: &str, odd_text: &str, usage: Option<u64>) -> Result<(), String> {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.jsonl"), original).unwrap();
    std::fs::write(dir.path().join("b.jsonl"), odd_text).unwrap();
    let (code, _, stderr) = run(&["import", "a.jsonl", "-o", "a-out.jsonl"], dir.path(), None);
    assert_eq!(code, 0, "the unchanged transcript imports: {stderr}");
    let (code, _, stderr) = run(&["import", "b.jsonl", "-o", "b-out.jsonl"], dir.path(), None);
    if code != 0 {
        return Err(format!("exit {code}: {}", stderr.trim()));
    }
    let read = |name: &str| std::fs::read_to_string(dir.path().join(name)).unwrap();
    let (want, _) = messages(&read("a-out.jsonl"));
    let (got, inputs) = messages(&read("b-out.jsonl"));
    if want != got {
        return Err(format!("messages differ:\n  want {want:?}\n  got  {got:?}"));
    }
    if let Some(expected) = usage
        && inputs.iter().any(|input| *input != Some(expected))
    {
        return Err(format!("usage.input {inputs:?}, want {expected} each"));
    }
    Ok(())
}

/// Every `"KEY": N` (N a plain integer) in `text` with `odd` in place of N.
fn replace_numbers(text: &str, key: &str, odd: &str) -> String {
    let needle = format!("{key}: ");
    let mut out = String::new();
    let mut rest = text;
    while let Some(at) = rest.find(&needle) {
        let value_at = at + needle.len();
        let digits = rest[value_at..].bytes().take_while(u8::is_ascii_digit).count();
        out.push_str(&rest[..value_at]);
        out.push_str(if digits > 0 { odd } else { "" });
        rest = &rest[value_at + digits..];
    }
    out.push_str(rest);
    out
}

fn import_instances() -> Vec<(String, String, String, Option<u64>)> {
    let claude = include_str!("../../../compaction-core/tests/fixtures/import/claude-code.jsonl");
    let codex = include_str!("../../../compaction-core/tests/fixtures/import/codex-rollout.jsonl");
    let mut cases = Vec::new();
    for (odd, count) in odd_values() {
        // In a JSON string (Codex's function call arguments), the quotes are escaped.
        let escaped = odd.replace('"', "\\\"");
        cases.push((
            format!("claude usage.input_tokens = {}", short(&odd)),
            claude.to_owned(),
            replace_numbers(claude, "\"input_tokens\"", &odd),
            Some(count),
        ));
        cases.push((
            format!("claude unmodelled costUSD = {} on every line", short(&odd)),
            claude.to_owned(),
            claude.lines().map(|line| format!("{{\"costUSD\": {odd}, {}\n", &line[1..])).collect(),
            None,
        ));
        cases.push((
            format!("claude tool_use input field = {}", short(&odd)),
            claude.to_owned(),
            claude.replace("\"input\": {", &format!("\"input\": {{\"limit\": {odd}, ")),
            None,
        ));
        cases.push((
            format!("codex token_count input_tokens = {}", short(&odd)),
            codex.to_owned(),
            replace_numbers(codex, "\"input_tokens\"", &odd),
            None,
        ));
        cases.push((
            format!("codex unmodelled payload field = {}", short(&odd)),
            codex.to_owned(),
            codex.replace("\"payload\": {", &format!("\"payload\": {{\"n\": {odd}, ")),
            None,
        ));
        cases.push((
            format!("codex function_call arguments timeout_ms = {}", short(&odd)),
            codex.to_owned(),
            replace_numbers(codex, "\\\"timeout_ms\\\"", &escaped),
            None,
        ));
    }
    // Added after the fixes above, appended so the earlier instances keep their numbers:
    // the other importers and the numbers they read.
    let antigravity =
        include_str!("../../../compaction-core/tests/fixtures/import/antigravity-trajectory.jsonl");
    let cursor = include_str!("../../../compaction-core/tests/fixtures/import/cursor-agent.jsonl");
    let codex_old =
        include_str!("../../../compaction-core/tests/fixtures/import/codex-rollout-old.jsonl");
    let every_line = |text: &str, odd: &str| -> String {
        text.lines().map(|line| format!("{{\"n\": {odd}, {}\n", &line[1..])).collect()
    };
    for (odd, _) in odd_values() {
        let name = short(&odd);
        cases.push((
            format!("claude Bash timeout = {name}"),
            claude.to_owned(),
            replace_numbers(claude, "\"timeout\"", &odd),
            None,
        ));
        cases.push((
            format!("codex turn_context model_context_window = {name}"),
            codex.to_owned(),
            codex.replace(
                "\"model\": \"gpt-5-codex\"",
                &format!("\"model\": \"gpt-5-codex\", \"model_context_window\": {odd}"),
            ),
            None,
        ));
        cases.push((
            format!("antigravity step_index = {name}"),
            antigravity.to_owned(),
            replace_numbers(antigravity, "\"step_index\"", &odd),
            None,
        ));
        cases.push((
            format!("cursor unmodelled field = {name} on every line"),
            cursor.to_owned(),
            every_line(cursor, &odd),
            None,
        ));
        cases.push((
            format!("codex (old) unmodelled field = {name} on every line"),
            codex_old.to_owned(),
            every_line(codex_old, &odd),
            None,
        ));
    }
    cases
}

fn short(odd: &str) -> String {
    if odd.len() > 12 { format!("{}… ({} chars)", &odd[..6], odd.len()) } else { odd.to_owned() }
}

#[test]
fn odd_numbers_in_transcripts_are_read_as_json_parse_reads_them() {
    let (mut dev, mut test) = ((0, 0), (0, 0));
    let mut failures = Vec::new();
    for (index, (name, original, odd_text, usage)) in import_instances().into_iter().enumerate() {
        assert_ne!(original, odd_text, "{name}: the odd value was put in place");
        let result = import_holds(&original, &odd_text, usage);
        let part = if index.is_multiple_of(3) { &mut test } else { &mut dev };
        part.1 += 1;
        match result {
            Ok(()) => part.0 += 1,
            Err(error) if !index.is_multiple_of(3) => {
                failures.push(format!("#{index} {name}: {error}"));
            }
            Err(_) => failures.push(format!("#{index} (test part)")),
        }
    }
    println!("odd numbers in transcripts: dev {}/{}, test {}/{}", dev.0, dev.1, test.0, test.1);
    assert!(failures.is_empty(), "{} failed:\n{}", failures.len(), failures.join("\n"));
}

/// The agent folder of an instance, with a global extension that prints `decision`.
fn agent_with_extension(root: &Path, decision: &str) -> std::path::PathBuf {
    let agent = root.join("agent");
    std::fs::create_dir_all(&agent).unwrap();
    let script = agent.join("ext.sh");
    std::fs::write(&script, format!("#!/bin/sh\ncat >/dev/null\ncat <<'EOF'\n{decision}\nEOF\n"))
        .unwrap();
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    let settings = serde_json::json!({"compaction": {"extensions": [{
        "name": "odd", "command": script, "events": ["before_compact"],
    }]}});
    std::fs::write(agent.join("settings.json"), settings.to_string()).unwrap();
    agent
}

fn decision_holds(decision: &str, summary: Option<&str>) -> Result<(), String> {
    let root = tempfile::tempdir().unwrap();
    let agent = agent_with_extension(root.path(), decision);
    let work = root.path().join("work");
    std::fs::create_dir_all(&work).unwrap();
    std::fs::copy(super::fixture("offline-coding.jsonl"), work.join("s.jsonl")).unwrap();
    let before = std::fs::read_to_string(work.join("s.jsonl")).unwrap();
    let (code, _, stderr) = run(&super::setup::RUN_ARGS, &work, Some(&agent));
    if code != 0 || stderr.contains("panicked") {
        return Err(format!("exit {code}: {}", stderr.trim()));
    }
    let after = std::fs::read_to_string(work.join("s.jsonl")).unwrap();
    let Some(added) = after.strip_prefix(before.as_str()) else {
        return Err("the session was rewritten".to_owned());
    };
    let Some(entry) =
        added.lines().last().and_then(|line| serde_json::from_str::<Value>(line).ok())
    else {
        return Err(format!("no readable entry was appended: {added:?}"));
    };
    if entry["type"] != "compaction" || entry["tokensBefore"].as_u64().is_none() {
        return Err(format!("not a compaction with a count of tokens before: {entry}"));
    }
    if let Some(summary) = summary
        && entry["summary"] != summary
    {
        return Err(format!("the extension's summary was not written: {entry}"));
    }
    let (code, stdout, stderr) = run(&["check", "s.jsonl"], &work, Some(&agent));
    if code != 0 {
        return Err(format!("check: exit {code}: {stdout}{stderr}"));
    }
    Ok(())
}

/// A decision with a `protocol`: written when `accepted`, else refused with a warning that
/// names the protocol, the run going on without it.
fn protocol_holds(decision: &str, accepted: bool) -> Result<(), String> {
    if accepted {
        return decision_holds(decision, Some("From the hook."));
    }
    let root = tempfile::tempdir().unwrap();
    let agent = agent_with_extension(root.path(), decision);
    let work = root.path().join("work");
    std::fs::create_dir_all(&work).unwrap();
    std::fs::copy(super::fixture("offline-coding.jsonl"), work.join("s.jsonl")).unwrap();
    let (code, _, stderr) = run(&super::setup::RUN_ARGS, &work, Some(&agent));
    let after = std::fs::read_to_string(work.join("s.jsonl")).unwrap();
    if code != 0 || !stderr.contains("protocol") || after.contains("From the hook.") {
        return Err(format!("exit {code}, not refused by its protocol: {}", stderr.trim()));
    }
    Ok(())
}

/// A settings instance: `config` must read the file or refuse it naming the file and key.
fn settings_hold(file: &str, text: &str, key: &str, unmodelled: bool) -> Result<(), String> {
    let args: &[&str] = if file == "models.json" {
        &["plan", "s.jsonl", "--provider", "openai", "--model", "m"]
    } else {
        &["config"]
    };
    settings_hold_with(file, text, key, unmodelled, args)
}

/// [`settings_hold`] with the command that reads the file.
fn settings_hold_with(
    file: &str,
    text: &str,
    key: &str,
    unmodelled: bool,
    args: &[&str],
) -> Result<(), String> {
    let root = tempfile::tempdir().unwrap();
    let agent = root.path().join("agent");
    let work = root.path().join("work");
    std::fs::create_dir_all(&agent).unwrap();
    std::fs::create_dir_all(&work).unwrap();
    std::fs::copy(super::fixture("offline-coding.jsonl"), work.join("s.jsonl")).unwrap();
    // The same file without the odd value, for the output to compare with.
    let plain = if file == "models.json" { r#"{"providers":{}}"# } else { r#"{"compaction":{}}"# };
    std::fs::write(agent.join(file), plain).unwrap();
    let (_, baseline, _) = run(args, &work, Some(&agent));
    std::fs::write(agent.join(file), text).unwrap();
    let (code, stdout, stderr) = run(args, &work, Some(&agent));
    if stderr.contains("panicked") || !(code == 0 || code == 2) {
        return Err(format!("exit {code}: {}", stderr.trim()));
    }
    if code == 2 && (unmodelled || !stderr.contains(file) || !stderr.contains(key)) {
        return Err(format!("refused without naming {file} and {key}: {}", stderr.trim()));
    }
    if unmodelled && stdout != baseline {
        return Err(format!("an unmodelled key changed the output:\n{baseline}\n---\n{stdout}"));
    }
    Ok(())
}

/// One instance: it runs and says what went wrong.
type Instance = Box<dyn Fn() -> Result<(), String>>;

#[test]
fn odd_numbers_in_decisions_and_settings_are_read_or_refused_by_name() {
    let mut cases: Vec<(String, Instance)> = Vec::new();
    for (odd, _) in odd_values() {
        let name = short(&odd);
        let o = odd.clone();
        cases.push((
            format!("decision: continue with n = {name}"),
            Box::new(move || decision_holds(&format!(r#"{{"action":"continue","n":{o}}}"#), None)),
        ));
        let o = odd.clone();
        cases.push((
            format!("decision: replace with tokensBefore = {name}"),
            Box::new(move || {
                decision_holds(
                    &format!(
                        r#"{{"action":"replace","summary":"From the hook.","tokensBefore":{o}}}"#
                    ),
                    Some("From the hook."),
                )
            }),
        ));
        let o = odd.clone();
        cases.push((
            format!("decision: replace with details.n = {name}"),
            Box::new(move || {
                decision_holds(
                    &format!(
                        r#"{{"action":"replace","summary":"From the hook.","details":{{"n":{o}}}}}"#
                    ),
                    Some("From the hook."),
                )
            }),
        ));
        let o = odd.clone();
        cases.push((
            format!("settings.json: keepRecentTokens = {name}"),
            Box::new(move || {
                let text = format!(r#"{{"compaction":{{"keepRecentTokens":{o}}}}}"#);
                settings_hold("settings.json", &text, "keepRecentTokens", false)
            }),
        ));
        let o = odd.clone();
        cases.push((
            format!("settings.json: reserveTokens = {name}"),
            Box::new(move || {
                let text = format!(r#"{{"compaction":{{"reserveTokens":{o}}}}}"#);
                settings_hold("settings.json", &text, "reserveTokens", false)
            }),
        ));
        let o = odd.clone();
        cases.push((
            format!("settings.json: unmodelled theme = {name}"),
            Box::new(move || {
                let text = format!(r#"{{"theme":{o},"compaction":{{}}}}"#);
                settings_hold("settings.json", &text, "theme", true)
            }),
        ));
        let o = odd.clone();
        cases.push((
            format!("models.json: contextWindow = {name}"),
            Box::new(move || {
                let text = format!(
                    r#"{{"providers":{{"openai":{{"models":[{{"id":"m","contextWindow":{o}}}]}}}}}}"#
                );
                settings_hold("models.json", &text, "contextWindow", false)
            }),
        ));
    }
    // Added after the fixes above, appended so the earlier instances keep their numbers:
    // every numeric setting, read by a command that uses it (`plan`).
    let numeric = [
        "reserveTokens",
        "keepRecentTokens",
        "keepUserMessagesTokens",
        "threshold",
        "minTurnsToKeep",
        "maxSummaryTokens",
        "branchMaxSummaryTokens",
        "preserveRecentFiles",
        "toolResultMaxChars",
        "maxMessages",
        "contextWindow",
        "summaryContextWindow",
        "timeoutSeconds",
        "summaryConcurrency",
        "restoreFileTokens",
        "restoreTotalTokens",
    ];
    for (odd, _) in odd_values() {
        for key in numeric {
            let o = odd.clone();
            cases.push((
                format!("settings.json: {key} = {} (plan)", short(&odd)),
                Box::new(move || {
                    let text = format!(r#"{{"compaction":{{"{key}":{o}}}}}"#);
                    settings_hold_with("settings.json", &text, key, false, &["plan", "s.jsonl"])
                }),
            ));
        }
        let o = odd.clone();
        cases.push((
            format!("settings.json: prune.protectRecentTokens = {} (plan)", short(&odd)),
            Box::new(move || {
                let text = format!(r#"{{"compaction":{{"prune":{{"protectRecentTokens":{o}}}}}}}"#);
                settings_hold_with(
                    "settings.json",
                    &text,
                    "protectRecentTokens",
                    false,
                    &["plan", "s.jsonl"],
                )
            }),
        ));
    }
    // The decision's `protocol`: a number equal to 1 in any spelling (`1.0`, as Python's
    // `json.dumps(1.0)` writes it, `1e0`, `10e-1`) is version 1 to `JSON.parse`; any other
    // value is refused with a warning naming it, and the run goes on without the decision.
    for (protocol, accepted) in
        [("1.0", true), ("1e0", true), ("10e-1", true), ("0.1e1", true), ("1", true)]
            .into_iter()
            .map(|(p, a)| (p.to_owned(), a))
            .chain(odd_values().into_iter().map(|(odd, _)| (odd, false)))
    {
        let name = short(&protocol);
        cases.push((
            format!("decision: protocol = {name}"),
            Box::new(move || {
                let decision = format!(
                    r#"{{"protocol":{protocol},"action":"replace","summary":"From the hook."}}"#
                );
                protocol_holds(&decision, accepted)
            }),
        ));
    }
    let (mut dev, mut test) = ((0, 0), (0, 0));
    let mut failures = Vec::new();
    for (index, (name, case)) in cases.iter().enumerate() {
        let part = if index.is_multiple_of(3) { &mut test } else { &mut dev };
        part.1 += 1;
        match case() {
            Ok(()) => part.0 += 1,
            Err(error) if !index.is_multiple_of(3) => {
                failures.push(format!("#{index} {name}: {error}"));
            }
            Err(_) => failures.push(format!("#{index} (test part)")),
        }
    }
    println!(
        "odd numbers in decisions and settings: dev {}/{}, test {}/{}",
        dev.0, dev.1, test.0, test.1
    );
    assert!(failures.is_empty(), "{} failed:\n{}", failures.len(), failures.join("\n"));
}
