//! LLM provider clients: a thin streaming client over `reqwest` for OpenAI-compatible Chat
//! Completions and the Anthropic Messages API, and [`LlmSummarizer`] on top of it.
//!
//! Invariants: the API key is read from the environment only, lives in [`ApiKey`] (whose
//! `Debug`/`Display` print `[REDACTED]`) and is scrubbed from every provider message before
//! it lands in an error; a request is attempted at most `1 + max_retries` times, and never
//! retried once summary text has been streamed to the caller.
//!
//! Stages, one module each: `config` (provider, model, key), `request` and `response` (what
//! goes out and what comes back, with failures classified), `client` (the HTTP exchange and
//! its retries), `openai` and `anthropic` (each wire format), `sse`, `retry` and `classify`;
//! this module holds [`LlmSummarizer`].

mod anthropic;
pub mod classify;
mod client;
mod config;
mod openai;
mod request;
mod response;
pub mod retry;
pub mod sse;
mod window;

pub use client::ProviderClient;
pub use config::{ApiKey, MaxTokensField, ProviderConfig, ProviderKind, hide_url_passwords};
pub use request::{ChatMessage, ChatRequest, ChatRole, CompletionRequest};
pub(crate) use response::{Completed, Failure};
pub use window::ServerWindow;

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use futures_util::future::BoxFuture;
use tokio_util::sync::CancellationToken;

use crate::error::SummarizerError;
use crate::summarizer::{
    Summarizer, SummaryProgress, SummaryRequest, SummaryResponse, render_user_prompt,
};

/// A [`Summarizer`] that asks an LLM through a [`ProviderClient`].
///
/// Its window is the configured one until the server says otherwise: asked with
/// [`LlmSummarizer::discover_window`], or learned from an over-window answer that names the
/// server's window; the smaller wins, and [`LlmSummarizer::window_source`] says where it came
/// from. Requests are planned against the window less [`UNKNOWN_TOKENIZER_MARGIN`] when the
/// server's tokenizer is unknown (any server but the OpenAI and Anthropic APIs).
#[derive(Debug, Clone)]
pub struct LlmSummarizer {
    client: ProviderClient,
    context_window: u64,
    concurrency: Option<usize>,
    /// The window the server reported or revealed, with where it came from.
    server_window: Arc<Mutex<Option<ServerWindow>>>,
    /// Requests sent so far, retries and checks included.
    sent: Arc<AtomicU64>,
    /// Whether the configured window was set by the user (a larger server window does not
    /// replace it).
    window_explicit: bool,
    /// Whether the server was asked for its window already.
    asked: Arc<AtomicBool>,
    /// Percent of the window kept free for a server whose tokenizer is unknown:
    /// [`UNKNOWN_TOKENIZER_MARGIN_PERCENT`], or what the server's `/tokenize` measured.
    margin_percent: Arc<AtomicU64>,
}

impl LlmSummarizer {
    /// Summarizes with `client` (its model is the summary model).
    pub fn new(client: ProviderClient) -> Self {
        Self {
            client,
            context_window: DEFAULT_SUMMARY_WINDOW,
            concurrency: None,
            server_window: Arc::new(Mutex::new(None)),
            sent: Arc::new(AtomicU64::new(0)),
            window_explicit: false,
            asked: Arc::new(AtomicBool::new(false)),
            margin_percent: Arc::new(AtomicU64::new(UNKNOWN_TOKENIZER_MARGIN_PERCENT)),
        }
    }

    /// Sets the summary model's context window (requests are split to fit it).
    pub fn with_context_window(mut self, tokens: u64) -> Self {
        self.context_window = tokens;
        self
    }

    /// Marks the configured window as the user's own: a server window larger than it is
    /// reported but not used (see [`LlmSummarizer::discover_window`]).
    pub fn with_explicit_window(mut self, explicit: bool) -> Self {
        self.window_explicit = explicit;
        self
    }

    /// What the window in effect is and where it came from, once the server was asked
    /// ([`Summarizer::prepare`]): `8192 tokens, from the server (GET /props (n_ctx))`.
    pub fn window_note(&self, told: Option<&ServerWindow>) -> String {
        match (told, self.window_source()) {
            (_, Some(source)) => format!("{} tokens, {source}", self.window()),
            (Some(told), None) => format!(
                "{} tokens as configured (the server says {} at {}; the smaller configured \
                 value stands)",
                self.window(),
                told.tokens,
                told.endpoint
            ),
            (None, None) => format!(
                "{} tokens as configured (the server did not say its window)",
                self.window()
            ),
        }
    }

    /// Sets how many requests may run at once (`summaryConcurrency`); `None` chooses by
    /// server (see [`LlmSummarizer::concurrency`]).
    pub fn with_concurrency(mut self, requests: Option<u64>) -> Self {
        self.concurrency = requests.map(|n| usize::try_from(n.max(1)).unwrap_or(usize::MAX));
        self
    }

    /// Asks the server for its window (llama-server, Ollama, vLLM) and uses it from now on;
    /// returns what the server said. With `keep_larger_configured` (the user set the window
    /// explicitly), a server window larger than the configured one is reported but not
    /// used: the user's smaller value stands.
    pub async fn discover_window(&self, keep_larger_configured: bool) -> Option<ServerWindow> {
        let window = self.client.server_window().await?;
        if !keep_larger_configured || window.tokens < self.context_window {
            self.learn_window(window.clone());
        }
        Some(window)
    }

    /// The window the server reported or revealed, when it did.
    pub fn server_window(&self) -> Option<ServerWindow> {
        self.server_window.lock().ok().and_then(|known| known.clone())
    }

    /// The summary window in effect and where it came from, for the user: `from the server
    /// (GET /props (n_ctx))`, or `None` for the configured one.
    pub fn window_source(&self) -> Option<String> {
        self.server_window().map(|window| format!("from the server ({})", window.endpoint))
    }

    /// The window in effect: the server's when it said one, else the configured one.
    pub fn window(&self) -> u64 {
        self.server_window().map_or(self.context_window, |window| window.tokens)
    }

    fn learn_window(&self, window: ServerWindow) {
        if let Ok(mut known) = self.server_window.lock() {
            *known = Some(window);
        }
    }

    /// Measures the server's tokenizer on `sample` with its `/tokenize` (llama.cpp's
    /// `llama-server`) against `estimator`, and keeps free what our estimate falls short by,
    /// plus [`MEASURED_MARGIN_PERCENT`]; `None` (the default margin stays) when the server
    /// has no `/tokenize` or the sample is empty.
    async fn calibrate(
        &self,
        sample: &str,
        estimator: &dyn compaction_core::tokens::TokenEstimator,
    ) -> Option<String> {
        let estimated = estimator.text_tokens(sample);
        if estimated == 0 {
            return None;
        }
        let counted = self.client.count_tokens(sample).await?;
        let short_by = counted.saturating_sub(estimated).saturating_mul(100).div_ceil(estimated);
        let percent = (short_by + MEASURED_MARGIN_PERCENT).min(50);
        self.margin_percent.store(percent, Ordering::Relaxed);
        Some(format!(
            "the server's tokenizer counts {counted} tokens where the {} estimate is \
             {estimated}: requests keep {percent}% of the window free",
            estimator.name()
        ))
    }

    /// Whether the server's tokenizer is unknown to our estimators (any server but the
    /// OpenAI and Anthropic APIs): requests then keep [`UNKNOWN_TOKENIZER_MARGIN`] free.
    fn tokenizer_unknown(&self) -> bool {
        self.client.config().base_url.as_deref().is_some_and(|base| {
            let host =
                reqwest::Url::parse(base).ok().and_then(|url| url.host_str().map(str::to_owned));
            !matches!(host.as_deref(), Some("api.openai.com" | "api.anthropic.com"))
        })
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
            let answer = self.client.complete(&completion, cancel, progress).await;
            let requests = match &answer {
                Ok(response) => response.requests,
                Err(error) => error.attempts(),
            };
            self.sent.fetch_add(u64::from(requests), Ordering::Relaxed);
            if let Err(SummarizerError::ContextOverflow { window: Some(tokens), .. }) = &answer
                && *tokens < self.window()
            {
                self.learn_window(ServerWindow {
                    tokens: *tokens,
                    endpoint: "its over-window answer".to_owned(),
                });
            }
            if let Some(tokens) = self.client.take_revealed_window()
                && tokens < self.window()
            {
                self.learn_window(ServerWindow {
                    tokens,
                    endpoint: "a reply it cut at the room its window left".to_owned(),
                });
            }
            answer
        })
    }

    fn label(&self) -> String {
        let config = self.client.config();
        format!("{}/{}", config.kind, config.model)
    }

    fn context_window(&self) -> Option<u64> {
        let window = self.window();
        if self.tokenizer_unknown() {
            let margin = window * self.margin_percent.load(Ordering::Relaxed) / 100;
            return Some(window - margin);
        }
        Some(window)
    }

    fn concurrency(&self) -> usize {
        self.concurrency.unwrap_or(if self.tokenizer_unknown() { 1 } else { 2 })
    }

    fn runs_locally(&self) -> bool {
        self.client.is_local()
    }

    fn requests_sent(&self) -> Option<u64> {
        Some(self.sent.load(Ordering::Relaxed))
    }

    fn learned_window(&self) -> Option<u64> {
        self.server_window().map(|window| window.tokens)
    }

    fn usage_received(&self) -> Option<crate::summarizer::SummaryUsage> {
        Some(self.client.usage_received())
    }

    fn reads_sample(&self) -> bool {
        !self.asked.load(Ordering::SeqCst) && self.client.asks_for_window()
    }

    fn prepare<'a>(
        &'a self,
        sample: &'a str,
        estimator: &'a dyn compaction_core::tokens::TokenEstimator,
    ) -> BoxFuture<'a, Option<String>> {
        Box::pin(async move {
            if self.asked.swap(true, Ordering::SeqCst) || !self.client.asks_for_window() {
                return None;
            }
            let told = self.discover_window(self.window_explicit).await;
            let mut note = self.window_note(told.as_ref());
            if let Some(note_on_tokens) = self.calibrate(sample, estimator).await {
                note.push_str("; ");
                note.push_str(&note_on_tokens);
            }
            Some(note)
        })
    }

    fn max_output_tokens(&self) -> Option<u64> {
        compaction_core::models::model_limits(&self.client.config().model)
            .map(|limits| limits.max_output_tokens)
    }
}

/// The summary model's window when nothing better is known.
pub const DEFAULT_SUMMARY_WINDOW: u64 = 128_000;

/// Percent of the window kept free when the server's tokenizer is unknown. Our estimate of
/// a Gemma 3 request was 1.7% low (a chunk planned at 8,192 tokens was 8,330 by the model's
/// tokenizer); ten percent covers that with room for tokenizers that count more.
pub const UNKNOWN_TOKENIZER_MARGIN_PERCENT: u64 = 10;

/// Percent kept free besides what a server's `/tokenize` showed our estimate falls short
/// by (the sample is one request's transcript, other requests differ a little).
pub const MEASURED_MARGIN_PERCENT: u64 = 3;

/// [`UNKNOWN_TOKENIZER_MARGIN_PERCENT`] as a fraction, for the docs.
pub const UNKNOWN_TOKENIZER_MARGIN: f64 = UNKNOWN_TOKENIZER_MARGIN_PERCENT as f64 / 100.0;

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
