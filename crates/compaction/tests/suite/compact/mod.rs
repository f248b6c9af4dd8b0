//! The orchestration path end to end: plan → summarize (offline or through a mock provider
//! speaking the real wire format) → append, and every failure leaving the file unchanged.

use std::path::{Path, PathBuf};
use std::time::Duration;

use compaction::compact::{CompactError, CompactRequest, Compactor};
use compaction::extension::Extensions;
use compaction::offline::OfflineSummarizer;
use compaction::provider::{ApiKey, LlmSummarizer, ProviderClient, ProviderConfig, ProviderKind};
use compaction::store::{NewEntry, OpenOptions, SessionStore};
use compaction::summarizer::Summarizer;
use compaction_core::context::build_context;
use compaction_core::serialize::Redactor;
use compaction_core::settings::CompactionSettings;
use compaction_core::tokens::{TokenEstimator, context_tokens, estimator_by_name};
use compaction_core::trigger::should_compact;
use compaction_core::{AgentMessage, EntryKind};
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

use super::mock_server::{MockServer, Reply, StreamEnd};

pub(super) const KEY: &str = "sk-compact-test-UNIQUE-31f9e2";
pub(super) const MODEL: &str = "summary-model-7";
pub(super) const WINDOW: u64 = 20_000;

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../compaction-core/tests/fixtures/offline-coding.jsonl")
}

/// A copy of the realistic fixture in a fresh directory.
pub(super) fn session_copy() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("session.jsonl");
    std::fs::copy(fixture(), &path).unwrap();
    (dir, path)
}

pub(super) fn settings() -> CompactionSettings {
    CompactionSettings {
        keep_recent_tokens: 500,
        min_turns_to_keep: 0,
        estimator: "pi".to_owned(),
        ..CompactionSettings::default()
    }
}

pub(super) fn estimator() -> Box<dyn TokenEstimator> {
    estimator_by_name("pi").unwrap()
}

/// Opens for writing, waiting briefly for the lock: a process extension spawned by an
/// earlier run may still hold a copy of the lock's descriptor between fork and exec.
pub(super) fn open(path: &Path) -> SessionStore {
    let mut options = OpenOptions::for_writing();
    options.lock_wait = compaction::store::LockWait::For(Duration::from_secs(10));
    SessionStore::open(path, options).unwrap().0
}

pub(super) fn provider(kind: ProviderKind, server: &MockServer) -> LlmSummarizer {
    let mut config = ProviderConfig::new(kind, MODEL);
    config.base_url = Some(match kind {
        ProviderKind::OpenAi => format!("{}/v1", server.url()),
        ProviderKind::Anthropic => server.url().to_owned(),
    });
    config.max_retries = 2;
    config.retry_base_delay = Duration::from_millis(1);
    config.max_retry_delay = Duration::from_millis(20);
    config.idle_timeout = Duration::from_millis(500);
    LlmSummarizer::new(ProviderClient::new(config, ApiKey::new(KEY)).unwrap())
}

fn sse(event: Option<&str>, data: &Value) -> String {
    match event {
        Some(name) => format!("event: {name}\ndata: {data}\n\n"),
        None => format!("data: {data}\n\n"),
    }
}

/// A complete streamed reply writing `text` in two deltas.
pub(super) fn streamed(kind: ProviderKind, text: &str) -> Reply {
    Reply::stream(stream_chunks(kind, text))
}

/// A stream cut after its first text delta.
fn cut_stream(kind: ProviderKind, text: &str) -> Reply {
    let chunks = stream_chunks(kind, text);
    let keep = match kind {
        ProviderKind::OpenAi => 1,
        ProviderKind::Anthropic => 3,
    };
    Reply::stream(chunks[..keep].to_vec()).ending(StreamEnd::Abort)
}

pub(super) fn stream_chunks(kind: ProviderKind, text: &str) -> Vec<String> {
    stream_chunks_stopping(kind, text, false)
}

/// A streamed reply writing `text`, ended at the output limit when `at_output_limit`.
pub(super) fn stream_chunks_stopping(
    kind: ProviderKind,
    text: &str,
    at_output_limit: bool,
) -> Vec<String> {
    let (finish_reason, stop_reason) =
        if at_output_limit { ("length", "max_tokens") } else { ("stop", "end_turn") };
    // A reply stopped at the output limit used all of it (the usage says so: no window is
    // revealed by a reply that stopped where it was asked to).
    let output = if at_output_limit { 1_000_000 } else { 60 };
    let (first, second) = text.split_at(text.len() / 2);
    match kind {
        ProviderKind::OpenAi => vec![
            sse(
                None,
                &json!({"choices":[{"index":0,"delta":{"role":"assistant","content":first},"finish_reason":null}]}),
            ),
            sse(
                None,
                &json!({"choices":[{"index":0,"delta":{"content":second},"finish_reason":""}]}),
            ),
            sse(None, &json!({"choices":[{"index":0,"delta":{},"finish_reason":finish_reason}]})),
            sse(
                None,
                &json!({"choices":[],"usage":{"prompt_tokens":900,"completion_tokens":output,"total_tokens":900 + output}}),
            ),
            "data: [DONE]\n\n".to_owned(),
        ],
        ProviderKind::Anthropic => vec![
            sse(
                Some("message_start"),
                &json!({"type":"message_start","message":{"id":"m","type":"message","role":"assistant","model":MODEL,"content":[],"usage":{"input_tokens":900,"output_tokens":1}}}),
            ),
            sse(
                Some("content_block_start"),
                &json!({"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}),
            ),
            sse(
                Some("content_block_delta"),
                &json!({"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":first}}),
            ),
            sse(
                Some("content_block_delta"),
                &json!({"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":second}}),
            ),
            sse(Some("content_block_stop"), &json!({"type":"content_block_stop","index":0})),
            sse(
                Some("message_delta"),
                &json!({"type":"message_delta","delta":{"stop_reason":stop_reason},"usage":{"output_tokens":60}}),
            ),
            sse(Some("message_stop"), &json!({"type":"message_stop"})),
        ],
    }
}

/// A checkpoint that names every must-keep fact of the session at `path` (so the quality
/// gate passes it), after `note`.
/// A checkpoint with the structure and enough words to pass the quality gate's length floor,
/// but none of a session's must-keep facts (the gate appends those).
pub(super) fn checkpoint_in_words(note: &str) -> String {
    format!(
        "## Goal\n- {note}: keep the parser working while comments are added to the lexer.\n\n\
         ## Progress\n### Done\n- The lexer reads comments and the tests cover them.\n\n\
         ## Next Steps\n1. Document the lexer, update the changelog and run the whole test suite \
         again before the release."
    )
}

pub(super) fn summary_with_every_fact(path: &Path, note: &str) -> String {
    let settings = settings();
    let estimator = estimator();
    let compactor = Compactor {
        summarizer: &OfflineSummarizer,
        settings: &settings,
        context_window: WINDOW,
        estimator: estimator.as_ref(),
        redactor: Redactor::default(),
        extensions: &Extensions::new(),
    };
    let session = compaction::store::SessionStore::open(path, OpenOptions::for_reading())
        .unwrap()
        .0
        .into_session();
    let planned = compactor.plan(&session, session.leaf(), None).compaction.unwrap();
    let facts = planned.preparation.must_keep(&compaction_core::serialize::Redactor::default());
    let mut text = format!("## Goal\n- {note}\n");
    if let Some(request) = &facts.latest_request {
        let opening = compaction_core::quality::opening(request);
        text.push_str(&format!("- Latest request: \"{opening}\"\n"));
    }
    text.push_str("\n## Constraints & Preferences\n");
    for constraint in &facts.constraints {
        let opening = compaction_core::quality::opening(constraint);
        text.push_str(&format!("- \"{opening}\"\n"));
    }
    text.push_str("\n## Progress\n### Done\n");
    for path in &facts.modified_files {
        text.push_str(&format!("- Edited `{path}`\n"));
    }
    if let Some(error) = &facts.unresolved_error {
        text.push_str(&format!("### Blocked\n- `{}`: {}\n", error.command, error.error_line));
    }
    text
}

pub(super) async fn compact(
    path: &Path,
    summarizer: &dyn Summarizer,
    cancel: &CancellationToken,
) -> Result<compaction::compact::CompactOutcome, CompactError> {
    compact_with(path, summarizer, &settings(), cancel).await
}

/// [`compact`] with `settings`.
async fn compact_with(
    path: &Path,
    summarizer: &dyn Summarizer,
    settings: &CompactionSettings,
    cancel: &CancellationToken,
) -> Result<compaction::compact::CompactOutcome, CompactError> {
    let estimator = estimator();
    let compactor = Compactor {
        summarizer,
        settings,
        context_window: WINDOW,
        estimator: estimator.as_ref(),
        redactor: Redactor::new([KEY.to_owned()]),
        extensions: &Extensions::new(),
    };
    let mut store = open(path);
    compactor.run(&mut store, &CompactRequest::default(), cancel, &|_| {}).await
}

#[tokio::test]
async fn offline_run_appends_a_compaction_the_context_starts_with() {
    let (_dir, path) = session_copy();
    let before = std::fs::read(&path).unwrap();
    let outcome = compact(&path, &OfflineSummarizer, &CancellationToken::new()).await.unwrap();
    let after = std::fs::read(&path).unwrap();
    // Append only: the old bytes are a prefix of the new file, plus exactly one line.
    assert!(after.starts_with(&before));
    assert_eq!(after[before.len()..].iter().filter(|&&b| b == b'\n').count(), 1);

    let session = open(&path).into_session();
    let leaf = session.leaf().unwrap();
    let EntryKind::Compaction(data) = &session.entries()[leaf].kind else {
        panic!("not a compaction")
    };
    assert_eq!(data.first_kept_entry_id, "5e550016");
    assert!(data.summary.contains("src/parser.rs"), "{}", data.summary);
    assert!(data.summary.ends_with("</modified-files>"), "{}", data.summary);
    assert_eq!(
        data.details.as_ref().unwrap()["modifiedFiles"],
        json!(["src/lib.rs", "src/parser.rs"])
    );
    assert_eq!(outcome.entry.id, session.entries()[leaf].id);

    let context = build_context(&session, Some(leaf));
    let messages = context.agent_messages(&session);
    assert!(matches!(messages[0], AgentMessage::CompactionSummary(_)));
    assert_eq!(session.entries()[context.items[1].entry].id, "5e550016");
    let estimator = estimator();
    let tokens = context_tokens(&session, &context, estimator.as_ref());
    assert!(tokens.tokens < outcome.tokens_before);
    let decision = should_compact(tokens.tokens, messages.len() as u64, WINDOW, &settings());
    assert!(!decision.fire, "still over the trigger: {tokens:?}");
}

async fn provider_run_stores_the_streamed_summary(kind: ProviderKind) {
    let server = MockServer::start().await;
    let (_dir, path) = session_copy();
    server.always(streamed(kind, &summary_with_every_fact(&path, "Fix nested list parsing")));
    let summarizer = provider(kind, &server);
    let outcome = compact(&path, &summarizer, &CancellationToken::new()).await.unwrap();

    let session = open(&path).into_session();
    let EntryKind::Compaction(data) = &session.entries()[session.leaf().unwrap()].kind else {
        panic!("not a compaction")
    };
    assert!(data.summary.contains("- Fix nested list parsing"), "{}", data.summary);
    let usage = session.entries().last().unwrap().to_value().unwrap()["usage"].clone();
    assert_eq!(usage["output"], json!(120), "two calls of 60 output tokens: {usage}");
    assert_eq!(outcome.summarizer_calls, 2);
    assert_eq!(outcome.quality.as_ref().map(|q| q.status.as_str()), Some("passed"));
    assert_eq!(data.details.as_ref().unwrap()["quality"]["status"], "passed");

    let requests = server.requests();
    assert_eq!(requests.len(), 2, "history and split-turn prefix");
    for request in &requests {
        let body = &request.body;
        assert_eq!(body["model"], json!(MODEL));
        assert_eq!(body["stream"], json!(true));
        let (system, user, max_tokens) = match kind {
            ProviderKind::OpenAi => (
                body["messages"][0]["content"].as_str().unwrap().to_owned(),
                body["messages"][1]["content"].as_str().unwrap().to_owned(),
                body["max_tokens"].as_u64().or(body["max_completion_tokens"].as_u64()),
            ),
            ProviderKind::Anthropic => (
                body["system"].as_str().unwrap().to_owned(),
                body["messages"][0]["content"].as_str().unwrap().to_owned(),
                body["max_tokens"].as_u64(),
            ),
        };
        assert_eq!(system, compaction_core::prompts::SYSTEM_PROMPT);
        assert_eq!(max_tokens, Some(settings().summary_output_tokens()));
        assert!(user.starts_with("<conversation>\n<user>"), "{user}");
        assert!(!user.contains(KEY));
    }
    let bodies: Vec<String> = requests.iter().map(|r| r.body.to_string()).collect();
    assert!(bodies.iter().any(|b| b.contains("parses_nested_lists")), "history transcript sent");
}

async fn failures_leave_the_file_byte_identical(kind: ProviderKind) {
    let failures = [
        Reply::status(500, "{\"error\":{\"message\":\"overloaded\"}}"),
        cut_stream(kind, "partial summary text"),
        Reply::stream(vec!["data: {not json\n\n".to_owned()]),
        Reply::status(401, format!("{{\"error\":{{\"message\":\"bad key {KEY}\"}}}}")),
    ];
    for failure in failures {
        let server = MockServer::start().await;
        server.always(failure);
        let summarizer = provider(kind, &server);
        let (_dir, path) = session_copy();
        let before = std::fs::read(&path).unwrap();
        let error = compact(&path, &summarizer, &CancellationToken::new()).await.unwrap_err();
        assert_eq!(std::fs::read(&path).unwrap(), before, "file changed after: {error}");
        assert!(!format!("{error} {error:?}").contains(KEY), "key leaked: {error}");
    }
    // Cancelled before the summary arrives.
    let server = MockServer::start().await;
    server.always(streamed(kind, "never used"));
    let summarizer = provider(kind, &server);
    let (_dir, path) = session_copy();
    let before = std::fs::read(&path).unwrap();
    let cancel = CancellationToken::new();
    cancel.cancel();
    assert!(compact(&path, &summarizer, &cancel).await.is_err());
    assert_eq!(std::fs::read(&path).unwrap(), before);
}

async fn second_compaction_updates_the_first(kind: ProviderKind) {
    let server = MockServer::start().await;
    let (_dir, path) = session_copy();
    // The history and the split turn's prefix may be asked for in either order (a local
    // server gets the prefix first): each gets its own answer by what it asks.
    let history = streamed(kind, &summary_with_every_fact(&path, "FIRST-SUMMARY history"));
    let prefix = streamed(kind, &summary_with_every_fact(&path, "FIRST-SUMMARY prefix"));
    let served = std::sync::atomic::AtomicUsize::new(0);
    let prefix_task = compaction_core::prompts::TURN_PREFIX_PROMPT.lines().next().unwrap_or("");
    server.respond_with(move |request| {
        match served.fetch_add(1, std::sync::atomic::Ordering::SeqCst) {
            0 | 1 if request.body.to_string().contains(prefix_task) => prefix.clone(),
            0 | 1 => history.clone(),
            _ => streamed(kind, &checkpoint_in_words("SECOND-SUMMARY")),
        }
    });
    let summarizer = provider(kind, &server);
    compact(&path, &summarizer, &CancellationToken::new()).await.unwrap();

    // The conversation goes on: a new turn that edits another file.
    {
        let mut store = open(&path);
        let filler = "x".repeat(4000);
        for message in [
            json!({"role":"user","content":"Now document the lexer in README.md"}),
            json!({"role":"assistant","content":[{"type":"toolCall","id":"w1","name":"write","arguments":{"path":"README.md","content":filler}}]}),
            json!({"role":"toolResult","toolCallId":"w1","toolName":"write","content":[{"type":"text","text":"ok"}],"isError":false}),
            json!({"role":"assistant","content":[{"type":"text","text":"Documented."}]}),
            json!({"role":"user","content":"Thanks, and now the changelog"}),
            json!({"role":"assistant","content":[{"type":"text","text":filler}]}),
        ] {
            let mut fields = serde_json::Map::new();
            fields.insert("message".into(), message);
            store.append(NewEntry::new("message", fields)).unwrap();
        }
    }
    let before_second = server.requests().len();
    compact(&path, &summarizer, &CancellationToken::new()).await.unwrap();
    let second: Vec<String> =
        server.requests()[before_second..].iter().map(|r| r.body.to_string()).collect();
    assert!(
        second
            .iter()
            .any(|body| body.contains("<previous-summary>\\n## Goal\\n- FIRST-SUMMARY history")),
        "the second request must carry the first summary: {second:?}"
    );
    let session = open(&path).into_session();
    let EntryKind::Compaction(data) = &session.entries()[session.leaf().unwrap()].kind else {
        panic!("not a compaction")
    };
    // Cumulative: the first compaction's files, the re-summarized kept part's, and the new.
    assert_eq!(
        data.details.as_ref().unwrap()["modifiedFiles"],
        json!(["README.md", "src/comments.rs", "src/lexer.rs", "src/lib.rs", "src/parser.rs"]),
    );
}

macro_rules! both_providers {
    ($($name:ident),* $(,)?) => {$(
        mod $name {
            #[tokio::test]
            async fn openai() {
                super::$name(compaction::provider::ProviderKind::OpenAi).await;
            }
            #[tokio::test]
            async fn anthropic() {
                super::$name(compaction::provider::ProviderKind::Anthropic).await;
            }
        }
    )*};
}

both_providers!(
    provider_run_stores_the_streamed_summary,
    failures_leave_the_file_byte_identical,
    second_compaction_updates_the_first,
);

/// A summarizer that keeps to its budget and fills it: every budget it is given, in order.
#[derive(Default)]
struct Filling {
    budgets: std::sync::Mutex<Vec<u32>>,
}

impl Summarizer for Filling {
    fn summarize<'a>(
        &'a self,
        request: &'a compaction::summarizer::SummaryRequest,
        _cancel: &'a CancellationToken,
        _progress: &'a (dyn Fn(compaction::summarizer::SummaryProgress) + Send + Sync),
    ) -> futures_util::future::BoxFuture<
        'a,
        Result<compaction::summarizer::SummaryResponse, compaction::error::SummarizerError>,
    > {
        self.budgets.lock().unwrap().push(request.max_output_tokens);
        let chars = request.max_output_tokens as usize * 4;
        let mut text = String::from("## Goal\nParse nested lists.\n\n## Progress\n### Done\n");
        let mut fact = 0;
        while text.len() + 40 < chars {
            fact += 1;
            text.push_str(&format!("- checked case {fact} of the parser\n"));
        }
        Box::pin(async move {
            Ok(compaction::summarizer::SummaryResponse {
                text,
                usage: Default::default(),
                truncated: false,
                requests: 1,
            })
        })
    }
    fn label(&self) -> String {
        "filling".into()
    }
    fn follows_instructions(&self) -> bool {
        false
    }
    fn shares_the_budget(&self) -> bool {
        true
    }
}

#[tokio::test]
async fn a_summarizer_that_keeps_to_its_budget_writes_again_within_the_room_the_compaction_has() {
    let (_dir, path) = session_copy();
    // A budget far larger than the context: the first summary would grow it.
    let settings = CompactionSettings { max_summary_tokens: 20_000, ..settings() };
    let estimator = estimator();
    let filling = Filling::default();
    let outcome =
        compact_with(&path, &filling, &settings, &CancellationToken::new()).await.unwrap();
    let session = open(&path).into_session();
    let leaf = session.leaf().unwrap();
    let context = build_context(&session, Some(leaf));
    let after = context_tokens(&session, &context, estimator.as_ref()).tokens;
    assert!(after < outcome.tokens_before, "{after} >= {}", outcome.tokens_before);
    // Asked with the whole budget first (split between history and prefix), then within
    // the room: every later budget is smaller than the first.
    let budgets = filling.budgets.lock().unwrap().clone();
    assert!(budgets.len() > 2, "{budgets:?}");
    let first_history = budgets[..2].iter().max().copied().unwrap();
    assert!(first_history > 10_000, "{budgets:?}");
    assert!(budgets[2..].iter().all(|budget| *budget < first_history / 4), "{budgets:?}");
}

#[tokio::test]
async fn a_compaction_that_would_not_shrink_the_context_is_refused() {
    let (_dir, path) = session_copy();
    let before = std::fs::read(&path).unwrap();
    let settings = CompactionSettings { max_summary_tokens: 100_000, ..settings() };
    // A summarizer that answers with far more text than it was given.
    struct Verbose;
    impl Summarizer for Verbose {
        fn summarize<'a>(
            &'a self,
            _request: &'a compaction::summarizer::SummaryRequest,
            _cancel: &'a CancellationToken,
            _progress: &'a (dyn Fn(compaction::summarizer::SummaryProgress) + Send + Sync),
        ) -> futures_util::future::BoxFuture<
            'a,
            Result<compaction::summarizer::SummaryResponse, compaction::error::SummarizerError>,
        > {
            Box::pin(async {
                Ok(compaction::summarizer::SummaryResponse {
                    text: format!("## Goal\n## Progress\n{}", "word ".repeat(40_000)),
                    usage: Default::default(),
                    truncated: false,
                    requests: 1,
                })
            })
        }
        fn label(&self) -> String {
            "verbose".into()
        }
    }
    let error =
        compact_with(&path, &Verbose, &settings, &CancellationToken::new()).await.unwrap_err();
    assert!(matches!(error, CompactError::NotReducing { .. }), "{error}");
    assert_eq!(std::fs::read(&path).unwrap(), before);
}

mod branch_summaries;
mod kept_messages;
mod local_server;
mod one_slot_model;
mod through_extensions;
mod transcripts;
