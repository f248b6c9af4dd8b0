//! The chat model's context window and where it came from: `contextWindow` (a flag, a
//! variable or a settings file), else the window pi's own `models.json` gives the model,
//! else the window the session recorded, else the model table, else 128 000.

use std::path::PathBuf;

use compaction_core::context::ModelRef;
use compaction_core::models::{self, WindowSource};
use compaction_core::settings::SettingSource;

use super::{Note, Setup};

/// A context window and where it came from, as `plan` and `stats` report it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct ChatWindow {
    /// The window in tokens.
    #[serde(skip)]
    pub tokens: u64,
    /// The rule that gave it.
    #[serde(skip)]
    pub source: ChatWindowSource,
    /// `flag`, `env`, `settings`, `pi-models` (pi's `models.json`), `session` (recorded in
    /// the session), `model-table` or `default`.
    pub kind: &'static str,
    /// The same for a reader: the flag, variable, file, or model table row.
    pub description: String,
}

/// The rule that gave a [`ChatWindow`].
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ChatWindowSource {
    /// `contextWindow`, from the layer named.
    Setting(SettingSource),
    /// pi's `models.json` (`models[].contextWindow` or `modelOverrides.<id>.contextWindow`).
    PiModels {
        /// The file.
        path: PathBuf,
        /// The model looked up.
        model: String,
    },
    /// The window the session recorded (an imported Codex rollout's `model_context_window`).
    Session,
    /// The model table's row for the model.
    ModelTable {
        /// The model looked up.
        model: String,
        /// The row that matched.
        row: &'static str,
    },
    /// The default window, for a model the table does not know or for no model at all.
    Default {
        /// The model looked up, if any.
        model: Option<String>,
    },
}

impl Setup {
    /// The chat model's window for the chat model `model` (given by the caller) or else the
    /// session's model; `recorded` is the window the session itself recorded, which comes
    /// after the settings and pi's `models.json`, and before the model table.
    pub fn chat_window(
        &self,
        model: Option<&str>,
        session: Option<&ModelRef>,
        recorded: Option<u64>,
    ) -> ChatWindow {
        let configured = self.resolved.settings.context_window;
        let provider = if model.is_some() { None } else { session.map(|m| m.provider.as_str()) };
        let model = model.or(session.map(|m| m.model_id.as_str()));
        if let (None, Some(id)) = (configured, model)
            && let Some((tokens, path)) = self.pi_models_window(provider, id)
        {
            let description = format!("pi's {} (`{id}`)", path.display());
            let source = ChatWindowSource::PiModels { path, model: id.to_owned() };
            return ChatWindow { tokens, source, kind: "pi-models", description };
        }
        if let (None, Some(tokens)) = (configured, recorded) {
            let description = "the window the session recorded (its agent's own report)".to_owned();
            let source = ChatWindowSource::Session;
            return ChatWindow { tokens, source, kind: "session", description };
        }
        let window = models::resolve_context_window(model, configured);
        let (source, kind, description) = match window.source {
            WindowSource::Override => {
                let layer = self.resolved.source_of("contextWindow");
                let (kind, description) = match &layer {
                    SettingSource::Flag => ("flag", "--context-window".to_owned()),
                    SettingSource::Env => ("env", "COMPACTION_CONTEXT_WINDOW".to_owned()),
                    SettingSource::File(path) => {
                        ("settings", format!("`contextWindow` in {}", path.display()))
                    }
                    SettingSource::Default => ("default", "the built-in default".to_owned()),
                };
                (ChatWindowSource::Setting(layer), kind, description)
            }
            WindowSource::ModelTable { model, row } => {
                let description = format!("the model table (`{model}` is a `{row}` model)");
                (ChatWindowSource::ModelTable { model, row }, "model-table", description)
            }
            WindowSource::Default { model: Some(model) } => {
                let description = format!(
                    "the default for models not in the table (`{model}`); pass \
                     --context-window with the window your server runs"
                );
                (ChatWindowSource::Default { model: Some(model) }, "default", description)
            }
            WindowSource::Default { model: None } => (
                ChatWindowSource::Default { model: None },
                "default",
                "the default (the session names no model; pass --model or --context-window)"
                    .to_owned(),
            ),
        };
        ChatWindow { tokens: window.tokens, source, kind, description }
    }

    /// The window `<agent dir>/models.json` gives `model_id`, with the file's path. A file
    /// that cannot be read is a [`Note::ModelsJsonUnreadable`] and is otherwise ignored (pi
    /// reports it too).
    fn pi_models_window(&self, provider: Option<&str>, model_id: &str) -> Option<(u64, PathBuf)> {
        let home = std::env::home_dir();
        let agent_dir_env = std::env::var(crate::settings::AGENT_DIR_ENV).ok();
        let path = crate::settings::agent_dir(home.as_deref(), agent_dir_env.as_deref())?
            .join("models.json");
        match crate::settings::pi_model_window(&path, provider, model_id) {
            Ok(window) => window.map(|tokens| (tokens, path)),
            Err(error) => {
                self.note(Note::ModelsJsonUnreadable { error: error.to_string() });
                None
            }
        }
    }
}
