//! The database's tables, and the explicit check and migration of its schema version.
//!
//! The version lives in SQLite's `user_version`. Opening checks it: a database of another
//! version is refused, never changed behind the user's back; [`migrate`] upgrades an older
//! one (each step in one transaction), and only a new, empty file gets the tables created
//! on open (`SqliteBackend::create`).

use rusqlite::Connection;

/// The schema version this build reads and writes.
pub const SCHEMA_VERSION: i64 = 1;

/// Each step takes the database from version `index` to `index + 1`.
const MIGRATIONS: [&str; 1] = [r"
CREATE TABLE sessions (
    sid INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    -- Whether the session's last line ends with a newline.
    final_newline INTEGER NOT NULL,
    -- Whether the path columns of `lines` can be followed (no unreadable line, duplicate
    -- id, dangling parent or cycle); otherwise a read parses the whole session.
    indexed INTEGER NOT NULL,
    -- The line of the current leaf (the last entry in file order), NULL without entries.
    leaf_seq INTEGER,
    lines INTEGER NOT NULL,
    bytes INTEGER NOT NULL
);
CREATE TABLE lines (
    sid INTEGER NOT NULL REFERENCES sessions (sid),
    -- The 1-based line number in the session's pi file; line 1 is the header.
    seq INTEGER NOT NULL,
    -- The entry's id, parentId and type; NULL for the header and unreadable lines.
    id TEXT,
    parent_id TEXT,
    type TEXT,
    -- Path columns (indexed sessions): the parent's line, the depth from the root, the
    -- nearest compaction (the entry itself or an ancestor), and the nearest ancestors that
    -- are not a message entry and that are an assistant message.
    parent_seq INTEGER,
    depth INTEGER,
    compaction_seq INTEGER,
    marker_seq INTEGER,
    assistant_seq INTEGER,
    -- The line's bytes as they were, without the newline.
    bytes BLOB NOT NULL,
    PRIMARY KEY (sid, seq)
);
CREATE INDEX lines_id ON lines (sid, id);
CREATE INDEX lines_parent ON lines (sid, parent_id);
CREATE INDEX lines_type ON lines (sid, type);
-- Covers the path walks, so following parents and non-message ancestors reads no line.
CREATE INDEX lines_path ON lines (sid, seq, type, depth, parent_seq, compaction_seq,
    marker_seq, assistant_seq);
CREATE TABLE leases (
    sid INTEGER PRIMARY KEY REFERENCES sessions (sid),
    holder TEXT NOT NULL,
    expires_ms INTEGER NOT NULL
);
"];

/// What the database's schema version says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SchemaState {
    /// The version this build knows.
    Current,
    /// A new file without any table.
    Empty,
    /// Another version (older: [`migrate`] upgrades it; newer: refused).
    Other(i64),
}

/// Reads the schema version.
pub fn state(connection: &Connection) -> rusqlite::Result<SchemaState> {
    let version: i64 = connection.query_row("PRAGMA user_version", [], |row| row.get(0))?;
    if version == SCHEMA_VERSION {
        return Ok(SchemaState::Current);
    }
    let tables: i64 =
        connection.query_row("SELECT count(*) FROM sqlite_master", [], |row| row.get(0))?;
    Ok(if version == 0 && tables == 0 { SchemaState::Empty } else { SchemaState::Other(version) })
}

/// Upgrades the schema step by step to [`SCHEMA_VERSION`], each step in one transaction;
/// returns the version it started from. A newer version is left alone (the caller refuses
/// it).
pub fn migrate(connection: &mut Connection) -> rusqlite::Result<i64> {
    let from: i64 = connection.query_row("PRAGMA user_version", [], |row| row.get(0))?;
    let mut version = from;
    while version < SCHEMA_VERSION {
        let step = usize::try_from(version).unwrap_or(usize::MAX);
        let Some(sql) = MIGRATIONS.get(step) else { break };
        let transaction = connection.transaction()?;
        transaction.execute_batch(sql)?;
        transaction.pragma_update(None, "user_version", version + 1)?;
        transaction.commit()?;
        version += 1;
    }
    Ok(from)
}
