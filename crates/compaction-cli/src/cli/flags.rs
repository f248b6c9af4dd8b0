//! Flags several commands share: the settings they override, the summarizer, the extensions,
//! the session and leaf they work on.

use std::path::PathBuf;

use clap::Args;

/// The names `--provider` takes (with the aliases the provider configuration accepts).
pub(super) fn provider_names() -> clap::builder::PossibleValuesParser {
    use clap::builder::PossibleValue;
    clap::builder::PossibleValuesParser::new([
        PossibleValue::new("openai")
            .help("OpenAI and OpenAI-compatible servers (llama.cpp, vLLM, Ollama, …)")
            .aliases(["openai-compatible", "openai-completions"]),
        PossibleValue::new("anthropic").help("Anthropic's Messages API"),
    ])
}

/// The names `--estimator` takes (those this build has).
pub(super) fn estimator_names() -> clap::builder::PossibleValuesParser {
    clap::builder::PossibleValuesParser::new(compaction_core::tokens::ESTIMATOR_NAMES)
}

/// Settings a command can override (highest precedence: flags > env > project > global).
#[derive(Debug, Clone, Default, Args)]
pub struct CompactionFlags {
    /// Recent tokens kept verbatim (`keepRecentTokens`).
    #[arg(long, value_name = "TOKENS")]
    pub keep_recent: Option<u64>,
    /// Tokens reserved for the model's reply (`reserveTokens`).
    #[arg(long, value_name = "TOKENS")]
    pub reserve: Option<u64>,
    /// Tokens for the user's latest messages kept word for word in the summary, beyond the
    /// room the summary leaves of its own budget (`keepUserMessagesTokens`; default 2048, at most a sixteenth of the window).
    #[arg(long, value_name = "TOKENS")]
    pub keep_user_messages: Option<u64>,
    /// User turns always kept verbatim when they fit (`minTurnsToKeep`).
    #[arg(long, value_name = "N")]
    pub min_turns: Option<u64>,
    /// The chat model's context window, overriding the model table (`contextWindow`).
    #[arg(long, value_name = "TOKENS")]
    pub context_window: Option<u64>,
    /// Token estimator: heuristic, pi, o200k or cl100k (`estimator`).
    #[arg(long, value_name = "NAME", value_parser = estimator_names())]
    pub estimator: Option<String>,
    /// Output budget of the summary in tokens (`maxSummaryTokens`; for `branch`, the branch
    /// summary's `branchMaxSummaryTokens`).
    #[arg(long, value_name = "TOKENS")]
    pub max_summary_tokens: Option<u64>,
    /// The summary model's window when it is not the chat model (`summaryContextWindow`).
    #[arg(long, value_name = "TOKENS")]
    pub summary_context_window: Option<u64>,
    /// Give up on a compaction or branch summary after this long (`timeoutSeconds`, 180).
    #[arg(long, value_name = "SECONDS")]
    pub timeout: Option<u64>,
}

/// Which summarizer writes the summary. Without `--provider`, the offline summarizer.
#[derive(Debug, Clone, Default, Args)]
pub struct SummarizerFlags {
    /// LLM provider: openai (and OpenAI-compatible servers) or anthropic.
    #[arg(long, value_name = "NAME", value_parser = provider_names(), ignore_case = true)]
    pub provider: Option<String>,
    /// The chat model (its window drives the trigger); default: the session's model.
    #[arg(long, value_name = "ID")]
    pub model: Option<String>,
    /// The model that writes summaries; default: `summaryModel` from settings, else --model.
    #[arg(long, value_name = "ID")]
    pub summary_model: Option<String>,
    /// Base URL of the provider's API (Ollama, llama.cpp, vLLM, OpenRouter, …).
    #[arg(long, value_name = "URL")]
    pub base_url: Option<String>,
    /// Environment variable holding the API key (default OPENAI_API_KEY / ANTHROPIC_API_KEY).
    #[arg(long, value_name = "VAR")]
    pub api_key_env: Option<String>,
    /// Use the offline summarizer even when a provider is configured.
    #[arg(long, conflicts_with = "provider")]
    pub offline: bool,
}

/// Extensions that may cancel, replace or steer a compaction or branch summary.
#[derive(Debug, Clone, Default, Args)]
pub struct ExtensionFlags {
    /// Run this command (through `sh -c`) as a process extension; repeatable. It reads one
    /// JSON event on stdin and answers one JSON decision (see docs/extensions.md).
    #[arg(long = "extension", value_name = "COMMAND")]
    pub extensions: Vec<String>,
    /// Skip every extension, including those configured in settings.
    #[arg(long, conflicts_with = "extensions")]
    pub no_extensions: bool,
    /// Run the extensions this project's own `.pi/settings.json` names (without it they
    /// run only for projects listed in the global setting `compaction.trustedProjects`).
    #[arg(long)]
    pub trust_project: bool,
}

/// Whether a plan may ask the summary model's server what `run` would ask it.
#[derive(Debug, Clone, Copy, Default, Args)]
pub struct AskServerFlag {
    /// Ask the summary model's server what `run` asks it, so the plan uses the same window:
    /// with --provider openai and a --base-url other than api.openai.com, GET <origin>/props,
    /// GET <base-url>/models and POST <origin>/api/show (body: the model name), then POST
    /// <origin>/tokenize with the start of the redacted transcript (at most 16 KB). Each
    /// carries the API key's header when the key variable is set. Without this flag the plan
    /// sends nothing and uses the configured window.
    #[arg(long)]
    pub ask_server: bool,
}

/// A session file and an optional leaf.
#[derive(Debug, Args)]
pub struct SessionArgs {
    /// The session file (`.jsonl`).
    pub file: PathBuf,
    /// Use this entry as the leaf instead of the last entry of the file.
    #[arg(long, value_name = "ID")]
    pub leaf: Option<String>,
}
