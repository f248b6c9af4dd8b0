//! Compacting a session held in any [`SessionBackend`] through the one orchestration path.
//!
//! The session is exported to a private scratch pi file, [`Compactor::run`] compacts it
//! there exactly as it compacts any file, and the lines it appended are appended to the
//! backend on the condition that the session's leaf is still the one the compaction was
//! planned against. An agent that appended meanwhile loses nothing: the compaction is not
//! written ([`StoredCompactError::Moved`]) and can be planned again.
//!
//! The scratch file is `compaction-scratch-PID-RANDOM.jsonl` in the temporary folder, created
//! private (mode 0600) and removed when the compaction ends, however it ends. A process killed
//! meanwhile (SIGKILL) leaves it behind; [`reclaim_scratch`] removes every scratch file whose
//! process is gone: its PID names no running process, or names this process, which does not
//! hold it (a worker restarted under the same PID, as PID 1 of a container is). A file that is
//! locked (a compaction is writing it) is never removed.

use std::collections::BTreeSet;
use std::io::Write;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, PoisonError};

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

/// The beginning of every scratch file's name.
const SCRATCH_PREFIX: &str = "compaction-scratch-";

/// The scratch files this process holds now.
static HELD: Mutex<BTreeSet<PathBuf>> = Mutex::new(BTreeSet::new());

fn held() -> std::sync::MutexGuard<'static, BTreeSet<PathBuf>> {
    HELD.lock().unwrap_or_else(PoisonError::into_inner)
}

/// A scratch file, held by this process until dropped, then removed.
struct Scratch(PathBuf);

impl Scratch {
    /// A new scratch path in `dir`, held by this process.
    fn new(dir: &Path) -> Scratch {
        let name = format!(
            "{SCRATCH_PREFIX}{}-{}.jsonl",
            std::process::id(),
            crate::store::names::random_entry_id()
        );
        let path = dir.join(name);
        held().insert(path.clone());
        Scratch(path)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
        held().remove(&self.0);
    }
}

/// The process id a scratch file's name carries (`compaction-scratch-PID-RANDOM.jsonl`).
fn scratch_pid(name: &str) -> Option<u32> {
    let rest = name.strip_prefix(SCRATCH_PREFIX)?.strip_suffix(".jsonl")?;
    let (pid, random) = rest.split_once('-')?;
    if random.is_empty() || !pid.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    pid.parse().ok()
}

/// Whether `pid` names a running process (`/proc/PID` exists).
fn running(pid: u32) -> bool {
    Path::new("/proc").join(pid.to_string()).exists()
}

/// Removes the scratch files in the temporary folder that no live compaction holds (see the
/// module documentation). Returns the files removed.
pub fn reclaim_scratch() -> Vec<PathBuf> {
    reclaim_scratch_in(&std::env::temp_dir())
}

/// [`reclaim_scratch`] in `dir`.
pub fn reclaim_scratch_in(dir: &Path) -> Vec<PathBuf> {
    let mut removed = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else { return removed };
    let me = std::process::id();
    for entry in entries.flatten() {
        let Some(pid) = entry.file_name().to_str().and_then(scratch_pid) else { continue };
        let path = entry.path();
        let orphaned = if pid == me { !held().contains(&path) } else { !running(pid) };
        if !orphaned || !entry.file_type().is_ok_and(|kind| kind.is_file()) {
            continue;
        }
        // A compaction under way holds its scratch file's write lock: never remove that one.
        let Ok(file) = std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_NONBLOCK | libc::O_NOFOLLOW)
            .open(&path)
        else {
            continue;
        };
        if file.metadata().is_ok_and(|m| m.is_file())
            && file.try_lock().is_ok()
            && std::fs::remove_file(&path).is_ok()
        {
            removed.push(path);
        }
    }
    removed
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
    let scratch = Scratch::new(&std::env::temp_dir());
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scratch_names_carry_their_process_id() {
        assert_eq!(scratch_pid("compaction-scratch-42-a1b2c3d4.jsonl"), Some(42));
        assert_eq!(scratch_pid("compaction-scratch-42-.jsonl"), None);
        assert_eq!(scratch_pid("compaction-scratch-x2-a1.jsonl"), None);
        assert_eq!(scratch_pid("compaction-scratch-42-a1.json"), None);
        assert_eq!(scratch_pid(".compaction-scratch-42-a1.jsonl"), None);
    }

    /// A process restarted under the same id (PID 1 of a container) removes the scratch
    /// files its earlier life left, and never one it holds now.
    #[test]
    fn this_process_reclaims_its_own_id_only_for_files_it_does_not_hold() {
        let dir = tempfile::tempdir().unwrap();
        let held = Scratch::new(dir.path());
        std::fs::write(&held.0, "{}\n").unwrap();
        let left =
            dir.path().join(format!("{SCRATCH_PREFIX}{}-0f0f0f0f.jsonl", std::process::id()));
        std::fs::write(&left, "{}\n").unwrap();
        assert_eq!(reclaim_scratch_in(dir.path()), std::slice::from_ref(&left));
        assert!(held.0.exists() && !left.exists());
        let path = held.0.clone();
        drop(held);
        assert!(!path.exists(), "a scratch file is removed when dropped");
    }
}
