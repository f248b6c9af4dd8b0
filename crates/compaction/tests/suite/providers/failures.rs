//! How each provider's client fails: rate limits and retries, server errors, streams cut
//! before or after output, malformed events, empty output, timeouts, overflow, cancellation,
//! refused connections, error events; never with the key in the message.

use std::time::Instant;

use pretty_assertions::assert_eq;

use super::super::mock_server::StreamEnd;
use super::*;

both_providers!(
    rate_limited_then_succeeds,
    server_error_exhausts_retries,
    a_summary_cut_after_output_is_retried_but_chat_text_shown_is_not,
    stream_cut_before_output_is_retried,
    malformed_sse_fails,
    empty_output_fails,
    idle_timeout_fails,
    context_overflow_is_classified,
    api_key_never_in_errors,
    cancellation_is_prompt,
    connection_refused_fails,
    error_event_in_stream,
    no_response_headers_times_out,
    a_redirect_to_another_host_never_receives_the_key,
    a_password_in_the_base_url_is_never_printed,
    a_huge_reply_is_refused_without_being_buffered,
);

async fn rate_limited_then_succeeds(kind: ProviderKind) {
    let fixture = Fixture::start(kind).await;
    fixture.server.push(
        Reply::status(
            429,
            r#"{"error":{"message":"Rate limit reached, please retry","type":"rate_limit_error"}}"#,
        )
        .header("retry-after", "0.05"),
    );
    fixture.server.push(fixture.success(&["after the wait"]));
    // A backoff of 10 s would time the test out: only Retry-After keeps it fast.
    let mut config = fixture.config();
    config.retry_base_delay = Duration::from_secs(10);
    config.max_retry_delay = Duration::from_secs(10);
    let events = Arc::new(Mutex::new(Vec::new()));
    let sink = Arc::clone(&events);
    let progress = move |event: SummaryProgress| sink.lock().unwrap().push(event);
    let started = Instant::now();
    let response = fixture
        .summarizer_with(config)
        .summarize(&request(), &CancellationToken::new(), &progress)
        .await
        .unwrap();
    assert!(started.elapsed() < Duration::from_secs(3));
    assert_eq!(response.text, "after the wait");
    assert_eq!(fixture.server.requests().len(), 2);
    let retries: Vec<SummaryProgress> = events
        .lock()
        .unwrap()
        .iter()
        .filter(|event| matches!(event, SummaryProgress::Retrying { .. }))
        .cloned()
        .collect();
    assert_eq!(
        retries,
        vec![SummaryProgress::Retrying {
            attempt: 1,
            delay: Duration::from_millis(50),
            reason: "HTTP 429: Rate limit reached, please retry".to_owned()
        }]
    );
}

async fn server_error_exhausts_retries(kind: ProviderKind) {
    let fixture = Fixture::start(kind).await;
    fixture.server.always(Reply::status(
        500,
        r#"{"error":{"message":"Internal server error","type":"api_error"}}"#,
    ));
    let mut config = fixture.config();
    config.max_retries = 2;
    let error = fixture
        .summarizer_with(config)
        .summarize(&request(), &CancellationToken::new(), &ignore_progress)
        .await
        .unwrap_err();
    assert!(
        matches!(&error, SummarizerError::Http { status: 500, message, attempts: 3, .. } if message == "Internal server error"),
        "{error:?}"
    );
    assert!(error.to_string().contains("after 3 attempts"), "{error}");
    assert!(error.is_retryable());
    assert_eq!(fixture.server.requests().len(), 3);
}

/// A summary's text is only counted while it streams, so a stream cut after some of it is
/// retried like one cut before (bounded by the retries); a chat reply's text was handed to the
/// caller as it came, so it is not restarted silently.
async fn a_summary_cut_after_output_is_retried_but_chat_text_shown_is_not(kind: ProviderKind) {
    let fixture = Fixture::start(kind).await;
    let cut = Reply::stream(fixture.opening(&["partial ", "summary"])).ending(StreamEnd::Abort);
    fixture.server.push(cut.clone());
    fixture.server.push(fixture.success(&["whole summary"]));
    let response = run(&fixture.summarizer()).await.unwrap();
    assert_eq!(response.text, "whole summary");
    assert_eq!(response.requests, 2);
    assert_eq!(fixture.server.requests().len(), 2);

    fixture.server.always(cut);
    let client = fixture.summarizer().client().clone();
    let messages = [compaction::provider::ChatMessage::user("hi")];
    let chat = compaction::provider::ChatRequest {
        system: "",
        messages: &messages,
        max_output_tokens: 50,
    };
    let error = client.chat(&chat, &CancellationToken::new(), &|_| {}).await.unwrap_err();
    assert!(
        matches!(error, SummarizerError::Stream { malformed: false, attempts: 1, .. }),
        "{error:?}"
    );
    assert_eq!(fixture.server.requests().len(), 3);
}

async fn stream_cut_before_output_is_retried(kind: ProviderKind) {
    let fixture = Fixture::start(kind).await;
    let mut first = fixture.opening(&[]);
    first.truncate(1);
    // Ends cleanly but early: no finish reason, no [DONE] / message_stop.
    fixture.server.push(Reply::stream(first));
    fixture.server.push(fixture.success(&["second try"]));
    let response = run(&fixture.summarizer()).await.unwrap();
    assert_eq!(response.text, "second try");
    assert_eq!(fixture.server.requests().len(), 2);
}

async fn malformed_sse_fails(kind: ProviderKind) {
    let fixture = Fixture::start(kind).await;
    let mut chunks = fixture.opening(&["fine so far"]);
    chunks.push("data: {\"choices\": [{\"delta\": \n\n".to_owned());
    chunks.extend(fixture.closing());
    fixture.server.always(Reply::stream(chunks));
    let error = run(&fixture.summarizer()).await.unwrap_err();
    assert!(
        matches!(error, SummarizerError::Stream { malformed: true, attempts: 1, .. }),
        "{error:?}"
    );
    assert!(!error.is_retryable());
}

async fn empty_output_fails(kind: ProviderKind) {
    let fixture = Fixture::start(kind).await;
    fixture.server.always(fixture.success(&[" ", "\n"]));
    let error = run(&fixture.summarizer()).await.unwrap_err();
    assert!(matches!(error, SummarizerError::EmptyOutput { attempts: 1, .. }), "{error:?}");
}

async fn idle_timeout_fails(kind: ProviderKind) {
    let fixture = Fixture::start(kind).await;
    // Headers and the stream's opening event arrive, then nothing.
    let mut opening = fixture.opening(&[]);
    opening.truncate(1);
    fixture.server.always(Reply::stream(opening).ending(StreamEnd::Stall));
    let mut config = fixture.config();
    config.idle_timeout = Duration::from_millis(150);
    config.max_retries = 1;
    let started = Instant::now();
    let error = fixture
        .summarizer_with(config)
        .summarize(&request(), &CancellationToken::new(), &ignore_progress)
        .await
        .unwrap_err();
    assert!(
        matches!(&error, SummarizerError::Timeout { attempts: 2, message, .. } if message.contains("no data")),
        "{error:?}"
    );
    assert!(started.elapsed() < Duration::from_secs(2));
    assert!(error.to_string().contains("after 2 attempts"), "{error}");
}

async fn context_overflow_is_classified(kind: ProviderKind) {
    let fixture = Fixture::start(kind).await;
    let bodies: &[&str] = match kind {
        ProviderKind::OpenAi => &[
            r#"{"error":{"message":"This model's maximum context length is 8192 tokens. However, your messages resulted in 9000 tokens.","type":"invalid_request_error","param":"messages","code":"context_length_exceeded"}}"#,
            r#"{"error":{"code":400,"message":"the request exceeds the available context size, try increasing it","type":"exceed_context_size_error","n_prompt_tokens":9000,"n_ctx":8192}}"#,
        ],
        ProviderKind::Anthropic => &[
            r#"{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 208310 tokens > 200000 maximum"},"request_id":"req_1"}"#,
        ],
    };
    for body in bodies {
        fixture.server.push(Reply::status(400, *body));
        let error = run(&fixture.summarizer()).await.unwrap_err();
        assert!(
            matches!(&error, SummarizerError::ContextOverflow { attempts: 1, message, .. } if !message.contains('{')),
            "{error:?}"
        );
        assert!(!error.is_retryable());
    }
    assert_eq!(fixture.server.requests().len(), bodies.len());
}

async fn api_key_never_in_errors(kind: ProviderKind) {
    let fixture = Fixture::start(kind).await;
    let echo = format!(
        r#"{{"error":{{"message":"Incorrect API key provided: {KEY}. You can find your API key at https://example.invalid.","type":"invalid_request_error","code":"invalid_api_key"}}}}"#
    );
    fixture.server.push(Reply::status(401, echo.clone()));
    let error = run(&fixture.summarizer()).await.unwrap_err();
    assert!(
        matches!(&error, SummarizerError::Http { status: 401, attempts: 1, message, .. } if message.contains("[REDACTED]")),
        "{error:?}"
    );
    assert_no_key(&error);
    // Echoed in a retried status and inside a stream error too.
    fixture.server.always(Reply::status(503, echo));
    let error = run(&fixture.summarizer()).await.unwrap_err();
    assert!(matches!(error, SummarizerError::Http { status: 503, attempts: 4, .. }), "{error:?}");
    assert_no_key(&error);
    let mut chunks = fixture.opening(&["x"]);
    chunks.push(format!(
        "event: error\ndata: {{\"type\":\"error\",\"error\":{{\"type\":\"invalid_request_error\",\"message\":\"bad key {KEY}\"}}}}\n\n"
    ));
    fixture.server.always(Reply::stream(chunks));
    let error = run(&fixture.summarizer()).await.unwrap_err();
    assert!(matches!(error, SummarizerError::Provider { .. }), "{error:?}");
    assert_no_key(&error);
    // The configuration and the client never show it either.
    let summarizer = fixture.summarizer();
    assert!(!format!("{summarizer:?}").contains(KEY));
}

async fn cancellation_is_prompt(kind: ProviderKind) {
    let fixture = Fixture::start(kind).await;
    fixture.server.always(Reply::stream(fixture.opening(&["thinking…"])).ending(StreamEnd::Stall));
    let cancel = CancellationToken::new();
    let trigger = cancel.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(100)).await;
        trigger.cancel();
    });
    let started = Instant::now();
    let error =
        fixture.summarizer().summarize(&request(), &cancel, &ignore_progress).await.unwrap_err();
    assert!(matches!(error, SummarizerError::Cancelled { attempts: 1, .. }), "{error:?}");
    assert!(started.elapsed() < Duration::from_secs(1));

    // Cancelling during a retry wait is prompt too.
    fixture.server.always(Reply::status(503, "busy").header("retry-after", "30"));
    let mut config = fixture.config();
    config.max_retry_delay = Duration::from_secs(30);
    let cancel = CancellationToken::new();
    let trigger = cancel.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(100)).await;
        trigger.cancel();
    });
    let started = Instant::now();
    let error = fixture
        .summarizer_with(config)
        .summarize(&request(), &cancel, &ignore_progress)
        .await
        .unwrap_err();
    assert!(matches!(error, SummarizerError::Cancelled { attempts: 1, .. }), "{error:?}");
    assert!(started.elapsed() < Duration::from_secs(1));
}

async fn connection_refused_fails(kind: ProviderKind) {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let address = listener.local_addr().unwrap();
    drop(listener);
    let fixture = Fixture::start(kind).await;
    let mut config = fixture.config();
    config.base_url = Some(format!("http://{address}"));
    config.max_retries = 1;
    let error = fixture
        .summarizer_with(config)
        .summarize(&request(), &CancellationToken::new(), &ignore_progress)
        .await
        .unwrap_err();
    assert!(matches!(error, SummarizerError::Connect { attempts: 2, .. }), "{error:?}");
    assert!(error.is_retryable());
    assert_no_key(&error);
}

async fn error_event_in_stream(kind: ProviderKind) {
    let fixture = Fixture::start(kind).await;
    let mut chunks = fixture.opening(&[]);
    chunks.push(match kind {
        ProviderKind::OpenAi => openai_event(&json!({
            "error": {"message": "The server is overloaded", "type": "server_error", "code": null}
        })),
        ProviderKind::Anthropic => anthropic_event(
            "error",
            &json!({
                "type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}
            }),
        ),
    });
    fixture.server.push(Reply::stream(chunks));
    fixture.server.push(fixture.success(&["recovered"]));
    let response = run(&fixture.summarizer()).await.unwrap();
    assert_eq!(response.text, "recovered");
    assert_eq!(fixture.server.requests().len(), 2);
}

async fn no_response_headers_times_out(kind: ProviderKind) {
    let fixture = Fixture::start(kind).await;
    fixture.server.always(Reply::Hang);
    let mut config = fixture.config();
    config.idle_timeout = Duration::from_millis(100);
    config.max_retries = 1;
    let error = fixture
        .summarizer_with(config)
        .summarize(&request(), &CancellationToken::new(), &ignore_progress)
        .await
        .unwrap_err();
    assert!(
        matches!(&error, SummarizerError::Timeout { attempts: 2, message, .. } if message.contains("no response")),
        "{error:?}"
    );
}

async fn a_redirect_to_another_host_never_receives_the_key(kind: ProviderKind) {
    let fixture = Fixture::start(kind).await;
    let elsewhere = MockServer::start().await;
    elsewhere.always(fixture.success(&["stolen"]));
    // `localhost` and `127.0.0.1` are different origins, as are two ports.
    let target = format!("{}/v1/messages", elsewhere.url());
    fixture.server.always(Reply::status(307, "").header("location", &target));
    let mut config = fixture.config();
    config.max_retries = 2;
    let error = fixture
        .summarizer_with(config)
        .summarize(&request(), &CancellationToken::new(), &ignore_progress)
        .await
        .unwrap_err();
    assert!(format!("{error}").contains("redirect"), "{error}");
    assert_no_key(&error);
    for seen in elsewhere.requests() {
        assert!(
            !seen.headers.values().any(|value| value.contains(KEY)),
            "the key reached the other host: {:?}",
            seen.headers
        );
    }
    assert!(elsewhere.requests().is_empty(), "the request was sent to the other host");
    assert!(!fixture.server.requests().is_empty());
}

async fn a_password_in_the_base_url_is_never_printed(kind: ProviderKind) {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let address = listener.local_addr().unwrap();
    drop(listener);
    let fixture = Fixture::start(kind).await;
    let mut config = fixture.config();
    config.base_url = Some(format!("http://admin:Pw-in-url-4417@{address}"));
    config.max_retries = 0;
    let error = fixture
        .summarizer_with(config.clone())
        .summarize(&request(), &CancellationToken::new(), &ignore_progress)
        .await
        .unwrap_err();
    let shown = format!("{error} / {error:?}");
    assert!(!shown.contains("Pw-in-url-4417"), "password printed: {shown}");
    // An invalid base URL is quoted without its password too.
    config.base_url = Some("ftp://admin:Pw-in-url-4417@host".to_owned());
    let error = ProviderClient::new(config, ApiKey::new(KEY)).err().unwrap();
    let shown = format!("{error} / {error:?}");
    assert!(!shown.contains("Pw-in-url-4417"), "password printed: {shown}");
    assert_eq!(
        compaction::provider::hide_url_passwords("see http://u:p4ss@h:1/x and https://h/y"),
        "see http://u:[REDACTED]@h:1/x and https://h/y"
    );
}

async fn a_huge_reply_is_refused_without_being_buffered(kind: ProviderKind) {
    let fixture = Fixture::start(kind).await;
    let mut config = fixture.config();
    config.max_retries = 0;
    let huge = format!("{{\"x\":\"{}\"}}", "a".repeat(40 * 1024 * 1024));
    // A whole JSON reply over the cap.
    fixture.server.push(Reply::status(200, huge.clone()));
    let error = fixture
        .summarizer_with(config.clone())
        .summarize(&request(), &CancellationToken::new(), &ignore_progress)
        .await
        .unwrap_err();
    assert!(format!("{error}").contains("larger than 32 MiB"), "{error}");
    // An error body over the cap: the status is reported from the start of the body.
    fixture.server.push(Reply::status(400, huge));
    let error = fixture
        .summarizer_with(config.clone())
        .summarize(&request(), &CancellationToken::new(), &ignore_progress)
        .await
        .unwrap_err();
    assert!(matches!(error, SummarizerError::Http { status: 400, .. }), "{error:?}");
    assert!(format!("{error}").len() < 4096, "the whole body was kept");
    // A stream over the cap.
    let chunk = format!(": {}\n", "b".repeat(1024 * 1024));
    fixture.server.push(Reply::stream(vec![chunk; 40]));
    let error = fixture
        .summarizer_with(config)
        .summarize(&request(), &CancellationToken::new(), &ignore_progress)
        .await
        .unwrap_err();
    assert!(format!("{error}").contains("larger than 32 MiB"), "{error}");
}
