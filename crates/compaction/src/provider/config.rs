//! Which provider and model, where, and with which key: [`ProviderKind`], [`ProviderConfig`]
//! (base URL, token field, retries) and [`ApiKey`], which never prints its value.

use std::fmt;
use std::str::FromStr;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::error::SummarizerError;

use super::retry::RetryPolicy;

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

    pub(super) fn retry_policy(&self) -> RetryPolicy {
        RetryPolicy {
            max_retries: self.max_retries,
            base_delay: self.retry_base_delay,
            max_delay: self.max_retry_delay,
        }
    }
}

/// `text` with the password of every URL in it (`http://user:PASSWORD@host`) replaced by
/// `[REDACTED]`: for messages that quote a base URL or a request URL. Works on text that
/// does not parse as a URL too.
pub fn hide_url_passwords(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find("://") {
        let (head, tail) = rest.split_at(at + 3);
        out.push_str(head);
        let authority_end = tail
            .find(|c: char| matches!(c, '/' | '?' | '#') || c.is_whitespace() || c == ')')
            .unwrap_or(tail.len());
        let authority = &tail[..authority_end];
        match authority.rfind('@').map(|end| (end, authority[..end].find(':'))) {
            Some((end, Some(colon))) => {
                out.push_str(&authority[..=colon]);
                out.push_str(compaction_core::redact::REDACTED);
                out.push_str(&authority[end..]);
            }
            Some((_, None)) | None => out.push_str(authority),
        }
        rest = &tail[authority_end..];
    }
    out.push_str(rest);
    out
}

/// Whether `to` is on the origin of `from` (scheme, host and port): the only redirects a
/// client follows, so that a key is never sent to another host.
pub(super) fn same_origin(from: &reqwest::Url, to: &reqwest::Url) -> bool {
    from.scheme() == to.scheme()
        && from.host_str() == to.host_str()
        && from.port_or_known_default() == to.port_or_known_default()
}

/// Whether the configured base URL names this machine.
pub(super) fn is_loopback(config: &ProviderConfig) -> bool {
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
