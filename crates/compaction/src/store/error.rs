//! Errors of the session store.
//!
//! Invariant: every variant names the file it concerns and says whether retrying can help,
//! so a caller (or a user reading the message) knows what to do next.

use std::path::PathBuf;
use std::time::Duration;

/// Something the session store could not do.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum StoreError {
    /// An I/O operation failed. Retrying may help when the cause was transient (a full
    /// disk that was cleaned up); the file is left with only committed entries.
    #[error("{action} {path}: {source}")]
    Io {
        action: &'static str,
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// Another process holds the session's write lock. Retrying helps once it is done
    /// (or pass a lock wait).
    #[error(
        "session {path} is in use{}; wait for it to finish or retry with a lock wait",
        pid_suffix(*pid)
    )]
    InUse { path: PathBuf, pid: Option<u32> },
    /// The write lock was still held after waiting this long. Retrying may help.
    #[error(
        "session {path} is still in use{} after waiting {waited:?}",
        pid_suffix(*pid)
    )]
    LockTimeout { path: PathBuf, pid: Option<u32>, waited: Duration },
    /// The session header (line 1) is missing or unreadable, so the store refuses to write
    /// to the file. Retrying cannot help; repair a copy first.
    #[error(
        "session {path} has no readable header (line {line}: {detail}); it is left untouched. \
         Run `compaction check --repair {path}` to write a repaired copy beside it"
    )]
    UnreadableHeader { path: PathBuf, line: usize, detail: String },
    /// A file or directory name the store would create is not a plain name (it has a path
    /// separator, `..`, a NUL byte, or is empty). Retrying cannot help.
    #[error("invalid name {name:?}: {reason}")]
    InvalidName { name: String, reason: &'static str },
    /// An entry to append is not valid (reserved field, unknown parent, too long, too deep).
    /// Retrying the same entry cannot help.
    #[error("cannot append to {path}: {reason}")]
    InvalidEntry { path: PathBuf, reason: String },
    /// The store was opened for reading; it never writes. Reopen it for writing.
    #[error("session {path} is open read-only")]
    ReadOnly { path: PathBuf },
    /// An earlier write or sync failed and the file's state on disk could not be confirmed.
    /// Reopen the session (recovery will restore a clean tail) before writing again.
    #[error(
        "session {path} had a failed write or sync that could not be undone; reopen it to recover"
    )]
    Poisoned { path: PathBuf },
    /// The file to create already exists. Retrying cannot help; pick another name.
    #[error("{path} already exists")]
    AlreadyExists { path: PathBuf },
    /// A rewrite was stopped at a chosen step (a testing aid simulating a crash).
    #[error("rewrite of {path} stopped after step {step:?}")]
    Interrupted { path: PathBuf, step: super::rewrite::RewriteStep },
}

fn pid_suffix(pid: Option<u32>) -> String {
    match pid {
        Some(pid) => format!(" (pid {pid})"),
        None => String::new(),
    }
}

impl StoreError {
    pub(crate) fn io(
        action: &'static str,
        path: impl Into<PathBuf>,
    ) -> impl FnOnce(std::io::Error) -> StoreError {
        let path = path.into();
        move |source| StoreError::Io { action, path, source }
    }

    /// Whether retrying the same call later could succeed.
    pub fn is_retryable(&self) -> bool {
        match self {
            StoreError::Io { .. } | StoreError::InUse { .. } | StoreError::LockTimeout { .. } => {
                true
            }
            StoreError::UnreadableHeader { .. }
            | StoreError::InvalidName { .. }
            | StoreError::InvalidEntry { .. }
            | StoreError::ReadOnly { .. }
            | StoreError::Poisoned { .. }
            | StoreError::AlreadyExists { .. }
            | StoreError::Interrupted { .. } => false,
        }
    }
}
