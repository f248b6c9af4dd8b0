//! What a compaction runs with, resolved in one place: [`Setup`].
//!
//! The `compaction` command, the harness, the pi package's path (it runs the command) and the
//! workers all build it the same way:
//!
//! 1. [`Setup::load`]: the settings, precedence (lowest first) defaults, the global
//!    `<agent dir>/settings.json`, the project `.pi/settings.json`, `COMPACTION_*`, then the
//!    caller's overrides (the command's flags) — see [`crate::settings`];
//! 2. [`Setup::chat_window`] and [`Setup::fit_to_window`]: the chat model's window and where
//!    it came from, then the session model's `modelOverrides` and the budgets fitted to it;
//! 3. [`Setup::summarizer`] and [`Setup::extensions`]: the summary model (and its window),
//!    the summarizer, and the extensions the settings files and the caller name;
//! 4. [`Setup::toolkit`]: all of the above at once, as a [`Toolkit`] whose
//!    [`Toolkit::compactor`] runs compactions.
//!
//! Stages, one module each: `window` (the chat window), `summary` (the summary model, its
//! window and the summarizer), `extensions` and `toolkit`. Nothing here prints: what the
//! caller should tell the user arrives as [`Note`]s through [`Setup::with_notes`], in the
//! order it happens, and errors are [`SetupError`]s a caller can word for its own flags.

mod extensions;
mod summary;
mod toolkit;
mod window;

pub use extensions::{ExtensionChoice, configured_extensions};
pub use summary::{ModelSource, SummarizerChoice, SummaryModel};
pub use toolkit::Toolkit;
pub use window::{ChatWindow, ChatWindowSource};

use std::path::{Path, PathBuf};

use compaction_core::context::ModelRef;
use compaction_core::settings::{
    CompactionSettings, ResolvedSettings, SettingSource, SettingsError, SettingsPatch,
};
use compaction_core::tokens::{TokenEstimator, UnknownEstimator, estimator_by_name};

use crate::error::SummarizerError;
use crate::settings::{LoadError, load_settings_from_process};

/// Why what a compaction runs with could not be resolved.
#[derive(Debug, thiserror::Error)]
pub enum SetupError {
    /// The working directory (where the project settings file is looked for) is unknown.
    #[error("cannot read the current directory: {0}")]
    CurrentDir(#[source] std::io::Error),
    /// A settings file could not be read or holds a bad value.
    #[error(transparent)]
    Load(LoadError),
    /// The budgets (after the model's overrides) do not fit the chat window, or an
    /// override is invalid.
    #[error(transparent)]
    Settings(SettingsError),
    /// The settings name an estimator that does not exist.
    #[error(transparent)]
    Estimator(#[from] UnknownEstimator),
    /// The provider named is not one the summarizer speaks.
    #[error(
        "unknown provider `{provider}`: use openai (also for OpenAI-compatible servers such as \
         Ollama, llama.cpp, vLLM, OpenRouter) or anthropic"
    )]
    UnknownProvider {
        /// The name given.
        provider: String,
    },
    /// A provider was named but no model for it: no summary model, no chat model, and the
    /// session's model (if any) belongs to another provider.
    #[error("no model for provider {provider}: name a summary model or a chat model")]
    NoModel {
        /// The provider named.
        provider: String,
        /// The session's model, when it has one of another provider.
        session: Option<ModelRef>,
    },
    /// The summarizer's client could not be built (a missing API key, a bad URL).
    #[error("{error}")]
    Provider {
        /// Why.
        #[source]
        error: SummarizerError,
        /// The variable the API key is read from.
        key_var: String,
    },
    /// The extensions the settings files name could not be read.
    #[error(transparent)]
    Extensions(LoadError),
}

/// Something the caller should tell the user, reported while the setup is resolved.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Note {
    /// pi's `models.json` could not be read; its model windows are not used.
    ModelsJsonUnreadable {
        /// Why (the error names the file).
        error: String,
    },
    /// The agent folder lies inside the project: its settings file is read as the project's
    /// own (its extensions need trust, its `trustedProjects` is ignored).
    AgentDirInProject {
        /// The project root it lies in.
        root: PathBuf,
    },
    /// Project extensions that were not run because the project is not trusted.
    UntrustedExtensions {
        /// The settings file that names the first of them.
        file: PathBuf,
        /// Their names.
        names: Vec<String>,
        /// The project.
        project_dir: PathBuf,
    },
    /// A provider summarizer is about to be built: the provider, its endpoint and the model,
    /// for the errors it may report later.
    Provider {
        /// The provider's name as given.
        provider: String,
        /// The endpoint, when one was given.
        base_url: Option<String>,
        /// The summary model and where it came from.
        model: SummaryModel,
    },
}

/// Where [`Note`]s go.
type NoteSink = Box<dyn Fn(&Note) + Send + Sync>;

/// The settings of one invocation and everything resolved from them (see the module
/// documentation).
pub struct Setup {
    /// The settings, with the source of each value.
    pub resolved: ResolvedSettings,
    /// The working directory: the project whose settings file was read.
    pub cwd: PathBuf,
    notes: NoteSink,
}

impl std::fmt::Debug for Setup {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Setup")
            .field("resolved", &self.resolved)
            .field("cwd", &self.cwd)
            .finish_non_exhaustive()
    }
}

impl Setup {
    /// Loads the settings for the project `cwd` from the settings files and this process's
    /// environment, with `overrides` on top (validated; unknown keys and variables become
    /// [`ResolvedSettings::warnings`]).
    pub fn load(cwd: &Path, overrides: &SettingsPatch) -> Result<Setup, SetupError> {
        let resolved = load_settings_from_process(cwd, overrides).map_err(SetupError::Load)?;
        Ok(Setup::from_resolved(resolved, cwd))
    }

    /// [`Setup::load`] for the process's working directory.
    pub fn load_here(overrides: &SettingsPatch) -> Result<Setup, SetupError> {
        let cwd = std::env::current_dir().map_err(SetupError::CurrentDir)?;
        Setup::load(&cwd, overrides)
    }

    /// A setup over settings resolved elsewhere (tests, hosts with their own settings).
    pub fn from_resolved(resolved: ResolvedSettings, cwd: &Path) -> Setup {
        Setup { resolved, cwd: cwd.to_path_buf(), notes: Box::new(|_| {}) }
    }

    /// Sends every [`Note`] to `sink` from now on (by default they are dropped).
    pub fn with_notes(mut self, sink: impl Fn(&Note) + Send + Sync + 'static) -> Setup {
        self.notes = Box::new(sink);
        self
    }

    /// The settings in effect.
    pub fn settings(&self) -> &CompactionSettings {
        &self.resolved.settings
    }

    /// The estimator the settings name.
    pub fn estimator(&self) -> Result<Box<dyn TokenEstimator>, SetupError> {
        estimator(&self.resolved.settings)
    }

    /// Applies the session model's `compaction.modelOverrides["provider/modelId"]` budgets,
    /// then fits the budgets left at their defaults to the chat window (a quarter of it at
    /// most) and checks the explicit ones; the error names every budget that does not fit.
    pub fn fit_to_window(
        &mut self,
        window: &ChatWindow,
        session_model: Option<&ModelRef>,
    ) -> Result<(), SetupError> {
        if let Some(model) = session_model {
            self.resolved
                .apply_model_override(&model.provider, &model.model_id)
                .map_err(SetupError::Settings)?;
        }
        self.resolved
            .fit_to_window(window.tokens, &window.description)
            .map_err(SetupError::Settings)
    }

    /// Whether the user set the summary window (`summaryContextWindow`, or `contextWindow`,
    /// which sizes the summary model's requests when it is the chat model): a larger window a
    /// server reports does not replace it.
    fn window_is_explicit(&self) -> bool {
        self.resolved.settings.summary_context_window.is_some()
            || !matches!(self.resolved.source_of("contextWindow"), SettingSource::Default)
    }

    fn note(&self, note: Note) {
        (self.notes)(&note);
    }
}

/// The estimator `settings` name.
pub fn estimator(settings: &CompactionSettings) -> Result<Box<dyn TokenEstimator>, SetupError> {
    Ok(estimator_by_name(&settings.estimator)?)
}
