//! Reading a session file for the read-only commands, through the store's reader.
//!
//! The store streams the file in chunks into the core parser, which parses each chunk's lines
//! on all cores (memory stays close to the entries, not twice the file); a file opened for
//! reading is never modified.

use std::path::Path;

use compaction::store::{OpenOptions, SessionStore};
use compaction_core::Session;

use crate::commands::{CommandError, ErrorKind};

/// Reads and parses a session file.
pub fn read_session(path: &Path) -> anyhow::Result<Session> {
    let (store, _report) = SessionStore::open(path, OpenOptions::for_reading()).map_err(|e| {
        CommandError::with_kind(ErrorKind::of_store(&e), format!("{}: {e}", path.display()))
    })?;
    Ok(store.into_session())
}

/// Leaves a loaded session (or a plan built from it) to the operating system instead of
/// freeing it piece by piece.
///
/// The command is about to exit and the kernel reclaims the memory at once; freeing the
/// entries of a 100 000-entry session one by one takes about a tenth of a second.
pub fn release_at_exit<T>(value: T) {
    std::mem::forget(value);
}
