//! The write path's file operations behind a small trait, with a fault injector.
//!
//! Invariant: every byte the store writes and every sync it relies on goes through
//! [`SyncWrite`], so a fault plan can fail any one of them (ENOSPC, EIO, a short write) and
//! the tests can prove each failure leaves only committed entries on disk. The fault plan
//! (`FaultPlan`, `FaultOp`, `FaultKind`, `FaultyWriter`) exists only with the crate's
//! `fault-injection` feature, a test aid that normal builds leave off.

use std::fs::File;
use std::io::{self, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;

use super::error::StoreError;

#[cfg(feature = "fault-injection")]
mod faults;
#[cfg(feature = "fault-injection")]
pub use faults::{FaultKind, FaultOp, FaultPlan, FaultyWriter};

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

/// Refuses anything but a regular file, naming what it is.
pub(crate) fn refuse_irregular(path: &Path, kind: std::fs::FileType) -> Result<(), StoreError> {
    match crate::disk::irregular(kind) {
        None => Ok(()),
        Some(what) => Err(StoreError::NotRegularFile { path: path.to_path_buf(), what }),
    }
}

/// Flushes a directory's entries (a rename or a new file in it) to stable storage.
pub fn sync_dir(dir: &Path) -> io::Result<()> {
    File::open(dir)?.sync_all()
}

/// Without the `fault-injection` feature there is no fault plan: this type has no values, so
/// the store's writes and syncs always go straight to the file.
#[cfg(not(feature = "fault-injection"))]
#[derive(Debug, Clone)]
pub(crate) enum FaultPlan {}

/// Opens the writer for a file: the file itself, or the file behind a fault plan.
pub(crate) fn writer(file: File, faults: Option<&FaultPlan>) -> Box<dyn SyncWrite> {
    match faults {
        #[cfg(feature = "fault-injection")]
        Some(plan) => Box::new(plan.wrap(file)),
        #[cfg(not(feature = "fault-injection"))]
        Some(plan) => match *plan {},
        None => Box::new(file),
    }
}

/// Syncs a directory, through the fault plan when there is one.
pub(crate) fn sync_dir_with(dir: &Path, faults: Option<&FaultPlan>) -> io::Result<()> {
    match faults {
        #[cfg(feature = "fault-injection")]
        Some(plan) => plan.sync_dir(dir),
        #[cfg(not(feature = "fault-injection"))]
        Some(plan) => match *plan {},
        None => sync_dir(dir),
    }
}
