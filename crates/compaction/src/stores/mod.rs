//! Sessions beyond one file: one interface over the pi JSONL file, a SQLite database and a
//! Postgres database.
//!
//! A [`SessionBackend`] reads a session (whole, or only the path to a leaf), appends entry
//! lines atomically on the condition that the leaf is still the one the caller planned
//! against, holds compaction leases, lists its sessions and exports one back as a pi file.
//! A [`Locator`] names a session: a path is a pi JSONL file ([`jsonl::JsonlBackend`], the
//! [`crate::store::SessionStore`] unchanged), `sqlite:PATH#SESSION_ID` one session in a
//! SQLite database ([`sqlite::SqliteBackend`]), `postgres://USER@HOST:PORT/DB#SESSION_ID` one
//! session in a Postgres database ([`postgres::PostgresBackend`]).
//!
//! Invariants shared by every backend (checked by the conformance suite in
//! `tests/stores_conformance.rs`):
//! - Export gives back the bytes that were imported, followed by the lines appended since,
//!   byte for byte.
//! - An append whose planned leaf is no longer the session's leaf writes nothing and returns
//!   [`BackendError::LeafMoved`].
//! - While one holder has a session's lease, no other holder gets it until it is released or
//!   has expired.

mod compact;
pub mod folder;
pub mod jsonl;
mod locator;
mod path;
pub mod postgres;
pub mod sqlite;
mod tree;
pub mod worker;

use std::io::Write;
use std::time::Duration;

use compaction_core::Session;

pub use compact::{
    StoredCompactError, compact_stored, compact_stored_in, reclaim_scratch, reclaim_scratch_in,
};
pub use locator::{Locator, LocatorError};
pub use path::PathRead;

use crate::store::StoreError;

/// One session of a store, as `compaction store list` shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionSummary {
    /// The session's id (the header's `id`).
    pub id: String,
    /// The session's size in bytes, as its pi file would be.
    pub bytes: u64,
    /// Number of lines (header included).
    pub lines: u64,
    /// The current leaf's entry id.
    pub leaf: Option<String>,
}

/// Why a backend could not do what was asked.
#[derive(Debug, thiserror::Error)]
pub enum BackendError {
    /// The pi file store refused or failed.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// The database failed.
    #[error("{store}: {source}")]
    Database {
        /// The store, as its locator names it (never with credentials).
        store: String,
        /// What the database said.
        #[source]
        source: Box<dyn std::error::Error + Send + Sync>,
    },
    /// No session with this id.
    #[error("{store}: no session `{session}`")]
    NotFound {
        /// The store.
        store: String,
        /// The id asked for.
        session: String,
    },
    /// The session already exists (import).
    #[error("{store}: session `{session}` already exists")]
    Exists {
        /// The store.
        store: String,
        /// The session's id.
        session: String,
    },
    /// The session's leaf moved since the caller planned: nothing was written.
    #[error(
        "{store}: session `{session}` moved on (leaf {actual}, planned against {planned}); \
         nothing was written"
    )]
    LeafMoved {
        /// The store.
        store: String,
        /// The session.
        session: String,
        /// The leaf the caller planned against.
        planned: String,
        /// The leaf now.
        actual: String,
    },
    /// The database's schema is not the one this version knows.
    #[error(
        "{store}: schema version {found}, this tool knows version {known}{hint}",
        hint = if *found < *known { "; run `compaction store migrate` to upgrade it" } else { "" }
    )]
    Schema {
        /// The store.
        store: String,
        /// The version the database declares.
        found: i64,
        /// The version this tool writes.
        known: i64,
    },
    /// Reading or writing a file or stream failed.
    #[error("{what}: {source}")]
    Io {
        /// What was being done, naming the file.
        what: String,
        /// The error.
        #[source]
        source: std::io::Error,
    },
    /// An entry line or session file that cannot be stored.
    #[error("{store}: {reason}")]
    Invalid {
        /// The store or file.
        store: String,
        /// What is wrong.
        reason: String,
    },
}

impl BackendError {
    pub(crate) fn database(
        store: &str,
        source: impl std::error::Error + Send + Sync + 'static,
    ) -> BackendError {
        BackendError::Database { store: store.to_owned(), source: Box::new(source) }
    }
}

/// The operations the engine needs from a session store.
pub trait SessionBackend: Send {
    /// The store as its locator names it, for messages (never with credentials).
    fn describe(&self) -> String;

    /// Every session in the store.
    fn list(&self) -> Result<Vec<SessionSummary>, BackendError>;

    /// The whole session.
    fn read_session(&self, session: &str) -> Result<Session, BackendError>;

    /// What the context at `leaf` (the current leaf when `None`) needs: the entries of the
    /// path that [`compaction_core::context::build_context_for_path`] reads. A backend may
    /// leave out entries of the path the projection never looks at (see [`PathRead`]).
    fn read_path(&self, session: &str, leaf: Option<&str>) -> Result<PathRead, BackendError>;

    /// Appends complete entry lines (each with its `id` and `parentId`) as one atomic write,
    /// only when the session's leaf is still `planned_leaf` (`None`: no entry yet); otherwise
    /// writes nothing and returns [`BackendError::LeafMoved`].
    fn append_if_leaf(
        &self,
        session: &str,
        planned_leaf: Option<&str>,
        lines: &[String],
    ) -> Result<(), BackendError>;

    /// Writes the session as a pi file: the imported bytes and every line appended since.
    fn export(&self, session: &str, out: &mut dyn Write) -> Result<u64, BackendError>;

    /// Takes the compaction lease of `session` for `holder` for `ttl`, or renews it when
    /// `holder` has it; `false` when another holder has an unexpired lease.
    fn try_lease(&self, session: &str, holder: &str, ttl: Duration) -> Result<bool, BackendError>;

    /// Gives up `holder`'s lease of `session` (nothing when it holds none).
    fn release_lease(&self, session: &str, holder: &str) -> Result<(), BackendError>;
}

/// Opens the store a locator names.
pub fn open(locator: &Locator) -> Result<Box<dyn SessionBackend>, BackendError> {
    match locator {
        Locator::File(path) if path.is_dir() => {
            Ok(Box::new(folder::FolderBackend::new(path.clone())))
        }
        Locator::File(path) => Ok(Box::new(jsonl::JsonlBackend::new(path.clone()))),
        Locator::Sqlite { path, .. } => Ok(Box::new(sqlite::SqliteBackend::open(path)?)),
        Locator::Postgres { url, .. } => Ok(Box::new(postgres::PostgresBackend::open(url)?)),
    }
}

/// The id a locator names, or the only session of a one-file store.
pub fn session_id(locator: &Locator, backend: &dyn SessionBackend) -> Result<String, BackendError> {
    if let Some(id) = locator.session() {
        return Ok(id.to_owned());
    }
    let sessions = backend.list()?;
    match sessions.as_slice() {
        [only] => Ok(only.id.clone()),
        [] | [_, _, ..] => Err(BackendError::Invalid {
            store: backend.describe(),
            reason: format!(
                "{} sessions; name one as `{}#SESSION_ID` (`compaction store list` shows them)",
                sessions.len(),
                locator
            ),
        }),
    }
}

/// The largest session file `store import` reads (a session is imported whole).
pub const MAX_IMPORT_BYTES: u64 = 1 << 30;

/// A writer into memory that refuses more than `left` bytes: a session read whole from a
/// database is never larger than an import may make it ([`MAX_IMPORT_BYTES`]), whatever the
/// database's rows say.
pub(crate) struct Bounded<'a> {
    pub(crate) out: &'a mut Vec<u8>,
    pub(crate) left: u64,
}

impl std::io::Write for Bounded<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if buf.len() as u64 > self.left {
            return Err(std::io::Error::from(std::io::ErrorKind::FileTooLarge));
        }
        self.left -= buf.len() as u64;
        self.out.extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// The most a session read whole reserves before reading (a row's own byte count is the
/// database's word only).
pub(crate) const INITIAL_CAPACITY: u64 = 64 << 20;

/// Reads a session whole through `write` into memory, bounded by [`MAX_IMPORT_BYTES`];
/// `claimed` (the row's byte count) sizes the first allocation, up to [`INITIAL_CAPACITY`].
pub(crate) fn read_bounded(
    store: &str,
    claimed: i64,
    write: impl FnOnce(&mut dyn std::io::Write) -> Result<u64, BackendError>,
) -> Result<Vec<u8>, BackendError> {
    let capacity = u64::try_from(claimed).unwrap_or(0).min(INITIAL_CAPACITY);
    let mut bytes = Vec::with_capacity(usize::try_from(capacity).unwrap_or(0));
    let mut bounded = Bounded { out: &mut bytes, left: MAX_IMPORT_BYTES };
    write(&mut bounded).map_err(|error| {
        if let BackendError::Io { source, .. } = &error
            && source.kind() == std::io::ErrorKind::FileTooLarge
        {
            return BackendError::Invalid {
                store: store.to_owned(),
                reason: format!(
                    "a session of more than {} MiB is stored; refused without reading the rest",
                    MAX_IMPORT_BYTES >> 20
                ),
            };
        }
        error
    })?;
    Ok(bytes)
}

/// Names the session in a database error met while reading it (a row of someone else's
/// making is then found by its store, session and line).
pub(crate) fn within(session: &str) -> impl Fn(BackendError) -> BackendError + '_ {
    move |error| {
        if let BackendError::Database { store, source } = error {
            let store = if store.contains('#') { store } else { format!("{store}#{session}") };
            return BackendError::Database { store, source };
        }
        error
    }
}

/// The bytes of a pi session file to import: a regular file of at most [`MAX_IMPORT_BYTES`].
pub(crate) fn read_import_file(path: &std::path::Path) -> Result<Vec<u8>, BackendError> {
    use std::io::Read;
    let file = crate::store::io::open_regular(path, false)?;
    let too_large = || BackendError::Invalid {
        store: path.display().to_string(),
        reason: format!(
            "larger than {} MiB; a session is imported whole, so this one is refused",
            MAX_IMPORT_BYTES >> 20
        ),
    };
    if file.metadata().is_ok_and(|metadata| metadata.len() > MAX_IMPORT_BYTES) {
        return Err(too_large());
    }
    let mut bytes = Vec::new();
    file.take(MAX_IMPORT_BYTES + 1).read_to_end(&mut bytes).map_err(|source| BackendError::Io {
        what: format!("cannot read {}", path.display()),
        source,
    })?;
    if bytes.len() as u64 > MAX_IMPORT_BYTES {
        return Err(too_large());
    }
    Ok(bytes)
}
