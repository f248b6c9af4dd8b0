//! Which configured extensions may run: an extension named in a project's own
//! `.pi/settings.json` is a command from whoever wrote that repository, so it runs only when
//! the user trusts the project, as git's `safe.directory` or direnv's `allow` do.
//!
//! Trust comes from outside the project: the `--trust-project` flag, or the global settings
//! file's `compaction.trustedProjects` list (absolute paths, `~/…`, or `"*"` for every
//! project). The project's own file cannot trust itself. Extensions from the global settings
//! file and from `--extension` are the user's own and always run.
//!
//! The settings files are read as every settings file is, through
//! [`crate::settings::read_settings_text`].
//!
//! Invariant: [`ConfiguredExtensions::runnable`] never holds a project extension of an
//! untrusted project.

use std::path::{Path, PathBuf};

use crate::extension::ExtensionConfig;
use crate::settings::{LoadError, SettingsPaths, read_settings_text};

/// The key of the global settings file's `compaction` object that lists trusted projects.
pub const TRUSTED_PROJECTS_KEY: &str = "trustedProjects";

/// Why a project is trusted, or that it is not.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ProjectTrust {
    /// `--trust-project` was given.
    Flag,
    /// The global settings file lists it (or `"*"`).
    Listed {
        /// The global settings file.
        file: PathBuf,
    },
    /// Not trusted: its extensions do not run.
    Untrusted,
}

impl ProjectTrust {
    /// Whether the project's extensions may run.
    pub fn is_trusted(&self) -> bool {
        match self {
            ProjectTrust::Flag | ProjectTrust::Listed { .. } => true,
            ProjectTrust::Untrusted => false,
        }
    }
}

/// One configured extension and where it came from.
#[derive(Debug, Clone, PartialEq)]
pub struct ConfiguredExtension {
    /// The settings file that names it.
    pub file: PathBuf,
    /// Whether that file is the project's (`.pi/settings.json`) rather than the global one.
    pub from_project: bool,
    /// Its configuration.
    pub config: ExtensionConfig,
}

impl ConfiguredExtension {
    /// The settings file's own folder: relative paths in the extension resolve against it,
    /// never against the current directory.
    pub fn folder(&self) -> &Path {
        self.file.parent().unwrap_or(Path::new("/"))
    }

    /// The process that runs it: started in [`ConfiguredExtension::folder`], so a relative
    /// path in `command` or `args` (`./x`, `../x`, `x/y.py`, a bare `script.py` an
    /// interpreter opens, a module `python3 -m` imports) names a file beside the settings
    /// file, never one of the repository in the current directory. A `command` with a slash
    /// is made absolute against that folder (`~/` against the home directory); a bare
    /// name is looked up on `PATH`. The session's own directory reaches the extension in the
    /// event's `cwd` field.
    ///
    /// The folder is made absolute first (against this process's directory): a relative one
    /// (`PI_CODING_AGENT_DIR=../agent`) would otherwise be joined to the command and then
    /// looked up again from inside itself, as the child starts there.
    pub fn process(&self, home: Option<&Path>) -> crate::extension::ProcessExtension {
        let mut process = crate::extension::ProcessExtension::from_config(&self.config);
        let folder =
            std::path::absolute(self.folder()).unwrap_or_else(|_| self.folder().to_path_buf());
        process.command =
            resolve_command(&self.config.command, &folder, home).to_string_lossy().into_owned();
        process.current_dir = Some(folder);
        process
    }
}

/// `command` as run from `folder`: a path with a slash is made absolute against `folder`
/// (`~/…` against `home`); a bare program name stays for the `PATH` lookup.
pub fn resolve_command(command: &str, folder: &Path, home: Option<&Path>) -> PathBuf {
    if let (Some(rest), Some(home)) = (command.strip_prefix("~/"), home) {
        return home.join(rest);
    }
    let path = Path::new(command);
    if path.is_absolute() || !command.contains('/') {
        return path.to_path_buf();
    }
    folder.join(path)
}

/// Every extension the settings files name, and whether the project is trusted.
#[derive(Debug, Clone, PartialEq)]
pub struct ConfiguredExtensions {
    /// Global ones first, then the project's.
    pub all: Vec<ConfiguredExtension>,
    /// The project directory (the one holding `.pi/`).
    pub project_dir: PathBuf,
    /// Whether the project is trusted, and why.
    pub trust: ProjectTrust,
    /// When the agent folder (`PI_CODING_AGENT_DIR`) lies inside the project: the project
    /// root it lies in. Its settings file is then read as the project's own: its extensions
    /// need trust and its `trustedProjects` is ignored.
    pub agent_dir_in_project: Option<PathBuf>,
}

impl ConfiguredExtensions {
    /// The extensions that run: all global ones, and the project's only when trusted.
    pub fn runnable(&self) -> impl Iterator<Item = &ConfiguredExtension> {
        self.all.iter().filter(|extension| !extension.from_project || self.trust.is_trusted())
    }

    /// The project's extensions that do not run because the project is not trusted.
    pub fn skipped(&self) -> impl Iterator<Item = &ConfiguredExtension> {
        self.all.iter().filter(|extension| extension.from_project && !self.trust.is_trusted())
    }
}

/// Reads the extensions the settings files name and decides whether the project (`cwd`)
/// is trusted; `trust_flag` is `--trust-project`, `home` expands `~/` in the list.
pub fn configured_extensions(
    paths: &SettingsPaths,
    cwd: &Path,
    home: Option<&Path>,
    trust_flag: bool,
) -> Result<ConfiguredExtensions, LoadError> {
    let mut all = Vec::new();
    let mut listed = Vec::new();
    let agent_dir_in_project =
        paths.global.as_deref().and_then(|global| global_file_in_project(global, cwd, home));
    let global = paths.global.as_deref().filter(|global| !same_file(global, &paths.project));
    if let Some(global) = global
        && let Some(document) = read_document(global)?
    {
        let from_project = agent_dir_in_project.is_some();
        all.extend(extensions_of(&document, global, from_project)?);
        if !from_project {
            listed = trusted_list(&document, global)?;
        }
    }
    if let Some(document) = read_document(&paths.project)? {
        all.extend(extensions_of(&document, &paths.project, true)?);
    }
    let trust = if trust_flag {
        ProjectTrust::Flag
    } else if listed.iter().any(|entry| names_project(entry, cwd, home)) {
        ProjectTrust::Listed { file: paths.global.clone().unwrap_or_default() }
    } else {
        ProjectTrust::Untrusted
    };
    Ok(ConfiguredExtensions { all, project_dir: cwd.to_path_buf(), trust, agent_dir_in_project })
}

/// Whether two paths name one file (through links); a missing file is compared by path.
fn same_file(a: &Path, b: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    match (std::fs::metadata(a), std::fs::metadata(b)) {
        (Ok(a), Ok(b)) => a.dev() == b.dev() && a.ino() == b.ino(),
        _ => absolute(a, Path::new("/")) == absolute(b, Path::new("/")),
    }
}

/// `path` made absolute against `cwd` and cleaned of `.` and `..` components, with its
/// longest existing ancestor's links followed.
fn absolute(path: &Path, cwd: &Path) -> PathBuf {
    let joined = if path.is_absolute() { path.to_path_buf() } else { cwd.join(path) };
    let mut clean = PathBuf::new();
    for component in joined.components() {
        match component {
            std::path::Component::ParentDir => {
                clean.pop();
            }
            std::path::Component::CurDir => {}
            std::path::Component::Prefix(_)
            | std::path::Component::RootDir
            | std::path::Component::Normal(_) => clean.push(component),
        }
    }
    // Follow links through the part that exists; keep the rest as written.
    let mut existing = clean.clone();
    let mut rest = Vec::new();
    while !existing.exists() {
        match (existing.file_name().map(ToOwned::to_owned), existing.parent()) {
            (Some(name), Some(parent)) => {
                rest.push(name);
                existing = parent.to_path_buf();
            }
            _ => return clean,
        }
    }
    let mut resolved = std::fs::canonicalize(&existing).unwrap_or(existing);
    resolved.extend(rest.iter().rev());
    resolved
}

/// When the global settings file `global` (in the agent folder) lies inside the project
/// of `cwd`: the project root it lies in. The project roots are `cwd` and each of its
/// ancestors that holds `.git` or `.pi`, except the home directory and the folders above
/// it (the default agent folder `~/.pi/agent` is the user's own).
pub fn global_file_in_project(global: &Path, cwd: &Path, home: Option<&Path>) -> Option<PathBuf> {
    let cwd = absolute(cwd, Path::new("/"));
    let global = absolute(global, &cwd);
    let home = home.map(|home| absolute(home, Path::new("/")));
    let is_home_or_above = |dir: &Path| home.as_deref().is_some_and(|home| home.starts_with(dir));
    cwd.ancestors()
        .enumerate()
        .filter(|(depth, dir)| *depth == 0 || dir.join(".git").exists() || dir.join(".pi").exists())
        .map(|(_, dir)| dir)
        .filter(|dir| !is_home_or_above(dir))
        .find(|dir| global.starts_with(dir))
        .map(Path::to_path_buf)
}

fn read_document(path: &Path) -> Result<Option<serde_json::Value>, LoadError> {
    let Some(text) = read_settings_text(path)? else { return Ok(None) };
    compaction_core::entry::from_json_text(&text)
        .map(Some)
        .map_err(|error| LoadError::Json { path: path.to_path_buf(), error })
}

fn invalid(path: &Path, key: &str, message: String) -> LoadError {
    LoadError::Read {
        path: path.to_path_buf(),
        error: std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!("compaction.{key}: {message}"),
        ),
    }
}

fn extensions_of(
    document: &serde_json::Value,
    path: &Path,
    from_project: bool,
) -> Result<Vec<ConfiguredExtension>, LoadError> {
    let Some(list) = document.get("compaction").and_then(|c| c.get("extensions")) else {
        return Ok(Vec::new());
    };
    let configs: Vec<ExtensionConfig> = serde_json::from_value(list.clone())
        .map_err(|error| invalid(path, "extensions", error.to_string()))?;
    Ok(configs
        .into_iter()
        .map(|config| ConfiguredExtension { file: path.to_path_buf(), from_project, config })
        .collect())
}

fn trusted_list(document: &serde_json::Value, path: &Path) -> Result<Vec<String>, LoadError> {
    let Some(list) = document.get("compaction").and_then(|c| c.get(TRUSTED_PROJECTS_KEY)) else {
        return Ok(Vec::new());
    };
    serde_json::from_value(list.clone()).map_err(|error| {
        invalid(path, TRUSTED_PROJECTS_KEY, format!("a list of directory paths: {error}"))
    })
}

/// Whether a `trustedProjects` entry names the project directory `cwd` (after following
/// links on both sides, so `/tmp/x` and its real path are one project).
fn names_project(entry: &str, cwd: &Path, home: Option<&Path>) -> bool {
    if entry == "*" {
        return true;
    }
    let expanded = match (entry.strip_prefix("~/"), home) {
        (Some(rest), Some(home)) => home.join(rest),
        _ if entry == "~" => match home {
            Some(home) => home.to_path_buf(),
            None => return false,
        },
        _ => PathBuf::from(entry),
    };
    if !expanded.is_absolute() {
        return false;
    }
    let canonical =
        |path: &Path| std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    canonical(&expanded) == canonical(cwd)
}
