//! Migration to the current format: the file rewritten atomically with its entries upgraded,
//! the original kept as `<session>.jsonl.bak-v<N>`, unusable lines carried over verbatim.

use std::fs::File;
use std::path::{Path, PathBuf};

use compaction_core::Session;

use crate::store::error::StoreError;
use crate::store::lock::{LockWait, SessionLock};
use crate::store::names;
use crate::store::{OpenOptions, SessionStore};

use super::*;

/// What [`migrate`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MigrateReport {
    /// The version the file declared.
    pub from_version: u32,
    /// Where the original was kept; `None` when the file was already current (untouched).
    pub backup: Option<PathBuf>,
    /// Entries written.
    pub entries: usize,
    /// Unreadable lines carried over verbatim.
    pub malformed_lines: usize,
    /// An interrupted last line moved to a sidecar when the file was opened (the file
    /// changed even when it was already current).
    pub torn_tail: Option<crate::store::TornTail>,
    /// Bytes another writer appended to the old file after the last check before the
    /// rename, appended to the new file.
    pub carried_bytes: u64,
}

/// Rewrites an older-format session as the current version, atomically, keeping the
/// original as `<session>.jsonl.bak-v<N>`, with its mode and owner, through a symbolic link
/// to the file it names. Takes the write lock (recovering a torn tail first, as any write
/// open does). A current-version file is left untouched. Opening a session for writing
/// migrates it the same way.
pub fn migrate(path: &Path) -> Result<MigrateReport, StoreError> {
    migrate_with(path, LockWait::NoWait, &RewriteOptions::default())
}

/// [`migrate`] with a lock wait and rewrite options.
pub fn migrate_with(
    path: &Path,
    lock_wait: LockWait,
    options: &RewriteOptions,
) -> Result<MigrateReport, StoreError> {
    let open = OpenOptions {
        lock_wait,
        max_line_bytes: options.max_line_bytes,
        #[cfg(feature = "fault-injection")]
        faults: options.faults.clone(),
        ..OpenOptions::for_writing()
    };
    let (store, report) = SessionStore::open_with(path, open, options)?;
    if let Some(mut migrated) = report.migrated {
        migrated.torn_tail = report.torn_tail;
        return Ok(migrated);
    }
    Ok(MigrateReport {
        from_version: report.source_version,
        backup: None,
        entries: store.session().entries().len(),
        malformed_lines: report.malformed_lines.len(),
        torn_tail: report.torn_tail,
        carried_bytes: 0,
    })
}

/// Migrates the file of an open, locked store; returns what was done and the lock on the
/// new file (taken before it was renamed into place).
pub(crate) fn migrate_locked(
    store: &SessionStore,
    options: &RewriteOptions,
    keep_a_backup: bool,
) -> Result<(MigrateReport, SessionLock), StoreError> {
    let path = store.path();
    let session = store.session();
    let from_version = session.source_version();
    let Some(header) = session.header_raw() else {
        return Err(StoreError::UnreadableHeader {
            path: path.to_path_buf(),
            line: 1,
            detail: "no session header".to_owned(),
        });
    };
    // Through a symbolic link: the file it names is rewritten, the link stays.
    let target = std::fs::canonicalize(path).map_err(StoreError::io("cannot resolve", path))?;
    let mut source = store.lock_file()?.try_clone().map_err(StoreError::io("cannot open", path))?;
    let original = source.metadata().map_err(StoreError::io("cannot read metadata of", path))?;
    let _ = remove_stale_temps(&target);
    let mut backup = names::with_suffix(&target, &format!(".bak-v{from_version}"));
    let length = store.file_length();
    // What the file was when it was read; checked again right before the rename.
    let read_tail = crate::store::append::read_tail(&source, length)
        .map_err(StoreError::io("cannot read", path))?;
    let unchanged = || -> Result<(), StoreError> {
        let file = store.lock_file()?;
        let change = |change| StoreError::Changed { path: path.to_path_buf(), change };
        if !crate::store::lock::names_same_file(path, file)? {
            return Err(change(crate::store::FileChange::Replaced));
        }
        let now = file.metadata().map_err(StoreError::io("cannot read metadata of", path))?.len();
        let tail = crate::store::append::read_tail(file, now.min(length))
            .map_err(StoreError::io("cannot read", path))?;
        match now.cmp(&length) {
            std::cmp::Ordering::Equal if tail == read_tail => Ok(()),
            std::cmp::Ordering::Greater if tail == read_tail => {
                Err(change(crate::store::FileChange::Grew { from: length, to: now }))
            }
            std::cmp::Ordering::Less | std::cmp::Ordering::Equal | std::cmp::Ordering::Greater => {
                Err(change(crate::store::FileChange::Rewritten { from: length, to: now }))
            }
        }
    };
    let install = Install::Replace {
        backup: if keep_a_backup { Some(&mut backup) } else { None },
        original: &original,
        unchanged: &unchanged,
    };
    let lock = atomic_write(&target, install, options, |output| {
        output.push(header.as_bytes())?;
        output.push(b"\n")?;
        write_body(output, session, length, &mut source, path, |_| true, |_| None)
    })?;
    // A writer that opened the old file before the rename may have appended after the
    // last check: its bytes go to the new file too.
    let carried = crate::store::writers::carry_late_appends(&source, length, &target)?;
    let kept_malformed =
        session.malformed().iter().filter(|malformed| malformed.offset < length).count();
    let report = MigrateReport {
        from_version,
        backup: keep_a_backup.then_some(backup),
        entries: session.entries().len(),
        malformed_lines: kept_malformed,
        torn_tail: None,
        carried_bytes: carried,
    };
    Ok((report, SessionLock::adopt(lock.into_file(), path)))
}

/// Writes entries and (when `keep_malformed` says so) malformed lines in line order.
pub(super) fn write_body(
    output: &mut Output<'_>,
    session: &Session,
    length: u64,
    source: &mut File,
    source_path: &Path,
    keep_malformed: impl Fn(usize) -> bool,
    mut replace_entry: impl FnMut(&compaction_core::Entry) -> Option<String>,
) -> Result<(), StoreError> {
    let mut malformed = session
        .malformed()
        .iter()
        .filter(|malformed| malformed.line > 1 && malformed.offset < length)
        .peekable();
    for entry in session.entries() {
        while let Some(line) = malformed.next_if(|malformed| malformed.line < entry.line) {
            if keep_malformed(line.line) {
                write_malformed(output, line, source, source_path)?;
            }
        }
        match replace_entry(entry) {
            Some(line) => output.push(line.as_bytes())?,
            None => output.push(entry.line_bytes())?,
        }
        output.push(b"\n")?;
    }
    for line in malformed {
        if keep_malformed(line.line) {
            write_malformed(output, line, source, source_path)?;
        }
    }
    Ok(())
}

pub(super) fn write_malformed(
    output: &mut Output<'_>,
    line: &compaction_core::session::MalformedLine,
    source: &mut File,
    source_path: &Path,
) -> Result<(), StoreError> {
    match &line.bytes {
        Some(bytes) => output.push(bytes)?,
        None => output.copy_range(source, source_path, line.offset, line.length as u64)?,
    }
    output.push(b"\n")
}
