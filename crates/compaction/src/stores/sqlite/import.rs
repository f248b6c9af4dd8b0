//! Writing lines: importing a pi file, and the rows of appended entries.

use std::path::Path;

use compaction_core::Entry;
use rusqlite::{OptionalExtension, Transaction, params};

use super::{SessionRow, SqliteBackend};
use crate::stores::tree::{ImportPlan, Node, PathColumns};
use crate::stores::{BackendError, SessionBackend};

/// What importing one file did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Imported {
    /// The session's id (its header's `id`).
    pub session: String,
    /// Lines stored (header included).
    pub lines: u64,
    /// Bytes stored, as the file had them.
    pub bytes: u64,
    /// Whether the path columns were filled (a sound tree); otherwise reads parse the whole
    /// session.
    pub indexed: bool,
}

const INSERT: &str = "INSERT INTO lines (sid, seq, id, parent_id, type, parent_seq, depth, \
     compaction_seq, marker_seq, assistant_seq, bytes) \
     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)";

/// Inserts one line; `node` is `None` for the header, an unreadable line, or an entry of a
/// session without path columns.
fn insert(
    transaction: &Transaction<'_>,
    sid: i64,
    seq: i64,
    entry: Option<&Entry>,
    node: Option<&Node>,
    bytes: &[u8],
) -> rusqlite::Result<()> {
    let columns = node.map(|node| node.columns);
    transaction.prepare_cached(INSERT)?.execute(params![
        sid,
        seq,
        entry.map(|entry| entry.id.as_str()),
        entry.and_then(|entry| entry.parent_id.as_deref()),
        entry.map(|entry| entry.kind.type_name()),
        columns.and_then(|c| c.parent_seq),
        columns.map(|c| c.depth),
        columns.and_then(|c| c.compaction_seq),
        columns.and_then(|c| c.marker_seq),
        columns.and_then(|c| c.assistant_seq),
        bytes,
    ])?;
    Ok(())
}

/// Inserts an appended entry's row; its parent is an earlier entry of `batch` or a stored
/// row.
pub(crate) fn insert_appended(
    transaction: &Transaction<'_>,
    row: &SessionRow,
    seq: i64,
    entry: &Entry,
    batch: &[Node],
) -> rusqlite::Result<Node> {
    let parent = match &entry.parent_id {
        None => None,
        Some(parent_id) => match batch.iter().find(|node| &node.id == parent_id) {
            Some(node) => Some(node.clone()),
            None => stored_node(transaction, row.sid, parent_id)?,
        },
    };
    let node = Node::of(entry, seq, parent.as_ref());
    let indexed = row.indexed.then_some(&node);
    insert(transaction, row.sid, seq, Some(entry), indexed, entry.line_bytes())?;
    Ok(node)
}

/// A stored entry as a parent.
fn stored_node(
    transaction: &Transaction<'_>,
    sid: i64,
    id: &str,
) -> rusqlite::Result<Option<Node>> {
    let found = transaction
        .prepare_cached(
            "SELECT seq, type, depth, compaction_seq, marker_seq, assistant_seq, bytes \
             FROM lines WHERE sid = ?1 AND id = ?2 ORDER BY seq LIMIT 1",
        )?
        .query_row(params![sid, id], |row| {
            let bytes: Vec<u8> = row.get(6)?;
            Ok((
                row.get::<_, i64>(0)?,
                row.get::<_, Option<String>>(1)?,
                PathColumns {
                    parent_seq: None,
                    depth: row.get::<_, Option<i64>>(2)?.unwrap_or(0),
                    compaction_seq: row.get(3)?,
                    marker_seq: row.get(4)?,
                    assistant_seq: row.get(5)?,
                },
                bytes,
            ))
        })
        .optional()?;
    Ok(found.map(|(seq, kind, columns, bytes)| {
        let is_message = kind.as_deref() == Some("message");
        let entry = std::str::from_utf8(&bytes).ok().and_then(|raw| Entry::parse(0, raw).ok());
        let is_assistant = is_message && entry.as_ref().and_then(Entry::role) == Some("assistant");
        Node { id: id.to_owned(), seq, is_message, is_assistant, columns }
    }))
}

impl SqliteBackend {
    /// Imports a pi session file (a regular file of at most
    /// [`MAX_IMPORT_BYTES`](crate::stores::MAX_IMPORT_BYTES), read whole) as a new session.
    pub fn import_file(&self, path: &Path) -> Result<Imported, BackendError> {
        let bytes = crate::stores::read_import_file(path)?;
        self.import_bytes(&bytes, &path.display().to_string())
    }

    /// Imports a pi session's bytes (`source` names them in errors) as a new session. A
    /// file of an older format version is refused (`compaction migrate` rewrites it first),
    /// so every id an entry references is in the stored bytes.
    pub fn import_bytes(&self, bytes: &[u8], source: &str) -> Result<Imported, BackendError> {
        let plan = ImportPlan::new(bytes, source)?;
        let (id, sound) = (plan.id.clone(), plan.sound);
        let mut connection = self.connection();
        let transaction = connection
            .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)
            .map_err(|error| self.database(error))?;
        let exists: Option<i64> = transaction
            .query_row("SELECT sid FROM sessions WHERE id = ?1", [&id], |row| row.get(0))
            .optional()
            .map_err(|error| self.database(error))?;
        if exists.is_some() {
            return Err(BackendError::Exists { store: self.describe(), session: id });
        }
        transaction
            .execute(
                "INSERT INTO sessions (id, final_newline, indexed, leaf_seq, lines, bytes) \
                 VALUES (?1, ?2, ?3, NULL, 0, ?4)",
                params![&id, plan.final_newline, sound, i64::try_from(bytes.len()).unwrap_or(0)],
            )
            .map_err(|error| self.database(error))?;
        let sid = transaction.last_insert_rowid();
        let (lines, leaf_seq) = plan
            .write_lines(|seq, entry, node, line| insert(&transaction, sid, seq, entry, node, line))
            .map_err(|error| self.database(error))?;
        transaction
            .execute(
                "UPDATE sessions SET leaf_seq = ?2, lines = ?3 WHERE sid = ?1",
                params![sid, leaf_seq, lines],
            )
            .map_err(|error| self.database(error))?;
        transaction.commit().map_err(|error| self.database(error))?;
        Ok(Imported {
            session: id,
            lines: u64::try_from(lines).unwrap_or(0),
            bytes: bytes.len() as u64,
            indexed: sound,
        })
    }

    /// Checks an appended line: one line, an entry, an unused id, a known parent.
    pub(crate) fn check_new_line(
        &self,
        transaction: &Transaction<'_>,
        row: &SessionRow,
        batch: &[Node],
        seq: i64,
        raw: &str,
    ) -> Result<Entry, BackendError> {
        let invalid = |reason: String| BackendError::Invalid {
            store: self.describe(),
            reason: format!("cannot append line {seq}: {reason}"),
        };
        if raw.contains('\n') {
            return Err(invalid("an entry is one line".to_owned()));
        }
        if raw.len() > compaction_core::parse::DEFAULT_MAX_LINE_BYTES {
            return Err(invalid("the line is over the line limit".to_owned()));
        }
        let line = usize::try_from(seq).unwrap_or(usize::MAX);
        let entry = Entry::parse(line, raw).map_err(|error| invalid(error.to_string()))?;
        let in_batch = |id: &str| batch.iter().any(|node| node.id == id);
        // An id is in use when an entry has it, or when a line this store could not read
        // holds it (pi may read that line).
        let exists = |sql: &str, id: &str| -> Result<bool, BackendError> {
            transaction
                .query_row(sql, params![row.sid, id], |found| found.get(0))
                .map_err(|error| self.database(error))
        };
        let entry_sql = "SELECT EXISTS (SELECT 1 FROM lines WHERE sid = ?1 AND id = ?2)";
        let unreadable_sql = "SELECT EXISTS (SELECT 1 FROM lines WHERE sid = ?1 AND seq > 1 \
                              AND id IS NULL AND instr(bytes, CAST(?2 AS BLOB)) > 0)";
        if in_batch(&entry.id)
            || exists(entry_sql, &entry.id)?
            || (!row.indexed && exists(unreadable_sql, &entry.id)?)
        {
            return Err(invalid(format!("id `{}` is already used", entry.id)));
        }
        if let Some(parent) = &entry.parent_id
            && !in_batch(parent)
            && !exists(entry_sql, parent)?
        {
            return Err(invalid(format!("parent `{parent}` does not exist")));
        }
        Ok(entry)
    }
}
