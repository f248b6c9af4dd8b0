//! The sessions the worker tests run on, and the worker processes.

use std::path::Path;
use std::process::{Child, Command, Stdio};

/// Worker settings: the trigger fires above `WINDOW - RESERVE` tokens.
/// Small sessions, so that compacting 200 of them in a debug build stays within minutes.
pub const WINDOW: &str = "3000";
pub const RESERVE: &str = "1000";
pub const KEEP_RECENT: &str = "300";

/// About 80 tokens of message text.
fn text(tag: &str) -> String {
    format!("{tag} ") + &"the parser keeps every line of the log in order ".repeat(8)
}

/// One message entry line, shaped as pi 1.6 writes it: a reply names its API, provider and
/// model, and carries a usage (all zero, as a local model reports it, so the context is
/// estimated) and a stop reason; pi 1.6 cannot show the stats of a reply without usage.
pub fn message_line(id: &str, parent: Option<&str>, role: &str, tag: &str) -> String {
    let parent = parent.map_or("null".to_owned(), |p| format!("\"{p}\""));
    let message = if role == "user" {
        serde_json::json!({"role": "user", "content": text(tag), "timestamp": 1})
    } else {
        let cost = serde_json::json!({"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0});
        serde_json::json!({
            "role": "assistant",
            "content": [{"type": "text", "text": text(tag)}],
            "api": "openai-completions",
            "provider": "local",
            "model": "m1",
            "usage": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 0, "cost": cost},
            "stopReason": "stop",
            "timestamp": 1
        })
    };
    format!(
        r#"{{"type":"message","id":"{id}","parentId":{parent},"timestamp":"2026-01-01T00:00:00.000Z","message":{message}}}"#
    )
}

/// The id of session `number`.
pub fn session_id(number: usize) -> String {
    format!("session-{number:03}")
}

/// The file name of session `number` in the sessions folder.
pub fn file_name(number: usize) -> String {
    format!("s{number:03}.jsonl")
}

/// A session of 30 messages (about 2,400 tokens), over the trigger (2,000 tokens); one
/// compaction brings it to about 1,000.
pub fn session(number: usize, cwd: &str) -> String {
    let id = session_id(number);
    let mut lines = vec![format!(
        r#"{{"type":"session","version":3,"id":"{id}","timestamp":"2026-01-01T00:00:00.000Z","cwd":"{cwd}"}}"#
    )];
    let mut parent: Option<String> = None;
    for turn in 0..30 {
        let id = format!("s{number}m{turn}");
        let role = if turn % 2 == 0 { "user" } else { "assistant" };
        lines.push(message_line(&id, parent.as_deref(), role, &id));
        parent = Some(id);
    }
    lines.join("\n") + "\n"
}

/// Writes `count` sessions into `dir` (created).
pub fn write_sessions(dir: &Path, count: usize) {
    std::fs::create_dir_all(dir).unwrap();
    for number in 0..count {
        std::fs::write(dir.join(file_name(number)), session(number, "/work")).unwrap();
    }
}

/// The password of the test Postgres cluster, once a test started it: every command gets it
/// in `PGPASSWORD` (never as an argument); commands on other stores ignore it.
pub static PG_PASSWORD: std::sync::OnceLock<&'static str> = std::sync::OnceLock::new();

/// The binary with a HOME of its own, no API keys, and `tmp` as its temporary folder.
pub fn command(home: &Path, tmp: &Path) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_compaction"));
    command
        .current_dir(home)
        .env("HOME", home)
        .env("TMPDIR", tmp)
        .env_remove("OPENAI_API_KEY")
        .env_remove("ANTHROPIC_API_KEY")
        .env_remove("PGPASSFILE");
    match PG_PASSWORD.get() {
        Some(password) => command.env("PGPASSWORD", password),
        None => command.env_remove("PGPASSWORD"),
    };
    command
}

/// A `compaction worker --json` on `store` with the test's settings, stdout piped.
pub fn worker(home: &Path, tmp: &Path, store: &str, extra: &[&str]) -> Child {
    command(home, tmp)
        .args(["worker", "--store", store, "--json", "--estimator", "heuristic"])
        .args(["--context-window", WINDOW, "--reserve", RESERVE, "--keep-recent", KEEP_RECENT])
        .args(extra)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap()
}

/// The scratch files in `tmp`.
pub fn scratch_files(tmp: &Path) -> Vec<String> {
    let mut found: Vec<String> = std::fs::read_dir(tmp)
        .unwrap()
        .flatten()
        .map(|entry| entry.file_name().to_string_lossy().into_owned())
        .filter(|name| name.starts_with("compaction-scratch-"))
        .collect();
    found.sort();
    found
}
