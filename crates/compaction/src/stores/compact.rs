//! Compacting a session held in any [`SessionBackend`] through the one orchestration path.
//!
//! The session is exported to a private scratch pi file, [`Compactor::run`] compacts it
//! there exactly as it compacts any file, and the lines it appended are appended to the
//! backend on the condition that the session's leaf is still the one the compaction was
//! planned against. An agent that appended meanwhile loses nothing: the compaction is not
//! written ([`StoredCompactError::Moved`]) and can be planned again.
//!
//! The scratch file is a [`crate::disk::TempScratch`], `compaction-scratch-PID-RANDOM.jsonl`
//! in the temporary folder, created private (mode 0600) and removed when the compaction ends,
//! however it ends. A process killed meanwhile (SIGKILL) leaves it behind; [`reclaim_scratch`],
//! which every worker pass and every `run` on a stored session call first, removes every
//! scratch file whose process is gone: its PID names no running process, or names this
//! process, which does not hold it (a worker restarted under the same PID, as PID 1 of a
//! container is). A file that is locked (a compaction is writing it) is never removed.

use std::io::Write;
use std::path::{Path, PathBuf};

use tokio_util::sync::CancellationToken;

use super::{BackendError, SessionBackend};
use crate::compact::{CompactError, CompactOutcome, CompactRequest, CompactionProgress, Compactor};
use crate::store::{OpenOptions, SessionStore};

/// Why a stored session was not compacted.
#[derive(Debug, thiserror::Error)]
pub enum StoredCompactError {
    /// The store failed (reading, exporting or appending).
    #[error(transparent)]
    Backend(#[from] BackendError),
    /// The compaction itself ended without an entry (nothing to compact, cancelled, failed).
    #[error(transparent)]
    Compact(#[from] CompactError),
    /// The session's leaf moved while the compaction was computed; nothing was written.
    #[error("{0}")]
    Moved(BackendError),
}

/// Removes the scratch files in the temporary folder that no live compaction holds (see
/// [`crate::disk::reclaim_temp_scratch`]). Returns the files removed.
pub fn reclaim_scratch() -> Vec<PathBuf> {
    crate::disk::reclaim_temp_scratch()
}

/// [`reclaim_scratch`] in `dir`.
pub fn reclaim_scratch_in(dir: &Path) -> Vec<PathBuf> {
    crate::disk::reclaim_temp_scratch_in(dir)
}

/// Compacts `session` of `backend` with `compactor` (see the module documentation) and
/// returns the outcome once its lines are appended to the backend.
pub async fn compact_stored(
    backend: &dyn SessionBackend,
    session: &str,
    compactor: &Compactor<'_>,
    request: &CompactRequest,
    cancel: &CancellationToken,
    progress: &(dyn Fn(CompactionProgress) + Send + Sync),
) -> Result<CompactOutcome, StoredCompactError> {
    compact_stored_in(&std::env::temp_dir(), backend, session, compactor, request, cancel, progress)
        .await
}

/// [`compact_stored`] with its scratch copy in `dir`.
pub async fn compact_stored_in(
    dir: &Path,
    backend: &dyn SessionBackend,
    session: &str,
    compactor: &Compactor<'_>,
    request: &CompactRequest,
    cancel: &CancellationToken,
    progress: &(dyn Fn(CompactionProgress) + Send + Sync),
) -> Result<CompactOutcome, StoredCompactError> {
    let scratch = crate::disk::TempScratch::file_in(dir).map_err(|error| BackendError::Io {
        what: format!("cannot create a scratch copy in {}", dir.display()),
        source: std::io::Error::other(error.to_string()),
    })?;
    let io = |source| BackendError::Io {
        what: format!("cannot write the scratch copy {}", scratch.path().display()),
        source,
    };
    let mut file = std::fs::OpenOptions::new().write(true).open(scratch.path()).map_err(io)?;
    let exported = backend.export(session, &mut file)?;
    file.flush().map_err(io)?;
    drop(file);
    let (mut store, _) = SessionStore::open(scratch.path(), OpenOptions::for_writing())
        .map_err(BackendError::from)?;
    let planned = store.session().leaf().map(|leaf| store.session().entries()[leaf].id.clone());
    let outcome = compactor.run(&mut store, request, cancel, progress).await?;
    drop(store);
    let bytes = std::fs::read(scratch.path()).map_err(io)?;
    let start = usize::try_from(exported).unwrap_or(usize::MAX).min(bytes.len());
    let appended = &bytes[start..];
    // The scratch file may have gained a newline before the first appended line.
    let appended = appended.strip_prefix(b"\n").unwrap_or(appended);
    let lines: Vec<String> = appended
        .split(|&byte| byte == b'\n')
        .filter(|line| !line.is_empty())
        .map(|line| String::from_utf8_lossy(line).into_owned())
        .collect();
    match backend.append_if_leaf(session, planned.as_deref(), &lines) {
        Ok(()) => Ok(outcome),
        Err(moved @ BackendError::LeafMoved { .. }) => Err(StoredCompactError::Moved(moved)),
        Err(error) => Err(error.into()),
    }
}
