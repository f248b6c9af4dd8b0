//! Many sessions in one Postgres database, for fleets of machines: the SQLite store's model
//! (each line kept with its original bytes, path columns for the context at a leaf) with
//! pooled connections, row locks and leases that expire by the database's clock.
//!
//! Invariants:
//! - A session's lines are stored verbatim (without their newline) under their line
//!   number, so [`SessionBackend::export`] writes back the imported file byte for byte,
//!   followed by what was appended since.
//! - An append locks the session's row (`SELECT … FOR UPDATE`) in its transaction, so the
//!   leaf it is checked against is the leaf it lands on, whatever other machines do.
//! - A lease is one row with an expiry compared with the database's clock
//!   (`clock_timestamp()`), taken in one statement: one holder at a time, and a holder that
//!   dies loses it when it expires, without clocks of the workers' machines mattering.
//! - The schema version is checked on every open ([`schema`]); nothing is migrated unless
//!   asked ([`PostgresBackend::migrate`]); only `create` (import) makes the tables of a
//!   database that has none.
//! - Credentials come from `PGPASSWORD` or the password file ([`Password`]); the URL holds
//!   none, so no message or description can show one.
//! - The `postgres` client runs its own runtime; called from async code it would panic, so
//!   every database call made inside a Tokio runtime runs on a scoped thread of its own.

mod import;
mod read;
pub mod schema;
mod url;

use std::io::Write;
use std::time::Duration;

use compaction_core::Session;
use postgres::{Client, Config, GenericClient, NoTls};
use r2d2_postgres::PostgresConnectionManager;

pub use super::sqlite::Imported;
pub use url::{DEFAULT_PORT, MAX_PASSFILE_BYTES, Password, PostgresUrl, passfile_lookup};

use super::{BackendError, PathRead, SessionBackend, SessionSummary};
use schema::SchemaState;

/// Connections kept open per process (the worker's `--concurrency` is served from these).
const POOL_SIZE: u32 = 4;
/// How long connecting may take.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
/// Lines read per query when a session is exported.
const EXPORT_CHUNK: i64 = 2_000;

type Pool = r2d2_postgres::r2d2::Pool<PostgresConnectionManager<NoTls>>;

/// A Postgres database of sessions.
pub struct PostgresBackend {
    url: PostgresUrl,
    /// Always `Some` until dropped (taken by `Drop`, which closes the connections off any
    /// runtime).
    pool: Option<Pool>,
    /// Whether opening it created this tool's tables (`create` on a database without them).
    created: bool,
}

impl std::fmt::Debug for PostgresBackend {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PostgresBackend").field("url", &self.url).finish_non_exhaustive()
    }
}

impl Drop for PostgresBackend {
    fn drop(&mut self) {
        if let Some(pool) = self.pool.take() {
            off_runtime(move || drop(pool));
        }
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

/// What the database said, with its causes: `postgres::Error` alone says only "db error",
/// the server's message (`FATAL: password authentication failed …`) is its source.
#[derive(Debug)]
struct Failure(String);

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Failure {}

fn failure(store: &str, error: &dyn std::error::Error) -> BackendError {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        let cause_text = cause.to_string();
        if !text.contains(&cause_text) {
            text.push_str(": ");
            text.push_str(&cause_text);
        }
        source = cause.source();
    }
    BackendError::database(store, Failure(text))
}

/// Runs `work` where the blocking `postgres` client may run: here, or on a scoped thread
/// when this thread drives a Tokio runtime.
fn off_runtime<T: Send>(work: impl FnOnce() -> T + Send) -> T {
    if tokio::runtime::Handle::try_current().is_err() {
        return work();
    }
    std::thread::scope(|scope| match scope.spawn(work).join() {
        Ok(value) => value,
        Err(panic) => std::panic::resume_unwind(panic),
    })
}

impl PostgresBackend {
    /// Opens a database of the current schema version, with the password from the
    /// environment ([`Password::from_environment`]).
    pub fn open(url: &PostgresUrl) -> Result<PostgresBackend, BackendError> {
        Self::open_with(url, &Self::password(url)?)
    }

    /// Opens a database of the current schema version with the given password.
    pub fn open_with(
        url: &PostgresUrl,
        password: &Password,
    ) -> Result<PostgresBackend, BackendError> {
        Self::connect(url, password, false)
    }

    /// Opens a database, creating this tool's tables when it has none yet.
    pub fn create(url: &PostgresUrl) -> Result<PostgresBackend, BackendError> {
        Self::create_with(url, &Self::password(url)?)
    }

    /// [`PostgresBackend::create`] with the given password.
    pub fn create_with(
        url: &PostgresUrl,
        password: &Password,
    ) -> Result<PostgresBackend, BackendError> {
        Self::connect(url, password, true)
    }

    /// Upgrades an older schema to the current version; returns the version it had (0: none
    /// of this tool's tables were there).
    pub fn migrate(url: &PostgresUrl) -> Result<i64, BackendError> {
        Self::migrate_with(url, &Self::password(url)?)
    }

    /// [`PostgresBackend::migrate`] with the given password.
    pub fn migrate_with(url: &PostgresUrl, password: &Password) -> Result<i64, BackendError> {
        let store = url.to_string();
        let config = config(url, password);
        let from = off_runtime(|| {
            let mut client = config.connect(NoTls)?;
            schema::migrate(&mut client)
        })
        .map_err(|error| failure(&store, &error))?;
        if from > schema::SCHEMA_VERSION {
            return Err(BackendError::Schema { store, found: from, known: schema::SCHEMA_VERSION });
        }
        Ok(from)
    }

    fn password(url: &PostgresUrl) -> Result<Password, BackendError> {
        Password::from_environment(url)
            .map_err(|reason| BackendError::Invalid { store: url.to_string(), reason })
    }

    fn connect(
        url: &PostgresUrl,
        password: &Password,
        create: bool,
    ) -> Result<PostgresBackend, BackendError> {
        let store = url.to_string();
        let database = |error: postgres::Error| failure(&store, &error);
        let config = config(url, password);
        // One connection up front: a wrong password or an unreachable server fails at once
        // (the pool would retry until its timeout), and the schema is checked before use.
        let (state, created) = off_runtime(|| -> Result<(SchemaState, bool), postgres::Error> {
            let mut client = config.connect(NoTls)?;
            let state = schema::state(&mut client)?;
            if state == SchemaState::Current
                && let Some(object) = schema::foreign_object(&mut client)?
            {
                return Ok((SchemaState::Foreign(object), false));
            }
            match state {
                SchemaState::Empty if create => {
                    // Another process may create the tables at the same time (the migration
                    // takes turns): only a migration that started from none created them.
                    let from = schema::migrate(&mut client)?;
                    Ok((SchemaState::Current, from == 0))
                }
                state @ (SchemaState::Empty
                | SchemaState::Current
                | SchemaState::Other(_)
                | SchemaState::Foreign(_)) => Ok((state, false)),
            }
        })
        .map_err(database)?;
        match state {
            SchemaState::Current => {}
            SchemaState::Empty => {
                return Err(BackendError::Invalid {
                    store,
                    reason: "no sessions were ever imported here (`compaction store import \
                             FILE --to URL` creates the tables)"
                        .to_owned(),
                });
            }
            SchemaState::Other(found) => {
                return Err(BackendError::Schema { store, found, known: schema::SCHEMA_VERSION });
            }
            SchemaState::Foreign(object) => {
                return Err(BackendError::Invalid {
                    store,
                    reason: format!(
                        "{object}; refusing a database whose `compaction` schema holds code or \
                         objects this tool did not create (they would run or answer in place \
                         of its tables); nothing was changed"
                    ),
                });
            }
        }
        let manager = PostgresConnectionManager::new(config, NoTls);
        let pool = r2d2_postgres::r2d2::Pool::builder()
            .max_size(POOL_SIZE)
            .min_idle(Some(0))
            .connection_timeout(CONNECT_TIMEOUT)
            .build_unchecked(manager);
        Ok(PostgresBackend { url: url.clone(), pool: Some(pool), created })
    }

    /// Removes this tool's tables again when opening this backend created them and no
    /// session is in them now (a `store import` into which nothing went leaves the database
    /// as it found it). Under the migration lock and with the sessions table locked before
    /// it is counted, so an import of another process is either seen (and the tables kept)
    /// or waits and then finds no tables. Returns whether they were removed.
    pub fn remove_if_unused(&self) -> Result<bool, BackendError> {
        if !self.created {
            return Ok(false);
        }
        self.with_client(|client| {
            let database = |error| self.database(error);
            let mut transaction = client.transaction().map_err(database)?;
            transaction
                .execute("SELECT pg_advisory_xact_lock($1)", &[&schema::MIGRATION_LOCK])
                .map_err(database)?;
            transaction
                .batch_execute("LOCK TABLE compaction.sessions IN ACCESS EXCLUSIVE MODE")
                .map_err(database)?;
            let sessions: i64 = transaction
                .query_one("SELECT count(*) FROM compaction.sessions", &[])
                .map_err(database)?
                .get(0);
            if sessions > 0 {
                return Ok(false);
            }
            transaction.batch_execute("DROP SCHEMA compaction CASCADE").map_err(database)?;
            transaction.commit().map_err(database)?;
            Ok(true)
        })
    }

    /// The database's URL (never with a password).
    pub fn url(&self) -> &PostgresUrl {
        &self.url
    }

    /// Runs `work` with a pooled connection, off any Tokio runtime.
    pub(crate) fn with_client<T: Send>(
        &self,
        work: impl FnOnce(&mut Client) -> Result<T, BackendError> + Send,
    ) -> Result<T, BackendError> {
        off_runtime(|| {
            let Some(pool) = &self.pool else {
                return Err(BackendError::Invalid {
                    store: self.describe(),
                    reason: "the store was closed".to_owned(),
                });
            };
            let mut client = pool.get().map_err(|error| self.database(error))?;
            work(&mut client)
        })
    }

    pub(crate) fn database(&self, error: impl std::error::Error) -> BackendError {
        failure(&self.describe(), &error)
    }

    pub(crate) fn not_found(&self, session: &str) -> BackendError {
        BackendError::NotFound { store: self.describe(), session: session.to_owned() }
    }

    /// The session's row; `lock` takes its row lock for the rest of the transaction.
    pub(crate) fn session_row(
        &self,
        client: &mut impl GenericClient,
        session: &str,
        lock: bool,
    ) -> Result<SessionRow, BackendError> {
        let sql = if lock {
            "SELECT sid, final_newline, indexed, leaf_seq, lines, bytes FROM compaction.sessions \
             WHERE id = $1 FOR UPDATE"
        } else {
            "SELECT sid, final_newline, indexed, leaf_seq, lines, bytes FROM compaction.sessions \
             WHERE id = $1"
        };
        let row = client.query_opt(sql, &[&session]).map_err(|error| self.database(error))?;
        let row = row.ok_or_else(|| self.not_found(session))?;
        Ok(SessionRow {
            sid: row.get(0),
            final_newline: row.get(1),
            indexed: row.get(2),
            leaf_seq: row.get(3),
            lines: row.get(4),
            bytes: row.get(5),
        })
    }

    /// Writes the session's lines as its pi file, reading [`EXPORT_CHUNK`] lines per query
    /// (lines are only ever added after the last, so the chunks are one consistent file).
    fn write_lines(
        &self,
        row: &SessionRow,
        out: &mut dyn Write,
        name: &str,
    ) -> Result<u64, BackendError> {
        let io = |source| BackendError::Io { what: format!("cannot write {name}"), source };
        let mut written = 0u64;
        let mut first = 1i64;
        while first <= row.lines {
            let last = first.saturating_add(EXPORT_CHUNK - 1).min(row.lines);
            let chunk: Vec<Vec<u8>> = self.with_client(|client| {
                let rows = client
                    .query(
                        "SELECT bytes FROM compaction.lines WHERE sid = $1 AND seq BETWEEN $2 \
                         AND $3 ORDER BY seq",
                        &[&row.sid, &first, &last],
                    )
                    .map_err(|error| self.database(error))?;
                rows.iter()
                    .enumerate()
                    .map(|(offset, line)| {
                        line.try_get::<_, Vec<u8>>(0).map_err(|error| BackendError::Invalid {
                            store: format!("{}#{name}", self.describe()),
                            reason: format!(
                                "line {} cannot be read as the line's bytes ({error}); a row \
                                 this tool did not write",
                                first + i64::try_from(offset).unwrap_or(i64::MAX)
                            ),
                        })
                    })
                    .collect()
            })?;
            if i64::try_from(chunk.len()).ok() != Some(last - first + 1) {
                return Err(BackendError::Invalid {
                    store: self.describe(),
                    reason: format!("lines {first} to {last} of the session are not all stored"),
                });
            }
            for (offset, bytes) in chunk.iter().enumerate() {
                let seq = first + i64::try_from(offset).unwrap_or(i64::MAX);
                out.write_all(bytes).map_err(io)?;
                written += bytes.len() as u64;
                if seq < row.lines || row.final_newline {
                    out.write_all(b"\n").map_err(io)?;
                    written += 1;
                }
            }
            first = last + 1;
        }
        Ok(written)
    }

    /// The session's pi file bytes.
    pub(crate) fn session_bytes(
        &self,
        row: &SessionRow,
        session: &str,
    ) -> Result<Vec<u8>, BackendError> {
        crate::stores::read_bounded(&format!("{}#{session}", self.describe()), row.bytes, |out| {
            self.write_lines(row, out, session)
        })
    }
}

/// The connection settings of a URL.
fn config(url: &PostgresUrl, password: &Password) -> Config {
    let user = url.user_or_default();
    let mut config = Config::new();
    config
        .host(&url.host)
        .port(url.port_or_default())
        .user(&user)
        .dbname(&url.database_or(&user))
        .application_name("compaction")
        .connect_timeout(CONNECT_TIMEOUT);
    if let Some(password) = password.get() {
        config.password(password);
    }
    config
}

impl SessionBackend for PostgresBackend {
    fn describe(&self) -> String {
        self.url.to_string()
    }

    fn list(&self) -> Result<Vec<SessionSummary>, BackendError> {
        self.with_client(|client| {
            let rows = client
                .query(
                    "SELECT s.id, s.bytes, s.lines, l.id FROM compaction.sessions s \
                     LEFT JOIN compaction.lines l ON l.sid = s.sid AND l.seq = s.leaf_seq \
                     ORDER BY s.id",
                    &[],
                )
                .map_err(|error| self.database(error))?;
            Ok(rows
                .iter()
                .map(|row| SessionSummary {
                    id: row.get(0),
                    bytes: u64::try_from(row.get::<_, i64>(1)).unwrap_or(0),
                    lines: u64::try_from(row.get::<_, i64>(2)).unwrap_or(0),
                    leaf: row.get(3),
                })
                .collect())
        })
    }

    fn read_session(&self, session: &str) -> Result<Session, BackendError> {
        let row = self.with_client(|client| self.session_row(client, session, false))?;
        Ok(compaction_core::parse_session(&self.session_bytes(&row, session)?))
    }

    fn read_path(&self, session: &str, leaf: Option<&str>) -> Result<PathRead, BackendError> {
        let row = self.with_client(|client| self.session_row(client, session, false))?;
        if !row.indexed {
            let read = compaction_core::parse_session(&self.session_bytes(&row, session)?);
            let leaf = read.resolve_leaf(leaf).map_err(|error| BackendError::Invalid {
                store: self.describe(),
                reason: error.to_string(),
            })?;
            return Ok(PathRead::whole(read, leaf));
        }
        self.with_client(|client| self.read_indexed_path(client, session, &row, leaf))
            .map_err(crate::stores::within(session))
    }

    fn append_if_leaf(
        &self,
        session: &str,
        planned_leaf: Option<&str>,
        lines: &[String],
    ) -> Result<(), BackendError> {
        self.with_client(|client| {
            let mut transaction = client.transaction().map_err(|error| self.database(error))?;
            let row = self.session_row(&mut transaction, session, true)?;
            let actual: Option<String> = match row.leaf_seq {
                None => None,
                Some(seq) => transaction
                    .query_opt(
                        "SELECT id FROM compaction.lines WHERE sid = $1 AND seq = $2",
                        &[&row.sid, &seq],
                    )
                    .map_err(|error| self.database(error))?
                    .and_then(|found| found.get(0)),
            };
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
            let mut batch: Vec<crate::stores::tree::Node> = Vec::with_capacity(lines.len());
            for raw in lines {
                // A line count no session reaches (a row someone else wrote) is refused, not
                // wrapped around.
                seq = seq.checked_add(1).ok_or_else(|| BackendError::Invalid {
                    store: self.describe(),
                    reason: format!(
                        "session {session} claims {} lines; no line can follow",
                        row.lines
                    ),
                })?;
                let entry = self.check_new_line(&mut transaction, &row, &batch, seq, raw)?;
                let node = self.insert_appended(&mut transaction, &row, seq, &entry, &batch)?;
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
                    // The stored count saturates: a row of someone else's making may claim any
                    // size, and an append never fails on its sum.
                    "UPDATE compaction.sessions SET leaf_seq = $2, lines = $2, \
                     bytes = CASE WHEN bytes > 9223372036854775807 - $3 \
                     THEN 9223372036854775807 ELSE bytes + $3 END, \
                     final_newline = true WHERE sid = $1",
                    &[&row.sid, &seq, &added_bytes],
                )
                .map_err(|error| self.database(error))?;
            transaction.commit().map_err(|error| self.database(error))
        })
        .map_err(crate::stores::within(session))
    }

    fn export(&self, session: &str, out: &mut dyn Write) -> Result<u64, BackendError> {
        let row = self.with_client(|client| self.session_row(client, session, false))?;
        self.write_lines(&row, out, session)
    }

    fn try_lease(&self, session: &str, holder: &str, ttl: Duration) -> Result<bool, BackendError> {
        let ttl_ms = i64::try_from(ttl.as_millis()).unwrap_or(i64::MAX);
        self.with_client(|client| {
            let row = self.session_row(client, session, false)?;
            // Inserted, or taken over when it is this holder's or has expired: one row
            // changed. Held by another holder until later: none.
            let changed = client
                .execute(
                    "INSERT INTO compaction.leases AS lease (sid, holder, expires) \
                     VALUES ($1, $2, clock_timestamp() + $3::float8 * interval '1 millisecond') \
                     ON CONFLICT (sid) DO UPDATE SET holder = EXCLUDED.holder, \
                     expires = EXCLUDED.expires \
                     WHERE lease.holder = EXCLUDED.holder OR lease.expires <= clock_timestamp()",
                    &[&row.sid, &holder, &(ttl_ms as f64)],
                )
                .map_err(|error| self.database(error))?;
            Ok(changed == 1)
        })
    }

    fn release_lease(&self, session: &str, holder: &str) -> Result<(), BackendError> {
        self.with_client(|client| {
            let row = self.session_row(client, session, false)?;
            client
                .execute(
                    "DELETE FROM compaction.leases WHERE sid = $1 AND holder = $2",
                    &[&row.sid, &holder],
                )
                .map_err(|error| self.database(error))?;
            Ok(())
        })
    }
}
