//! The summary model, its window and the summarizer: the offline summarizer unless a
//! provider is named, else an LLM summarizer for the summary model, its requests sized for
//! the summary model's window.

use compaction_core::context::ModelRef;
use compaction_core::models;
use compaction_core::settings::SettingSource;

use super::{Note, Setup, SetupError};
use crate::provider::{LlmSummarizer, ProviderConfig, ProviderKind};
use crate::summarizer::Summarizer;

/// Which summarizer the caller asks for (the command's `--provider`, `--model`,
/// `--summary-model`, `--base-url`, `--api-key-env` and `--offline`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SummarizerChoice {
    /// `openai` or `anthropic`; `None` is the offline summarizer.
    pub provider: Option<String>,
    /// The chat model.
    pub model: Option<String>,
    /// The model that writes summaries, when not the chat model.
    pub summary_model: Option<String>,
    /// The provider's endpoint.
    pub base_url: Option<String>,
    /// The variable the API key is read from, instead of the provider's own.
    pub api_key_env: Option<String>,
    /// The offline summarizer even when a provider is named.
    pub offline: bool,
}

impl SummarizerChoice {
    /// Whether the offline summarizer is used.
    pub fn is_offline(&self) -> bool {
        self.offline || self.provider.is_none()
    }
}

/// Where the summary model's id came from.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ModelSource {
    /// [`SummarizerChoice::summary_model`] (`--summary-model`).
    SummaryModel,
    /// The `summaryModel` setting, from the layer named.
    Setting(SettingSource),
    /// [`SummarizerChoice::model`], the chat model (`--model`).
    ChatModel,
    /// The session's model (used only when the session used the provider named).
    Session(ModelRef),
}

/// The model that writes summaries when a provider is used, and where its id came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SummaryModel {
    /// The model id sent to the provider.
    pub id: String,
    /// Where the id came from.
    pub source: ModelSource,
    /// The same for the user (`--model`, `summaryModel` in a file, …).
    pub from: String,
}

impl Setup {
    /// The summary model: [`SummarizerChoice::summary_model`], else `summaryModel`
    /// (settings), else the chat model, else the session's model when the session used the
    /// same provider as the one named (an Anthropic model id means nothing to an
    /// OpenAI-compatible server). `None` when there is none.
    pub fn summary_model(
        &self,
        choice: &SummarizerChoice,
        session: Option<&ModelRef>,
    ) -> Option<SummaryModel> {
        let model = |id: &str, source: ModelSource, from: String| {
            Some(SummaryModel { id: id.to_owned(), source, from })
        };
        if let Some(id) = &choice.summary_model {
            return model(id, ModelSource::SummaryModel, "--summary-model".to_owned());
        }
        if let Some(id) = &self.resolved.settings.summary_model {
            let layer = self.resolved.source_of("summaryModel");
            let from = format!("`summaryModel` in {}", layer.describe_for("summaryModel"));
            return model(id, ModelSource::Setting(layer), from);
        }
        if let Some(id) = &choice.model {
            return model(id, ModelSource::ChatModel, "--model".to_owned());
        }
        let session = session?;
        let same_provider = choice.provider.as_deref().is_none_or(|p| p == session.provider);
        same_provider.then(|| SummaryModel {
            id: session.model_id.clone(),
            source: ModelSource::Session(session.clone()),
            from: format!("the session, whose model is {}/{}", session.provider, session.model_id),
        })
    }

    /// The summary model's window without building a client (for a plan); `None` offline.
    pub fn summary_window(
        &self,
        choice: &SummarizerChoice,
        session: Option<&ModelRef>,
    ) -> Option<u64> {
        if choice.is_offline() {
            return None;
        }
        Some(self.summary_model_window(choice, session))
    }

    /// The summary model's window: `summaryContextWindow` when set; else, when the summary
    /// model is the chat model, the chat model's window (so `contextWindow` sizes summarizer
    /// requests too); else the model table for the summary model.
    fn summary_model_window(&self, choice: &SummarizerChoice, session: Option<&ModelRef>) -> u64 {
        if let Some(window) = self.resolved.settings.summary_context_window {
            return window;
        }
        let chat_model = choice.model.as_deref().or(session.map(|m| m.model_id.as_str()));
        let summary = self.summary_model(choice, session).map(|model| model.id);
        if summary.is_none() || summary.as_deref() == chat_model {
            return self.chat_window(choice.model.as_deref(), session, None).tokens;
        }
        models::context_window(summary.as_deref(), None)
    }

    /// The summarizer, and the secret values that must be redacted from what it is sent
    /// (the API key in use). A [`Note::Provider`] names the provider and model before the
    /// client is built.
    pub fn summarizer(
        &self,
        choice: &SummarizerChoice,
        session: Option<&ModelRef>,
    ) -> Result<(Box<dyn Summarizer>, Vec<String>), SetupError> {
        let Some(provider) = choice.provider.as_deref().filter(|_| !choice.offline) else {
            return Ok((Box::new(crate::offline::OfflineSummarizer), Vec::new()));
        };
        let kind: ProviderKind = provider
            .parse()
            .map_err(|_| SetupError::UnknownProvider { provider: provider.to_owned() })?;
        let model = self.summary_model(choice, session).ok_or_else(|| SetupError::NoModel {
            provider: provider.to_owned(),
            session: session.cloned(),
        })?;
        let mut config = ProviderConfig::new(kind, model.id.clone());
        config.base_url = choice.base_url.clone();
        config.api_key_env = choice.api_key_env.clone();
        self.note(Note::Provider {
            provider: provider.to_owned(),
            base_url: choice.base_url.clone(),
            model,
        });
        let secret = std::env::var(config.api_key_var()).ok().into_iter().collect();
        let key_var = config.api_key_var().to_owned();
        let summarizer = LlmSummarizer::from_config(config)
            .map_err(|error| SetupError::Provider { error, key_var })?
            .with_context_window(self.summary_model_window(choice, session))
            .with_concurrency(self.resolved.settings.summary_concurrency)
            .with_explicit_window(self.window_is_explicit());
        Ok((Box::new(summarizer), secret))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use compaction_core::settings::{CompactionSettings, ResolvedSettings};

    /// Settings as if every value came from the defaults.
    fn setup(settings: CompactionSettings) -> Setup {
        let resolved = ResolvedSettings {
            settings,
            sources: Default::default(),
            window_scaled: Default::default(),
            warnings: Vec::new(),
        };
        Setup::from_resolved(resolved, std::path::Path::new("/nonexistent"))
    }

    fn session(provider: &str, id: &str) -> ModelRef {
        ModelRef { provider: provider.to_owned(), model_id: id.to_owned() }
    }

    fn choice(model: Option<&str>, summary_model: Option<&str>) -> SummarizerChoice {
        SummarizerChoice {
            provider: Some("openai".to_owned()),
            model: model.map(str::to_owned),
            summary_model: summary_model.map(str::to_owned),
            ..SummarizerChoice::default()
        }
    }

    /// A chat model with a 32 000-token window: the summarizer writes with the chat model,
    /// so its requests are sized for 32 000 tokens, not the table's 128 000.
    #[test]
    fn summary_window_follows_the_chat_window_when_the_models_are_the_same() {
        let setup = setup(CompactionSettings {
            context_window: Some(32_000),
            ..CompactionSettings::default()
        });
        assert_eq!(setup.summary_window(&choice(Some("local"), None), None), Some(32_000));
        // The session's model as the chat model, the same id named as the summary model.
        let same = choice(None, Some("local"));
        assert_eq!(setup.summary_window(&same, Some(&session("openai", "local"))), Some(32_000));
        // Offline: no window at all.
        let offline = SummarizerChoice { offline: true, ..choice(Some("local"), None) };
        assert_eq!(setup.summary_window(&offline, None), None);
    }

    #[test]
    fn a_separate_summary_model_has_its_own_window() {
        let settings =
            CompactionSettings { context_window: Some(32_000), ..CompactionSettings::default() };
        let separate = choice(Some("local"), Some("claude-sonnet-4-5"));
        assert_eq!(setup(settings.clone()).summary_window(&separate, None), Some(200_000));
        let own = CompactionSettings { summary_context_window: Some(16_000), ..settings };
        assert_eq!(setup(own).summary_window(&separate, None), Some(16_000));
    }

    #[test]
    fn the_summarizer_is_built_with_the_summary_window() {
        let setup = setup(CompactionSettings {
            context_window: Some(32_000),
            ..CompactionSettings::default()
        });
        let mut local = choice(Some("local"), None);
        local.base_url = Some("http://127.0.0.1:9/v1".to_owned());
        local.api_key_env = Some("COMPACTION_TEST_KEY_NEVER_SET".to_owned());
        let (summarizer, _secrets) = setup.summarizer(&local, None).unwrap();
        // Requests are planned with a tenth kept free: the server's tokenizer is unknown.
        assert_eq!(summarizer.context_window(), Some(32_000 - 3_200));
        // A server on this machine gets one request at a time.
        assert_eq!(summarizer.concurrency(), 1);
    }

    /// A provider without a model: the session's model is used only when the session used
    /// that provider.
    #[test]
    fn the_sessions_model_is_used_only_with_its_own_provider() {
        let setup = setup(CompactionSettings::default());
        let no_model = choice(None, None);
        let claude = session("anthropic", "claude-opus-4-1");
        assert_eq!(setup.summary_model(&no_model, Some(&claude)), None);
        let local = session("openai", "qwen2.5-coder:7b");
        let chosen = setup.summary_model(&no_model, Some(&local)).unwrap();
        assert_eq!(chosen.id, "qwen2.5-coder:7b");
        assert_eq!(chosen.source, ModelSource::Session(local));
        assert!(chosen.from.starts_with("the session"), "{}", chosen.from);
        let explicit = setup.summary_model(&choice(Some("gpt-4o"), None), Some(&claude));
        assert_eq!(
            explicit.map(|m| (m.id, m.source)),
            Some(("gpt-4o".into(), ModelSource::ChatModel))
        );
        let unknown = SummarizerChoice { provider: Some("bedrock".into()), ..no_model };
        assert!(matches!(
            setup.summarizer(&unknown, None),
            Err(SetupError::UnknownProvider { provider }) if provider == "bedrock"
        ));
    }
}
