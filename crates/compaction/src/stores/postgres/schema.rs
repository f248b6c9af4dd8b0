//! The database's tables, and the explicit check and migration of its schema version.
//!
//! Everything lives in the Postgres schema `compaction`, whose table `schema_version` holds
//! the version in its one row. Opening checks it: a database of another version is refused,
//! never changed behind the user's back; [`migrate`] upgrades an older one, each step in one
//! transaction under an advisory lock (two processes migrating at once take turns), and
//! only a database without the `compaction` schema gets the tables created by
//! `PostgresBackend::create` (`compaction store import`).

use postgres::Client;

/// The schema version this build reads and writes.
pub const SCHEMA_VERSION: i64 = 1;

/// The advisory lock key migrations take (any fixed number; "cmpc" in ASCII).
pub(crate) const MIGRATION_LOCK: i64 = 0x636d_7063;

/// Each step takes the database from version `index` to `index + 1`.
const MIGRATIONS: [&str; 1] = [r"
CREATE SCHEMA compaction;
CREATE TABLE compaction.schema_version (version bigint NOT NULL);
INSERT INTO compaction.schema_version (version) VALUES (0);
CREATE TABLE compaction.sessions (
    sid bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    id text NOT NULL UNIQUE,
    -- Whether the session's last line ends with a newline.
    final_newline boolean NOT NULL,
    -- Whether the path columns of `lines` can be followed (no unreadable line, duplicate
    -- id, dangling parent or cycle); otherwise a read parses the whole session.
    indexed boolean NOT NULL,
    -- The line of the current leaf (the last entry in file order), NULL without entries.
    leaf_seq bigint,
    lines bigint NOT NULL,
    bytes bigint NOT NULL
);
CREATE TABLE compaction.lines (
    sid bigint NOT NULL REFERENCES compaction.sessions (sid),
    -- The 1-based line number in the session's pi file; line 1 is the header.
    seq bigint NOT NULL,
    -- The entry's id, parentId and type; NULL for the header and unreadable lines.
    id text,
    parent_id text,
    type text,
    -- Path columns (indexed sessions): the parent's line, the depth from the root, the
    -- nearest compaction (the entry itself or an ancestor), and the nearest ancestors that
    -- are not a message entry and that are an assistant message.
    parent_seq bigint,
    depth bigint,
    compaction_seq bigint,
    marker_seq bigint,
    assistant_seq bigint,
    -- The line's bytes as they were, without the newline.
    bytes bytea NOT NULL,
    PRIMARY KEY (sid, seq)
);
CREATE INDEX lines_id ON compaction.lines (sid, id);
CREATE INDEX lines_parent ON compaction.lines (sid, parent_id);
CREATE INDEX lines_type ON compaction.lines (sid, type);
-- A lease expires at `expires` by the database's clock, so a holder that dies (SIGKILL,
-- a lost machine) loses it without anyone cleaning up.
CREATE TABLE compaction.leases (
    sid bigint PRIMARY KEY REFERENCES compaction.sessions (sid),
    holder text NOT NULL,
    expires timestamptz NOT NULL
);
"];

/// What the database's schema version says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SchemaState {
    /// The version this build knows.
    Current,
    /// No `compaction` schema: nothing of this tool's is there yet.
    Empty,
    /// Another version (older: [`migrate`] upgrades it; newer: refused).
    Other(i64),
    /// The current version, holding an object this tool did not create (see
    /// [`foreign_object`]).
    Foreign(String),
}

/// Reads the schema version.
pub fn state(client: &mut Client) -> Result<SchemaState, postgres::Error> {
    let row = client.query_one(
        "SELECT to_regnamespace('compaction') IS NOT NULL, \
                to_regclass('compaction.schema_version') IS NOT NULL",
        &[],
    )?;
    let (schema, table): (bool, bool) = (row.get(0), row.get(1));
    if !schema {
        return Ok(SchemaState::Empty);
    }
    if !table {
        return Ok(SchemaState::Other(0));
    }
    // An empty version table (someone else's) holds no version: read as none.
    let version: Option<i64> =
        client.query_one("SELECT max(version) FROM compaction.schema_version", &[])?.get(0);
    let version = version.unwrap_or(0);
    Ok(if version == SCHEMA_VERSION { SchemaState::Current } else { SchemaState::Other(version) })
}

/// Upgrades the schema step by step to [`SCHEMA_VERSION`], each step in one transaction;
/// returns the version it started from (0: no `compaction` schema). A newer version is left
/// alone (the caller refuses it).
pub fn migrate(client: &mut Client) -> Result<i64, postgres::Error> {
    let mut first = None;
    loop {
        let mut transaction = client.transaction()?;
        transaction.execute("SELECT pg_advisory_xact_lock($1)", &[&MIGRATION_LOCK])?;
        let exists: bool = transaction
            .query_one("SELECT to_regclass('compaction.schema_version') IS NOT NULL", &[])?
            .get(0);
        let version: i64 = if exists {
            transaction.query_one("SELECT max(version) FROM compaction.schema_version", &[])?.get(0)
        } else {
            0
        };
        let from = *first.get_or_insert(version);
        let step = usize::try_from(version).unwrap_or(usize::MAX);
        let Some(sql) = MIGRATIONS.get(step).filter(|_| version < SCHEMA_VERSION) else {
            return Ok(from);
        };
        transaction.batch_execute(sql)?;
        transaction
            .execute("UPDATE compaction.schema_version SET version = $1", &[&(version + 1)])?;
        transaction.commit()?;
    }
}

/// Code or objects in the `compaction` schema that this tool's migrations do not create: a
/// trigger or rule on its tables (code that would run when it writes), a view, materialized
/// view or foreign table (which would answer in place of a table), a function, a
/// row-level security policy, a column default or check constraint (expressions that run
/// on every write; the tool's tables have none), a table it does not know. `None` when
/// there is none.
pub fn foreign_object(client: &mut Client) -> Result<Option<String>, postgres::Error> {
    const FOREIGN: &str = "\
        SELECT 'a trigger `' || t.tgname || '` on `' || c.relname || '`' FROM pg_trigger t \
          JOIN pg_class c ON c.oid = t.tgrelid \
          WHERE c.relnamespace = 'compaction'::regnamespace AND NOT t.tgisinternal \
        UNION ALL SELECT 'a rule `' || r.rulename || '` on `' || c.relname || '`' \
          FROM pg_rewrite r JOIN pg_class c ON c.oid = r.ev_class \
          WHERE c.relnamespace = 'compaction'::regnamespace AND r.rulename <> '_RETURN' \
        UNION ALL SELECT 'a ' || CASE c.relkind WHEN 'v' THEN 'view' \
          WHEN 'm' THEN 'materialized view' WHEN 'f' THEN 'foreign table' \
          WHEN 'p' THEN 'partitioned table' ELSE 'relation' END || ' `' || c.relname || '`' \
          FROM pg_class c WHERE c.relnamespace = 'compaction'::regnamespace \
          AND c.relkind NOT IN ('r', 'i', 'S') \
        UNION ALL SELECT 'a table `' || c.relname || '` that this tool did not create' \
          FROM pg_class c WHERE c.relnamespace = 'compaction'::regnamespace \
          AND c.relkind = 'r' \
          AND c.relname NOT IN ('schema_version', 'sessions', 'lines', 'leases') \
        UNION ALL SELECT 'a function `' || p.proname || '`' FROM pg_proc p \
          WHERE p.pronamespace = 'compaction'::regnamespace \
        UNION ALL SELECT 'a row-level security policy `' || p.polname || '` on `' \
          || c.relname || '`' FROM pg_policy p JOIN pg_class c ON c.oid = p.polrelid \
          WHERE c.relnamespace = 'compaction'::regnamespace \
        UNION ALL SELECT 'a default of column `' || a.attname || '` of `' || c.relname || '`' \
          FROM pg_attrdef d JOIN pg_class c ON c.oid = d.adrelid \
          JOIN pg_attribute a ON a.attrelid = d.adrelid AND a.attnum = d.adnum \
          WHERE c.relnamespace = 'compaction'::regnamespace \
        UNION ALL SELECT 'a check constraint `' || k.conname || '` on `' || c.relname || '`' \
          FROM pg_constraint k JOIN pg_class c ON c.oid = k.conrelid \
          WHERE c.relnamespace = 'compaction'::regnamespace AND k.contype = 'c' \
        LIMIT 1";
    Ok(client.query_opt(FOREIGN, &[])?.map(|row| row.get(0)))
}
