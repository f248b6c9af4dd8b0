//! The session store: the only code that writes session files.
//!
//! Invariants:
//! - An entry is one complete line ending in `\n`, written with one write call; an append
//!   returns only once the [`FsyncPolicy`] is met, and a failed append leaves the file
//!   holding exactly the entries committed before it (or marks the store poisoned when even
//!   undoing the write failed, so nothing more is written until a reopen recovers).
//! - Only regular files are opened (a FIFO or device is refused before it could block), and a
//!   file that is not a pi session (empty, or a first line that is no session header) is
//!   refused for reading and writing alike.
//! - Reading never modifies anything. Opening for writing takes the single-writer lock
//!   ([`lock`], on the session file itself, so no lock file is left beside it), recovers a
//!   torn last line by moving it verbatim to a sidecar file and truncating the file to its
//!   last complete line (committed lines are never touched), and migrates an older-format
//!   file on disk (atomically, keeping a backup) so every id an appended entry references is
//!   on disk.
//! - A file without a readable header, or with a format version newer than this crate's, is
//!   never written to; [`repair_copy`] writes a repaired copy beside a damaged one instead.
//! - Before every append the store checks, under the lock, that the file is still exactly
//!   what it read or wrote (length and last bytes); when another program wrote to it, the
//!   append is refused with [`StoreError::Changed`] and nothing is written
//!   ([`SessionStore::reload`] reads the new state).
//! - Files the store creates are mode 0600 and directories 0700; a rewrite keeps the
//!   original's mode and owner.
//!
//! ```no_run
//! use compaction::store::{NewEntry, OpenOptions, SessionStore};
//! let (mut store, report) = SessionStore::open("s.jsonl".as_ref(), OpenOptions::for_writing())?;
//! for line in report.messages() {
//!     eprintln!("{line}");
//! }
//! let mut fields = serde_json::Map::new();
//! fields.insert("customType".into(), "note".into());
//! let entry = store.append(NewEntry::new("custom", fields))?;
//! assert_eq!(store.session().leaf(), store.session().index_of(&entry.id));
//! # Ok::<(), compaction::store::StoreError>(())
//! ```

mod append;
mod copy;
pub mod error;
mod header;
pub mod io;
pub mod lock;
pub mod names;
pub mod read;
mod recover;
pub mod rewrite;
pub mod writers;

use std::path::{Path, PathBuf};

use compaction_core::parse::DEFAULT_MAX_LINE_BYTES;
use compaction_core::{ParseOptions, Session};
use serde_json::{Map, Value};

pub use copy::PendingCopy;
pub use error::{FileChange, StoreError};
pub use io::SyncWrite;
#[cfg(feature = "fault-injection")]
pub use io::{FaultKind, FaultOp, FaultPlan};
pub use lock::{LockWait, NO_WAIT_GRACE, SessionLock};
pub use names::{session_path, validate_name};
pub use rewrite::{
    MigrateReport, RepairReport, RewriteOptions, migrate, migrate_with, repair_copy,
    repair_copy_reattaching, repair_copy_with,
};
#[cfg(feature = "fault-injection")]
pub use rewrite::{RewriteStep, before_next_install};

/// When appended entries are flushed to stable storage.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum FsyncPolicy {
    /// After every entry: an acknowledged entry survives a crash of the machine.
    #[default]
    Always,
    /// After every `n` entries, on [`SessionStore::sync`] and when the store is dropped:
    /// up to `n - 1` acknowledged entries can be lost if the machine (not the process)
    /// crashes.
    Batch(usize),
    /// Never explicitly: the operating system writes back when it likes.
    Never,
}

/// How to open a session.
#[derive(Debug, Clone)]
pub struct OpenOptions {
    /// Take the write lock and recover a torn tail; without it the store only reads.
    pub write: bool,
    /// What to do when another writer holds the lock.
    pub lock_wait: LockWait,
    /// When appends are synced to disk.
    pub fsync: FsyncPolicy,
    /// Lines longer than this are errors (reported with their line number, never loaded);
    /// an entry longer than this is refused.
    pub max_line_bytes: usize,
    /// How long the file must be unchanged before an unfinished last line is taken for
    /// dead and moved aside ([`writers::TAIL_GRACE`]); another writer's open file refuses
    /// the open whatever the age.
    pub tail_grace: std::time::Duration,
    /// Fails chosen writes or syncs (a test aid of the `fault-injection` feature).
    #[cfg(feature = "fault-injection")]
    pub faults: Option<FaultPlan>,
}

impl OpenOptions {
    /// Read only: no lock, no recovery, nothing written.
    pub fn for_reading() -> Self {
        OpenOptions {
            write: false,
            lock_wait: LockWait::NoWait,
            fsync: FsyncPolicy::Always,
            max_line_bytes: DEFAULT_MAX_LINE_BYTES,
            tail_grace: writers::TAIL_GRACE,
            #[cfg(feature = "fault-injection")]
            faults: None,
        }
    }

    /// Writing with the lock taken at once (or failing), fsync after every entry.
    pub fn for_writing() -> Self {
        OpenOptions { write: true, ..OpenOptions::for_reading() }
    }

    fn parse_options(&self) -> ParseOptions {
        ParseOptions { max_line_bytes: self.max_line_bytes }
    }

    /// The fault plan the store's writes go through (never one without the
    /// `fault-injection` feature).
    pub(crate) fn fault_plan(&self) -> Option<&io::FaultPlan> {
        #[cfg(feature = "fault-injection")]
        return self.faults.as_ref();
        #[cfg(not(feature = "fault-injection"))]
        None
    }

    /// Options for a rewrite this store makes (migration on open, a repaired copy): the same
    /// line limit and fault plan.
    pub(crate) fn rewrite_options(&self) -> RewriteOptions {
        RewriteOptions {
            max_line_bytes: self.max_line_bytes,
            #[cfg(feature = "fault-injection")]
            faults: self.faults.clone(),
            #[cfg(feature = "fault-injection")]
            stop_after: None,
        }
    }
}

impl Default for OpenOptions {
    fn default() -> Self {
        OpenOptions::for_reading()
    }
}

/// Where a new entry attaches in the tree.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum Parent {
    /// The current leaf (the last entry in file order, or the last one appended).
    #[default]
    Leaf,
    /// No parent: a new root.
    Root,
    /// The entry with this id, which must exist.
    Id(String),
}

/// An entry to append: its type, parent and the fields besides the envelope.
#[derive(Debug, Clone, PartialEq)]
pub struct NewEntry {
    /// The entry's `type`.
    pub entry_type: String,
    /// Where the entry attaches.
    pub parent: Parent,
    /// Fields after the envelope; `type`, `id`, `parentId` and `timestamp` are reserved.
    pub fields: Map<String, Value>,
}

const RESERVED_FIELDS: [&str; 4] = ["type", "id", "parentId", "timestamp"];

impl NewEntry {
    /// An entry of `entry_type` attached to the current leaf.
    pub fn new(entry_type: impl Into<String>, fields: Map<String, Value>) -> Self {
        NewEntry { entry_type: entry_type.into(), parent: Parent::Leaf, fields }
    }

    /// The same entry attached elsewhere.
    pub fn with_parent(mut self, parent: Parent) -> Self {
        self.parent = parent;
        self
    }

    /// Takes `type` and an optional `parentId` (string or null) out of a JSON object; the
    /// rest become the fields. `None` when `type` is missing or not a string.
    pub fn from_map(mut map: Map<String, Value>) -> Option<Self> {
        let entry_type = match map.remove("type") {
            Some(Value::String(entry_type)) => entry_type,
            Some(_) | None => return None,
        };
        let parent = match map.remove("parentId") {
            None => Parent::Leaf,
            Some(Value::Null) => Parent::Root,
            Some(Value::String(id)) => Parent::Id(id),
            Some(_) => return None,
        };
        Some(NewEntry { entry_type, parent, fields: map })
    }
}

/// A torn last line that was moved out of the session on open.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TornTail {
    /// Its line number.
    pub line: usize,
    /// Where it started; the file was truncated to this length.
    pub offset: u64,
    /// Its length in bytes.
    pub length: u64,
    /// The file now holding its bytes verbatim: a sidecar beside the session, or, for a
    /// copy ([`SessionStore::open_copy`]), the source the bytes were not copied from.
    pub sidecar: PathBuf,
}

/// What opening a session found and did.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct OpenReport {
    /// The torn last line moved to a sidecar (write mode only).
    pub torn_tail: Option<TornTail>,
    /// Lines that are not usable entries and stay in place (1-based line numbers).
    pub malformed_lines: Vec<usize>,
    /// The last line is complete but has no `\n`; the next append adds it first.
    pub missing_final_newline: bool,
    /// The format version the file declares.
    pub source_version: u32,
    /// The older-format file was migrated on disk before writing (write mode only).
    pub migrated: Option<MigrateReport>,
    /// The header declares a format version newer than this crate knows (read mode; write
    /// mode refuses such a file).
    pub newer_version: bool,
    /// The session was opened as a copy of this file ([`SessionStore::open_copy`]).
    pub copied_from: Option<PathBuf>,
    /// Temporary files of this tool that a killed process left beside the output, removed
    /// ([`SessionStore::open_copy`]).
    pub removed_temps: Vec<PathBuf>,
}

impl OpenReport {
    /// One sentence per thing the user should know.
    pub fn messages(&self) -> Vec<String> {
        let mut messages = Vec::new();
        for temp in &self.removed_temps {
            messages.push(format!(
                "removed {}, a temporary file left by an interrupted run (no process held it)",
                temp.display()
            ));
        }
        if let (Some(torn), Some(source)) = (&self.torn_tail, &self.copied_from) {
            messages.push(format!(
                "line {} of {} is an interrupted write ({} bytes without a newline); it was \
                 not copied ({} keeps it)",
                torn.line,
                source.display(),
                torn.length,
                source.display()
            ));
        } else if let Some(torn) = &self.torn_tail {
            messages.push(format!(
                "line {} was an interrupted write ({} bytes without a newline); it was moved \
                 to {} and the session was cut back to its last complete line",
                torn.line,
                torn.length,
                torn.sidecar.display()
            ));
        }
        if !self.malformed_lines.is_empty() {
            let lines: Vec<String> = self.malformed_lines.iter().map(ToString::to_string).collect();
            messages.push(format!(
                "{} unreadable line(s) kept in place and skipped: {}",
                lines.len(),
                lines.join(", ")
            ));
        }
        if let Some(migrated) = &self.migrated {
            if let Some(backup) = &migrated.backup {
                messages.push(format!(
                    "version {} session migrated on disk to version {} before writing; the \
                     original is kept as {}",
                    migrated.from_version,
                    compaction_core::entry::CURRENT_VERSION,
                    backup.display()
                ));
            }
        } else if self.newer_version {
            messages.push(format!(
                "the session declares format version {}, newer than version {} this tool \
                 knows; it is read as version {} and nothing will be written to it",
                self.source_version,
                compaction_core::entry::CURRENT_VERSION,
                compaction_core::entry::CURRENT_VERSION
            ));
        } else if self.source_version < compaction_core::entry::CURRENT_VERSION {
            messages.push(format!(
                "version {} session read as version {}; `compaction migrate` rewrites the file",
                self.source_version,
                compaction_core::entry::CURRENT_VERSION
            ));
        }
        messages
    }
}

/// An open session file.
pub struct SessionStore {
    path: PathBuf,
    options: OpenOptions,
    session: Session,
    writer: Option<Box<dyn SyncWrite>>,
    lock: Option<SessionLock>,
    /// File length in bytes.
    length: u64,
    /// Number of lines in the file.
    lines: usize,
    /// The file ends with a complete line that lacks its `\n`.
    needs_newline: bool,
    /// The file's last bytes (up to [`append::TAIL_BYTES`]) as the store last read or wrote
    /// them: another writer is noticed by a change of length or of these bytes.
    tail: Vec<u8>,
    /// Entries written since the last sync (batch policy).
    unsynced: usize,
    poisoned: bool,
    /// A copy that becomes its output only once published ([`SessionStore::publish`]).
    copy: Option<PendingCopy>,
}

impl std::fmt::Debug for SessionStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SessionStore")
            .field("path", &self.path)
            .field("write", &self.writer.is_some())
            .field("length", &self.length)
            .field("lines", &self.lines)
            .field("poisoned", &self.poisoned)
            .finish_non_exhaustive()
    }
}

/// What [`SessionStore::open_locked`] opens, besides the path and options.
pub(crate) struct Opening<'a> {
    pub(crate) lock: SessionLock,
    pub(crate) rewrite: &'a RewriteOptions,
    /// Set for a copy: a torn tail is cut from the copy only (the source keeps it).
    pub(crate) copied_from: Option<PathBuf>,
}

impl SessionStore {
    /// Opens a session file. For writing, takes the lock, refuses a file without a readable
    /// header or with a newer format version, recovers a torn tail and migrates an older
    /// format on disk (see [`OpenReport`]). Both modes refuse a file that is not a regular
    /// file or not a pi session.
    pub fn open(
        path: &Path,
        options: OpenOptions,
    ) -> Result<(SessionStore, OpenReport), StoreError> {
        let rewrite = options.rewrite_options();
        Self::open_with(path, options, &rewrite)
    }

    pub(crate) fn open_with(
        path: &Path,
        options: OpenOptions,
        rewrite: &RewriteOptions,
    ) -> Result<(SessionStore, OpenReport), StoreError> {
        if options.write {
            let lock = SessionLock::acquire(path, options.lock_wait)?;
            return Self::open_locked(path, options, Opening { lock, rewrite, copied_from: None });
        }
        let file = io::open_regular(path, false)?;
        let (session, shape) =
            read::read_session(read::ReadAt::new(&file), options.parse_options())
                .map_err(StoreError::io("cannot read", path))?;
        header::refuse_non_session(&session, path)?;
        let store = SessionStore::new(path, options, session, shape, None);
        let report = store.report(OpenReport::default());
        Ok((store, report))
    }

    fn new(
        path: &Path,
        options: OpenOptions,
        session: Session,
        shape: read::FileShape,
        lock: Option<SessionLock>,
    ) -> SessionStore {
        SessionStore {
            path: path.to_path_buf(),
            session,
            writer: None,
            lock,
            length: shape.length,
            lines: shape.lines,
            needs_newline: !shape.ends_with_newline,
            tail: Vec::new(),
            unsynced: 0,
            poisoned: false,
            options,
            copy: None,
        }
    }

    /// Fills in what every report says about the open file.
    fn report(&self, mut report: OpenReport) -> OpenReport {
        report.source_version = self.session.source_version();
        report.newer_version = header::is_newer_version(&self.session);
        report.malformed_lines = self
            .session
            .malformed()
            .iter()
            .filter(|malformed| malformed.offset < self.length)
            .map(|malformed| malformed.line)
            .collect();
        report.missing_final_newline = self.needs_newline;
        report
    }

    /// Opens for writing with the lock already held on the file `path` names.
    pub(crate) fn open_locked(
        path: &Path,
        options: OpenOptions,
        opening: Opening<'_>,
    ) -> Result<(SessionStore, OpenReport), StoreError> {
        let Opening { lock, rewrite, copied_from } = opening;
        let file = lock.file().try_clone().map_err(StoreError::io("cannot open", path))?;
        let (session, shape) =
            read::read_session(read::ReadAt::new(&file), options.parse_options())
                .map_err(StoreError::io("cannot read", path))?;
        header::refuse_unwritable(&session, path)?;
        let mut store = SessionStore::new(path, options, session, shape, Some(lock));
        store.writer = Some(io::writer(file, store.options.fault_plan()));
        let mut report = OpenReport { copied_from: copied_from.clone(), ..OpenReport::default() };
        if let Some((line, offset)) = store.torn_line() {
            report.torn_tail = Some(match &copied_from {
                Some(source) => store.cut_torn_tail(line, offset, source)?,
                None => {
                    // Under the lock, on the bytes just read: a half line another writer
                    // left after any earlier check is judged here too, never cut at once.
                    writers::ensure_dead_tail(
                        store.lock_file()?,
                        path,
                        store.length,
                        store.options.tail_grace,
                    )?;
                    store.recover_torn_tail(line, offset)?
                }
            });
        }
        if store.session.is_migrated() {
            let keep_backup = copied_from.is_none();
            let (migrated, lock) = rewrite::migrate_locked(&store, rewrite, keep_backup)?;
            let options = store.options.clone();
            drop(store);
            let opening = Opening { lock, rewrite, copied_from: copied_from.clone() };
            let (store, reopened) = Self::open_locked(path, options, opening)?;
            let report = OpenReport {
                source_version: migrated.from_version,
                migrated: Some(migrated),
                torn_tail: report.torn_tail.or(reopened.torn_tail.clone()),
                copied_from: report.copied_from,
                ..reopened
            };
            return Ok((store, report));
        }
        let store = store.with_tail()?;
        let report = store.report(report);
        Ok((store, report))
    }

    /// Creates a new version 3 session file with a fresh header (mode 0600, missing parent
    /// directories 0700) and opens it for writing. Fails if the file exists.
    pub fn create(
        path: &Path,
        cwd: &str,
        options: OpenOptions,
    ) -> Result<(SessionStore, OpenReport), StoreError> {
        names::validate_new_path(path)?;
        // Folders made here are removed again when the file cannot be created.
        let made = crate::disk::create_parent_dirs(path).map_err(|error| match error {
            crate::disk::DiskError::Io { path, source, .. } => {
                StoreError::Io { action: "cannot create directory", path, source }
            }
            other @ (crate::disk::DiskError::Irregular { .. }
            | crate::disk::DiskError::TooLarge { .. }
            | crate::disk::DiskError::OutputIsInput { .. }
            | crate::disk::DiskError::Exists { .. }) => StoreError::Io {
                action: "cannot create directory",
                path: names::parent_dir(path),
                source: std::io::Error::other(other.to_string()),
            },
        })?;
        let mut header = Map::new();
        header.insert("type".into(), "session".into());
        header.insert("version".into(), compaction_core::entry::CURRENT_VERSION.into());
        header.insert("id".into(), names::random_uuid().into());
        header.insert("timestamp".into(), names::timestamp_now().into());
        header.insert("cwd".into(), cwd.into());
        let mut line = Value::Object(header).to_string();
        line.push('\n');
        let rewrite = options.rewrite_options();
        rewrite::write_new_file(path, &rewrite, |out| out.push(line.as_bytes()))?;
        made.keep();
        SessionStore::open(path, OpenOptions { write: true, ..options })
    }

    /// The parsed session, including every entry appended through this store.
    pub fn session(&self) -> &Session {
        &self.session
    }

    /// Gives up the store (and its lock) and keeps the session.
    pub fn into_session(self) -> Session {
        let mut store = self;
        std::mem::replace(&mut store.session, compaction_core::parse_session(b""))
    }

    /// The file this store reads and writes (for a copy, its temporary file).
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The file's length in bytes as the store last wrote or read it.
    pub fn file_length(&self) -> u64 {
        self.length
    }

    /// Whether this store holds the write lock.
    pub fn is_writable(&self) -> bool {
        self.writer.is_some()
    }

    pub(crate) fn lock_file(&self) -> Result<&std::fs::File, StoreError> {
        match &self.lock {
            Some(lock) => Ok(lock.file()),
            None => Err(StoreError::ReadOnly { path: self.path.clone() }),
        }
    }
}

impl Drop for SessionStore {
    fn drop(&mut self) {
        if self.unsynced > 0
            && let Some(writer) = self.writer.as_mut()
        {
            let _ = writer.sync_data();
        }
        if let Some(copy) = self.copy.take() {
            copy.discard();
        }
    }
}
