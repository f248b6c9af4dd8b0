//! Anthropic Messages API: request body and streamed response decoding.
//!
//! Invariant: only `text_delta` content reaches the summary (thinking and signature deltas
//! are ignored), and a stream counts as complete only after `message_stop` or a
//! `message_delta` carrying a stop reason.

use serde_json::{Value, json};

use crate::provider::sse::SseEvent;
use crate::provider::{ChatMessage, Completed, Failure};
use crate::summarizer::SummaryUsage;

/// The `anthropic-version` header value we speak.
pub const API_VERSION: &str = "2023-06-01";

/// The JSON body of a streamed message with one user message.
pub fn request_body(model: &str, system: &str, user: &str, max_output_tokens: u32) -> Value {
    chat_body(model, system, &[ChatMessage::user(user)], max_output_tokens)
}

/// The JSON body of a streamed message over a message list (no `system` when empty).
pub fn chat_body(
    model: &str,
    system: &str,
    messages: &[ChatMessage],
    max_output_tokens: u32,
) -> Value {
    let wire: Vec<Value> = messages
        .iter()
        .map(|message| json!({"role": message.role.name(), "content": message.content}))
        .collect();
    let mut body = serde_json::Map::new();
    body.insert("model".to_owned(), json!(model));
    body.insert("max_tokens".to_owned(), json!(max_output_tokens));
    if !system.is_empty() {
        body.insert("system".to_owned(), json!(system));
    }
    body.insert("messages".to_owned(), Value::Array(wire));
    body.insert("stream".to_owned(), json!(true));
    Value::Object(body)
}

/// Accumulates a streamed message.
#[derive(Debug, Default)]
pub struct Decoder {
    text: String,
    usage: SummaryUsage,
    usage_reported: bool,
    stop_reason: Option<String>,
    done: bool,
}

impl Decoder {
    /// Handles one event; returns the summary text it added (possibly empty).
    pub fn on_event(&mut self, event: &SseEvent) -> Result<&str, Failure> {
        let data = event.data.trim();
        if data.is_empty() {
            return Ok("");
        }
        let value: Value = compaction_core::entry::from_json_text(data).map_err(|error| {
            Failure::Malformed(format!("event data is not valid JSON ({error})"))
        })?;
        let event_type =
            value.get("type").and_then(Value::as_str).or(event.event.as_deref()).unwrap_or("");
        let start = self.text.len();
        match event_type {
            "message_start" => {
                if let Some(usage) = value.get("message").and_then(|message| message.get("usage")) {
                    self.merge_usage(usage);
                }
            }
            "content_block_start" => {
                let block = value.get("content_block");
                if block.and_then(|block| block.get("type")).and_then(Value::as_str) == Some("text")
                    && let Some(text) =
                        block.and_then(|block| block.get("text")).and_then(Value::as_str)
                {
                    self.text.push_str(text);
                }
            }
            "content_block_delta" => {
                let delta = value.get("delta");
                if delta.and_then(|delta| delta.get("type")).and_then(Value::as_str)
                    == Some("text_delta")
                    && let Some(text) =
                        delta.and_then(|delta| delta.get("text")).and_then(Value::as_str)
                {
                    self.text.push_str(text);
                }
            }
            "message_delta" => {
                if let Some(reason) = value
                    .get("delta")
                    .and_then(|delta| delta.get("stop_reason"))
                    .and_then(Value::as_str)
                    .filter(|reason| !reason.is_empty())
                {
                    self.stop_reason = Some(reason.to_owned());
                }
                if let Some(usage) = value.get("usage") {
                    self.merge_usage(usage);
                }
            }
            "message_stop" => self.done = true,
            "error" => return Err(stream_error(&value, data)),
            // ping, content_block_stop and event types added later carry nothing we need.
            _ => {}
        }
        Ok(&self.text[start..])
    }

    /// Whether `message_stop` was received.
    pub fn is_done(&self) -> bool {
        self.done
    }

    /// The completed response, once the stream has ended.
    pub fn finish(self) -> Result<Completed, Failure> {
        if self.stop_reason.is_none() {
            if self.done {
                return Err(Failure::Incomplete(
                    "the stream ended (message_stop) without a stop reason".to_owned(),
                ));
            }
            return Err(Failure::Cut("the stream ended before message_stop".to_owned()));
        }
        Ok(Completed {
            text: self.text,
            usage: self.usage,
            usage_reported: self.usage_reported,
            truncated: self.stop_reason.as_deref() == Some("max_tokens"),
            pieces: 0,
        })
    }

    /// Usage numbers present in `usage` replace the ones known so far (Anthropic reports
    /// cumulative counts).
    fn merge_usage(&mut self, usage: &Value) {
        self.usage_reported |= usage.is_object();
        let number = |name: &str| usage.get(name).and_then(Value::as_u64);
        if let Some(input) = number("input_tokens") {
            self.usage.input_tokens = input;
        }
        if let Some(output) = number("output_tokens") {
            self.usage.output_tokens = output;
        }
        if let Some(read) = number("cache_read_input_tokens") {
            self.usage.cache_read_tokens = read;
        }
        if let Some(write) = number("cache_creation_input_tokens") {
            self.usage.cache_write_tokens = write;
        }
    }
}

/// A whole (non-streamed) message, for proxies that ignore `stream: true`.
pub fn parse_whole(body: &str) -> Result<Completed, Failure> {
    let value: Value = compaction_core::entry::from_json_text(body)
        .map_err(|error| Failure::Malformed(format!("response is not valid JSON ({error})")))?;
    if value.get("type").and_then(Value::as_str) == Some("error") {
        return Err(stream_error(&value, body));
    }
    let mut decoder = Decoder::default();
    for block in
        value.get("content").and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default()
    {
        if block.get("type").and_then(Value::as_str) == Some("text")
            && let Some(text) = block.get("text").and_then(Value::as_str)
        {
            decoder.text.push_str(text);
        }
    }
    if let Some(usage) = value.get("usage") {
        decoder.merge_usage(usage);
    }
    decoder.stop_reason = value.get("stop_reason").and_then(Value::as_str).map(str::to_owned);
    decoder.done = true;
    decoder.finish()
}

/// An `error` event: `{"type":"error","error":{"type":"overloaded_error","message":"…"}}`.
fn stream_error(value: &Value, raw: &str) -> Failure {
    let error = value.get("error");
    let message = error
        .and_then(|error| error.get("message"))
        .and_then(Value::as_str)
        .unwrap_or(raw)
        .to_owned();
    if crate::provider::classify::is_context_overflow(None, &message) {
        return Failure::Overflow(message, crate::provider::classify::overflow_window(raw));
    }
    let error_type = error
        .and_then(|error| error.get("type"))
        .and_then(Value::as_str)
        .unwrap_or("error")
        .to_owned();
    let retryable = matches!(
        error_type.as_str(),
        "overloaded_error" | "rate_limit_error" | "api_error" | "timeout_error"
    );
    Failure::Provider { error_type, message, retryable }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn feed(decoder: &mut Decoder, event: &str, data: &str) -> Result<String, Failure> {
        decoder
            .on_event(&SseEvent { event: Some(event.to_owned()), data: data.to_owned() })
            .map(str::to_owned)
    }

    #[test]
    fn full_stream() -> Result<(), Failure> {
        let mut decoder = Decoder::default();
        feed(
            &mut decoder,
            "message_start",
            r#"{"type":"message_start","message":{"id":"m","usage":{"input_tokens":50,"cache_read_input_tokens":10,"cache_creation_input_tokens":5,"output_tokens":1}}}"#,
        )?;
        feed(
            &mut decoder,
            "content_block_start",
            r#"{"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":""}}"#,
        )?;
        assert_eq!(
            feed(
                &mut decoder,
                "content_block_delta",
                r#"{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"hmm"}}"#
            )?,
            ""
        );
        feed(&mut decoder, "ping", r#"{"type": "ping"}"#)?;
        feed(
            &mut decoder,
            "content_block_start",
            r#"{"type":"content_block_start","index":1,"content_block":{"type":"text","text":""}}"#,
        )?;
        assert_eq!(
            feed(
                &mut decoder,
                "content_block_delta",
                r#"{"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"Sum"}}"#
            )?,
            "Sum"
        );
        feed(
            &mut decoder,
            "content_block_delta",
            r#"{"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"mary"}}"#,
        )?;
        feed(&mut decoder, "content_block_stop", r#"{"type":"content_block_stop","index":1}"#)?;
        feed(
            &mut decoder,
            "message_delta",
            r#"{"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":42}}"#,
        )?;
        feed(&mut decoder, "message_stop", r#"{"type":"message_stop"}"#)?;
        assert!(decoder.is_done());
        let completed = decoder.finish()?;
        assert_eq!(completed.text, "Summary");
        assert_eq!(
            completed.usage,
            SummaryUsage {
                input_tokens: 50,
                output_tokens: 42,
                cache_read_tokens: 10,
                cache_write_tokens: 5,
                cost: None,
                unreported_requests: 0,
            }
        );
        Ok(())
    }

    #[test]
    fn whole_message() -> Result<(), Failure> {
        let completed = parse_whole(
            r#"{"id":"m","type":"message","content":[{"type":"thinking","thinking":"t"},{"type":"text","text":"Sum"}],"stop_reason":"end_turn","usage":{"input_tokens":9,"output_tokens":2}}"#,
        )?;
        assert_eq!(completed.text, "Sum");
        assert_eq!(completed.usage.output_tokens, 2);
        Ok(())
    }

    #[test]
    fn error_event() {
        let mut decoder = Decoder::default();
        let result = feed(
            &mut decoder,
            "error",
            r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#,
        );
        assert!(matches!(result, Err(Failure::Provider { retryable: true, .. })));
    }

    #[test]
    fn max_tokens_stop_is_truncated() -> Result<(), Failure> {
        let mut decoder = Decoder::default();
        feed(
            &mut decoder,
            "content_block_delta",
            r#"{"type":"content_block_delta","delta":{"type":"text_delta","text":"x"}}"#,
        )?;
        feed(
            &mut decoder,
            "message_delta",
            r#"{"type":"message_delta","delta":{"stop_reason":"max_tokens"}}"#,
        )?;
        assert!(decoder.finish()?.truncated);
        Ok(())
    }

    #[test]
    fn chat_body_lists_the_conversation() {
        let messages = [ChatMessage::user("hi"), ChatMessage::assistant("hello")];
        let body = chat_body("m", "", &messages, 10);
        assert!(body.get("system").is_none());
        assert_eq!(
            body["messages"],
            json!([{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}])
        );
        assert_eq!(chat_body("m", "sys", &messages, 10)["system"], "sys");
    }
}
