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
        /// What the store was doing (`open`, `append to`, …).
        action: &'static str,
        /// The file concerned.
        path: PathBuf,
        /// The operating system's error.
        #[source]
        source: std::io::Error,
    },
    /// Another process holds the session's write lock. Retrying helps once it is done
    /// (or pass a lock wait).
    #[error("session {path} is in use{}; wait for it to finish", pid_suffix(*pid))]
    InUse {
        /// The session file (or other file) concerned.
        path: PathBuf,
        /// The process holding the lock, when known.
        pid: Option<u32>,
    },
    /// The write lock was still held after waiting this long. Retrying may help.
    #[error(
        "session {path} is still in use{} after waiting {waited:?}",
        pid_suffix(*pid)
    )]
    LockTimeout {
        /// The session file (or other file) concerned.
        path: PathBuf,
        /// The process holding the lock, when known.
        pid: Option<u32>,
        /// How long the store waited.
        waited: Duration,
    },
    /// The session header (line 1) is missing or unreadable, so the store refuses to write
    /// to the file. Retrying cannot help; repair a copy first.
    #[error(
        "session {path} has no readable header (line {line}: {detail}); it is left untouched. \
         Run `compaction check --repair {path}` to write a repaired copy beside it"
    )]
    UnreadableHeader {
        /// The session file (or other file) concerned.
        path: PathBuf,
        /// The 1-based line.
        line: usize,
        /// What is wrong, in words for the user.
        detail: String,
    },
    /// A file or directory name the store would create is not a plain name (it has a path
    /// separator, `..`, a NUL byte, or is empty). Retrying cannot help.
    #[error("invalid name {name:?}: {reason}")]
    InvalidName {
        /// The rejected name.
        name: String,
        /// Why, in words for the user.
        reason: &'static str,
    },
    /// An entry to append is not valid (reserved field, unknown parent, too long, too deep).
    /// Retrying the same entry cannot help.
    #[error("cannot append to {path}: {reason}")]
    InvalidEntry {
        /// The session file (or other file) concerned.
        path: PathBuf,
        /// Why, in words for the user.
        reason: String,
    },
    /// The store was opened for reading; it never writes. Reopen it for writing.
    #[error("session {path} is open read-only")]
    ReadOnly {
        /// The session file (or other file) concerned.
        path: PathBuf,
    },
    /// An earlier write or sync failed and the file's state on disk could not be confirmed.
    /// Reopen the session (recovery will restore a clean tail) before writing again.
    #[error(
        "session {path} had a failed write or sync that could not be undone; reopen it to recover"
    )]
    Poisoned {
        /// The session file (or other file) concerned.
        path: PathBuf,
    },
    /// The file to create already exists. Retrying cannot help; pick another name.
    #[error("{path} already exists")]
    AlreadyExists {
        /// The session file (or other file) concerned.
        path: PathBuf,
    },
    /// The path is not a regular file (a FIFO, socket, device or directory): the store
    /// neither reads nor locks it. Retrying cannot help.
    #[error("{path} is {what}, not a session file; a session is a regular file")]
    NotRegularFile {
        /// The session file (or other file) concerned.
        path: PathBuf,
        /// What the path is instead.
        what: &'static str,
    },
    /// The file is not a pi session: it is empty, or its first line is not a session header
    /// and does not look like a damaged one. Nothing reads it as a session, nothing writes
    /// to it. Retrying cannot help.
    #[error("{path} is not a pi session file: {detail}")]
    NotASession {
        /// The session file (or other file) concerned.
        path: PathBuf,
        /// What is wrong, in words for the user.
        detail: String,
    },
    /// The header declares a format version newer than this crate knows; the store reads
    /// such a file (with a warning) but never writes to it. Retrying cannot help; a newer
    /// version of this tool may.
    #[error(
        "session {path} declares format version {version}, newer than the version {known} this \
         tool writes; it is left untouched (reading it works, with a warning)"
    )]
    UnsupportedVersion {
        /// The session file (or other file) concerned.
        path: PathBuf,
        /// The version the file declares.
        version: u32,
        /// The newest version this tool writes.
        known: u32,
    },
    /// The file starts with a UTF-8 byte order mark: pi 1.6 does not take it for a session
    /// (it would start a new one), so nothing is written to it. Reading it works.
    #[error(
        "{path}: line 1: the file starts with a UTF-8 byte order mark, which pi 1.6 cannot \
         read as a session; nothing was written. Remove the mark (the file's first 3 bytes) \
         and try again"
    )]
    ByteOrderMark {
        /// The session file.
        path: PathBuf,
    },
    /// The file changed since the store read it (another program wrote to it without the
    /// lock); nothing was written. [`SessionStore::reload`](super::SessionStore::reload)
    /// reads what is there now.
    #[error("session {path} changed while it was open: {change}; nothing was written")]
    Changed {
        /// The session file (or other file) concerned.
        path: PathBuf,
        /// How the file changed.
        change: FileChange,
    },
    /// The output of a copy is the input itself (the same file, through any link).
    #[error("the output {output} is the input {input} itself; choose another output")]
    OutputIsInput {
        /// The output file.
        output: PathBuf,
        /// The input file.
        input: PathBuf,
    },
    /// A rewrite was stopped at a chosen step (a test aid of the `fault-injection` feature
    /// simulating a crash).
    #[cfg(feature = "fault-injection")]
    #[error("rewrite of {path} stopped after step {step:?}")]
    Interrupted {
        /// The session file (or other file) concerned.
        path: PathBuf,
        /// The step after which the rewrite stopped.
        step: super::rewrite::RewriteStep,
    },
}

/// How a session file changed under an open store.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum FileChange {
    /// Complete lines were appended: the file grew from `from` to `to` bytes.
    Grew {
        /// The size in bytes the store knew.
        from: u64,
        /// The size in bytes now.
        to: u64,
    },
    /// Bytes were appended whose last line is still incomplete (another program is in the
    /// middle of writing it).
    Incomplete {
        /// The size in bytes the store knew.
        from: u64,
        /// The size in bytes now.
        to: u64,
    },
    /// The file is shorter than before, or its last known bytes differ.
    Rewritten {
        /// The size in bytes the store knew.
        from: u64,
        /// The size in bytes now.
        to: u64,
    },
    /// The path now names another file (it was replaced by a rename).
    Replaced,
    /// Another process has the file open for writing while its last line is unfinished.
    OpenForWriting {
        /// That process.
        pid: u32,
    },
}

impl std::fmt::Display for FileChange {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            FileChange::Grew { from, to } => {
                write!(f, "another program appended {} bytes of complete lines", to - from)
            }
            FileChange::Incomplete { from, to } => write!(
                f,
                "another program is writing to it ({} new bytes end in an incomplete line)",
                to - from
            ),
            FileChange::Rewritten { from, to } => {
                write!(f, "it was rewritten ({from} bytes before, {to} now)")
            }
            FileChange::Replaced => write!(f, "the path now names another file"),
            FileChange::OpenForWriting { pid } => write!(
                f,
                "process {pid} has it open for writing and its last line is unfinished; try \
                 again when it is done"
            ),
        }
    }
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
            StoreError::Changed { .. } => true,
            StoreError::UnreadableHeader { .. }
            | StoreError::NotRegularFile { .. }
            | StoreError::NotASession { .. }
            | StoreError::UnsupportedVersion { .. }
            | StoreError::ByteOrderMark { .. }
            | StoreError::OutputIsInput { .. }
            | StoreError::InvalidName { .. }
            | StoreError::InvalidEntry { .. }
            | StoreError::ReadOnly { .. }
            | StoreError::Poisoned { .. }
            | StoreError::AlreadyExists { .. } => false,
            #[cfg(feature = "fault-injection")]
            StoreError::Interrupted { .. } => false,
        }
    }
}
