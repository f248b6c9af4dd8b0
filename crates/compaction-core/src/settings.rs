//! Compaction settings: the values, their defaults, layering and validation (no I/O).
//!
//! [`CompactionSettings`] holds every knob with its default in one place
//! ([`CompactionSettings::default`]). Settings arrive in layers ([`SettingsPatch`]), each
//! from one [`SettingSource`] (a settings file, the environment, command-line flags); a
//! later layer overrides the keys it sets. Keys are pi's camelCase names; files read the
//! `compaction` object of pi's `settings.json`. Reading files and the environment is the
//! job of `compaction::settings`.
//!
//! Small windows: pi's default budgets (reserve 16384, keep 20000 tokens) are sized for
//! windows of 128k tokens and more. Each token budget left at its default
//! ([`WINDOW_SCALED_KEYS`]) is capped at a quarter of the context window of the model in use
//! ([`ResolvedSettings::fit_to_window`]); a budget set explicitly is never changed, and one
//! that does not fit is reported, together with every other one that does not, in a single
//! [`SettingsError::BudgetsExceedWindow`] with values that would work.
//!
//! Invariant: every error names the source and the key that caused it; a
//! [`ResolvedSettings`] has passed [`ResolvedSettings::validate`].

use std::collections::BTreeMap;
use std::fmt;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::tokens::{DEFAULT_ESTIMATOR, ESTIMATOR_NAMES};

/// Every compaction setting. Serialized with pi's camelCase keys.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct CompactionSettings {
    /// Whether automatic compaction runs at all (pi: `true`).
    pub enabled: bool,
    /// Tokens kept free for the model's reply; compaction fires when the context exceeds
    /// window − reserve (pi: 16384).
    pub reserve_tokens: u64,
    /// Tokens of the most recent messages kept verbatim after a compaction (pi: 20000).
    pub keep_recent_tokens: u64,
    /// Tokens of the user's own messages from the summarized region kept word for word in
    /// the summary, newest first, in a "User messages (verbatim)" section (0, off; see
    /// [`crate::user_messages`]). The section is carried and re-budgeted by every later
    /// compaction and counts against the context window like the summary itself.
    pub keep_user_messages_tokens: u64,
    /// Fraction of the window at which compaction fires, in (0, 1] (0.75).
    pub threshold: f64,
    /// User turns always kept verbatim, whatever their size (2).
    pub min_turns_to_keep: u64,
    /// Output budget of a compaction summary, in tokens (4096).
    pub max_summary_tokens: u64,
    /// Output budget of a branch summary, in tokens (2048).
    pub branch_max_summary_tokens: u64,
    /// Model that writes summaries; `None` uses the session's model.
    pub summary_model: Option<String>,
    /// Keep the system prompt out of the summarized region (true).
    pub preserve_system_prompt: bool,
    /// Keep tool definitions out of the summarized region (true).
    pub preserve_tools: bool,
    /// How many of the most recently modified files are re-read from disk into the context
    /// after a compaction (5; 0 turns restoring off).
    pub preserve_recent_files: u64,
    /// Token estimator name: `heuristic`, `pi`, `o200k` or `cl100k` (`heuristic`).
    pub estimator: String,
    /// Language summaries are written in; `None` follows the conversation.
    pub summary_language: Option<String>,
    /// Characters of each tool result the summarizer sees (2000, pi's own cut-off: enough
    /// for an error message or the head of a file listing, while a long session's tool
    /// output cannot crowd out the conversation in the summary request).
    pub tool_result_max_chars: u64,
    /// Compact once the context holds this many messages; `None` turns the rule off
    /// (counting messages says little about size in coding sessions).
    pub max_messages: Option<u64>,
    /// Context window in tokens, overriding the model table; `None` uses the table.
    pub context_window: Option<u64>,
    /// How `run` and the harness reduce the context: `summarize`, `prune` or `hybrid`
    /// (`hybrid`: prune first, summarize only when that is not enough).
    pub strategy: crate::prune::Strategy,
    /// The prune rules (see [`crate::prune::PruneSettings`] for each key and default).
    pub prune: crate::prune::PruneSettings,
    /// The summary model's context window in tokens, when it is not the chat model; `None`
    /// uses the chat model's window (`contextWindow` included) when the summary model is the
    /// chat model, else the model table.
    pub summary_context_window: Option<u64>,
    /// Longest time one compaction or branch summary may take, in seconds, before it gives
    /// up and leaves the session file unchanged (180).
    pub timeout_seconds: u64,
    /// A summary the quality gate rejects twice fails the compaction (the file stays
    /// unchanged) instead of getting a Must Keep section appended (false).
    pub strict_quality: bool,
    /// Tokens of one restored file's content at most; a longer file is cut (5000).
    pub restore_file_tokens: u64,
    /// Tokens of all restored files together at most (20000).
    pub restore_total_tokens: u64,
}

impl Default for CompactionSettings {
    fn default() -> Self {
        CompactionSettings {
            enabled: true,
            reserve_tokens: 16384,
            keep_recent_tokens: 20000,
            keep_user_messages_tokens: 0,
            threshold: 0.75,
            min_turns_to_keep: 2,
            max_summary_tokens: 4096,
            branch_max_summary_tokens: 2048,
            summary_model: None,
            preserve_system_prompt: true,
            preserve_tools: true,
            preserve_recent_files: 5,
            estimator: DEFAULT_ESTIMATOR.to_owned(),
            summary_language: None,
            tool_result_max_chars: 2000,
            max_messages: None,
            context_window: None,
            strategy: crate::prune::Strategy::Hybrid,
            prune: crate::prune::PruneSettings::default(),
            summary_context_window: None,
            timeout_seconds: 180,
            strict_quality: false,
            restore_file_tokens: 5000,
            restore_total_tokens: 20000,
        }
    }
}

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

/// Token budgets that follow the context window when left at their defaults: each is
/// capped at a quarter of the window.
pub const WINDOW_SCALED_KEYS: &[&str] =
    &["reserveTokens", "keepRecentTokens", "maxSummaryTokens", "branchMaxSummaryTokens"];

/// Budgets that must be below the context window.
const WINDOW_BOUNDED_KEYS: &[&str] =
    &["reserveTokens", "keepRecentTokens", "keepUserMessagesTokens"];

/// The env var that sets `key` (`reserveTokens` → `COMPACTION_RESERVE_TOKENS`).
pub fn env_var_name(key: &str) -> String {
    let mut name = String::from("COMPACTION_");
    for ch in key.chars() {
        if ch.is_ascii_uppercase() {
            name.push('_');
        }
        name.push(ch.to_ascii_uppercase());
    }
    name
}

/// Every setting key, in the order of [`CompactionSettings`].
pub const SETTING_KEYS: &[&str] = &[
    "enabled",
    "reserveTokens",
    "keepRecentTokens",
    "keepUserMessagesTokens",
    "threshold",
    "minTurnsToKeep",
    "maxSummaryTokens",
    "branchMaxSummaryTokens",
    "summaryModel",
    "preserveSystemPrompt",
    "preserveTools",
    "preserveRecentFiles",
    "estimator",
    "summaryLanguage",
    "toolResultMaxChars",
    "maxMessages",
    "contextWindow",
    "strategy",
    "prune",
    "summaryContextWindow",
    "timeoutSeconds",
    "strictQuality",
    "restoreFileTokens",
    "restoreTotalTokens",
];

/// Keys of the `compaction` object that are read elsewhere than [`SettingsPatch`] (the
/// process extensions list, read by the command-line tool).
pub const OTHER_COMPACTION_KEYS: &[&str] = &["extensions"];

/// Environment variables named `COMPACTION_*` that are not settings: set for extension
/// processes, and the version stamp `cargo run` and `cargo test` pass from the build script.
pub const OTHER_COMPACTION_VARIABLES: &[&str] =
    &["COMPACTION_EXTENSION_PROTOCOL", "COMPACTION_EXTENSION_EVENT", "COMPACTION_VERSION"];

/// A settings key or `COMPACTION_*` variable that nothing reads: probably a typo.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SettingsWarning {
    /// Where it was found.
    pub origin: SettingSource,
    /// The unknown key (in a file) or variable name (environment).
    pub name: String,
    /// The nearest known key or variable, when one is close.
    pub suggestion: Option<String>,
}

impl fmt::Display for SettingsWarning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.origin {
            SettingSource::Env => write!(f, "unknown environment variable {}", self.name)?,
            other @ (SettingSource::Default | SettingSource::File(_) | SettingSource::Flag) => {
                write!(f, "{other}: unknown setting `compaction.{}`", self.name)?
            }
        }
        match &self.suggestion {
            Some(suggestion) => write!(f, " (did you mean `{suggestion}`?); it is ignored"),
            None => f.write_str("; it is ignored"),
        }
    }
}

/// The warnings for the keys of a `compaction` object that no one reads.
pub fn unknown_keys(object: &Map<String, Value>, origin: &SettingSource) -> Vec<SettingsWarning> {
    let known: Vec<&str> = SETTING_KEYS.iter().chain(OTHER_COMPACTION_KEYS).copied().collect();
    object
        .keys()
        .filter(|key| !known.contains(&key.as_str()))
        .map(|key| SettingsWarning {
            origin: origin.clone(),
            name: key.clone(),
            suggestion: nearest(key, known.iter().copied()).map(str::to_owned),
        })
        .collect()
}

/// The warnings for `COMPACTION_*` variable names that no setting reads.
pub fn unknown_variables<'a>(names: impl IntoIterator<Item = &'a str>) -> Vec<SettingsWarning> {
    let known: Vec<String> = SETTING_KEYS
        .iter()
        .map(|key| env_var_name(key))
        .chain(OTHER_COMPACTION_VARIABLES.iter().map(|name| (*name).to_owned()))
        .collect();
    names
        .into_iter()
        .filter(|name| name.starts_with("COMPACTION_") && !known.iter().any(|k| k == name))
        .map(|name| {
            // Compare what follows the shared prefix, so that it does not hide a difference.
            fn tail(name: &str) -> &str {
                name.trim_start_matches("COMPACTION_")
            }
            let suggestion = nearest(tail(name), known.iter().map(|k| tail(k)))
                .map(|tail| format!("COMPACTION_{tail}"));
            SettingsWarning { origin: SettingSource::Env, name: name.to_owned(), suggestion }
        })
        .collect()
}

/// The candidate closest to `name` (ignoring case), when it is within a third of the
/// name's length (at least 2 edits). A name may also be a misspelt start of a candidate
/// (`COMPACTION_KEEP_RECNT` for `COMPACTION_KEEP_RECENT_TOKENS`): the distance to the
/// candidate's first characters counts, plus one.
fn nearest<'a>(name: &str, candidates: impl Iterator<Item = &'a str>) -> Option<&'a str> {
    let name = name.to_lowercase();
    let length = name.chars().count();
    let limit = (length / 3).max(2);
    candidates
        .map(|candidate| {
            let lower = candidate.to_lowercase();
            let start: String = lower.chars().take(length).collect();
            let distance = edit_distance(&name, &lower).min(edit_distance(&name, &start) + 1);
            (distance, candidate)
        })
        .filter(|&(distance, _)| distance <= limit)
        .min_by_key(|&(distance, _)| distance)
        .map(|(_, candidate)| candidate)
}

/// Levenshtein distance in characters.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut previous: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut current = vec![i + 1];
        for (j, cb) in b.iter().enumerate() {
            let substitution = previous[j] + usize::from(ca != *cb);
            current.push(substitution.min(previous[j + 1] + 1).min(current[j] + 1));
        }
        previous = current;
    }
    previous[b.len()]
}

/// Values one layer sets; `None` leaves the key to lower layers. For optional settings,
/// `Some(None)` clears the value (JSON `null`, or `none` in the environment).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SettingsPatch {
    /// `enabled`, when this layer sets it.
    pub enabled: Option<bool>,
    /// `reserveTokens`, when this layer sets it.
    pub reserve_tokens: Option<u64>,
    /// `keepRecentTokens`, when this layer sets it.
    pub keep_recent_tokens: Option<u64>,
    /// `keepUserMessagesTokens`, when this layer sets it.
    pub keep_user_messages_tokens: Option<u64>,
    /// `threshold`, when this layer sets it.
    pub threshold: Option<f64>,
    /// `minTurnsToKeep`, when this layer sets it.
    pub min_turns_to_keep: Option<u64>,
    /// `maxSummaryTokens`, when this layer sets it.
    pub max_summary_tokens: Option<u64>,
    /// `branchMaxSummaryTokens`, when this layer sets it.
    pub branch_max_summary_tokens: Option<u64>,
    /// `summaryModel`, when this layer sets it.
    pub summary_model: Option<Option<String>>,
    /// `preserveSystemPrompt`, when this layer sets it.
    pub preserve_system_prompt: Option<bool>,
    /// `preserveTools`, when this layer sets it.
    pub preserve_tools: Option<bool>,
    /// `preserveRecentFiles`, when this layer sets it.
    pub preserve_recent_files: Option<u64>,
    /// `estimator`, when this layer sets it.
    pub estimator: Option<String>,
    /// `summaryLanguage`, when this layer sets it.
    pub summary_language: Option<Option<String>>,
    /// `toolResultMaxChars`, when this layer sets it.
    pub tool_result_max_chars: Option<u64>,
    /// `maxMessages`, when this layer sets it.
    pub max_messages: Option<Option<u64>>,
    /// `contextWindow`, when this layer sets it.
    pub context_window: Option<Option<u64>>,
    /// `strategy`, when this layer sets it.
    pub strategy: Option<crate::prune::Strategy>,
    /// `prune`, when this layer sets it.
    pub prune: Option<crate::prune::PruneSettings>,
    /// `summaryContextWindow`, when this layer sets it.
    pub summary_context_window: Option<Option<u64>>,
    /// `timeoutSeconds`, when this layer sets it.
    pub timeout_seconds: Option<u64>,
    /// `strictQuality`, when this layer sets it.
    pub strict_quality: Option<bool>,
    /// `restoreFileTokens`, when this layer sets it.
    pub restore_file_tokens: Option<u64>,
    /// `restoreTotalTokens`, when this layer sets it.
    pub restore_total_tokens: Option<u64>,
}

/// A raw value of one key, from JSON or from text (environment).
enum RawValue<'a> {
    Json(&'a Value),
    Text(&'a str),
}

impl RawValue<'_> {
    fn boolean(&self) -> Result<bool, String> {
        match self {
            RawValue::Json(Value::Bool(flag)) => Ok(*flag),
            RawValue::Text(text) => match text.trim().to_ascii_lowercase().as_str() {
                "true" | "1" | "yes" | "on" => Ok(true),
                "false" | "0" | "no" | "off" => Ok(false),
                _ => Err(format!("expected true or false, got `{text}`")),
            },
            RawValue::Json(other) => Err(format!("expected true or false, got {other}")),
        }
    }

    fn count(&self) -> Result<u64, String> {
        let parsed = match self {
            RawValue::Json(Value::Number(number)) => number.as_u64(),
            RawValue::Json(_) => None,
            RawValue::Text(text) => text.trim().parse::<u64>().ok(),
        };
        parsed.ok_or_else(|| format!("expected a non-negative integer, got {}", self.shown()))
    }

    fn fraction(&self) -> Result<f64, String> {
        let parsed = match self {
            RawValue::Json(Value::Number(number)) => number.as_f64(),
            RawValue::Json(_) => None,
            RawValue::Text(text) => text.trim().parse::<f64>().ok(),
        };
        parsed.ok_or_else(|| format!("expected a number, got {}", self.shown()))
    }

    fn text(&self) -> Result<String, String> {
        match self {
            RawValue::Json(Value::String(text)) => Ok(text.clone()),
            RawValue::Text(text) => Ok((*text).to_owned()),
            RawValue::Json(other) => Err(format!("expected a string, got {other}")),
        }
    }

    fn strategy(&self) -> Result<crate::prune::Strategy, String> {
        let name = self.text()?;
        crate::prune::Strategy::parse(name.trim())
            .ok_or_else(|| format!("expected summarize, prune or hybrid, got `{name}`"))
    }

    /// A JSON object (the environment gives it as JSON text).
    fn prune(&self) -> Result<crate::prune::PruneSettings, String> {
        let parsed = match self {
            RawValue::Json(value) => serde_json::from_value((*value).clone()),
            RawValue::Text(text) => serde_json::from_str(text),
        };
        parsed.map_err(|e| format!("expected an object of prune rules: {e}"))
    }

    fn is_none(&self) -> bool {
        match self {
            RawValue::Json(value) => value.is_null(),
            RawValue::Text(text) => {
                let text = text.trim();
                text.is_empty() || text.eq_ignore_ascii_case("none")
            }
        }
    }

    fn optional<T>(&self, parse: impl Fn(&Self) -> Result<T, String>) -> Result<Option<T>, String> {
        if self.is_none() { Ok(None) } else { parse(self).map(Some) }
    }

    fn shown(&self) -> String {
        match self {
            RawValue::Json(value) => value.to_string(),
            RawValue::Text(text) => format!("`{text}`"),
        }
    }
}

impl SettingsPatch {
    /// The patch a settings file's `compaction` object describes. Unknown keys are ignored
    /// (pi and its extensions may add their own).
    pub fn from_json(
        object: &Map<String, Value>,
        source: &SettingSource,
    ) -> Result<Self, SettingsError> {
        let mut patch = SettingsPatch::default();
        for (key, value) in object {
            if SETTING_KEYS.contains(&key.as_str()) {
                patch.set(key, RawValue::Json(value), source)?;
            }
        }
        Ok(patch)
    }

    /// The patch the `compaction` key of a whole settings document describes (empty when the
    /// document has no such key).
    pub fn from_settings_document(
        document: &Value,
        source: &SettingSource,
    ) -> Result<Self, SettingsError> {
        match document {
            Value::Object(root) => match root.get("compaction") {
                None | Some(Value::Null) => Ok(SettingsPatch::default()),
                Some(Value::Object(object)) => SettingsPatch::from_json(object, source),
                Some(other) => Err(SettingsError::File {
                    origin: source.clone(),
                    message: format!("`compaction` must be an object, got {other}"),
                }),
            },
            other @ (Value::Null
            | Value::Bool(_)
            | Value::Number(_)
            | Value::String(_)
            | Value::Array(_)) => Err(SettingsError::File {
                origin: source.clone(),
                message: format!("settings must be a JSON object, got {other}"),
            }),
        }
    }

    /// Sets one key from its text form (environment values).
    pub fn set_text(
        &mut self,
        key: &str,
        text: &str,
        source: &SettingSource,
    ) -> Result<(), SettingsError> {
        self.set(key, RawValue::Text(text), source)
    }

    fn set(
        &mut self,
        key: &str,
        raw: RawValue<'_>,
        source: &SettingSource,
    ) -> Result<(), SettingsError> {
        let malformed = |message: String| SettingsError::Malformed {
            origin: source.clone(),
            key: key.to_owned(),
            message,
        };
        match key {
            "enabled" => self.enabled = Some(raw.boolean().map_err(malformed)?),
            "reserveTokens" => self.reserve_tokens = Some(raw.count().map_err(malformed)?),
            "keepRecentTokens" => self.keep_recent_tokens = Some(raw.count().map_err(malformed)?),
            "keepUserMessagesTokens" => {
                self.keep_user_messages_tokens = Some(raw.count().map_err(malformed)?)
            }
            "threshold" => self.threshold = Some(raw.fraction().map_err(malformed)?),
            "minTurnsToKeep" => self.min_turns_to_keep = Some(raw.count().map_err(malformed)?),
            "maxSummaryTokens" => self.max_summary_tokens = Some(raw.count().map_err(malformed)?),
            "branchMaxSummaryTokens" => {
                self.branch_max_summary_tokens = Some(raw.count().map_err(malformed)?)
            }
            "summaryModel" => {
                self.summary_model = Some(raw.optional(RawValue::text).map_err(malformed)?)
            }
            "preserveSystemPrompt" => {
                self.preserve_system_prompt = Some(raw.boolean().map_err(malformed)?)
            }
            "preserveTools" => self.preserve_tools = Some(raw.boolean().map_err(malformed)?),
            "preserveRecentFiles" => {
                self.preserve_recent_files = Some(raw.count().map_err(malformed)?)
            }
            "estimator" => self.estimator = Some(raw.text().map_err(malformed)?),
            "summaryLanguage" => {
                self.summary_language = Some(raw.optional(RawValue::text).map_err(malformed)?)
            }
            "toolResultMaxChars" => {
                self.tool_result_max_chars = Some(raw.count().map_err(malformed)?)
            }
            "maxMessages" => {
                self.max_messages = Some(raw.optional(RawValue::count).map_err(malformed)?)
            }
            "contextWindow" => {
                self.context_window = Some(raw.optional(RawValue::count).map_err(malformed)?)
            }
            "strategy" => self.strategy = Some(raw.strategy().map_err(malformed)?),
            "prune" => self.prune = Some(raw.prune().map_err(malformed)?),
            "summaryContextWindow" => {
                self.summary_context_window =
                    Some(raw.optional(RawValue::count).map_err(malformed)?)
            }
            "timeoutSeconds" => self.timeout_seconds = Some(raw.count().map_err(malformed)?),
            "strictQuality" => self.strict_quality = Some(raw.boolean().map_err(malformed)?),
            "restoreFileTokens" => self.restore_file_tokens = Some(raw.count().map_err(malformed)?),
            "restoreTotalTokens" => {
                self.restore_total_tokens = Some(raw.count().map_err(malformed)?)
            }
            other => {
                return Err(SettingsError::Malformed {
                    origin: source.clone(),
                    key: other.to_owned(),
                    message: "unknown setting".to_owned(),
                });
            }
        }
        Ok(())
    }

    /// The keys this patch sets.
    pub fn keys(&self) -> Vec<&'static str> {
        let set = [
            self.enabled.is_some(),
            self.reserve_tokens.is_some(),
            self.keep_recent_tokens.is_some(),
            self.keep_user_messages_tokens.is_some(),
            self.threshold.is_some(),
            self.min_turns_to_keep.is_some(),
            self.max_summary_tokens.is_some(),
            self.branch_max_summary_tokens.is_some(),
            self.summary_model.is_some(),
            self.preserve_system_prompt.is_some(),
            self.preserve_tools.is_some(),
            self.preserve_recent_files.is_some(),
            self.estimator.is_some(),
            self.summary_language.is_some(),
            self.tool_result_max_chars.is_some(),
            self.max_messages.is_some(),
            self.context_window.is_some(),
            self.strategy.is_some(),
            self.prune.is_some(),
            self.summary_context_window.is_some(),
            self.timeout_seconds.is_some(),
            self.strict_quality.is_some(),
            self.restore_file_tokens.is_some(),
            self.restore_total_tokens.is_some(),
        ];
        SETTING_KEYS.iter().zip(set).filter_map(|(key, set)| set.then_some(*key)).collect()
    }

    /// Writes the keys this patch sets into `settings`.
    pub fn apply_to(&self, settings: &mut CompactionSettings) {
        fn put<T: Clone>(target: &mut T, value: &Option<T>) {
            if let Some(value) = value {
                *target = value.clone();
            }
        }
        put(&mut settings.enabled, &self.enabled);
        put(&mut settings.reserve_tokens, &self.reserve_tokens);
        put(&mut settings.keep_recent_tokens, &self.keep_recent_tokens);
        put(&mut settings.keep_user_messages_tokens, &self.keep_user_messages_tokens);
        put(&mut settings.threshold, &self.threshold);
        put(&mut settings.min_turns_to_keep, &self.min_turns_to_keep);
        put(&mut settings.max_summary_tokens, &self.max_summary_tokens);
        put(&mut settings.branch_max_summary_tokens, &self.branch_max_summary_tokens);
        put(&mut settings.summary_model, &self.summary_model);
        put(&mut settings.preserve_system_prompt, &self.preserve_system_prompt);
        put(&mut settings.preserve_tools, &self.preserve_tools);
        put(&mut settings.preserve_recent_files, &self.preserve_recent_files);
        put(&mut settings.estimator, &self.estimator);
        put(&mut settings.summary_language, &self.summary_language);
        put(&mut settings.tool_result_max_chars, &self.tool_result_max_chars);
        put(&mut settings.max_messages, &self.max_messages);
        put(&mut settings.context_window, &self.context_window);
        put(&mut settings.strategy, &self.strategy);
        put(&mut settings.prune, &self.prune);
        put(&mut settings.summary_context_window, &self.summary_context_window);
        put(&mut settings.timeout_seconds, &self.timeout_seconds);
        put(&mut settings.strict_quality, &self.strict_quality);
        put(&mut settings.restore_file_tokens, &self.restore_file_tokens);
        put(&mut settings.restore_total_tokens, &self.restore_total_tokens);
    }
}

/// Settings after layering, with the source of every key that a layer set.
#[derive(Debug, Clone, PartialEq)]
pub struct ResolvedSettings {
    /// The effective values.
    pub settings: CompactionSettings,
    /// The layer that last set each key; keys absent here are defaults.
    pub sources: BTreeMap<&'static str, SettingSource>,
    /// Defaults capped to fit the context window ([`ResolvedSettings::fit_to_window`]),
    /// with the window they were fitted to.
    pub window_scaled: BTreeMap<&'static str, u64>,
    /// Unknown keys and variables found while loading (the loader fills this).
    pub warnings: Vec<SettingsWarning>,
}

impl ResolvedSettings {
    /// Applies `layers` in order over the defaults (later layers win) and validates.
    pub fn resolve(layers: &[(SettingSource, SettingsPatch)]) -> Result<Self, SettingsError> {
        let mut resolved = ResolvedSettings {
            settings: CompactionSettings::default(),
            sources: BTreeMap::new(),
            window_scaled: BTreeMap::new(),
            warnings: Vec::new(),
        };
        for (source, patch) in layers {
            patch.apply_to(&mut resolved.settings);
            for key in patch.keys() {
                resolved.sources.insert(key, source.clone());
            }
        }
        resolved.validate()?;
        if let Some(window) = resolved.settings.context_window {
            let from = match resolved.source_of("contextWindow") {
                SettingSource::File(path) => format!("`contextWindow` in {}", path.display()),
                other @ (SettingSource::Default | SettingSource::Env | SettingSource::Flag) => {
                    format!("`contextWindow` ({})", other.describe_for("contextWindow"))
                }
            };
            resolved.fit_to_window(window, &from)?;
        }
        Ok(resolved)
    }

    /// Fits the token budgets to a context window of `window` tokens (`window_from` says
    /// where it came from, for the error): every budget of [`WINDOW_SCALED_KEYS`] left at
    /// its default is capped at `window / 4`; then every budget that must stay below the
    /// window and does not is reported in one [`SettingsError::BudgetsExceedWindow`].
    /// Calling it again with another window starts from the defaults again.
    pub fn fit_to_window(&mut self, window: u64, window_from: &str) -> Result<(), SettingsError> {
        let quarter = (window / 4).max(1);
        let defaults = CompactionSettings::default();
        self.window_scaled.clear();
        for &key in WINDOW_SCALED_KEYS {
            if self.source_of(key) != SettingSource::Default {
                continue;
            }
            let (slot, default) = match key {
                "reserveTokens" => (&mut self.settings.reserve_tokens, defaults.reserve_tokens),
                "keepRecentTokens" => {
                    (&mut self.settings.keep_recent_tokens, defaults.keep_recent_tokens)
                }
                "maxSummaryTokens" => {
                    (&mut self.settings.max_summary_tokens, defaults.max_summary_tokens)
                }
                _ => (
                    &mut self.settings.branch_max_summary_tokens,
                    defaults.branch_max_summary_tokens,
                ),
            };
            *slot = default.min(quarter);
            if *slot < default {
                self.window_scaled.insert(key, window);
            }
        }
        self.validate_for_window(window, window_from)
    }

    /// Where `key` was last set.
    pub fn source_of(&self, key: &str) -> SettingSource {
        self.sources.get(key).cloned().unwrap_or(SettingSource::Default)
    }

    fn invalid(&self, key: &str, message: String) -> SettingsError {
        SettingsError::Invalid { origin: self.source_of(key), key: key.to_owned(), message }
    }

    /// Checks every value and, when `contextWindow` is set, the budgets against it.
    pub fn validate(&self) -> Result<(), SettingsError> {
        let s = &self.settings;
        if !(s.threshold > 0.0 && s.threshold <= 1.0) {
            return Err(
                self.invalid("threshold", format!("must be in (0, 1], got {}", s.threshold))
            );
        }
        if !ESTIMATOR_NAMES.contains(&s.estimator.as_str()) {
            return Err(self.invalid(
                "estimator",
                format!(
                    "unknown estimator `{}` (available: {})",
                    s.estimator,
                    ESTIMATOR_NAMES.join(", ")
                ),
            ));
        }
        for (key, value) in [
            ("maxSummaryTokens", s.max_summary_tokens),
            ("branchMaxSummaryTokens", s.branch_max_summary_tokens),
            ("toolResultMaxChars", s.tool_result_max_chars),
            ("timeoutSeconds", s.timeout_seconds),
        ] {
            if value == 0 {
                return Err(self.invalid(key, "must be at least 1".to_owned()));
            }
        }
        if s.max_messages == Some(0) {
            return Err(self.invalid(
                "maxMessages",
                "must be at least 1 (or null to turn the rule off)".to_owned(),
            ));
        }
        if s.summary_context_window == Some(0) {
            return Err(self.invalid("summaryContextWindow", "must be at least 1".to_owned()));
        }
        match s.context_window {
            Some(0) => Err(self.invalid("contextWindow", "must be at least 1".to_owned())),
            Some(_) | None => Ok(()),
        }
    }

    /// Checks the token budgets against a context window of `window` tokens (from
    /// `window_from`): every budget that is not below it is named in one error, with its
    /// source and a value that fits.
    pub fn validate_for_window(&self, window: u64, window_from: &str) -> Result<(), SettingsError> {
        let s = &self.settings;
        let conflicts: Vec<BudgetConflict> = WINDOW_BOUNDED_KEYS
            .iter()
            .zip([s.reserve_tokens, s.keep_recent_tokens, s.keep_user_messages_tokens])
            .filter(|&(_, value)| value >= window)
            .map(|(&key, value)| BudgetConflict {
                key,
                value,
                origin: self.source_of(key),
                suggested: (window / 4).max(1),
            })
            .collect();
        if conflicts.is_empty() {
            return Ok(());
        }
        Err(SettingsError::BudgetsExceedWindow {
            window,
            window_from: window_from.to_owned(),
            conflicts,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    fn file(name: &str) -> SettingSource {
        SettingSource::File(PathBuf::from(name))
    }

    fn patch(value: Value, source: &SettingSource) -> SettingsPatch {
        SettingsPatch::from_settings_document(&value, source).unwrap()
    }

    #[test]
    fn defaults_match_pi_and_the_design() {
        let s = CompactionSettings::default();
        assert!(s.enabled);
        assert_eq!((s.reserve_tokens, s.keep_recent_tokens), (16384, 20000));
        assert_eq!(s.threshold, 0.75);
        assert_eq!(s.estimator, "heuristic");
        assert_eq!(s.max_messages, None);
        let json = serde_json::to_value(&s).unwrap();
        assert_eq!(json["reserveTokens"], 16384);
        assert_eq!(json["toolResultMaxChars"], 2000);
        let keys: Vec<&str> = json.as_object().unwrap().keys().map(String::as_str).collect();
        assert_eq!(keys, SETTING_KEYS);
    }

    #[test]
    fn later_layers_win_and_sources_are_tracked() {
        let global = file("/home/u/.pi/agent/settings.json");
        let project = file("/p/.pi/settings.json");
        let layers = vec![
            (
                global.clone(),
                patch(json!({"compaction":{"reserveTokens":1000,"threshold":0.5}}), &global),
            ),
            (
                project.clone(),
                patch(
                    json!({"theme":"dark","compaction":{"threshold":0.6,"somethingNew":1}}),
                    &project,
                ),
            ),
            (SettingSource::Env, {
                let mut p = SettingsPatch::default();
                p.set_text("summaryModel", "none", &SettingSource::Env).unwrap();
                p.set_text("maxMessages", "40", &SettingSource::Env).unwrap();
                p
            }),
            (
                SettingSource::Flag,
                SettingsPatch { threshold: Some(0.9), ..SettingsPatch::default() },
            ),
        ];
        let resolved = ResolvedSettings::resolve(&layers).unwrap();
        assert_eq!(resolved.settings.reserve_tokens, 1000);
        assert_eq!(resolved.settings.threshold, 0.9);
        assert_eq!(resolved.settings.max_messages, Some(40));
        assert_eq!(resolved.source_of("reserveTokens"), global);
        assert_eq!(resolved.source_of("threshold"), SettingSource::Flag);
        assert_eq!(resolved.source_of("maxMessages"), SettingSource::Env);
        assert_eq!(resolved.source_of("enabled"), SettingSource::Default);
    }

    #[test]
    fn malformed_values_name_file_and_key() {
        let source = file("/p/.pi/settings.json");
        let error = SettingsPatch::from_settings_document(
            &json!({"compaction":{"reserveTokens":-5}}),
            &source,
        )
        .unwrap_err();
        assert_eq!(
            error.to_string(),
            "/p/.pi/settings.json: `reserveTokens`: expected a non-negative integer, got -5"
        );
        let error = SettingsPatch::from_settings_document(
            &json!({"compaction":{"enabled":"yes"}}),
            &source,
        )
        .unwrap_err();
        assert!(matches!(&error, SettingsError::Malformed { key, .. } if key == "enabled"));
        let error =
            SettingsPatch::from_settings_document(&json!({"compaction":[1]}), &source).unwrap_err();
        assert!(matches!(error, SettingsError::File { .. }));
        let mut env = SettingsPatch::default();
        let error = env.set_text("keepRecentTokens", "lots", &SettingSource::Env).unwrap_err();
        assert_eq!(
            error.to_string(),
            "COMPACTION_KEEP_RECENT_TOKENS: `keepRecentTokens`: expected a non-negative integer, \
             got `lots`"
        );
    }

    #[test]
    fn invalid_values_name_the_layer_that_set_them() {
        let source = file("/home/u/.pi/agent/settings.json");
        for (compaction, key) in [
            (json!({"threshold":1.5}), "threshold"),
            (json!({"threshold":0}), "threshold"),
            (json!({"estimator":"gpt2"}), "estimator"),
            (json!({"maxMessages":0}), "maxMessages"),
            (json!({"timeoutSeconds":0}), "timeoutSeconds"),
            (json!({"summaryContextWindow":0}), "summaryContextWindow"),
        ] {
            let layer = patch(json!({"compaction": compaction}), &source);
            let error = ResolvedSettings::resolve(&[(source.clone(), layer)]).unwrap_err();
            assert!(
                matches!(&error, SettingsError::Invalid { origin, key: k, .. }
                    if *origin == source && k == key),
                "{error:?}"
            );
        }
        // A window given later still reports the budget's own source.
        let layers = [
            (source.clone(), patch(json!({"compaction":{"keepRecentTokens":50000}}), &source)),
            (
                SettingSource::Flag,
                SettingsPatch { context_window: Some(Some(40000)), ..SettingsPatch::default() },
            ),
        ];
        let error = ResolvedSettings::resolve(&layers).unwrap_err();
        assert!(
            error.to_string().starts_with(
                "`keepRecentTokens` = 50000 (from /home/u/.pi/agent/settings.json) must be below"
            ),
            "{error}"
        );
    }

    #[test]
    fn keep_user_messages_tokens_is_off_by_default_and_errors_name_file_and_key() {
        assert_eq!(CompactionSettings::default().keep_user_messages_tokens, 0);
        let source = file("/p/.pi/settings.json");
        let error = SettingsPatch::from_settings_document(
            &json!({"compaction":{"keepUserMessagesTokens":"lots"}}),
            &source,
        )
        .unwrap_err();
        assert_eq!(
            error.to_string(),
            "/p/.pi/settings.json: `keepUserMessagesTokens`: expected a non-negative integer, \
             got \"lots\""
        );
        let mut env = SettingsPatch::default();
        let error = env.set_text("keepUserMessagesTokens", "-1", &SettingSource::Env).unwrap_err();
        assert!(error.to_string().starts_with("COMPACTION_KEEP_USER_MESSAGES_TOKENS: "), "{error}");
        // Set in a file, checked against a window from a flag: the file is named.
        let layers = [
            (
                source.clone(),
                patch(json!({"compaction":{"keepUserMessagesTokens":20000}}), &source),
            ),
            (
                SettingSource::Flag,
                SettingsPatch { context_window: Some(Some(16000)), ..SettingsPatch::default() },
            ),
        ];
        let error = ResolvedSettings::resolve(&layers).unwrap_err();
        assert!(
            error.to_string().starts_with(
                "`keepUserMessagesTokens` = 20000 (from /p/.pi/settings.json) must be below"
            ),
            "{error}"
        );
        let layers = [(
            source.clone(),
            patch(json!({"compaction":{"keepUserMessagesTokens":20000}}), &source),
        )];
        let resolved = ResolvedSettings::resolve(&layers).unwrap();
        assert_eq!(resolved.settings.keep_user_messages_tokens, 20000);
        assert_eq!(resolved.source_of("keepUserMessagesTokens"), source);
    }

    #[test]
    fn default_budgets_scale_with_a_small_window() {
        let layers = [(
            SettingSource::Flag,
            SettingsPatch { context_window: Some(Some(8192)), ..SettingsPatch::default() },
        )];
        let resolved = ResolvedSettings::resolve(&layers).unwrap();
        let s = &resolved.settings;
        assert_eq!(
            (s.reserve_tokens, s.keep_recent_tokens, s.max_summary_tokens),
            (2048, 2048, 2048)
        );
        assert_eq!(resolved.window_scaled.get("reserveTokens"), Some(&8192));
        assert_eq!(resolved.source_of("reserveTokens"), SettingSource::Default);
        // Large windows keep pi's defaults.
        let mut large = ResolvedSettings::resolve(&[]).unwrap();
        large.fit_to_window(200_000, "the model table").unwrap();
        assert_eq!(large.settings, CompactionSettings::default());
        assert!(large.window_scaled.is_empty());
        // An explicit budget is never changed.
        let mut explicit = ResolvedSettings::resolve(&[(
            SettingSource::Flag,
            SettingsPatch { keep_recent_tokens: Some(3000), ..SettingsPatch::default() },
        )])
        .unwrap();
        explicit.fit_to_window(8192, "--context-window").unwrap();
        assert_eq!(
            (explicit.settings.keep_recent_tokens, explicit.settings.reserve_tokens),
            (3000, 2048)
        );
    }

    #[test]
    fn budgets_that_do_not_fit_are_reported_together_with_values_that_fit() {
        let source = file("/p/.pi/settings.json");
        let layers = [
            (source.clone(), patch(json!({"compaction":{"keepRecentTokens":20000}}), &source)),
            (
                SettingSource::Flag,
                SettingsPatch { reserve_tokens: Some(16384), ..SettingsPatch::default() },
            ),
        ];
        let mut resolved = ResolvedSettings::resolve(&layers).unwrap();
        let error = resolved.fit_to_window(8192, "--context-window").unwrap_err();
        assert_eq!(
            error.to_string(),
            "`reserveTokens` = 16384 (from flag) and `keepRecentTokens` = 20000 (from \
             /p/.pi/settings.json) must be below the context window of 8192 tokens (from \
             --context-window); for this window use `reserveTokens` = 2048 and \
             `keepRecentTokens` = 2048 (a quarter of the window), or a model with a larger \
             window"
        );
        let SettingsError::BudgetsExceedWindow { conflicts, .. } = error else { unreachable!() };
        assert_eq!(conflicts.len(), 2);
    }

    #[test]
    fn unknown_keys_and_variables_suggest_the_nearest_known_one() {
        let source = file("/p/.pi/settings.json");
        let object = json!({"thresold": 0.5, "reserveTokens": 1, "extensions": [], "zzz": 1});
        let warnings = unknown_keys(object.as_object().unwrap(), &source);
        let shown: Vec<String> = warnings.iter().map(ToString::to_string).collect();
        assert_eq!(
            shown,
            [
                "/p/.pi/settings.json: unknown setting `compaction.thresold` (did you mean \
                 `threshold`?); it is ignored",
                "/p/.pi/settings.json: unknown setting `compaction.zzz`; it is ignored",
            ]
        );
        let warnings = unknown_variables(["COMPACTION_KEEP_RECNT"]);
        assert_eq!(warnings[0].suggestion.as_deref(), Some("COMPACTION_KEEP_RECENT_TOKENS"));
        let warnings = unknown_variables([
            "COMPACTION_THRESOLD",
            "COMPACTION_THRESHOLD",
            "COMPACTION_EXTENSION_EVENT",
            "HOME",
        ]);
        assert_eq!(warnings.len(), 1);
        assert_eq!(
            warnings[0].to_string(),
            "unknown environment variable COMPACTION_THRESOLD (did you mean \
             `COMPACTION_THRESHOLD`?); it is ignored"
        );
    }

    #[test]
    fn env_names_are_screaming_snake_case() {
        assert_eq!(env_var_name("reserveTokens"), "COMPACTION_RESERVE_TOKENS");
        assert_eq!(env_var_name("enabled"), "COMPACTION_ENABLED");
    }
}
