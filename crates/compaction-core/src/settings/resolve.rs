//! Settings after layering ([`ResolvedSettings`]): later layers win, the source of every
//! key is kept, budgets left at their defaults are fitted to the window, and the result is
//! validated.

use std::collections::BTreeMap;

use crate::tokens::ESTIMATOR_NAMES;

use super::keys::WINDOW_BOUNDED_KEYS;
use super::*;

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
    /// its default is capped at its [`window_share`]; then every budget that must stay below the
    /// window and does not is reported in one [`SettingsError::BudgetsExceedWindow`].
    /// Calling it again with another window starts from the defaults again.
    pub fn fit_to_window(&mut self, window: u64, window_from: &str) -> Result<(), SettingsError> {
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
                "keepUserMessagesTokens" => (
                    &mut self.settings.keep_user_messages_tokens,
                    defaults.keep_user_messages_tokens,
                ),
                "maxSummaryTokens" => {
                    (&mut self.settings.max_summary_tokens, defaults.max_summary_tokens)
                }
                _ => (
                    &mut self.settings.branch_max_summary_tokens,
                    defaults.branch_max_summary_tokens,
                ),
            };
            *slot = default.min(window_share(key, window));
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
        if s.summary_concurrency == Some(0) {
            return Err(self.invalid(
                "summaryConcurrency",
                "must be at least 1 (or null to choose by server)".to_owned(),
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
