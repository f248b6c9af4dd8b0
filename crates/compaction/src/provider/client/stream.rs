//! Sending a request: retries with backoff within the policy, cancellation, and the checks
//! an empty or cut reply calls for (is the request over the window, which window the cut
//! reveals).

use std::time::{Duration, Instant};

use tokio_util::sync::CancellationToken;

use super::attempt::MAX_CHARS_PER_TOKEN;
use crate::error::SummarizerError;
use crate::provider::*;
use crate::summarizer::{SummaryProgress, SummaryResponse, SummaryUsage};

impl ProviderClient {
    /// Streams one completion, retrying transient failures (429, 5xx, connection errors,
    /// timeouts, cut streams) with backoff until the bounded number of attempts is used, as
    /// long as no text has been streamed yet. Cancelling `cancel` ends it promptly with
    /// [`SummarizerError::Cancelled`].
    pub async fn complete(
        &self,
        request: &CompletionRequest<'_>,
        cancel: &CancellationToken,
        progress: &(dyn Fn(SummaryProgress) + Send + Sync),
    ) -> Result<SummaryResponse, SummarizerError> {
        let body = self.request_body(request);
        self.stream(&body, false, cancel, progress, &|_text: &str| {}).await
    }

    /// Streams a chat completion over a message list, handing each piece of reply text to
    /// `on_text` as it arrives. Retries, cancellation and error classification are those of
    /// [`ProviderClient::complete`]: a request the model's window cannot hold fails with
    /// [`SummarizerError::ContextOverflow`], and nothing is retried once text was streamed.
    pub async fn chat(
        &self,
        request: &ChatRequest<'_>,
        cancel: &CancellationToken,
        on_text: &(dyn Fn(&str) + Send + Sync),
    ) -> Result<SummaryResponse, SummarizerError> {
        let body = match self.config.kind {
            ProviderKind::OpenAi => openai::chat_body(
                &self.config.model,
                self.config.effective_max_tokens_field(),
                request.system,
                request.messages,
                request.max_output_tokens,
            ),
            ProviderKind::Anthropic => anthropic::chat_body(
                &self.config.model,
                request.system,
                request.messages,
                request.max_output_tokens,
            ),
        };
        self.stream(&body, true, cancel, &crate::summarizer::ignore_progress, on_text).await
    }

    /// Sends `body` with retries, streaming the reply text to `on_text`. With
    /// `text_reaches_caller`, an attempt that already handed text to `on_text` is never
    /// retried (the caller has shown it); otherwise (summaries, whose text is only counted)
    /// a cut or incomplete reply is retried like any transient failure.
    ///
    /// An empty `200` stream (OpenAI-compatible servers) is checked at once by the same
    /// request unstreamed with an output limit of 1 token: llama-cpp-python answers that
    /// with its `400 context_length_exceeded` (naming its window) when the request is too
    /// large, which becomes [`SummarizerError::ContextOverflow`]; a request that fits is
    /// retried as usual. The check is a request too: the response's `requests` counts it.
    async fn stream(
        &self,
        body: &serde_json::Value,
        text_reaches_caller: bool,
        cancel: &CancellationToken,
        progress: &(dyn Fn(SummaryProgress) + Send + Sync),
        on_text: &(dyn Fn(&str) + Send + Sync),
    ) -> Result<SummaryResponse, SummarizerError> {
        let policy = self.config.retry_policy();
        let started = Instant::now();
        let mut attempt: u32 = 0;
        let mut requests: u32 = 0;
        // Usage of attempts whose answer was discarded (an empty reply): spent all the same.
        let mut spent = SummaryUsage::default();
        let mut checked_overflow = false;
        loop {
            attempt += 1;
            requests += 1;
            progress(SummaryProgress::Started { attempt });
            let mut delivered = false;
            let outcome = tokio::select! {
                biased;
                () = cancel.cancelled() => {
                    return Err(SummarizerError::Cancelled { attempts: requests, elapsed: started.elapsed() });
                }
                outcome = self.attempt(body, &mut delivered, progress, on_text) => outcome,
            };
            let failure = match outcome {
                Ok(completed) if completed.text.trim().is_empty() => {
                    spent += self.record(&completed);
                    Failure::Empty
                }
                Ok(completed) => {
                    let mut usage = spent + self.record(&completed);
                    if completed.truncated && self.config.kind == ProviderKind::OpenAi {
                        let (window, probe) = self.window_of_cut(body, &completed, cancel).await;
                        if let Some(probe) = probe {
                            requests += 1;
                            usage += probe;
                        }
                        if let (Some(window), Ok(mut revealed)) = (window, self.revealed.lock()) {
                            *revealed = Some(window);
                        }
                    }
                    return Ok(SummaryResponse {
                        text: completed.text.trim().to_owned(),
                        usage,
                        truncated: completed.truncated,
                        requests,
                    });
                }
                Err(failure) => failure,
            };
            if matches!(failure, Failure::EmptyStream)
                && self.config.kind == ProviderKind::OpenAi
                && !checked_overflow
            {
                checked_overflow = true;
                progress(SummaryProgress::Retrying {
                    attempt,
                    delay: Duration::ZERO,
                    reason: format!(
                        "{}; checking with the same request unstreamed",
                        failure.reason()
                    ),
                });
                // llama-cpp-python closes the connection after an empty stream: a check sent
                // on that pooled connection can fail before it reaches the server, and is
                // then sent once more on a new one.
                for _ in 0..2 {
                    requests += 1;
                    let check = tokio::select! {
                        biased;
                        () = cancel.cancelled() => {
                            return Err(SummarizerError::Cancelled { attempts: requests, elapsed: started.elapsed() });
                        }
                        check = self.overflow_check(body) => check,
                    };
                    match check {
                        Err(overflow @ Failure::Overflow(..)) => {
                            return Err(overflow.into_error(
                                &self.api_key,
                                requests,
                                started.elapsed(),
                            ));
                        }
                        Ok(completed) => {
                            spent += self.record(&completed);
                            break;
                        }
                        Err(Failure::Connect(_) | Failure::Cut(_)) => {}
                        // Not an overflow: the empty stream is retried as a cut one.
                        Err(_other) => break,
                    }
                }
            }
            let retry_delivered = delivered && text_reaches_caller;
            if retry_delivered || !failure.is_retryable() || !policy.allows_retry_after(attempt) {
                return Err(failure.into_error(&self.api_key, requests, started.elapsed()));
            }
            let delay = policy.delay(attempt, failure.retry_after());
            progress(SummaryProgress::Retrying {
                attempt,
                delay,
                reason: classify::scrub(&failure.reason(), &self.api_key),
            });
            tokio::select! {
                biased;
                () = cancel.cancelled() => {
                    return Err(SummarizerError::Cancelled { attempts: requests, elapsed: started.elapsed() });
                }
                () = tokio::time::sleep(delay) => {}
            }
        }
    }

    /// The window a reply cut at the output limit reveals: when it holds fewer tokens than
    /// `body` asked for, the server lowered the limit to the room its window left, so the
    /// window is the prompt's tokens and the reply's. The reply's tokens are its reported
    /// usage, else its stream events (one per token from llama.cpp's servers); the prompt's
    /// are its reported usage, else asked for with the same request unstreamed with an
    /// output limit of one token (whose usage is returned: it was a request too).
    async fn window_of_cut(
        &self,
        body: &serde_json::Value,
        completed: &Completed,
        cancel: &CancellationToken,
    ) -> (Option<u64>, Option<SummaryUsage>) {
        let asked = ["max_tokens", "max_completion_tokens"]
            .iter()
            .find_map(|field| body.get(*field).and_then(serde_json::Value::as_u64));
        let generated =
            if completed.usage_reported { completed.usage.output_tokens } else { completed.pieces };
        // The count must be one of tokens: at most `MAX_CHARS_PER_TOKEN` characters each (a
        // server whose events carry many tokens each, or whose usage does not count this
        // reply, says nothing about its window).
        let chars = completed.text.chars().count() as u64;
        let counted = generated > 0 && chars <= generated.saturating_mul(MAX_CHARS_PER_TOKEN);
        if !self.asks_for_window() || !counted || asked.is_none_or(|asked| generated >= asked) {
            return (None, None);
        }
        if completed.usage_reported {
            let prompt = completed.usage.input_tokens + completed.usage.cache_read_tokens;
            return ((prompt > 0).then_some(prompt + generated), None);
        }
        let probe = tokio::select! {
            biased;
            () = cancel.cancelled() => return (None, None),
            probe = self.overflow_check(body) => probe,
        };
        match probe {
            Ok(probe) => {
                let usage = self.record(&probe);
                let prompt = probe.usage.input_tokens + probe.usage.cache_read_tokens;
                let window = (probe.usage_reported && prompt > 0).then_some(prompt + generated);
                (window, Some(usage))
            }
            // The request reached the server all the same.
            Err(_failure) => (None, Some(SummaryUsage::default())),
        }
    }

    /// The request in `body` sent unstreamed with an output limit of one token: an overflow
    /// comes back as [`Failure::Overflow`] (llama-cpp-python names its window there), a
    /// request that fits as a (one-token) completion.
    async fn overflow_check(&self, body: &serde_json::Value) -> Result<Completed, Failure> {
        let mut check = body.clone();
        if let Some(object) = check.as_object_mut() {
            object.insert("stream".to_owned(), serde_json::Value::Bool(false));
            object.remove("stream_options");
            for field in ["max_tokens", "max_completion_tokens"] {
                if object.contains_key(field) {
                    object.insert(field.to_owned(), serde_json::Value::from(1));
                }
            }
        }
        let mut ignored = false;
        let nothing = |_: SummaryProgress| {};
        self.attempt(&check, &mut ignored, &nothing, &|_: &str| {}).await
    }
}
