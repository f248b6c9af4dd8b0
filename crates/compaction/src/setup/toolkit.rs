//! Everything a compaction runs with, resolved at once: [`Setup::toolkit`] and the
//! [`Toolkit`] whose [`Toolkit::compactor`] borrows it.

use compaction_core::context::ModelRef;
use compaction_core::serialize::Redactor;
use compaction_core::settings::CompactionSettings;
use compaction_core::tokens::TokenEstimator;

use super::{ExtensionChoice, Setup, SetupError, SummarizerChoice};
use crate::compactor::Compactor;
use crate::extension::Extensions;
use crate::summarizer::Summarizer;

/// Everything a compaction or a navigation runs with.
pub struct Toolkit {
    /// The settings, fitted to the chat window.
    pub settings: CompactionSettings,
    /// Counts tokens.
    pub estimator: Box<dyn TokenEstimator>,
    /// Writes the summaries.
    pub summarizer: Box<dyn Summarizer>,
    /// Hooks asked before and told after every compaction and branch summary.
    pub extensions: Extensions,
    /// Secrets to redact besides the built-in patterns (the API key in use).
    pub redactor: Redactor,
    /// The chat model's context window.
    pub context_window: u64,
}

impl std::fmt::Debug for Toolkit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Toolkit")
            .field("summarizer", &self.summarizer.label())
            .field("estimator", &self.estimator.name())
            .field("context_window", &self.context_window)
            .finish_non_exhaustive()
    }
}

impl Toolkit {
    /// The orchestrator over this toolkit.
    pub fn compactor(&self) -> Compactor<'_> {
        Compactor {
            summarizer: self.summarizer.as_ref(),
            settings: &self.settings,
            context_window: self.context_window,
            estimator: self.estimator.as_ref(),
            redactor: self.redactor.clone(),
            extensions: &self.extensions,
        }
    }
}

impl Setup {
    /// Resolves everything for a session whose model is `session_model` and which may record
    /// its own window (`recorded_window`): the chat window (for the chat model the
    /// `summarizer` choice names, else the session's), the settings fitted to it, the
    /// estimator, the summarizer and the extensions.
    pub fn toolkit(
        mut self,
        summarizer: &SummarizerChoice,
        extensions: &ExtensionChoice,
        session_model: Option<&ModelRef>,
        recorded_window: Option<u64>,
    ) -> Result<Toolkit, SetupError> {
        let window = self.chat_window(summarizer.model.as_deref(), session_model, recorded_window);
        self.fit_to_window(&window, session_model)?;
        let estimator = self.estimator()?;
        let (summarizer, secrets) = self.summarizer(summarizer, session_model)?;
        let redactor = Redactor::new(secrets);
        let extensions = self.extensions(extensions, redactor.clone())?;
        Ok(Toolkit {
            settings: self.resolved.settings,
            estimator,
            summarizer,
            extensions,
            redactor,
            context_window: window.tokens,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use compaction_core::settings::{ResolvedSettings, SettingSource, SettingsPatch};

    /// A setup whose settings come from `patch` given as flags, over the defaults.
    fn setup(patch: SettingsPatch) -> Setup {
        let resolved = ResolvedSettings::resolve(&[(SettingSource::Flag, patch)]).unwrap();
        Setup::from_resolved(resolved, std::path::Path::new("/nonexistent"))
    }

    fn offline() -> SummarizerChoice {
        SummarizerChoice { offline: true, ..SummarizerChoice::default() }
    }

    #[test]
    fn the_toolkit_runs_with_the_window_and_the_budgets_fitted_to_it() {
        let patch = SettingsPatch {
            context_window: Some(Some(8_000)),
            estimator: Some("pi".to_owned()),
            ..SettingsPatch::default()
        };
        let defaults = CompactionSettings::default();
        let toolkit = setup(patch).toolkit(&offline(), &ExtensionChoice::none(), None, None);
        let toolkit = toolkit.unwrap();
        assert_eq!(toolkit.context_window, 8_000);
        assert_eq!(toolkit.estimator.name(), "pi");
        assert_eq!(toolkit.summarizer.label(), "offline");
        assert!(toolkit.extensions.is_empty());
        // Budgets left at their defaults shrink to a quarter of the window at most.
        assert!(toolkit.settings.keep_recent_tokens <= 2_000, "{:?}", toolkit.settings);
        assert!(toolkit.settings.keep_recent_tokens < defaults.keep_recent_tokens);
        let compactor = toolkit.compactor();
        assert_eq!(compactor.context_window, 8_000);
        assert_eq!(compactor.settings, &toolkit.settings);
    }

    #[test]
    fn explicit_budgets_that_do_not_fit_are_a_settings_error() {
        // The window is known only once the session is: it recorded 8 000 tokens.
        let patch = SettingsPatch { keep_recent_tokens: Some(50_000), ..SettingsPatch::default() };
        let error = setup(patch).toolkit(&offline(), &ExtensionChoice::none(), None, Some(8_000));
        assert!(
            matches!(&error, Err(SetupError::Settings(e)) if e.to_string().contains("keepRecentTokens")),
            "{:?}",
            error.err()
        );
        // The same budget fits a larger window.
        let patch = SettingsPatch { keep_recent_tokens: Some(50_000), ..SettingsPatch::default() };
        let fits = setup(patch).toolkit(&offline(), &ExtensionChoice::none(), None, Some(400_000));
        assert_eq!(fits.unwrap().settings.keep_recent_tokens, 50_000);
    }

    #[test]
    fn a_recorded_window_comes_before_the_model_table_and_after_the_settings() {
        let session = ModelRef { provider: "openai".into(), model_id: "gpt-4o".into() };
        let tools = setup(SettingsPatch::default())
            .toolkit(&offline(), &ExtensionChoice::none(), Some(&session), Some(50_000))
            .unwrap();
        assert_eq!(tools.context_window, 50_000);
        let configured = SettingsPatch { context_window: Some(Some(40_000)), ..Default::default() };
        let tools = setup(configured)
            .toolkit(&offline(), &ExtensionChoice::none(), Some(&session), Some(50_000))
            .unwrap();
        assert_eq!(tools.context_window, 40_000);
    }
}
