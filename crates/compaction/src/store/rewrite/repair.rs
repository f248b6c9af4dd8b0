//! Repaired copies: a session's usable entries (optionally reattached to a parent that
//! exists) written to a new file beside it, which never replaces anything.

use std::fs::File;
use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use crate::store::error::StoreError;
use crate::store::names;
use crate::store::{OpenOptions, SessionStore};

use super::migrate::{write_body, write_malformed};
use super::*;

/// What [`repair_copy`] wrote.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RepairReport {
    /// The repaired session: a readable header and every usable entry, in order.
    pub copy: PathBuf,
    /// Whether the header was rebuilt (the original had none that could be read).
    pub header_rebuilt: bool,
    /// Entries copied.
    pub entries: usize,
    /// Where the unusable lines went (verbatim, one per line, in order); `None` when there
    /// were none.
    pub rejected: Option<PathBuf>,
    /// Line numbers (in the original) of the rejected lines.
    pub rejected_lines: Vec<usize>,
    /// Entries whose parent is not in the copy (it was an unusable line, or never existed):
    /// their id and the missing parent's id.
    pub orphans: Vec<(String, String)>,
    /// Whether the orphans were attached to the entry before them in the copy, so the copy
    /// has no dangling parent.
    pub reattached: bool,
    /// Temporary files of earlier repairs of this session that a killed process left
    /// behind, removed (`.<name>.repaired-….jsonl.tmp-…`, `.….rejected.tmp-…`, no live
    /// holder).
    pub removed_temps: Vec<PathBuf>,
}

/// Writes a repaired copy of a session beside it; the original is never modified.
///
/// The copy, `<name>.repaired-<timestamp>.jsonl`, has the original header (migrated to the
/// current version) or, when it is missing or unreadable, a new version 3 header whose `cwd`
/// is the current directory; then every usable entry in file order. Every other line
/// (the unreadable header, malformed or oversized lines, a torn tail) goes verbatim to
/// `<copy>.rejected`, so nothing is lost and the copy is clean.
pub fn repair_copy(path: &Path) -> Result<RepairReport, StoreError> {
    repair_copy_with(path, &RewriteOptions::default())
}

/// [`repair_copy`] with rewrite options.
pub fn repair_copy_with(path: &Path, options: &RewriteOptions) -> Result<RepairReport, StoreError> {
    repair_copy_reattaching(path, options, false)
}

/// [`repair_copy_with`], and with `reattach`, every entry whose parent is not in the copy is
/// attached to the entry before it in file order (the first one becomes a root), so the
/// copy passes `check`. This changes what pi shows on those branches, so it is only done
/// when asked for; without it the orphans are listed in the report.
pub fn repair_copy_reattaching(
    path: &Path,
    options: &RewriteOptions,
    reattach: bool,
) -> Result<RepairReport, StoreError> {
    let read = OpenOptions { max_line_bytes: options.max_line_bytes, ..OpenOptions::for_reading() };
    let (store, _report) = SessionStore::open(path, read)?;
    let session = store.session();
    let stamp = names::file_timestamp();
    let stem = path.file_stem().map(|stem| stem.to_string_lossy().into_owned()).unwrap_or_default();
    let copy = path.with_file_name(format!("{stem}.repaired-{stamp}.jsonl"));
    let ours = format!(".{stem}.repaired-");
    let removed_temps = remove_stale_temps_named(&names::parent_dir(path), |name| {
        name.starts_with(&ours) && name.contains(".tmp-")
    });
    let (header, header_rebuilt) = match session.header_raw() {
        Some(header) => (header.to_owned(), false),
        None => (new_header_line()?, true),
    };
    let length = store.file_length();
    let mut source = File::open(path).map_err(StoreError::io("cannot open", path))?;
    let mut orphans = Vec::new();
    let mut previous: Option<String> = None;
    let reattached = |entry: &compaction_core::Entry| {
        let written_after = previous.replace(entry.id.clone());
        let parent = entry.parent_id.as_deref()?;
        if session.contains(parent) {
            return None;
        }
        orphans.push((entry.id.clone(), parent.to_owned()));
        if !reattach {
            return None;
        }
        let mut value: Value = compaction_core::entry::from_json_text(entry.raw()).ok()?;
        let object = value.as_object_mut()?;
        object.insert("parentId".into(), written_after.map_or(Value::Null, Value::String));
        Some(value.to_string())
    };
    write_new_file(&copy, options, |output| {
        output.push(header.as_bytes())?;
        output.push(b"\n")?;
        write_body(output, session, length, &mut source, path, |_| false, reattached)
    })?;
    let rejected_lines: Vec<usize> =
        session.malformed().iter().map(|malformed| malformed.line).collect();
    let rejected = if rejected_lines.is_empty() {
        None
    } else {
        let rejected = names::with_suffix(&copy, ".rejected");
        let written = write_new_file(&rejected, options, |output| {
            for line in session.malformed() {
                write_malformed(output, line, &mut source, path)?;
            }
            Ok(())
        });
        if let Err(error) = written {
            // A copy without its rejected lines is no repair: the command fails whole and
            // leaves no file behind.
            let _ = std::fs::remove_file(&copy);
            return Err(error);
        }
        Some(rejected)
    };
    Ok(RepairReport {
        copy,
        header_rebuilt,
        entries: session.entries().len(),
        rejected,
        rejected_lines,
        reattached: reattach && !orphans.is_empty(),
        orphans,
        removed_temps,
    })
}

fn new_header_line() -> Result<String, StoreError> {
    let cwd = std::env::current_dir()
        .map_err(StoreError::io("cannot read the current directory", "."))?;
    let mut header = Map::new();
    header.insert("type".into(), "session".into());
    header.insert("version".into(), compaction_core::entry::CURRENT_VERSION.into());
    header.insert("id".into(), names::random_uuid().into());
    header.insert("timestamp".into(), names::timestamp_now().into());
    header.insert("cwd".into(), cwd.to_string_lossy().into_owned().into());
    Ok(Value::Object(header).to_string())
}
