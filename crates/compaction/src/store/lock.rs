//! The single-writer lock: an advisory exclusive `flock` on `<session>.jsonl.lock`.
//!
//! Invariant: while a [`SessionLock`] is alive no other process (and no other open of the
//! same session in this process) holds it. The lock lives on a separate file, not the session
//! itself, so an atomic rewrite that renames a new session file into place keeps it. The
//! kernel releases the lock when its holder exits, however it exits, so a dead writer never
//! blocks anyone; the pid written into the file only names the holder in error messages.

use std::fs::{File, OpenOptions, TryLockError};
use std::io::{Read, Seek, SeekFrom, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use super::error::StoreError;
use super::names::with_suffix;

/// How long to wait for another writer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum LockWait {
    /// Fail at once with [`StoreError::InUse`].
    #[default]
    NoWait,
    /// Wait up to this long, then fail with [`StoreError::LockTimeout`].
    For(Duration),
    /// Wait until the lock is free.
    Forever,
}

/// A held write lock; dropping it releases the lock.
#[derive(Debug)]
pub struct SessionLock {
    _file: File,
    path: PathBuf,
}

const POLL: Duration = Duration::from_millis(20);

impl SessionLock {
    /// Takes the write lock of the session at `session_path`.
    pub fn acquire(session_path: &Path, wait: LockWait) -> Result<SessionLock, StoreError> {
        let path = with_suffix(session_path, ".lock");
        let mut file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .mode(0o600)
            .open(&path)
            .map_err(StoreError::io("cannot open lock file", &path))?;
        let started = Instant::now();
        loop {
            match file.try_lock() {
                Ok(()) => break,
                Err(TryLockError::WouldBlock) => {
                    let waited = started.elapsed();
                    let give_up = match wait {
                        LockWait::NoWait => true,
                        LockWait::For(limit) => waited >= limit,
                        LockWait::Forever => false,
                    };
                    if give_up {
                        let pid = read_pid(&mut file);
                        return Err(match wait {
                            LockWait::NoWait => {
                                StoreError::InUse { path: session_path.to_path_buf(), pid }
                            }
                            LockWait::For(_) | LockWait::Forever => StoreError::LockTimeout {
                                path: session_path.to_path_buf(),
                                pid,
                                waited,
                            },
                        });
                    }
                    std::thread::sleep(POLL);
                }
                Err(TryLockError::Error(error)) => {
                    return Err(StoreError::io("cannot lock", &path)(error));
                }
            }
        }
        // Record the holder for other processes' error messages. Failing to do so does not
        // weaken the lock, so it is not an error.
        let _ = file
            .set_len(0)
            .and_then(|()| file.seek(SeekFrom::Start(0)))
            .and_then(|_| file.write_all(std::process::id().to_string().as_bytes()));
        Ok(SessionLock { _file: file, path })
    }

    /// The lock file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

fn read_pid(file: &mut File) -> Option<u32> {
    let mut text = String::new();
    file.seek(SeekFrom::Start(0)).ok()?;
    file.take(32).read_to_string(&mut text).ok()?;
    text.trim().parse().ok()
}
