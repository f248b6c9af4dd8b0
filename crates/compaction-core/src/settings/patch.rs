//! One layer of settings ([`SettingsPatch`]): parsed from a JSON object (a settings file)
//! or from text (an environment variable, a flag), key by key, each error naming the
//! source and the key.

use serde_json::{Map, Value};

use super::*;

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
    /// `summaryConcurrency`, when this layer sets it.
    pub summary_concurrency: Option<Option<u64>>,
    /// `fallbackToOffline`, when this layer sets it.
    pub fallback_to_offline: Option<bool>,
    /// `restoreFileTokens`, when this layer sets it.
    pub restore_file_tokens: Option<u64>,
    /// `restoreTotalTokens`, when this layer sets it.
    pub restore_total_tokens: Option<u64>,
    /// `modelOverrides`, when this layer sets it (merged per model and field over lower
    /// layers).
    pub model_overrides: Option<Map<String, Value>>,
}

/// A raw value of one key, from JSON or from text (environment).
enum RawValue<'a> {
    Json(&'a Value),
    Text(&'a str),
}

impl RawValue<'_> {
    fn object(&self) -> Result<Map<String, Value>, String> {
        match self {
            RawValue::Json(Value::Object(object)) => Ok(object.clone()),
            RawValue::Text(text) => match serde_json::from_str::<Value>(text) {
                Ok(Value::Object(object)) => Ok(object),
                Ok(_) | Err(_) => Err(format!("expected a JSON object, got `{text}`")),
            },
            RawValue::Json(other) => Err(format!("expected an object, got {other}")),
        }
    }

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
        parsed.map_err(|error| {
            // Name the member at fault: each is tried alone (serde's message names no path).
            let object = match self {
                RawValue::Json(value) => value.as_object().cloned(),
                RawValue::Text(text) => serde_json::from_str::<Value>(text)
                    .ok()
                    .and_then(|value| value.as_object().cloned()),
            };
            let member = object.into_iter().flatten().find_map(|(key, value)| {
                let alone = Value::Object(Map::from_iter([(key.clone(), value)]));
                serde_json::from_value::<crate::prune::PruneSettings>(alone)
                    .err()
                    .map(|error| format!("`prune.{key}`: {error}"))
            });
            match member {
                Some(member) => format!("expected an object of prune rules: {member}"),
                None => format!("expected an object of prune rules: {error}"),
            }
        })
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
            "summaryConcurrency" => {
                self.summary_concurrency = Some(raw.optional(RawValue::count).map_err(malformed)?)
            }
            "fallbackToOffline" => {
                self.fallback_to_offline = Some(raw.boolean().map_err(malformed)?)
            }
            "restoreFileTokens" => self.restore_file_tokens = Some(raw.count().map_err(malformed)?),
            "restoreTotalTokens" => {
                self.restore_total_tokens = Some(raw.count().map_err(malformed)?)
            }
            "modelOverrides" => self.model_overrides = Some(raw.object().map_err(malformed)?),
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
            self.summary_concurrency.is_some(),
            self.fallback_to_offline.is_some(),
            self.restore_file_tokens.is_some(),
            self.restore_total_tokens.is_some(),
            self.model_overrides.is_some(),
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
        put(&mut settings.summary_concurrency, &self.summary_concurrency);
        put(&mut settings.fallback_to_offline, &self.fallback_to_offline);
        put(&mut settings.restore_file_tokens, &self.restore_file_tokens);
        put(&mut settings.restore_total_tokens, &self.restore_total_tokens);
        if let Some(overrides) = &self.model_overrides {
            super::overrides::merge(&mut settings.model_overrides, overrides);
        }
    }
}
