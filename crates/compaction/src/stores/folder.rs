//! A folder of pi session files as one store: every `*.jsonl` file under it (sub-folders
//! included, as pi keeps one folder per project) is one session, named by its header's id,
//! and each is served by its own [`JsonlBackend`], so a session in a folder behaves exactly
//! as the file alone (the lease is the file's write lock).
//!
//! Hidden files (a name starting with `.`, such as an import's `.NAME.import-PID`) and
//! anything that is not a regular file are not sessions. Two files with the same session id
//! make the folder unusable as a store: the listing fails naming both.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use compaction_core::Session;

use super::jsonl::JsonlBackend;
use super::{BackendError, PathRead, SessionBackend, SessionSummary};

/// The sessions of one folder.
#[derive(Debug)]
pub struct FolderBackend {
    dir: PathBuf,
    /// Each session id seen so far and the backend of its file (kept, since it holds the
    /// file's lease while one is taken).
    sessions: Mutex<BTreeMap<String, Arc<JsonlBackend>>>,
}

impl FolderBackend {
    /// The folder at `dir` (read on each listing).
    pub fn new(dir: PathBuf) -> FolderBackend {
        FolderBackend { dir, sessions: Mutex::new(BTreeMap::new()) }
    }

    /// The backend of `session`, looking through the folder again when it is not known yet.
    fn backend(&self, session: &str) -> Result<Arc<JsonlBackend>, BackendError> {
        if let Some(found) = self.known().get(session) {
            return Ok(Arc::clone(found));
        }
        self.list()?;
        self.known().get(session).cloned().ok_or_else(|| BackendError::NotFound {
            store: self.describe(),
            session: session.to_owned(),
        })
    }

    fn known(&self) -> std::sync::MutexGuard<'_, BTreeMap<String, Arc<JsonlBackend>>> {
        self.sessions.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// Every visible `*.jsonl` regular file under `dir`, sorted.
fn session_files(dir: &Path, found: &mut Vec<PathBuf>) -> Result<(), BackendError> {
    let io = |source| BackendError::Io { what: format!("cannot read {}", dir.display()), source };
    for entry in std::fs::read_dir(dir).map_err(io)? {
        let entry = entry.map_err(io)?;
        if entry.file_name().to_string_lossy().starts_with('.') {
            continue;
        }
        let kind = entry.file_type().map_err(io)?;
        let path = entry.path();
        if kind.is_dir() {
            session_files(&path, found)?;
        } else if kind.is_file() && path.extension().is_some_and(|ext| ext == "jsonl") {
            found.push(path);
        }
    }
    Ok(())
}

impl SessionBackend for FolderBackend {
    fn describe(&self) -> String {
        self.dir.display().to_string()
    }

    fn list(&self) -> Result<Vec<SessionSummary>, BackendError> {
        let mut files = Vec::new();
        session_files(&self.dir, &mut files)?;
        files.sort();
        let mut summaries = Vec::with_capacity(files.len());
        let mut paths: BTreeMap<String, PathBuf> = BTreeMap::new();
        for path in files {
            let file = JsonlBackend::new(path.clone());
            let summary = file.list()?.into_iter().next().ok_or_else(|| BackendError::Invalid {
                store: path.display().to_string(),
                reason: "no session in the file".to_owned(),
            })?;
            if let Some(first) = paths.insert(summary.id.clone(), path.clone()) {
                return Err(BackendError::Invalid {
                    store: self.describe(),
                    reason: format!(
                        "session `{}` is in two files, {} and {}",
                        summary.id,
                        first.display(),
                        path.display()
                    ),
                });
            }
            summaries.push(summary);
        }
        let mut known = self.known();
        for (id, path) in paths {
            let same = known.get(&id).is_some_and(|backend| backend.path() == path);
            if !same {
                known.insert(id, Arc::new(JsonlBackend::new(path)));
            }
        }
        Ok(summaries)
    }

    fn read_session(&self, session: &str) -> Result<Session, BackendError> {
        self.backend(session)?.read_session(session)
    }

    fn read_path(&self, session: &str, leaf: Option<&str>) -> Result<PathRead, BackendError> {
        self.backend(session)?.read_path(session, leaf)
    }

    fn append_if_leaf(
        &self,
        session: &str,
        planned_leaf: Option<&str>,
        lines: &[String],
    ) -> Result<(), BackendError> {
        self.backend(session)?.append_if_leaf(session, planned_leaf, lines)
    }

    fn export(&self, session: &str, out: &mut dyn Write) -> Result<u64, BackendError> {
        self.backend(session)?.export(session, out)
    }

    fn try_lease(&self, session: &str, holder: &str, ttl: Duration) -> Result<bool, BackendError> {
        self.backend(session)?.try_lease(session, holder, ttl)
    }

    fn release_lease(&self, session: &str, holder: &str) -> Result<(), BackendError> {
        self.backend(session)?.release_lease(session, holder)
    }
}
