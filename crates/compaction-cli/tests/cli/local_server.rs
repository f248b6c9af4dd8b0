//! The binary against a server on this machine that speaks llama.cpp's `llama-server`
//! (`GET /props` with `n_ctx`, one request at a time, the connection closed after each
//! reply): `plan` sends nothing unless `--ask-server`; a window of 8192 told by `/props`
//! compacts with the default budgets; without a terminal the events that matter are lines on
//! stderr, and with `--json` JSON lines; the requests reported are the requests received.

use std::io::{BufReader, Write as _};
use std::sync::{Arc, Mutex};

use super::{fixture, run, run_with_env};

/// A request as the server read it: method, path, body.
type Seen = (String, String, String);

/// A single-threaded (one slot) server: `/props` says `n_ctx`, chat completions stream a
/// checkpoint, everything else is 404. Every request is recorded.
fn llama_server(n_ctx: u64) -> (String, Arc<Mutex<Vec<Seen>>>) {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/v1", listener.local_addr().unwrap());
    let seen = Arc::new(Mutex::new(Vec::new()));
    let record = Arc::clone(&seen);
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { return };
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let (first, body) = super::read_http_request(&mut reader);
            let mut parts = first.split_whitespace();
            let method = parts.next().unwrap_or("").to_owned();
            let path = parts.next().unwrap_or("").to_owned();
            record.lock().unwrap().push((method, path.clone(), body));
            let reply = match path.as_str() {
                "/props" => json_reply(
                    "200 OK",
                    &serde_json::json!({"default_generation_settings": {"n_ctx": n_ctx}, "total_slots": 1})
                        .to_string(),
                ),
                "/v1/chat/completions" => stream_reply(CHECKPOINT),
                _ => json_reply("404 Not Found", r#"{"detail":"Not Found"}"#),
            };
            let _ = stream.write_all(reply.as_bytes());
            let _ = stream.flush();
        }
    });
    (url, seen)
}

const CHECKPOINT: &str = "## Goal\n- Keep the session's work going: the parser changes and the \
    tests that cover them.\n\n## Progress\n### Done\n- The changes so far compile and their \
    tests pass on the branch.\n\n## Next Steps\n1. Finish the remaining edits, run the whole \
    suite, and ask the user to review the diff before the release.";

fn json_reply(status: &str, body: &str) -> String {
    format!(
        "HTTP/1.1 {status}\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
        body.len()
    )
}

fn stream_reply(text: &str) -> String {
    let mut body = String::new();
    for event in [
        serde_json::json!({"choices":[{"index":0,"delta":{"role":"assistant","content":text},"finish_reason":null}]}),
        serde_json::json!({"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}),
    ] {
        body.push_str(&format!("data: {event}\n\n"));
    }
    body.push_str("data: [DONE]\n\n");
    format!(
        "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
        body.len()
    )
}

fn session() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(fixture("offline-coding.jsonl"), dir.path().join("s.jsonl")).unwrap();
    dir
}

#[test]
fn plan_and_dry_run_send_nothing_unless_asked() {
    let dir = session();
    let (url, seen) = llama_server(8192);
    let provider =
        ["--provider", "openai", "--base-url", &url, "--model", "m", "--keep-recent", "500"];
    let key = [("OPENAI_API_KEY", "sk-local-DISTINCTIVE")];
    for command in [&["plan", "s.jsonl"][..], &["run", "s.jsonl", "--dry-run"][..]] {
        let out = run_with_env(&[command, &provider[..]].concat(), dir.path(), &key);
        assert!(out.starts_with("exit: 0\n"), "{out}");
        assert!(out.contains("nothing was sent"), "{out}");
    }
    assert!(seen.lock().unwrap().is_empty(), "{:?}", seen.lock().unwrap());
    // With --ask-server, exactly what the help says: the window questions and /tokenize.
    let out = run_with_env(
        &[&["plan", "s.jsonl", "--ask-server"][..], &provider[..]].concat(),
        dir.path(),
        &key,
    );
    assert!(out.starts_with("exit: 0\n"), "{out}");
    assert!(out.contains("8192 tokens, from the server (GET /props (n_ctx))"), "{out}");
    let paths: Vec<String> =
        seen.lock().unwrap().iter().map(|(m, p, _)| format!("{m} {p}")).collect();
    assert_eq!(paths.first().map(String::as_str), Some("GET /props"), "{paths:?}");
    assert!(
        paths.iter().all(|p| ["GET /props", "POST /tokenize"].contains(&p.as_str())),
        "{paths:?}"
    );
}

#[test]
fn a_window_of_8192_from_props_compacts_with_default_budgets() {
    let dir = session();
    let before = std::fs::read(dir.path().join("s.jsonl")).unwrap();
    let (url, seen) = llama_server(8192);
    let args = [
        "run",
        "s.jsonl",
        "--provider",
        "openai",
        "--base-url",
        &url,
        "--model",
        "m",
        "--keep-recent",
        "500",
    ];
    let out = run(&args, dir.path());
    assert!(out.starts_with("exit: 0\n"), "{out}");
    let completions: Vec<serde_json::Value> = seen
        .lock()
        .unwrap()
        .iter()
        .filter(|(_, path, _)| path == "/v1/chat/completions")
        .map(|(_, _, body)| serde_json::from_str(body).unwrap())
        .collect();
    assert!(!completions.is_empty());
    // The output limit is a quarter of the window at most.
    for body in &completions {
        assert!(body["max_tokens"].as_u64().unwrap() <= 8192 / 4, "{}", body["max_tokens"]);
    }
    // The calls reported are the requests received.
    let calls = format!("({} summarizer call", completions.len());
    assert!(out.contains(&calls), "{calls}: {out}");
    // Without a terminal, the window the server told is a line on stderr.
    let stderr = out.split("--- stderr\n").nth(1).unwrap();
    assert!(stderr.contains("note: summary window: 8192 tokens, from the server"), "{stderr}");
    assert_ne!(std::fs::read(dir.path().join("s.jsonl")).unwrap(), before);

    // With --json, the same events are JSON lines on stderr; stdout is one document.
    let dir = session();
    let (url, _seen) = llama_server(8192);
    let args = [
        "run",
        "s.jsonl",
        "--provider",
        "openai",
        "--base-url",
        &url,
        "--model",
        "m",
        "--keep-recent",
        "500",
        "--json",
    ];
    let out = run(&args, dir.path());
    assert!(out.starts_with("exit: 0\n"), "{out}");
    let stdout = out.split("--- stdout\n").nth(1).unwrap().split("--- stderr\n").next().unwrap();
    let document: serde_json::Value = serde_json::from_str(stdout).unwrap();
    assert_eq!(document["compacted"], true);
    let stderr = out.split("--- stderr\n").nth(1).unwrap();
    let events: Vec<serde_json::Value> =
        stderr.lines().filter_map(|line| serde_json::from_str(line).ok()).collect();
    assert!(events.iter().any(|e| e["event"] == "summaryWindow"), "{stderr}");
    assert!(events.iter().any(|e| e["event"] == "call"), "{stderr}");
}
