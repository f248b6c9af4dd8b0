//! Asking a server for the window it runs: llama.cpp's `llama-server` (`GET /props`,
//! `n_ctx`), Ollama (`POST /api/show`, the model's `num_ctx` parameter) and vLLM
//! (`GET /v1/models`, `max_model_len`). Servers that tell nothing (llama-cpp-python: `/props`
//! is 404, `/v1/models` has no window) teach it with their first over-window answer instead
//! (see [`super::classify::overflow_window`]).
//!
//! Invariant: only OpenAI-compatible servers other than the OpenAI API are asked, the
//! questions together (and `/tokenize` alone) are bounded by a short timeout and a size, and
//! any failure means "the server did not say" (never an error).

use std::time::Duration;

use serde_json::Value;

use super::{ProviderClient, ProviderKind};

/// Longest wait for the window questions together, and for one `/tokenize` answer, body
/// included.
const DISCOVERY_TIMEOUT: Duration = Duration::from_secs(3);

/// The largest discovery answer read (`/props`, `/v1/models`, `/api/show`): real ones are a
/// few kilobytes (llama-server's `/props` with its chat template, tens); a larger one is not
/// read on, and counts as no answer.
pub const MAX_DISCOVERY_BYTES: usize = 1024 * 1024;

/// A window a server reported, and which question it answered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerWindow {
    /// The window in tokens.
    pub tokens: u64,
    /// Where it was read, for the user: `GET /props (n_ctx)` and the like.
    pub endpoint: String,
}

impl ProviderClient {
    /// The window the server runs, when it tells: `None` for the OpenAI and Anthropic APIs
    /// (the model table knows their windows) and for servers that do not say.
    pub async fn server_window(&self) -> Option<ServerWindow> {
        if !self.asks_for_window() {
            return None;
        }
        // The questions share one deadline: a server that drips each answer slowly costs
        // [`DISCOVERY_TIMEOUT`] in all, not that much per question.
        tokio::time::timeout(DISCOVERY_TIMEOUT, self.ask_window()).await.ok().flatten()
    }

    async fn ask_window(&self) -> Option<ServerWindow> {
        let config = self.config();
        let base = config.effective_base_url().to_owned();
        let url = reqwest::Url::parse(&base).ok()?;
        let origin = url.origin().ascii_serialization();
        if let Some(tokens) =
            self.get_json(&format!("{origin}/props")).await.and_then(|v| props_n_ctx(&v))
        {
            return Some(ServerWindow { tokens, endpoint: "GET /props (n_ctx)".to_owned() });
        }
        if let Some(tokens) = self
            .get_json(&format!("{base}/models"))
            .await
            .and_then(|v| models_max_len(&v, &config.model))
        {
            return Some(ServerWindow {
                tokens,
                endpoint: "GET /v1/models (max_model_len)".to_owned(),
            });
        }
        let show = serde_json::json!({ "model": config.model });
        let answer = self.post_json(&format!("{origin}/api/show"), &show).await;
        if let Some(tokens) = answer.as_ref().and_then(ollama_num_ctx) {
            return Some(ServerWindow { tokens, endpoint: "POST /api/show (num_ctx)".to_owned() });
        }
        None
    }

    /// Whether the server is one that may tell its window: an OpenAI-compatible server at a
    /// base URL other than the OpenAI API's.
    pub fn asks_for_window(&self) -> bool {
        let config = self.config();
        let Some(base) = &config.base_url else { return false };
        config.kind == ProviderKind::OpenAi
            && reqwest::Url::parse(base).is_ok_and(|url| url.host_str() != Some("api.openai.com"))
    }

    /// How many tokens the server's tokenizer makes of `text`, when it has llama.cpp's
    /// `POST /tokenize` (`{"content": …}` → `{"tokens": […]}`).
    pub async fn count_tokens(&self, text: &str) -> Option<u64> {
        if !self.asks_for_window() {
            return None;
        }
        let url = reqwest::Url::parse(self.config().effective_base_url()).ok()?;
        let origin = url.origin().ascii_serialization();
        // A token is at least one byte of text, and its id at most 11 bytes of JSON
        // (with the comma): an answer larger than that is not a count of this text.
        let cap = text.len().saturating_mul(12).saturating_add(4096);
        let request = self.http().post(format!("{origin}/tokenize")).headers(self.headers());
        let answer = read_json(request.json(&serde_json::json!({ "content": text })), cap).await?;
        let counted = answer.get("tokens").and_then(Value::as_array)?.len() as u64;
        // A count larger than the text's bytes (a few special tokens aside) is no count of it.
        (counted <= text.len() as u64 + 16).then_some(counted)
    }

    async fn get_json(&self, url: &str) -> Option<Value> {
        let request = self.http().get(url).headers(self.headers());
        read_json(request, MAX_DISCOVERY_BYTES).await
    }

    async fn post_json(&self, url: &str, body: &Value) -> Option<Value> {
        let request = self.http().post(url).headers(self.headers()).json(body);
        read_json(request, MAX_DISCOVERY_BYTES).await
    }
}

/// The JSON answer to `request`, read within [`DISCOVERY_TIMEOUT`] and at most `cap` bytes;
/// `None` when it fails, is slower or larger (the rest is never read), or is not JSON.
async fn read_json(request: reqwest::RequestBuilder, cap: usize) -> Option<Value> {
    let answer = async {
        let mut response = request.send().await.ok()?;
        if !response.status().is_success() {
            return None;
        }
        if response.content_length().is_some_and(|length| length > cap as u64) {
            return None;
        }
        let mut body = Vec::new();
        while let Some(chunk) = response.chunk().await.ok()? {
            if body.len() + chunk.len() > cap {
                return None;
            }
            body.extend_from_slice(&chunk);
        }
        std::str::from_utf8(&body)
            .ok()
            .and_then(|text| compaction_core::entry::from_json_text::<Value>(text).ok())
    };
    tokio::time::timeout(DISCOVERY_TIMEOUT, answer).await.ok().flatten()
}

/// llama-server's `/props`: `default_generation_settings.n_ctx` (or a top-level `n_ctx`).
fn props_n_ctx(value: &Value) -> Option<u64> {
    value
        .get("default_generation_settings")
        .and_then(|settings| settings.get("n_ctx"))
        .or_else(|| value.get("n_ctx"))
        .and_then(Value::as_u64)
        .filter(|tokens| *tokens > 0)
}

/// vLLM's `/v1/models`: `max_model_len` of the entry whose id is the model (or of the only
/// entry).
fn models_max_len(value: &Value, model: &str) -> Option<u64> {
    let data = value.get("data").and_then(Value::as_array)?;
    let entry = data
        .iter()
        .find(|entry| entry.get("id").and_then(Value::as_str) == Some(model))
        .or_else(|| (data.len() == 1).then(|| &data[0]))?;
    entry.get("max_model_len").and_then(Value::as_u64).filter(|tokens| *tokens > 0)
}

/// Ollama's `/api/show`: the `num_ctx` line of `parameters`, the window requests run with.
/// Without it Ollama runs its own default, whatever the model's `context_length` says, so
/// that value is not taken for the window.
fn ollama_num_ctx(value: &Value) -> Option<u64> {
    let parameters = value.get("parameters").and_then(Value::as_str)?;
    parameters.lines().find_map(|line| {
        let mut words = line.split_whitespace();
        (words.next() == Some("num_ctx")).then(|| words.next()?.parse::<u64>().ok())?
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn answers_are_read() {
        assert_eq!(
            props_n_ctx(&json!({"default_generation_settings": {"n_ctx": 8192}, "total_slots": 1})),
            Some(8192)
        );
        assert_eq!(props_n_ctx(&json!({"detail": "Not Found"})), None);
        assert_eq!(
            models_max_len(
                &json!({"data": [{"id": "a", "max_model_len": 4096}, {"id": "m", "max_model_len": 32768}]}),
                "m"
            ),
            Some(32768)
        );
        // llama-cpp-python's answer: no window.
        assert_eq!(
            models_max_len(
                &json!({"object":"list","data":[{"id":"gemma3-270m","object":"model","owned_by":"me","permissions":[]}]}),
                "gemma3-270m"
            ),
            None
        );
        assert_eq!(
            ollama_num_ctx(
                &json!({"parameters": "stop \"<end_of_turn>\"\nnum_ctx 16384\ntemperature 1"})
            ),
            Some(16384)
        );
        assert_eq!(ollama_num_ctx(&json!({"model_info": {"gemma3.context_length": 131072}})), None);
    }
}
