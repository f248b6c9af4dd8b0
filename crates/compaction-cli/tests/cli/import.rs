//! `compaction import` given hostile input, by class: the output naming the transcript
//! itself (through links, relative and absolute paths), files that are no regular file, the
//! temporary file of a killed import, and generated transcripts (lines out of order, hook
//! lines, lone surrogate escapes, fields of the wrong type, Codex patches and token counts).
//!
//! Generated transcripts are converted in this process (the command's own conversion, without
//! a process per instance); the file classes go through the binary. Generated instances are
//! split once by a fixed rule: instance `i` is in the test part when
//! `i % 3 == 0`, else in the dev part. Both parts must hold every invariant; the counts of
//! each are printed.

use std::collections::BTreeSet;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use compaction_core::files::FileOperations;
use compaction_core::import::{self, ImportError, ImportOptions};
use compaction_core::message::AgentMessage;
use compaction_core::redact::Redactor;
use serde_json::{Value, json};

/// Runs the binary with a deadline; returns exit code, stdout and stderr.
fn import(args: &[&str], cwd: &Path) -> (i32, String, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_compaction"))
        .arg("import")
        .args(args)
        .current_dir(cwd)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let started = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if started.elapsed() > Duration::from_secs(20) {
            child.kill().unwrap();
            panic!("`compaction import {}` hung", args.join(" "));
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    let output = child.wait_with_output().unwrap();
    (
        output.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&output.stdout).into(),
        String::from_utf8_lossy(&output.stderr).into(),
    )
}

fn listing(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

const TRANSCRIPT: &str =
    include_str!("../../../compaction-core/tests/fixtures/import/claude-code.jsonl");

#[test]
fn the_output_is_never_the_transcript_whatever_path_names_it() {
    let root = tempfile::tempdir().unwrap();
    let dir = root.path().join("work");
    std::fs::create_dir(&dir).unwrap();
    std::fs::write(dir.join("t.jsonl"), TRANSCRIPT).unwrap();
    std::os::unix::fs::symlink(dir.join("t.jsonl"), dir.join("link.jsonl")).unwrap();
    std::fs::hard_link(dir.join("t.jsonl"), dir.join("hard.jsonl")).unwrap();
    let absolute = dir.join("t.jsonl").display().to_string();
    let cases: [&[&str]; 6] = [
        &["t.jsonl", "-o", "./t.jsonl", "--force"],
        &[&absolute, "-o", "t.jsonl", "--force"],
        &["t.jsonl", "-o", "../work/t.jsonl", "--force"],
        &["t.jsonl", "-o", "link.jsonl", "--force"],
        &["link.jsonl", "-o", "t.jsonl", "--force"],
        &["t.jsonl", "-o", "hard.jsonl", "--force"],
    ];
    let before = listing(&dir);
    for args in cases {
        let (code, _, stderr) = import(args, &dir);
        assert_eq!(code, 2, "{args:?}: {stderr}");
        assert!(stderr.contains("itself (the same file)"), "{args:?}: {stderr}");
        assert_eq!(std::fs::read_to_string(dir.join("t.jsonl")).unwrap(), TRANSCRIPT);
        assert_eq!(listing(&dir), before, "{args:?}: nothing left beside it");
    }
}

#[test]
fn files_that_are_no_regular_file_are_refused_without_blocking() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("pipe.jsonl");
    assert!(Command::new("mkfifo").arg(&fifo).status().unwrap().success());
    std::fs::create_dir(dir.path().join("folder.jsonl")).unwrap();
    for (input, what) in
        [("pipe.jsonl", "a FIFO"), ("/dev/zero", "a device"), ("folder.jsonl", "a directory")]
    {
        let (code, _, stderr) = import(&[input, "-o", "out.jsonl"], dir.path());
        assert_eq!(code, 2, "{input}: {stderr}");
        assert!(stderr.contains(what), "{input}: {stderr}");
        assert!(!dir.path().join("out.jsonl").exists());
    }
    // A FIFO as the output is refused too, before anything is written to it.
    std::fs::write(dir.path().join("t.jsonl"), TRANSCRIPT).unwrap();
    let (code, _, stderr) = import(&["t.jsonl", "-o", "pipe.jsonl", "--force"], dir.path());
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("a FIFO"), "{stderr}");
}

#[test]
fn a_killed_imports_temporary_file_is_removed_by_the_next_and_named() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("t.jsonl"), TRANSCRIPT).unwrap();
    // Left by an import that was killed (nobody holds it) and one a live import holds.
    let stale = dir.path().join(".out.jsonl.import-4000001");
    std::fs::write(&stale, "half a session").unwrap();
    let live = dir.path().join(".out.jsonl.import-4000002");
    std::fs::write(&live, "being written").unwrap();
    let held = std::fs::File::open(&live).unwrap();
    held.try_lock().unwrap();
    let (code, stdout, stderr) = import(&["t.jsonl", "-o", "out.jsonl", "--json"], dir.path());
    assert_eq!(code, 0, "{stderr}");
    assert!(!stale.exists(), "the stale temporary file is removed");
    assert!(stderr.contains(".out.jsonl.import-4000001") && stderr.contains("interrupted import"));
    let report: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(report["removedTemps"].as_array().unwrap().len(), 1);
    assert!(live.exists(), "a temporary file a live import holds is left alone");
    drop(held);
    assert_eq!(listing(dir.path()), [".out.jsonl.import-4000002", "out.jsonl", "t.jsonl"]);
}

#[test]
fn an_existing_output_is_replaced_only_with_force() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("t.jsonl"), TRANSCRIPT).unwrap();
    std::fs::write(dir.path().join("out.jsonl"), "mine").unwrap();
    let (code, _, stderr) = import(&["t.jsonl", "-o", "out.jsonl"], dir.path());
    assert_eq!(code, 2, "{stderr}");
    assert_eq!(std::fs::read_to_string(dir.path().join("out.jsonl")).unwrap(), "mine");
    let (code, _, stderr) = import(&["t.jsonl", "-o", "out.jsonl", "--force"], dir.path());
    assert_eq!(code, 0, "{stderr}");
    assert_ne!(std::fs::read_to_string(dir.path().join("out.jsonl")).unwrap(), "mine");
    assert_eq!(listing(dir.path()), ["out.jsonl", "t.jsonl"]);
}

/// A small deterministic generator (xorshift).
struct Random(u64);

impl Random {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }
}

/// Makes one instance of a class from a random source.
type Generator = fn(&mut Random) -> Case;

/// A generated transcript and what its import must show.
struct Case {
    text: String,
    /// The user, assistant and tool result texts in the order the conversation had them.
    conversation: Vec<String>,
    /// Files its patches add or update.
    patched: BTreeSet<String>,
    /// Whether a line is malformed on purpose (the import must then fail, naming it).
    bad_line: Option<usize>,
}

fn claude_line(uuid: &str, parent: Option<&str>, fields: Value) -> String {
    let mut line = json!({"uuid":uuid,"parentUuid":parent,"sessionId":"gen","cwd":"/gen",
        "isSidechain":false,"timestamp":"2025-07-15T05:07:22.709Z"});
    line.as_object_mut().unwrap().extend(fields.as_object().unwrap().clone());
    line.to_string()
}

/// A Claude Code conversation of a few turns, each a reply with tool calls and their results,
/// with hook lines between them and, sometimes, a result written before its reply line.
/// `surrogates` puts lone surrogate escapes into texts; `shapes` adds lines and blocks of
/// unexpected shape.
fn claude_case(random: &mut Random, surrogates: bool, shapes: bool) -> Case {
    let mut lines: Vec<String> = Vec::new();
    let mut conversation = Vec::new();
    let mut counter = 0;
    let mut uuid = || {
        counter += 1;
        format!("g{counter}")
    };
    let text = |random: &mut Random, base: String| -> (String, String) {
        // The line's JSON text and what the import must show.
        if surrogates && random.chance(40) {
            let lone = ["\\ud83d", "\\udc00", "\\uD800"][random.below(3) as usize];
            (format!("{base} {lone} end"), format!("{base} \u{fffd} end"))
        } else {
            (base.clone(), base)
        }
    };
    let mut last = None::<String>;
    for turn in 0..(2 + random.below(4)) {
        let id = uuid();
        let (raw, shown) = text(random, format!("request {turn}"));
        lines.push(
            claude_line(
                &id,
                last.as_deref(),
                json!({"type":"user","message":{"role":"user","content":"RAW"}}),
            )
            .replace("RAW", &raw),
        );
        conversation.push(shown);
        last = Some(id);
        for step in 0..(1 + random.below(3)) {
            let reply = format!("m{turn}-{step}");
            let text_id = uuid();
            let (raw, shown) = text(random, format!("working {turn}.{step}"));
            lines.push(
                claude_line(&text_id, last.as_deref(), json!({"type":"assistant","message":{
                    "id":reply,"role":"assistant","model":"claude-x","content":[{"type":"text","text":"RAW"}]}}))
                .replace("RAW", &raw),
            );
            conversation.push(shown);
            let call_id = uuid();
            let tool = format!("toolu_{turn}_{step}");
            let call_line = claude_line(
                &call_id,
                Some(&text_id),
                json!({"type":"assistant","message":{
                "id":reply,"role":"assistant","model":"claude-x",
                "content":[{"type":"tool_use","id":tool,"name":"Bash","input":{"command":"ls"}}]}}),
            );
            let result_id = uuid();
            let (raw, shown) = text(random, format!("output {turn}.{step}"));
            let result_line = claude_line(
                &result_id,
                Some(&call_id),
                json!({"type":"user","message":{"role":"user",
                "content":[{"type":"tool_result","tool_use_id":tool,"content":"RAW"}]}}),
            )
            .replace("RAW", &raw);
            // Hook lines after the call, chained from it; the result points at the call.
            let mut hooks = Vec::new();
            let mut hook_parent = call_id.clone();
            for _ in 0..random.below(4) {
                let hook = uuid();
                hooks.push(claude_line(
                    &hook,
                    Some(&hook_parent),
                    json!({"type":"progress","data":{"type":"hook_progress"}}),
                ));
                hook_parent = hook;
            }
            if random.chance(25) {
                lines.push(result_line);
                lines.push(call_line);
                lines.extend(hooks);
            } else {
                lines.push(call_line);
                lines.extend(hooks);
                lines.push(result_line);
            }
            conversation.push(shown);
            // Hook lines after the result; the next message hangs from the last of them.
            let mut after = result_id;
            for _ in 0..random.below(3) {
                let hook = uuid();
                lines.push(claude_line(
                    &hook,
                    Some(&after),
                    json!({"type":"progress","data":{"type":"hook_progress"}}),
                ));
                after = hook;
            }
            if shapes && random.chance(30) {
                let odd = uuid();
                lines.push(claude_line(
                    &odd,
                    Some(&after),
                    json!({"type":"system","subtype":"odd","content":7}),
                ));
                after = odd;
            }
            last = Some(after);
        }
        if shapes && random.chance(50) {
            lines.push(
                json!({"type":"queue-operation","operation":"dequeue","sessionId":"gen"})
                    .to_string(),
            );
            lines.push(
                json!({"type":"file-history-snapshot","messageId":"x","snapshot":null}).to_string(),
            );
        }
    }
    let mut bad_line = None;
    if shapes && random.chance(20) {
        let at = 1 + random.below(lines.len() as u64) as usize;
        let junk = ["{not json", "[1,2,3]", "\"text\"", "{\"a\":"][random.below(4) as usize];
        lines.insert(at, junk.to_owned());
        bad_line = Some(at + 1);
    }
    Case { text: lines.join("\n") + "\n", conversation, patched: BTreeSet::new(), bad_line }
}

/// A Codex rollout whose replies patch files, in both forms (`custom_tool_call` and a shell
/// `apply_patch` argv), with token counts before or after their reply.
fn codex_case(random: &mut Random) -> Case {
    let line = |kind: &str, payload: Value| {
        json!({"timestamp":"2025-11-14T04:58:27.228Z","type":kind,"payload":payload}).to_string()
    };
    let mut lines = vec![line(
        "session_meta",
        json!({"id":"gen","timestamp":"2025-11-14T04:58:27Z","cwd":"/gen"}),
    )];
    let mut conversation = Vec::new();
    let mut patched = BTreeSet::new();
    let mut total = 0;
    for turn in 0..(1 + random.below(3)) {
        let request = format!("request {turn}");
        lines.push(line("response_item", json!({"type":"message","role":"user","content":[{"type":"input_text","text":request}]})));
        conversation.push(request);
        for step in 0..(1 + random.below(4)) {
            let file = format!("src/gen_{turn}_{step}_{}.rs", random.below(1000));
            let verb = if random.chance(50) { "Add" } else { "Update" };
            let patch = format!("*** Begin Patch\n*** {verb} File: {file}\n+x\n*** End Patch\n");
            patched.insert(file);
            let id = format!("call_{turn}_{step}");
            let call = if random.chance(50) {
                line(
                    "response_item",
                    json!({"type":"custom_tool_call","call_id":id,"name":"apply_patch","input":patch}),
                )
            } else {
                let arguments = json!({"command":["apply_patch", patch]}).to_string();
                line(
                    "response_item",
                    json!({"type":"function_call","call_id":id,"name":"shell","arguments":arguments}),
                )
            };
            total += 100;
            let count = line(
                "event_msg",
                json!({"type":"token_count","info":{
                "total_token_usage":{"total_tokens":total},
                "last_token_usage":{"input_tokens":total,"output_tokens":3},
                "model_context_window":272000}}),
            );
            let before = random.chance(50);
            if before {
                lines.push(count.clone());
            }
            lines.push(call);
            if !before {
                lines.push(count.clone());
            }
            let output = format!("patched {turn}.{step}");
            lines.push(line(
                "response_item",
                json!({"type":"custom_tool_call_output","call_id":id,"output":output}),
            ));
            if random.chance(50) {
                lines.push(count);
            }
            conversation.push(output);
        }
    }
    Case { text: lines.join("\n") + "\n", conversation, patched, bad_line: None }
}

/// The texts of the messages on the path from the last entry, root first, and the session's
/// assistant messages.
fn path_texts(session: &str) -> (Vec<String>, Vec<Value>) {
    let entries: Vec<Value> =
        session.lines().skip(1).map(|l| serde_json::from_str(l).unwrap()).collect();
    let mut path = Vec::new();
    let mut at = entries.last().cloned();
    while let Some(entry) = at {
        path.push(entry.clone());
        at = entries.iter().find(|e| e["id"] == entry["parentId"]).cloned();
    }
    path.reverse();
    let texts = path
        .iter()
        .filter_map(|e| e["message"]["content"].as_array())
        .flat_map(|blocks| {
            blocks.iter().filter_map(|b| b["text"].as_str()).map(str::to_owned).collect::<Vec<_>>()
        })
        .collect();
    let replies = entries.into_iter().filter(|e| e["message"]["role"] == "assistant").collect();
    (texts, replies)
}

/// Checks one generated case (converted in this process, through the same conversion the
/// command streams); returns what failed, if anything.
fn check_case(case: &Case, redactor: &Redactor) -> Result<(), String> {
    let options = ImportOptions { format: None, fallback_cwd: None };
    let imported = import::import_with(&case.text, &options, redactor);
    if let Some(line) = case.bad_line {
        return match imported {
            Err(ImportError::NotJson { line: named, .. }) if named == line => Ok(()),
            other => Err(format!("a bad line {line} must be an error naming it: {other:?}")),
        };
    }
    let imported = imported.map_err(|e| e.to_string())?;
    let report = serde_json::to_value(&imported.report).unwrap();
    let session = imported.session;
    let parsed = compaction_core::parse_session(session.as_bytes());
    if parsed.diagnostics().iter().any(|d| d.severity() != compaction_core::Severity::Info) {
        return Err(format!("session not clean: {:?}", parsed.diagnostics()));
    }
    let header: Value = serde_json::from_str(session.lines().next().unwrap()).unwrap();
    if header["cwd"].as_str().is_none_or(str::is_empty) {
        return Err("header without cwd".into());
    }
    let (texts, replies) = path_texts(&session);
    if texts != case.conversation {
        return Err(format!("path {texts:?}\nwanted {:?}", case.conversation));
    }
    let messages = report["userMessages"].as_u64().unwrap()
        + report["assistantMessages"].as_u64().unwrap()
        + report["toolResults"].as_u64().unwrap();
    if report["messagesOnPath"].as_u64() != Some(messages) {
        return Err(format!("{} of {messages} messages on the path", report["messagesOnPath"]));
    }
    for reply in &replies {
        let usage = &reply["message"]["usage"];
        let full = ["input", "output", "cacheRead", "cacheWrite", "totalTokens"]
            .iter()
            .all(|key| usage[key].is_u64())
            && usage["cost"]["total"].is_number();
        if !full {
            return Err(format!("a reply without pi's full usage: {usage}"));
        }
    }
    if !case.patched.is_empty() {
        let mut files = FileOperations::default();
        for reply in &replies {
            let message: AgentMessage = serde_json::from_value(reply["message"].clone()).unwrap();
            files.add_message(&message);
        }
        let modified: BTreeSet<String> = files.modified().into_iter().collect();
        if modified != case.patched {
            return Err(format!("modified {modified:?}, patched {:?}", case.patched));
        }
        if replies.iter().any(|r| r["message"]["usage"]["input"] == 0) {
            return Err("a reply lost its token count".into());
        }
    }
    Ok(())
}

#[test]
fn generated_hostile_transcripts_import_with_the_conversation_on_the_path() {
    let redactor = Redactor::default();
    let classes: [(&str, Generator); 4] = [
        ("hooks and order", |r| claude_case(r, false, false)),
        ("lone surrogates", |r| claude_case(r, true, false)),
        ("odd shapes and bad lines", |r| claude_case(r, false, true)),
        ("codex patches and counts", codex_case),
    ];
    let mut failures = Vec::new();
    for (class, generate) in classes {
        let mut passed = [0, 0];
        let mut total = [0, 0];
        for instance in 0..60u64 {
            let part = usize::from(instance % 3 == 0);
            let mut random =
                Random(0x9e37_79b9_7f4a_7c15 ^ (instance + 1).wrapping_mul(0x2545_f491));
            let case = generate(&mut random);
            total[part] += 1;
            match check_case(&case, &redactor) {
                Ok(()) => passed[part] += 1,
                Err(error) => failures.push(format!("{class} #{instance}: {error}")),
            }
        }
        eprintln!(
            "import, generated `{class}`: dev {}/{} test {}/{}",
            passed[0], total[0], passed[1], total[1]
        );
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn the_window_a_rollout_recorded_comes_before_the_model_table() {
    let dir = tempfile::tempdir().unwrap();
    let rollout =
        include_str!("../../../compaction-core/tests/fixtures/import/codex-rollout.jsonl");
    std::fs::write(dir.path().join("r.jsonl"), rollout).unwrap();
    let (code, _, stderr) = import(&["r.jsonl", "-o", "s.jsonl"], dir.path());
    assert_eq!(code, 0, "{stderr}");
    let window = |args: &[&str]| -> (u64, String) {
        let output = Command::new(env!("CARGO_BIN_EXE_compaction"))
            .args(args)
            .current_dir(dir.path())
            .env("HOME", dir.path())
            .env_remove("PI_CODING_AGENT_DIR")
            .output()
            .unwrap();
        let report: Value = serde_json::from_slice(&output.stdout).unwrap_or_else(|e| {
            panic!("{args:?}: {e}: {}", String::from_utf8_lossy(&output.stderr))
        });
        (
            report["contextWindow"].as_u64().unwrap(),
            report["contextWindowSource"]["kind"].as_str().unwrap().to_owned(),
        )
    };
    // The rollout says 272000; the model table gives gpt-5-codex 400000.
    assert_eq!(window(&["plan", "s.jsonl", "--json"]), (272_000, "session".into()));
    assert_eq!(window(&["stats", "s.jsonl", "--json"]), (272_000, "session".into()));
    assert_eq!(
        window(&["run", "s.jsonl", "--offline", "--dry-run", "--json"]),
        (272_000, "session".into())
    );
    // An explicit window still wins.
    assert_eq!(
        window(&["plan", "s.jsonl", "--json", "--context-window", "50000"]),
        (50_000, "flag".into())
    );
}
