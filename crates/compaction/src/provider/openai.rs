//! OpenAI-compatible Chat Completions: request body and streamed response decoding.
//!
//! Invariant: decoding is lenient about what servers leave out or add (missing, null or
//! empty fields, unknown fields, `choices: []` chunks carrying only usage) but strict about
//! what makes a summary trustworthy: a reply is finished only when a choice carried a finish
//! reason. `[DONE]` alone ends the stream, not the reply: llama-cpp-python sends a role chunk
//! and `[DONE]` when another request interrupts it, and a server that is shut down ends the
//! body with no event at all.

use serde_json::{Value, json};

use crate::provider::sse::SseEvent;
use crate::provider::{ChatMessage, Completed, Failure, MaxTokensField};
use crate::summarizer::SummaryUsage;

/// The JSON body of a streamed chat completion with one user message.
pub fn request_body(
    model: &str,
    max_tokens_field: MaxTokensField,
    system: &str,
    user: &str,
    max_output_tokens: u32,
) -> Value {
    let messages = [ChatMessage::user(user)];
    chat_body(model, max_tokens_field, system, &messages, max_output_tokens)
}

/// The JSON body of a streamed chat completion over a message list (the system prompt is
/// left out when empty).
pub fn chat_body(
    model: &str,
    max_tokens_field: MaxTokensField,
    system: &str,
    messages: &[ChatMessage],
    max_output_tokens: u32,
) -> Value {
    let field = match max_tokens_field {
        MaxTokensField::MaxCompletionTokens => "max_completion_tokens",
        MaxTokensField::MaxTokens => "max_tokens",
    };
    let mut wire = Vec::with_capacity(messages.len() + 1);
    if !system.is_empty() {
        wire.push(json!({"role": "system", "content": system}));
    }
    wire.extend(
        messages
            .iter()
            .map(|message| json!({"role": message.role.name(), "content": message.content})),
    );
    let mut body = json!({
        "model": model,
        "messages": wire,
        "stream": true,
        "stream_options": {"include_usage": true},
    });
    if let Some(object) = body.as_object_mut() {
        object.insert(field.to_owned(), json!(max_output_tokens));
    }
    body
}

/// Accumulates a streamed chat completion.
#[derive(Debug, Default)]
pub struct Decoder {
    text: String,
    usage: SummaryUsage,
    usage_reported: bool,
    finish_reason: Option<String>,
    done: bool,
    /// Data events seen (comments such as `: ping` are not events).
    events: usize,
    /// Events that carried reply text.
    pieces: u64,
}

impl Decoder {
    /// Handles one event; returns the summary text it added (possibly empty).
    pub fn on_event(&mut self, event: &SseEvent) -> Result<&str, Failure> {
        let data = event.data.trim();
        if data.is_empty() {
            return Ok("");
        }
        self.events += 1;
        if data == "[DONE]" {
            self.done = true;
            return Ok("");
        }
        let chunk: Value = compaction_core::entry::from_json_text(data)
            .map_err(|error| Failure::Malformed(format!("chunk is not valid JSON ({error})")))?;
        if let Some(error) = chunk.get("error").filter(|error| !error.is_null()) {
            return Err(stream_error(error, data));
        }
        if let Some(usage) = chunk.get("usage").filter(|usage| usage.is_object()) {
            self.usage = parse_usage(usage);
            self.usage_reported = true;
        }
        let start = self.text.len();
        if let Some(choices) = chunk.get("choices").and_then(Value::as_array) {
            for choice in choices {
                if let Some(content) = choice
                    .get("delta")
                    .and_then(|delta| delta.get("content"))
                    .and_then(Value::as_str)
                {
                    self.text.push_str(content);
                }
                if let Some(reason) = choice
                    .get("finish_reason")
                    .and_then(Value::as_str)
                    .filter(|reason| !reason.is_empty())
                {
                    self.finish_reason = Some(reason.to_owned());
                }
            }
        }
        if self.text.len() > start {
            self.pieces += 1;
        }
        Ok(&self.text[start..])
    }

    /// Whether `[DONE]` was received.
    pub fn is_done(&self) -> bool {
        self.done
    }

    /// The completed response, once the stream has ended: a reply with a finish reason.
    /// No event at all is [`Failure::EmptyStream`]; events without a finish reason are
    /// [`Failure::Incomplete`] when the stream ended properly (`[DONE]`, or the body's
    /// end after whole events) and [`Failure::Cut`] otherwise.
    pub fn finish(self) -> Result<Completed, Failure> {
        if self.events == 0 {
            return Err(Failure::EmptyStream);
        }
        if self.finish_reason.is_none() {
            let written = self.text.chars().count();
            let what = if written == 0 {
                "no text".to_owned()
            } else {
                format!("{written} characters of text")
            };
            let ending = if self.done { "[DONE]" } else { "the end of the body" };
            return Err(Failure::Incomplete(format!(
                "the stream ended ({ending}) after {what} and no finish reason: the server \
                 stopped the reply (a single-slot server does this when another request \
                 waits, or when it is shut down)"
            )));
        }
        Ok(Completed {
            text: self.text,
            usage: self.usage,
            usage_reported: self.usage_reported,
            truncated: self.finish_reason.as_deref() == Some("length"),
            pieces: self.pieces,
        })
    }
}

/// A whole (non-streamed) chat completion, for servers that ignore `stream: true`.
pub fn parse_whole(body: &str) -> Result<Completed, Failure> {
    let value: Value = compaction_core::entry::from_json_text(body)
        .map_err(|error| Failure::Malformed(format!("response is not valid JSON ({error})")))?;
    if let Some(error) = value.get("error").filter(|error| !error.is_null()) {
        return Err(stream_error(error, body));
    }
    let choice = value.get("choices").and_then(Value::as_array).and_then(|choices| choices.first());
    let text = choice
        .and_then(|choice| choice.get("message"))
        .and_then(|message| message.get("content"))
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_owned();
    let finish_reason =
        choice.and_then(|choice| choice.get("finish_reason")).and_then(Value::as_str);
    if choice.is_none() {
        return Err(Failure::Malformed("the response holds no choice".to_owned()));
    }
    let usage = value.get("usage").filter(|usage| usage.is_object());
    Ok(Completed {
        text,
        usage: usage.map(parse_usage).unwrap_or_default(),
        usage_reported: usage.is_some(),
        truncated: finish_reason == Some("length"),
        pieces: 0,
    })
}

/// An `error` object sent inside the stream.
fn stream_error(error: &Value, raw: &str) -> Failure {
    let message = error
        .get("message")
        .and_then(Value::as_str)
        .or_else(|| error.as_str())
        .unwrap_or(raw)
        .to_owned();
    if crate::provider::classify::is_context_overflow(None, raw) {
        return Failure::Overflow(message, crate::provider::classify::overflow_window(raw));
    }
    let error_type = error
        .get("type")
        .and_then(Value::as_str)
        .or_else(|| error.get("code").and_then(Value::as_str))
        .unwrap_or("error")
        .to_owned();
    let code = error.get("code").and_then(Value::as_u64);
    let retryable = matches!(
        error_type.as_str(),
        "server_error" | "rate_limit_exceeded" | "overloaded_error" | "timeout"
    ) || code.is_some_and(|code| code == 429 || code >= 500);
    Failure::Provider { error_type, message, retryable }
}

/// `usage` of a chat completion. `prompt_tokens` includes cached tokens; we report them
/// apart, like pi does.
fn parse_usage(usage: &Value) -> SummaryUsage {
    let number = |value: Option<&Value>| value.and_then(Value::as_u64).unwrap_or(0);
    let prompt = number(usage.get("prompt_tokens"));
    let cached =
        number(usage.get("prompt_tokens_details").and_then(|details| details.get("cached_tokens")));
    SummaryUsage {
        input_tokens: prompt.saturating_sub(cached),
        output_tokens: number(usage.get("completion_tokens")),
        cache_read_tokens: cached,
        cache_write_tokens: 0,
        cost: usage.get("cost").and_then(Value::as_f64),
        unreported_requests: 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn feed(decoder: &mut Decoder, data: &str) -> Result<String, Failure> {
        decoder.on_event(&SseEvent { event: None, data: data.to_owned() }).map(str::to_owned)
    }

    #[test]
    fn lenient_chunks() -> Result<(), Failure> {
        let mut decoder = Decoder::default();
        assert_eq!(
            feed(
                &mut decoder,
                r#"{"id":"x","choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]}"#
            )?,
            ""
        );
        assert_eq!(
            feed(
                &mut decoder,
                r#"{"choices":[{"delta":{"content":"Hel"},"finish_reason":""}],"usage":null,"extra":1}"#
            )?,
            "Hel"
        );
        assert_eq!(feed(&mut decoder, r#"{"choices":[{"delta":{"content":"lo"}}]}"#)?, "lo");
        feed(&mut decoder, r#"{"choices":[{"delta":{},"finish_reason":"stop"}]}"#)?;
        feed(
            &mut decoder,
            r#"{"choices":[],"usage":{"prompt_tokens":100,"completion_tokens":7,"prompt_tokens_details":{"cached_tokens":40}}}"#,
        )?;
        feed(&mut decoder, "[DONE]")?;
        assert!(decoder.is_done());
        let completed = decoder.finish()?;
        assert_eq!(completed.text, "Hello");
        assert_eq!(
            completed.usage,
            SummaryUsage {
                input_tokens: 60,
                output_tokens: 7,
                cache_read_tokens: 40,
                cache_write_tokens: 0,
                cost: None,
                unreported_requests: 0,
            }
        );
        assert!(!completed.truncated);
        Ok(())
    }

    #[test]
    fn length_finish_is_truncated() -> Result<(), Failure> {
        let mut decoder = Decoder::default();
        feed(&mut decoder, r#"{"choices":[{"delta":{"content":"x"},"finish_reason":"length"}]}"#)?;
        assert!(decoder.finish()?.truncated);
        Ok(())
    }

    #[test]
    fn whole_response() -> Result<(), Failure> {
        let completed = parse_whole(
            r#"{"choices":[{"index":0,"message":{"role":"assistant","content":"Sum"},"finish_reason":"stop"}],"usage":{"prompt_tokens":9,"completion_tokens":2}}"#,
        )?;
        assert_eq!(completed.text, "Sum");
        assert_eq!(completed.usage.input_tokens, 9);
        assert!(!completed.truncated);
        Ok(())
    }

    #[test]
    fn stream_without_finish_reason_is_incomplete() {
        let mut decoder = Decoder::default();
        assert!(feed(&mut decoder, r#"{"choices":[{"delta":{"content":"x"}}]}"#).is_ok());
        assert!(matches!(decoder.finish(), Err(Failure::Incomplete(_))));
        // A role chunk and [DONE] (a reply interrupted by another request) is no reply.
        let mut decoder = Decoder::default();
        assert!(feed(&mut decoder, r#"{"choices":[{"delta":{"role":"assistant"}}]}"#).is_ok());
        assert!(feed(&mut decoder, "[DONE]").is_ok());
        assert!(matches!(decoder.finish(), Err(Failure::Incomplete(_))));
        assert!(matches!(Decoder::default().finish(), Err(Failure::EmptyStream)));
    }

    #[test]
    fn malformed_chunk() {
        let mut decoder = Decoder::default();
        assert!(matches!(feed(&mut decoder, "{\"choices\": ["), Err(Failure::Malformed(_))));
    }

    #[test]
    fn body_uses_chosen_max_tokens_field() {
        let body = request_body("m", MaxTokensField::MaxTokens, "s", "u", 99);
        assert_eq!(body["max_tokens"], 99);
        assert!(body.get("max_completion_tokens").is_none());
        let body = request_body("m", MaxTokensField::MaxCompletionTokens, "s", "u", 99);
        assert_eq!(body["max_completion_tokens"], 99);
    }

    #[test]
    fn chat_body_lists_the_conversation() {
        let messages =
            [ChatMessage::user("hi"), ChatMessage::assistant("hello"), ChatMessage::user("more")];
        let body = chat_body("m", MaxTokensField::MaxTokens, "", &messages, 10);
        assert_eq!(
            body["messages"],
            json!([
                {"role": "user", "content": "hi"},
                {"role": "assistant", "content": "hello"},
                {"role": "user", "content": "more"},
            ])
        );
        let body = chat_body("m", MaxTokensField::MaxTokens, "sys", &messages[..1], 10);
        assert_eq!(body["messages"][0], json!({"role": "system", "content": "sys"}));
    }
}
