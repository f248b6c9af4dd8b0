//! Reading only the part of the path to a leaf that the context needs, in a fixed number of
//! queries: recursive queries follow the path columns inside the database (one round trip
//! for the window, one for the non-message chain), and only the chosen rows' bytes travel.

use std::collections::BTreeMap;

use compaction_core::Entry;
use postgres::Client;

use super::{PostgresBackend, SessionRow};
use crate::stores::tree::{Step, marker_wanted, names_model, path_read};
use crate::stores::{BackendError, PathRead, SessionBackend};

fn step_of(row: &postgres::Row) -> Result<Step, postgres::Error> {
    Ok(Step {
        seq: row.try_get(0)?,
        depth: row.try_get::<_, Option<i64>>(1)?.unwrap_or(0),
        marker_seq: row.try_get(2)?,
        assistant_seq: row.try_get(3)?,
        bytes: row.try_get(4)?,
    })
}

/// A path column that names `next` from line `seq`: it must name an earlier line (see
/// [`crate::stores::sqlite`]'s twin); one that does not is refused, never followed.
fn earlier(
    store: &str,
    seq: i64,
    next: Option<i64>,
    column: &str,
) -> Result<Option<i64>, BackendError> {
    match next {
        Some(next) if next >= seq => Err(BackendError::Invalid {
            store: store.to_owned(),
            reason: format!(
                "line {seq}: its `{column}` names line {next}, not an earlier line (path \
                 columns this tool did not write); refusing to follow them"
            ),
        }),
        other => Ok(other),
    }
}

/// The path from the leaf up to a depth, leaf first: rows whose depth is above the top
/// depth lead on to their parent.
const WALK: &str = "WITH RECURSIVE walk (seq, parent_seq, depth, n) AS ( \
       SELECT seq, parent_seq, coalesce(depth, 0), 0 FROM compaction.lines \
       WHERE sid = $1 AND seq = $2 \
     UNION ALL \
       SELECT l.seq, l.parent_seq, coalesce(l.depth, 0), w.n + 1 FROM walk w \
       JOIN compaction.lines l ON l.sid = $1 AND l.seq = w.parent_seq \
       WHERE w.depth > $3 AND w.parent_seq < w.seq) \
     SELECT l.seq, l.depth, l.marker_seq, l.assistant_seq, l.bytes, w.parent_seq FROM walk w \
     JOIN compaction.lines l ON l.sid = $1 AND l.seq = w.seq ORDER BY w.n";

/// The chain of non-message ancestors from a row, nearest first, with their types.
const CHAIN: &str = "WITH RECURSIVE chain (seq, type, marker_seq, n) AS ( \
       SELECT seq, type, marker_seq, 0 FROM compaction.lines WHERE sid = $1 AND seq = $2 \
     UNION ALL \
       SELECT l.seq, l.type, l.marker_seq, c.n + 1 FROM chain c \
       JOIN compaction.lines l ON l.sid = $1 AND l.seq = c.marker_seq \
       WHERE c.marker_seq < c.seq) \
     SELECT seq, type, marker_seq FROM chain ORDER BY n";

const STEPS: &str = "SELECT seq, depth, marker_seq, assistant_seq, bytes FROM compaction.lines \
     WHERE sid = $1 AND seq = ANY($2)";

impl PostgresBackend {
    /// Reads what the context at `leaf` needs through the path columns: the path from the
    /// latest compaction's first kept entry (or the root) to the leaf, the non-message
    /// entries above it, and the nearest assistant replies above it up to one naming its
    /// model (see [`PathRead`]).
    pub(crate) fn read_indexed_path(
        &self,
        client: &mut Client,
        session: &str,
        row: &SessionRow,
        leaf: Option<&str>,
    ) -> Result<PathRead, BackendError> {
        // Errors name the session: a row of someone else's making is found by it.
        let store = format!("{}#{session}", self.describe());
        let database = |error: postgres::Error| super::failure(&store, &error);
        let leaf_seq = match leaf {
            None => row.leaf_seq,
            Some(id) => Some(
                client
                    .query_opt(
                        "SELECT seq FROM compaction.lines WHERE sid = $1 AND id = $2",
                        &[&row.sid, &id],
                    )
                    .map_err(database)?
                    .map(|found| found.get::<_, i64>(0))
                    .ok_or_else(|| BackendError::Invalid {
                        store: format!("{}#{session}", self.describe()),
                        reason: compaction_core::session::UnknownEntryId(id.to_owned()).to_string(),
                    })?,
            ),
        };
        let mut wanted: BTreeMap<i64, Step> = BTreeMap::new();
        if let Some(leaf_seq) = leaf_seq {
            let top_depth = self.window_top_depth(client, row.sid, leaf_seq)?;
            let mut window: Vec<Step> = Vec::new();
            for found in client.query(WALK, &[&row.sid, &leaf_seq, &top_depth]).map_err(database)? {
                let step = step_of(&found).map_err(database)?;
                let parent: Option<i64> = found.try_get(5).map_err(database)?;
                if step.depth > top_depth {
                    earlier(&store, step.seq, parent, "parent_seq")?;
                }
                window.push(step);
            }
            let top = window.last().map(|top| (top.marker_seq, top.assistant_seq));
            for step in window {
                wanted.insert(step.seq, step);
            }
            if let Some((marker_seq, assistant_seq)) = top {
                if let Some(first) = marker_seq {
                    let mut seen_latest = Vec::new();
                    let mut chosen: Vec<i64> = Vec::new();
                    for found in client.query(CHAIN, &[&row.sid, &first]).map_err(database)? {
                        let seq: i64 = found.try_get(0).map_err(database)?;
                        let kind: Option<String> = found.try_get(1).map_err(database)?;
                        earlier(&store, seq, found.try_get(2).map_err(database)?, "marker_seq")?;
                        if marker_wanted(kind.as_deref().unwrap_or_default(), &mut seen_latest) {
                            chosen.push(seq);
                        }
                    }
                    for found in client.query(STEPS, &[&row.sid, &chosen]).map_err(database)? {
                        let step = step_of(&found).map_err(database)?;
                        wanted.insert(step.seq, step);
                    }
                }
                let mut assistant = assistant_seq;
                while let Some(seq) = assistant {
                    let step = self.step_at(client, row.sid, seq)?;
                    assistant = if names_model(&step.bytes) {
                        None
                    } else {
                        earlier(&store, seq, step.assistant_seq, "assistant_seq")?
                    };
                    wanted.insert(step.seq, step);
                }
            }
        }
        let header: Vec<u8> = client
            .query_one("SELECT bytes FROM compaction.lines WHERE sid = $1 AND seq = 1", &[&row.sid])
            .map_err(database)?
            .try_get(0)
            .map_err(database)?;
        path_read(header, wanted, || format!("{}#{session}", self.describe()))
    }

    /// The depth the context's entries start at: the latest compaction's first kept entry
    /// (or the compaction itself), or the root without a compaction.
    fn window_top_depth(
        &self,
        client: &mut Client,
        sid: i64,
        leaf_seq: i64,
    ) -> Result<i64, BackendError> {
        let database = |error| self.database(error);
        let compaction: Option<i64> = client
            .query_one(
                "SELECT compaction_seq FROM compaction.lines WHERE sid = $1 AND seq = $2",
                &[&sid, &leaf_seq],
            )
            .map_err(database)?
            .get(0);
        let Some(compaction) = compaction else { return Ok(0) };
        let step = self.step_at(client, sid, compaction)?;
        let first_kept = std::str::from_utf8(&step.bytes)
            .ok()
            .and_then(|raw| Entry::parse(0, raw).ok())
            .and_then(|entry| entry.kind.as_compaction().map(|c| c.first_kept_entry_id.clone()));
        let Some(first_kept) = first_kept else { return Ok(step.depth) };
        let kept_depth: Option<i64> = client
            .query_opt(
                "SELECT depth FROM compaction.lines WHERE sid = $1 AND id = $2",
                &[&sid, &first_kept],
            )
            .map_err(database)?
            .and_then(|found| found.get(0));
        Ok(kept_depth.map_or(step.depth, |depth| depth.min(step.depth)))
    }

    /// One row's path columns and bytes.
    fn step_at(&self, client: &mut Client, sid: i64, seq: i64) -> Result<Step, BackendError> {
        client
            .query_one(STEPS, &[&sid, &vec![seq]])
            .and_then(|row| step_of(&row))
            .map_err(|error| self.database(error))
    }
}
