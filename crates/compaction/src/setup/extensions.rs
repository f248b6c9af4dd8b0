//! The extensions of an invocation: those configured under `compaction.extensions` in the
//! global then the project settings file (the project's only when it is trusted: the
//! caller's trust, or the global `compaction.trustedProjects`), then each command the caller
//! adds. A project extension that is not run is reported as a
//! [`Note::UntrustedExtensions`].

use std::path::Path;
use std::sync::Arc;

use compaction_core::serialize::Redactor;

use super::{Note, Setup, SetupError};
use crate::extension::{Extensions, ProcessExtension};
use crate::settings::SettingsPaths;
use crate::trust::ConfiguredExtensions;

/// Which extensions the caller asks for (the command's `--extension`, `--no-extensions` and
/// `--trust-project`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ExtensionChoice {
    /// Shell commands run as extensions besides the configured ones.
    pub commands: Vec<String>,
    /// No extension at all, configured or not.
    pub none: bool,
    /// Run the project's own extensions: the caller trusts the project.
    pub trust_project: bool,
}

impl ExtensionChoice {
    /// No extension at all (a worker has no project whose code it could trust).
    pub fn none() -> Self {
        ExtensionChoice { none: true, ..ExtensionChoice::default() }
    }
}

impl Setup {
    /// The extensions the settings files name for the project, with its trust;
    /// `trust_project` is the caller's own trust.
    pub fn configured_extensions(
        &self,
        trust_project: bool,
    ) -> Result<ConfiguredExtensions, SetupError> {
        configured_extensions(&self.cwd, trust_project)
    }

    /// The extensions for `choice`, redacting with `redactor` (see the module documentation).
    pub fn extensions(
        &self,
        choice: &ExtensionChoice,
        redactor: Redactor,
    ) -> Result<Extensions, SetupError> {
        let mut extensions = Extensions::new().with_redactor(redactor);
        if choice.none {
            return Ok(extensions);
        }
        let configured = self.configured_extensions(choice.trust_project)?;
        let home = std::env::home_dir();
        for extension in configured.runnable() {
            extensions.register(Arc::new(extension.process(home.as_deref())));
        }
        if let Some(root) = &configured.agent_dir_in_project {
            self.note(Note::AgentDirInProject { root: root.clone() });
        }
        if let Some(first) = configured.skipped().next() {
            let names = configured.skipped().map(|e| e.config.name.clone()).collect();
            self.note(Note::UntrustedExtensions {
                file: first.file.clone(),
                names,
                project_dir: configured.project_dir.clone(),
            });
        }
        for command in &choice.commands {
            extensions.register(Arc::new(ProcessExtension::shell(command.clone())));
        }
        Ok(extensions)
    }
}

/// The extensions the settings files name for the project `cwd`, with its trust (read
/// without the rest of the settings); `trust_project` is the caller's own trust.
pub fn configured_extensions(
    cwd: &Path,
    trust_project: bool,
) -> Result<ConfiguredExtensions, SetupError> {
    let paths = SettingsPaths::from_process_env(cwd);
    let home = std::env::home_dir();
    crate::trust::configured_extensions(&paths, cwd, home.as_deref(), trust_project)
        .map_err(SetupError::Extensions)
}
