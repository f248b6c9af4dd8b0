//! One exchange with the server: send, check the status, decode the stream (or a plain JSON
//! body), reading at most a bounded number of bytes.

use std::time::Duration;

use reqwest::header::{CONTENT_TYPE, HeaderMap};

use crate::provider::response::Decoder;
use crate::provider::sse::{SseEvent, SseParser};
use crate::provider::*;
use crate::summarizer::SummaryProgress;

impl ProviderClient {
    /// One request: send, check the status, decode the stream. Sets `delivered` once summary
    /// text has been reported to `progress`.
    pub(super) async fn attempt(
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
pub(super) const MAX_CHARS_PER_TOKEN: u64 = 10;

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
    crate::provider::config::hide_url_passwords(&text)
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
