//! Where a setting came from ([`SettingSource`]) and what goes wrong with one
//! ([`SettingsError`], [`BudgetConflict`]): every error names the source and the key.

use std::fmt;
use std::path::PathBuf;

use super::*;

/// Where a layer of settings came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SettingSource {
    /// The built-in default.
    Default,
    /// A settings file (its `compaction` object).
    File(PathBuf),
    /// An environment variable (`COMPACTION_<KEY>`).
    Env,
    /// A command-line flag.
    Flag,
}

impl SettingSource {
    /// The source as it set `key`: for the environment, the variable's name
    /// (`COMPACTION_RESERVE_TOKENS`); otherwise the same as `Display`.
    pub fn describe_for(&self, key: &str) -> String {
        match self {
            SettingSource::Env => env_var_name(key),
            SettingSource::Default | SettingSource::File(_) | SettingSource::Flag => {
                self.to_string()
            }
        }
    }
}

impl fmt::Display for SettingSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SettingSource::Default => f.write_str("default"),
            SettingSource::File(path) => write!(f, "{}", path.display()),
            SettingSource::Env => f.write_str("env"),
            SettingSource::Flag => f.write_str("flag"),
        }
    }
}

/// A setting that could not be used.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum SettingsError {
    /// The value has the wrong type or does not parse (e.g. a negative budget). Shown with
    /// its source: the file, the environment variable, or `flag`.
    #[error("{}: `{key}`: {message}", origin.describe_for(key))]
    Malformed {
        /// Where the value came from.
        origin: SettingSource,
        /// The setting's key.
        key: String,
        /// What is wrong with the value.
        message: String,
    },
    /// The value parses but is out of range, alone or together with another setting.
    #[error("{}: `{key}`: {message}", origin.describe_for(key))]
    Invalid {
        /// Where the value came from.
        origin: SettingSource,
        /// The setting's key.
        key: String,
        /// What is wrong with the value.
        message: String,
    },
    /// The settings file is not JSON, or `compaction` is not an object.
    #[error("{origin}: {message}")]
    File {
        /// The file.
        origin: SettingSource,
        /// What is wrong with it.
        message: String,
    },
    /// Budgets set explicitly are not below the context window (all of them at once).
    #[error("{}", describe_misfit(*.window, .window_from, .conflicts))]
    BudgetsExceedWindow {
        /// The context window in tokens.
        window: u64,
        /// Where the window came from, for the user (`--context-window`, the model table…).
        window_from: String,
        /// Every budget that does not fit, with a value that would.
        conflicts: Vec<BudgetConflict>,
    },
}

/// A token budget that does not fit the context window.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BudgetConflict {
    /// The setting key (`reserveTokens`, `keepRecentTokens`).
    pub key: &'static str,
    /// Its value.
    pub value: u64,
    /// Where it was set.
    pub origin: SettingSource,
    /// A value that fits: a quarter of the window.
    pub suggested: u64,
}

fn describe_misfit(window: u64, window_from: &str, conflicts: &[BudgetConflict]) -> String {
    let listed: Vec<String> = conflicts
        .iter()
        .map(|c| format!("`{}` = {} (from {})", c.key, c.value, c.origin.describe_for(c.key)))
        .collect();
    let suggested: Vec<String> =
        conflicts.iter().map(|c| format!("`{}` = {}", c.key, c.suggested)).collect();
    format!(
        "{} must be below the context window of {window} tokens (from {window_from}); \
         for this window use {} (a quarter of the window), or a model with a larger window",
        listed.join(" and "),
        suggested.join(" and ")
    )
}
