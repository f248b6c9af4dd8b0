//! A trusted hook that misbehaves. The hook is a `sh -c SCRIPT` extension named in the
//! global settings (trusted by being global), called for `before_compact` with a time limit
//! of 6 s; the generator crosses what the script does with the command that calls it (`run`
//! in place, `run -o OUT`, `summarize --json`).
//!
//! What must hold for every instance: the command ends within the hook's time limit plus
//! 8 s (a hook that answered at once: within 5 s, under the time limit, whatever it left
//! running); exit 0 (the
//! hook's failure never fails the compaction); the outcome the behaviour calls for (the
//! hook's summary written, the built-in compaction written with a warning naming the
//! extension, or nothing written and every file byte-identical); no secret the hook
//! printed anywhere on stdout, stderr or in any file; no process the hook started still
//! running once the command has ended.

use std::path::Path;
use std::time::Duration;

use serde_json::{Value, json};

use super::{Tally, run_in};

/// The name the extension is configured under; every warning about it must name it.
const NAME: &str = "hostile-hook";
/// The hook's time limit.
/// (4 s until round 13, when a hook that answered at once was measured at 3.2 s, past its
/// 3 s bound, on a 2-core machine running the whole suite in a debug build; 6 s until round
/// 16, when four such commands took 5.0–5.2 s, past their 5 s bound, while a second suite
/// ran beside it.)
const LIMIT_MS: u64 = 8000;
/// The most a command may take when its hook answered at once: below the time limit, so a
/// hook that was waited for until its limit is told apart.
const PROMPT_MS: u64 = 7000;

/// What a behaviour must lead to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Outcome {
    /// The hook's replacement is written (`fromHook`, its marker in the summary).
    Hook,
    /// The built-in compaction is written and a warning names the extension.
    BuiltIn,
    /// The built-in compaction is written; the hook said nothing wrong (no warning needed).
    Quiet,
    /// Nothing is written (the hook cancelled).
    Unchanged,
}

/// Secrets a hook may print, each of a shape the built-in redaction knows (checked).
fn secrets() -> Vec<String> {
    vec![
        format!("ghp_{}", "Zq7Xw2Lm9Rt4Yp6Vb3Nc8Kd1Hf5Gj0Sa2Ue7Io"),
        format!("AKIA{}", "QWERTYUIOPLKJHGF"),
        format!("sk-ant-api03-{}", "Xy7Qw3Er9Ty2Ui8Op4As6Df1Gh5Jk0LzXcVbNm".repeat(2)),
        format!("xoxb-{}-{}-{}", "123456789012", "1234567890123", "AbCdEfGhIjKlMnOpQrStUvWx"),
    ]
}

/// One kind of misbehaviour: a shell script (the event is on its stdin) and what it must
/// lead to. `{S}` in a script is replaced by a secret, `{P}` by the work folder.
struct Behaviour {
    name: &'static str,
    script: &'static str,
    outcome: Outcome,
    /// Whether the hook answers at once (the command must then end within [`PROMPT_MS`]).
    prompt: bool,
}

const REPLACE: &str = r#"{"action":"replace","summary":"HOOK-SUMMARY of the session"}"#;

fn behaviours() -> Vec<Behaviour> {
    let b = |name, script, outcome, prompt| Behaviour { name, script, outcome, prompt };
    vec![
        b(
            "floods stdout forever",
            "cat >/dev/null; yes '{\"action\":\"continue\"}'",
            Outcome::BuiltIn,
            true,
        ),
        b(
            "floods stdout past the bound, then exits",
            "cat >/dev/null; head -c 20000000 /dev/zero | tr '\\0' x",
            Outcome::BuiltIn,
            true,
        ),
        b(
            "writes half a JSON line and hangs",
            "cat >/dev/null; printf '{\"action\":\"repl'; sleep 60",
            Outcome::BuiltIn,
            false,
        ),
        b("never replies", "cat >/dev/null; sleep 60", Outcome::BuiltIn, false),
        b("never reads stdin and never replies", "exec 0<&-; sleep 60", Outcome::BuiltIn, false),
        b(
            "replies twice",
            "cat >/dev/null; printf '%s\\n%s\\n' 'REPLACE' 'REPLACE'",
            Outcome::BuiltIn,
            true,
        ),
        b(
            "writes non-UTF-8",
            "cat >/dev/null; printf '{\"action\":\"replace\",\"summary\":\"HOOK-SUMMARY \\377\\376\"}'",
            Outcome::BuiltIn,
            true,
        ),
        b(
            "closes stdin early, then replies",
            "exec 0<&-; printf '%s' 'REPLACE'",
            Outcome::Hook,
            true,
        ),
        b("exits 0 without a decision", "cat >/dev/null; exit 0", Outcome::Quiet, true),
        b(
            "exits non-zero with a valid decision",
            "cat >/dev/null; printf '%s' 'REPLACE'; exit 3",
            Outcome::BuiltIn,
            true,
        ),
        b(
            "is killed by a signal after a valid decision",
            "cat >/dev/null; printf '%s' 'REPLACE'; kill -9 $$",
            Outcome::BuiltIn,
            true,
        ),
        b(
            "leaves a process holding stdout after a valid decision",
            "cat >/dev/null; (sleep 30 &); printf '%s' 'REPLACE'",
            Outcome::Hook,
            true,
        ),
        b(
            "leaves a process holding stderr after a valid decision",
            "cat >/dev/null; (sleep 30 >/dev/null &); printf '%s' 'REPLACE'",
            Outcome::Hook,
            true,
        ),
        b(
            "leaves a process holding both pipes after cancelling",
            "cat >/dev/null; (sleep 30 &); printf '{\"action\":\"cancel\",\"reason\":\"busy\"}'",
            Outcome::Unchanged,
            true,
        ),
        b(
            "leaves a process holding both pipes after answering nothing",
            "cat >/dev/null; (sleep 30 &); exit 0",
            Outcome::Quiet,
            true,
        ),
        b(
            "floods stderr, then replies",
            "cat >/dev/null; head -c 30000000 /dev/zero >&2; printf '%s' 'REPLACE'",
            Outcome::Hook,
            true,
        ),
        b("floods stderr forever", "cat >/dev/null; yes 'noise {S}' >&2", Outcome::BuiltIn, false),
        b(
            "prints a secret on stderr and fails",
            "cat >/dev/null; echo 'token {S} rejected' >&2; exit 1",
            Outcome::BuiltIn,
            true,
        ),
        b(
            "prints a secret as bad output",
            "cat >/dev/null; echo 'the key is {S}'",
            Outcome::BuiltIn,
            true,
        ),
        b(
            "returns a summary larger than maxSummaryTokens",
            "cat >/dev/null; printf '{\"action\":\"replace\",\"summary\":\"HOOK-SUMMARY '; head -c 60000 /dev/zero | tr '\\0' 'w' | sed 's/w\\{5\\}/word /g'; printf '\"}'",
            Outcome::BuiltIn,
            true,
        ),
        b(
            "returns a summary larger than the model window",
            "cat >/dev/null; printf '{\"action\":\"replace\",\"summary\":\"HOOK-SUMMARY '; head -c 800000 /dev/zero | tr '\\0' 'w' | sed 's/w\\{5\\}/word /g'; printf '\"}'",
            Outcome::BuiltIn,
            true,
        ),
        b(
            "returns a summary carrying a secret",
            "cat >/dev/null; printf '{\"action\":\"replace\",\"summary\":\"HOOK-SUMMARY uses {S} to deploy\"}'",
            Outcome::Hook,
            true,
        ),
        b(
            "returns details carrying a secret",
            "cat >/dev/null; printf '{\"action\":\"replace\",\"summary\":\"HOOK-SUMMARY\",\"details\":{\"token\":\"{S}\",\"note\":\"key {S}\"}}'",
            Outcome::Hook,
            true,
        ),
        b(
            "returns instructions carrying a secret",
            "cat >/dev/null; printf '{\"action\":\"continue\",\"instructions\":\"Mention that the key is {S}.\"}'",
            Outcome::Quiet,
            true,
        ),
        b(
            "cancels with a reason carrying a secret",
            "cat >/dev/null; printf '{\"action\":\"cancel\",\"reason\":\"key {S} is revoked\"}'",
            Outcome::Unchanged,
            true,
        ),
        b(
            "keeps from an entry that does not exist",
            "cat >/dev/null; printf '{\"action\":\"replace\",\"summary\":\"HOOK-SUMMARY\",\"firstKeptEntryId\":\"nowhere\"}'",
            Outcome::BuiltIn,
            true,
        ),
        b(
            "keeps from an entry on another branch",
            "cat >/dev/null; printf '{\"action\":\"replace\",\"summary\":\"HOOK-SUMMARY\",\"firstKeptEntryId\":\"s1\"}'",
            Outcome::BuiltIn,
            true,
        ),
        b(
            "keeps from before the previous compaction",
            "cat >/dev/null; printf '{\"action\":\"replace\",\"summary\":\"HOOK-SUMMARY\",\"firstKeptEntryId\":\"m3\"}'",
            Outcome::BuiltIn,
            true,
        ),
        b(
            "keeps from a tool result",
            "cat >/dev/null; printf '{\"action\":\"replace\",\"summary\":\"HOOK-SUMMARY\",\"firstKeptEntryId\":\"t30\"}'",
            Outcome::BuiltIn,
            true,
        ),
        // Added after round 11: a flood while another process keeps stderr open, and
        // processes left behind that hold no pipe at all.
        b(
            "floods stdout while a process it left holds stderr",
            "cat >/dev/null; (sleep 30 >/dev/null &); yes '{\"action\":\"continue\"}'",
            Outcome::BuiltIn,
            true,
        ),
        b(
            "leaves a process that ignores SIGTERM and holds no pipe",
            "cat >/dev/null; (trap '' TERM; sleep 30 </dev/null >/dev/null 2>&1 &); printf '%s' 'REPLACE'",
            Outcome::Hook,
            true,
        ),
        b(
            "floods stdout ignoring SIGPIPE, keeping stderr open",
            "cat >/dev/null; trap '' PIPE; while :; do printf '%8192s' x 2>/dev/null || sleep 0.01; done",
            Outcome::BuiltIn,
            true,
        ),
        b(
            "leaves a grandchild behind a shell that exited",
            "cat >/dev/null; sh -c 'sleep 30 </dev/null >/dev/null 2>&1 &'; exit 0",
            Outcome::Quiet,
            true,
        ),
    ]
}

/// A message line of 60 words.
fn message(id: &str, parent: Option<&str>, role: &str, n: usize) -> Value {
    let text =
        format!("{role} {id}: {}", "work on the parser and its tests ".repeat(9) + &n.to_string());
    let mut message = json!({"role": role, "content": [{"type": "text", "text": text}], "timestamp": 1_700_000_000_000_u64 + n as u64});
    if role == "assistant" {
        message["api"] = json!("openai-completions");
        message["provider"] = json!("x");
        message["model"] = json!("m");
        message["usage"] = json!({"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 0, "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}});
        message["stopReason"] = json!("stop");
    }
    json!({"type": "message", "id": id, "parentId": parent, "timestamp": "2026-01-01T00:00:00.000Z", "message": message})
}

/// A session with a side branch (`s0`–`s2` off `m5`), a previous compaction `k1` (keeping
/// from `m10`) and a tool call `a29`/`t30` after it: every id the behaviours name exists
/// where they say.
fn session() -> String {
    let mut lines = vec![
        json!({"type": "session", "version": 3, "id": "hooks", "timestamp": "2026-01-01T00:00:00.000Z", "cwd": "/tmp"}),
    ];
    let mut parent: Option<String> = None;
    for n in 0..16 {
        let id = format!("m{n}");
        lines.push(message(
            &id,
            parent.as_deref(),
            if n % 2 == 0 { "user" } else { "assistant" },
            n,
        ));
        parent = Some(id);
        if n == 5 {
            lines.push(message("s0", Some("m5"), "user", 100));
            lines.push(message("s1", Some("s0"), "assistant", 101));
            lines.push(message("s2", Some("s1"), "user", 102));
        }
    }
    lines.push(json!({"type": "compaction", "id": "k1", "parentId": "m15", "timestamp": "2026-01-01T00:00:00.000Z", "summary": "Earlier: the parser was started.", "firstKeptEntryId": "m10", "tokensBefore": 1500}));
    parent = Some("k1".into());
    for n in 16..400 {
        let id = format!("m{n}");
        let role = if n % 2 == 0 { "user" } else { "assistant" };
        lines.push(message(&id, parent.as_deref(), role, n));
        parent = Some(id.clone());
        if n == 29 {
            // A tool call and its result.
            lines.push(json!({"type": "message", "id": "a29", "parentId": id, "timestamp": "2026-01-01T00:00:00.000Z", "message": {"role": "assistant", "content": [{"type": "toolCall", "id": "call1", "name": "read", "arguments": {"path": "src/lib.rs"}}], "api": "openai-completions", "provider": "x", "model": "m", "usage": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 0, "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}}, "stopReason": "toolUse", "timestamp": 1}}));
            lines.push(json!({"type": "message", "id": "t30", "parentId": "a29", "timestamp": "2026-01-01T00:00:00.000Z", "message": {"role": "toolResult", "toolCallId": "call1", "toolName": "read", "content": [{"type": "text", "text": "fn main() {}"}], "isError": false, "timestamp": 1}}));
            parent = Some("t30".into());
        }
    }
    lines.iter().map(|line| format!("{line}\n")).collect()
}

/// The global settings naming the hook.
fn write_settings(home: &Path, script: &str) {
    let agent = home.join(".pi/agent");
    std::fs::create_dir_all(&agent).unwrap();
    let settings = json!({"compaction": {"extensions": [{
        "name": NAME, "command": "sh", "args": ["-c", script],
        "events": ["before_compact"], "timeoutMs": LIMIT_MS,
    }]}});
    std::fs::write(agent.join("settings.json"), settings.to_string()).unwrap();
}

/// Every file under `dir` (recursively) with its bytes.
fn files(dir: &Path, out: &mut Vec<(String, Vec<u8>)>) {
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        let kind = entry.file_type().unwrap();
        if kind.is_dir() {
            files(&path, out);
        } else if kind.is_file() {
            out.push((path.display().to_string(), std::fs::read(&path).unwrap_or_default()));
        }
    }
}

/// The compaction entry an instance produced: the last line of `file` when it grew,
/// `summarize`'s entry otherwise.
fn written(before: &str, after: &str) -> Option<Value> {
    if after == before {
        return None;
    }
    after.lines().last().and_then(|line| serde_json::from_str(line).ok())
}

fn judge(behaviour: &Behaviour, entry: Option<&Value>, ran: &super::Ran) -> Vec<String> {
    let mut wrong = Vec::new();
    let from_hook = |entry: &Value| entry.get("fromHook").and_then(Value::as_bool) == Some(true);
    let summary =
        |entry: &Value| entry.get("summary").and_then(Value::as_str).unwrap_or("").to_owned();
    match (behaviour.outcome, entry) {
        (Outcome::Unchanged, None) => {}
        (Outcome::Unchanged, Some(_)) => {
            wrong.push("wrote an entry although the hook cancelled".into())
        }
        (_, None) => {
            wrong.push(format!("wrote nothing (exit {}): {}", ran.code, tail(&ran.stderr)))
        }
        (Outcome::Hook, Some(entry)) => {
            if !from_hook(entry) || !summary(entry).starts_with("HOOK-SUMMARY") {
                wrong.push(format!("the hook's summary was not written: {}", tail(&ran.stderr)));
            }
        }
        (Outcome::BuiltIn | Outcome::Quiet, Some(entry)) => {
            if from_hook(entry) {
                wrong.push(format!(
                    "the hook's entry was written ({} bytes of summary)",
                    summary(entry).len()
                ));
            }
        }
    }
    if behaviour.outcome == Outcome::BuiltIn
        && !ran.stderr.contains(NAME)
        && !ran.stdout.contains(NAME)
    {
        wrong.push(format!("no warning names the extension: {}", tail(&ran.stderr)));
    }
    wrong
}

/// The processes (other than zombies) whose working folder is under `dir`, after up to 2 s
/// for killed ones to go; those found are killed, so no instance leaves them to the next.
fn processes_in(dir: &Path) -> Vec<i32> {
    let dir = std::fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf());
    let find = || -> Vec<i32> {
        let Ok(entries) = std::fs::read_dir("/proc") else { return Vec::new() };
        entries
            .flatten()
            .filter_map(|entry| entry.file_name().to_str()?.parse::<i32>().ok())
            .filter(|pid| {
                std::fs::read_link(format!("/proc/{pid}/cwd"))
                    .is_ok_and(|cwd| cwd.starts_with(&dir))
            })
            .collect()
    };
    let deadline = std::time::Instant::now() + Duration::from_secs(2);
    let mut found = find();
    while !found.is_empty() && std::time::Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(100));
        found = find();
    }
    for pid in &found {
        let _ = std::process::Command::new("kill").arg("-9").arg(pid.to_string()).status();
    }
    found
}

fn tail(text: &str) -> String {
    let text = text.trim();
    let start = text.char_indices().rev().nth(300).map_or(0, |(at, _)| at);
    text[start..].replace('\n', " | ")
}

#[test]
fn a_trusted_hook_that_misbehaves_is_bounded_warned_about_and_never_leaks() {
    let redactor = compaction_core::serialize::Redactor::default();
    for secret in secrets() {
        assert!(
            redactor.redact(&format!("x {secret} y")).find(&secret).is_none(),
            "not a known shape: {secret}"
        );
    }
    let text = session();
    let commands: [(&str, &[&str]); 3] = [
        ("run", &["run", "s.jsonl", "--keep-recent", "400"]),
        ("run -o", &["run", "s.jsonl", "--keep-recent", "400", "-o", "out.jsonl"]),
        ("summarize", &["summarize", "s.jsonl", "--keep-recent", "400", "--json"]),
    ];
    let mut tally = Tally::default();
    let mut index = 0_usize;
    let secrets = secrets();
    for behaviour in behaviours() {
        for (label, args) in commands {
            let secret = &secrets[index % secrets.len()];
            let script = behaviour.script.replace("REPLACE", REPLACE).replace("{S}", secret);
            let dir = tempfile::tempdir().unwrap();
            let home = dir.path().join("home");
            let work = dir.path().join("work");
            std::fs::create_dir_all(&work).unwrap();
            write_settings(&home, &script);
            std::fs::write(work.join("s.jsonl"), &text).unwrap();
            let args: Vec<String> = args.iter().map(|arg| (*arg).to_owned()).collect();
            let ran = run_in(&work, &home, &args, Duration::from_millis(LIMIT_MS + 30_000));
            let mut wrong = Vec::new();
            let bound = if behaviour.prompt {
                Duration::from_millis(PROMPT_MS)
            } else {
                Duration::from_millis(LIMIT_MS + 8000)
            };
            if ran.code == -2 {
                wrong.push("hung (killed at the deadline)".to_owned());
            } else if ran.elapsed > bound {
                wrong.push(format!(
                    "took {:.1} s (bound {:.1} s)",
                    ran.elapsed.as_secs_f64(),
                    bound.as_secs_f64()
                ));
            }
            if ran.code != 0 && ran.code != -2 {
                wrong.push(format!("exit {}: {}", ran.code, tail(&ran.stderr)));
            }
            let session_after = std::fs::read_to_string(work.join("s.jsonl")).unwrap_or_default();
            let entry = match label {
                "run" => written(&text, &session_after),
                "run -o" => {
                    if session_after != text {
                        wrong.push("`run -o` changed its input".into());
                    }
                    std::fs::read_to_string(work.join("out.jsonl"))
                        .ok()
                        .and_then(|out| written(&text, &out))
                }
                _ => {
                    if session_after != text {
                        wrong.push("`summarize` changed the session".into());
                    }
                    // The document after the progress events (one JSON line each).
                    let document: String = ran
                        .stdout
                        .lines()
                        .filter(|line| !line.starts_with("{\"event\""))
                        .map(|line| format!("{line}\n"))
                        .collect();
                    serde_json::from_str::<Value>(&document)
                        .ok()
                        .and_then(|value| value.get("entry").cloned())
                }
            };
            if ran.code != -2 {
                wrong.extend(judge(&behaviour, entry.as_ref(), &ran));
            }
            let left = processes_in(dir.path());
            if !left.is_empty() {
                wrong.push(format!("{} process(es) the hook started still run", left.len()));
            }
            let mut all = Vec::new();
            files(dir.path(), &mut all);
            let leaked: Vec<&str> =
                [("stdout", ran.stdout.as_bytes()), ("stderr", ran.stderr.as_bytes())]
                    .into_iter()
                    .chain(
                        all.iter()
                            .filter(|(path, _)| !path.ends_with("settings.json"))
                            .map(|(path, bytes)| (path.as_str(), bytes.as_slice())),
                    )
                    .filter(|(_, bytes)| {
                        bytes.windows(secret.len()).any(|window| window == secret.as_bytes())
                    })
                    .map(|(place, _)| place)
                    .collect();
            if !leaked.is_empty() {
                wrong.push(format!("the secret reached {leaked:?}"));
            }
            let miss = (!wrong.is_empty())
                .then(|| format!("{} / {label}: {}", behaviour.name, wrong.join("; ")));
            tally.count(index, miss);
            index += 1;
        }
    }
    tally.report("a trusted hook that misbehaves");
}
