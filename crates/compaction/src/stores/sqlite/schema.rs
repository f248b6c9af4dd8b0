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

/// One object of a database's schema as SQLite records it.
#[derive(Debug, Clone, PartialEq, Eq)]
struct SchemaObject {
    kind: String,
    name: String,
    table: String,
    sql: Option<String>,
}

fn objects(connection: &Connection) -> rusqlite::Result<Vec<SchemaObject>> {
    let mut statement = connection
        .prepare("SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY type, name")?;
    let rows = statement.query_map([], |row| {
        Ok(SchemaObject {
            kind: row.get(0)?,
            name: row.get(1)?,
            table: row.get(2)?,
            sql: row.get(3)?,
        })
    })?;
    rows.collect()
}

/// The objects the migrations up to `version` create, read back from a database in memory
/// that ran them (so the comparison is with SQLite's own record of this tool's SQL).
fn expected_objects(version: i64) -> rusqlite::Result<Vec<SchemaObject>> {
    let mut connection = Connection::open_in_memory()?;
    let steps = usize::try_from(version).unwrap_or(0).min(MIGRATIONS.len());
    for sql in &MIGRATIONS[..steps] {
        let transaction = connection.transaction()?;
        transaction.execute_batch(sql)?;
        transaction.commit()?;
    }
    objects(&connection)
}

/// What in the database's schema this tool's migrations up to `version` did not make: an
/// object it did not create (a trigger holds SQL that would run when the tool writes, a
/// view can stand in place of a table, an index can call functions), one it creates that
/// is missing, or one of its own whose SQL differs. `None` when the schema is exactly the
/// tool's. `version` must be one this build knows (0 for an empty database).
pub fn foreign_object(connection: &Connection, version: i64) -> rusqlite::Result<Option<String>> {
    let expected = expected_objects(version)?;
    let found = objects(connection)?;
    let describe = |object: &SchemaObject| {
        if object.table != object.name {
            format!("{} `{}` on `{}`", object.kind, object.name, object.table)
        } else {
            format!("{} `{}`", object.kind, object.name)
        }
    };
    for object in &found {
        match expected.iter().find(|e| e.kind == object.kind && e.name == object.name) {
            None => {
                return Ok(Some(format!("a {} that this tool did not create", describe(object))));
            }
            Some(mine) if mine != object => {
                return Ok(Some(format!(
                    "the {} differs from the one this tool creates",
                    describe(object)
                )));
            }
            Some(_) => {}
        }
    }
    Ok(expected
        .iter()
        .find(|e| !found.iter().any(|f| f.kind == e.kind && f.name == e.name))
        .map(|missing| format!("the {} that this tool creates is missing", describe(missing))))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_tools_own_schema_has_no_foreign_object_and_any_addition_is_named() {
        let mut connection = Connection::open_in_memory().unwrap();
        assert_eq!(foreign_object(&connection, 0).unwrap(), None);
        migrate(&mut connection).unwrap();
        assert_eq!(foreign_object(&connection, SCHEMA_VERSION).unwrap(), None);
        assert!(foreign_object(&connection, 0).unwrap().unwrap().contains("did not create"));
        connection
            .execute_batch("CREATE TRIGGER t AFTER INSERT ON lines BEGIN SELECT 1; END;")
            .unwrap();
        let found = foreign_object(&connection, SCHEMA_VERSION).unwrap().unwrap();
        assert!(found.contains("trigger `t` on `lines`"), "{found}");
        connection.execute_batch("DROP TRIGGER t; DROP INDEX lines_type;").unwrap();
        let found = foreign_object(&connection, SCHEMA_VERSION).unwrap().unwrap();
        assert!(found.contains("index `lines_type` on `lines`") && found.contains("missing"));
    }
}
