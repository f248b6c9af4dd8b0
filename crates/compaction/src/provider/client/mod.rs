//! The streaming HTTP client, one stage a file: this module builds the client and what
//! every request carries (body, headers); `stream` sends a request with its retries and
//! window checks; `attempt` is one exchange (send, check the status, decode the events,
//! with every read capped).

use reqwest::header::{ACCEPT, CONTENT_TYPE, HeaderMap, HeaderValue};

use super::config::is_loopback;
use super::*;
use crate::error::SummarizerError;
use crate::summarizer::SummaryUsage;

mod attempt;
mod stream;

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
}
