//! The limits a summarizer request lives within, end to end through the mock server: the
//! summary model's window (requests sized to it; a chunk the server still rejects as too long
//! is split and retried), the output limit (a truncated summary is asked for again with a
//! larger budget, then goes to the quality gate as cut off), and the deadline of one
//! compaction.

use std::time::Duration;

use compaction::compact::{CompactError, CompactRequest, Compactor};
use compaction::error::SummarizerError;
use compaction::extension::Extensions;
use compaction::provider::{ApiKey, LlmSummarizer, ProviderClient, ProviderConfig, ProviderKind};
use compaction::store::NewEntry;
use compaction::summarizer::Summarizer;
use compaction_core::EntryKind;
use compaction_core::serialize::Redactor;
use compaction_core::settings::CompactionSettings;
use compaction_core::tokens::estimator_by_name;
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

use super::compact::{
    KEY, MODEL, WINDOW, compact, estimator, open, provider, session_copy, settings,
    stream_chunks_stopping, summary_with_every_fact,
};
use super::mock_server::{MockServer, Reply};

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
    requests_fit_the_configured_summary_window,
    a_chunk_the_server_rejects_as_too_long_is_split_and_retried,
    splitting_is_bounded_and_then_fails_cleanly,
    truncated_summary_is_asked_again_with_a_larger_budget,
    no_request_asks_for_more_than_the_model_writes,
    summary_truncated_twice_fails_and_leaves_the_file_byte_identical,
    unanswered_requests_end_at_the_deadline_with_the_file_unchanged,
);

/// The output limit of a recorded request (`max_tokens` or `max_completion_tokens`).
fn max_tokens_of(body: &Value) -> u64 {
    body["max_tokens"].as_u64().or(body["max_completion_tokens"].as_u64()).unwrap()
}

/// o200k tokens of a recorded request's texts (system prompt and messages).
fn input_tokens_of(body: &Value) -> u64 {
    let o200k = estimator_by_name("o200k").unwrap();
    let mut tokens = body["system"].as_str().map_or(0, |system| o200k.text_tokens(system));
    for message in body["messages"].as_array().unwrap() {
        tokens += o200k.text_tokens(message["content"].as_str().unwrap()) + 4;
    }
    tokens
}

/// A summary cut off at the output limit is not stored: the call is made again with twice
/// the output budget (the window has room for it here), and the complete answer is what
/// lands in the file.
async fn truncated_summary_is_asked_again_with_a_larger_budget(kind: ProviderKind) {
    let server = MockServer::start().await;
    let (_dir, path) = session_copy();
    // The complete answer passes the quality gate, so no further request is made.
    let complete = summary_with_every_fact(&path, "COMPLETE summary");
    let first = settings().summary_output_tokens();
    server.respond_with(move |request| {
        let cut = max_tokens_of(&request.body) == first;
        let text = if cut { "## Goal\n- Fix nested list" } else { complete.as_str() };
        Reply::stream(stream_chunks_stopping(kind, text, cut))
    });
    let summarizer = provider(kind, &server);
    let outcome = compact(&path, &summarizer, &CancellationToken::new()).await.unwrap();

    let session = open(&path).into_session();
    let EntryKind::Compaction(data) = &session.entries()[session.leaf().unwrap()].kind else {
        panic!("not a compaction")
    };
    assert!(data.summary.contains("COMPLETE summary"), "{}", data.summary);
    assert!(!data.summary.contains("Fix nested list"), "{}", data.summary);
    let requests = server.requests();
    let mut budgets: Vec<u64> =
        requests.iter().map(|request| max_tokens_of(&request.body)).collect();
    budgets.sort_unstable();
    let twice = 2 * first;
    assert_eq!(budgets, [first, first, twice, twice], "one retry per call (history, turn prefix)");
    assert_eq!(outcome.summarizer_calls, requests.len());
}

/// A summary model whose reply is limited to 4,096 tokens (the model table says so) is
/// never asked for more, whatever `maxSummaryTokens` says: such a server rejects the
/// request.
async fn no_request_asks_for_more_than_the_model_writes(kind: ProviderKind) {
    let server = MockServer::start().await;
    let (_dir, path) = session_copy();
    let complete = summary_with_every_fact(&path, "COMPLETE summary");
    server.respond_with(move |_request| {
        Reply::stream(stream_chunks_stopping(kind, &complete, false))
    });
    let model = match kind {
        ProviderKind::OpenAi => "gpt-4-turbo",
        ProviderKind::Anthropic => "claude-3-haiku-20240307",
    };
    let limit = compaction_core::models::model_limits(model).unwrap().max_output_tokens;
    assert!(settings().summary_output_tokens() > limit, "the settings must ask for more");
    let mut config = ProviderConfig::new(kind, model);
    config.base_url = Some(match kind {
        ProviderKind::OpenAi => format!("{}/v1", server.url()),
        ProviderKind::Anthropic => server.url().to_owned(),
    });
    let summarizer = LlmSummarizer::new(ProviderClient::new(config, ApiKey::new(KEY)).unwrap());
    compact(&path, &summarizer, &CancellationToken::new()).await.unwrap();

    let budgets: Vec<u64> =
        server.requests().iter().map(|request| max_tokens_of(&request.body)).collect();
    assert!(!budgets.is_empty());
    assert!(budgets.iter().all(|&budget| budget <= limit), "{budgets:?} over {limit}");
}

/// A summarizer with a window and no network: every reply written with the first budget
/// is cut off at the output limit; the budgets asked for are recorded.
struct CutAtFirstBudget {
    window: u64,
    budgets: std::sync::Mutex<Vec<u32>>,
}

impl Summarizer for CutAtFirstBudget {
    fn summarize<'a>(
        &'a self,
        request: &'a compaction::summarizer::SummaryRequest,
        _cancel: &'a CancellationToken,
        _progress: &'a (dyn Fn(compaction::summarizer::SummaryProgress) + Send + Sync),
    ) -> futures_util::future::BoxFuture<
        'a,
        Result<compaction::summarizer::SummaryResponse, SummarizerError>,
    > {
        self.budgets.lock().unwrap().push(request.max_output_tokens);
        let truncated = request.max_output_tokens == 4096;
        Box::pin(async move {
            Ok(compaction::summarizer::SummaryResponse {
                text: "## Goal\n- summary".to_owned(),
                usage: Default::default(),
                truncated,
                requests: 1,
            })
        })
    }

    fn label(&self) -> String {
        "cut-at-first-budget".to_owned()
    }

    fn context_window(&self) -> Option<u64> {
        Some(self.window)
    }
}

/// The larger budget of the retry is bounded by what the summary model's window leaves
/// after the request's input, not only by twice the first budget.
#[tokio::test]
async fn the_retry_budget_stays_inside_the_summary_window() {
    let estimator = estimator();
    let chunk = "word ".repeat(6_000);
    let request = compaction::summarizer::SummaryRequest::new(
        compaction::summarizer::SummaryKind::History,
        chunk.clone(),
        4096,
    );
    let input = estimator.text_tokens(&request.system_prompt)
        + estimator.text_tokens(&compaction::summarizer::render_user_prompt(&request));
    // Room for the request and one and a half budgets: doubling would overflow.
    let window = input + 4096 * 3 / 2 + 2000;
    let summarizer = CutAtFirstBudget { window, budgets: std::sync::Mutex::new(Vec::new()) };
    let settings = settings();
    let compactor = Compactor {
        summarizer: &summarizer,
        settings: &settings,
        context_window: WINDOW,
        estimator: estimator.as_ref(),
        redactor: Redactor::default(),
        extensions: &Extensions::new(),
    };
    let chunks = [chunk];
    let job = compaction::compact::ChunkJob {
        kind: compaction::summarizer::SummaryKind::History,
        chunks: &chunks,
        messages: &[],
        after: &[],
        previous_summary: None,
        instructions: None,
        pins: &[],
        replace_instructions: false,
        max_output_tokens: 4096,
        first_call: 1,
        calls: 1,
        planned_window: Some(window),
    };
    let (summary, _usage, calls) =
        compactor.run_job(job, &CancellationToken::new(), &|_| {}).await.unwrap();
    assert_eq!(summary.as_deref(), Some("## Goal\n- summary"));
    assert_eq!(calls, 2);
    let budgets = summarizer.budgets.lock().unwrap().clone();
    assert_eq!(budgets[0], 4096);
    let retry = u64::from(budgets[1]);
    assert!(retry > 4096 && retry < 8192, "{budgets:?}");
    assert!(input + retry <= window, "{input} + {retry} over {window}");
}

/// When the larger budget is cut off too, the summary counts as cut off: the quality gate
/// asks once more (again with one larger-budget retry per call), and with `strictQuality`
/// the compaction then fails with a clear error naming the setting to change and writes
/// nothing. (Without it, the gate appends a Must Keep section; see `quality_gate`.)
async fn summary_truncated_twice_fails_and_leaves_the_file_byte_identical(kind: ProviderKind) {
    let server = MockServer::start().await;
    server.always(Reply::stream(stream_chunks_stopping(kind, "## Goal\n- Fix nested", true)));
    let summarizer = provider(kind, &server);
    let (_dir, path) = session_copy();
    let before = std::fs::read(&path).unwrap();
    let strict = CompactionSettings { strict_quality: true, ..settings() };
    let estimator = estimator();
    let compactor = Compactor {
        summarizer: &summarizer,
        settings: &strict,
        context_window: WINDOW,
        estimator: estimator.as_ref(),
        redactor: Redactor::new([KEY.to_owned()]),
        extensions: &Extensions::new(),
    };
    let mut store = open(&path);
    let error = compactor
        .run(&mut store, &CompactRequest::default(), &CancellationToken::new(), &|_| {})
        .await
        .unwrap_err();
    drop(store);
    // A summary cut off twice is unusable: never repaired, strict or not.
    assert!(
        matches!(&error, CompactError::Unusable { attempts: 2, problems, .. }
            if problems.iter().any(|m| m.contains("cut off at the output limit"))),
        "{error:?}"
    );
    assert!(error.to_string().contains("maxSummaryTokens"), "{error}");
    assert_eq!(std::fs::read(&path).unwrap(), before);
    let budgets: Vec<u64> = server.requests().iter().map(|r| max_tokens_of(&r.body)).collect();
    assert!(budgets.len() <= 8 && budgets.contains(&8192), "{budgets:?}");
}

/// A server that accepts requests and never answers cannot hold the session past the
/// compaction's deadline: the run ends with an error naming the deadline and how to change
/// it, and the file is unchanged.
async fn unanswered_requests_end_at_the_deadline_with_the_file_unchanged(kind: ProviderKind) {
    let server = MockServer::start().await;
    server.always(Reply::Hang);
    let mut config = ProviderConfig::new(kind, MODEL);
    config.base_url = Some(match kind {
        ProviderKind::OpenAi => format!("{}/v1", server.url()),
        ProviderKind::Anthropic => server.url().to_owned(),
    });
    // The default idle timeout (120 s) would hold the lock for minutes.
    let summarizer = LlmSummarizer::new(ProviderClient::new(config, ApiKey::new(KEY)).unwrap());
    let (_dir, path) = session_copy();
    let before = std::fs::read(&path).unwrap();
    let settings = CompactionSettings { timeout_seconds: 1, ..settings() };
    let estimator = estimator();
    let compactor = Compactor {
        summarizer: &summarizer,
        settings: &settings,
        context_window: WINDOW,
        estimator: estimator.as_ref(),
        redactor: Redactor::default(),
        extensions: &Extensions::new(),
    };
    let mut store = open(&path);
    let started = std::time::Instant::now();
    let error = compactor
        .run(&mut store, &CompactRequest::default(), &CancellationToken::new(), &|_| {})
        .await
        .unwrap_err();
    assert!(started.elapsed() < Duration::from_secs(5), "took {:?}", started.elapsed());
    assert!(
        matches!(error, CompactError::TimedOut { limit } if limit == Duration::from_secs(1)),
        "{error:?}"
    );
    let message = error.to_string();
    assert!(message.contains("deadline of 1 s") && message.contains("timeoutSeconds"), "{message}");
    assert!(!server.requests().is_empty());
    drop(store);
    assert_eq!(std::fs::read(&path).unwrap(), before);
}

/// The window of the model behind [`window_server`], as a llama.cpp server started with
/// `--ctx-size 32000`.
const SERVER_WINDOW: u64 = 32_000;

/// A server with a window of `window` tokens (counted with o200k): a request whose input
/// and output budget do not fit gets the provider's real rejection; any other gets a short
/// streamed summary.
fn window_server(server: &MockServer, kind: ProviderKind, window: u64) {
    server.respond_with(move |request| {
        let input = input_tokens_of(&request.body);
        let output = max_tokens_of(&request.body);
        match kind {
            ProviderKind::OpenAi if input + output > window => Reply::status(
                400,
                json!({"error": {
                    "message": format!("This model's maximum context length is {window} tokens. However, you requested {} tokens ({input} in the messages, {output} in the completion). Please reduce the length of the messages or completion.", input + output),
                    "type": "invalid_request_error", "param": "messages",
                    "code": "context_length_exceeded"
                }})
                .to_string(),
            ),
            ProviderKind::Anthropic if input > window => Reply::status(
                400,
                json!({"type": "error", "error": {
                    "type": "invalid_request_error",
                    "message": format!("prompt is too long: {input} tokens > {window} maximum")
                }, "request_id": "req_011CSHoEeqs5C35K2UUqR7Fy"})
                .to_string(),
            ),
            ProviderKind::Anthropic if input + output > window => Reply::status(
                400,
                json!({"type": "error", "error": {
                    "type": "invalid_request_error",
                    "message": format!("input length and `max_tokens` exceed context limit: {input} + {output} > {window}, decrease input length or `max_tokens` and try again")
                }, "request_id": "req_011CSHoEeqs5C35K2UUqR7Fz"})
                .to_string(),
            ),
            ProviderKind::OpenAi | ProviderKind::Anthropic => {
                let text = super::compact::checkpoint_in_words("Keep the parser fast");
                Reply::stream(stream_chunks_stopping(kind, &text, false))
            }
        }
    });
}

/// A summarizer for [`window_server`]: counting 40 000 tokens takes the (unoptimized) mock
/// server longer than the short idle timeout of the other tests.
fn patient_provider(kind: ProviderKind, server: &MockServer) -> LlmSummarizer {
    let mut config = ProviderConfig::new(kind, MODEL);
    config.base_url = Some(match kind {
        ProviderKind::OpenAi => format!("{}/v1", server.url()),
        ProviderKind::Anthropic => server.url().to_owned(),
    });
    config.max_retries = 0;
    LlmSummarizer::new(ProviderClient::new(config, ApiKey::new(KEY)).unwrap())
}

/// Whether the server answered `body` with a rejection (it fits nothing over its window).
fn fits(body: &Value, window: u64) -> bool {
    input_tokens_of(body) + max_tokens_of(body) <= window
}

/// The fixture session grown by a long conversation: about 45 000 tokens of history, with
/// a marker at its start and its end.
fn long_session() -> (tempfile::TempDir, std::path::PathBuf) {
    const WORDS: &[&str] = &[
        "parser", "tokens", "the", "window", "returns", "a", "struct", "field", "error", "when",
        "input", "line", "and", "branch", "summary", "test", "fails", "because", "of", "cache",
        "config", "value", "is", "missing", "from", "module", "function", "call", "retry",
        "stream", "chunk", "file", "path", "lock", "entry", "leaf", "model", "budget",
    ];
    let (dir, path) = session_copy();
    let mut store = open(&path);
    let mut state = 7_u64;
    for turn in 0..40 {
        let mut text = String::new();
        for _ in 0..900 {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            text.push_str(WORDS[(state >> 33) as usize % WORDS.len()]);
            text.push(' ');
        }
        let marker = match turn {
            0 => "FIRST-MARKER ",
            39 => "LAST-MARKER ",
            _ => "",
        };
        for message in [
            json!({"role": "user", "content": format!("{marker}Step {turn}: continue")}),
            json!({"role": "assistant", "content": [{"type": "text", "text": text}]}),
        ] {
            let mut fields = serde_json::Map::new();
            fields.insert("message".into(), message);
            store.append(NewEntry::new("message", fields)).unwrap();
        }
    }
    let mut fields = serde_json::Map::new();
    fields.insert("message".into(), json!({"role": "user", "content": "And now?"}));
    store.append(NewEntry::new("message", fields)).unwrap();
    (dir, path)
}

async fn compact_long(
    path: &std::path::Path,
    summarizer: &LlmSummarizer,
) -> Result<compaction::compact::CompactOutcome, CompactError> {
    let settings = settings();
    let estimator = estimator();
    let compactor = Compactor {
        summarizer,
        settings: &settings,
        context_window: 200_000,
        estimator: estimator.as_ref(),
        redactor: Redactor::default(),
        extensions: &Extensions::new(),
    };
    let mut store = open(path);
    compactor.run(&mut store, &CompactRequest::default(), &CancellationToken::new(), &|_| {}).await
}

/// With the summary model's window set to the server's (what `--context-window 32000`
/// gives when the summary model is the chat model), a history larger than the window is
/// sent in chunks that each fit it: the server never has to reject one.
async fn requests_fit_the_configured_summary_window(kind: ProviderKind) {
    let server = MockServer::start().await;
    window_server(&server, kind, SERVER_WINDOW);
    let summarizer = patient_provider(kind, &server).with_context_window(SERVER_WINDOW);
    let (_dir, path) = long_session();
    compact_long(&path, &summarizer).await.unwrap();
    let requests = server.requests();
    assert!(requests.len() >= 3, "a history over the window takes several chunks");
    for request in &requests {
        let total = input_tokens_of(&request.body) + max_tokens_of(&request.body);
        assert!(total <= SERVER_WINDOW, "a request of {total} tokens over {SERVER_WINDOW}");
    }
}

/// A summary model whose real window is smaller than the one configured (here the model
/// table's 128 000 for a 32 000 server): the server rejects the chunk as too long, the
/// chunk is split and summarized in halves, every request the server accepted fits, the
/// whole history reached it, and the compaction is written.
async fn a_chunk_the_server_rejects_as_too_long_is_split_and_retried(kind: ProviderKind) {
    let server = MockServer::start().await;
    window_server(&server, kind, SERVER_WINDOW);
    let summarizer = patient_provider(kind, &server);
    // The configured window less the margin kept for a tokenizer we do not know.
    assert_eq!(summarizer.context_window(), Some(128_000 - 12_800));
    let (_dir, path) = long_session();
    let outcome = compact_long(&path, &summarizer).await.unwrap();
    let requests = server.requests();
    let (accepted, rejected): (Vec<_>, Vec<_>) =
        requests.iter().partition(|request| fits(&request.body, SERVER_WINDOW));
    assert!(!rejected.is_empty(), "the first request should not have fit");
    let sent: String = accepted.iter().map(|request| request.body.to_string()).collect();
    assert!(sent.contains("FIRST-MARKER") && sent.contains("LAST-MARKER"), "history lost");
    assert_eq!(outcome.summarizer_calls, requests.len());
    let session = open(&path).into_session();
    assert!(matches!(session.entries()[session.leaf().unwrap()].kind, EntryKind::Compaction(_)));
}

/// A server that rejects every request as too long: each chunk is halved at most
/// `MAX_OVERFLOW_SPLITS` times, then the compaction fails with the provider's overflow
/// error and writes nothing.
async fn splitting_is_bounded_and_then_fails_cleanly(kind: ProviderKind) {
    let server = MockServer::start().await;
    window_server(&server, kind, 100);
    let summarizer = patient_provider(kind, &server);
    let (_dir, path) = long_session();
    let before = std::fs::read(&path).unwrap();
    let error = compact_long(&path, &summarizer).await.unwrap_err();
    assert!(
        matches!(
            &error,
            CompactError::WindowTooSmall { error: SummarizerError::ContextOverflow { .. }, .. }
        ),
        "{error:?}"
    );
    assert!(error.to_string().contains("summaryContextWindow"), "{error}");
    assert_eq!(std::fs::read(&path).unwrap(), before);
    // One chunk each for history and the split turn, each halved three times at most.
    let limit = 2 * (1 + compaction::compact::MAX_OVERFLOW_SPLITS as usize);
    assert!(server.requests().len() <= limit, "{} requests", server.requests().len());
}
