//! No planted secret reaches a provider: a session carrying the planted-secret corpus in
//! every place a compaction sends (user and assistant messages, tool-call arguments, tool
//! results, shell executions, a branch summary, the previous compaction's summary, the
//! user's instructions) is compacted through both providers' wire formats, and every
//! request body is searched for each secret. The same session compacted by the offline
//! summarizer (which quotes requests and commands), with `--restore-files` reading files
//! that hold the secrets, and summarized as an abandoned branch: no secret is in what is
//! written to the session.
//!
//! `cargo test -p compaction --test all redaction -- --nocapture` prints the figures.

use std::time::Duration;

use compaction::compact::{CompactRequest, Compactor};
use compaction::extension::Extensions;
use compaction::provider::ProviderKind;
use compaction::store::{NewEntry, OpenOptions, SessionStore};
use compaction_core::serialize::Redactor;
use compaction_core::settings::CompactionSettings;
use compaction_core::tokens::estimator_by_name;
use serde::Deserialize;
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

use super::compact::{KEY, provider, streamed};
use super::mock_server::MockServer;

#[derive(Debug, Deserialize)]
struct Planted {
    kind: String,
    secret: String,
    text: String,
}

/// Both planted-secret corpora of the core's tests (hand-written and `gen_wide.py`'s).
fn planted() -> Vec<Planted> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../compaction-core/tests/fixtures/secrets");
    let mut all = Vec::new();
    for name in ["planted.json", "planted-wide.json"] {
        let corpus: Vec<Planted> =
            serde_json::from_slice(&std::fs::read(dir.join(name)).unwrap()).unwrap();
        all.extend(corpus);
    }
    all
}

/// Fails unless at least 99% of the planted secrets stayed out of `text`; prints the figure.
fn assert_rate(what: &str, corpus: &[Planted], leaked: &[String]) {
    let caught = corpus.len() - leaked.len();
    let rate = caught as f64 / corpus.len() as f64;
    eprintln!("{what}: {caught}/{} planted secrets redacted ({:.1}%)", corpus.len(), rate * 100.0);
    for leak in leaked {
        eprintln!("  leaked {leak}");
    }
    assert!(rate >= 0.99, "{what}: {rate:.3}; leaked:\n{}", leaked.join("\n"));
}

/// Whether the secret, or any 10-character run of it with a digit or capital, is in `text`.
fn leaks(text: &str, secret: &str) -> bool {
    let chars: Vec<char> = secret.chars().collect();
    text.contains(secret)
        || (chars.len() > 10
            && chars.windows(10).any(|window| {
                let run: String = window.iter().collect();
                run.chars().any(|c| c.is_ascii_digit() || c.is_ascii_uppercase())
                    && !run.contains("PRIVATE KEY")
                    && !run.contains("-----")
                    && text.contains(&run)
            }))
}

/// Every string in a JSON body, joined: what the model reads, unescaped.
fn strings(value: &Value, out: &mut String) {
    match value {
        Value::String(text) => {
            out.push_str(text);
            out.push('\n');
        }
        Value::Array(items) => items.iter().for_each(|item| strings(item, out)),
        Value::Object(fields) => fields.values().for_each(|item| strings(item, out)),
        Value::Null | Value::Bool(_) | Value::Number(_) => {}
    }
}

fn marker(index: usize) -> String {
    format!("planted-item-{index:03}")
}

fn entry(store: &mut SessionStore, entry_type: &str, fields: Value) -> String {
    let Value::Object(fields) = fields else { panic!("fields must be an object") };
    store.append(NewEntry::new(entry_type, fields)).unwrap().id
}

fn message(store: &mut SessionStore, message: Value) -> String {
    entry(store, "message", json!({ "message": message }))
}

/// A session whose summarized part holds every planted text once, in rotating shapes, after
/// a compaction whose summary and a branch summary quote secrets too.
fn planted_session(path: &std::path::Path, corpus: &[Planted]) -> (String, Vec<String>) {
    let (mut store, _) = SessionStore::create(path, "/work", OpenOptions::for_writing()).unwrap();
    let first = message(&mut store, json!({"role": "user", "content": "Set up the deploy."}));
    message(
        &mut store,
        json!({"role": "assistant", "content": [{"type": "text", "text": "On it."}]}),
    );
    // Secrets the summaries carry: an earlier summary quoting a token and a password.
    let carried = vec![
        format!("ghp_{}", "Q7r2Xk9LmP4sT8vW1yZ3bN6cD0fG5hJ2kL8m"),
        "Zr8-carried-Pw-77".to_owned(),
        format!("xoxb-{}", "1234567890-0987654321-AbCdEfGhIjKlMnOpQrStUvWx"),
    ];
    entry(
        &mut store,
        "compaction",
        json!({
            "summary": format!("## Goal\nDeploy.\n\n## Critical Context\n- The CI token is {} and DB_PASSWORD={}", carried[0], carried[1]),
            "firstKeptEntryId": first,
            "tokensBefore": 1000,
        }),
    );
    entry(
        &mut store,
        "branch_summary",
        json!({"fromId": first, "summary": format!("Tried the Slack bot with SLACK_BOT_TOKEN={}", carried[2])}),
    );
    for (index, planted) in corpus.iter().enumerate() {
        let text = format!("{}\n{}", marker(index), planted.text);
        let call = format!("call-{index}");
        match index % 5 {
            0 => {
                message(&mut store, json!({"role": "user", "content": text}));
            }
            1 => {
                message(
                    &mut store,
                    json!({"role": "assistant", "content": [
                    {"type": "toolCall", "id": call, "name": "bash", "arguments": {"command": text}}]}),
                );
                message(
                    &mut store,
                    json!({"role": "toolResult", "toolCallId": call, "toolName": "bash",
                    "content": [{"type": "text", "text": "done"}], "isError": false}),
                );
            }
            2 => {
                message(
                    &mut store,
                    json!({"role": "assistant", "content": [
                    {"type": "toolCall", "id": call, "name": "read", "arguments": {"path": "config/.env"}}]}),
                );
                message(
                    &mut store,
                    json!({"role": "toolResult", "toolCallId": call, "toolName": "read",
                    "content": [{"type": "text", "text": text}], "isError": false}),
                );
            }
            3 => {
                message(
                    &mut store,
                    json!({"role": "bashExecution", "command": "cat settings",
                    "output": text, "exitCode": 0, "cancelled": false, "truncated": false}),
                );
            }
            _ => {
                message(
                    &mut store,
                    json!({"role": "assistant", "content": [
                    {"type": "toolCall", "id": call, "name": "write",
                     "arguments": {"path": "deploy/config.yml", "content": text}}]}),
                );
                message(
                    &mut store,
                    json!({"role": "toolResult", "toolCallId": call, "toolName": "write",
                    "content": [{"type": "text", "text": "written"}], "isError": false}),
                );
            }
        }
        message(
            &mut store,
            json!({"role": "assistant", "content": [{"type": "text", "text": "Noted."}]}),
        );
    }
    // The recent turn that stays in the context.
    message(&mut store, json!({"role": "user", "content": "Now write the release notes."}));
    message(
        &mut store,
        json!({"role": "assistant", "content": [{"type": "text", "text": "x ".repeat(600)}]}),
    );
    (first, carried)
}

async fn no_planted_secret_reaches_the_provider(kind: ProviderKind) {
    let corpus = planted();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("session.jsonl");
    let (_, carried) = planted_session(&path, &corpus);
    let server = MockServer::start().await;
    server.always(streamed(kind, &super::compact::checkpoint_in_words("Deploy the service")));
    let summarizer = provider(kind, &server);
    let settings = CompactionSettings {
        keep_recent_tokens: 200,
        min_turns_to_keep: 0,
        estimator: "pi".to_owned(),
        ..CompactionSettings::default()
    };
    let estimator = estimator_by_name("pi").unwrap();
    let compactor = Compactor {
        summarizer: &summarizer,
        settings: &settings,
        context_window: 400_000,
        estimator: estimator.as_ref(),
        redactor: Redactor::new([KEY.to_owned()]),
        extensions: &Extensions::new(),
    };
    let instructions_secret = "sk_live_51InstrucTionsSecretKey00aa";
    let request = CompactRequest {
        instructions: Some(format!(
            "Keep the deploy steps; the Stripe key {instructions_secret} must not be repeated"
        )),
        ..CompactRequest::default()
    };
    let mut options = OpenOptions::for_writing();
    options.lock_wait = compaction::store::LockWait::For(Duration::from_secs(10));
    let mut store = SessionStore::open(&path, options).unwrap().0;
    compactor.run(&mut store, &request, &CancellationToken::new(), &|_| {}).await.unwrap();

    let mut sent = String::new();
    for request in server.requests() {
        strings(&request.body, &mut sent);
    }
    assert!(!sent.is_empty());
    // Everything planted was sent (its marker is there), and no secret with it.
    let mut leaked = Vec::new();
    for (index, planted) in corpus.iter().enumerate() {
        assert!(sent.contains(&marker(index)), "{} was not sent at all", marker(index));
        if leaks(&sent, &planted.secret) {
            leaked.push(format!("{}: {}", planted.kind, planted.secret));
        }
    }
    for secret in carried.iter().map(String::as_str).chain([instructions_secret, KEY]) {
        if leaks(&sent, secret) {
            leaked.push(format!("carried: {secret}"));
        }
    }
    assert!(sent.contains("Keep the deploy steps"), "instructions were sent");
    assert!(sent.contains("<previous-summary>"), "the previous summary was sent");
    assert!(sent.contains("Tried the Slack bot"), "the branch summary was sent");
    let carried_leaks: Vec<&String> =
        leaked.iter().filter(|leak| leak.starts_with("carried:")).collect();
    assert!(carried_leaks.is_empty(), "carried secrets sent: {carried_leaks:?}");
    assert_rate(&format!("{kind:?} request bodies"), &corpus, &leaked);
}

/// The lines a command appended to the session, joined (the file began with `original`).
fn appended(path: &std::path::Path, original: &[u8]) -> String {
    let now = std::fs::read(path).unwrap();
    assert!(now.starts_with(original), "the session was rewritten, not appended to");
    let mut text = String::new();
    for line in String::from_utf8_lossy(&now[original.len()..]).lines() {
        strings(&serde_json::from_str::<Value>(line).unwrap(), &mut text);
    }
    text
}

#[tokio::test]
async fn no_planted_secret_is_written_to_the_session() {
    let corpus = planted();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("session.jsonl");
    let (_, carried) = planted_session(&path, &corpus);
    let summarizer = compaction::offline::OfflineSummarizer;
    let settings = CompactionSettings {
        keep_recent_tokens: 200,
        min_turns_to_keep: 0,
        estimator: "pi".to_owned(),
        ..CompactionSettings::default()
    };
    let estimator = estimator_by_name("pi").unwrap();
    let compactor = Compactor {
        summarizer: &summarizer,
        settings: &settings,
        context_window: 400_000,
        estimator: estimator.as_ref(),
        redactor: Redactor::default(),
        extensions: &Extensions::new(),
    };
    let original = std::fs::read(&path).unwrap();
    let mut store = SessionStore::open(&path, OpenOptions::for_writing()).unwrap().0;
    let outcome = compactor
        .run(&mut store, &CompactRequest::default(), &CancellationToken::new(), &|_| {})
        .await
        .unwrap();
    assert!(outcome.entry.kind.as_compaction().is_some());
    drop(store);
    let written = appended(&path, &original);
    assert!(written.contains("Earlier request") || written.contains("planted-item"), "{written}");
    let mut leaked = Vec::new();
    for planted in &corpus {
        if leaks(&written, &planted.secret) {
            leaked.push(format!("{}: {}", planted.kind, planted.secret));
        }
    }
    for secret in &carried {
        if leaks(&written, secret) {
            leaked.push(format!("carried: {secret}"));
        }
    }
    assert_rate("offline compaction written to the session", &corpus, &leaked);
}

#[test]
fn files_restored_into_the_session_are_redacted() {
    let corpus = planted();
    let dir = tempfile::tempdir().unwrap();
    let cwd = dir.path().join("project");
    std::fs::create_dir_all(&cwd).unwrap();
    let path = dir.path().join("session.jsonl");
    let options =
        OpenOptions { fsync: compaction::store::FsyncPolicy::Never, ..OpenOptions::for_writing() };
    let (mut store, _) = SessionStore::create(&path, &cwd.to_string_lossy(), options).unwrap();
    let first = message(&mut store, json!({"role": "user", "content": "write the configs"}));
    let mut files = Vec::new();
    for (index, planted) in corpus.iter().enumerate() {
        let name = format!("config-{index:03}.txt");
        std::fs::write(cwd.join(&name), format!("{}\n{}", marker(index), planted.text)).unwrap();
        message(
            &mut store,
            json!({"role": "assistant", "content": [{"type": "toolCall", "id": format!("w{index}"),
                "name": "write", "arguments": {"path": name, "content": "…"}}]}),
        );
        files.push(name);
    }
    let compaction = entry(
        &mut store,
        "compaction",
        json!({"summary": "S", "firstKeptEntryId": first, "tokensBefore": 100,
            "details": {"readFiles": [], "modifiedFiles": files}}),
    );
    let original = std::fs::read(&path).unwrap();
    let limits = compaction::restore::RestoreLimits {
        files: corpus.len(),
        per_file_tokens: 100_000,
        total_tokens: 10_000_000,
    };
    let estimator = estimator_by_name("pi").unwrap();
    let outcome = compaction::restore::restore_files(
        &mut store,
        &compaction,
        limits,
        None,
        estimator.as_ref(),
        &Redactor::default(),
    )
    .unwrap();
    assert_eq!(outcome.restored.len(), corpus.len(), "skipped: {:?}", outcome.skipped);
    drop(store);
    let written = appended(&path, &original);
    let mut leaked = Vec::new();
    for (index, planted) in corpus.iter().enumerate() {
        assert!(written.contains(&marker(index)), "{} was not restored", marker(index));
        if leaks(&written, &planted.secret) {
            leaked.push(format!("{}: {}", planted.kind, planted.secret));
        }
    }
    assert_rate("files restored into the session", &corpus, &leaked);
}

mod no_planted_secret_reaches_the_provider {
    #[tokio::test]
    async fn openai() {
        super::no_planted_secret_reaches_the_provider(compaction::provider::ProviderKind::OpenAi)
            .await;
    }
    #[tokio::test]
    async fn anthropic() {
        super::no_planted_secret_reaches_the_provider(
            compaction::provider::ProviderKind::Anthropic,
        )
        .await;
    }
}
