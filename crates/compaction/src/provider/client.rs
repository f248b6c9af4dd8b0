//! The streaming HTTP client: builds the request body and headers for the provider, sends
//! it, decodes the server-sent events, and retries what may be retried within the policy.

use std::time::{Duration, Instant};

use reqwest::header::{ACCEPT, CONTENT_TYPE, HeaderMap, HeaderValue};
use tokio_util::sync::CancellationToken;

use super::sse::{SseEvent, SseParser};
use crate::error::SummarizerError;
use crate::summarizer::{SummaryProgress, SummaryResponse, SummaryUsage};

use super::config::is_loopback;
use super::response::Decoder;
use super::*;

/// A streaming client for one provider and model. Cheap to clone (the HTTP connection pool
/// is shared).
#[derive(Debug, Clone)]
pub struct ProviderClient {
    http: reqwest::Client,
    config: ProviderConfig,
    api_key: ApiKey,
    endpoint: String,
    /// The usage of every reply received, those discarded included (shared by clones).
    received: std::sync::Arc<std::sync::Mutex<SummaryUsage>>,
    /// A window a reply revealed by being cut short of its output limit (see
    /// [`ProviderClient::take_revealed_window`]).
    revealed: std::sync::Arc<std::sync::Mutex<Option<u64>>>,
}

impl ProviderClient {
    /// A client using `api_key`; fails with [`SummarizerError::Config`] on an invalid base
    /// URL or key characters that cannot go in a header.
    pub fn new(config: ProviderConfig, api_key: ApiKey) -> Result<Self, SummarizerError> {
        let base = config.effective_base_url();
        let url = reqwest::Url::parse(base).map_err(|error| SummarizerError::Config {
            message: format!(
                "base URL {:?} is not a valid URL: {error}",
                super::config::hide_url_passwords(base)
            ),
        })?;
        if url.scheme() != "http" && url.scheme() != "https" {
            return Err(SummarizerError::Config {
                message: format!(
                    "base URL {:?} must use http or https",
                    super::config::hide_url_passwords(base)
                ),
            });
        }
        if HeaderValue::from_str(api_key.expose()).is_err() {
            return Err(SummarizerError::Config {
                message: format!(
                    "the API key in {} holds characters not allowed in an HTTP header",
                    config.api_key_var()
                ),
            });
        }
        let endpoint = match config.kind {
            ProviderKind::OpenAi => format!("{base}/chat/completions"),
            ProviderKind::Anthropic => format!("{base}/v1/messages"),
        };
        // Redirects are followed only on the endpoint's own origin: reqwest drops
        // `Authorization` on a redirect to another host, but not `x-api-key`, so a redirect
        // elsewhere is refused instead (the key never leaves for a host the user did not name).
        let origin = url.clone();
        let redirects = reqwest::redirect::Policy::custom(move |attempt| {
            if attempt.previous().len() >= 5 {
                attempt.error("too many redirects")
            } else if super::config::same_origin(&origin, attempt.url()) {
                attempt.follow()
            } else {
                let to = super::config::hide_url_passwords(attempt.url().as_str());
                attempt.error(format!(
                    "refused a redirect to another origin ({to}): the API key is only sent \
                     to the base URL's host"
                ))
            }
        });
        let http = reqwest::Client::builder()
            .redirect(redirects)
            .connect_timeout(config.connect_timeout)
            .user_agent(concat!("compaction/", env!("CARGO_PKG_VERSION")))
            .build()
            .map_err(|error| SummarizerError::Config {
                message: format!("could not build the HTTP client: {error}"),
            })?;
        Ok(Self {
            http,
            config,
            api_key,
            endpoint,
            received: Default::default(),
            revealed: Default::default(),
        })
    }

    /// A client whose key is read from the configured environment variable. A server on
    /// this machine (`localhost`, `127.0.0.0/8`, `::1`: llama.cpp, vLLM, Ollama) may do
    /// without one: an unset variable then sends no key instead of failing.
    pub fn from_env(config: ProviderConfig) -> Result<Self, SummarizerError> {
        let api_key = match ApiKey::from_env(config.api_key_var()) {
            Err(SummarizerError::MissingApiKey { .. }) if is_loopback(&config) => ApiKey::new(""),
            other => other?,
        };
        Self::new(config, api_key)
    }

    /// The configuration this client was built from.
    pub fn config(&self) -> &ProviderConfig {
        &self.config
    }

    /// The usage of every reply this client (and its clones) received so far: replies that
    /// were discarded (empty, cut off, an overflow check) count too.
    pub fn usage_received(&self) -> SummaryUsage {
        self.received.lock().map(|usage| *usage).unwrap_or_default()
    }

    /// The window the last reply cut at the output limit revealed, once: a server that
    /// lowers a request's output limit to the room its window leaves (llama.cpp's servers
    /// do) stops at `prompt + generated` tokens, short of the limit asked for. `None` when
    /// no reply showed it.
    pub fn take_revealed_window(&self) -> Option<u64> {
        self.revealed.lock().ok().and_then(|mut revealed| revealed.take())
    }

    fn record(&self, completed: &Completed) -> SummaryUsage {
        let usage = completed.measured_usage();
        if let Ok(mut received) = self.received.lock() {
            *received += usage;
        }
        usage
    }

    /// The URL requests are posted to.
    pub fn endpoint(&self) -> &str {
        &self.endpoint
    }

    /// Streams one completion, retrying transient failures (429, 5xx, connection errors,
    /// timeouts, cut streams) with backoff until the bounded number of attempts is used, as
    /// long as no text has been streamed yet. Cancelling `cancel` ends it promptly with
    /// [`SummarizerError::Cancelled`].
    pub async fn complete(
        &self,
        request: &CompletionRequest<'_>,
        cancel: &CancellationToken,
        progress: &(dyn Fn(SummaryProgress) + Send + Sync),
    ) -> Result<SummaryResponse, SummarizerError> {
        let body = self.request_body(request);
        self.stream(&body, false, cancel, progress, &|_text: &str| {}).await
    }

    /// Streams a chat completion over a message list, handing each piece of reply text to
    /// `on_text` as it arrives. Retries, cancellation and error classification are those of
    /// [`ProviderClient::complete`]: a request the model's window cannot hold fails with
    /// [`SummarizerError::ContextOverflow`], and nothing is retried once text was streamed.
    pub async fn chat(
        &self,
        request: &ChatRequest<'_>,
        cancel: &CancellationToken,
        on_text: &(dyn Fn(&str) + Send + Sync),
    ) -> Result<SummaryResponse, SummarizerError> {
        let body = match self.config.kind {
            ProviderKind::OpenAi => openai::chat_body(
                &self.config.model,
                self.config.effective_max_tokens_field(),
                request.system,
                request.messages,
                request.max_output_tokens,
            ),
            ProviderKind::Anthropic => anthropic::chat_body(
                &self.config.model,
                request.system,
                request.messages,
                request.max_output_tokens,
            ),
        };
        self.stream(&body, true, cancel, &crate::summarizer::ignore_progress, on_text).await
    }

    /// Sends `body` with retries, streaming the reply text to `on_text`. With
    /// `text_reaches_caller`, an attempt that already handed text to `on_text` is never
    /// retried (the caller has shown it); otherwise (summaries, whose text is only counted)
    /// a cut or incomplete reply is retried like any transient failure.
    ///
    /// An empty `200` stream (OpenAI-compatible servers) is checked at once by the same
    /// request unstreamed with an output limit of 1 token: llama-cpp-python answers that
    /// with its `400 context_length_exceeded` (naming its window) when the request is too
    /// large, which becomes [`SummarizerError::ContextOverflow`]; a request that fits is
    /// retried as usual. The check is a request too: the response's `requests` counts it.
    async fn stream(
        &self,
        body: &serde_json::Value,
        text_reaches_caller: bool,
        cancel: &CancellationToken,
        progress: &(dyn Fn(SummaryProgress) + Send + Sync),
        on_text: &(dyn Fn(&str) + Send + Sync),
    ) -> Result<SummaryResponse, SummarizerError> {
        let policy = self.config.retry_policy();
        let started = Instant::now();
        let mut attempt: u32 = 0;
        let mut requests: u32 = 0;
        // Usage of attempts whose answer was discarded (an empty reply): spent all the same.
        let mut spent = SummaryUsage::default();
        let mut checked_overflow = false;
        loop {
            attempt += 1;
            requests += 1;
            progress(SummaryProgress::Started { attempt });
            let mut delivered = false;
            let outcome = tokio::select! {
                biased;
                () = cancel.cancelled() => {
                    return Err(SummarizerError::Cancelled { attempts: requests, elapsed: started.elapsed() });
                }
                outcome = self.attempt(body, &mut delivered, progress, on_text) => outcome,
            };
            let failure = match outcome {
                Ok(completed) if completed.text.trim().is_empty() => {
                    spent += self.record(&completed);
                    Failure::Empty
                }
                Ok(completed) => {
                    let mut usage = spent + self.record(&completed);
                    if completed.truncated && self.config.kind == ProviderKind::OpenAi {
                        let (window, probe) = self.window_of_cut(body, &completed, cancel).await;
                        if let Some(probe) = probe {
                            requests += 1;
                            usage += probe;
                        }
                        if let (Some(window), Ok(mut revealed)) = (window, self.revealed.lock()) {
                            *revealed = Some(window);
                        }
                    }
                    return Ok(SummaryResponse {
                        text: completed.text.trim().to_owned(),
                        usage,
                        truncated: completed.truncated,
                        requests,
                    });
                }
                Err(failure) => failure,
            };
            if matches!(failure, Failure::EmptyStream)
                && self.config.kind == ProviderKind::OpenAi
                && !checked_overflow
            {
                checked_overflow = true;
                progress(SummaryProgress::Retrying {
                    attempt,
                    delay: Duration::ZERO,
                    reason: format!(
                        "{}; checking with the same request unstreamed",
                        failure.reason()
                    ),
                });
                // llama-cpp-python closes the connection after an empty stream: a check sent
                // on that pooled connection can fail before it reaches the server, and is
                // then sent once more on a new one.
                for _ in 0..2 {
                    requests += 1;
                    let check = tokio::select! {
                        biased;
                        () = cancel.cancelled() => {
                            return Err(SummarizerError::Cancelled { attempts: requests, elapsed: started.elapsed() });
                        }
                        check = self.overflow_check(body) => check,
                    };
                    match check {
                        Err(overflow @ Failure::Overflow(..)) => {
                            return Err(overflow.into_error(
                                &self.api_key,
                                requests,
                                started.elapsed(),
                            ));
                        }
                        Ok(completed) => {
                            spent += self.record(&completed);
                            break;
                        }
                        Err(Failure::Connect(_) | Failure::Cut(_)) => {}
                        // Not an overflow: the empty stream is retried as a cut one.
                        Err(_other) => break,
                    }
                }
            }
            let retry_delivered = delivered && text_reaches_caller;
            if retry_delivered || !failure.is_retryable() || !policy.allows_retry_after(attempt) {
                return Err(failure.into_error(&self.api_key, requests, started.elapsed()));
            }
            let delay = policy.delay(attempt, failure.retry_after());
            progress(SummaryProgress::Retrying {
                attempt,
                delay,
                reason: classify::scrub(&failure.reason(), &self.api_key),
            });
            tokio::select! {
                biased;
                () = cancel.cancelled() => {
                    return Err(SummarizerError::Cancelled { attempts: requests, elapsed: started.elapsed() });
                }
                () = tokio::time::sleep(delay) => {}
            }
        }
    }

    /// The window a reply cut at the output limit reveals: when it holds fewer tokens than
    /// `body` asked for, the server lowered the limit to the room its window left, so the
    /// window is the prompt's tokens and the reply's. The reply's tokens are its reported
    /// usage, else its stream events (one per token from llama.cpp's servers); the prompt's
    /// are its reported usage, else asked for with the same request unstreamed with an
    /// output limit of one token (whose usage is returned: it was a request too).
    async fn window_of_cut(
        &self,
        body: &serde_json::Value,
        completed: &Completed,
        cancel: &CancellationToken,
    ) -> (Option<u64>, Option<SummaryUsage>) {
        let asked = ["max_tokens", "max_completion_tokens"]
            .iter()
            .find_map(|field| body.get(*field).and_then(serde_json::Value::as_u64));
        let generated =
            if completed.usage_reported { completed.usage.output_tokens } else { completed.pieces };
        // The count must be one of tokens: at most `MAX_CHARS_PER_TOKEN` characters each (a
        // server whose events carry many tokens each, or whose usage does not count this
        // reply, says nothing about its window).
        let chars = completed.text.chars().count() as u64;
        let counted = generated > 0 && chars <= generated.saturating_mul(MAX_CHARS_PER_TOKEN);
        if !self.asks_for_window() || !counted || asked.is_none_or(|asked| generated >= asked) {
            return (None, None);
        }
        if completed.usage_reported {
            let prompt = completed.usage.input_tokens + completed.usage.cache_read_tokens;
            return ((prompt > 0).then_some(prompt + generated), None);
        }
        let probe = tokio::select! {
            biased;
            () = cancel.cancelled() => return (None, None),
            probe = self.overflow_check(body) => probe,
        };
        match probe {
            Ok(probe) => {
                let usage = self.record(&probe);
                let prompt = probe.usage.input_tokens + probe.usage.cache_read_tokens;
                let window = (probe.usage_reported && prompt > 0).then_some(prompt + generated);
                (window, Some(usage))
            }
            // The request reached the server all the same.
            Err(_failure) => (None, Some(SummaryUsage::default())),
        }
    }

    /// The request in `body` sent unstreamed with an output limit of one token: an overflow
    /// comes back as [`Failure::Overflow`] (llama-cpp-python names its window there), a
    /// request that fits as a (one-token) completion.
    async fn overflow_check(&self, body: &serde_json::Value) -> Result<Completed, Failure> {
        let mut check = body.clone();
        if let Some(object) = check.as_object_mut() {
            object.insert("stream".to_owned(), serde_json::Value::Bool(false));
            object.remove("stream_options");
            for field in ["max_tokens", "max_completion_tokens"] {
                if object.contains_key(field) {
                    object.insert(field.to_owned(), serde_json::Value::from(1));
                }
            }
        }
        let mut ignored = false;
        let nothing = |_: SummaryProgress| {};
        self.attempt(&check, &mut ignored, &nothing, &|_: &str| {}).await
    }

    fn request_body(&self, request: &CompletionRequest<'_>) -> serde_json::Value {
        match self.config.kind {
            ProviderKind::OpenAi => openai::request_body(
                &self.config.model,
                self.config.effective_max_tokens_field(),
                request.system,
                request.user,
                request.max_output_tokens,
            ),
            ProviderKind::Anthropic => anthropic::request_body(
                &self.config.model,
                request.system,
                request.user,
                request.max_output_tokens,
            ),
        }
    }

    /// The shared HTTP client.
    pub(super) fn http(&self) -> &reqwest::Client {
        &self.http
    }

    /// Whether the server is on this machine (`localhost`, `127.0.0.0/8`, `::1`).
    pub fn is_local(&self) -> bool {
        is_loopback(&self.config)
    }

    pub(super) fn headers(&self) -> HeaderMap {
        // No key (a local server, see `from_env`): no credential header at all.
        let has_key = !self.api_key.expose().is_empty();
        let mut headers = HeaderMap::new();
        headers.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
        headers.insert(ACCEPT, HeaderValue::from_static("text/event-stream"));
        // Checked in `new`; an invalid value cannot occur here, but fall back to nothing.
        let secret = |prefix: &str| {
            let value = has_key.then(|| format!("{prefix}{}", self.api_key.expose()))?;
            HeaderValue::from_str(&value).ok().map(|mut value| {
                value.set_sensitive(true);
                value
            })
        };
        match self.config.kind {
            ProviderKind::OpenAi => {
                if let Some(value) = secret("Bearer ") {
                    headers.insert(reqwest::header::AUTHORIZATION, value);
                }
            }
            ProviderKind::Anthropic => {
                if let Some(value) = secret("") {
                    headers.insert("x-api-key", value);
                }
                headers
                    .insert("anthropic-version", HeaderValue::from_static(anthropic::API_VERSION));
            }
        }
        headers
    }

    /// One request: send, check the status, decode the stream. Sets `delivered` once summary
    /// text has been reported to `progress`.
    async fn attempt(
        &self,
        body: &serde_json::Value,
        delivered: &mut bool,
        progress: &(dyn Fn(SummaryProgress) + Send + Sync),
        on_text: &(dyn Fn(&str) + Send + Sync),
    ) -> Result<Completed, Failure> {
        let idle = self.config.idle_timeout;
        let send = self.http.post(&self.endpoint).headers(self.headers()).json(body).send();
        let mut response = match tokio::time::timeout(idle, send).await {
            Err(_elapsed) => {
                return Err(Failure::Timeout(format!("no response within {}", seconds(idle))));
            }
            Ok(Err(error)) => return Err(transport_failure(&error)),
            Ok(Ok(response)) => response,
        };
        let status = response.status();
        if !status.is_success() {
            let retry_after = retry::retry_after(response.headers());
            // Only the start of an error body is read: its message is cut to 1,000
            // characters anyway, and a huge body must not be buffered.
            let text = match read_capped(&mut response, MAX_ERROR_BODY_BYTES, idle).await {
                Ok((bytes, _)) => String::from_utf8_lossy(&bytes).into_owned(),
                Err(_) => String::new(),
            };
            let message = classify::error_message(&text);
            if classify::is_context_overflow(Some(status.as_u16()), &text) {
                return Err(Failure::Overflow(message, classify::overflow_window(&text)));
            }
            return Err(Failure::Status { status: status.as_u16(), message, retry_after });
        }
        if is_json(response.headers()) {
            // The server ignored `stream: true` and sent the whole message at once.
            let (bytes, complete) = read_capped(&mut response, MAX_BODY_BYTES, idle).await?;
            if !complete {
                return Err(Failure::Malformed(format!(
                    "the response body is larger than {} MiB; refused without reading the rest",
                    MAX_BODY_BYTES / (1024 * 1024)
                )));
            }
            let text = String::from_utf8_lossy(&bytes).into_owned();
            let completed = match self.config.kind {
                ProviderKind::OpenAi => openai::parse_whole(&text)?,
                ProviderKind::Anthropic => anthropic::parse_whole(&text)?,
            };
            let chars = completed.text.chars().count();
            if chars > 0 {
                *delivered = true;
                on_text(&completed.text);
                progress(SummaryProgress::Output {
                    chars,
                    estimated_tokens: (chars as u64).div_ceil(4),
                });
            }
            return Ok(completed);
        }
        let mut parser = SseParser::new();
        let mut decoder = Decoder::new(self.config.kind);
        let mut chars = 0_usize;
        let mut handle = |decoder: &mut Decoder, event: &SseEvent| -> Result<(), Failure> {
            let added = decoder.on_event(event, on_text)?;
            if added > 0 {
                chars += added;
                *delivered = true;
                progress(SummaryProgress::Output {
                    chars,
                    estimated_tokens: (chars as u64).div_ceil(4),
                });
            }
            Ok(())
        };
        let mut received = 0_usize;
        loop {
            let chunk = match tokio::time::timeout(idle, response.chunk()).await {
                Err(_elapsed) => {
                    return Err(Failure::Timeout(format!(
                        "no data from the provider for {}",
                        seconds(idle)
                    )));
                }
                Ok(Err(error)) => {
                    return Err(Failure::Cut(format!(
                        "the stream broke off: {}",
                        error_chain(&error)
                    )));
                }
                Ok(Ok(None)) => break,
                Ok(Ok(Some(chunk))) => chunk,
            };
            received += chunk.len();
            if received as u64 > MAX_BODY_BYTES {
                return Err(Failure::Malformed(format!(
                    "the stream is larger than {} MiB; refused without reading the rest",
                    MAX_BODY_BYTES / (1024 * 1024)
                )));
            }
            for event in parser.push(&chunk) {
                handle(&mut decoder, &event)?;
                if decoder.is_done() {
                    return decoder.finish();
                }
            }
        }
        if let Some(event) = parser.finish() {
            // An event the stream ended in the middle of: a cut, not a server bug.
            handle(&mut decoder, &event).map_err(|failure| match failure {
                Failure::Malformed(message) => {
                    Failure::Cut(format!("the stream ended in the middle of an event ({message})"))
                }
                other @ (Failure::Status { .. }
                | Failure::Provider { .. }
                | Failure::Overflow(..)
                | Failure::Connect(_)
                | Failure::Timeout(_)
                | Failure::Cut(_)
                | Failure::Incomplete(_)
                | Failure::EmptyStream
                | Failure::Empty) => other,
            })?;
        }
        decoder.finish()
    }
}

/// Whether a response is a plain JSON document rather than an event stream.
fn is_json(headers: &HeaderMap) -> bool {
    headers
        .get(CONTENT_TYPE)
        .and_then(|value| value.to_str().ok())
        .is_some_and(|value| value.trim_start().starts_with("application/json"))
}

/// The most characters a token of reply text holds, on average, for a count to be one of
/// tokens (tokenizers make 3 to 5 characters of English or code a token).
const MAX_CHARS_PER_TOKEN: u64 = 10;

/// The most of a reply (a whole JSON body, or a stream) that is read: a summary is at
/// most tens of kilobytes, so more is a broken or hostile server.
pub const MAX_BODY_BYTES: u64 = 32 * 1024 * 1024;

/// The most of an error body that is read (its message is cut to 1,000 characters).
pub const MAX_ERROR_BODY_BYTES: u64 = 64 * 1024;

/// Reads the body chunk by chunk, at most `cap` bytes; returns them and whether the body
/// ended within the cap (the rest is never read into memory).
async fn read_capped(
    response: &mut reqwest::Response,
    cap: u64,
    idle: Duration,
) -> Result<(Vec<u8>, bool), Failure> {
    let mut bytes = Vec::new();
    loop {
        match tokio::time::timeout(idle, response.chunk()).await {
            Err(_elapsed) => {
                return Err(Failure::Timeout(format!(
                    "the response body did not arrive within {}",
                    seconds(idle)
                )));
            }
            Ok(Err(error)) => {
                return Err(Failure::Cut(format!(
                    "the response body broke off: {}",
                    error_chain(&error)
                )));
            }
            Ok(Ok(None)) => return Ok((bytes, true)),
            Ok(Ok(Some(chunk))) => {
                let room = usize::try_from(cap).unwrap_or(usize::MAX).saturating_sub(bytes.len());
                if chunk.len() > room {
                    bytes.extend_from_slice(&chunk[..room]);
                    return Ok((bytes, false));
                }
                bytes.extend_from_slice(&chunk);
            }
        }
    }
}

/// Classifies an error from sending a request.
fn transport_failure(error: &reqwest::Error) -> Failure {
    let message = error_chain(error);
    if error.is_timeout() { Failure::Timeout(message) } else { Failure::Connect(message) }
}

/// An error and its sources, joined with ": " (reqwest's own message alone says little).
fn error_chain(error: &(dyn std::error::Error + 'static)) -> String {
    let text = error_chain_text(error);
    super::config::hide_url_passwords(&text)
}

fn error_chain_text(error: &(dyn std::error::Error + 'static)) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        let cause_text = cause.to_string();
        if !text.contains(&cause_text) {
            text.push_str(": ");
            text.push_str(&cause_text);
        }
        source = cause.source();
    }
    text
}

fn seconds(duration: Duration) -> String {
    format!("{:.1}s", duration.as_secs_f64())
}
