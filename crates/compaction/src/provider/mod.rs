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

pub use client::ProviderClient;
pub use config::{ApiKey, MaxTokensField, ProviderConfig, ProviderKind};
pub use request::{ChatMessage, ChatRequest, ChatRole, CompletionRequest};
pub(crate) use response::{Completed, Failure};

use futures_util::future::BoxFuture;
use tokio_util::sync::CancellationToken;

use crate::error::SummarizerError;
use crate::summarizer::{
    Summarizer, SummaryProgress, SummaryRequest, SummaryResponse, render_user_prompt,
};

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
