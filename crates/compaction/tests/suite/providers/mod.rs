//! Provider clients against a mock server speaking the real wire formats: OpenAI Chat
//! Completions and Anthropic Messages streams, error bodies, retries, timeouts, cancellation.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use compaction::error::SummarizerError;
use compaction::provider::{ApiKey, LlmSummarizer, ProviderClient, ProviderConfig, ProviderKind};
use compaction::summarizer::{
    Summarizer, SummaryKind, SummaryProgress, SummaryRequest, SummaryResponse, SummaryUsage,
    ignore_progress,
};
use pretty_assertions::assert_eq;
use serde_json::json;
use tokio_util::sync::CancellationToken;

use super::mock_server::{MockServer, Reply};

/// A distinctive fake key: no error text may ever contain it.
const KEY: &str = "sk-test-DISTINCTIVE-7f3a9c51";
const MODEL: &str = "summary-model-1";
const TRANSCRIPT: &str = "[User]: Rename parse_cut to find_cut in src/cut.rs\n\n[Assistant]: Done.";

/// Runs `$name(kind)` once per provider, as `$name::openai` and `$name::anthropic`.
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
    streamed_summary_and_usage,
    request_body_and_auth_headers,
    whole_json_response_is_accepted,
    local_server_needs_no_key,
    output_limit_stop_is_reported_as_truncated,
);

mod failures;
pub mod local_server;
mod odd_json;

struct Fixture {
    kind: ProviderKind,
    server: MockServer,
}

impl Fixture {
    async fn start(kind: ProviderKind) -> Self {
        Fixture { kind, server: MockServer::start().await }
    }

    /// Test timings: millisecond backoff, short idle timeout.
    fn config(&self) -> ProviderConfig {
        let mut config = ProviderConfig::new(self.kind, MODEL);
        config.base_url = Some(match self.kind {
            ProviderKind::OpenAi => format!("{}/v1", self.server.url()),
            ProviderKind::Anthropic => self.server.url().to_owned(),
        });
        config.connect_timeout = Duration::from_secs(2);
        config.idle_timeout = Duration::from_secs(2);
        config.max_retries = 3;
        config.retry_base_delay = Duration::from_millis(1);
        config.max_retry_delay = Duration::from_millis(100);
        config
    }

    fn summarizer_with(&self, config: ProviderConfig) -> LlmSummarizer {
        LlmSummarizer::new(ProviderClient::new(config, ApiKey::new(KEY)).unwrap())
    }

    fn summarizer(&self) -> LlmSummarizer {
        self.summarizer_with(self.config())
    }

    fn expected_path(&self) -> &'static str {
        match self.kind {
            ProviderKind::OpenAi => "/v1/chat/completions",
            ProviderKind::Anthropic => "/v1/messages",
        }
    }

    /// A complete stream writing `parts`.
    fn success(&self, parts: &[&str]) -> Reply {
        let mut chunks = self.opening(parts);
        chunks.extend(self.closing());
        Reply::stream(chunks)
    }

    /// The start of a stream plus text deltas, without the end.
    fn opening(&self, parts: &[&str]) -> Vec<String> {
        let mut chunks = Vec::new();
        match self.kind {
            ProviderKind::OpenAi => {
                chunks.push(openai_event(&json!({
                    "id": "chatcmpl-1", "object": "chat.completion.chunk", "model": MODEL,
                    "choices": [{"index": 0, "delta": {"role": "assistant", "content": ""}, "finish_reason": null}]
                })));
                for part in parts {
                    chunks.push(openai_event(&json!({
                        "id": "chatcmpl-1", "object": "chat.completion.chunk", "model": MODEL,
                        "choices": [{"index": 0, "delta": {"content": part}, "finish_reason": null}],
                        "usage": null
                    })));
                }
            }
            ProviderKind::Anthropic => {
                chunks.push(anthropic_event("message_start", &json!({
                    "type": "message_start",
                    "message": {"id": "msg_1", "type": "message", "role": "assistant", "model": MODEL,
                        "content": [], "stop_reason": null, "stop_sequence": null,
                        "usage": {"input_tokens": 1000, "cache_creation_input_tokens": 50,
                                  "cache_read_input_tokens": 150, "output_tokens": 1}}
                })));
                chunks.push(anthropic_event(
                    "content_block_start",
                    &json!({
                        "type": "content_block_start", "index": 0,
                        "content_block": {"type": "text", "text": ""}
                    }),
                ));
                chunks.push(anthropic_event("ping", &json!({"type": "ping"})));
                for part in parts {
                    chunks.push(anthropic_event(
                        "content_block_delta",
                        &json!({
                            "type": "content_block_delta", "index": 0,
                            "delta": {"type": "text_delta", "text": part}
                        }),
                    ));
                }
            }
        }
        split_first_delta(chunks)
    }

    /// The proper end of a stream, with usage.
    fn closing(&self) -> Vec<String> {
        match self.kind {
            ProviderKind::OpenAi => vec![
                openai_event(&json!({
                    "id": "chatcmpl-1", "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]
                })),
                openai_event(&json!({
                    "id": "chatcmpl-1", "choices": [],
                    "usage": {"prompt_tokens": 1200, "completion_tokens": 34, "total_tokens": 1234,
                              "prompt_tokens_details": {"cached_tokens": 200}}
                })),
                ": keep-alive comment\n\n".to_owned(),
                "data: [DONE]\n\n".to_owned(),
            ],
            ProviderKind::Anthropic => vec![
                anthropic_event(
                    "content_block_stop",
                    &json!({"type": "content_block_stop", "index": 0}),
                ),
                anthropic_event(
                    "message_delta",
                    &json!({
                        "type": "message_delta",
                        "delta": {"stop_reason": "end_turn", "stop_sequence": null},
                        "usage": {"output_tokens": 34}
                    }),
                ),
                anthropic_event("message_stop", &json!({"type": "message_stop"})),
            ],
        }
    }

    fn expected_usage(&self) -> SummaryUsage {
        match self.kind {
            ProviderKind::OpenAi => SummaryUsage {
                input_tokens: 1000,
                output_tokens: 34,
                cache_read_tokens: 200,
                cache_write_tokens: 0,
                cost: None,
                unreported_requests: 0,
            },
            ProviderKind::Anthropic => SummaryUsage {
                input_tokens: 1000,
                output_tokens: 34,
                cache_read_tokens: 150,
                cache_write_tokens: 50,
                cost: None,
                unreported_requests: 0,
            },
        }
    }
}

fn openai_event(value: &serde_json::Value) -> String {
    format!("data: {value}\n\n")
}

fn anthropic_event(name: &str, value: &serde_json::Value) -> String {
    format!("event: {name}\ndata: {value}\n\n")
}

/// Splits the last chunk in two network reads, mid-JSON, to exercise reassembly.
fn split_first_delta(mut chunks: Vec<String>) -> Vec<String> {
    if let Some(last) = chunks.pop() {
        let middle = last.len() / 2;
        let (left, right) = last.split_at(middle);
        chunks.push(left.to_owned());
        chunks.push(right.to_owned());
    }
    chunks
}

fn request() -> SummaryRequest {
    SummaryRequest::new(SummaryKind::History, TRANSCRIPT, 1234)
}

async fn run(summarizer: &LlmSummarizer) -> Result<SummaryResponse, SummarizerError> {
    summarizer.summarize(&request(), &CancellationToken::new(), &ignore_progress).await
}

fn assert_no_key(error: &SummarizerError) {
    let shown = format!("{error} / {error:?}");
    assert!(!shown.contains(KEY), "key leaked: {shown}");
    assert!(!shown.contains("DISTINCTIVE"), "key leaked: {shown}");
}

async fn streamed_summary_and_usage(kind: ProviderKind) {
    let fixture = Fixture::start(kind).await;
    fixture.server.push(fixture.success(&["## Goal\n", "Rename ", "parse_cut ✓"]));
    let events = Arc::new(Mutex::new(Vec::new()));
    let sink = Arc::clone(&events);
    let progress = move |event: SummaryProgress| sink.lock().unwrap().push(event);
    let response = fixture
        .summarizer()
        .summarize(&request(), &CancellationToken::new(), &progress)
        .await
        .unwrap();
    assert_eq!(
        response,
        SummaryResponse {
            text: "## Goal\nRename parse_cut ✓".to_owned(),
            usage: fixture.expected_usage(),
            truncated: false,
            requests: 1,
        }
    );
    let events = events.lock().unwrap().clone();
    assert_eq!(events.first(), Some(&SummaryProgress::Started { attempt: 1 }));
    let outputs: Vec<usize> = events
        .iter()
        .filter_map(|event| {
            if let SummaryProgress::Output { chars, .. } = event { Some(*chars) } else { None }
        })
        .collect();
    assert_eq!(outputs, vec![8, 15, 26]);
    assert_eq!(events.last(), Some(&SummaryProgress::Output { chars: 26, estimated_tokens: 7 }));
}

async fn request_body_and_auth_headers(kind: ProviderKind) {
    let fixture = Fixture::start(kind).await;
    fixture.server.push(fixture.success(&["ok"]));
    let mut request = request();
    request.previous_summary = Some("## Goal\nEarlier goal".to_owned());
    fixture
        .summarizer()
        .summarize(&request, &CancellationToken::new(), &ignore_progress)
        .await
        .unwrap();
    let requests = fixture.server.requests();
    assert_eq!(requests.len(), 1);
    let sent = &requests[0];
    assert_eq!(sent.path, fixture.expected_path());
    assert_eq!(sent.body["model"], MODEL);
    assert_eq!(sent.body["stream"], true);
    assert_eq!(sent.headers.get("content-type").map(String::as_str), Some("application/json"));
    let user_prompt = compaction::summarizer::render_user_prompt(&request);
    assert!(user_prompt.contains(TRANSCRIPT));
    assert!(user_prompt.contains("<previous-summary>\n## Goal\nEarlier goal\n</previous-summary>"));
    match kind {
        ProviderKind::OpenAi => {
            assert_eq!(sent.headers.get("authorization"), Some(&format!("Bearer {KEY}")));
            // A custom base URL means an OpenAI-compatible server: `max_tokens`.
            assert_eq!(sent.body["max_tokens"], 1234);
            assert_eq!(sent.body["stream_options"], json!({"include_usage": true}));
            assert_eq!(
                sent.body["messages"],
                json!([
                    {"role": "system", "content": request.system_prompt},
                    {"role": "user", "content": user_prompt},
                ])
            );
        }
        ProviderKind::Anthropic => {
            assert_eq!(sent.headers.get("x-api-key"), Some(&KEY.to_owned()));
            assert_eq!(
                sent.headers.get("anthropic-version").map(String::as_str),
                Some("2023-06-01")
            );
            assert!(!sent.headers.contains_key("authorization"));
            assert_eq!(sent.body["max_tokens"], 1234);
            assert_eq!(sent.body["system"], request.system_prompt.as_str());
            assert_eq!(sent.body["messages"], json!([{"role": "user", "content": user_prompt}]));
        }
    }
}

/// A server on this machine (the mock listens on 127.0.0.1) works with the key variable
/// unset, and gets no credential header; a remote one still requires the key.
async fn local_server_needs_no_key(kind: ProviderKind) {
    let fixture = Fixture::start(kind).await;
    fixture.server.push(fixture.success(&["ok"]));
    let mut config = fixture.config();
    config.api_key_env = Some("COMPACTION_TEST_KEY_NEVER_SET".to_owned());
    let summarizer = LlmSummarizer::new(ProviderClient::from_env(config.clone()).unwrap());
    let response = run(&summarizer).await.unwrap();
    assert_eq!(response.text, "ok");
    let sent = &fixture.server.requests()[0];
    assert!(!sent.headers.contains_key("authorization"));
    assert!(!sent.headers.contains_key("x-api-key"));

    for base in ["http://localhost:9/v1", "http://[::1]:9", "http://127.0.0.2:9"] {
        config.base_url = Some(base.to_owned());
        assert!(ProviderClient::from_env(config.clone()).is_ok(), "{base}");
    }
    config.base_url = Some("https://api.example.com/v1".to_owned());
    let error = ProviderClient::from_env(config).unwrap_err();
    assert!(
        matches!(&error, SummarizerError::MissingApiKey { var } if var == "COMPACTION_TEST_KEY_NEVER_SET"),
        "{error}"
    );
}

async fn whole_json_response_is_accepted(kind: ProviderKind) {
    let fixture = Fixture::start(kind).await;
    let body = match kind {
        ProviderKind::OpenAi => json!({
            "id": "chatcmpl-1", "object": "chat.completion",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": "not streamed"}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 10, "completion_tokens": 3}
        }),
        ProviderKind::Anthropic => json!({
            "id": "msg_1", "type": "message", "role": "assistant",
            "content": [{"type": "text", "text": "not streamed"}],
            "stop_reason": "end_turn", "usage": {"input_tokens": 10, "output_tokens": 3}
        }),
    };
    fixture.server.push(Reply::status(200, body.to_string()));
    let response = run(&fixture.summarizer()).await.unwrap();
    assert_eq!(
        response,
        SummaryResponse {
            text: "not streamed".to_owned(),
            usage: SummaryUsage { input_tokens: 10, output_tokens: 3, ..SummaryUsage::default() },
            truncated: false,
            requests: 1,
        }
    );
}

/// A reply the model ended at the output limit (OpenAI `finish_reason: "length"`, Anthropic
/// `stop_reason: "max_tokens"`) is reported as truncated, streamed or sent whole; a normal
/// stop is not.
async fn output_limit_stop_is_reported_as_truncated(kind: ProviderKind) {
    let fixture = Fixture::start(kind).await;
    let mut streamed = fixture.opening(&["## Goal\n", "Rename parse_cut to"]);
    streamed.extend(match kind {
        ProviderKind::OpenAi => vec![
            openai_event(&json!({
                "id": "chatcmpl-1", "choices": [{"index": 0, "delta": {}, "finish_reason": "length"}]
            })),
            openai_event(&json!({
                "id": "chatcmpl-1", "choices": [],
                "usage": {"prompt_tokens": 1200, "completion_tokens": 1234, "total_tokens": 2434}
            })),
            "data: [DONE]\n\n".to_owned(),
        ],
        ProviderKind::Anthropic => vec![
            anthropic_event("content_block_stop", &json!({"type": "content_block_stop", "index": 0})),
            anthropic_event(
                "message_delta",
                &json!({
                    "type": "message_delta",
                    "delta": {"stop_reason": "max_tokens", "stop_sequence": null},
                    "usage": {"output_tokens": 1234}
                }),
            ),
            anthropic_event("message_stop", &json!({"type": "message_stop"})),
        ],
    });
    fixture.server.push(Reply::stream(streamed));
    let whole = match kind {
        ProviderKind::OpenAi => json!({
            "id": "chatcmpl-2", "object": "chat.completion",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": "## Goal\nRename"}, "finish_reason": "length"}],
            "usage": {"prompt_tokens": 10, "completion_tokens": 1234}
        }),
        ProviderKind::Anthropic => json!({
            "id": "msg_2", "type": "message", "role": "assistant",
            "content": [{"type": "text", "text": "## Goal\nRename"}],
            "stop_reason": "max_tokens", "usage": {"input_tokens": 10, "output_tokens": 1234}
        }),
    };
    fixture.server.push(Reply::status(200, whole.to_string()));
    fixture.server.push(fixture.success(&["complete"]));
    let summarizer = fixture.summarizer();
    let streamed = run(&summarizer).await.unwrap();
    assert_eq!(
        (streamed.text.as_str(), streamed.truncated),
        ("## Goal\nRename parse_cut to", true)
    );
    let whole = run(&summarizer).await.unwrap();
    assert_eq!((whole.text.as_str(), whole.truncated), ("## Goal\nRename", true));
    let complete = run(&summarizer).await.unwrap();
    assert!(!complete.truncated);
    // A truncated reply is an answer, not a transport failure: the client does not resend.
    assert_eq!(fixture.server.requests().len(), 3);
}
