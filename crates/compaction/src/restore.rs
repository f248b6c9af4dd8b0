//! Re-reading recently modified files after a compaction and putting their current content
//! into the context as a `custom_message` entry (pi shows those to the model).
//!
//! The core picks the files ([`compaction_core::restore`]); this module reads them from the
//! session header's `cwd`. Both the folder and the file names come from the session, which
//! may be someone else's, so the rule is: files are restored only from a project folder
//! ([`restore_root`]: an existing absolute folder that is not the root of the file system,
//! the home folder or a folder above it, a hidden folder of the home (`~/.ssh`, `~/.aws`,
//! `~/.config`, where tools keep settings and credentials) or the system's own trees
//! (`/proc`, `/sys`, `/dev`, `/etc`, `/boot`, `/run`)); and only regular files inside it,
//! resolved through links, of at most [`MAX_RESTORE_BYTES`]. A path outside `cwd` —
//! absolute elsewhere, climbing out with `..`, or leading out through a symlink — is
//! refused; a missing, unreadable or binary file is skipped. A file is read under the name a
//! `write` or `edit` call in the session gave it and named as the compaction lists it
//! (redacted): a listed name the redaction changed that no call gives is never read (a file
//! at `keys/[REDACTED]/app.conf` is not the one the user modified). Every refused path is named in
//! the outcome (`skipped`), and a refused folder with its reason (`refused_folder`).
//! Invariant: nothing is appended when no file was restored, the
//! appended entry holds at most the configured token budgets of file text, and that text
//! went through the same redaction as everything else written to a session (a restored
//! `.env` or config file keeps its names, not its secrets).

use std::path::{Path, PathBuf};

use compaction_core::entry::Entry;
use compaction_core::redact::Redactor;
use compaction_core::restore::{
    RESTORED_FILES_CUSTOM_TYPE, RestoredFile, fit_files, is_text, lexical_path_in,
    recent_modified_files, restored_files_text,
};
use compaction_core::tokens::TokenEstimator;
use serde::Serialize;
use serde_json::{Map, Value, json};

use crate::store::{NewEntry, Parent, SessionStore, StoreError};

/// How many files and how much of them to restore.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RestoreLimits {
    /// Most recently modified files to restore (`preserveRecentFiles`).
    pub files: usize,
    /// Tokens of one file at most (`restoreFileTokens`).
    pub per_file_tokens: u64,
    /// Tokens of all files together at most (`restoreTotalTokens`).
    pub total_tokens: u64,
}

impl RestoreLimits {
    /// The limits the settings give.
    pub fn from_settings(settings: &compaction_core::settings::CompactionSettings) -> Self {
        RestoreLimits {
            files: usize::try_from(settings.preserve_recent_files).unwrap_or(usize::MAX),
            per_file_tokens: settings.restore_file_tokens,
            total_tokens: settings.restore_total_tokens,
        }
    }
}

/// Why a file was not restored.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum SkipReason {
    /// The path is outside the session's `cwd` (directly, through `..` or a symlink).
    OutsideCwd,
    /// The file does not exist (any more).
    Missing,
    /// The file is not UTF-8 text.
    Binary,
    /// The path is not a regular file, or it could not be read.
    Unreadable,
    /// The file is larger than [`MAX_RESTORE_BYTES`] (never read whole).
    TooLarge,
    /// The total budget was used up by more recent files.
    NoBudget,
    /// The session's `cwd` is no project folder to restore files from (see
    /// [`restore_root`]); nothing in it was read.
    FolderRefused,
    /// The redaction changed the listed name (`keys/[REDACTED]/app.conf`) and no `write` or
    /// `edit` call in the session gives the original; a file at the redacted name is another
    /// file, so nothing is read.
    Redacted,
}

/// A session's folder that files are not restored from, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RefusedFolder {
    /// The folder as the session names it.
    pub cwd: String,
    /// Why it is refused.
    pub reason: String,
}

/// A file that was not restored, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SkippedFile {
    /// The path as the session names it.
    pub path: String,
    /// Why it was skipped.
    pub reason: SkipReason,
}

/// What a restore did.
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RestoreOutcome {
    /// The appended `custom_message` entry (`None` when no file was restored).
    #[serde(skip)]
    pub entry: Option<Entry>,
    /// The restored files, most recent first.
    pub restored: Vec<RestoredFile>,
    /// The files left out.
    pub skipped: Vec<SkippedFile>,
    /// The session's folder, when it is no folder to restore files from.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub refused_folder: Option<RefusedFolder>,
}

/// The system's own trees: pseudo file systems of the kernel (`/proc/self/environ` holds the
/// process's environment) and the system's configuration.
const SYSTEM_TREES: [&str; 6] = ["proc", "sys", "dev", "etc", "boot", "run"];

/// The folder files named by a session may be restored from: the session's `cwd` resolved
/// through links, when it is a project folder. Refused (with the reason): a relative or
/// missing folder, the root of the file system, `home` or a folder above it, a hidden
/// folder of `home` or anything inside one, and the system's own trees (`/proc`, `/sys`,
/// `/dev`, `/etc`, `/boot`, `/run`).
/// A session from someone else chooses its `cwd`; these are the folders where a file
/// named by it would be a private file of the user or of the system rather than the
/// project's.
pub fn restore_root(cwd: &str, home: Option<&Path>) -> Result<PathBuf, String> {
    if !cwd.starts_with('/') {
        return Err("it is not an absolute path".to_owned());
    }
    let canonical =
        std::fs::canonicalize(cwd).map_err(|error| format!("it cannot be resolved ({error})"))?;
    if !canonical.is_dir() {
        return Err("it is not a folder".to_owned());
    }
    if canonical.parent().is_none() {
        return Err("it is the root of the file system".to_owned());
    }
    let first = canonical.components().nth(1).map(|part| part.as_os_str().to_string_lossy());
    if let Some(first) = first.filter(|first| SYSTEM_TREES.contains(&first.as_ref())) {
        return Err(format!("it is inside /{first}, one of the system's own trees"));
    }
    if let Some(home) = home.and_then(|home| std::fs::canonicalize(home).ok()) {
        if home == canonical {
            return Err("it is the home folder".to_owned());
        }
        if home.starts_with(&canonical) {
            return Err("it is a folder above the home folder".to_owned());
        }
        if let Ok(below) = canonical.strip_prefix(&home)
            && let Some(hidden) = below.components().find_map(|part| {
                let name = part.as_os_str().to_string_lossy();
                name.starts_with('.').then(|| name.into_owned())
            })
        {
            return Err(format!(
                "it is inside ~/{hidden}, a hidden folder of the home folder (where tools keep \
                 settings and credentials)"
            ));
        }
    }
    Ok(canonical)
}

/// The home folder (`HOME`), when set.
fn home_folder() -> Option<PathBuf> {
    std::env::var_os("HOME").filter(|home| !home.is_empty()).map(PathBuf::from)
}

/// The largest file a restore reads: far more than any token budget keeps, small enough that
/// a log or a sparse file of many gigabytes is never read into memory.
pub const MAX_RESTORE_BYTES: u64 = 16 << 20;

/// Reads one candidate: its text, or why it is skipped.
fn read_candidate(cwd: &Path, canonical_cwd: &Path, path: &str) -> Result<String, SkipReason> {
    let cwd_text = cwd.to_string_lossy();
    let lexical = lexical_path_in(&cwd_text, path).ok_or(SkipReason::OutsideCwd)?;
    let full = PathBuf::from(lexical);
    let canonical = match std::fs::canonicalize(&full) {
        Ok(canonical) => canonical,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
            return Err(SkipReason::Missing);
        }
        Err(_) => return Err(SkipReason::Unreadable),
    };
    if !canonical.starts_with(canonical_cwd) {
        return Err(SkipReason::OutsideCwd);
    }
    // A regular file only (a FIFO is never opened for a blocking read), read with a bound.
    let bytes = crate::disk::read_regular(&canonical, MAX_RESTORE_BYTES).map_err(|error| {
        if matches!(error, crate::disk::DiskError::TooLarge { .. }) {
            SkipReason::TooLarge
        } else {
            SkipReason::Unreadable
        }
    })?;
    if !is_text(&bytes) {
        return Err(SkipReason::Binary);
    }
    String::from_utf8(bytes).map_err(|_| SkipReason::Binary)
}

/// Restores the files of the compaction entry `compaction_id` and appends the
/// `custom_message` under `parent` (normally that compaction). `total_room` further limits
/// the total (the room left below the trigger, for the harness). Each file's text is
/// redacted with `redactor` before it is measured and cut.
pub fn restore_files(
    store: &mut SessionStore,
    compaction_id: &str,
    limits: RestoreLimits,
    total_room: Option<u64>,
    estimator: &dyn TokenEstimator,
    redactor: &Redactor,
) -> Result<RestoreOutcome, StoreError> {
    let session = store.session();
    let Some(compaction) = session.index_of(compaction_id) else {
        return Ok(RestoreOutcome::default());
    };
    let Some(cwd) = session.header().and_then(|header| header.cwd.clone()) else {
        return Ok(RestoreOutcome::default());
    };
    if limits.files == 0 {
        return Ok(RestoreOutcome::default());
    }
    let candidates = recent_modified_files(session, compaction, limits.files, redactor);
    let root = match std::fs::symlink_metadata(&cwd) {
        // A folder that is gone: its files are missing, as before.
        Err(error) if error.kind() == std::io::ErrorKind::NotFound && cwd.starts_with('/') => None,
        _ => match restore_root(&cwd, home_folder().as_deref()) {
            Ok(root) => Some(root),
            Err(reason) => {
                let skipped = candidates
                    .into_iter()
                    .map(|file| SkippedFile { path: file.shown, reason: SkipReason::FolderRefused })
                    .collect();
                let refused_folder = Some(RefusedFolder { cwd, reason });
                return Ok(RestoreOutcome {
                    entry: None,
                    restored: Vec::new(),
                    skipped,
                    refused_folder,
                });
            }
        },
    };
    let cwd = PathBuf::from(cwd);
    let mut readable = Vec::new();
    let mut skipped = Vec::new();
    // Each file is read under the name its tool call gave and named as the compaction lists
    // it (redacted).
    for file in candidates {
        let read = match (&root, &file.read) {
            (_, None) => Err(SkipReason::Redacted),
            (Some(canonical_cwd), Some(name)) => read_candidate(&cwd, canonical_cwd, name),
            (None, Some(_)) => Err(SkipReason::Missing),
        };
        match read {
            Ok(text) => readable.push((file.shown, redactor.redact(&text).into_owned())),
            Err(reason) => skipped.push(SkippedFile { path: file.shown, reason }),
        }
    }
    let total = total_room.map_or(limits.total_tokens, |room| room.min(limits.total_tokens));
    let names: Vec<String> = readable.iter().map(|(path, _)| path.clone()).collect();
    let restored = fit_files(readable, limits.per_file_tokens, total, estimator);
    for name in names {
        if !restored.iter().any(|file| file.path == name) {
            skipped.push(SkippedFile { path: name, reason: SkipReason::NoBudget });
        }
    }
    if restored.is_empty() {
        return Ok(RestoreOutcome { entry: None, restored, skipped, refused_folder: None });
    }
    let mut fields = Map::new();
    fields.insert("customType".to_owned(), Value::from(RESTORED_FILES_CUSTOM_TYPE));
    fields.insert("content".to_owned(), Value::from(restored_files_text(&restored)));
    fields.insert("display".to_owned(), Value::Bool(false));
    fields.insert(
        "details".to_owned(),
        json!({ "compactionId": compaction_id, "files": &restored, "skipped": &skipped }),
    );
    let new =
        NewEntry::new("custom_message", fields).with_parent(Parent::Id(compaction_id.to_owned()));
    let entry = store.append(new)?;
    Ok(RestoreOutcome { entry: Some(entry), restored, skipped, refused_folder: None })
}
