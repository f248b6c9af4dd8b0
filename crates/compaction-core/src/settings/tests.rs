use std::path::PathBuf;

use pretty_assertions::assert_eq;
use serde_json::{Value, json};

use super::*;

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
        (SettingSource::Flag, SettingsPatch { threshold: Some(0.9), ..SettingsPatch::default() }),
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
    let error =
        SettingsPatch::from_settings_document(&json!({"compaction":{"reserveTokens":-5}}), &source)
            .unwrap_err();
    assert_eq!(
        error.to_string(),
        "/p/.pi/settings.json: `reserveTokens`: expected a non-negative integer, got -5"
    );
    let error =
        SettingsPatch::from_settings_document(&json!({"compaction":{"enabled":"yes"}}), &source)
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
fn keep_user_messages_tokens_defaults_to_2048_and_errors_name_file_and_key() {
    assert_eq!(CompactionSettings::default().keep_user_messages_tokens, 2048);
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
        (source.clone(), patch(json!({"compaction":{"keepUserMessagesTokens":20000}}), &source)),
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
    let layers =
        [(source.clone(), patch(json!({"compaction":{"keepUserMessagesTokens":20000}}), &source))];
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
    assert_eq!((s.reserve_tokens, s.keep_recent_tokens, s.max_summary_tokens), (2048, 2048, 2048));
    // The user's verbatim words take a sixteenth, on top of the summary's quarter, so the
    // kept messages still have room under the `minTurnsToKeep` guarantee.
    assert_eq!(s.keep_user_messages_tokens, 512);
    assert_eq!(resolved.window_scaled.get("keepUserMessagesTokens"), Some(&8192));
    assert_eq!(resolved.window_scaled.get("reserveTokens"), Some(&8192));
    // A 32k window is the smallest that keeps the whole 2,048 of them.
    let mut medium = ResolvedSettings::resolve(&[]).unwrap();
    medium.fit_to_window(32_768, "the model table").unwrap();
    assert_eq!(medium.settings.keep_user_messages_tokens, 2048);
    medium.fit_to_window(16_384, "the model table").unwrap();
    assert_eq!(medium.settings.keep_user_messages_tokens, 1024);
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

fn resolve_layers(layers: &[(SettingSource, Value)]) -> ResolvedSettings {
    let layers: Vec<(SettingSource, SettingsPatch)> = layers
        .iter()
        .map(|(source, value)| (source.clone(), patch(value.clone(), source)))
        .collect();
    ResolvedSettings::resolve(&layers).unwrap()
}

#[test]
fn model_overrides_merge_per_field_and_fall_back_on_their_own() {
    let global = file("/home/u/.pi/agent/settings.json");
    let project = file("/p/.pi/settings.json");
    let mut resolved = resolve_layers(&[
        (
            global.clone(),
            json!({"compaction":{"keepRecentTokens":9000,
                "modelOverrides":{"anthropic/claude":{"reserveTokens":30000,"keepRecentTokens":1000}}}}),
        ),
        (
            project.clone(),
            json!({"compaction":{"modelOverrides":{"anthropic/claude":{"keepRecentTokens":5000}}}}),
        ),
    ]);
    let mut other = resolved.clone();
    resolved.apply_model_override("anthropic", "claude").unwrap();
    // reserve from the global file's override, keep from the project's (merged per field).
    assert_eq!(
        (resolved.settings.reserve_tokens, resolved.settings.keep_recent_tokens),
        (30000, 5000)
    );
    assert_eq!(resolved.source_of("keepRecentTokens"), project);
    // Another model: the ordinary settings, then the defaults.
    other.apply_model_override("openai", "gpt-5").unwrap();
    assert_eq!((other.settings.reserve_tokens, other.settings.keep_recent_tokens), (16384, 9000));
}

#[test]
fn model_override_errors_read_like_pi_and_only_for_the_model_in_use() {
    let global = file("/home/u/.pi/agent/settings.json");
    let resolved = resolve_layers(&[(
        global,
        json!({"compaction":{"modelOverrides":{"p/bad":5,"p/neg":{"reserveTokens":-1},"p/ok":{}}}}),
    )]);
    let error = resolved.clone().apply_model_override("p", "bad").unwrap_err().to_string();
    assert!(
        error.contains(
            r#"Invalid compaction.modelOverrides["p/bad"] setting: 5. Expected an object."#
        ),
        "{error}"
    );
    let error = resolved.clone().apply_model_override("p", "neg").unwrap_err().to_string();
    assert!(
        error.contains(
            r#"Invalid compaction.modelOverrides["p/neg"].reserveTokens setting: -1. Expected a non-negative safe integer."#
        ),
        "{error}"
    );
    assert!(resolved.clone().apply_model_override("p", "ok").is_ok());
}

#[test]
fn a_flag_beats_a_model_override() {
    let global = file("/home/u/.pi/agent/settings.json");
    let mut flags = SettingsPatch::default();
    flags.set_text("keepRecentTokens", "777", &SettingSource::Flag).unwrap();
    let layers = vec![
        (
            global.clone(),
            patch(
                json!({"compaction":{"modelOverrides":{"p/m":{"keepRecentTokens":1,"reserveTokens":2}}}}),
                &global,
            ),
        ),
        (SettingSource::Flag, flags),
    ];
    let mut resolved = ResolvedSettings::resolve(&layers).unwrap();
    resolved.apply_model_override("p", "m").unwrap();
    assert_eq!((resolved.settings.keep_recent_tokens, resolved.settings.reserve_tokens), (777, 2));
}
