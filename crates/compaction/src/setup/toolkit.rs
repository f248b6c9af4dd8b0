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
