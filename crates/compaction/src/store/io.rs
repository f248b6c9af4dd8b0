//! The write path's file operations behind a small trait, with a fault injector.
//!
//! Invariant: every byte the store writes and every sync it relies on goes through
//! [`SyncWrite`], so a [`FaultPlan`] can fail any one of them (ENOSPC, EIO, a short write)
//! and the tests can prove each failure leaves only committed entries on disk.

use std::fs::File;
use std::io::{self, Write};
use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
use std::path::Path;
use std::sync::{Arc, Mutex};

use super::error::StoreError;

/// The file operations the store's write path needs.
pub trait SyncWrite: Send {
    /// Writes all of `bytes` at the end of the file with one `write` call where the
    /// operating system allows it (a short write is continued, then reported if it fails).
    fn write_all(&mut self, bytes: &[u8]) -> io::Result<()>;
    /// Flushes the file's data to stable storage (`fdatasync`).
    fn sync_data(&mut self) -> io::Result<()>;
    /// Cuts the file to `length` bytes.
    fn set_len(&mut self, length: u64) -> io::Result<()>;
}

impl SyncWrite for File {
    fn write_all(&mut self, bytes: &[u8]) -> io::Result<()> {
        Write::write_all(self, bytes)
    }

    fn sync_data(&mut self) -> io::Result<()> {
        File::sync_data(self)
    }

    fn set_len(&mut self, length: u64) -> io::Result<()> {
        File::set_len(self, length)
    }
}

/// Opens an existing session file, refusing anything but a regular file (a FIFO, socket,
/// device or directory) before it could block: the type is checked before opening, the file
/// is opened without blocking, and the type is checked again on the open file. With `write`,
/// the file is open for reading and appending.
pub(crate) fn open_regular(path: &Path, write: bool) -> Result<File, StoreError> {
    let metadata = std::fs::metadata(path).map_err(StoreError::io("cannot open", path))?;
    refuse_irregular(path, metadata.file_type())?;
    let file = std::fs::OpenOptions::new()
        .read(true)
        .append(write)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)
        .map_err(StoreError::io("cannot open", path))?;
    let metadata = file.metadata().map_err(StoreError::io("cannot read metadata of", path))?;
    refuse_irregular(path, metadata.file_type())?;
    Ok(file)
}

fn refuse_irregular(path: &Path, kind: std::fs::FileType) -> Result<(), StoreError> {
    let what = if kind.is_file() {
        return Ok(());
    } else if kind.is_dir() {
        "a directory"
    } else if kind.is_fifo() {
        "a FIFO (named pipe)"
    } else if kind.is_socket() {
        "a socket"
    } else if kind.is_char_device() || kind.is_block_device() {
        "a device"
    } else {
        "not a regular file"
    };
    Err(StoreError::NotRegularFile { path: path.to_path_buf(), what })
}

/// Flushes a directory's entries (a rename or a new file in it) to stable storage.
pub fn sync_dir(dir: &Path) -> io::Result<()> {
    File::open(dir)?.sync_all()
}

/// Which operation a fault hits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FaultOp {
    /// A data write (`write_all`).
    Write,
    /// A file or directory sync.
    Sync,
}

/// How the failing operation fails.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FaultKind {
    /// `ENOSPC`: no space left on the device.
    NoSpace,
    /// `EIO`: an input/output error.
    Io,
    /// Half the bytes are written, then `ENOSPC` (only meaningful for writes).
    ShortWrite,
}

#[derive(Debug, Default)]
struct FaultState {
    writes: u64,
    syncs: u64,
    fired: bool,
}

/// Fails the `nth` (1-based) operation of one kind across every file the store writes
/// through it, once. Clones share the counters.
#[derive(Debug, Clone)]
pub struct FaultPlan {
    op: FaultOp,
    nth: u64,
    kind: FaultKind,
    state: Arc<Mutex<FaultState>>,
}

impl FaultPlan {
    /// Fail the `nth` operation `op` with `kind`.
    pub fn new(op: FaultOp, nth: u64, kind: FaultKind) -> Self {
        FaultPlan { op, nth, kind, state: Arc::default() }
    }

    /// Whether the fault has happened.
    pub fn fired(&self) -> bool {
        self.state.lock().map(|state| state.fired).unwrap_or(true)
    }

    /// How many writes and syncs went through the plan so far.
    pub fn counts(&self) -> (u64, u64) {
        self.state.lock().map(|state| (state.writes, state.syncs)).unwrap_or((0, 0))
    }

    /// Counts one operation and says whether it must fail.
    fn hit(&self, op: FaultOp) -> bool {
        let Ok(mut state) = self.state.lock() else {
            return true;
        };
        let count = match op {
            FaultOp::Write => {
                state.writes += 1;
                state.writes
            }
            FaultOp::Sync => {
                state.syncs += 1;
                state.syncs
            }
        };
        if op == self.op && count == self.nth && !state.fired {
            state.fired = true;
            true
        } else {
            false
        }
    }

    fn error(&self) -> io::Error {
        match self.kind {
            FaultKind::NoSpace | FaultKind::ShortWrite => {
                io::Error::from_raw_os_error(libc::ENOSPC)
            }
            FaultKind::Io => io::Error::from_raw_os_error(libc::EIO),
        }
    }

    /// Wraps a file so its operations go through this plan.
    pub fn wrap<W: SyncWrite>(&self, inner: W) -> FaultyWriter<W> {
        FaultyWriter { inner, plan: self.clone() }
    }

    /// A directory sync through this plan.
    pub fn sync_dir(&self, dir: &Path) -> io::Result<()> {
        if self.hit(FaultOp::Sync) {
            return Err(self.error());
        }
        sync_dir(dir)
    }
}

/// A writer whose operations can fail on purpose (see [`FaultPlan`]).
#[derive(Debug)]
pub struct FaultyWriter<W> {
    inner: W,
    plan: FaultPlan,
}

impl<W: SyncWrite> SyncWrite for FaultyWriter<W> {
    fn write_all(&mut self, bytes: &[u8]) -> io::Result<()> {
        if self.plan.hit(FaultOp::Write) {
            if self.plan.kind == FaultKind::ShortWrite {
                self.inner.write_all(&bytes[..bytes.len() / 2])?;
            }
            return Err(self.plan.error());
        }
        self.inner.write_all(bytes)
    }

    fn sync_data(&mut self) -> io::Result<()> {
        if self.plan.hit(FaultOp::Sync) {
            return Err(self.plan.error());
        }
        self.inner.sync_data()
    }

    fn set_len(&mut self, length: u64) -> io::Result<()> {
        self.inner.set_len(length)
    }
}

/// Opens the writer for a file: the file itself, or the file behind a fault plan.
pub(crate) fn writer(file: File, faults: Option<&FaultPlan>) -> Box<dyn SyncWrite> {
    match faults {
        Some(plan) => Box::new(plan.wrap(file)),
        None => Box::new(file),
    }
}

/// Syncs a directory, through the fault plan when there is one.
pub(crate) fn sync_dir_with(dir: &Path, faults: Option<&FaultPlan>) -> io::Result<()> {
    match faults {
        Some(plan) => plan.sync_dir(dir),
        None => sync_dir(dir),
    }
}
