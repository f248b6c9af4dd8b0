//! Reading a session whole, or only the part of the path to a leaf that the context needs.

use std::collections::BTreeMap;
use std::io::Write;

use compaction_core::Entry;
use rusqlite::{Connection, OptionalExtension, params};

use super::{SessionRow, SqliteBackend};
use crate::stores::tree::{Step, marker_wanted, names_model, path_read};
use crate::stores::{BackendError, PathRead, SessionBackend};

/// A line's path column that names `next` from line `seq`: path columns always name an
/// earlier line (a parent, a compaction or an ancestor is written before its children), so
/// every walk ends; one that names the line itself or a later one was not written by this
/// tool, and is refused rather than followed round a loop.
pub(crate) fn earlier(seq: i64, next: Option<i64>, column: &str) -> rusqlite::Result<Option<i64>> {
    match next {
        Some(next) if next >= seq => Err(rusqlite::Error::ToSqlConversionFailure(
            format!(
                "line {seq}: its `{column}` names line {next}, not an earlier line (path \
                 columns this tool did not write); refusing to follow them"
            )
            .into(),
        )),
        other => Ok(other),
    }
}

impl SqliteBackend {
    /// Writes the session's lines as its pi file.
    pub(crate) fn write_lines(
        &self,
        connection: &Connection,
        row: &SessionRow,
        out: &mut dyn Write,
        session: &str,
    ) -> Result<u64, BackendError> {
        let mut statement = connection
            .prepare_cached("SELECT bytes FROM lines WHERE sid = ?1 ORDER BY seq")
            .map_err(|error| self.database(error))?;
        let mut rows = statement.query([row.sid]).map_err(|error| self.database(error))?;
        let io = |source| BackendError::Io { what: format!("cannot write {session}"), source };
        let mut written = 0u64;
        let mut seq = 0;
        while let Some(line) = rows.next().map_err(|error| self.database(error))? {
            seq += 1;
            let bytes = match line.get_ref(0).map_err(|error| self.database(error))? {
                rusqlite::types::ValueRef::Blob(bytes) => bytes,
                other @ (rusqlite::types::ValueRef::Null
                | rusqlite::types::ValueRef::Integer(_)
                | rusqlite::types::ValueRef::Real(_)
                | rusqlite::types::ValueRef::Text(_)) => {
                    return Err(BackendError::Invalid {
                        store: format!("{}#{session}", self.describe()),
                        reason: format!(
                            "line {seq} is stored as {}, not as the line's bytes (a row this \
                             tool did not write); refusing to read the session",
                            other.data_type().to_string().to_lowercase()
                        ),
                    });
                }
            };
            out.write_all(bytes).map_err(io)?;
            written += bytes.len() as u64;
            if seq < row.lines || row.final_newline {
                out.write_all(b"\n").map_err(io)?;
                written += 1;
            }
        }
        Ok(written)
    }

    /// The session's pi file bytes.
    pub(crate) fn session_bytes(
        &self,
        connection: &Connection,
        row: &SessionRow,
        session: &str,
    ) -> Result<Vec<u8>, BackendError> {
        crate::stores::read_bounded(&format!("{}#{session}", self.describe()), row.bytes, |out| {
            self.write_lines(connection, row, out, session)
        })
    }

    /// Reads what the context at `leaf` needs through the path columns: the path from the
    /// latest compaction's first kept entry (or the root) to the leaf, the non-message
    /// entries above it, and the nearest assistant replies above it up to one naming its
    /// model (see [`PathRead`]).
    pub(crate) fn read_indexed_path(
        &self,
        connection: &Connection,
        session: &str,
        row: &SessionRow,
        leaf: Option<&str>,
    ) -> Result<PathRead, BackendError> {
        let database = |error| self.database(error);
        let leaf_seq = match leaf {
            None => row.leaf_seq,
            Some(id) => Some(
                connection
                    .query_row(
                        "SELECT seq FROM lines WHERE sid = ?1 AND id = ?2",
                        params![row.sid, id],
                        |found| found.get::<_, i64>(0),
                    )
                    .optional()
                    .map_err(database)?
                    .ok_or_else(|| BackendError::Invalid {
                        store: format!("{}#{session}", self.describe()),
                        reason: compaction_core::session::UnknownEntryId(id.to_owned()).to_string(),
                    })?,
            ),
        };
        let mut wanted: BTreeMap<i64, Step> = BTreeMap::new();
        if let Some(leaf_seq) = leaf_seq {
            let top_depth = self.window_top_depth(connection, row.sid, leaf_seq)?;
            let window = walk(connection, row.sid, leaf_seq, top_depth).map_err(database)?;
            let top = window.last().map(|top| (top.marker_seq, top.assistant_seq));
            for step in window {
                wanted.insert(step.seq, step);
            }
            if let Some((marker_seq, assistant_seq)) = top {
                for step in markers(connection, row.sid, marker_seq).map_err(database)? {
                    wanted.insert(step.seq, step);
                }
                let mut assistant = assistant_seq;
                while let Some(seq) = assistant {
                    let step = step_at(connection, row.sid, seq).map_err(database)?;
                    assistant = if names_model(&step.bytes) {
                        None
                    } else {
                        earlier(seq, step.assistant_seq, "assistant_seq").map_err(database)?
                    };
                    wanted.insert(step.seq, step);
                }
            }
        }
        let header = line_bytes(connection, row.sid, 1).map_err(database)?;
        path_read(header, wanted, || format!("{}#{session}", self.describe()))
    }

    /// The depth the context's entries start at: the latest compaction's first kept entry
    /// (or the compaction itself), or the root without a compaction.
    fn window_top_depth(
        &self,
        connection: &Connection,
        sid: i64,
        leaf_seq: i64,
    ) -> Result<i64, BackendError> {
        let database = |error| self.database(error);
        let compaction: Option<i64> = connection
            .query_row(
                "SELECT compaction_seq FROM lines WHERE sid = ?1 AND seq = ?2",
                params![sid, leaf_seq],
                |found| found.get(0),
            )
            .map_err(database)?;
        let Some(compaction) = compaction else { return Ok(0) };
        let step = step_at(connection, sid, compaction).map_err(database)?;
        let first_kept = std::str::from_utf8(&step.bytes)
            .ok()
            .and_then(|raw| Entry::parse(0, raw).ok())
            .and_then(|entry| entry.kind.as_compaction().map(|c| c.first_kept_entry_id.clone()));
        let Some(first_kept) = first_kept else { return Ok(step.depth) };
        let kept_depth: Option<i64> = connection
            .query_row(
                "SELECT depth FROM lines WHERE sid = ?1 AND id = ?2",
                params![sid, first_kept],
                |found| found.get(0),
            )
            .optional()
            .map_err(database)?;
        Ok(kept_depth.map_or(step.depth, |depth| depth.min(step.depth)))
    }
}

fn step_of(row: &rusqlite::Row<'_>) -> rusqlite::Result<Step> {
    Ok(Step {
        seq: row.get(0)?,
        depth: row.get::<_, Option<i64>>(1)?.unwrap_or(0),
        marker_seq: row.get(2)?,
        assistant_seq: row.get(3)?,
        bytes: row.get(4)?,
    })
}

/// One row's path columns, read from the covering `lines_path` index alone.
#[derive(Debug, Clone)]
struct PathRow {
    kind: Option<String>,
    depth: i64,
    parent_seq: Option<i64>,
    marker_seq: Option<i64>,
}

fn path_row(connection: &Connection, sid: i64, seq: i64) -> rusqlite::Result<PathRow> {
    connection
        .prepare_cached(
            "SELECT type, depth, parent_seq, marker_seq FROM lines INDEXED BY lines_path \
             WHERE sid = ?1 AND seq = ?2",
        )?
        .query_row(params![sid, seq], |row| {
            Ok(PathRow {
                kind: row.get(0)?,
                depth: row.get::<_, Option<i64>>(1)?.unwrap_or(0),
                parent_seq: row.get(2)?,
                marker_seq: row.get(3)?,
            })
        })
}

/// The path from `leaf_seq` up to depth `top_depth`, leaf first, one indexed step per
/// entry (the walks are point lookups rather than recursive queries, so their cost never
/// depends on the query planner).
fn walk(
    connection: &Connection,
    sid: i64,
    leaf_seq: i64,
    top_depth: i64,
) -> rusqlite::Result<Vec<Step>> {
    let mut steps = Vec::new();
    let mut next = Some(leaf_seq);
    while let Some(seq) = next {
        let row = path_row(connection, sid, seq)?;
        steps.push(step_at(connection, sid, seq)?);
        next =
            if row.depth > top_depth { earlier(seq, row.parent_seq, "parent_seq")? } else { None };
    }
    Ok(steps)
}

/// The non-message ancestors above the context's first entry that the projection reads,
/// nearest first: every `custom` entry (pins and prunes are custom entries) and every entry
/// of a kind it does not know, the nearest thinking-level change, model change, edit and
/// usage (only the latest of each counts); not older compactions, branch summaries, custom
/// messages, labels and session names, which give no item there and change nothing else.
/// Only the chosen rows' bytes are read.
fn markers(connection: &Connection, sid: i64, first: Option<i64>) -> rusqlite::Result<Vec<Step>> {
    let mut seen_latest: Vec<String> = Vec::new();
    let mut steps = Vec::new();
    let mut next = first;
    while let Some(seq) = next {
        let row = path_row(connection, sid, seq)?;
        let wanted = marker_wanted(row.kind.as_deref().unwrap_or_default(), &mut seen_latest);
        if wanted {
            steps.push(step_at(connection, sid, seq)?);
        }
        next = earlier(seq, row.marker_seq, "marker_seq")?;
    }
    Ok(steps)
}

/// One row's path columns and bytes.
fn step_at(connection: &Connection, sid: i64, seq: i64) -> rusqlite::Result<Step> {
    connection
        .prepare_cached(
            "SELECT seq, depth, marker_seq, assistant_seq, bytes FROM lines \
             WHERE sid = ?1 AND seq = ?2",
        )?
        .query_row(params![sid, seq], step_of)
}

/// One line's bytes.
fn line_bytes(connection: &Connection, sid: i64, seq: i64) -> rusqlite::Result<Vec<u8>> {
    connection
        .prepare_cached("SELECT bytes FROM lines WHERE sid = ?1 AND seq = ?2")?
        .query_row(params![sid, seq], |row| row.get(0))
}
