//! The keys: every setting's camelCase name and environment variable, the budgets that
//! follow the window, and the warnings for keys and `COMPACTION_*` variables nothing reads
//! (with the nearest known name).

use std::fmt;

use serde_json::{Map, Value};

use super::*;

/// Token budgets that follow the context window when left at their defaults: each is
/// capped at a quarter of the window, the user's verbatim messages at a sixteenth
/// ([`window_share`]).
pub const WINDOW_SCALED_KEYS: &[&str] = &[
    "reserveTokens",
    "keepRecentTokens",
    "keepUserMessagesTokens",
    "maxSummaryTokens",
    "branchMaxSummaryTokens",
];

/// The most of a `window`-token context window the default of a [`WINDOW_SCALED_KEYS`] budget
/// may take: a quarter, and a sixteenth for `keepUserMessagesTokens`, which comes on top of
/// the summary's own budget (so a 16k window keeps 1,024 tokens of the user's words, and
/// the reply's reserve, the kept messages and the summary keep their quarters).
pub fn window_share(key: &str, window: u64) -> u64 {
    let parts = if key == "keepUserMessagesTokens" { 16 } else { 4 };
    (window / parts).max(1)
}

/// Budgets that must be below the context window.
pub(super) const WINDOW_BOUNDED_KEYS: &[&str] =
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
    "summaryConcurrency",
    "fallbackToOffline",
    "restoreFileTokens",
    "restoreTotalTokens",
    "modelOverrides",
];

/// Keys of the `compaction` object that are read elsewhere than [`SettingsPatch`] (the
/// process extensions list, read by the command-line tool).
pub const OTHER_COMPACTION_KEYS: &[&str] = &["extensions", "trustedProjects"];

/// Environment variables named `COMPACTION_*` that are not settings: set for extension
/// processes, the version stamp `cargo run` and `cargo test` pass from the build script, the
/// transcript folder `eval` reads, the binary the pi package's and the agents' tests run, and
/// the folder where the pi 1.6 oracle finds the store concurrency test's exports.
pub const OTHER_COMPACTION_VARIABLES: &[&str] = &[
    "COMPACTION_EXTENSION_PROTOCOL",
    "COMPACTION_EXTENSION_EVENT",
    "COMPACTION_VERSION",
    "COMPACTION_TRANSCRIPTS",
    "COMPACTION_BIN",
    "COMPACTION_CONCURRENCY_EXPORTS",
];

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
