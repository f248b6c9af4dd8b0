//! Reading provider error bodies: extract the human message, recognise context-window
//! overflows, and scrub secrets.
//!
//! Invariant: every string that leaves this module for an error value has passed through
//! [`scrub`], so it holds no API key and is bounded in length.

use crate::provider::ApiKey;

/// Longest provider message kept in an error, in characters.
const MAX_MESSAGE_CHARS: usize = 1000;

/// Texts (lower case) that providers and local servers use when a request does not fit the
/// model's context window.
const OVERFLOW_MARKERS: &[&str] = &[
    "context_length_exceeded",            // OpenAI error code
    "maximum context length",             // OpenAI, vLLM
    "prompt is too long",                 // Anthropic
    "exceeds the available context size", // llama.cpp
    "exceed_context_size",                // llama.cpp error type
    "context window",                     // many OpenAI-compatible servers
    "context length",                     // Ollama, LM Studio
    "too many tokens",                    // generic
    "reduce the length of the messages",  // older OpenAI wording
    "input is too long",                  // Bedrock and others
    "exceed context limit",               // Anthropic, input + max_tokens over the window
];

/// Whether an error text (message, code and type, or a whole body) says the request does not
/// fit the context window. Rate-limit answers (429) are never overflows, even when they speak
/// of tokens.
pub fn is_context_overflow(status: Option<u16>, text: &str) -> bool {
    if status == Some(429) {
        return false;
    }
    let lower = text.to_lowercase();
    OVERFLOW_MARKERS.iter().any(|marker| lower.contains(marker))
}

/// The window an overflow answer names, in tokens: llama.cpp's `n_ctx` field, or the number
/// in "maximum context length is N tokens" (OpenAI, vLLM, llama-cpp-python), "context window
/// of N", "context length of N", or Anthropic's "… > N maximum".
pub fn overflow_window(text: &str) -> Option<u64> {
    if let Ok(value) = compaction_core::entry::from_json_text::<serde_json::Value>(text) {
        let error = value.get("error").unwrap_or(&value);
        if let Some(n_ctx) = error.get("n_ctx").and_then(serde_json::Value::as_u64) {
            return Some(n_ctx);
        }
    }
    let lower = text.to_lowercase();
    let number_after = |marker: &str| {
        let at = lower.find(marker)? + marker.len();
        let digits: String = lower[at..]
            .trim_start()
            .chars()
            .take_while(|c| c.is_ascii_digit() || *c == ',')
            .filter(char::is_ascii_digit)
            .collect();
        digits.parse::<u64>().ok().filter(|window| *window > 0)
    };
    ["maximum context length is", "context window of", "context length of", "context size of"]
        .iter()
        .find_map(|marker| number_after(marker))
        .or_else(|| {
            let before = &lower[..lower.find(" maximum")?];
            before.rsplit_once('>')?.1.trim().parse::<u64>().ok()
        })
}

/// The provider's own explanation from an error body: `error.message`, `error` (a string),
/// `message` or `detail`, else the body text itself.
pub fn error_message(body: &str) -> String {
    let from_json = compaction_core::entry::from_json_text::<serde_json::Value>(body)
        .ok()
        .and_then(|value| message_in(&value));
    match from_json {
        Some(message) => message,
        None if body.trim().is_empty() => "(empty response body)".to_owned(),
        None => body.trim().to_owned(),
    }
}

/// The message inside a parsed error value, if it has one.
pub fn message_in(value: &serde_json::Value) -> Option<String> {
    let error = value.get("error");
    error
        .and_then(|error| error.get("message"))
        .and_then(serde_json::Value::as_str)
        .or_else(|| error.and_then(serde_json::Value::as_str))
        .or_else(|| value.get("message").and_then(serde_json::Value::as_str))
        .or_else(|| value.get("detail").and_then(serde_json::Value::as_str))
        .map(str::to_owned)
}

/// Removes the API key and any other secret (see [`compaction_core::redact`]) from `text`
/// and bounds its length.
pub fn scrub(text: &str, key: &ApiKey) -> String {
    let secret = key.expose();
    let mut text = if secret.is_empty() {
        text.trim().to_owned()
    } else {
        text.trim().replace(secret, "[REDACTED]")
    };
    // A server may echo what it was sent, or hold other credentials in its message.
    if let std::borrow::Cow::Owned(redacted) =
        compaction_core::serialize::Redactor::default().redact(&text)
    {
        text = redacted;
    }
    if let Some((cut, _)) = text.char_indices().nth(MAX_MESSAGE_CHARS) {
        text.truncate(cut);
        text.push('…');
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn overflow_messages_are_recognised() {
        for (status, text) in [
            (
                400,
                r#"{"error":{"message":"This model's maximum context length is 128000 tokens. However, your messages resulted in 130000 tokens.","type":"invalid_request_error","param":"messages","code":"context_length_exceeded"}}"#,
            ),
            (
                400,
                r#"{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 208310 tokens > 200000 maximum"}}"#,
            ),
            (
                400,
                r#"{"error":{"code":400,"message":"the request exceeds the available context size, try increasing it","type":"exceed_context_size_error"}}"#,
            ),
            (400, "Input tokens exceed the model's context window"),
            (
                400,
                r#"{"type":"error","error":{"type":"invalid_request_error","message":"input length and `max_tokens` exceed context limit: 199926 + 21333 > 204698, decrease input length or `max_tokens` and try again"}}"#,
            ),
            (413, "too many tokens in request"),
        ] {
            assert!(is_context_overflow(Some(status), text), "{text}");
        }
        assert!(!is_context_overflow(Some(429), "Rate limit reached: too many tokens per minute"));
        assert!(!is_context_overflow(Some(400), "invalid model"));
    }

    #[test]
    fn overflow_answers_name_the_window() {
        for (text, window) in [
            (
                r#"{"error":{"message":"This model's maximum context length is 4096 tokens. However, you requested 26873 tokens (22777 in the messages, 4096 in the completion).","code":"context_length_exceeded"}}"#,
                Some(4096),
            ),
            (
                r#"{"error":{"code":400,"message":"the request exceeds the available context size, try increasing it","type":"exceed_context_size_error","n_prompt_tokens":9000,"n_ctx":8192}}"#,
                Some(8192),
            ),
            ("Requested tokens (4097) exceed context window of 4096", Some(4096)),
            ("prompt is too long: 208310 tokens > 200000 maximum", Some(200_000)),
            ("too many tokens in request", None),
        ] {
            assert_eq!(overflow_window(text), window, "{text}");
        }
    }

    #[test]
    fn messages_are_extracted() {
        assert_eq!(error_message(r#"{"error":{"message":"bad"}}"#), "bad");
        assert_eq!(error_message(r#"{"error":"flat"}"#), "flat");
        assert_eq!(error_message(r#"{"detail":"fastapi"}"#), "fastapi");
        assert_eq!(error_message(" plain text \n"), "plain text");
        assert_eq!(error_message(""), "(empty response body)");
    }

    #[test]
    fn scrub_removes_key_and_bounds_length() {
        let key = ApiKey::new("sk-secret-123");
        assert_eq!(
            scrub("Incorrect API key provided: sk-secret-123.", &key),
            "Incorrect API key provided: [REDACTED]."
        );
        let long = "é".repeat(5000);
        assert_eq!(scrub(&long, &key).chars().count(), MAX_MESSAGE_CHARS + 1);
    }
}
