//! Loading compaction settings from pi's settings files, the environment and flags.
//!
//! Precedence, lowest first (a later source overrides the keys it sets):
//! 1. built-in defaults ([`CompactionSettings::default`]);
//! 2. the global file `<agent dir>/settings.json`, where the agent dir is
//!    `$PI_CODING_AGENT_DIR` when set and non-empty (a leading `~` or `~/` expands to the home
//!    directory, as pi does) and `~/.pi/agent` otherwise;
//! 3. the project file `<cwd>/.pi/settings.json` (the working directory only, as pi reads it);
//! 4. environment variables `COMPACTION_<KEY>` with the key in SCREAMING_SNAKE_CASE:
//!    `COMPACTION_ENABLED`, `COMPACTION_RESERVE_TOKENS`, `COMPACTION_KEEP_RECENT_TOKENS`,
//!    `COMPACTION_KEEP_USER_MESSAGES_TOKENS`,
//!    `COMPACTION_THRESHOLD`, `COMPACTION_MIN_TURNS_TO_KEEP`, `COMPACTION_MAX_SUMMARY_TOKENS`,
//!    `COMPACTION_BRANCH_MAX_SUMMARY_TOKENS`, `COMPACTION_SUMMARY_MODEL`,
//!    `COMPACTION_PRESERVE_SYSTEM_PROMPT`, `COMPACTION_PRESERVE_TOOLS`,
//!    `COMPACTION_PRESERVE_RECENT_FILES`, `COMPACTION_ESTIMATOR`,
//!    `COMPACTION_SUMMARY_LANGUAGE`, `COMPACTION_TOOL_RESULT_MAX_CHARS`,
//!    `COMPACTION_MAX_MESSAGES`, `COMPACTION_CONTEXT_WINDOW`,
//!    `COMPACTION_SUMMARY_CONTEXT_WINDOW`, `COMPACTION_TIMEOUT_SECONDS`,
//!    `COMPACTION_STRICT_QUALITY`, `COMPACTION_RESTORE_FILE_TOKENS`,
//!    `COMPACTION_RESTORE_TOTAL_TOKENS` (booleans: true/false/1/0/yes/no/on/off; optional
//!    values: empty or `none` clears them);
//! 5. command-line flags, given as a [`SettingsPatch`] the CLI fills.
//!
//! Files are read from their `compaction` object; other keys belong to pi and are ignored.
//! Unknown keys inside `compaction` and unknown `COMPACTION_*` variables are ignored too,
//! and reported in [`ResolvedSettings::warnings`] with the nearest known name. A missing
//! file is an empty layer; a settings path that is not a regular file (a FIFO, a device) is
//! an error, never a blocking read ([`read_settings_text`], the one way settings files are
//! read, here and when the trusted projects are read).
//!
//! Invariant: the result is validated, and every error names the file (or `env`/`flag`)
//! and the key at fault.

use std::io::Read;
use std::path::{Path, PathBuf};

use compaction_core::settings::{
    ResolvedSettings, SETTING_KEYS, SettingSource, SettingsError, SettingsPatch, SettingsWarning,
    env_var_name, unknown_keys, unknown_variables,
};

pub use compaction_core::settings::CompactionSettings;

/// The environment variable pi reads to relocate its agent directory.
pub const AGENT_DIR_ENV: &str = "PI_CODING_AGENT_DIR";

/// Why settings could not be loaded.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum LoadError {
    /// A settings file exists but could not be read (permissions, not a file…).
    #[error("cannot read {}: {error}", path.display())]
    Read {
        /// The settings file.
        path: PathBuf,
        /// Why it could not be read.
        #[source]
        error: std::io::Error,
    },
    /// A settings file is not valid JSON.
    #[error("{}: not valid JSON: {error}", path.display())]
    Json {
        /// The settings file.
        path: PathBuf,
        /// Where the JSON is wrong.
        #[source]
        error: serde_json::Error,
    },
    /// A value is malformed or invalid; the error names its source and key.
    #[error(transparent)]
    Invalid(#[from] SettingsError),
}

/// Largest settings file read (settings are a few kilobytes; this bounds a hostile one).
pub const MAX_SETTINGS_BYTES: u64 = 16 * 1024 * 1024;

/// The text of a settings file; `None` when it does not exist. Anything but a regular file
/// (a FIFO, a device, a directory) is refused without opening it for a blocking read, and a
/// file over [`MAX_SETTINGS_BYTES`] is refused.
pub fn read_settings_text(path: &Path) -> Result<Option<String>, LoadError> {
    let refuse = |message: String| LoadError::Read {
        path: path.to_path_buf(),
        error: std::io::Error::new(std::io::ErrorKind::InvalidInput, message),
    };
    let metadata = match std::fs::metadata(path) {
        Ok(metadata) => metadata,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(error) => return Err(LoadError::Read { path: path.to_path_buf(), error }),
    };
    if !metadata.is_file() {
        return Err(refuse("not a regular file".to_owned()));
    }
    use std::os::unix::fs::OpenOptionsExt;
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)
        .map_err(|error| LoadError::Read { path: path.to_path_buf(), error })?;
    // The name may have been replaced between the check and the open.
    let opened =
        file.metadata().map_err(|error| LoadError::Read { path: path.to_path_buf(), error })?;
    if !opened.is_file() {
        return Err(refuse("not a regular file".to_owned()));
    }
    let mut bytes = Vec::new();
    file.take(MAX_SETTINGS_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|error| LoadError::Read { path: path.to_path_buf(), error })?;
    if bytes.len() as u64 > MAX_SETTINGS_BYTES {
        return Err(refuse(format!("larger than {MAX_SETTINGS_BYTES} bytes")));
    }
    String::from_utf8(bytes).map(Some).map_err(|error| refuse(format!("not UTF-8 text: {error}")))
}

/// The two settings files pi reads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SettingsPaths {
    /// `<agent dir>/settings.json`; `None` when no home directory is known.
    pub global: Option<PathBuf>,
    /// `<cwd>/.pi/settings.json`.
    pub project: PathBuf,
}

impl SettingsPaths {
    /// The paths for `cwd`, given the home directory and the value of
    /// `PI_CODING_AGENT_DIR` (explicit, so tests need not touch the process environment).
    pub fn new(cwd: &Path, home: Option<&Path>, agent_dir_env: Option<&str>) -> Self {
        SettingsPaths {
            global: agent_dir(home, agent_dir_env).map(|dir| dir.join("settings.json")),
            project: cwd.join(".pi").join("settings.json"),
        }
    }

    /// The paths for `cwd` from this process's home directory and environment.
    pub fn from_process_env(cwd: &Path) -> Self {
        let home = std::env::home_dir();
        let agent_dir = std::env::var(AGENT_DIR_ENV).ok();
        SettingsPaths::new(cwd, home.as_deref(), agent_dir.as_deref())
    }
}

/// pi's agent directory: `$PI_CODING_AGENT_DIR` with `~` expanded when set and non-empty,
/// else `<home>/.pi/agent`.
pub fn agent_dir(home: Option<&Path>, agent_dir_env: Option<&str>) -> Option<PathBuf> {
    match agent_dir_env.filter(|value| !value.is_empty()) {
        Some("~") => home.map(Path::to_path_buf),
        Some(value) => match value.strip_prefix("~/") {
            // pi concatenates `homedir() + path.slice(1)`, keeping the slash.
            Some(rest) => home.map(|home| PathBuf::from(format!("{}/{rest}", home.display()))),
            None => Some(PathBuf::from(value)),
        },
        None => home.map(|home| home.join(".pi").join("agent")),
    }
}

/// The context window pi's `models.json` gives a model, if it gives one.
///
/// pi 0.73.1 has no `compaction.modelOverrides` setting; the windows it uses for its own
/// models come from `<agent dir>/models.json`: `providers.<name>.models[]` (custom models,
/// `{"id", "contextWindow"}`) and `providers.<name>.modelOverrides.<id>.contextWindow`
/// (changes to built-in models). The provider named `provider` is searched first, then the
/// others (an id given with `--model` carries no provider). A missing file gives `None`.
pub fn pi_model_window(
    models_json: &Path,
    provider: Option<&str>,
    model_id: &str,
) -> Result<Option<u64>, LoadError> {
    let Some(text) = read_settings_text(models_json)? else { return Ok(None) };
    let document: serde_json::Value = compaction_core::entry::from_json_text(&text)
        .map_err(|error| LoadError::Json { path: models_json.to_path_buf(), error })?;
    let Some(providers) = document.get("providers").and_then(serde_json::Value::as_object) else {
        return Ok(None);
    };
    let named = provider.and_then(|name| providers.get_key_value(name));
    let ordered = named.into_iter().chain(
        providers.iter().filter(|(name, _)| provider.is_none_or(|wanted| wanted != name.as_str())),
    );
    for (_, config) in ordered {
        let custom =
            config.get("models").and_then(serde_json::Value::as_array).into_iter().flatten().find(
                |model| model.get("id").and_then(serde_json::Value::as_str) == Some(model_id),
            );
        let overridden = config.get("modelOverrides").and_then(|overrides| overrides.get(model_id));
        for model in custom.into_iter().chain(overridden) {
            let window = model.get("contextWindow").and_then(serde_json::Value::as_u64);
            if let Some(window) = window.filter(|&window| window > 0) {
                return Ok(Some(window));
            }
        }
    }
    Ok(None)
}

/// The layer a settings file contributes (empty when the file does not exist).
pub fn read_settings_file(path: &Path) -> Result<SettingsPatch, LoadError> {
    read_settings_layer(path).map(|(patch, _warnings)| patch)
}

/// The layer a settings file contributes, and a warning for each key of its `compaction`
/// object that nothing reads.
pub fn read_settings_layer(
    path: &Path,
) -> Result<(SettingsPatch, Vec<SettingsWarning>), LoadError> {
    let Some(text) = read_settings_text(path)? else {
        return Ok((SettingsPatch::default(), Vec::new()));
    };
    let document: serde_json::Value = compaction_core::entry::from_json_text(&text)
        .map_err(|error| LoadError::Json { path: path.to_path_buf(), error })?;
    let source = SettingSource::File(path.to_path_buf());
    let patch = SettingsPatch::from_settings_document(&document, &source)?;
    let warnings = match document.get("compaction") {
        Some(serde_json::Value::Object(object)) => unknown_keys(object, &source),
        _ => Vec::new(),
    };
    Ok((patch, warnings))
}

/// The layer the `COMPACTION_*` variables contribute; `lookup` reads one variable.
pub fn env_patch(lookup: impl Fn(&str) -> Option<String>) -> Result<SettingsPatch, SettingsError> {
    let mut patch = SettingsPatch::default();
    for key in SETTING_KEYS {
        if let Some(value) = lookup(&env_var_name(key)) {
            patch.set_text(key, &value, &SettingSource::Env)?;
        }
    }
    Ok(patch)
}

/// Loads settings: files, then the environment (`lookup`), then `flags`, validated.
pub fn load_settings(
    paths: &SettingsPaths,
    lookup: impl Fn(&str) -> Option<String>,
    flags: &SettingsPatch,
) -> Result<ResolvedSettings, LoadError> {
    let mut layers = Vec::new();
    let mut warnings = Vec::new();
    for path in paths.global.iter().chain(std::iter::once(&paths.project)) {
        let (patch, file_warnings) = read_settings_layer(path)?;
        layers.push((SettingSource::File(path.clone()), patch));
        warnings.extend(file_warnings);
    }
    layers.push((SettingSource::Env, env_patch(lookup)?));
    layers.push((SettingSource::Flag, flags.clone()));
    let mut resolved = ResolvedSettings::resolve(&layers)?;
    resolved.warnings = warnings;
    Ok(resolved)
}

/// [`load_settings`] with this process's home directory and environment.
pub fn load_settings_from_process(
    cwd: &Path,
    flags: &SettingsPatch,
) -> Result<ResolvedSettings, LoadError> {
    let mut resolved = load_settings(
        &SettingsPaths::from_process_env(cwd),
        |name| std::env::var(name).ok(),
        flags,
    )?;
    let names: Vec<String> =
        std::env::vars_os().filter_map(|(name, _)| name.into_string().ok()).collect();
    resolved.warnings.extend(unknown_variables(names.iter().map(String::as_str)));
    Ok(resolved)
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use std::collections::HashMap;

    fn write(path: &Path, text: &str) {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    fn env(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
        let map: HashMap<String, String> =
            pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        move |name| map.get(name).cloned()
    }

    #[test]
    fn agent_dir_follows_pi() {
        let home = Path::new("/home/u");
        assert_eq!(agent_dir(Some(home), None), Some(PathBuf::from("/home/u/.pi/agent")));
        assert_eq!(agent_dir(Some(home), Some("")), Some(PathBuf::from("/home/u/.pi/agent")));
        assert_eq!(agent_dir(Some(home), Some("~")), Some(PathBuf::from("/home/u")));
        assert_eq!(agent_dir(Some(home), Some("~/cfg/pi")), Some(PathBuf::from("/home/u/cfg/pi")));
        assert_eq!(agent_dir(Some(home), Some("/etc/pi")), Some(PathBuf::from("/etc/pi")));
        assert_eq!(agent_dir(None, None), None);
    }

    #[test]
    fn precedence_is_global_project_env_flags() {
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path().join("home");
        let cwd = dir.path().join("project");
        let paths = SettingsPaths::new(&cwd, Some(&home), None);
        let global = home.join(".pi/agent/settings.json");
        assert_eq!(paths.global.as_deref(), Some(global.as_path()));
        write(
            &global,
            r#"{"theme":"x","compaction":{"reserveTokens":1000,"keepRecentTokens":3000,"threshold":0.5,"estimator":"pi"}}"#,
        );
        write(
            &cwd.join(".pi/settings.json"),
            r#"{"compaction":{"keepRecentTokens":4000,"threshold":0.6}}"#,
        );
        let flags = SettingsPatch { threshold: Some(0.9), ..SettingsPatch::default() };
        let resolved = load_settings(
            &paths,
            env(&[("COMPACTION_THRESHOLD", "0.7"), ("COMPACTION_MAX_MESSAGES", "50")]),
            &flags,
        )
        .unwrap();
        let s = &resolved.settings;
        assert_eq!(
            (s.reserve_tokens, s.keep_recent_tokens, s.threshold, s.max_messages),
            (1000, 4000, 0.9, Some(50))
        );
        assert_eq!(s.estimator, "pi");
        assert_eq!(resolved.source_of("reserveTokens"), SettingSource::File(global));
        assert_eq!(
            resolved.source_of("keepRecentTokens"),
            SettingSource::File(cwd.join(".pi/settings.json"))
        );
        assert_eq!(resolved.source_of("maxMessages"), SettingSource::Env);
        assert_eq!(resolved.source_of("threshold"), SettingSource::Flag);
    }

    #[test]
    fn pi_models_json_gives_windows_of_custom_and_overridden_models() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("models.json");
        assert_eq!(pi_model_window(&path, None, "m1").unwrap(), None);
        write(
            &path,
            r#"{"providers":{
                "ollama":{"baseUrl":"http://localhost:11434/v1","api":"openai-completions",
                  "models":[{"id":"qwen2.5-coder:7b","contextWindow":16384}]},
                "openrouter":{"modelOverrides":{"anthropic/claude-sonnet-4":{"contextWindow":100000}}},
                "other":{"models":[{"id":"qwen2.5-coder:7b","contextWindow":8192}]}}}"#,
        );
        assert_eq!(
            pi_model_window(&path, Some("ollama"), "qwen2.5-coder:7b").unwrap(),
            Some(16384)
        );
        assert_eq!(pi_model_window(&path, Some("other"), "qwen2.5-coder:7b").unwrap(), Some(8192));
        assert_eq!(
            pi_model_window(&path, None, "anthropic/claude-sonnet-4").unwrap(),
            Some(100_000)
        );
        assert_eq!(pi_model_window(&path, Some("ollama"), "llama3.2:3b").unwrap(), None);
        write(&path, "{not json");
        assert!(matches!(
            pi_model_window(&path, None, "m1"),
            Err(LoadError::Json { path: p, .. }) if p == path
        ));
    }

    #[test]
    fn agent_dir_env_relocates_the_global_file() {
        let dir = tempfile::tempdir().unwrap();
        let agent = dir.path().join("agent");
        write(&agent.join("settings.json"), r#"{"compaction":{"enabled":false}}"#);
        let paths = SettingsPaths::new(dir.path(), None, agent.to_str());
        let resolved = load_settings(&paths, env(&[]), &SettingsPatch::default()).unwrap();
        assert!(!resolved.settings.enabled);
    }

    #[test]
    fn missing_files_give_defaults() {
        let dir = tempfile::tempdir().unwrap();
        let paths = SettingsPaths::new(dir.path(), Some(dir.path()), None);
        let resolved = load_settings(&paths, env(&[]), &SettingsPatch::default()).unwrap();
        assert_eq!(resolved.settings, CompactionSettings::default());
    }

    #[test]
    fn errors_name_file_and_key() {
        let dir = tempfile::tempdir().unwrap();
        let paths = SettingsPaths::new(dir.path(), Some(dir.path()), None);
        write(&paths.project, r#"{"compaction":{"threshold":1.5}}"#);
        let error = load_settings(&paths, env(&[]), &SettingsPatch::default()).unwrap_err();
        assert_eq!(
            error.to_string(),
            format!("{}: `threshold`: must be in (0, 1], got 1.5", paths.project.display())
        );

        write(&paths.project, "{not json");
        let error = load_settings(&paths, env(&[]), &SettingsPatch::default()).unwrap_err();
        assert!(matches!(&error, LoadError::Json { path, .. } if path == &paths.project));

        std::fs::remove_file(&paths.project).unwrap();
        let error = load_settings(
            &paths,
            env(&[("COMPACTION_RESERVE_TOKENS", "-1")]),
            &SettingsPatch::default(),
        )
        .unwrap_err();
        assert_eq!(
            error.to_string(),
            "COMPACTION_RESERVE_TOKENS: `reserveTokens`: expected a non-negative integer, got `-1`"
        );

        let flags = SettingsPatch { estimator: Some("words".into()), ..SettingsPatch::default() };
        let error = load_settings(&paths, env(&[]), &flags).unwrap_err();
        assert!(
            error.to_string().starts_with("flag: `estimator`: unknown estimator `words`"),
            "{error}"
        );
    }
}
