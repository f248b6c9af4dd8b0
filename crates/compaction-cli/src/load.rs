//! Reading a session file for the read-only commands, through the store's reader.
//!
//! The store streams the file in chunks into the core parser, which parses each chunk's lines
//! on all cores (memory stays close to the entries, not twice the file); a file opened for
//! reading is never modified. A file that is not a pi session (empty, or a first line that is
//! no session header) is an error (exit 2) for every command; so is a damaged header for the
//! commands that need one (all but `check`). A format version newer than this tool's is read
//! with a warning.

use std::path::Path;

use compaction::store::{OpenOptions, SessionStore};
use compaction_core::Session;

use crate::commands::{CommandError, ErrorKind};

/// Reads and parses a session file that has a readable header.
pub fn read_session(path: &Path) -> anyhow::Result<Session> {
    let session = read_any_session(path)?;
    if session.header().is_none() {
        let detail = session
            .diagnostics()
            .iter()
            .find(|d| d.line <= 1 && d.severity() == compaction_core::Severity::Error)
            .map_or_else(|| "no session header".to_owned(), |d| d.message.clone());
        return Err(CommandError::with_kind(
            ErrorKind::Input,
            format!(
                "{}: the session header (line 1) is unreadable: {detail}; run `compaction check \
             --repair {}` to write a repaired copy",
                path.display(),
                path.display()
            ),
        ));
    }
    Ok(session)
}

/// Reads and parses a session file, damaged header included (for `check`); a database
/// locator (`sqlite:DB#ID`, `postgres://…#ID`) reads that session from the database.
pub fn read_any_session(path: &Path) -> anyhow::Result<Session> {
    if let Some((backend, id)) = crate::commands::store::database_session(path)? {
        return backend.read_session(&id).map_err(|e| crate::commands::store::backend_error(&e));
    }
    // The store's errors name the file already.
    let (store, report) = SessionStore::open(path, OpenOptions::for_reading())
        .map_err(|e| CommandError::store(&e))?;
    if report.newer_version {
        for message in report.messages().iter().filter(|m| m.contains("newer than")) {
            crate::output::eprint_shown(&format!("warning: {}: {message}", path.display()));
        }
    }
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
