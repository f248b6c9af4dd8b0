//! The OpenAI client against the bytes a real llama-cpp-python 0.3.36 server sent
//! (`tests/wire/llama-cpp-python-0.3.36/`), replayed by [`ReplayServer`]: finished replies,
//! replies cut off at the output limit, streams that ended without a finish reason
//! (interrupted by a second request, or by a shutdown), empty `200` streams for requests
//! over the window, the window named only in the unstreamed `400`, no usage, and no window
//! in `/v1/models` or `/props`.

use std::time::Duration;

use compaction::error::SummarizerError;
use compaction::provider::{ApiKey, LlmSummarizer, ProviderClient, ProviderConfig, ProviderKind};
use compaction::summarizer::{Summarizer, SummaryKind, SummaryRequest, ignore_progress};
use pretty_assertions::assert_eq;
use tokio_util::sync::CancellationToken;

use super::super::mock_server::{MockServer, Reply};
use super::super::wire_replay::{Answer, Chunked, ReplayServer, response, stream_of};

const CAPTURED_MODEL: &str = "gemma3-270m";

fn config(url: &str) -> ProviderConfig {
    let mut config = ProviderConfig::new(ProviderKind::OpenAi, CAPTURED_MODEL);
    config.base_url = Some(format!("{url}/v1"));
    config.connect_timeout = Duration::from_secs(2);
    config.idle_timeout = Duration::from_secs(5);
    config.max_retries = 3;
    config.retry_base_delay = Duration::from_millis(1);
    config.max_retry_delay = Duration::from_millis(20);
    config
}

/// The summarizer a local-model user configures: no key, a base URL on this machine.
pub fn local_summarizer(url: &str) -> LlmSummarizer {
    LlmSummarizer::new(ProviderClient::new(config(url), ApiKey::new("")).unwrap())
}

async fn summarize(
    summarizer: &LlmSummarizer,
) -> Result<compaction::summarizer::SummaryResponse, SummarizerError> {
    let request = SummaryRequest::new(SummaryKind::History, "<user>\nhi\n</user>", 512);
    summarizer.summarize(&request, &CancellationToken::new(), &ignore_progress).await
}

/// The text of a recorded stream, joined from its content deltas.
fn recorded_text(name: &str, conn: u32, exchange: u32) -> String {
    let (bytes, _) = response(name, conn, exchange);
    Chunked::parse(&bytes)
        .frames
        .iter()
        .filter_map(|frame| serde_json::from_str::<serde_json::Value>(&Chunked::data(frame)).ok())
        .filter_map(|event| event["choices"][0]["delta"]["content"].as_str().map(str::to_owned))
        .collect()
}

/// `normal-stream.http` byte for byte: the whole reply is read, no usage came, so none is
/// claimed (the usage says one request went unreported and is not stored).
#[tokio::test]
async fn a_finished_stream_is_read_and_its_missing_usage_is_not_claimed() {
    let server =
        ReplayServer::start(false, |_, _| Answer::recorded("normal-stream.http", 4, 1, false))
            .await;
    let response = summarize(&local_summarizer(server.url())).await.unwrap();
    assert_eq!(response.text, recorded_text("normal-stream.http", 4, 1).trim());
    assert!(!response.truncated);
    assert_eq!(response.requests, 1);
    assert_eq!(response.usage.unreported_requests, 1);
    assert_eq!((response.usage.input_tokens, response.usage.output_tokens), (0, 0));
    assert_eq!(response.usage.stored(), None);
}

/// `concurrent-role-only.http`: a role chunk and `[DONE]`, no finish reason. That is no
/// reply: it is retried, and the finished reply that follows is the answer. Always cut, it
/// fails as a cut stream after every retry, never as an "empty summary".
#[tokio::test]
async fn a_stream_that_ends_without_a_finish_reason_is_retried_never_taken() {
    let server = ReplayServer::start(false, |n, _| match n {
        0 => Answer::recorded("concurrent-role-only.http", 1, 1, false),
        _ => Answer::recorded("normal-stream.http", 4, 1, false),
    })
    .await;
    let response = summarize(&local_summarizer(server.url())).await.unwrap();
    assert_eq!(response.text, recorded_text("normal-stream.http", 4, 1).trim());
    assert_eq!(response.requests, 2);
    assert_eq!(server.completions().len(), 2);

    let server = ReplayServer::start(false, |_, _| {
        Answer::recorded("concurrent-role-only.http", 1, 2, false)
    })
    .await;
    let error = summarize(&local_summarizer(server.url())).await.unwrap_err();
    assert!(
        matches!(&error, SummarizerError::Stream { malformed: false, attempts: 4, message, .. }
            if message.contains("no finish reason")),
        "{error:?}"
    );
    assert_eq!(server.completions().len(), 4);
}

/// A server shut down mid-reply: SIGINT ends the body after some text with no finish
/// reason, SIGKILL closes the connection inside the body. Both are retried; neither is
/// taken as a reply.
#[tokio::test]
async fn a_reply_cut_by_a_shutdown_is_retried() {
    for (name, conn) in
        [("killed-sigint-mid-stream.http", 1), ("killed-sigkill-mid-stream.http", 1)]
    {
        let server = ReplayServer::start(false, move |n, _| match n {
            0 => Answer::recorded(name, conn, 1, false),
            _ => Answer::recorded("normal-stream.http", 4, 1, false),
        })
        .await;
        let response = summarize(&local_summarizer(server.url())).await.unwrap();
        assert_eq!(response.requests, 2, "{name}");
        assert_eq!(response.text, recorded_text("normal-stream.http", 4, 1).trim(), "{name}");
    }
}

/// `over-window-stream.http` and `over-window-400.http`: the streamed request gets `200`
/// and an empty body; the client asks once more unstreamed, which gets the `400` naming the
/// window. The result is an overflow that names 4096, not three identical retries; the
/// summarizer uses the window from then on, and says where it came from.
#[tokio::test]
async fn an_empty_stream_is_checked_unstreamed_and_the_window_it_names_is_learned() {
    let server = ReplayServer::start(false, |_, seen| {
        if seen.streamed() {
            Answer::recorded("over-window-stream.http", 1, 1, true)
        } else {
            Answer::recorded("over-window-400.http", 2, 1, false)
        }
    })
    .await;
    let summarizer = local_summarizer(server.url()).with_context_window(131_072);
    let error = summarize(&summarizer).await.unwrap_err();
    assert!(
        matches!(&error, SummarizerError::ContextOverflow { window: Some(4096), attempts: 2, .. }),
        "{error:?}"
    );
    let sent = server.completions();
    assert_eq!(sent.len(), 2);
    assert!(sent[0].streamed() && !sent[1].streamed());
    // The check asks for one token only, so a request that fits costs no generation.
    assert_eq!(sent[1].body["max_tokens"], 1);
    assert!(sent[1].body.get("stream_options").is_none());
    assert_eq!(summarizer.window(), 4096);
    assert_eq!(
        summarizer.window_source().as_deref(),
        Some("from the server (its over-window answer)")
    );
    // Planned with the margin kept for a tokenizer we do not know.
    assert_eq!(summarizer.context_window(), Some(4096 - 409));
}

/// `killed-sigint-prompt-eval.http`: no event, the last chunk. The unstreamed check then
/// finds the request fits (`nonstream-completion.http`), so it is retried as a cut stream.
#[tokio::test]
async fn an_empty_stream_that_is_no_overflow_is_retried() {
    let server = ReplayServer::start(false, |n, seen| match (n, seen.streamed()) {
        (0, _) => Answer::recorded("killed-sigint-prompt-eval.http", 1, 1, true),
        (_, false) => Answer::recorded("nonstream-completion.http", 1, 1, false),
        (_, true) => Answer::recorded("normal-stream.http", 4, 1, false),
    })
    .await;
    let summarizer = local_summarizer(server.url());
    let response = summarize(&summarizer).await.unwrap();
    assert_eq!(response.text, recorded_text("normal-stream.http", 4, 1).trim());
    // The stream, the check, the stream again.
    assert_eq!(response.requests, 3);
    assert_eq!(server.completions().len(), 3);
    assert_eq!(summarizer.server_window(), None);
}

/// `length-cut.http`: 256 chunks, then `"finish_reason": "length"`: a reply cut off at the
/// output limit, reported as cut off (the orchestration asks again or fails; it never takes
/// it as complete).
#[tokio::test]
async fn a_reply_cut_at_the_output_limit_is_reported_as_cut_off() {
    let server =
        ReplayServer::start(false, |_, _| Answer::recorded("length-cut.http", 1, 1, true)).await;
    // Asked for the 256 tokens the recorded request asked for.
    let summarizer = local_summarizer(server.url());
    let request = SummaryRequest::new(SummaryKind::History, "<user>\nhi\n</user>", 256);
    let cancel = CancellationToken::new();
    let response = summarizer.summarize(&request, &cancel, &ignore_progress).await.unwrap();
    assert!(response.truncated);
    assert_eq!(response.text, recorded_text("length-cut.http", 1, 1).trim());
    assert_eq!(response.requests, 1);
    assert_eq!(summarizer.server_window(), None, "a reply that used its whole limit");
}

/// The same reply to a request that asked for 512 tokens stopped short of its limit: the
/// server lowered it to the room its window left, so the window is the prompt's tokens
/// (asked for once more unstreamed, whose usage tells them) and the reply's 256.
#[tokio::test]
async fn a_reply_cut_short_of_its_limit_reveals_the_window() {
    let server = ReplayServer::start(false, |n, _| match n {
        0 => Answer::recorded("length-cut.http", 1, 1, true),
        _ => Answer::recorded("nonstream-completion.http", 1, 1, false),
    })
    .await;
    let summarizer = local_summarizer(server.url());
    let response = summarize(&summarizer).await.unwrap();
    assert!(response.truncated);
    assert_eq!(response.requests, 2);
    assert_eq!(server.completions().len(), 2);
    let probe = &server.completions()[1];
    assert_eq!((probe.streamed(), probe.body["max_tokens"].as_u64()), (false, Some(1)));
    let (bytes, _) = unstreamed_body("nonstream-completion.http");
    let prompt =
        serde_json::from_slice::<serde_json::Value>(&bytes).unwrap()["usage"]["prompt_tokens"]
            .as_u64()
            .unwrap();
    assert_eq!(summarizer.server_window().map(|window| window.tokens), Some(prompt + 256));
}

/// The JSON body of a recorded unstreamed answer.
fn unstreamed_body(name: &str) -> (Vec<u8>, bool) {
    let (bytes, complete) = response(name, 1, 1);
    let start = bytes.windows(4).position(|w| w == b"\r\n\r\n").unwrap() + 4;
    (bytes[start..].to_vec(), complete)
}

/// `nonstream-completion.http`: a server that answers unstreamed is read whole; its usage
/// is reported, so it is measured.
#[tokio::test]
async fn an_unstreamed_answer_is_read_with_its_usage() {
    let server = ReplayServer::start(false, |_, _| {
        Answer::recorded("nonstream-completion.http", 1, 1, false)
    })
    .await;
    let response = summarize(&local_summarizer(server.url())).await.unwrap();
    assert!(response.truncated, "finish_reason length");
    assert!(response.text.starts_with("A. blue"));
    assert!(response.usage.is_measured());
    assert_eq!((response.usage.input_tokens, response.usage.output_tokens), (19, 40));
    assert!(response.usage.stored().is_some());
}

/// `models-and-props.http`: llama-cpp-python tells no window (`/props` is 404, `/v1/models`
/// has none, and `/api/show` is 404 like any unknown path): the configured window stays.
#[tokio::test]
async fn a_server_that_tells_no_window_keeps_the_configured_one() {
    let server = ReplayServer::start(false, |_, seen| match seen.path.as_str() {
        "/v1/models" => Answer::recorded("models-and-props.http", 1, 1, false),
        _ => Answer::recorded("models-and-props.http", 2, 1, false),
    })
    .await;
    let summarizer = local_summarizer(server.url()).with_context_window(32_768);
    assert_eq!(summarizer.discover_window(false).await, None);
    assert_eq!(summarizer.window(), 32_768);
    assert_eq!(summarizer.window_source(), None);
    let asked: Vec<String> =
        server.seen().iter().map(|seen| format!("{} {}", seen.method, seen.path)).collect();
    assert_eq!(asked, ["GET /props", "GET /v1/models", "POST /api/show"]);
}

/// Servers that tell their window are believed over the configured (table) one: llama.cpp's
/// `llama-server` (`/props`), vLLM (`/v1/models`) and Ollama (`/api/show` with `num_ctx`).
#[tokio::test]
async fn a_server_that_tells_its_window_is_believed() {
    let cases = [
        (
            "/props",
            serde_json::json!({"default_generation_settings": {"n_ctx": 8192}, "total_slots": 1}),
            8192,
            "GET /props (n_ctx)",
        ),
        (
            "/v1/models",
            serde_json::json!({"object": "list", "data": [{"id": CAPTURED_MODEL, "max_model_len": 16384}]}),
            16384,
            "GET /v1/models (max_model_len)",
        ),
        (
            "/api/show",
            serde_json::json!({"parameters": "num_ctx 4096\nstop \"<end_of_turn>\"", "model_info": {"gemma3.context_length": 32768}}),
            4096,
            "POST /api/show (num_ctx)",
        ),
    ];
    for (path, body, window, endpoint) in cases {
        let server = MockServer::start().await;
        let answer = body.to_string();
        server.answer_others(move |request| {
            if request.path == path {
                Reply::status(200, answer.clone())
            } else {
                Reply::status(404, "{\"detail\":\"Not Found\"}")
            }
        });
        let summarizer = local_summarizer(server.url()).with_context_window(131_072);
        let told = summarizer.discover_window(false).await.unwrap();
        assert_eq!((told.tokens, told.endpoint.as_str()), (window, endpoint));
        assert_eq!(summarizer.window(), window);
        assert_eq!(summarizer.window_source(), Some(format!("from the server ({endpoint})")));
    }
}

/// The replayed framing itself: a stream built for a test text parses back to the text, so
/// the orchestration tests that use it speak the recorded format.
#[tokio::test]
async fn a_built_stream_uses_the_recorded_framing() {
    let text = "## Goal\n- Fix the lexer ✓ «quotes»";
    let server = ReplayServer::start(false, move |_, _| Answer::Slot(stream_of(text))).await;
    let response = summarize(&local_summarizer(server.url())).await.unwrap();
    assert_eq!(response.text, text);
    let recorded = Chunked::parse(&response_bytes());
    assert!(recorded.last_chunk);
    let built = stream_of(text);
    assert_eq!(built.head, recorded.head);
    assert_eq!(built.frames[0], recorded.frames[0]);
    assert_eq!(built.frames.last(), recorded.frames.last());
}

fn response_bytes() -> Vec<u8> {
    response("normal-stream.http", 4, 1).0
}

/// llama-server's `/tokenize`: the server's count of a transcript sample against our
/// estimate sets the margin kept free (what the estimate falls short by, plus 3%); a server
/// without it (llama-cpp-python answers 404) keeps the default tenth.
#[tokio::test]
async fn the_servers_tokenizer_sets_the_margin_when_it_can_count() {
    let estimator = compaction_core::tokens::estimator_by_name("heuristic").unwrap();
    let sample =
        "<user>\nRename `parse_cut` in src/cut.rs and run cargo test.\n</user>\n".repeat(40);
    let estimated = estimator.text_tokens(&sample);
    let counted = estimated * 12 / 10;
    let server = MockServer::start().await;
    server.answer_others(move |request| match request.path.as_str() {
        "/props" => Reply::status(200, r#"{"default_generation_settings":{"n_ctx":8192}}"#),
        "/tokenize" => {
            let tokens: Vec<u64> = (0..counted).collect();
            Reply::status(200, serde_json::json!({ "tokens": tokens }).to_string())
        }
        _ => Reply::status(404, r#"{"detail":"Not Found"}"#),
    });
    let summarizer = local_summarizer(server.url());
    let note = summarizer.prepare(&sample, estimator.as_ref()).await.unwrap();
    let percent = (counted - estimated) * 100;
    let percent = percent.div_ceil(estimated) + 3;
    assert!(note.contains(&format!("keep {percent}% of the window free")), "{note}");
    assert_eq!(summarizer.context_window(), Some(8192 - 8192 * percent / 100));
    // Asked once: a second compaction does not ask again.
    assert_eq!(summarizer.prepare(&sample, estimator.as_ref()).await, None);

    let replay = ReplayServer::start(false, |_, seen| match seen.path.as_str() {
        "/v1/models" => Answer::recorded("models-and-props.http", 1, 1, false),
        _ => Answer::recorded("models-and-props.http", 2, 1, false),
    })
    .await;
    let summarizer = local_summarizer(replay.url()).with_context_window(8192);
    summarizer.prepare(&sample, estimator.as_ref()).await.unwrap();
    assert_eq!(summarizer.context_window(), Some(8192 - 819));
}

/// A server that answers every request with `200`, `head_extra` headers and then `body`
/// forever (chunked), counting the bytes it got out before the client hung up.
async fn endless_server(
    head_extra: &'static str,
    body: &'static [u8],
) -> (String, std::sync::Arc<std::sync::atomic::AtomicUsize>) {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let written = std::sync::Arc::new(AtomicUsize::new(0));
    let counter = std::sync::Arc::clone(&written);
    tokio::spawn(async move {
        while let Ok((mut socket, _)) = listener.accept().await {
            let counter = std::sync::Arc::clone(&counter);
            tokio::spawn(async move {
                let mut request = [0_u8; 65536];
                let _ = socket.read(&mut request).await;
                let head = format!(
                    "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n{head_extra}\r\n"
                );
                if socket.write_all(head.as_bytes()).await.is_err() {
                    return;
                }
                let start = b"{\"tokens\":[1";
                let _ = socket.write_all(format!("{:x}\r\n", start.len()).as_bytes()).await;
                let _ = socket.write_all(start).await;
                let _ = socket.write_all(b"\r\n").await;
                loop {
                    let chunk = format!("{:x}\r\n", body.len());
                    if socket.write_all(chunk.as_bytes()).await.is_err()
                        || socket.write_all(body).await.is_err()
                        || socket.write_all(b"\r\n").await.is_err()
                    {
                        return;
                    }
                    counter.fetch_add(body.len(), Ordering::SeqCst);
                }
            });
        }
    });
    (url, written)
}

/// Every discovery answer is bounded in size and time: an endless `/props`, `/v1/models`,
/// `/api/show` or `/tokenize` (a 60M-token count, a gigabyte of window) is not read past its
/// cap, counts as no answer, and the configured window and margin stay.
#[tokio::test]
async fn discovery_answers_are_bounded_in_size_and_time() {
    static BODY: [u8; 65536] = [b'1'; 65536];
    let (url, written) = endless_server("transfer-encoding: chunked\r\n", &BODY).await;
    let summarizer = local_summarizer(&url).with_context_window(8192);
    let estimator = compaction_core::tokens::estimator_by_name("heuristic").unwrap();
    let sample = "<user>\nRename `parse_cut` in src/cut.rs.\n</user>\n".repeat(100);
    let started = std::time::Instant::now();
    let note = summarizer.prepare(&sample, estimator.as_ref()).await.unwrap();
    // Four questions (`/props`, `/v1/models`, `/api/show`, `/tokenize`), each within its
    // three seconds and its cap.
    assert!(started.elapsed() < Duration::from_secs(12), "{:?}", started.elapsed());
    assert!(note.contains("8192 tokens as configured"), "{note}");
    assert_eq!(summarizer.context_window(), Some(8192 - 819));
    // What the server got out before the client hung up: the caps (1 MiB per answer, 12
    // bytes per sample byte for `/tokenize`) and what the socket buffers held.
    let sent = written.load(std::sync::atomic::Ordering::SeqCst);
    assert!(sent < 48 * 1024 * 1024, "{sent} bytes were sent");

    // A declared gigabyte is refused without reading it.
    let (url, written) = endless_server("content-length: 1073741824\r\n", &BODY).await;
    let summarizer = local_summarizer(&url).with_context_window(8192);
    let started = std::time::Instant::now();
    assert_eq!(summarizer.discover_window(false).await, None);
    assert!(started.elapsed() < Duration::from_secs(10));
    assert!(written.load(std::sync::atomic::Ordering::SeqCst) < 32 * 1024 * 1024);
}
