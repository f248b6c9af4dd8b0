//! Errors of the `compaction` crate.
//!
//! [`SummarizerError`] is what a summarizer returns. Invariant: no error value ever holds an
//! API key — provider messages are scrubbed of the key before they are stored — and every
//! network failure says how many attempts were made and how long they took.

use std::fmt;
use std::time::Duration;

/// Why a summary could not be produced.
///
/// Network variants carry `attempts` (requests sent, retries included) and `elapsed` (time
/// from the first request to giving up). [`SummarizerError::is_retryable`] says whether
/// trying again later could help; the provider client has already retried those failures
/// up to its configured bound before returning them.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SummarizerError {
    /// The provider answered with an HTTP error status. `message` is the provider's own
    /// explanation (scrubbed, shortened). Retry can help for 408, 409, 429 and 5xx; not for
    /// other 4xx (bad request, authentication, unknown model).
    #[error(
        "provider returned HTTP {status}: {message} ({})",
        AttemptsText(*.attempts, *.elapsed)
    )]
    Http {
        /// HTTP status code.
        status: u16,
        /// Message from the provider's error body, or the body itself.
        message: String,
        /// Requests sent, retries included.
        attempts: u32,
        /// Time spent before giving up.
        elapsed: Duration,
    },

    /// The provider reported an error inside an otherwise successful stream (for example
    /// Anthropic's `overloaded_error` event). Retry can help when `retryable` is true
    /// (overload, rate limit, server errors).
    #[error(
        "provider reported {error_type}: {message} ({})",
        AttemptsText(*.attempts, *.elapsed)
    )]
    Provider {
        /// The provider's error type, e.g. `overloaded_error`.
        error_type: String,
        /// The provider's message (scrubbed, shortened).
        message: String,
        /// Whether this kind of error is transient.
        retryable: bool,
        /// Requests sent, retries included.
        attempts: u32,
        /// Time spent before giving up.
        elapsed: Duration,
    },

    /// The connection could not be made or broke before a response arrived (DNS, refused,
    /// TLS, reset). Retry can help.
    #[error("could not reach the provider: {message} ({})", AttemptsText(*.attempts, *.elapsed))]
    Connect {
        /// What went wrong, as reported by the HTTP client.
        message: String,
        /// Requests sent, retries included.
        attempts: u32,
        /// Time spent before giving up.
        elapsed: Duration,
    },

    /// The provider sent no bytes for longer than the idle timeout (or the connection could
    /// not be made within the connect timeout). Retry can help.
    #[error("provider timed out: {message} ({})", AttemptsText(*.attempts, *.elapsed))]
    Timeout {
        /// Which wait timed out and for how long.
        message: String,
        /// Requests sent, retries included.
        attempts: u32,
        /// Time spent before giving up.
        elapsed: Duration,
    },

    /// The response stream was cut off before it completed, or was not valid server-sent
    /// events / JSON. Retry can help for a cut stream (`malformed` false), rarely for a
    /// malformed one.
    #[error("response stream failed: {message} ({})", AttemptsText(*.attempts, *.elapsed))]
    Stream {
        /// What was wrong with the stream.
        message: String,
        /// True when the provider sent data we could not parse; false when the stream ended
        /// or broke early.
        malformed: bool,
        /// Requests sent, retries included.
        attempts: u32,
        /// Time spent before giving up.
        elapsed: Duration,
    },

    /// The model finished (with a finish reason) without writing any summary text. Retry
    /// rarely helps; a different model or a smaller input may. A stream that ended without a
    /// finish reason is [`SummarizerError::Stream`] instead: it was cut, not finished.
    #[error("the model returned an empty summary ({})", AttemptsText(*.attempts, *.elapsed))]
    EmptyOutput {
        /// Requests sent, retries included.
        attempts: u32,
        /// Time spent before giving up.
        elapsed: Duration,
    },

    /// The request does not fit the model's context window. Retry with the same input never
    /// helps; summarize less (drop the oldest messages) or use a model with a larger window.
    #[error(
        "the request exceeds the model's context window: {message} ({})",
        AttemptsText(*.attempts, *.elapsed)
    )]
    ContextOverflow {
        /// The provider's message (scrubbed, shortened).
        message: String,
        /// The window the server said it has, in tokens, when its answer names it
        /// (`maximum context length is 4096 tokens`, llama.cpp's `n_ctx`).
        window: Option<u64>,
        /// Requests sent, retries included.
        attempts: u32,
        /// Time spent before giving up.
        elapsed: Duration,
    },

    /// The model stopped at the output limit (OpenAI `finish_reason: "length"`, Anthropic
    /// `stop_reason: "max_tokens"`), so the summary is cut short, and the one retry with a
    /// larger output budget (when the window left room for one) was cut short too. Retry with
    /// the same limits rarely helps; raise `maxSummaryTokens` or use a model with a larger
    /// output limit.
    #[error(
        "{}; raise maxSummaryTokens (--max-summary-tokens) or use a summary model with a \
         larger output limit",
        TruncatedText(*.max_output_tokens, *.attempts)
    )]
    Truncated {
        /// The output limit of the last request.
        max_output_tokens: u32,
        /// Requests sent, the retry with a larger budget included.
        attempts: u32,
    },

    /// The caller cancelled the request. Retry is the caller's decision.
    #[error("summarization was cancelled ({})", AttemptsText(*.attempts, *.elapsed))]
    Cancelled {
        /// Requests started, retries included.
        attempts: u32,
        /// Time spent before the cancellation.
        elapsed: Duration,
    },

    /// The environment variable that should hold the API key is unset or empty. Retry never
    /// helps; set the variable.
    #[error("API key missing: environment variable {var} is not set (or is empty)")]
    MissingApiKey {
        /// Name of the environment variable.
        var: String,
    },

    /// The provider configuration is invalid (bad base URL, HTTP client could not be built).
    /// Retry never helps.
    #[error("invalid provider configuration: {message}")]
    Config {
        /// What is wrong.
        message: String,
    },
}

impl SummarizerError {
    /// Whether trying the same request again later could succeed.
    pub fn is_retryable(&self) -> bool {
        match self {
            SummarizerError::Http { status, .. } => is_retryable_status(*status),
            SummarizerError::Provider { retryable, .. } => *retryable,
            SummarizerError::Connect { .. } | SummarizerError::Timeout { .. } => true,
            SummarizerError::Stream { malformed, .. } => !*malformed,
            SummarizerError::EmptyOutput { .. }
            | SummarizerError::Truncated { .. }
            | SummarizerError::ContextOverflow { .. }
            | SummarizerError::Cancelled { .. }
            | SummarizerError::MissingApiKey { .. }
            | SummarizerError::Config { .. } => false,
        }
    }

    /// Requests sent before this error was returned (0 when none was sent).
    pub fn attempts(&self) -> u32 {
        match self {
            SummarizerError::Http { attempts, .. }
            | SummarizerError::Provider { attempts, .. }
            | SummarizerError::Connect { attempts, .. }
            | SummarizerError::Timeout { attempts, .. }
            | SummarizerError::Stream { attempts, .. }
            | SummarizerError::EmptyOutput { attempts, .. }
            | SummarizerError::ContextOverflow { attempts, .. }
            | SummarizerError::Truncated { attempts, .. }
            | SummarizerError::Cancelled { attempts, .. } => *attempts,
            SummarizerError::MissingApiKey { .. } | SummarizerError::Config { .. } => 0,
        }
    }
}

/// HTTP statuses worth retrying: request timeout, conflict, rate limit, server errors
/// (including Anthropic's 529 "overloaded").
pub(crate) fn is_retryable_status(status: u16) -> bool {
    matches!(status, 408 | 409 | 429) || (500..=599).contains(&status)
}

/// Says how a summary was cut off: once with no room to retry, or twice.
struct TruncatedText(u32, u32);

impl fmt::Display for TruncatedText {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let TruncatedText(limit, attempts) = self;
        if *attempts > 1 {
            write!(
                f,
                "the summary was cut off at the output limit twice (the retry allowed {limit} tokens)"
            )
        } else {
            write!(
                f,
                "the summary was cut off at the output limit of {limit} tokens, and the summary \
                 model's window or output limit leaves no room for a larger one"
            )
        }
    }
}

/// Renders "after 1 attempt in 1.2s" / "after 4 attempts in 3.0s".
struct AttemptsText(u32, Duration);

impl fmt::Display for AttemptsText {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let AttemptsText(attempts, elapsed) = self;
        let noun = if *attempts == 1 { "attempt" } else { "attempts" };
        write!(f, "after {attempts} {noun} in {:.1}s", elapsed.as_secs_f64())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_says_attempts() {
        let error = SummarizerError::Http {
            status: 500,
            message: "boom".into(),
            attempts: 4,
            elapsed: Duration::from_millis(1500),
        };
        assert_eq!(
            error.to_string(),
            "provider returned HTTP 500: boom (after 4 attempts in 1.5s)"
        );
        let error = SummarizerError::EmptyOutput { attempts: 1, elapsed: Duration::ZERO };
        assert_eq!(
            error.to_string(),
            "the model returned an empty summary (after 1 attempt in 0.0s)"
        );
    }
}
