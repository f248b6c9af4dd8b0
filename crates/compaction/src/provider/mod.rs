//! LLM provider clients: a thin streaming client over `reqwest` for OpenAI-compatible Chat
//! Completions and the Anthropic Messages API, and [`LlmSummarizer`] on top of it.
//!
//! Invariants: the API key is read from the environment only, lives in [`ApiKey`] (whose
//! `Debug`/`Display` print `[REDACTED]`) and is scrubbed from every provider message before
//! it lands in an error; a request is attempted at most `1 + max_retries` times, and never
//! retried once summary text has been streamed to the caller.

mod anthropic;
pub mod classify;
mod openai;
pub mod retry;
pub mod sse;

use std::fmt;
use std::str::FromStr;
use std::time::{Duration, Instant};

use futures_util::future::BoxFuture;
use reqwest::header::{ACCEPT, CONTENT_TYPE, HeaderMap, HeaderValue};
use serde::{Deserialize, Serialize};
use tokio_util::sync::CancellationToken;

use crate::error::{SummarizerError, is_retryable_status};
use crate::summarizer::{
    Summarizer, SummaryProgress, SummaryRequest, SummaryResponse, SummaryUsage, render_user_prompt,
};
use retry::RetryPolicy;
use sse::{SseEvent, SseParser};

/// Which wire protocol a provider speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum ProviderKind {
    /// OpenAI Chat Completions, and compatible servers (llama.cpp, vLLM, Ollama, OpenRouter…).
    #[serde(rename = "openai")]
    OpenAi,
    /// Anthropic Messages API.
    #[serde(rename = "anthropic")]
    Anthropic,
}

impl ProviderKind {
    /// Name used in settings and labels: `openai` or `anthropic`.
    pub fn name(self) -> &'static str {
        match self {
            ProviderKind::OpenAi => "openai",
            ProviderKind::Anthropic => "anthropic",
        }
    }

    /// Environment variable holding the API key unless configured otherwise.
    pub fn default_api_key_env(self) -> &'static str {
        match self {
            ProviderKind::OpenAi => "OPENAI_API_KEY",
            ProviderKind::Anthropic => "ANTHROPIC_API_KEY",
        }
    }

    /// Base URL unless configured otherwise.
    pub fn default_base_url(self) -> &'static str {
        match self {
            ProviderKind::OpenAi => "https://api.openai.com/v1",
            ProviderKind::Anthropic => "https://api.anthropic.com",
        }
    }
}

impl fmt::Display for ProviderKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for ProviderKind {
    type Err = SummarizerError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        match text.trim().to_ascii_lowercase().as_str() {
            "openai" | "openai-compatible" | "openai-completions" => Ok(ProviderKind::OpenAi),
            "anthropic" => Ok(ProviderKind::Anthropic),
            _ => Err(SummarizerError::Config {
                message: format!("unknown provider {text:?} (expected openai or anthropic)"),
            }),
        }
    }
}

/// Which request field carries the output-token limit for OpenAI-compatible servers.
///
/// OpenAI's own API wants `max_completion_tokens` (its reasoning models reject
/// `max_tokens`); local and third-party compatible servers (llama.cpp, vLLM, Ollama) have
/// long accepted `max_tokens`, and some accept nothing else. The default therefore depends on
/// the server: `max_completion_tokens` for api.openai.com, `max_tokens` for any other base URL.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MaxTokensField {
    /// `max_completion_tokens`.
    MaxCompletionTokens,
    /// `max_tokens`.
    MaxTokens,
}

/// How to reach a provider. Built once from settings; see [`ProviderConfig::new`] for the
/// defaults.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct ProviderConfig {
    /// Wire protocol.
    pub kind: ProviderKind,
    /// Model that writes summaries.
    pub model: String,
    /// Base URL; `None` = [`ProviderKind::default_base_url`].
    pub base_url: Option<String>,
    /// Name of the environment variable holding the API key; `None` =
    /// [`ProviderKind::default_api_key_env`].
    pub api_key_env: Option<String>,
    /// Longest wait for a TCP/TLS connection.
    pub connect_timeout: Duration,
    /// Longest time without any byte from the server (response headers or stream data).
    pub idle_timeout: Duration,
    /// Retries after the first attempt on transient failures.
    pub max_retries: u32,
    /// Delay before the first retry; doubled for each further retry, with jitter.
    pub retry_base_delay: Duration,
    /// Longest delay between attempts, including one asked for by `Retry-After`.
    pub max_retry_delay: Duration,
    /// OpenAI-compatible only: output limit field; `None` = chosen from the base URL.
    pub max_tokens_field: Option<MaxTokensField>,
}

impl ProviderConfig {
    /// Defaults: connect timeout 10 s, idle timeout 120 s, 3 retries starting at 1 s, delays
    /// capped at 60 s, default base URL and key variable.
    pub fn new(kind: ProviderKind, model: impl Into<String>) -> Self {
        Self {
            kind,
            model: model.into(),
            base_url: None,
            api_key_env: None,
            connect_timeout: Duration::from_secs(10),
            idle_timeout: Duration::from_secs(120),
            max_retries: 3,
            retry_base_delay: Duration::from_secs(1),
            max_retry_delay: Duration::from_secs(60),
            max_tokens_field: None,
        }
    }

    /// The environment variable the API key is read from.
    pub fn api_key_var(&self) -> &str {
        self.api_key_env.as_deref().unwrap_or(self.kind.default_api_key_env())
    }

    /// The base URL requests go to, without trailing slash.
    pub fn effective_base_url(&self) -> &str {
        self.base_url.as_deref().unwrap_or(self.kind.default_base_url()).trim_end_matches('/')
    }

    /// The output limit field used for OpenAI-compatible requests.
    pub fn effective_max_tokens_field(&self) -> MaxTokensField {
        if let Some(field) = self.max_tokens_field {
            return field;
        }
        let official = reqwest::Url::parse(self.effective_base_url())
            .ok()
            .and_then(|url| url.host_str().map(|host| host == "api.openai.com"))
            .unwrap_or(false);
        if official { MaxTokensField::MaxCompletionTokens } else { MaxTokensField::MaxTokens }
    }

    fn retry_policy(&self) -> RetryPolicy {
        RetryPolicy {
            max_retries: self.max_retries,
            base_delay: self.retry_base_delay,
            max_delay: self.max_retry_delay,
        }
    }
}

/// Whether the configured base URL names this machine.
fn is_loopback(config: &ProviderConfig) -> bool {
    let Ok(url) = reqwest::Url::parse(config.effective_base_url()) else { return false };
    let Some(host) = url.host_str() else { return false };
    // IPv6 hosts come bracketed (`[::1]`).
    match host.trim_start_matches('[').trim_end_matches(']').parse::<std::net::IpAddr>() {
        Ok(address) => address.is_loopback(),
        Err(_) => host.eq_ignore_ascii_case("localhost"),
    }
}

/// An API key. `Debug` and `Display` print `[REDACTED]`; only [`ApiKey::expose`] gives the
/// value, for the request header.
#[derive(Clone, PartialEq, Eq)]
pub struct ApiKey(String);

impl ApiKey {
    /// Wraps a key value.
    pub fn new(value: impl Into<String>) -> Self {
        Self(value.into())
    }

    /// Reads the key from environment variable `var`; unset, empty or non-Unicode is
    /// [`SummarizerError::MissingApiKey`] (naming the variable, never a value).
    pub fn from_env(var: &str) -> Result<Self, SummarizerError> {
        match std::env::var(var) {
            Ok(value) if !value.trim().is_empty() => Ok(Self(value.trim().to_owned())),
            Ok(_) | Err(_) => Err(SummarizerError::MissingApiKey { var: var.to_owned() }),
        }
    }

    /// The secret value.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for ApiKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("[REDACTED]")
    }
}

impl fmt::Display for ApiKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("[REDACTED]")
    }
}

/// One completion to stream: system prompt, user message, output limit.
#[derive(Debug, Clone, Copy)]
pub struct CompletionRequest<'a> {
    /// System prompt.
    pub system: &'a str,
    /// The single user message.
    pub user: &'a str,
    /// Output token limit.
    pub max_output_tokens: u32,
}

/// Who wrote a message of a chat request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ChatRole {
    /// The user (or anything the agent feeds back, such as tool output).
    User,
    /// The model.
    Assistant,
}

impl ChatRole {
    /// The wire name: `user` or `assistant` (the same for both protocols).
    pub fn name(self) -> &'static str {
        match self {
            ChatRole::User => "user",
            ChatRole::Assistant => "assistant",
        }
    }
}

/// One plain-text message of a chat request.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChatMessage {
    /// `user` or `assistant`.
    pub role: ChatRole,
    /// The message text.
    pub content: String,
}

impl ChatMessage {
    /// A user message.
    pub fn user(content: impl Into<String>) -> Self {
        Self { role: ChatRole::User, content: content.into() }
    }

    /// An assistant message.
    pub fn assistant(content: impl Into<String>) -> Self {
        Self { role: ChatRole::Assistant, content: content.into() }
    }
}

/// A chat completion to stream: system prompt (may be empty), the conversation, output
/// limit.
#[derive(Debug, Clone, Copy)]
pub struct ChatRequest<'a> {
    /// System prompt; empty for none.
    pub system: &'a str,
    /// The conversation so far, oldest first.
    pub messages: &'a [ChatMessage],
    /// Output token limit.
    pub max_output_tokens: u32,
}

/// A successfully decoded response, before the empty-output check.
#[derive(Debug)]
pub(crate) struct Completed {
    pub(crate) text: String,
    pub(crate) usage: SummaryUsage,
    pub(crate) truncated: bool,
}

/// Why one attempt failed (before attempts and elapsed time are attached).
#[derive(Debug)]
pub(crate) enum Failure {
    /// Non-success HTTP status that is not a context overflow.
    Status { status: u16, message: String, retry_after: Option<Duration> },
    /// Error reported inside the stream.
    Provider { error_type: String, message: String, retryable: bool },
    /// Request does not fit the context window.
    Overflow(String),
    /// Could not connect / send.
    Connect(String),
    /// No bytes for too long.
    Timeout(String),
    /// Stream broke or ended early.
    Cut(String),
    /// Stream held data we could not parse.
    Malformed(String),
    /// Model wrote nothing.
    Empty,
}

impl Failure {
    fn is_retryable(&self) -> bool {
        match self {
            Failure::Status { status, .. } => is_retryable_status(*status),
            Failure::Provider { retryable, .. } => *retryable,
            Failure::Connect(_) | Failure::Timeout(_) | Failure::Cut(_) => true,
            Failure::Overflow(_) | Failure::Malformed(_) | Failure::Empty => false,
        }
    }

    fn retry_after(&self) -> Option<Duration> {
        match self {
            Failure::Status { retry_after, .. } => *retry_after,
            Failure::Provider { .. }
            | Failure::Overflow(_)
            | Failure::Connect(_)
            | Failure::Timeout(_)
            | Failure::Cut(_)
            | Failure::Malformed(_)
            | Failure::Empty => None,
        }
    }

    /// Short description for progress reports (already scrubbed text).
    fn reason(&self) -> String {
        match self {
            Failure::Status { status, message, .. } => format!("HTTP {status}: {message}"),
            Failure::Provider { error_type, message, .. } => format!("{error_type}: {message}"),
            Failure::Overflow(message)
            | Failure::Connect(message)
            | Failure::Timeout(message)
            | Failure::Cut(message)
            | Failure::Malformed(message) => message.clone(),
            Failure::Empty => "empty output".to_owned(),
        }
    }

    fn into_error(self, key: &ApiKey, attempts: u32, elapsed: Duration) -> SummarizerError {
        let clean = |text: String| classify::scrub(&text, key);
        match self {
            Failure::Status { status, message, .. } => {
                SummarizerError::Http { status, message: clean(message), attempts, elapsed }
            }
            Failure::Provider { error_type, message, retryable } => SummarizerError::Provider {
                error_type: clean(error_type),
                message: clean(message),
                retryable,
                attempts,
                elapsed,
            },
            Failure::Overflow(message) => {
                SummarizerError::ContextOverflow { message: clean(message), attempts, elapsed }
            }
            Failure::Connect(message) => {
                SummarizerError::Connect { message: clean(message), attempts, elapsed }
            }
            Failure::Timeout(message) => {
                SummarizerError::Timeout { message: clean(message), attempts, elapsed }
            }
            Failure::Cut(message) => SummarizerError::Stream {
                message: clean(message),
                malformed: false,
                attempts,
                elapsed,
            },
            Failure::Malformed(message) => SummarizerError::Stream {
                message: clean(message),
                malformed: true,
                attempts,
                elapsed,
            },
            Failure::Empty => SummarizerError::EmptyOutput { attempts, elapsed },
        }
    }
}

/// Decoder for the configured protocol.
enum Decoder {
    OpenAi(openai::Decoder),
    Anthropic(anthropic::Decoder),
}

impl Decoder {
    fn new(kind: ProviderKind) -> Self {
        match kind {
            ProviderKind::OpenAi => Decoder::OpenAi(openai::Decoder::default()),
            ProviderKind::Anthropic => Decoder::Anthropic(anthropic::Decoder::default()),
        }
    }

    /// Characters of text the event added; the text itself goes to `on_text`.
    fn on_event(
        &mut self,
        event: &SseEvent,
        on_text: &(dyn Fn(&str) + Send + Sync),
    ) -> Result<usize, Failure> {
        let added = match self {
            Decoder::OpenAi(decoder) => decoder.on_event(event)?,
            Decoder::Anthropic(decoder) => decoder.on_event(event)?,
        };
        if !added.is_empty() {
            on_text(added);
        }
        Ok(added.chars().count())
    }

    fn is_done(&self) -> bool {
        match self {
            Decoder::OpenAi(decoder) => decoder.is_done(),
            Decoder::Anthropic(decoder) => decoder.is_done(),
        }
    }

    fn finish(self) -> Result<Completed, Failure> {
        match self {
            Decoder::OpenAi(decoder) => decoder.finish(),
            Decoder::Anthropic(decoder) => decoder.finish(),
        }
    }
}

/// A streaming client for one provider and model. Cheap to clone (the HTTP connection pool
/// is shared).
#[derive(Debug, Clone)]
pub struct ProviderClient {
    http: reqwest::Client,
    config: ProviderConfig,
    api_key: ApiKey,
    endpoint: String,
}

impl ProviderClient {
    /// A client using `api_key`; fails with [`SummarizerError::Config`] on an invalid base
    /// URL or key characters that cannot go in a header.
    pub fn new(config: ProviderConfig, api_key: ApiKey) -> Result<Self, SummarizerError> {
        let base = config.effective_base_url();
        let url = reqwest::Url::parse(base).map_err(|error| SummarizerError::Config {
            message: format!("base URL {base:?} is not a valid URL: {error}"),
        })?;
        if url.scheme() != "http" && url.scheme() != "https" {
            return Err(SummarizerError::Config {
                message: format!("base URL {base:?} must use http or https"),
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
        let http = reqwest::Client::builder()
            .connect_timeout(config.connect_timeout)
            .user_agent(concat!("compaction/", env!("CARGO_PKG_VERSION")))
            .build()
            .map_err(|error| SummarizerError::Config {
                message: format!("could not build the HTTP client: {error}"),
            })?;
        Ok(Self { http, config, api_key, endpoint })
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
        self.stream(&body, cancel, progress, &|_text: &str| {}).await
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
        self.stream(&body, cancel, &crate::summarizer::ignore_progress, on_text).await
    }

    /// Sends `body` with retries, streaming the reply text to `on_text`.
    async fn stream(
        &self,
        body: &serde_json::Value,
        cancel: &CancellationToken,
        progress: &(dyn Fn(SummaryProgress) + Send + Sync),
        on_text: &(dyn Fn(&str) + Send + Sync),
    ) -> Result<SummaryResponse, SummarizerError> {
        let policy = self.config.retry_policy();
        let started = Instant::now();
        let mut attempt: u32 = 0;
        loop {
            attempt += 1;
            progress(SummaryProgress::Started { attempt });
            let mut delivered = false;
            let outcome = tokio::select! {
                biased;
                () = cancel.cancelled() => {
                    return Err(SummarizerError::Cancelled { attempts: attempt, elapsed: started.elapsed() });
                }
                outcome = self.attempt(body, &mut delivered, progress, on_text) => outcome,
            };
            let failure = match outcome {
                Ok(completed) if completed.text.trim().is_empty() => Failure::Empty,
                Ok(completed) => {
                    return Ok(SummaryResponse {
                        text: completed.text.trim().to_owned(),
                        usage: completed.usage,
                        truncated: completed.truncated,
                    });
                }
                Err(failure) => failure,
            };
            if delivered || !failure.is_retryable() || !policy.allows_retry_after(attempt) {
                return Err(failure.into_error(&self.api_key, attempt, started.elapsed()));
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
                    return Err(SummarizerError::Cancelled { attempts: attempt, elapsed: started.elapsed() });
                }
                () = tokio::time::sleep(delay) => {}
            }
        }
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

    fn headers(&self) -> HeaderMap {
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
            let text = match tokio::time::timeout(idle, response.text()).await {
                Ok(Ok(text)) => text,
                Ok(Err(_)) | Err(_) => String::new(),
            };
            let message = classify::error_message(&text);
            if classify::is_context_overflow(Some(status.as_u16()), &text) {
                return Err(Failure::Overflow(message));
            }
            return Err(Failure::Status { status: status.as_u16(), message, retry_after });
        }
        if is_json(response.headers()) {
            // The server ignored `stream: true` and sent the whole message at once.
            let text = match tokio::time::timeout(idle, response.text()).await {
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
                Ok(Ok(text)) => text,
            };
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
                | Failure::Overflow(_)
                | Failure::Connect(_)
                | Failure::Timeout(_)
                | Failure::Cut(_)
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

/// Classifies an error from sending a request.
fn transport_failure(error: &reqwest::Error) -> Failure {
    let message = error_chain(error);
    if error.is_timeout() { Failure::Timeout(message) } else { Failure::Connect(message) }
}

/// An error and its sources, joined with ": " (reqwest's own message alone says little).
fn error_chain(error: &(dyn std::error::Error + 'static)) -> String {
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

/// A [`Summarizer`] that asks an LLM through a [`ProviderClient`].
#[derive(Debug, Clone)]
pub struct LlmSummarizer {
    client: ProviderClient,
    context_window: u64,
}

impl LlmSummarizer {
    /// Summarizes with `client` (its model is the summary model).
    pub fn new(client: ProviderClient) -> Self {
        Self { client, context_window: DEFAULT_SUMMARY_WINDOW }
    }

    /// Sets the summary model's context window (requests are split to fit it).
    pub fn with_context_window(mut self, tokens: u64) -> Self {
        self.context_window = tokens;
        self
    }

    /// Builds the client from `config`, reading the API key from the environment.
    pub fn from_config(config: ProviderConfig) -> Result<Self, SummarizerError> {
        Ok(Self::new(ProviderClient::from_env(config)?))
    }

    /// The underlying client.
    pub fn client(&self) -> &ProviderClient {
        &self.client
    }
}

impl Summarizer for LlmSummarizer {
    fn summarize<'a>(
        &'a self,
        request: &'a SummaryRequest,
        cancel: &'a CancellationToken,
        progress: &'a (dyn Fn(SummaryProgress) + Send + Sync),
    ) -> BoxFuture<'a, Result<SummaryResponse, SummarizerError>> {
        Box::pin(async move {
            let user = render_user_prompt(request);
            let completion = CompletionRequest {
                system: &request.system_prompt,
                user: &user,
                max_output_tokens: request.max_output_tokens,
            };
            self.client.complete(&completion, cancel, progress).await
        })
    }

    fn label(&self) -> String {
        let config = self.client.config();
        format!("{}/{}", config.kind, config.model)
    }

    fn context_window(&self) -> Option<u64> {
        Some(self.context_window)
    }

    fn max_output_tokens(&self) -> Option<u64> {
        compaction_core::models::model_limits(&self.client.config().model)
            .map(|limits| limits.max_output_tokens)
    }
}

/// The summary model's window when nothing better is known.
pub const DEFAULT_SUMMARY_WINDOW: u64 = 128_000;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn api_key_never_prints() {
        let key = ApiKey::new("sk-visible");
        assert_eq!(format!("{key} {key:?}"), "[REDACTED] [REDACTED]");
        let client = ProviderClient::new(ProviderConfig::new(ProviderKind::OpenAi, "m"), key);
        assert!(client.is_ok_and(|client| !format!("{client:?}").contains("sk-visible")));
    }

    #[test]
    fn missing_key_names_the_variable() {
        let error = ApiKey::from_env("COMPACTION_TEST_SURELY_UNSET_VARIABLE");
        assert_eq!(
            error.err().map(|error| error.to_string()),
            Some(
                "API key missing: environment variable COMPACTION_TEST_SURELY_UNSET_VARIABLE is not set (or is empty)"
                    .to_owned()
            )
        );
    }

    #[test]
    fn max_tokens_field_defaults_by_server() {
        let mut config = ProviderConfig::new(ProviderKind::OpenAi, "m");
        assert_eq!(config.effective_max_tokens_field(), MaxTokensField::MaxCompletionTokens);
        config.base_url = Some("http://127.0.0.1:8080/v1/".into());
        assert_eq!(config.effective_max_tokens_field(), MaxTokensField::MaxTokens);
        assert_eq!(config.effective_base_url(), "http://127.0.0.1:8080/v1");
        config.max_tokens_field = Some(MaxTokensField::MaxCompletionTokens);
        assert_eq!(config.effective_max_tokens_field(), MaxTokensField::MaxCompletionTokens);
    }

    #[test]
    fn endpoints() {
        let mut config = ProviderConfig::new(ProviderKind::Anthropic, "m");
        let client = ProviderClient::new(config.clone(), ApiKey::new("k"));
        assert_eq!(
            client.ok().map(|client| client.endpoint().to_owned()),
            Some("https://api.anthropic.com/v1/messages".to_owned())
        );
        config.base_url = Some("ftp://x".into());
        assert!(matches!(
            ProviderClient::new(config, ApiKey::new("k")),
            Err(SummarizerError::Config { .. })
        ));
    }
}
