//! The session store: the only code that writes session files.
//!
//! Invariants:
//! - An entry is one complete line ending in `\n`, written with one write call; an append
//!   returns only once the [`FsyncPolicy`] is met, and a failed append leaves the file
//!   holding exactly the entries committed before it (or marks the store poisoned when even
//!   undoing the write failed, so nothing more is written until a reopen recovers).
//! - Reading never modifies anything. Opening for writing takes the single-writer lock
//!   ([`lock`]), then recovers a torn last line by moving it verbatim to a sidecar file and
//!   truncating the file to its last complete line; committed lines are never touched.
//! - A file without a readable header is never written to; [`repair_copy`] writes a repaired
//!   copy beside it instead, and [`migrate`] rewrites only through an atomic replace.
//! - Files the store creates are mode 0600 and directories 0700.
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

pub mod error;
pub mod io;
pub mod lock;
pub mod names;
pub mod read;
pub mod rewrite;

use std::fs::{DirBuilder, File};
use std::io::{Read, Seek, SeekFrom};
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

use compaction_core::parse::DEFAULT_MAX_LINE_BYTES;
use compaction_core::{DiagnosticKind, Entry, ParseOptions, Session};
use serde_json::{Map, Value};

pub use error::StoreError;
pub use io::{FaultKind, FaultOp, FaultPlan, SyncWrite};
pub use lock::{LockWait, SessionLock};
pub use names::{session_path, validate_name};
pub use rewrite::{
    MigrateReport, RepairReport, RewriteOptions, RewriteStep, migrate, migrate_with, repair_copy,
    repair_copy_with,
};

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
    pub fsync: FsyncPolicy,
    /// Lines longer than this are errors (reported with their line number, never loaded);
    /// an entry longer than this is refused.
    pub max_line_bytes: usize,
    /// Fails chosen writes or syncs (a testing aid; `None` in normal use).
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
    pub entry_type: String,
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
    /// The sidecar file now holding its bytes verbatim.
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
    /// The format version the file declares (older versions are migrated in memory only).
    pub source_version: u32,
}

impl OpenReport {
    /// One sentence per thing the user should know.
    pub fn messages(&self) -> Vec<String> {
        let mut messages = Vec::new();
        if let Some(torn) = &self.torn_tail {
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
        if self.source_version < compaction_core::entry::CURRENT_VERSION {
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
    /// Entries written since the last sync (batch policy).
    unsynced: usize,
    poisoned: bool,
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

impl SessionStore {
    /// Opens a session file. For writing, takes the lock, refuses a file without a readable
    /// header, and recovers a torn tail (see [`OpenReport`]).
    pub fn open(
        path: &Path,
        options: OpenOptions,
    ) -> Result<(SessionStore, OpenReport), StoreError> {
        let lock =
            if options.write { Some(SessionLock::acquire(path, options.lock_wait)?) } else { None };
        Self::open_locked(path, options, lock)
    }

    pub(crate) fn open_locked(
        path: &Path,
        options: OpenOptions,
        lock: Option<SessionLock>,
    ) -> Result<(SessionStore, OpenReport), StoreError> {
        let file = File::open(path).map_err(StoreError::io("cannot open", path))?;
        let (session, shape) = read::read_session(&file, options.parse_options())
            .map_err(StoreError::io("cannot read", path))?;
        let mut store = SessionStore {
            path: path.to_path_buf(),
            session,
            writer: None,
            lock,
            length: shape.length,
            lines: shape.lines,
            needs_newline: !shape.ends_with_newline,
            unsynced: 0,
            poisoned: false,
            options,
        };
        let mut report =
            OpenReport { source_version: store.session.source_version(), ..OpenReport::default() };
        let torn = store.torn_line();
        if store.options.write {
            store.check_header()?;
            let file = std::fs::OpenOptions::new()
                .append(true)
                .open(path)
                .map_err(StoreError::io("cannot open for appending", path))?;
            store.writer = Some(io::writer(file, store.options.faults.as_ref()));
            if let Some((line, offset)) = torn {
                report.torn_tail =
                    Some(store.recover_torn_tail(&file_for_copy(path)?, line, offset)?);
            }
        }
        report.malformed_lines = store
            .session
            .malformed()
            .iter()
            .filter(|malformed| malformed.offset < store.length)
            .map(|malformed| malformed.line)
            .collect();
        report.missing_final_newline = store.needs_newline;
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
        let dir = names::parent_dir(path);
        DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(&dir)
            .map_err(StoreError::io("cannot create directory", &dir))?;
        let mut header = Map::new();
        header.insert("type".into(), "session".into());
        header.insert("version".into(), compaction_core::entry::CURRENT_VERSION.into());
        header.insert("id".into(), names::random_uuid().into());
        header.insert("timestamp".into(), names::timestamp_now().into());
        header.insert("cwd".into(), cwd.into());
        let mut line = Value::Object(header).to_string();
        line.push('\n');
        let rewrite =
            RewriteOptions { faults: options.faults.clone(), ..RewriteOptions::default() };
        rewrite::write_new_file(path, &rewrite, |out| out.push(line.as_bytes()))?;
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

    /// Appends an entry: fills `id` (8 hex digits, unique in the file), `parentId` and
    /// `timestamp`, writes the line, meets the fsync policy and adds the entry to
    /// [`SessionStore::session`].
    pub fn append(&mut self, new: NewEntry) -> Result<Entry, StoreError> {
        if self.writer.is_none() {
            return Err(StoreError::ReadOnly { path: self.path.clone() });
        }
        if self.poisoned {
            return Err(StoreError::Poisoned { path: self.path.clone() });
        }
        let entry = self.build_entry(new)?;
        let mut bytes = Vec::with_capacity(entry.raw().len() + 2);
        if self.needs_newline {
            bytes.push(b'\n');
        }
        bytes.extend_from_slice(entry.raw().as_bytes());
        bytes.push(b'\n');
        let previous_length = self.length;
        self.write_committed(&bytes, previous_length)?;
        self.length += bytes.len() as u64;
        self.lines += 1;
        self.needs_newline = false;
        self.session.push(entry.clone()).map_err(|reason| self.invalid(reason))?;
        Ok(entry)
    }

    /// Flushes entries written under [`FsyncPolicy::Batch`] or [`FsyncPolicy::Never`].
    pub fn sync(&mut self) -> Result<(), StoreError> {
        let Some(writer) = self.writer.as_mut() else {
            return Ok(());
        };
        match writer.sync_data() {
            Ok(()) => {
                self.unsynced = 0;
                Ok(())
            }
            Err(error) => {
                self.poisoned = true;
                Err(StoreError::io("cannot sync", &self.path)(error))
            }
        }
    }

    fn invalid(&self, reason: String) -> StoreError {
        StoreError::InvalidEntry { path: self.path.clone(), reason }
    }

    fn build_entry(&self, new: NewEntry) -> Result<Entry, StoreError> {
        if let Some(field) = RESERVED_FIELDS.iter().find(|field| new.fields.contains_key(**field)) {
            return Err(self.invalid(format!("`{field}` is set by the store")));
        }
        let parent_id = match new.parent {
            Parent::Leaf => {
                self.session.leaf().map(|index| self.session.entries()[index].id.clone())
            }
            Parent::Root => None,
            Parent::Id(id) => {
                if !self.session.contains(&id) {
                    return Err(self.invalid(format!("parent `{id}` does not exist")));
                }
                Some(id)
            }
        };
        let mut id = names::random_entry_id();
        while self.session.contains(&id) {
            id = names::random_entry_id();
        }
        let mut map = Map::with_capacity(new.fields.len() + 4);
        map.insert("type".into(), new.entry_type.into());
        map.insert("id".into(), id.into());
        map.insert("parentId".into(), parent_id.map_or(Value::Null, Value::String));
        map.insert("timestamp".into(), names::timestamp_now().into());
        map.extend(new.fields);
        let raw = Value::Object(map).to_string();
        let line = self.lines + 1;
        if raw.len() > self.options.max_line_bytes {
            return Err(self.invalid(format!(
                "line {line} would be {} bytes, over the limit of {} bytes",
                raw.len(),
                self.options.max_line_bytes
            )));
        }
        Entry::parse(line, &raw).map_err(|error| self.invalid(format!("line {line}: {error}")))
    }

    /// Writes `bytes` and meets the fsync policy, or restores the file to
    /// `previous_length` and reports the error.
    fn write_committed(&mut self, bytes: &[u8], previous_length: u64) -> Result<(), StoreError> {
        let policy = self.options.fsync;
        let Some(writer) = self.writer.as_mut() else {
            return Err(StoreError::ReadOnly { path: self.path.clone() });
        };
        if let Err(error) = writer.write_all(bytes) {
            self.poisoned = !undo(writer.as_mut(), previous_length);
            return Err(StoreError::io("cannot append to", &self.path)(error));
        }
        let sync_now = match policy {
            FsyncPolicy::Always => true,
            FsyncPolicy::Batch(every) => {
                self.unsynced += 1;
                self.unsynced >= every.max(1)
            }
            FsyncPolicy::Never => false,
        };
        if sync_now {
            if let Err(error) = writer.sync_data() {
                // Only the entry being appended is withdrawn: earlier entries of a batch
                // were already acknowledged. Whether the page cache still holds them after
                // a failed sync is unknown, so the store refuses further writes.
                let undone =
                    policy == FsyncPolicy::Always && undo(writer.as_mut(), previous_length);
                self.poisoned = !undone;
                return Err(StoreError::io("cannot sync", &self.path)(error));
            }
            self.unsynced = 0;
        }
        Ok(())
    }

    fn check_header(&self) -> Result<(), StoreError> {
        if self.session.header().is_some() {
            return Ok(());
        }
        let problem = self.session.diagnostics().iter().find(|diagnostic| {
            matches!(diagnostic.kind, DiagnosticKind::MissingHeader | DiagnosticKind::InvalidHeader)
        });
        Err(StoreError::UnreadableHeader {
            path: self.path.clone(),
            line: problem.map_or(1, |diagnostic| diagnostic.line.max(1)),
            detail: problem.map_or_else(
                || "no session header".to_owned(),
                |diagnostic| diagnostic.message.clone(),
            ),
        })
    }

    /// The torn last line's number and offset, if the parser found one.
    fn torn_line(&self) -> Option<(usize, u64)> {
        let torn = self
            .session
            .diagnostics()
            .iter()
            .any(|diagnostic| diagnostic.kind == DiagnosticKind::TornLastLine);
        if !torn {
            return None;
        }
        self.session
            .malformed()
            .iter()
            .find(|malformed| malformed.line == self.lines)
            .map(|malformed| (malformed.line, malformed.offset))
    }

    /// Copies the torn tail to a sidecar (synced), then truncates the session to `offset`
    /// (synced). A failure before the truncation leaves the session as it was.
    fn recover_torn_tail(
        &mut self,
        source: &File,
        line: usize,
        offset: u64,
    ) -> Result<TornTail, StoreError> {
        let length = self.length - offset;
        let sidecar = self.write_sidecar(source, offset, length)?;
        let Some(writer) = self.writer.as_mut() else {
            return Err(StoreError::ReadOnly { path: self.path.clone() });
        };
        writer
            .set_len(offset)
            .and_then(|()| writer.sync_data())
            .map_err(StoreError::io("cannot truncate torn tail of", &self.path))?;
        self.length = offset;
        self.lines -= 1;
        self.needs_newline = false;
        Ok(TornTail { line, offset, length, sidecar })
    }

    fn write_sidecar(
        &self,
        source: &File,
        offset: u64,
        length: u64,
    ) -> Result<PathBuf, StoreError> {
        let stamp = names::file_timestamp();
        let mut attempt = 0u32;
        let (sidecar, file) = loop {
            let suffix = if attempt == 0 {
                format!(".torn-{stamp}")
            } else {
                format!(".torn-{stamp}-{attempt}")
            };
            let sidecar = names::with_suffix(&self.path, &suffix);
            match std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .mode(0o600)
                .open(&sidecar)
            {
                Ok(file) => break (sidecar, file),
                Err(error)
                    if error.kind() == std::io::ErrorKind::AlreadyExists && attempt < 100 =>
                {
                    attempt += 1;
                }
                Err(error) => return Err(StoreError::io("cannot create", &sidecar)(error)),
            }
        };
        let mut writer = io::writer(file, self.options.faults.as_ref());
        let mut reader = source;
        reader.seek(SeekFrom::Start(offset)).map_err(StoreError::io("cannot read", &self.path))?;
        let mut remaining = length;
        let mut buffer = vec![0u8; 1 << 16];
        while remaining > 0 {
            let want = usize::try_from(remaining.min(buffer.len() as u64)).unwrap_or(buffer.len());
            let got = reader
                .read(&mut buffer[..want])
                .map_err(StoreError::io("cannot read", &self.path))?;
            if got == 0 {
                break;
            }
            writer.write_all(&buffer[..got]).map_err(StoreError::io("cannot write", &sidecar))?;
            remaining -= got as u64;
        }
        writer.sync_data().map_err(StoreError::io("cannot sync", &sidecar))?;
        let dir = names::parent_dir(&sidecar);
        io::sync_dir_with(&dir, self.options.faults.as_ref())
            .map_err(StoreError::io("cannot sync directory", &dir))?;
        Ok(sidecar)
    }

    pub(crate) fn take_lock(&mut self) -> Option<SessionLock> {
        self.lock.take()
    }
}

fn file_for_copy(path: &Path) -> Result<File, StoreError> {
    File::open(path).map_err(StoreError::io("cannot open", path))
}

/// Cuts the file back to `length` and syncs; false when that failed too.
fn undo(writer: &mut dyn SyncWrite, length: u64) -> bool {
    writer.set_len(length).and_then(|()| writer.sync_data()).is_ok()
}

impl Drop for SessionStore {
    fn drop(&mut self) {
        if self.unsynced > 0
            && let Some(writer) = self.writer.as_mut()
        {
            let _ = writer.sync_data();
        }
    }
}
