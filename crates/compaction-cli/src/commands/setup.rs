//! Turning flags into what a command runs with ([`compaction::setup::Setup`], resolved by
//! the library the same way for the harness and the workers), and its errors and notes into
//! words for the user that name the flags.
//!
//! Precedence (resolved in the library): flags > environment (`COMPACTION_*`) > project
//! `.pi/settings.json` > global `~/.pi/agent/settings.json` > defaults.

use compaction::setup::{
    ExtensionChoice, ModelSource, Note, Setup, SetupError, SummarizerChoice, Toolkit,
};
use compaction_core::context::ModelRef;
use compaction_core::settings::{
    CompactionSettings, ResolvedSettings, SettingSource, SettingsError, SettingsPatch,
};
use compaction_core::tokens::TokenEstimator;

use super::{CommandError, ErrorKind};
use crate::cli::{CompactionFlags, ExtensionFlags, SummarizerFlags};

/// The settings the compaction flags set.
fn patch(flags: &CompactionFlags) -> SettingsPatch {
    SettingsPatch {
        keep_recent_tokens: flags.keep_recent,
        reserve_tokens: flags.reserve,
        keep_user_messages_tokens: flags.keep_user_messages,
        min_turns_to_keep: flags.min_turns,
        context_window: flags.context_window.map(Some),
        estimator: flags.estimator.clone(),
        max_summary_tokens: flags.max_summary_tokens,
        summary_context_window: flags.summary_context_window.map(Some),
        timeout_seconds: flags.timeout,
        ..SettingsPatch::default()
    }
}

/// The summarizer the summarizer flags ask for.
pub fn summarizer_choice(flags: &SummarizerFlags) -> SummarizerChoice {
    SummarizerChoice {
        provider: flags.provider.clone(),
        model: flags.model.clone(),
        summary_model: flags.summary_model.clone(),
        base_url: flags.base_url.clone(),
        api_key_env: flags.api_key_env.clone(),
        offline: flags.offline,
    }
}

/// The extensions the extension flags ask for.
pub fn extension_choice(flags: &ExtensionFlags) -> ExtensionChoice {
    ExtensionChoice {
        commands: flags.extensions.clone(),
        none: flags.no_extensions,
        trust_project: flags.trust_project,
    }
}

/// The setup of this invocation: settings files, environment and `flags`. Its warnings are
/// printed once per process, however many times a command loads it; its notes go to stderr.
pub fn load(flags: &CompactionFlags) -> anyhow::Result<Setup> {
    let setup = Setup::load_here(&patch(flags)).map_err(setup_error)?;
    static WARNED: std::sync::Once = std::sync::Once::new();
    WARNED.call_once(|| {
        for warning in &setup.resolved.warnings {
            crate::output::eprint_shown(&format!("warning: {warning}"));
        }
    });
    Ok(setup.with_notes(print_note))
}

/// Resolves the compaction settings for this invocation.
pub fn settings(flags: &CompactionFlags) -> anyhow::Result<CompactionSettings> {
    Ok(load(flags)?.resolved.settings)
}

/// Resolves the compaction settings for this invocation, with the source of each value.
pub fn resolved_settings(flags: &CompactionFlags) -> anyhow::Result<ResolvedSettings> {
    Ok(load(flags)?.resolved)
}

/// The estimator the settings name.
pub fn estimator(settings: &CompactionSettings) -> anyhow::Result<Box<dyn TokenEstimator>> {
    compaction::setup::estimator(settings).map_err(setup_error)
}

/// Everything a compaction or navigation runs with, for a session whose model is
/// `session_model` and which may record its window (`recorded_window`); the summarizer is
/// the offline one when `offline` or when no provider is named.
pub fn toolkit(
    compaction: &CompactionFlags,
    summarizer: &SummarizerFlags,
    extension: &ExtensionFlags,
    session_model: Option<&ModelRef>,
    recorded_window: Option<u64>,
    offline: bool,
) -> anyhow::Result<Toolkit> {
    let mut choice = summarizer_choice(summarizer);
    choice.offline |= offline;
    load(compaction)?
        .toolkit(&choice, &extension_choice(extension), session_model, recorded_window)
        .map_err(setup_error)
}

/// The extensions the settings files name for the current directory, with its trust.
pub fn configured_extensions(
    trust_flag: bool,
) -> anyhow::Result<compaction::trust::ConfiguredExtensions> {
    let cwd = std::env::current_dir()
        .map_err(|e| CommandError::io("cannot read the current directory", e))?;
    compaction::setup::configured_extensions(&cwd, trust_flag).map_err(setup_error)
}

/// The model of the context at `leaf`, if the session names one.
pub fn session_model(session: &compaction_core::Session, leaf: Option<usize>) -> Option<ModelRef> {
    compaction_core::context::build_context(session, leaf).model
}

/// The flag that sets `key`, for the settings that have one.
pub fn flag_for(key: &str) -> Option<&'static str> {
    Some(match key {
        "keepRecentTokens" => "--keep-recent",
        "reserveTokens" => "--reserve",
        "keepUserMessagesTokens" => "--keep-user-messages",
        "minTurnsToKeep" => "--min-turns",
        "contextWindow" => "--context-window",
        "estimator" => "--estimator",
        "maxSummaryTokens" => "--max-summary-tokens",
        "summaryContextWindow" => "--summary-context-window",
        "timeoutSeconds" => "--timeout",
        _ => return None,
    })
}

/// A setup error for the user, with the flags that change what is at fault.
pub fn setup_error(error: SetupError) -> anyhow::Error {
    let provider_error = |message: String| CommandError::with_kind(ErrorKind::Provider, message);
    match error {
        SetupError::CurrentDir(source) => {
            CommandError::io("cannot read the current directory", source)
        }
        SetupError::Load(compaction::settings::LoadError::Invalid(settings))
        | SetupError::Settings(settings) => settings_error(&settings),
        SetupError::UnknownProvider { provider } => provider_error(format!(
            "unknown provider `{provider}` (--provider): use openai (also for OpenAI-compatible \
             servers such as Ollama, llama.cpp, vLLM, OpenRouter) or anthropic"
        )),
        SetupError::NoModel { provider, session } => {
            let session_note = match session {
                Some(session) => format!(
                    "; the session's model `{}` belongs to provider {}, not to --provider \
                     {provider}",
                    session.model_id, session.provider
                ),
                None => String::new(),
            };
            provider_error(format!(
                "no model for --provider {provider}{session_note}: pass --model ID (or \
                 --summary-model ID, or set `summaryModel`)"
            ))
        }
        SetupError::Provider { error, key_var } => {
            let mut message = error.to_string();
            if matches!(error, compaction::error::SummarizerError::MissingApiKey { .. }) {
                message.push_str(&format!(
                    "; export {key_var}, or name another variable with --api-key-env; a server \
                     on this machine (--base-url http://localhost:11434/v1) needs no key"
                ));
            }
            provider_error(message)
        }
        other @ (SetupError::Load(_) | SetupError::Estimator(_) | SetupError::Extensions(_)) => {
            CommandError::with_kind(ErrorKind::Settings, other.to_string())
        }
    }
}

/// A settings error for the user; budgets that do not fit the window also get the flags
/// that would fix them.
fn settings_error(error: &SettingsError) -> anyhow::Error {
    let mut message = error.to_string();
    // A value from a flag: name the flag itself rather than "flag".
    if let SettingsError::Malformed { origin: SettingSource::Flag, key, message: detail }
    | SettingsError::Invalid { origin: SettingSource::Flag, key, message: detail } = error
        && let Some(flag) = flag_for(key)
    {
        message = format!("{flag}: `{key}`: {detail}");
    }
    if let SettingsError::BudgetsExceedWindow { conflicts, .. } = error {
        let flags: Vec<String> = conflicts
            .iter()
            .map(|c| format!("{} {}", flag_for(c.key).unwrap_or(c.key), c.suggested))
            .collect();
        message.push_str(&format!(" (flags: {})", flags.join(" ")));
    }
    CommandError::with_kind(ErrorKind::Settings, message)
}

/// The note added to every provider error: the model used, where it came from, and the
/// flags that change it. Set once per process when the summarizer is built.
static PROVIDER_NOTE: std::sync::OnceLock<String> = std::sync::OnceLock::new();

/// The note for provider errors, once a provider was configured.
pub fn provider_note() -> Option<&'static str> {
    PROVIDER_NOTE.get().map(String::as_str)
}

/// Tells the user what the setup noted, naming the flags that change it.
fn print_note(note: &Note) {
    match note {
        Note::ModelsJsonUnreadable { error } => {
            static WARNED: std::sync::Once = std::sync::Once::new();
            WARNED.call_once(|| eprintln!("warning: {error}; its model windows are not used"));
        }
        Note::AgentDirInProject { root } => eprintln!(
            "warning: the agent folder ({}) lies inside the project {}: its settings file is \
             read as the project's own (its extensions need trust, its trustedProjects is \
             ignored)",
            compaction::settings::AGENT_DIR_ENV,
            root.display()
        ),
        Note::UntrustedExtensions { file, names, project_dir } => eprintln!(
            "warning: {} names {} {} that were not run: this project ({}) is not \
             trusted; pass --trust-project, or add it to `compaction.trustedProjects` in the \
             global settings file",
            file.display(),
            if names.len() == 1 { "extension" } else { "extensions" },
            names.join(", "),
            project_dir.display()
        ),
        Note::Provider { provider, base_url, model } => {
            let endpoint = base_url
                .as_deref()
                .map(|url| format!(" at {}", compaction::provider::hide_url_passwords(url)))
                .unwrap_or_default();
            let change = if model.source == ModelSource::SummaryModel {
                "--summary-model"
            } else {
                "--model"
            };
            let _ = PROVIDER_NOTE.set(format!(
                "provider {provider}{endpoint}, model `{}` (from {}; change it with {change})",
                model.id, model.from
            ));
        }
    }
}
