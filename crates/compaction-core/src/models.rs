//! Context windows and output limits of common models, looked up by model id.
//!
//! Ids are matched by the longest known prefix after normalising: lower case, any
//! `provider/` route prefix dropped, a `:tag` suffix dropped (Ollama's `llama3.2:3b`,
//! `qwen2.5-coder:7b-instruct-q4_K_M`), dots turned into dashes (`claude-3.5-sonnet` and
//! `claude-3-5-sonnet-20241022` both match `claude-3-5-sonnet`), and a vendor prefix such as
//! Bedrock's `anthropic.` skipped. Unknown models get [`DEFAULT_CONTEXT_WINDOW`]; settings
//! (`contextWindow`) or `--context-window` override the table. [`resolve_context_window`]
//! also says which of these gave the window.
//!
//! Windows are what the model was trained for. A local server may run it with a smaller one
//! (Ollama's `num_ctx`, llama.cpp's `-c`): pass that as `--context-window`.
//!
//! Invariant: every lookup returns a window of at least one token.

/// Window assumed for a model the table does not know.
pub const DEFAULT_CONTEXT_WINDOW: u64 = 128_000;

/// What the table knows about one model family.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ModelLimits {
    /// The normalised id prefix this row matches.
    pub prefix: &'static str,
    /// Input + output tokens the model accepts.
    pub context_window: u64,
    /// Most tokens one reply can hold.
    pub max_output_tokens: u64,
}

const fn row(prefix: &'static str, context_window: u64, max_output_tokens: u64) -> ModelLimits {
    ModelLimits { prefix, context_window, max_output_tokens }
}

/// The known model families (vendor documentation, late 2025).
pub const MODEL_TABLE: &[ModelLimits] = &[
    // OpenAI
    row("gpt-3-5-turbo", 16_385, 4_096),
    row("gpt-4", 8_192, 8_192),
    row("gpt-4-32k", 32_768, 8_192),
    row("gpt-4-turbo", 128_000, 4_096),
    row("gpt-4o", 128_000, 16_384),
    row("chatgpt-4o", 128_000, 16_384),
    row("gpt-4-1", 1_047_576, 32_768),
    row("gpt-5", 400_000, 128_000),
    row("gpt-5-chat", 128_000, 16_384),
    row("gpt-oss", 131_072, 32_768),
    row("o1", 200_000, 100_000),
    row("o1-mini", 128_000, 65_536),
    row("o1-preview", 128_000, 32_768),
    row("o3", 200_000, 100_000),
    row("o3-mini", 200_000, 100_000),
    row("o4-mini", 200_000, 100_000),
    row("codex-mini", 200_000, 100_000),
    // Anthropic
    row("claude-3-haiku", 200_000, 4_096),
    row("claude-3-opus", 200_000, 4_096),
    row("claude-3-sonnet", 200_000, 4_096),
    row("claude-3-5-haiku", 200_000, 8_192),
    row("claude-3-5-sonnet", 200_000, 8_192),
    row("claude-3-7-sonnet", 200_000, 64_000),
    row("claude-sonnet-4", 200_000, 64_000),
    row("claude-opus-4", 200_000, 32_000),
    row("claude-opus-4-5", 200_000, 64_000),
    row("claude-haiku-4-5", 200_000, 64_000),
    // Google
    row("gemini-1-5-pro", 2_097_152, 8_192),
    row("gemini-1-5-flash", 1_048_576, 8_192),
    row("gemini-2-0-flash", 1_048_576, 8_192),
    row("gemini-2-5-pro", 1_048_576, 65_536),
    row("gemini-2-5-flash", 1_048_576, 65_536),
    row("gemini-3-pro", 1_048_576, 65_536),
    // Open models
    row("llama-3", 8_192, 8_192),
    row("llama-3-1", 131_072, 8_192),
    row("llama-3-2", 131_072, 8_192),
    row("llama-3-3", 131_072, 8_192),
    row("llama-4", 1_048_576, 8_192),
    row("qwen2", 32_768, 8_192),
    row("qwen2-5", 32_768, 8_192),
    row("qwen2-5-coder", 32_768, 8_192),
    row("qwen3", 131_072, 32_768),
    row("qwen3-coder", 262_144, 65_536),
    row("deepseek-chat", 128_000, 8_192),
    row("deepseek-reasoner", 128_000, 64_000),
    row("deepseek-v3", 128_000, 8_192),
    row("deepseek-r1", 128_000, 32_768),
    row("mistral-large", 128_000, 8_192),
    row("mistral-medium", 128_000, 8_192),
    row("mistral-small", 128_000, 8_192),
    row("codestral", 256_000, 8_192),
    row("devstral", 128_000, 8_192),
    row("mixtral-8x7b", 32_768, 8_192),
    row("mixtral-8x22b", 65_536, 8_192),
    row("kimi-k2", 131_072, 16_384),
    row("glm-4-5", 131_072, 98_304),
    row("glm-4-6", 204_800, 131_072),
    // Local model families under the names Ollama and llama.cpp servers use (the `:tag`
    // with size and quantisation is dropped before the lookup).
    row("llama2", 4_096, 4_096),
    row("llama3", 8_192, 8_192),
    row("llama3-1", 131_072, 8_192),
    row("llama3-2", 131_072, 8_192),
    row("llama3-3", 131_072, 8_192),
    row("llama4", 1_048_576, 8_192),
    row("codellama", 16_384, 4_096),
    row("mistral", 32_768, 8_192),
    row("mistral-nemo", 131_072, 8_192),
    row("mixtral", 32_768, 8_192),
    row("gemma", 8_192, 8_192),
    row("gemma2", 8_192, 8_192),
    row("gemma3", 131_072, 8_192),
    // The two small Gemma 3 sizes have a quarter of that: 270M's GGUF says
    // `gemma3.context_length` 32768, and the model card gives 1B 32K as well.
    row("gemma3-270m", 32_768, 8_192),
    row("gemma3-1b", 32_768, 8_192),
    row("gemma-3-270m", 32_768, 8_192),
    row("gemma-3-1b", 32_768, 8_192),
    row("gemma3n", 32_768, 8_192),
    row("phi3", 4_096, 4_096),
    row("phi3-5", 131_072, 4_096),
    row("phi4", 16_384, 4_096),
    row("phi4-mini", 131_072, 4_096),
    row("deepseek-coder", 16_384, 4_096),
    row("deepseek-coder-v2", 163_840, 8_192),
    row("starcoder2", 16_384, 4_096),
    row("codegemma", 8_192, 8_192),
    row("command-r", 131_072, 4_096),
    row("granite3-1", 131_072, 8_192),
    row("granite3-2", 131_072, 8_192),
    row("granite3-3", 131_072, 8_192),
    row("smollm2", 8_192, 8_192),
    row("tinyllama", 2_048, 2_048),
];

/// The table row for `model_id`, if any.
pub fn model_limits(model_id: &str) -> Option<ModelLimits> {
    let normalized = normalize(model_id);
    let candidates = [Some(normalized.as_str()), normalized.split_once('.').map(|(_, rest)| rest)];
    let mut best: Option<ModelLimits> = None;
    for candidate in candidates.into_iter().flatten() {
        for limits in MODEL_TABLE {
            if matches_prefix(candidate, limits.prefix)
                && best.is_none_or(|b| limits.prefix.len() > b.prefix.len())
            {
                best = Some(*limits);
            }
        }
    }
    best
}

/// The context window for `model_id`: `override_window` when given, else the table, else
/// [`DEFAULT_CONTEXT_WINDOW`].
pub fn context_window(model_id: Option<&str>, override_window: Option<u64>) -> u64 {
    resolve_context_window(model_id, override_window).tokens
}

/// Which rule gave a context window.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WindowSource {
    /// A window configured by the caller (`contextWindow`, `--context-window`).
    Override,
    /// The model table's row for the model.
    ModelTable {
        /// The model id looked up.
        model: String,
        /// The table row (normalised id prefix) that matched.
        row: &'static str,
    },
    /// [`DEFAULT_CONTEXT_WINDOW`]: no model id, or one the table does not know.
    Default {
        /// The model id looked up, if there was one.
        model: Option<String>,
    },
}

/// A context window and the rule that gave it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResolvedWindow {
    /// The window in tokens (at least 1).
    pub tokens: u64,
    /// Where it came from.
    pub source: WindowSource,
}

/// [`context_window`], also saying where the window came from.
pub fn resolve_context_window(
    model_id: Option<&str>,
    override_window: Option<u64>,
) -> ResolvedWindow {
    if let Some(tokens) = override_window.filter(|&window| window > 0) {
        return ResolvedWindow { tokens, source: WindowSource::Override };
    }
    match model_id.and_then(|id| model_limits(id).map(|limits| (id, limits))) {
        Some((id, limits)) => ResolvedWindow {
            tokens: limits.context_window,
            source: WindowSource::ModelTable { model: id.to_owned(), row: limits.prefix },
        },
        None => ResolvedWindow {
            tokens: DEFAULT_CONTEXT_WINDOW,
            source: WindowSource::Default { model: model_id.map(str::to_owned) },
        },
    }
}

fn normalize(model_id: &str) -> String {
    let tail = model_id.rsplit('/').next().unwrap_or(model_id);
    // Ollama's `family:tag` (size, quantisation) names one model of the family; a size at
    // the start of the tag (`gemma3:270m`, `qwen2.5:14b-instruct`) is kept as
    // `family-size`, since a few sizes of a family have their own window.
    let tail = match tail.split_once(':') {
        Some((family, tag)) => match model_size(tag) {
            Some(size) => format!("{family}-{size}"),
            None => family.to_owned(),
        },
        None => tail.to_owned(),
    };
    let lower = tail.to_ascii_lowercase();
    // Keep a vendor dot (`anthropic.claude…`) but turn version dots into dashes.
    match lower.split_once('.') {
        Some((vendor, rest))
            if vendor.chars().all(|c| c.is_ascii_alphabetic()) && vendor.len() > 2 =>
        {
            format!("{vendor}.{}", rest.replace('.', "-"))
        }
        Some(_) | None => lower.replace('.', "-"),
    }
}

/// The parameter count a tag starts with (`270m`, `7b`, `1.5b`), lower-cased.
fn model_size(tag: &str) -> Option<String> {
    let size: String = tag.chars().take_while(|c| *c != '-' && *c != '_').collect();
    let lower = size.to_ascii_lowercase();
    let number = lower.strip_suffix('b').or_else(|| lower.strip_suffix('m'))?;
    let plain = number.replace('.', "");
    (!plain.is_empty() && plain.chars().all(|c| c.is_ascii_digit())).then_some(lower)
}

/// `id` starts with `prefix`, and the match ends at a boundary (`gpt-4` must not match
/// `gpt-40`, while `gpt-4o` is its own row).
fn matches_prefix(id: &str, prefix: &str) -> bool {
    match id.strip_prefix(prefix) {
        Some(rest) => {
            rest.is_empty()
                || !rest.starts_with(|c: char| c.is_ascii_digit())
                || prefix.ends_with(|c: char| !c.is_ascii_digit())
        }
        None => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn window(id: &str) -> Option<u64> {
        model_limits(id).map(|limits| limits.context_window)
    }

    #[test]
    fn common_ids_resolve() {
        assert_eq!(window("gpt-4o-2024-08-06"), Some(128_000));
        assert_eq!(window("gpt-4.1-mini"), Some(1_047_576));
        assert_eq!(window("gpt-5-codex"), Some(400_000));
        assert_eq!(window("gpt-4"), Some(8_192));
        assert_eq!(window("o3-mini"), Some(200_000));
        assert_eq!(window("claude-3-5-sonnet-20241022"), Some(200_000));
        assert_eq!(model_limits("claude-3.7-sonnet").map(|l| l.max_output_tokens), Some(64_000));
        assert_eq!(
            model_limits("claude-opus-4-1-20250805").map(|l| l.max_output_tokens),
            Some(32_000)
        );
        assert_eq!(model_limits("claude-opus-4-5").map(|l| l.max_output_tokens), Some(64_000));
        assert_eq!(window("anthropic/claude-sonnet-4.5"), Some(200_000));
        assert_eq!(window("anthropic.claude-3-5-haiku-20241022-v1:0"), Some(200_000));
        assert_eq!(window("models/gemini-2.5-pro"), Some(1_048_576));
        assert_eq!(window("meta-llama/Llama-3.3-70B-Instruct"), Some(131_072));
        assert_eq!(window("Qwen/Qwen3-Coder-480B-A35B-Instruct"), Some(262_144));
        assert_eq!(window("deepseek-chat"), Some(128_000));
        assert_eq!(window("mistral-large-latest"), Some(128_000));
    }

    #[test]
    fn local_model_ids_with_tags_resolve_to_their_family() {
        assert_eq!(window("llama3.2:3b"), Some(131_072));
        assert_eq!(window("llama3:8b"), Some(8_192));
        assert_eq!(window("qwen2.5-coder:7b"), Some(32_768));
        assert_eq!(window("qwen2.5:14b-instruct-q4_K_M"), Some(32_768));
        assert_eq!(window("qwen3:8b"), Some(131_072));
        assert_eq!(window("mistral:7b"), Some(32_768));
        assert_eq!(window("mistral-nemo:12b"), Some(131_072));
        assert_eq!(window("mixtral:8x7b"), Some(32_768));
        assert_eq!(window("gemma2:9b"), Some(8_192));
        assert_eq!(window("gemma3:27b"), Some(131_072));
        assert_eq!(window("gemma3:270m"), Some(32_768));
        assert_eq!(window("gemma3-270m"), Some(32_768));
        assert_eq!(window("gemma3:1b-it-qat"), Some(32_768));
        assert_eq!(window("google/gemma-3-270m-it"), Some(32_768));
        assert_eq!(window("gemma3:12b"), Some(131_072));
        assert_eq!(window("phi3:mini"), Some(4_096));
        assert_eq!(window("phi4:14b"), Some(16_384));
        assert_eq!(window("deepseek-r1:8b"), Some(128_000));
        assert_eq!(window("deepseek-coder-v2:16b"), Some(163_840));
        assert_eq!(window("codellama:13b"), Some(16_384));
        // A Bedrock id's `:0` version suffix still finds its row.
        assert_eq!(window("anthropic.claude-3-5-haiku-20241022-v1:0"), Some(200_000));
        assert_eq!(
            resolve_context_window(Some("llama3.2:3b"), None).source,
            WindowSource::ModelTable { model: "llama3.2:3b".into(), row: "llama3-2" }
        );
        assert_eq!(
            resolve_context_window(Some("my-model:1b"), None).source,
            WindowSource::Default { model: Some("my-model:1b".into()) }
        );
        assert_eq!(resolve_context_window(Some("llama3.2:3b"), Some(8192)).tokens, 8192);
    }

    #[test]
    fn unknown_models_and_overrides() {
        assert_eq!(window("my-local-model"), None);
        assert_eq!(window("gpt-40"), None);
        assert_eq!(context_window(Some("my-local-model"), None), DEFAULT_CONTEXT_WINDOW);
        assert_eq!(context_window(None, None), DEFAULT_CONTEXT_WINDOW);
        assert_eq!(context_window(Some("gpt-4o"), Some(50_000)), 50_000);
        assert_eq!(context_window(Some("claude-sonnet-4"), None), 200_000);
    }
}
