//! What a response becomes: a decoded completion, or a failure classified as retryable or
//! not (with the server's `Retry-After`), turned into an error with the key scrubbed; the
//! decoder picks the provider's stream format.

use std::time::Duration;

use super::sse::SseEvent;
use crate::error::{SummarizerError, is_retryable_status};
use crate::summarizer::SummaryUsage;

use super::*;

/// A successfully decoded response, before the empty-output check.
#[derive(Debug)]
pub(crate) struct Completed {
    /// Whether the server reported usage (else `usage` is all zero and means nothing).
    pub(crate) usage_reported: bool,
    pub(crate) text: String,
    pub(crate) usage: SummaryUsage,
    pub(crate) truncated: bool,
    /// Stream events that carried reply text (llama.cpp's servers send one per token).
    pub(crate) pieces: u64,
}

impl Completed {
    /// The usage this reply reports, or, when the server reported none, usage that says so
    /// (one unreported request, no tokens claimed).
    pub(crate) fn measured_usage(&self) -> SummaryUsage {
        if self.usage_reported {
            self.usage
        } else {
            SummaryUsage { unreported_requests: 1, ..SummaryUsage::default() }
        }
    }
}

/// Why one attempt failed (before attempts and elapsed time are attached).
#[derive(Debug)]
pub(crate) enum Failure {
    /// Non-success HTTP status that is not a context overflow.
    Status { status: u16, message: String, retry_after: Option<Duration> },
    /// Error reported inside the stream.
    Provider { error_type: String, message: String, retryable: bool },
    /// Request does not fit the context window; the window when the answer names it.
    Overflow(String, Option<u64>),
    /// Could not connect / send.
    Connect(String),
    /// No bytes for too long.
    Timeout(String),
    /// Stream broke or ended early.
    Cut(String),
    /// A well-formed stream that ended without a finish reason: the server stopped the reply
    /// (llama-cpp-python does this when another request waits for its one slot, and on
    /// shutdown). Not a finished reply, whatever text it held.
    Incomplete(String),
    /// A `200` event stream that ended without a single event. llama-cpp-python answers a
    /// streamed request larger than its window this way; the client checks by asking again
    /// without streaming.
    EmptyStream,
    /// Stream held data we could not parse.
    Malformed(String),
    /// Model wrote nothing.
    Empty,
}

impl Failure {
    pub(super) fn is_retryable(&self) -> bool {
        match self {
            Failure::Status { status, .. } => is_retryable_status(*status),
            Failure::Provider { retryable, .. } => *retryable,
            Failure::Connect(_)
            | Failure::Timeout(_)
            | Failure::Cut(_)
            | Failure::Incomplete(_)
            | Failure::EmptyStream => true,
            Failure::Overflow(..) | Failure::Malformed(_) | Failure::Empty => false,
        }
    }

    pub(super) fn retry_after(&self) -> Option<Duration> {
        match self {
            Failure::Status { retry_after, .. } => *retry_after,
            Failure::Provider { .. }
            | Failure::Overflow(..)
            | Failure::Connect(_)
            | Failure::Timeout(_)
            | Failure::Cut(_)
            | Failure::Incomplete(_)
            | Failure::EmptyStream
            | Failure::Malformed(_)
            | Failure::Empty => None,
        }
    }

    /// Short description for progress reports (already scrubbed text).
    pub(super) fn reason(&self) -> String {
        match self {
            Failure::Status { status, message, .. } => format!("HTTP {status}: {message}"),
            Failure::Provider { error_type, message, .. } => format!("{error_type}: {message}"),
            Failure::Overflow(message, _)
            | Failure::Connect(message)
            | Failure::Timeout(message)
            | Failure::Cut(message)
            | Failure::Incomplete(message)
            | Failure::Malformed(message) => message.clone(),
            Failure::EmptyStream => EMPTY_STREAM.to_owned(),
            Failure::Empty => "the model finished without writing any text".to_owned(),
        }
    }

    pub(super) fn into_error(
        self,
        key: &ApiKey,
        attempts: u32,
        elapsed: Duration,
    ) -> SummarizerError {
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
            Failure::Overflow(message, window) => SummarizerError::ContextOverflow {
                message: clean(message),
                window,
                attempts,
                elapsed,
            },
            Failure::Connect(message) => {
                SummarizerError::Connect { message: clean(message), attempts, elapsed }
            }
            Failure::Timeout(message) => {
                SummarizerError::Timeout { message: clean(message), attempts, elapsed }
            }
            Failure::Cut(message) | Failure::Incomplete(message) => SummarizerError::Stream {
                message: clean(message),
                malformed: false,
                attempts,
                elapsed,
            },
            Failure::EmptyStream => SummarizerError::Stream {
                message: EMPTY_STREAM.to_owned(),
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

/// What an empty `200` stream is, for progress and errors.
const EMPTY_STREAM: &str = "the server answered 200 with an empty stream (no event, no finish \
                            reason); llama-cpp-python does this when a request exceeds its window";

/// Decoder for the configured protocol.
pub(super) enum Decoder {
    OpenAi(openai::Decoder),
    Anthropic(anthropic::Decoder),
}

impl Decoder {
    pub(super) fn new(kind: ProviderKind) -> Self {
        match kind {
            ProviderKind::OpenAi => Decoder::OpenAi(openai::Decoder::default()),
            ProviderKind::Anthropic => Decoder::Anthropic(anthropic::Decoder::default()),
        }
    }

    /// Characters of text the event added; the text itself goes to `on_text`.
    pub(super) fn on_event(
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

    pub(super) fn is_done(&self) -> bool {
        match self {
            Decoder::OpenAi(decoder) => decoder.is_done(),
            Decoder::Anthropic(decoder) => decoder.is_done(),
        }
    }

    pub(super) fn finish(self) -> Result<Completed, Failure> {
        match self {
            Decoder::OpenAi(decoder) => decoder.finish(),
            Decoder::Anthropic(decoder) => decoder.finish(),
        }
    }
}
