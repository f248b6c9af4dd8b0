//! Turning flags, settings files and the environment into what a command runs with.
//!
//! Precedence (one place): flags > environment (`COMPACTION_*`) > project
//! `.pi/settings.json` > global `~/.pi/agent/settings.json` > defaults.

use compaction::provider::{LlmSummarizer, ProviderConfig, ProviderKind};
use compaction::settings::load_settings_from_process;
use compaction::summarizer::Summarizer;
use compaction_core::context::ModelRef;
use compaction_core::models;
use compaction_core::settings::{CompactionSettings, ResolvedSettings, SettingsPatch};
use compaction_core::tokens::{TokenEstimator, estimator_by_name};

use super::{CommandError, ErrorKind};
use crate::cli::{CompactionFlags, ExtensionFlags, SummarizerFlags};

/// Resolves the compaction settings for this invocation.
pub fn settings(flags: &CompactionFlags) -> anyhow::Result<CompactionSettings> {
    Ok(resolved_settings(flags)?.settings)
}

/// Resolves the compaction settings for this invocation, with the source of each value.
pub fn resolved_settings(flags: &CompactionFlags) -> anyhow::Result<ResolvedSettings> {
    let patch = SettingsPatch {
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
    };
    let cwd = std::env::current_dir()
        .map_err(|e| CommandError::io("cannot read the current directory", e))?;
    let resolved = load_settings_from_process(&cwd, &patch).map_err(|error| {
        if let compaction::settings::LoadError::Invalid(settings) = &error {
            return settings_error(settings);
        }
        CommandError::with_kind(ErrorKind::Settings, error.to_string())
    })?;
    // Once per process, however many times a command resolves its settings.
    static WARNED: std::sync::Once = std::sync::Once::new();
    WARNED.call_once(|| {
        for warning in &resolved.warnings {
            eprintln!("warning: {warning}");
        }
    });
    Ok(resolved)
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

/// A settings error for the user; budgets that do not fit the window also get the flags
/// that would fix them.
fn settings_error(error: &compaction_core::settings::SettingsError) -> anyhow::Error {
    use compaction_core::settings::{SettingSource, SettingsError};
    let mut message = error.to_string();
    // A value from a flag: name the flag itself rather than "flag".
    if let SettingsError::Malformed { origin: SettingSource::Flag, key, message: detail }
    | SettingsError::Invalid { origin: SettingSource::Flag, key, message: detail } = error
        && let Some(flag) = flag_for(key)
    {
        message = format!("{flag}: `{key}`: {detail}");
    }
    if let compaction_core::settings::SettingsError::BudgetsExceedWindow { conflicts, .. } = error {
        let flags: Vec<String> = conflicts
            .iter()
            .map(|c| format!("{} {}", flag_for(c.key).unwrap_or(c.key), c.suggested))
            .collect();
        message.push_str(&format!(" (flags: {})", flags.join(" ")));
    }
    CommandError::with_kind(ErrorKind::Settings, message)
}

/// The estimator the settings name.
pub fn estimator(settings: &CompactionSettings) -> anyhow::Result<Box<dyn TokenEstimator>> {
    estimator_by_name(&settings.estimator)
        .map_err(|e| CommandError::with_kind(ErrorKind::Settings, e.to_string()))
}

/// A context window and where it came from, as `plan` and `stats` report it.
#[derive(Debug, Clone, serde::Serialize)]
pub struct ChatWindow {
    /// The window in tokens.
    #[serde(skip)]
    pub tokens: u64,
    /// `flag`, `env`, `settings`, `pi-models` (pi's `models.json`), `session` (recorded in
    /// the session), `model-table` or `default`.
    pub kind: &'static str,
    /// The same for a reader: the flag, variable, file, or model table row.
    pub description: String,
}

/// The chat model's window: `--context-window`/`contextWindow`, else the window pi's own
/// `models.json` gives the model (`models[].contextWindow` or
/// `modelOverrides.<id>.contextWindow`), else the model table for `--model` or the session's
/// model, else 128 000; with where it came from.
pub fn chat_window(
    resolved: &ResolvedSettings,
    model: Option<&str>,
    session: Option<&ModelRef>,
) -> ChatWindow {
    chat_window_recorded(resolved, model, session, None)
}

/// [`chat_window`] for a session that records its window (an imported Codex rollout's
/// `model_context_window`): that window comes after the settings and pi's `models.json`, and
/// before the model table.
pub fn chat_window_recorded(
    resolved: &ResolvedSettings,
    model: Option<&str>,
    session: Option<&ModelRef>,
    recorded: Option<u64>,
) -> ChatWindow {
    use compaction_core::models::WindowSource;
    use compaction_core::settings::SettingSource;
    let provider = if model.is_some() { None } else { session.map(|m| m.provider.as_str()) };
    let model = model.or(session.map(|m| m.model_id.as_str()));
    if let (None, Some(id)) = (resolved.settings.context_window, model)
        && let Some((tokens, path)) = pi_models_window(provider, id)
    {
        let description = format!("pi's {} (`{id}`)", path.display());
        return ChatWindow { tokens, kind: "pi-models", description };
    }
    if let (None, Some(tokens)) = (resolved.settings.context_window, recorded) {
        let description = "the window the session recorded (its agent's own report)".to_owned();
        return ChatWindow { tokens, kind: "session", description };
    }
    let window = models::resolve_context_window(model, resolved.settings.context_window);
    let (kind, description) = match window.source {
        WindowSource::Override => match resolved.source_of("contextWindow") {
            SettingSource::Flag => ("flag", "--context-window".to_owned()),
            SettingSource::Env => ("env", "COMPACTION_CONTEXT_WINDOW".to_owned()),
            SettingSource::File(path) => {
                ("settings", format!("`contextWindow` in {}", path.display()))
            }
            SettingSource::Default => ("default", "the built-in default".to_owned()),
        },
        WindowSource::ModelTable { model, row } => {
            ("model-table", format!("the model table (`{model}` is a `{row}` model)"))
        }
        WindowSource::Default { model: Some(model) } => (
            "default",
            format!(
                "the default for models not in the table (`{model}`); pass --context-window \
                 with the window your server runs"
            ),
        ),
        WindowSource::Default { model: None } => (
            "default",
            "the default (the session names no model; pass --model or --context-window)".to_owned(),
        ),
    };
    ChatWindow { tokens: window.tokens, kind, description }
}

/// The window `<agent dir>/models.json` gives `model_id`, with the file's path. A file that
/// cannot be read is reported once as a warning and otherwise ignored (pi reports it too).
fn pi_models_window(provider: Option<&str>, model_id: &str) -> Option<(u64, std::path::PathBuf)> {
    let home = std::env::home_dir();
    let agent_dir_env = std::env::var(compaction::settings::AGENT_DIR_ENV).ok();
    let path = compaction::settings::agent_dir(home.as_deref(), agent_dir_env.as_deref())?
        .join("models.json");
    match compaction::settings::pi_model_window(&path, provider, model_id) {
        Ok(window) => window.map(|tokens| (tokens, path)),
        Err(error) => {
            static WARNED: std::sync::Once = std::sync::Once::new();
            WARNED.call_once(|| eprintln!("warning: {error}; its model windows are not used"));
            None
        }
    }
}

/// Fits the budgets left at their defaults to the chat window (a quarter of it at most)
/// and checks the explicit ones; the error names every budget that does not fit, with the
/// flags that change them.
///
/// First the session model's `compaction.modelOverrides["provider/modelId"]` budgets apply.
pub fn fit_to_window(
    resolved: &mut ResolvedSettings,
    window: &ChatWindow,
    session_model: Option<&ModelRef>,
) -> anyhow::Result<()> {
    if let Some(model) = session_model {
        resolved
            .apply_model_override(&model.provider, &model.model_id)
            .map_err(|e| settings_error(&e))?;
    }
    resolved.fit_to_window(window.tokens, &window.description).map_err(|e| settings_error(&e))
}

/// The model that writes summaries when a provider is used, and where its id came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SummaryModel {
    /// The model id sent to the provider.
    pub id: String,
    /// Where the id came from, for the user (`--model`, `summaryModel` in a file, …).
    pub from: String,
}

/// The summary model: `--summary-model`, else `summaryModel` (settings), else `--model`,
/// else the session's model when the session used the same provider as `--provider` (an
/// Anthropic model id means nothing to an OpenAI-compatible server). `None` when there is
/// none: the caller asks for `--model`.
fn summary_model(
    resolved: &ResolvedSettings,
    flags: &SummarizerFlags,
    session: Option<&ModelRef>,
) -> Option<SummaryModel> {
    let model = |id: &str, from: String| Some(SummaryModel { id: id.to_owned(), from });
    if let Some(id) = &flags.summary_model {
        return model(id, "--summary-model".to_owned());
    }
    if let Some(id) = &resolved.settings.summary_model {
        let source = resolved.source_of("summaryModel").describe_for("summaryModel");
        return model(id, format!("`summaryModel` in {source}"));
    }
    if let Some(id) = &flags.model {
        return model(id, "--model".to_owned());
    }
    let session = session?;
    let same_provider = flags.provider.as_deref().is_none_or(|p| p == session.provider);
    same_provider.then(|| SummaryModel {
        id: session.model_id.clone(),
        from: format!("the session, whose model is {}/{}", session.provider, session.model_id),
    })
}

/// The note added to every provider error: the model used, where it came from, and the
/// flags that change it. Set once per process when the summarizer is built.
static PROVIDER_NOTE: std::sync::OnceLock<String> = std::sync::OnceLock::new();

/// The note for provider errors, once a provider was configured.
pub fn provider_note() -> Option<&'static str> {
    PROVIDER_NOTE.get().map(String::as_str)
}

/// Whether the offline summarizer is used.
pub fn is_offline(flags: &SummarizerFlags) -> bool {
    flags.offline || flags.provider.is_none()
}

/// The summary model's window without building a client (for `plan`); `None` offline.
pub fn summary_window(
    resolved: &ResolvedSettings,
    flags: &SummarizerFlags,
    session: Option<&ModelRef>,
) -> Option<u64> {
    if is_offline(flags) {
        return None;
    }
    Some(summary_model_window(resolved, flags, session))
}

/// The summary model's window: `--summary-context-window`/`summaryContextWindow` when set;
/// else, when the summary model is the chat model, the chat model's window (so
/// `--context-window` sizes summarizer requests too); else the model table for the summary
/// model.
fn summary_model_window(
    resolved: &ResolvedSettings,
    flags: &SummarizerFlags,
    session: Option<&ModelRef>,
) -> u64 {
    let settings = &resolved.settings;
    if let Some(window) = settings.summary_context_window {
        return window;
    }
    let chat_model = flags.model.as_deref().or(session.map(|m| m.model_id.as_str()));
    let summary = summary_model(resolved, flags, session).map(|model| model.id);
    if summary.is_none() || summary.as_deref() == chat_model {
        return chat_window(resolved, flags.model.as_deref(), session).tokens;
    }
    models::context_window(summary.as_deref(), None)
}

/// The summarizer and the secret values that must be redacted from what it is sent.
///
/// Every error names the provider, the model and where the model came from, with the flag
/// that changes it; a missing key also says that a local server needs none.
pub fn summarizer(
    resolved: &ResolvedSettings,
    flags: &SummarizerFlags,
    session: Option<&ModelRef>,
) -> anyhow::Result<(Box<dyn Summarizer>, Vec<String>)> {
    let Some(provider) = flags.provider.as_deref().filter(|_| !flags.offline) else {
        return Ok((Box::new(compaction::offline::OfflineSummarizer), Vec::new()));
    };
    let provider_error = |message: String| CommandError::with_kind(ErrorKind::Provider, message);
    let kind: ProviderKind = provider.parse().map_err(|_| {
        provider_error(format!(
            "unknown provider `{provider}` (--provider): use openai (also for OpenAI-compatible \
             servers such as Ollama, llama.cpp, vLLM, OpenRouter) or anthropic"
        ))
    })?;
    let model = summary_model(resolved, flags, session).ok_or_else(|| {
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
    })?;
    let mut config = ProviderConfig::new(kind, model.id.clone());
    config.base_url = flags.base_url.clone();
    config.api_key_env = flags.api_key_env.clone();
    let endpoint = flags
        .base_url
        .as_deref()
        .map(|url| format!(" at {}", compaction::provider::hide_url_passwords(url)))
        .unwrap_or_default();
    let change = if model.from == "--summary-model" { "--summary-model" } else { "--model" };
    let _ = PROVIDER_NOTE.set(format!(
        "provider {provider}{endpoint}, model `{}` (from {}; change it with {change})",
        model.id, model.from
    ));
    let secret = std::env::var(config.api_key_var()).ok().into_iter().collect();
    let key_var = config.api_key_var().to_owned();
    let summarizer = LlmSummarizer::from_config(config)
        .map_err(|error| {
            let mut message = error.to_string();
            if matches!(error, compaction::error::SummarizerError::MissingApiKey { .. }) {
                message.push_str(&format!(
                    "; export {key_var}, or name another variable with --api-key-env; a server \
                     on this machine (--base-url http://localhost:11434/v1) needs no key"
                ));
            }
            provider_error(message)
        })?
        .with_context_window(summary_model_window(resolved, flags, session))
        .with_concurrency(resolved.settings.summary_concurrency)
        .with_explicit_window(window_is_explicit(resolved));
    Ok((Box::new(summarizer), secret))
}

/// Whether the user set the summary window (`summaryContextWindow`, or `contextWindow`, which
/// sizes the summary model's requests when it is the chat model): a larger window a server
/// reports does not replace it.
fn window_is_explicit(resolved: &ResolvedSettings) -> bool {
    use compaction_core::settings::SettingSource;
    resolved.settings.summary_context_window.is_some()
        || !matches!(resolved.source_of("contextWindow"), SettingSource::Default)
}

/// The extensions for this invocation: those configured under `compaction.extensions` in
/// the global then the project settings file (the project's only when it is trusted:
/// `--trust-project` or the global `compaction.trustedProjects`), then each `--extension`
/// command. A project extension that is not run is named in a warning.
pub fn extensions(
    flags: &ExtensionFlags,
    redactor: compaction_core::serialize::Redactor,
) -> anyhow::Result<compaction::extension::Extensions> {
    use compaction::extension::{Extensions, ProcessExtension};
    use std::sync::Arc;
    let mut extensions = Extensions::new().with_redactor(redactor);
    if flags.no_extensions {
        return Ok(extensions);
    }
    let configured = configured_extensions(flags.trust_project)?;
    for extension in configured.runnable() {
        extensions.register(Arc::new(ProcessExtension::from_config(&extension.config)));
    }
    let skipped: Vec<&str> =
        configured.skipped().map(|extension| extension.config.name.as_str()).collect();
    if let Some(first) = configured.skipped().next() {
        eprintln!(
            "warning: {} names extension(s) {} that were not run: this project ({}) is not \
             trusted; pass --trust-project, or add it to `compaction.trustedProjects` in the \
             global settings file",
            first.file.display(),
            skipped.join(", "),
            configured.project_dir.display()
        );
    }
    for command in &flags.extensions {
        extensions.register(Arc::new(ProcessExtension::shell(command.clone())));
    }
    Ok(extensions)
}

/// The extensions the settings files name for the current directory, with its trust.
pub fn configured_extensions(
    trust_flag: bool,
) -> anyhow::Result<compaction::trust::ConfiguredExtensions> {
    let cwd = std::env::current_dir()
        .map_err(|e| CommandError::io("cannot read the current directory", e))?;
    let paths = compaction::settings::SettingsPaths::from_process_env(&cwd);
    let home = std::env::home_dir();
    compaction::trust::configured_extensions(&paths, &cwd, home.as_deref(), trust_flag)
        .map_err(|e| CommandError::with_kind(ErrorKind::Settings, e.to_string()))
}

/// Opens a session through the store (for writing: locked, torn tail recovered) and tells
/// the user what recovery did.
pub fn open_store(
    path: &std::path::Path,
    write: bool,
    wait: bool,
) -> anyhow::Result<compaction::store::SessionStore> {
    use compaction::store::{LockWait, OpenOptions, SessionStore};
    let mut options = if write { OpenOptions::for_writing() } else { OpenOptions::for_reading() };
    if wait {
        options.lock_wait = LockWait::Forever;
    }
    // An unfinished last line is moved aside on a write open: only once it is known dead.
    let dead = if write { super::torn::ensure_dead_tail(path)? } else { None };
    let (store, report) = SessionStore::open(path, options).map_err(|e| CommandError::store(&e))?;
    for message in report.messages() {
        eprintln!("{}: {message}", path.display());
    }
    if let Some(torn) = &report.torn_tail {
        let _ = TORN_TAIL_MOVED.set(torn.sidecar.clone());
        if let Some(dead) = dead {
            eprintln!("{}: {}", path.display(), dead_tail_note(dead));
        }
    }
    if write {
        refuse_unreadable_on_path(path, store.session())?;
    }
    Ok(store)
}

/// Refuses to write while the current branch may run through a line pi reads but this tool
/// cannot (nested deeper or longer than its limits): the last line of the file (pi's
/// current leaf), or the parent of an entry on the path. Writing then would compact past
/// entries that were never summarized, or fork from the wrong leaf.
pub fn refuse_unreadable_on_path(
    path: &std::path::Path,
    session: &compaction_core::Session,
) -> anyhow::Result<()> {
    use compaction_core::DiagnosticKind;
    let unreadable: Vec<&compaction_core::Diagnostic> = session
        .diagnostics()
        .iter()
        .filter(|d| matches!(d.kind, DiagnosticKind::TooDeep | DiagnosticKind::LineTooLong))
        .collect();
    if unreadable.is_empty() {
        return Ok(());
    }
    let last_entry_line = session.entries().last().map_or(1, |entry| entry.line);
    let dangling: Vec<usize> = session
        .diagnostics()
        .iter()
        .filter(|d| d.kind == DiagnosticKind::DanglingParent)
        .map(|d| d.line)
        .collect();
    let on_path = session.leaf().map(|leaf| session.path(leaf)).unwrap_or_default();
    let path_orphan = on_path
        .iter()
        .map(|&index| session.entries()[index].line)
        .find(|line| dangling.contains(line));
    let after_leaf = unreadable.iter().find(|d| d.line > last_entry_line);
    let blocking = match (after_leaf, path_orphan) {
        (Some(line), _) => Some(format!(
            "line {} ({}) comes after the last entry this tool can read, so it may be the \
             session's current leaf",
            line.line, line.message
        )),
        (None, Some(orphan)) => Some(format!(
            "the entry on line {orphan} is on the current branch and its parent is not an \
             entry this tool can read (line {}: {})",
            unreadable[0].line, unreadable[0].message
        )),
        (None, None) => None,
    };
    match blocking {
        Some(reason) => Err(CommandError::with_kind(
            super::ErrorKind::Input,
            format!(
                "{}: refusing to write: {reason}; writing now could summarize past entries \
                 that were never read. Nothing was written",
                path.display()
            ),
        )),
        None => Ok(()),
    }
}

/// Why an unfinished last line was taken for dead.
pub fn dead_tail_note(dead: super::torn::DeadTail) -> String {
    format!(
        "the interrupted line had not changed for {:.1} s and no other program had the file \
         open for writing",
        dead.age.as_secs_f64()
    )
}

/// Where [`open_store`] moved an interrupted last line, if it did: a failure afterwards must
/// not say the file was unchanged.
static TORN_TAIL_MOVED: std::sync::OnceLock<std::path::PathBuf> = std::sync::OnceLock::new();

/// What a failed writing command says about the session file it opened.
pub fn unchanged_note() -> String {
    match TORN_TAIL_MOVED.get() {
        Some(sidecar) => format!(
            "the session file was not changed beyond moving its interrupted last line to {}",
            sidecar.display()
        ),
        None => "the session file was not changed".to_owned(),
    }
}

/// Opens a copy of `path` that becomes `output` once published (`run -o`).
pub fn open_copy(
    path: &std::path::Path,
    output: &std::path::Path,
    force: bool,
) -> anyhow::Result<compaction::store::SessionStore> {
    use compaction::store::{OpenOptions, SessionStore, StoreError};
    let (store, report) = SessionStore::open_copy(path, output, force, OpenOptions::for_writing())
        .map_err(|e| {
            if let StoreError::AlreadyExists { path } = &e {
                CommandError::with_kind(
                    super::ErrorKind::Input,
                    format!(
                        "{} already exists; pass --force to replace it (only once the \
                         compaction succeeded), or choose another output",
                        path.display()
                    ),
                )
            } else {
                CommandError::store(&e)
            }
        })?;
    for message in report.messages() {
        eprintln!("{}: {message}", output.display());
    }
    refuse_unreadable_on_path(output, store.session())?;
    Ok(store)
}

/// Everything a compaction or navigation runs with; [`Toolkit::compactor`] borrows it.
pub struct Toolkit {
    pub settings: CompactionSettings,
    pub estimator: Box<dyn TokenEstimator>,
    pub summarizer: Box<dyn Summarizer>,
    pub extensions: compaction::extension::Extensions,
    pub redactor: compaction_core::serialize::Redactor,
    pub context_window: u64,
}

impl Toolkit {
    /// Resolves settings, estimator, summarizer (offline when `offline` or no provider) and
    /// extensions for a session whose model is `session_model`.
    pub fn resolve(
        compaction: &CompactionFlags,
        summarizer: &SummarizerFlags,
        extension: &ExtensionFlags,
        session_model: Option<&ModelRef>,
        offline: bool,
    ) -> anyhow::Result<Toolkit> {
        Toolkit::resolve_recorded(compaction, summarizer, extension, session_model, None, offline)
    }

    /// [`Toolkit::resolve`] for a session that records its window (see
    /// [`chat_window_recorded`]).
    pub fn resolve_recorded(
        compaction: &CompactionFlags,
        summarizer: &SummarizerFlags,
        extension: &ExtensionFlags,
        session_model: Option<&ModelRef>,
        recorded_window: Option<u64>,
        offline: bool,
    ) -> anyhow::Result<Toolkit> {
        let mut resolved = self::resolved_settings(compaction)?;
        let window = chat_window_recorded(
            &resolved,
            summarizer.model.as_deref(),
            session_model,
            recorded_window,
        );
        fit_to_window(&mut resolved, &window, session_model)?;
        let estimator = self::estimator(&resolved.settings)?;
        let offline_flags = SummarizerFlags { offline: true, ..summarizer.clone() };
        let flags = if offline { &offline_flags } else { summarizer };
        let (summarizer_box, secrets) = self::summarizer(&resolved, flags, session_model)?;
        let settings = resolved.settings;
        let redactor = compaction_core::serialize::Redactor::new(secrets);
        let extensions = self::extensions(extension, redactor.clone())?;
        let context_window = window.tokens;
        Ok(Toolkit {
            settings,
            estimator,
            summarizer: summarizer_box,
            extensions,
            redactor,
            context_window,
        })
    }

    /// The orchestrator over this toolkit.
    pub fn compactor(&self) -> compaction::compact::Compactor<'_> {
        compaction::compact::Compactor {
            summarizer: self.summarizer.as_ref(),
            settings: &self.settings,
            context_window: self.context_window,
            estimator: self.estimator.as_ref(),
            redactor: self.redactor.clone(),
            extensions: &self.extensions,
        }
    }
}

/// The model of the context at `leaf`, if the session names one.
pub fn session_model(session: &compaction_core::Session, leaf: Option<usize>) -> Option<ModelRef> {
    compaction_core::context::build_context(session, leaf).model
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Settings as if every value came from the defaults.
    fn resolved(settings: CompactionSettings) -> ResolvedSettings {
        ResolvedSettings {
            settings,
            sources: Default::default(),
            window_scaled: Default::default(),
            warnings: Vec::new(),
        }
    }

    fn session(provider: &str, id: &str) -> ModelRef {
        ModelRef { provider: provider.to_owned(), model_id: id.to_owned() }
    }

    fn flags(model: Option<&str>, summary_model: Option<&str>) -> SummarizerFlags {
        SummarizerFlags {
            provider: Some("openai".to_owned()),
            model: model.map(str::to_owned),
            summary_model: summary_model.map(str::to_owned),
            ..SummarizerFlags::default()
        }
    }

    /// `--model local --context-window 32000`: the summarizer writes with the chat model,
    /// so its requests are sized for 32 000 tokens, not the table's 128 000.
    #[test]
    fn summary_window_follows_the_chat_window_when_the_models_are_the_same() {
        let settings = resolved(CompactionSettings {
            context_window: Some(32_000),
            ..CompactionSettings::default()
        });
        assert_eq!(summary_window(&settings, &flags(Some("local"), None), None), Some(32_000));
        // The session's model as the chat model, the same id named as the summary model.
        let same = flags(None, Some("local"));
        assert_eq!(
            summary_window(&settings, &same, Some(&session("openai", "local"))),
            Some(32_000)
        );
        // Offline: no window at all.
        let offline = SummarizerFlags { offline: true, ..flags(Some("local"), None) };
        assert_eq!(summary_window(&settings, &offline, None), None);
    }

    #[test]
    fn a_separate_summary_model_has_its_own_window() {
        let settings = resolved(CompactionSettings {
            context_window: Some(32_000),
            ..CompactionSettings::default()
        });
        let separate = flags(Some("local"), Some("claude-sonnet-4-5"));
        assert_eq!(summary_window(&settings, &separate, None), Some(200_000));
        let settings = resolved(CompactionSettings {
            summary_context_window: Some(16_000),
            ..settings.settings
        });
        assert_eq!(summary_window(&settings, &separate, None), Some(16_000));
    }

    #[test]
    fn the_summarizer_is_built_with_the_summary_window() {
        let settings = resolved(CompactionSettings {
            context_window: Some(32_000),
            ..CompactionSettings::default()
        });
        let mut local = flags(Some("local"), None);
        local.base_url = Some("http://127.0.0.1:9/v1".to_owned());
        local.api_key_env = Some("COMPACTION_TEST_KEY_NEVER_SET".to_owned());
        let (summarizer, _secrets) = summarizer(&settings, &local, None).unwrap();
        // Requests are planned with a tenth kept free: the server's tokenizer is unknown.
        assert_eq!(summarizer.context_window(), Some(32_000 - 3_200));
        // A server on this machine gets one request at a time.
        assert_eq!(summarizer.concurrency(), 1);
    }

    /// `--provider openai` without `--model`: the session's model is used only when the
    /// session used that provider.
    #[test]
    fn the_sessions_model_is_used_only_with_its_own_provider() {
        let settings = resolved(CompactionSettings::default());
        let no_model = flags(None, None);
        let claude = session("anthropic", "claude-opus-4-1");
        assert_eq!(summary_model(&settings, &no_model, Some(&claude)), None);
        let local = session("openai", "qwen2.5-coder:7b");
        let chosen = summary_model(&settings, &no_model, Some(&local)).unwrap();
        assert_eq!(chosen.id, "qwen2.5-coder:7b");
        assert!(chosen.from.starts_with("the session"), "{}", chosen.from);
        let explicit = summary_model(&settings, &flags(Some("gpt-4o"), None), Some(&claude));
        assert_eq!(explicit.map(|m| (m.id, m.from)), Some(("gpt-4o".into(), "--model".into())));
    }
}
