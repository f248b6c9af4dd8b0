//! `compaction config`: every effective compaction setting, its value and its source.
//!
//! Like `git config --show-origin`: each key of [`SETTING_KEYS`] with the value a command
//! run here would use and the layer that set it (built-in default, a settings file, a
//! `COMPACTION_*` variable, a flag). The settings files pi reads are listed, read or missing.
//! Settings are resolved exactly as every other command resolves them (`setup`), so what
//! this prints is what they use; budgets scaled to a small window are reported by `plan`
//! and `stats`, which know the model. The extensions the settings files name are listed
//! with their file and whether they run: a project's own extensions run only when the
//! project is trusted (`compaction.trustedProjects` in the global file, or
//! `--trust-project` on the command).

use compaction_core::settings::{SETTING_KEYS, SettingSource};
use serde_json::{Value, json};

use super::{CommandError, ExitStatus, setup};
use crate::cli::ConfigArgs;
use crate::output::print_json;

pub fn run(args: &ConfigArgs) -> anyhow::Result<ExitStatus> {
    let resolved = setup::resolved_settings(&args.compaction)?;
    let values = serde_json::to_value(&resolved.settings)?;
    let cwd = std::env::current_dir()
        .map_err(|e| CommandError::io("cannot read the current directory", e))?;
    let paths = compaction::settings::SettingsPaths::from_process_env(&cwd);
    let files: Vec<Value> = paths
        .global
        .iter()
        .chain(std::iter::once(&paths.project))
        .map(|path| json!({"path": path.display().to_string(), "exists": path.is_file()}))
        .collect();
    let settings: Vec<Value> = SETTING_KEYS
        .iter()
        .map(|&key| {
            let source = resolved.source_of(key);
            json!({
                "key": key,
                "value": values.get(key).cloned().unwrap_or(Value::Null),
                "source": source_json(key, &source),
            })
        })
        .collect();
    let warnings: Vec<String> = resolved.warnings.iter().map(ToString::to_string).collect();
    let configured = setup::configured_extensions(false)?;
    let trusted = configured.trust.is_trusted();
    let trust_source = match &configured.trust {
        compaction::trust::ProjectTrust::Listed { file } => Value::from(file.display().to_string()),
        compaction::trust::ProjectTrust::Flag | compaction::trust::ProjectTrust::Untrusted => {
            Value::Null
        }
    };
    let extensions: Vec<Value> = configured
        .all
        .iter()
        .map(|extension| {
            json!({
                "name": extension.config.name,
                "command": extension.config.command,
                "args": extension.config.args,
                "file": extension.file.display().to_string(),
                "runsIn": extension.folder().display().to_string(),
                "scope": if extension.from_project { "project" } else { "global" },
                "runs": !extension.from_project || trusted,
            })
        })
        .collect();
    let project = json!({
        "dir": configured.project_dir.display().to_string(),
        "agentDirInProject": configured.agent_dir_in_project.as_ref().map(|d| d.display().to_string()),
        "trusted": trusted,
        "trustedBy": trust_source,
    });
    if args.json {
        print_json(&json!({"settings": settings, "files": files, "warnings": warnings,
            "extensions": extensions, "project": project}))?;
        return Ok(ExitStatus::Success);
    }
    for file in &files {
        let exists = file["exists"].as_bool() == Some(true);
        println!(
            "# settings file {} ({})",
            file["path"].as_str().unwrap_or_default(),
            if exists { "read" } else { "missing" }
        );
    }
    let width = SETTING_KEYS.iter().map(|key| key.len()).max().unwrap_or(0);
    for setting in &settings {
        let value = setting["value"].to_string();
        println!(
            "{:<width$}  {:<12}  {}",
            setting["key"].as_str().unwrap_or_default(),
            value,
            setting["source"]["description"].as_str().unwrap_or_default(),
        );
    }
    println!(
        "# project {} is {}",
        configured.project_dir.display(),
        match &configured.trust {
            compaction::trust::ProjectTrust::Listed { file } =>
                format!("trusted (compaction.trustedProjects in {})", file.display()),
            compaction::trust::ProjectTrust::Flag => "trusted (--trust-project)".to_owned(),
            compaction::trust::ProjectTrust::Untrusted =>
                "not trusted: its own extensions do not run".to_owned(),
        }
    );
    for extension in &configured.all {
        let runs = !extension.from_project || trusted;
        println!(
            "# extension {} ({} {}) from {} ({}): {}",
            extension.config.name,
            extension.config.command,
            extension.config.args.join(" "),
            extension.file.display(),
            if extension.from_project { "project" } else { "global" },
            if runs { "runs" } else { "not run: the project is not trusted" }
        );
    }
    Ok(ExitStatus::Success)
}

/// `{"kind", "description"}` plus the file, variable or flag that set `key`.
fn source_json(key: &str, source: &SettingSource) -> Value {
    match source {
        SettingSource::Default => json!({"kind": "default", "description": "default"}),
        SettingSource::File(path) => json!({
            "kind": "file",
            "path": path.display().to_string(),
            "description": path.display().to_string(),
        }),
        SettingSource::Env => {
            let variable = compaction_core::settings::env_var_name(key);
            json!({"kind": "env", "variable": variable, "description": format!("env {variable}")})
        }
        SettingSource::Flag => {
            let flag = setup::flag_for(key).unwrap_or("flag");
            json!({"kind": "flag", "flag": flag, "description": format!("flag {flag}")})
        }
    }
}
