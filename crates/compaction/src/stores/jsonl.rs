//! The pi JSONL file as a [`SessionBackend`]: one session per file, through
//! [`SessionStore`] unchanged.
//!
//! The lease is the store's write lock: holding it keeps the session open for writing, so
//! appends under the lease go through the holder's open store, and a holder that dies loses
//! it at once (the kernel drops the lock). The `ttl` is not needed for that and is ignored.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Duration;

use compaction_core::Session;

use super::{BackendError, PathRead, SessionBackend, SessionSummary};
use crate::store::{LockWait, OpenOptions, SessionStore, StoreError};

/// How long an append without the lease waits for another writer.
const APPEND_WAIT: Duration = Duration::from_secs(10);

/// One pi session file.
pub struct JsonlBackend {
    path: PathBuf,
    /// The holder of the lease and the store it keeps open for writing.
    lease: Mutex<Option<(String, SessionStore)>>,
}

impl std::fmt::Debug for JsonlBackend {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("JsonlBackend").field("path", &self.path).finish_non_exhaustive()
    }
}

impl JsonlBackend {
    /// The session file at `path` (opened on each call).
    pub fn new(path: PathBuf) -> JsonlBackend {
        JsonlBackend { path, lease: Mutex::new(None) }
    }

    /// The session file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    fn read(&self) -> Result<Session, BackendError> {
        let (store, _) = SessionStore::open(&self.path, OpenOptions::for_reading())?;
        Ok(store.into_session())
    }

    /// The session, after checking `session` names it (its header's id).
    fn read_named(&self, session: &str) -> Result<Session, BackendError> {
        let read = self.read()?;
        check_id(&self.path, &read, session)?;
        Ok(read)
    }

    fn leased(&self) -> std::sync::MutexGuard<'_, Option<(String, SessionStore)>> {
        self.lease.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

fn header_id(session: &Session) -> Option<&str> {
    session.header().and_then(|header| header.id.as_deref())
}

fn check_id(path: &Path, read: &Session, session: &str) -> Result<(), BackendError> {
    match header_id(read) {
        Some(id) if id == session => Ok(()),
        Some(_) | None => Err(BackendError::NotFound {
            store: path.display().to_string(),
            session: session.to_owned(),
        }),
    }
}

fn leaf_id(session: &Session) -> Option<&str> {
    session.leaf().map(|leaf| session.entries()[leaf].id.as_str())
}

/// Appends `lines` to an open store when its leaf is `planned`.
fn append_checked(
    store: &mut SessionStore,
    session: &str,
    planned: Option<&str>,
    lines: &[String],
) -> Result<(), BackendError> {
    if let Err(StoreError::Changed { .. }) = store.check_unchanged() {
        store.reload()?;
    }
    let actual = leaf_id(store.session());
    if actual != planned {
        return Err(BackendError::LeafMoved {
            store: store.path().display().to_string(),
            session: session.to_owned(),
            planned: planned.unwrap_or("(none)").to_owned(),
            actual: actual.unwrap_or("(none)").to_owned(),
        });
    }
    store.append_lines(lines)?;
    Ok(())
}

impl SessionBackend for JsonlBackend {
    fn describe(&self) -> String {
        self.path.display().to_string()
    }

    fn list(&self) -> Result<Vec<SessionSummary>, BackendError> {
        let (store, _) = SessionStore::open(&self.path, OpenOptions::for_reading())?;
        let session = store.session();
        let summary = SessionSummary {
            id: header_id(session).unwrap_or_default().to_owned(),
            bytes: store.file_length(),
            lines: (session.entries().len() + session.malformed().len() + 1) as u64,
            leaf: leaf_id(session).map(str::to_owned),
        };
        Ok(vec![summary])
    }

    fn read_session(&self, session: &str) -> Result<Session, BackendError> {
        self.read_named(session)
    }

    fn read_path(&self, session: &str, leaf: Option<&str>) -> Result<PathRead, BackendError> {
        let read = self.read_named(session)?;
        let leaf = read.resolve_leaf(leaf).map_err(|error| BackendError::Invalid {
            store: self.describe(),
            reason: error.to_string(),
        })?;
        Ok(PathRead::whole(read, leaf))
    }

    fn append_if_leaf(
        &self,
        session: &str,
        planned_leaf: Option<&str>,
        lines: &[String],
    ) -> Result<(), BackendError> {
        let mut lease = self.leased();
        if let Some((_, store)) = lease.as_mut() {
            check_id(&self.path, store.session(), session)?;
            return append_checked(store, session, planned_leaf, lines);
        }
        drop(lease);
        let options =
            OpenOptions { lock_wait: LockWait::For(APPEND_WAIT), ..OpenOptions::for_writing() };
        let (mut store, _) = SessionStore::open(&self.path, options)?;
        check_id(&self.path, store.session(), session)?;
        append_checked(&mut store, session, planned_leaf, lines)
    }

    fn export(&self, session: &str, out: &mut dyn Write) -> Result<u64, BackendError> {
        self.read_named(session)?;
        let file =
            std::fs::File::open(&self.path).map_err(StoreError::io("cannot open", &self.path))?;
        let copied = std::io::copy(&mut file.take(u64::MAX), out)
            .map_err(StoreError::io("cannot copy", &self.path))?;
        Ok(copied)
    }

    fn try_lease(&self, session: &str, holder: &str, _ttl: Duration) -> Result<bool, BackendError> {
        let mut lease = self.leased();
        if let Some((current, _)) = lease.as_ref() {
            return Ok(current == holder);
        }
        match SessionStore::open(&self.path, OpenOptions::for_writing()) {
            Ok((store, _)) => {
                check_id(&self.path, store.session(), session)?;
                *lease = Some((holder.to_owned(), store));
                Ok(true)
            }
            Err(StoreError::InUse { .. }) => Ok(false),
            Err(error) => Err(error.into()),
        }
    }

    fn release_lease(&self, _session: &str, holder: &str) -> Result<(), BackendError> {
        let mut lease = self.leased();
        if lease.as_ref().is_some_and(|(current, _)| current == holder) {
            *lease = None;
        }
        Ok(())
    }
}
