//! Writing lines: importing a pi file (one transaction, rows streamed with `COPY … BINARY`),
//! and the rows of appended entries.

use std::path::Path;

use compaction_core::Entry;
use postgres::binary_copy::BinaryCopyInWriter;
use postgres::types::{ToSql, Type};
use postgres::{GenericClient, Transaction};

use super::{PostgresBackend, SessionRow};
use crate::stores::sqlite::Imported;
use crate::stores::tree::{ImportPlan, Node, PathColumns};
use crate::stores::{BackendError, SessionBackend};

const COPY: &str = "COPY compaction.lines (sid, seq, id, parent_id, type, parent_seq, depth, \
     compaction_seq, marker_seq, assistant_seq, bytes) FROM STDIN (FORMAT binary)";

const INSERT: &str = "INSERT INTO compaction.lines (sid, seq, id, parent_id, type, parent_seq, \
     depth, compaction_seq, marker_seq, assistant_seq, bytes) \
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)";

const COLUMN_TYPES: [Type; 11] = [
    Type::INT8,
    Type::INT8,
    Type::TEXT,
    Type::TEXT,
    Type::TEXT,
    Type::INT8,
    Type::INT8,
    Type::INT8,
    Type::INT8,
    Type::INT8,
    Type::BYTEA,
];

/// One line's column values; `node` is `None` for the header, an unreadable line, or an
/// entry of a session without path columns.
struct LineRow<'a> {
    sid: i64,
    seq: i64,
    id: Option<&'a str>,
    parent_id: Option<&'a str>,
    kind: Option<&'a str>,
    columns: Option<PathColumns>,
    bytes: &'a [u8],
}

impl<'a> LineRow<'a> {
    fn new(
        sid: i64,
        seq: i64,
        entry: Option<&'a Entry>,
        node: Option<&Node>,
        bytes: &'a [u8],
    ) -> LineRow<'a> {
        LineRow {
            sid,
            seq,
            id: entry.map(|entry| entry.id.as_str()),
            parent_id: entry.and_then(|entry| entry.parent_id.as_deref()),
            kind: entry.map(|entry| entry.kind.type_name()),
            columns: node.map(|node| node.columns),
            bytes,
        }
    }

    /// Runs `write` with the row's values in column order.
    fn with_values<T>(&self, write: impl FnOnce(&[&(dyn ToSql + Sync)]) -> T) -> T {
        let columns = self.columns;
        let parent_seq = columns.and_then(|c| c.parent_seq);
        let depth = columns.map(|c| c.depth);
        let compaction_seq = columns.and_then(|c| c.compaction_seq);
        let marker_seq = columns.and_then(|c| c.marker_seq);
        let assistant_seq = columns.and_then(|c| c.assistant_seq);
        write(&[
            &self.sid,
            &self.seq,
            &self.id,
            &self.parent_id,
            &self.kind,
            &parent_seq,
            &depth,
            &compaction_seq,
            &marker_seq,
            &assistant_seq,
            &self.bytes,
        ])
    }
}

impl PostgresBackend {
    /// Imports a pi session file (a regular file of at most
    /// [`MAX_IMPORT_BYTES`](crate::stores::MAX_IMPORT_BYTES), read whole) as a new session.
    pub fn import_file(&self, path: &Path) -> Result<Imported, BackendError> {
        let bytes = crate::stores::read_import_file(path)?;
        self.import_bytes(&bytes, &path.display().to_string())
    }

    /// Imports a pi session's bytes (`source` names them in errors) as a new session, in one
    /// transaction. A file of an older format version is refused (`compaction migrate`
    /// rewrites it first), so every id an entry references is in the stored bytes.
    pub fn import_bytes(&self, bytes: &[u8], source: &str) -> Result<Imported, BackendError> {
        let plan = ImportPlan::new(bytes, source)?;
        let (id, sound, ends_with_newline) = (&plan.id, plan.sound, plan.final_newline);
        let total = i64::try_from(bytes.len()).unwrap_or(i64::MAX);
        let database = |error| self.database(error);
        let lines = self.with_client(|client| {
            let mut transaction = client.transaction().map_err(database)?;
            let exists = transaction
                .query_opt("SELECT sid FROM compaction.sessions WHERE id = $1", &[&id])
                .map_err(database)?;
            if exists.is_some() {
                return Err(BackendError::Exists { store: self.describe(), session: id.clone() });
            }
            let sid: i64 = transaction
                .query_one(
                    "INSERT INTO compaction.sessions (id, final_newline, indexed, leaf_seq, \
                     lines, bytes) VALUES ($1, $2, $3, NULL, 0, $4) RETURNING sid",
                    &[&id, &ends_with_newline, &sound, &total],
                )
                .map_err(database)?
                .get(0);
            let sink = transaction.copy_in(COPY).map_err(database)?;
            let mut writer = BinaryCopyInWriter::new(sink, &COLUMN_TYPES);
            let (lines, leaf_seq) = plan
                .write_lines(|seq, entry, node, line| {
                    LineRow::new(sid, seq, entry, node, line)
                        .with_values(|values| writer.write(values))
                })
                .map_err(database)?;
            writer.finish().map_err(database)?;
            transaction
                .execute(
                    "UPDATE compaction.sessions SET leaf_seq = $2, lines = $3 WHERE sid = $1",
                    &[&sid, &leaf_seq, &lines],
                )
                .map_err(database)?;
            transaction.commit().map_err(database)?;
            Ok(lines)
        })?;
        Ok(Imported {
            session: plan.id.clone(),
            lines: u64::try_from(lines).unwrap_or(0),
            bytes: bytes.len() as u64,
            indexed: sound,
        })
    }

    /// Checks an appended line: one line, an entry, an unused id, a known parent.
    pub(crate) fn check_new_line(
        &self,
        transaction: &mut Transaction<'_>,
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
        let mut exists = |sql: &str, id: &str| -> Result<bool, BackendError> {
            transaction
                .query_one(sql, &[&row.sid, &id])
                .map(|found| found.get(0))
                .map_err(|error| self.database(error))
        };
        let entry_sql = "SELECT EXISTS (SELECT 1 FROM compaction.lines WHERE sid = $1 AND id = $2)";
        let unreadable_sql = "SELECT EXISTS (SELECT 1 FROM compaction.lines WHERE sid = $1 \
                              AND seq > 1 AND id IS NULL \
                              AND position(convert_to($2, 'UTF8') IN bytes) > 0)";
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

    /// Inserts an appended entry's row; its parent is an earlier entry of `batch` or a
    /// stored row.
    pub(crate) fn insert_appended(
        &self,
        transaction: &mut Transaction<'_>,
        row: &SessionRow,
        seq: i64,
        entry: &Entry,
        batch: &[Node],
    ) -> Result<Node, BackendError> {
        let parent = match &entry.parent_id {
            None => None,
            Some(parent_id) => match batch.iter().find(|node| &node.id == parent_id) {
                Some(node) => Some(node.clone()),
                None => self.stored_node(transaction, row.sid, parent_id)?,
            },
        };
        let node = Node::of(entry, seq, parent.as_ref());
        let indexed = row.indexed.then_some(&node);
        LineRow::new(row.sid, seq, Some(entry), indexed, entry.line_bytes())
            .with_values(|values| transaction.execute(INSERT, values))
            .map_err(|error| self.database(error))?;
        Ok(node)
    }

    /// A stored entry as a parent.
    fn stored_node(
        &self,
        client: &mut impl GenericClient,
        sid: i64,
        id: &str,
    ) -> Result<Option<Node>, BackendError> {
        let found = client
            .query_opt(
                "SELECT seq, type, depth, compaction_seq, marker_seq, assistant_seq, bytes \
                 FROM compaction.lines WHERE sid = $1 AND id = $2 ORDER BY seq LIMIT 1",
                &[&sid, &id],
            )
            .map_err(|error| self.database(error))?;
        Ok(found.map(|row| {
            let kind: Option<String> = row.get(1);
            let bytes: Vec<u8> = row.get(6);
            let columns = PathColumns {
                parent_seq: None,
                depth: row.get::<_, Option<i64>>(2).unwrap_or(0),
                compaction_seq: row.get(3),
                marker_seq: row.get(4),
                assistant_seq: row.get(5),
            };
            let is_message = kind.as_deref() == Some("message");
            let entry = std::str::from_utf8(&bytes).ok().and_then(|raw| Entry::parse(0, raw).ok());
            let is_assistant =
                is_message && entry.as_ref().and_then(Entry::role) == Some("assistant");
            Node { id: id.to_owned(), seq: row.get(0), is_message, is_assistant, columns }
        }))
    }
}
