//! Redaction measured on corpora: planted secrets in realistic session text must be caught
//! (≥ 98%), and ordinary code, logs and the example session must be left alone (a bound on
//! false positives; hashes, UUIDs and base64 images never redacted).
//!
//! `cargo test -p compaction-core --test all redaction -- --nocapture` prints the figures.

use compaction_core::AgentMessage;
use compaction_core::serialize::{Redactor, SerializeOptions, serialize_message};
use serde::Deserialize;
use serde_json::json;

/// One planted secret: its kind, the secret, and the session text it sits in.
#[derive(Debug, Deserialize)]
pub struct Planted {
    pub kind: String,
    pub secret: String,
    pub text: String,
}

/// The planted-secret corpora: `tests/fixtures/secrets/planted.json` (written by hand) and
/// `planted-wide.json` (made by `gen_wide.py`: many more kinds, in commands, config files,
/// code, logs, HTTP traces, base64 and split across lines).
pub fn planted() -> Vec<Planted> {
    let mut all = Vec::new();
    for name in ["planted.json", "planted-wide.json"] {
        let path = super::fixtures_dir().join("secrets").join(name);
        let corpus: Vec<Planted> = serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap();
        all.extend(corpus);
    }
    all
}

/// Whether any part of `secret` survived in `text`: the whole secret, or (for long
/// secrets) any 10-character run of it.
pub fn leaks(text: &str, secret: &str) -> bool {
    if text.contains(secret) {
        return true;
    }
    let chars: Vec<char> = secret.chars().collect();
    chars.len() > 10
        && chars.windows(10).any(|window| {
            let run: String = window.iter().collect();
            // Runs of the secret that are ordinary words or markup are not a leak.
            run.chars().any(|c| c.is_ascii_digit() || c.is_ascii_uppercase())
                && !run.contains("PRIVATE KEY")
                && !run.contains("-----")
                && text.contains(&run)
        })
}

fn message(value: serde_json::Value) -> AgentMessage {
    serde_json::from_value(value).unwrap()
}

/// The shapes a text takes in a session: a user message, a tool result (ok and failed), a
/// shell command and a file's content in a tool call's JSON arguments, an edit's new text, a
/// user shell execution, assistant text, an extension's custom message, and a branch summary
/// (thinking is left out of transcripts).
fn shapes(text: &str) -> Vec<AgentMessage> {
    vec![
        message(json!({"role": "assistant", "content": [{"type": "text", "text": text}]})),
        message(json!({"role": "toolResult", "toolCallId": "3", "toolName": "read",
            "content": [{"type": "text", "text": text}], "isError": true})),
        message(json!({"role": "assistant", "content": [{"type": "toolCall", "id": "4",
            "name": "edit", "arguments": {"path": "src/config.ts",
            "edits": [{"oldText": "placeholder", "newText": text}]}}]})),
        message(json!({"role": "custom", "customType": "notes", "content": text,
            "display": true})),
        message(json!({"role": "branchSummary", "summary": text, "fromId": "abc"})),
        message(json!({"role": "user", "content": text})),
        message(json!({"role": "toolResult", "toolCallId": "1", "toolName": "bash",
            "content": [{"type": "text", "text": text}], "isError": false})),
        message(json!({"role": "assistant", "content": [{"type": "toolCall", "id": "1",
            "name": "bash", "arguments": {"command": text, "timeout": 60}}]})),
        message(json!({"role": "assistant", "content": [{"type": "toolCall", "id": "2",
            "name": "write", "arguments": {"path": "config/app.yml", "content": text}}]})),
        message(json!({"role": "bashExecution", "command": "cat config", "output": text,
            "exitCode": 0, "cancelled": false, "truncated": false})),
    ]
}

#[test]
fn planted_secrets_are_redacted_in_every_message_shape() {
    let corpus = planted();
    let kinds: std::collections::BTreeSet<&str> = corpus.iter().map(|p| p.kind.as_str()).collect();
    assert!(
        corpus.len() >= 200 && kinds.len() >= 150,
        "{} secrets, {} kinds",
        corpus.len(),
        kinds.len()
    );
    let options =
        SerializeOptions { tool_result_max_chars: 100_000, redactor: Redactor::default() };
    let mut missed = Vec::new();
    for planted in &corpus {
        let leaked: Vec<usize> = shapes(&planted.text)
            .iter()
            .map(|shape| serialize_message(shape, &options))
            .enumerate()
            .filter(|(_, serialized)| leaks(serialized, &planted.secret))
            .map(|(shape, _)| shape)
            .collect();
        if !leaked.is_empty() {
            missed.push(format!("{} (shapes {leaked:?}): {}", planted.kind, planted.text.trim()));
        }
    }
    let caught = corpus.len() - missed.len();
    let rate = caught as f64 / corpus.len() as f64;
    eprintln!(
        "redaction hit rate: {caught}/{} planted secrets ({:.1}%) across {} kinds, 10 message shapes each",
        corpus.len(),
        rate * 100.0,
        kinds.len()
    );
    for miss in &missed {
        eprintln!("  missed {miss}");
    }
    assert!(rate >= 0.99, "hit rate {rate:.3}; missed:\n{}", missed.join("\n"));
}

/// Ordinary text: the bench corpora (code, JSON, prose in many scripts) and the example
/// coding session, as the summarizer would see it.
fn ordinary_corpora() -> Vec<(String, String)> {
    let root = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let mut corpora = Vec::new();
    let bench = root.join("benches/corpus");
    let mut names: Vec<_> = std::fs::read_dir(&bench)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "txt"))
        .collect();
    names.sort();
    for path in names {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        corpora.push((name, std::fs::read_to_string(&path).unwrap()));
    }
    let example = std::fs::read(root.join("../../examples/coding-session.jsonl")).unwrap();
    let session = compaction_core::parse_session(&example);
    let options =
        SerializeOptions { tool_result_max_chars: 1_000_000, redactor: Redactor::new([]) };
    let transcript: Vec<String> = session
        .entries()
        .iter()
        .filter_map(|entry| entry.message().and_then(Result::ok))
        .map(|message| {
            serialize_message(
                &message,
                &SerializeOptions { redactor: Redactor::new([]), ..options.clone() },
            )
        })
        .collect();
    corpora.push(("examples/coding-session.jsonl".to_owned(), transcript.join("\n\n")));
    corpora
}

#[test]
fn ordinary_code_and_logs_are_left_alone() {
    let redactor = Redactor::default();
    let mut total_lines = 0;
    let mut changed_lines = 0;
    let mut report = Vec::new();
    for (name, text) in ordinary_corpora() {
        let redacted = redactor.redact(&text);
        let lines = text.lines().count();
        let changed: Vec<(&str, &str)> =
            text.lines().zip(redacted.lines()).filter(|(before, after)| before != after).collect();
        total_lines += lines;
        changed_lines += changed.len();
        report.push(format!("{name}: {}/{lines} lines changed", changed.len()));
        for (before, after) in changed {
            report.push(format!("    {before}\n  → {after}"));
        }
    }
    let rate = changed_lines as f64 / total_lines as f64;
    eprintln!(
        "redaction false positives: {changed_lines}/{total_lines} lines of ordinary code, logs and session text changed ({:.2}%)",
        rate * 100.0
    );
    for line in &report {
        eprintln!("  {line}");
    }
    assert!(changed_lines <= 2, "false positives:\n{}", report.join("\n"));
}

#[test]
fn hashes_ids_and_encoded_data_are_never_redacted() {
    let image = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";
    let samples = [
        "commit 9fceb02d0ae598e95dc970b74767f19372d61af8\nAuthor: Ada <ada@example.com>",
        "HEAD is now at 3f78685 fix: parse CRLF (#412)",
        "request_id=550e8400-e29b-41d4-a716-446655440000 status=200 took=12ms",
        "\"id\": \"a0b1c2d3\", \"parentId\": \"00000001\", \"toolCallId\": \"toolu_01A09q90qw90lq917835lq9\"",
        "checksum = \"b3c4ad3a6b1f2e4b5f0d1d9c1fa7c7f5d4a8f0e7c3b2a1908f7e6d5c4b3a2918\"",
        "\"integrity\": \"sha512-v2kDEe57lecTulaDIuNTPy3Ry4gLGJ6Z1O3vE1krgXZNrsQ+LFTGHVxVjcXGOVyH1pH5xJvTiDO1Br2SNB8oOw==\"",
        "image: ghcr.io/acme/api@sha256:4d5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b1c2d3e4f5a6b7c8d9e0f1a2b3c4d5e",
        &format!("{{\"type\":\"image\",\"data\":\"{image}\",\"mimeType\":\"image/png\"}}"),
        "token count: 12345, keepRecentTokens: 20000, maxTokens = 4096",
        "error[E0308]: mismatched types\n  --> src/cut.rs:42:17",
        "let secret = std::env::var(\"APP_SECRET\")?;",
        "if (!password) throw new Error('password required');",
        "def check_password(password: str) -> bool:",
        "[tool] read src/auth/token.rs (120 lines)",
        "SSH_AUTH_SOCK=/tmp/ssh-XXXXabcd/agent.1234",
        "Set-Cookie: theme=dark; Path=/",
        "version = \"1.0.197\"\nsource = \"registry+https://github.com/rust-lang/crates.io-index\"",
        // Secret-looking words with no secret.
        "password: ${DB_PASSWORD}\nAuthorization: Bearer ${TOKEN}",
        "echo \"$CR_PAT\" | docker login ghcr.io -u ci --password-stdin",
        "mkdir -p src/auth && ssh -p 2222 deploy@host && git push -u origin main",
        "{\"token_type\": \"bearer\", \"tokenizer\": \"o200k_base\", \"expires_in\": 3600}",
        "pub fn redact(&self, token: &str) -> Cow<'_, str>",
        "export PATH=/usr/local/bin:$PATH\nopen http://localhost:8080/api/v1/health",
        "Please rotate the API key: it leaked in yesterday's logs.",
    ];
    let redactor = Redactor::default();
    for sample in samples {
        assert_eq!(redactor.redact(sample), sample);
    }
}

/// False positives on a large corpus of ordinary text on this machine: every text file
/// under the directories in `COMPACTION_REDACTION_CORPUS` (`:`-separated; for example the
/// crates.io sources in `~/.cargo/registry/src`, Python's standard library and
/// `/var/log`). Prints the rate and writes every changed line to
/// `COMPACTION_REDACTION_REPORT` (default `target/redaction-false-positives.txt`), so that
/// each can be judged: a real secret in a test fixture is not a false positive.
///
/// `COMPACTION_REDACTION_CORPUS=~/.cargo/registry/src:/usr/lib/python3.11 cargo test
/// --release -p compaction-core --test all redaction::large -- --ignored --nocapture`
#[test]
#[ignore = "reads a large corpus from this machine; run by hand"]
fn large_corpus_false_positives() {
    let roots = std::env::var("COMPACTION_REDACTION_CORPUS").unwrap_or_default();
    let report_path = std::env::var("COMPACTION_REDACTION_REPORT")
        .unwrap_or_else(|_| "target/redaction-false-positives.txt".to_owned());
    let max_lines: usize = std::env::var("COMPACTION_REDACTION_MAX_LINES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(2_000_000);
    let redactor = Redactor::default();
    let mut stack: Vec<std::path::PathBuf> =
        roots.split(':').filter(|r| !r.is_empty()).map(std::path::PathBuf::from).collect();
    let mut files = 0;
    let mut total = 0usize;
    let mut changed = Vec::new();
    while let Some(path) = stack.pop() {
        if total >= max_lines {
            break;
        }
        let Ok(meta) = std::fs::symlink_metadata(&path) else { continue };
        if meta.is_dir() {
            let Ok(entries) = std::fs::read_dir(&path) else { continue };
            let mut children: Vec<_> = entries.filter_map(Result::ok).map(|e| e.path()).collect();
            children.sort();
            children.reverse();
            stack.extend(children);
            continue;
        }
        if !meta.is_file() || meta.len() > 2_000_000 {
            continue;
        }
        let Ok(text) = std::fs::read_to_string(&path) else { continue };
        files += 1;
        for line in text.lines() {
            if line.len() > 4000 {
                continue;
            }
            total += 1;
            if redactor.redact(line) != line {
                changed.push(format!("{}: {line}", path.display()));
            }
        }
    }
    let rate = changed.len() as f64 / total.max(1) as f64;
    eprintln!(
        "large corpus: {}/{total} lines changed ({:.3}%) in {files} files",
        changed.len(),
        rate * 100.0
    );
    std::fs::write(&report_path, changed.join("\n")).unwrap();
    eprintln!("changed lines: {report_path}");
}
