//! Per-model token budgets: `compaction.modelOverrides["provider/modelId"]` (pi 1.6).
//!
//! An override may set `reserveTokens` and `keepRecentTokens`; each falls back on its own to
//! the ordinary setting, then the default. Layers merge per model and per field (a project
//! file that sets one field of a model keeps the other from the global file). Entries are
//! checked when the model is looked up, with pi's wording, so an invalid entry for a model
//! not in use does not stop anything (as in pi).

use serde_json::{Map, Value};

use super::*;

/// The budgets a model override may set.
pub const OVERRIDE_FIELDS: [&str; 2] = ["reserveTokens", "keepRecentTokens"];

/// Merges a layer's `modelOverrides` into the lower layers' (per model, per field).
pub(super) fn merge(lower: &mut Map<String, Value>, upper: &Map<String, Value>) {
    for (model, value) in upper {
        match (lower.get_mut(model), value) {
            (Some(Value::Object(fields)), Value::Object(new_fields)) => {
                for (field, value) in new_fields {
                    fields.insert(field.clone(), value.clone());
                }
            }
            _other => {
                lower.insert(model.clone(), value.clone());
            }
        }
    }
}

/// JavaScript's `String(value)`, for messages that read like pi's.
fn js_string(value: &Value) -> String {
    match value {
        Value::String(text) => text.clone(),
        Value::Object(_) => "[object Object]".to_owned(),
        Value::Array(items) => items
            .iter()
            .map(|item| if item.is_null() { String::new() } else { js_string(item) })
            .collect::<Vec<_>>()
            .join(","),
        Value::Null | Value::Bool(_) | Value::Number(_) => value.to_string(),
    }
}

impl ResolvedSettings {
    /// Applies the override for `provider/model_id`: each field it sets replaces the
    /// resolved value (unless a command-line flag set it) and counts as set by the layer
    /// that set `modelOverrides` (so it is never scaled to the window). An entry that is not an object, or a field that is not
    /// a non-negative integer, is an error naming the key, as pi reports it.
    pub fn apply_model_override(
        &mut self,
        provider: &str,
        model_id: &str,
    ) -> Result<(), SettingsError> {
        let key = format!("{provider}/{model_id}");
        let Some(entry) = self.settings.model_overrides.get(&key).cloned() else {
            return Ok(());
        };
        let origin = self.source_of("modelOverrides");
        let invalid = |message: String| SettingsError::Invalid {
            origin: origin.clone(),
            key: "modelOverrides".to_owned(),
            message,
        };
        let Value::Object(fields) = &entry else {
            return Err(invalid(format!(
                "Invalid compaction.modelOverrides[\"{key}\"] setting: {}. Expected an object.",
                js_string(&entry)
            )));
        };
        for field in OVERRIDE_FIELDS {
            let Some(value) = fields.get(field) else { continue };
            // A command-line flag is the user's word for this run: it beats the file.
            if self.source_of(field) == SettingSource::Flag {
                continue;
            }
            let Some(tokens) = value.as_u64().filter(|tokens| *tokens < (1 << 53)) else {
                return Err(invalid(format!(
                    "Invalid compaction.modelOverrides[\"{key}\"].{field} setting: {}. Expected \
                     a non-negative safe integer.",
                    js_string(value)
                )));
            };
            match field {
                "reserveTokens" => self.settings.reserve_tokens = tokens,
                _keep_recent => self.settings.keep_recent_tokens = tokens,
            }
            self.sources.insert(field_key(field), origin.clone());
        }
        self.validate()
    }
}

fn field_key(field: &str) -> &'static str {
    if field == "reserveTokens" { "reserveTokens" } else { "keepRecentTokens" }
}
