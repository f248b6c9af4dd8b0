//! The single-writer lock: an advisory exclusive `flock` on the session file itself, which
//! readers that must not see a write in progress take shared.
//!
//! Invariant: while a [`SessionLock`] is alive no other process (and no other open of the
//! same session in this process) holds it, and the path names the very file that is locked.
//! The lock lives on the session's inode, so no lock file is ever left beside a session. An
//! atomic rewrite locks its new file *before* renaming it into place, so the lock carries over
//! to the new inode; a process that was waiting on the old inode sees, once it gets that lock,
//! that the path now names another file, and waits again on the new one. The kernel releases
//! the lock when its holder exits, however it exits, so a dead writer never blocks anyone; the
//! holder's pid for error messages is read from `/proc/locks`.

use std::fs::{File, TryLockError};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use super::error::StoreError;
use super::io;

/// How long to wait for another writer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum LockWait {
    /// Fail with [`StoreError::InUse`] unless the lock frees within a short grace period
    /// ([`NO_WAIT_GRACE`]). The grace covers a lock held for an instant by a descriptor that a
    /// child process inherited: a `flock` belongs to the open file description, so when any
    /// thread of a process forks (to run a hook, say), the child shares the descriptor until
    /// it reaches `exec` and closes it, and a writer that closed and reopened the session in
    /// that window would otherwise see its own lock as another writer's.
    #[default]
    NoWait,
    /// Wait up to this long, then fail with [`StoreError::LockTimeout`].
    For(Duration),
    /// Wait until the lock is free.
    Forever,
}

/// A held lock (exclusive for writing, or shared for reading); dropping it releases it.
#[derive(Debug)]
pub struct SessionLock {
    file: File,
    path: PathBuf,
}

const POLL: Duration = Duration::from_millis(20);

/// How long [`LockWait::NoWait`] still polls before reporting the session in use.
pub const NO_WAIT_GRACE: Duration = Duration::from_millis(250);

impl SessionLock {
    /// Takes the write lock of the session at `session_path`, which must be an existing
    /// regular file (a FIFO, device or directory is refused at once, without waiting).
    ///
    /// The returned lock's [`SessionLock::file`] is open for reading and appending on the
    /// file the path names now.
    pub fn acquire(session_path: &Path, wait: LockWait) -> Result<SessionLock, StoreError> {
        SessionLock::take(session_path, wait, false)
    }

    /// Takes the lock shared, for reading: any number of readers hold it together and none
    /// while a writer of this tool holds it, so a read never sees a writer's half-done work
    /// (a torn line being recovered, a rewrite). The returned lock's file is open read-only.
    pub fn acquire_shared(session_path: &Path, wait: LockWait) -> Result<SessionLock, StoreError> {
        SessionLock::take(session_path, wait, true)
    }

    fn take(session_path: &Path, wait: LockWait, shared: bool) -> Result<SessionLock, StoreError> {
        let started = Instant::now();
        loop {
            let file = io::open_regular(session_path, !shared)?;
            loop {
                let attempt = if shared { file.try_lock_shared() } else { file.try_lock() };
                match attempt {
                    Ok(()) => break,
                    Err(TryLockError::WouldBlock) => {
                        let waited = started.elapsed();
                        let give_up = match wait {
                            LockWait::NoWait => waited >= NO_WAIT_GRACE,
                            LockWait::For(limit) => waited >= limit,
                            LockWait::Forever => false,
                        };
                        if give_up {
                            let pid = holder_pid(&file);
                            let path = session_path.to_path_buf();
                            return Err(match wait {
                                LockWait::NoWait => StoreError::InUse { path, pid },
                                LockWait::For(_) | LockWait::Forever => {
                                    StoreError::LockTimeout { path, pid, waited }
                                }
                            });
                        }
                        std::thread::sleep(POLL);
                    }
                    Err(TryLockError::Error(error)) => {
                        return Err(StoreError::io("cannot lock", session_path)(error));
                    }
                }
            }
            // While this process waited, a rewrite may have renamed a new file over the path:
            // the lock just taken is then on a file nobody will read again.
            if names_same_file(session_path, &file)? {
                return Ok(SessionLock { file, path: session_path.to_path_buf() });
            }
        }
    }

    /// A lock already taken on `file`, which is about to be renamed to `path`.
    pub(crate) fn adopt(file: File, path: &Path) -> SessionLock {
        SessionLock { file, path: path.to_path_buf() }
    }

    /// Gives up the lock object and keeps the locked file (the lock stays held while the
    /// file is open).
    pub(crate) fn into_file(self) -> File {
        self.file
    }

    /// The locked file, open for reading and appending.
    pub fn file(&self) -> &File {
        &self.file
    }

    /// The session's path.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

/// Whether `path` still names the file open as `file` (same device and inode).
pub(crate) fn names_same_file(path: &Path, file: &File) -> Result<bool, StoreError> {
    let open = file.metadata().map_err(StoreError::io("cannot read metadata of", path))?;
    let named = std::fs::metadata(path).map_err(StoreError::io("cannot open", path))?;
    Ok(open.dev() == named.dev() && open.ino() == named.ino())
}

/// The pid holding an exclusive `flock` on `file`, from `/proc/locks` (Linux); `None` when
/// it cannot be told.
fn holder_pid(file: &File) -> Option<u32> {
    let metadata = file.metadata().ok()?;
    let dev = metadata.dev();
    // glibc's encoding of a device number, as `major()` and `minor()` decode it.
    let major = ((dev >> 8) & 0xfff) | ((dev >> 32) & !0xfff);
    let minor = (dev & 0xff) | ((dev >> 12) & !0xff);
    let wanted = format!("{major:02x}:{minor:02x}:{}", metadata.ino());
    let locks = std::fs::read_to_string("/proc/locks").ok()?;
    locks.lines().find_map(|line| {
        // `1: FLOCK  ADVISORY  WRITE 1234 08:01:5678 0 EOF`; waiters are marked `->`.
        let fields: Vec<&str> = line.split_whitespace().collect();
        match fields.as_slice() {
            [_, "FLOCK", _, _, pid, device, ..] if *device == wanted => pid.parse().ok(),
            _ => None,
        }
    })
}
