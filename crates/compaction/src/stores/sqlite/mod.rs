//! Many sessions in one SQLite database (WAL), each line kept with its original bytes.
//!
//! Invariants:
//! - A session's lines are stored verbatim (without their newline) under their line
//!   number, so [`SessionBackend::export`] writes back the imported file byte for byte,
//!   followed by what was appended since.
//! - Every write is one transaction taken with `BEGIN IMMEDIATE`, so the leaf an append is
//!   checked against is the leaf it lands on, and a lease is taken by one holder only.
//! - The schema version is checked on every open ([`schema`]); nothing is migrated unless
//!   asked ([`SqliteBackend::migrate`]).
//! - For a session whose tree is sound (no unreadable line, duplicate id, dangling parent or
//!   cycle), each entry row carries path columns (parent line, depth, nearest compaction,
//!   nearest non-message and assistant ancestors), so the context at a leaf reads only what
//!   the projection needs ([`PathRead`]).

mod import;
mod read;
pub mod schema;

use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use compaction_core::Session;
use rusqlite::{Connection, OpenFlags, OptionalExtension, TransactionBehavior, params};

pub use import::Imported;

use super::{BackendError, PathRead, SessionBackend, SessionSummary};
use schema::SchemaState;

/// How long a write waits for another writer of the database.
const BUSY_TIMEOUT: Duration = Duration::from_secs(30);

/// A SQLite database of sessions.
pub struct SqliteBackend {
    path: PathBuf,
    connection: Mutex<Connection>,
}

impl std::fmt::Debug for SqliteBackend {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SqliteBackend").field("path", &self.path).finish_non_exhaustive()
    }
}

/// A session's row.
#[derive(Debug, Clone)]
pub(crate) struct SessionRow {
    pub(crate) sid: i64,
    pub(crate) final_newline: bool,
    pub(crate) indexed: bool,
    pub(crate) leaf_seq: Option<i64>,
    pub(crate) lines: i64,
    pub(crate) bytes: i64,
}

/// The files SQLite keeps beside a database (`-wal`, `-shm`, `-journal`) that did not exist
/// before a connection was opened. An open that fails (a full disk, a file size limit, a
/// file that is no database, a database refused as made elsewhere) can leave them behind;
/// they are removed when no other process has them open for writing (another connection
/// would): the log and the journal only while empty, the shared-memory index (which SQLite
/// rebuilds from the log) whatever it holds. So a command that failed leaves no file
/// behind and no live connection loses its files.
#[derive(Debug)]
struct Companions {
    new: Vec<std::path::PathBuf>,
}

/// The name of a database's companion file (`-wal`, `-shm`, `-journal`).
fn companion(path: &Path, suffix: &str) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(suffix);
    PathBuf::from(name)
}

impl Companions {
    fn before(path: &Path) -> Companions {
        let new = ["-wal", "-shm", "-journal"]
            .iter()
            .map(|suffix| companion(path, suffix))
            .filter(|companion| std::fs::symlink_metadata(companion).is_err())
            .collect();
        Companions { new }
    }

    fn remove_new(&self) {
        for companion in &self.new {
            let Ok(metadata) = std::fs::symlink_metadata(companion) else { continue };
            let index = companion.as_os_str().to_string_lossy().ends_with("-shm");
            if metadata.is_file()
                && (index || metadata.len() == 0)
                && crate::store::writers::other_writer(&metadata).is_none()
            {
                let _ = std::fs::remove_file(companion);
            }
        }
    }
}

/// Refuses what stands beside a database that this tool never leaves there: a rollback
/// journal holding pages (SQLite plays a "hot" journal back into the database when it opens
/// it, so someone else's would change the file before anything could be checked; this
/// tool's databases use a write-ahead log, and the only journal it can leave is that of
/// creating a database killed midway, which records an empty original and holds no page),
/// and a companion that is no regular file (a FIFO would block, a link would send writes
/// elsewhere).
fn refuse_foreign_companions(path: &Path) -> Result<(), BackendError> {
    let invalid = |reason: String| BackendError::Invalid {
        store: format!("sqlite:{}", path.display()),
        reason,
    };
    for suffix in ["-journal", "-wal", "-shm"] {
        let name = companion(path, suffix);
        let Ok(metadata) = std::fs::symlink_metadata(&name) else { continue };
        if !metadata.is_file() {
            let what = crate::disk::irregular(metadata.file_type()).unwrap_or("a symbolic link");
            return Err(invalid(format!(
                "{} beside it is {what}, not a file SQLite made; refusing to open the database",
                name.display()
            )));
        }
        if suffix == "-journal" && metadata.len() > 0 && could_play_back(path, &name) {
            return Err(invalid(format!(
                "a rollback journal beside it ({}, {} bytes) that SQLite would play back into \
                 the database on opening it; this tool's databases use a write-ahead log and \
                 never leave one holding pages, so it was made elsewhere: nothing was opened \
                 or changed (move it away only if you trust it)",
                name.display(),
                metadata.len()
            )));
        }
    }
    Ok(())
}

/// Whether SQLite would play `journal` back into the database at `path` on opening it: a
/// journal is hot when the database is not empty and the journal's header was written
/// (its first byte is not zero: SQLite zeroes it to commit, and writes the header only once
/// pages are recorded). A journal of creating a database killed midway (SQLite's journal
/// magic, an original size of 0 pages, the header alone) only empties the file, and is left
/// for SQLite to undo.
fn could_play_back(path: &Path, journal: &Path) -> bool {
    use std::io::Read as _;
    const MAGIC: [u8; 8] = [0xd9, 0xd5, 0x05, 0xf9, 0x20, 0xa1, 0x63, 0xd7];
    if std::fs::metadata(path).is_ok_and(|metadata| metadata.len() == 0) {
        return false;
    }
    let mut header = [0u8; 28];
    let read = crate::store::io::open_regular(journal, false)
        .ok()
        .and_then(|mut file| file.read_exact(&mut header).ok());
    if read.is_none() {
        // Shorter than a header, or unreadable: judged by its first byte when there is one.
        return std::fs::read(journal).is_ok_and(|bytes| bytes.first().is_some_and(|b| *b != 0));
    }
    if header[0] == 0 {
        return false;
    }
    let original_pages = u32::from_be_bytes([header[16], header[17], header[18], header[19]]);
    let sector = u64::from(u32::from_be_bytes([header[20], header[21], header[22], header[23]]));
    let header_only = std::fs::metadata(journal).is_ok_and(|m| m.len() <= sector.max(512));
    !(header[..8] == MAGIC && original_pages == 0 && header_only)
}

/// Turns off what would let a database file run code or hide its tables: triggers, views,
/// functions in the schema (`trusted_schema`), and writes to the schema itself
/// (`defensive`). The tool's own schema uses none of them.
fn harden(connection: &Connection) -> rusqlite::Result<()> {
    use rusqlite::config::DbConfig;
    connection.set_db_config(DbConfig::SQLITE_DBCONFIG_ENABLE_TRIGGER, false)?;
    connection.set_db_config(DbConfig::SQLITE_DBCONFIG_ENABLE_VIEW, false)?;
    connection.set_db_config(DbConfig::SQLITE_DBCONFIG_TRUSTED_SCHEMA, false)?;
    connection.set_db_config(DbConfig::SQLITE_DBCONFIG_DEFENSIVE, true)?;
    Ok(())
}

/// Checks that the schema is exactly the one this tool's migrations up to `version` create.
fn refuse_foreign_schema(
    connection: &Connection,
    version: i64,
    store: &str,
) -> Result<(), BackendError> {
    match schema::foreign_object(connection, version) {
        Ok(None) => Ok(()),
        Ok(Some(object)) => Err(BackendError::Invalid {
            store: store.to_owned(),
            reason: format!(
                "{object}; refusing a database whose schema is not this tool's (a trigger or \
                 view from elsewhere would run or answer in its place); nothing was changed"
            ),
        }),
        Err(error) => Err(BackendError::database(store, error)),
    }
}

/// Drops a connection that was refused without folding its write-ahead log into the
/// database (SQLite checkpoints on close), so the database file stays as it was.
fn drop_refused(connection: Connection) {
    let _ = connection
        .set_db_config(rusqlite::config::DbConfig::SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, true);
    drop(connection);
}

/// Refuses a database name that is no regular file and not missing: a FIFO, device, socket
/// or folder (also through a link), and a symbolic link that names nothing (SQLite would
/// create the file where it points). A missing name is for [`SqliteBackend::create`] to make.
fn refuse_odd_database(path: &Path) -> Result<(), BackendError> {
    let invalid = |reason: String| BackendError::Invalid {
        store: format!("sqlite:{}", path.display()),
        reason,
    };
    let Ok(own) = std::fs::symlink_metadata(path) else { return Ok(()) };
    match std::fs::metadata(path) {
        Ok(target) => match crate::disk::irregular(target.file_type()) {
            None => Ok(()),
            Some(what) => {
                Err(invalid(format!("{what}, not a database file; nothing written there")))
            }
        },
        Err(_) if own.file_type().is_symlink() => Err(invalid(
            "a symbolic link to nothing; refusing to create the database where it points".into(),
        )),
        Err(_) => Ok(()),
    }
}

impl SqliteBackend {
    /// Opens an existing database of the current schema version.
    pub fn open(path: &Path) -> Result<SqliteBackend, BackendError> {
        refuse_odd_database(path)?;
        if !path.is_file() {
            return Err(BackendError::Invalid {
                store: format!("sqlite:{}", path.display()),
                reason: "no such database file (`compaction store import FILE --to \
                         sqlite:PATH` creates one)"
                    .to_owned(),
            });
        }
        Self::connect(path, OpenFlags::SQLITE_OPEN_READ_WRITE, false)
    }

    /// Opens a database, creating the file and its tables when it does not exist yet (a name
    /// that is nothing yet: never a link to nothing, which SQLite would create elsewhere, nor
    /// a FIFO, device, socket or folder).
    pub fn create(path: &Path) -> Result<SqliteBackend, BackendError> {
        refuse_odd_database(path)?;
        let flags = OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_CREATE;
        Self::connect(path, flags, true)
    }

    /// Upgrades an older schema to the current version; returns the version it had.
    pub fn migrate(path: &Path) -> Result<i64, BackendError> {
        refuse_odd_database(path)?;
        if !path.is_file() {
            return Err(BackendError::Invalid {
                store: format!("sqlite:{}", path.display()),
                reason: "no such database file".to_owned(),
            });
        }
        refuse_foreign_companions(path)?;
        let store = format!("sqlite:{}", path.display());
        let companions = Companions::before(path);
        let migrated = Self::migrate_once(path, &store);
        if migrated.is_err() {
            companions.remove_new();
        }
        migrated
    }

    fn migrate_once(path: &Path, store: &str) -> Result<i64, BackendError> {
        let database = |error| BackendError::database(store, error);
        let mut connection = Connection::open_with_flags(path, OpenFlags::SQLITE_OPEN_READ_WRITE)
            .map_err(database)?;
        let checked = harden(&connection).map_err(database).and_then(|()| {
            let from: i64 = connection
                .query_row("PRAGMA user_version", [], |row| row.get(0))
                .map_err(database)?;
            if !(0..=schema::SCHEMA_VERSION).contains(&from) {
                return Err(BackendError::Schema {
                    store: store.to_owned(),
                    found: from,
                    known: schema::SCHEMA_VERSION,
                });
            }
            refuse_foreign_schema(&connection, from, store)?;
            Ok(from)
        });
        let from = match checked {
            Ok(from) => from,
            Err(error) => {
                drop_refused(connection);
                return Err(error);
            }
        };
        schema::migrate(&mut connection).map_err(database)?;
        Ok(from)
    }

    /// Opens the connection; when that fails, the `-wal`, `-shm` and `-journal` files SQLite
    /// made for it are removed again (see [`Companions`]), so a failed open leaves no file.
    fn connect(path: &Path, flags: OpenFlags, create: bool) -> Result<SqliteBackend, BackendError> {
        refuse_foreign_companions(path)?;
        let companions = Companions::before(path);
        let opened = Self::connect_once(path, flags, create);
        if opened.is_err() {
            companions.remove_new();
        }
        opened
    }

    fn connect_once(
        path: &Path,
        flags: OpenFlags,
        create: bool,
    ) -> Result<SqliteBackend, BackendError> {
        let store = format!("sqlite:{}", path.display());
        let database = |error| BackendError::database(&store, error);
        let mut connection = Connection::open_with_flags(path, flags).map_err(database)?;
        let checked = harden(&connection)
            .and_then(|()| connection.busy_timeout(BUSY_TIMEOUT))
            .map_err(database)
            .and_then(|()| Self::check_schema(&connection, &store, create));
        let empty = match checked {
            Ok(empty) => empty,
            Err(error) => {
                drop_refused(connection);
                return Err(error);
            }
        };
        if empty {
            connection.pragma_update(None, "journal_mode", "WAL").map_err(database)?;
            schema::migrate(&mut connection).map_err(database)?;
        }
        connection.pragma_update(None, "synchronous", "FULL").map_err(database)?;
        // Pages are read with `pread` into SQLite's own cache, not memory-mapped: a context
        // read touches a few hundred scattered pages, and mapping them cost more (the
        // kernel's fault-around maps 16 pages per fault, then unmaps them all at close) than
        // it saved (measured in BENCHMARKS.md, "Session stores").
        connection.pragma_update(None, "mmap_size", 0i64).map_err(database)?;
        Ok(SqliteBackend { path: path.to_path_buf(), connection: Mutex::new(connection) })
    }

    /// Checks the schema before anything is read or written: the version this build knows
    /// and exactly this tool's objects (see [`refuse_foreign_schema`]). `Ok(true)` for an
    /// empty database that `create` may give the tables.
    fn check_schema(
        connection: &Connection,
        store: &str,
        create: bool,
    ) -> Result<bool, BackendError> {
        let database = |error| BackendError::database(store, error);
        match schema::state(connection).map_err(database)? {
            SchemaState::Current => {
                refuse_foreign_schema(connection, schema::SCHEMA_VERSION, store)?;
                Ok(false)
            }
            SchemaState::Empty if create => Ok(true),
            SchemaState::Empty => Err(BackendError::Schema {
                store: store.to_owned(),
                found: 0,
                known: schema::SCHEMA_VERSION,
            }),
            SchemaState::Other(found) => Err(BackendError::Schema {
                store: store.to_owned(),
                found,
                known: schema::SCHEMA_VERSION,
            }),
        }
    }

    fn connection(&self) -> MutexGuard<'_, Connection> {
        self.connection.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    pub(crate) fn database(&self, error: rusqlite::Error) -> BackendError {
        BackendError::database(&self.describe(), error)
    }

    pub(crate) fn not_found(&self, session: &str) -> BackendError {
        BackendError::NotFound { store: self.describe(), session: session.to_owned() }
    }

    /// The session's row.
    pub(crate) fn session_row(
        &self,
        connection: &Connection,
        session: &str,
    ) -> Result<SessionRow, BackendError> {
        connection
            .query_row(
                "SELECT sid, final_newline, indexed, leaf_seq, lines, bytes FROM sessions \
                 WHERE id = ?1",
                [session],
                |row| {
                    Ok(SessionRow {
                        sid: row.get(0)?,
                        final_newline: row.get(1)?,
                        indexed: row.get(2)?,
                        leaf_seq: row.get(3)?,
                        lines: row.get(4)?,
                        bytes: row.get(5)?,
                    })
                },
            )
            .optional()
            .map_err(|error| self.database(error))?
            .ok_or_else(|| self.not_found(session))
    }
}

/// Milliseconds since the epoch.
fn now_ms() -> i64 {
    let since = SystemTime::now().duration_since(UNIX_EPOCH).unwrap_or_default();
    i64::try_from(since.as_millis()).unwrap_or(i64::MAX)
}

/// The id of the entry on line `seq`.
fn id_at(connection: &Connection, sid: i64, seq: Option<i64>) -> rusqlite::Result<Option<String>> {
    let Some(seq) = seq else { return Ok(None) };
    connection
        .query_row("SELECT id FROM lines WHERE sid = ?1 AND seq = ?2", params![sid, seq], |row| {
            row.get(0)
        })
        .optional()
        .map(Option::flatten)
}

impl SessionBackend for SqliteBackend {
    fn describe(&self) -> String {
        format!("sqlite:{}", self.path.display())
    }

    fn list(&self) -> Result<Vec<SessionSummary>, BackendError> {
        let connection = self.connection();
        let mut statement = connection
            .prepare(
                "SELECT s.id, s.bytes, s.lines, l.id FROM sessions s \
                 LEFT JOIN lines l ON l.sid = s.sid AND l.seq = s.leaf_seq ORDER BY s.id",
            )
            .map_err(|error| self.database(error))?;
        let rows = statement
            .query_map([], |row| {
                Ok(SessionSummary {
                    id: row.get(0)?,
                    bytes: u64::try_from(row.get::<_, i64>(1)?).unwrap_or(0),
                    lines: u64::try_from(row.get::<_, i64>(2)?).unwrap_or(0),
                    leaf: row.get(3)?,
                })
            })
            .map_err(|error| self.database(error))?;
        rows.collect::<Result<Vec<_>, _>>().map_err(|error| self.database(error))
    }

    fn read_session(&self, session: &str) -> Result<Session, BackendError> {
        let connection = self.connection();
        let row = self.session_row(&connection, session)?;
        let bytes = self
            .session_bytes(&connection, &row, session)
            .map_err(crate::stores::within(session))?;
        Ok(compaction_core::parse_session(&bytes))
    }

    fn read_path(&self, session: &str, leaf: Option<&str>) -> Result<PathRead, BackendError> {
        let mut connection = self.connection();
        // One read transaction for the whole walk: every lookup sees the same snapshot (an
        // append committed meanwhile is not half seen), and SQLite takes and checks its
        // shared lock once instead of once per statement (two `fcntl` and a `stat` each,
        // thousands of them on a long path).
        let connection = connection.transaction().map_err(|error| self.database(error))?;
        let row = self.session_row(&connection, session)?;
        if !row.indexed {
            let bytes = self
                .session_bytes(&connection, &row, session)
                .map_err(crate::stores::within(session))?;
            let read = compaction_core::parse_session(&bytes);
            let leaf = read.resolve_leaf(leaf).map_err(|error| BackendError::Invalid {
                store: self.describe(),
                reason: error.to_string(),
            })?;
            return Ok(PathRead::whole(read, leaf));
        }
        self.read_indexed_path(&connection, session, &row, leaf)
            .map_err(crate::stores::within(session))
    }

    fn append_if_leaf(
        &self,
        session: &str,
        planned_leaf: Option<&str>,
        lines: &[String],
    ) -> Result<(), BackendError> {
        let mut connection = self.connection();
        let transaction = connection
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(|error| self.database(error))?;
        let row = self.session_row(&transaction, session)?;
        let actual =
            id_at(&transaction, row.sid, row.leaf_seq).map_err(|error| self.database(error))?;
        if actual.as_deref() != planned_leaf {
            return Err(BackendError::LeafMoved {
                store: self.describe(),
                session: session.to_owned(),
                planned: planned_leaf.unwrap_or("(none)").to_owned(),
                actual: actual.unwrap_or_else(|| "(none)".to_owned()),
            });
        }
        let mut seq = row.lines;
        let mut added_bytes = i64::from(!row.final_newline);
        let mut batch: Vec<super::tree::Node> = Vec::with_capacity(lines.len());
        for raw in lines {
            // A line count no session reaches (a row someone else wrote) is refused, not
            // wrapped around.
            seq = seq.checked_add(1).ok_or_else(|| BackendError::Invalid {
                store: self.describe(),
                reason: format!("session {session} claims {} lines; no line can follow", row.lines),
            })?;
            let entry = self.check_new_line(&transaction, &row, &batch, seq, raw)?;
            let node = import::insert_appended(&transaction, &row, seq, &entry, &batch)
                .map_err(|error| self.database(error))?;
            added_bytes = added_bytes
                .saturating_add(i64::try_from(raw.len()).unwrap_or(i64::MAX))
                .saturating_add(1);
            batch.push(node);
        }
        if batch.is_empty() {
            return Ok(());
        }
        transaction
            .execute(
                // The stored count saturates (a row of someone else's making may claim any
                // size; SQLite would turn the sum into a real number).
                "UPDATE sessions SET leaf_seq = ?2, lines = ?2, bytes = CASE WHEN bytes > \
                 9223372036854775807 - ?3 THEN 9223372036854775807 ELSE bytes + ?3 END, \
                 final_newline = 1 WHERE sid = ?1",
                params![row.sid, seq, added_bytes],
            )
            .map_err(|error| self.database(error))?;
        transaction.commit().map_err(|error| self.database(error))
    }

    fn export(&self, session: &str, out: &mut dyn std::io::Write) -> Result<u64, BackendError> {
        let connection = self.connection();
        let row = self.session_row(&connection, session)?;
        self.write_lines(&connection, &row, out, session).map_err(crate::stores::within(session))
    }

    fn try_lease(&self, session: &str, holder: &str, ttl: Duration) -> Result<bool, BackendError> {
        let mut connection = self.connection();
        let transaction = connection
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(|error| self.database(error))?;
        let row = self.session_row(&transaction, session)?;
        let now = now_ms();
        let current: Option<(String, i64)> = transaction
            .query_row("SELECT holder, expires_ms FROM leases WHERE sid = ?1", [row.sid], |r| {
                Ok((r.get(0)?, r.get(1)?))
            })
            .optional()
            .map_err(|error| self.database(error))?;
        if let Some((other, expires)) = current
            && other != holder
            && expires > now
        {
            return Ok(false);
        }
        let ttl = i64::try_from(ttl.as_millis()).unwrap_or(i64::MAX);
        transaction
            .execute(
                "INSERT OR REPLACE INTO leases (sid, holder, expires_ms) VALUES (?1, ?2, ?3)",
                params![row.sid, holder, now.saturating_add(ttl)],
            )
            .map_err(|error| self.database(error))?;
        transaction.commit().map_err(|error| self.database(error))?;
        Ok(true)
    }

    fn release_lease(&self, session: &str, holder: &str) -> Result<(), BackendError> {
        let connection = self.connection();
        let row = self.session_row(&connection, session)?;
        connection
            .execute("DELETE FROM leases WHERE sid = ?1 AND holder = ?2", params![row.sid, holder])
            .map_err(|error| self.database(error))?;
        Ok(())
    }
}
