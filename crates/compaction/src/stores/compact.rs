//! Compacting a session held in any [`SessionBackend`] through the one orchestration path.
//!
//! The session is exported to a private scratch pi file, [`Compactor::run`] compacts it
//! there exactly as it compacts any file, and the lines it appended are appended to the
//! backend on the condition that the session's leaf is still the one the compaction was
//! planned against. An agent that appended meanwhile loses nothing: the compaction is not
//! written ([`StoredCompactError::Moved`]) and can be planned again.

use std::io::Write;
use std::os::unix::fs::OpenOptionsExt;
use std::path::PathBuf;

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

/// A scratch file removed when dropped.
struct Scratch(PathBuf);

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
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
    let name = format!(
        "compaction-scratch-{}-{}.jsonl",
        std::process::id(),
        crate::store::names::random_entry_id()
    );
    let scratch = Scratch(std::env::temp_dir().join(name));
    let io = |source| BackendError::Io {
        what: format!("cannot write the scratch copy {}", scratch.0.display()),
        source,
    };
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(&scratch.0)
        .map_err(io)?;
    let exported = backend.export(session, &mut file)?;
    file.flush().map_err(io)?;
    drop(file);
    let (mut store, _) =
        SessionStore::open(&scratch.0, OpenOptions::for_writing()).map_err(BackendError::from)?;
    let planned = store.session().leaf().map(|leaf| store.session().entries()[leaf].id.clone());
    let outcome = compactor.run(&mut store, request, cancel, progress).await?;
    drop(store);
    let bytes = std::fs::read(&scratch.0).map_err(io)?;
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
