//! Atomic rewrites: migration to the current format and repaired copies.
//!
//! Invariant: the target path always holds either its old bytes or its complete new bytes.
//! New content goes to a temporary file in the same directory, which is synced, then renamed
//! over the target (or hard-linked to a new name, which never replaces anything), and the
//! directory is synced. Migration keeps the original as `<session>.jsonl.bak-v<N>`.
//! Lines that are not usable entries are carried over verbatim, in their original order.
//!
//! A rewrite of a session goes through symbolic links to the file they name, keeps its mode
//! and owner, and holds the new file's write lock from before the rename, so the session's
//! lock never lapses. Each temporary file is locked by its writer while it is written, so a
//! later rewrite can remove temporary files left by an interrupted one (unlocked ones only)
//! without touching one in use, and a backup left by an interrupted migration is reused.

use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::os::unix::fs::{MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

use compaction_core::Session;
use serde_json::{Map, Value};

use super::error::StoreError;
#[cfg(feature = "fault-injection")]
use super::io::FaultPlan;
use super::io::{self, SyncWrite};
use super::lock::{LockWait, SessionLock};
use super::names;
use super::{OpenOptions, SessionStore};

/// The steps of an atomic rewrite, in order (the `fault-injection` feature stops a rewrite
/// after one of them, as a crash would).
#[cfg(feature = "fault-injection")]
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum RewriteStep {
    /// The temporary file holds all the new bytes (not yet synced).
    TempWritten,
    /// The temporary file is synced.
    TempSynced,
    /// The original is kept under its backup name (migration only).
    BackupKept,
    /// The temporary file is renamed (or linked) to the target.
    Renamed,
    /// The directory is synced.
    DirSynced,
}

/// Options for [`migrate_with`] and [`repair_copy_with`].
#[derive(Debug, Clone)]
pub struct RewriteOptions {
    /// Lines longer than this are not loaded; they are copied from the original by offset.
    pub max_line_bytes: usize,
    /// Fails chosen writes or syncs (a test aid of the `fault-injection` feature).
    #[cfg(feature = "fault-injection")]
    pub faults: Option<FaultPlan>,
    /// Stops right after this step as a crash would, leaving files as they are (a test aid
    /// of the `fault-injection` feature).
    #[cfg(feature = "fault-injection")]
    pub stop_after: Option<RewriteStep>,
}

impl Default for RewriteOptions {
    fn default() -> Self {
        RewriteOptions {
            max_line_bytes: compaction_core::parse::DEFAULT_MAX_LINE_BYTES,
            #[cfg(feature = "fault-injection")]
            faults: None,
            #[cfg(feature = "fault-injection")]
            stop_after: None,
        }
    }
}

/// Buffers output to the temporary file and copies ranges of the original.
pub(crate) struct Output<'a> {
    writer: &'a mut dyn SyncWrite,
    buffer: Vec<u8>,
    path: &'a Path,
}

const CHUNK: usize = 1 << 20;

impl Output<'_> {
    pub(crate) fn push(&mut self, bytes: &[u8]) -> Result<(), StoreError> {
        self.buffer.extend_from_slice(bytes);
        if self.buffer.len() >= CHUNK {
            self.flush()?;
        }
        Ok(())
    }

    fn flush(&mut self) -> Result<(), StoreError> {
        if !self.buffer.is_empty() {
            self.writer
                .write_all(&self.buffer)
                .map_err(StoreError::io("cannot write", self.path))?;
            self.buffer.clear();
        }
        Ok(())
    }

    /// Copies `length` bytes at `offset` of `source` (a line too long to have been held).
    fn copy_range(
        &mut self,
        source: &mut File,
        source_path: &Path,
        offset: u64,
        length: u64,
    ) -> Result<(), StoreError> {
        self.flush()?;
        source.seek(SeekFrom::Start(offset)).map_err(StoreError::io("cannot read", source_path))?;
        let mut remaining = length;
        let mut chunk = vec![0u8; CHUNK];
        while remaining > 0 {
            let want = usize::try_from(remaining.min(CHUNK as u64)).unwrap_or(CHUNK);
            let got = source
                .read(&mut chunk[..want])
                .map_err(StoreError::io("cannot read", source_path))?;
            if got == 0 {
                return Err(StoreError::Io {
                    action: "file shrank while copying",
                    path: source_path.to_path_buf(),
                    source: std::io::ErrorKind::UnexpectedEof.into(),
                });
            }
            self.writer
                .write_all(&chunk[..got])
                .map_err(StoreError::io("cannot write", self.path))?;
            remaining -= got as u64;
        }
        Ok(())
    }
}

enum Install<'a> {
    /// Rename over the target, first hard-linking the original to this backup path; the new
    /// file gets the original's mode and owner.
    Replace { backup: Option<&'a mut PathBuf>, original: &'a std::fs::Metadata },
    /// Link to the target, failing if it exists.
    CreateNew,
}

impl RewriteOptions {
    /// The fault plan the rewrite's writes go through (never one without the
    /// `fault-injection` feature).
    fn fault_plan(&self) -> Option<&io::FaultPlan> {
        #[cfg(feature = "fault-injection")]
        return self.faults.as_ref();
        #[cfg(not(feature = "fault-injection"))]
        None
    }
}

/// Fails the rewrite right after `$step` when the options ask for it, as a crash would (the
/// `fault-injection` feature); nothing without the feature.
macro_rules! stop_after {
    ($options:expr, $target:expr, $step:ident) => {
        #[cfg(feature = "fault-injection")]
        if $options.stop_after == Some(RewriteStep::$step) {
            return Err(StoreError::Interrupted {
                path: $target.to_path_buf(),
                step: RewriteStep::$step,
            });
        }
    };
}

/// Whether the rewrite was stopped on purpose (the `fault-injection` feature's simulated
/// crash), leaving its files as a crash would.
fn simulated_crash(error: &StoreError) -> bool {
    #[cfg(feature = "fault-injection")]
    return matches!(error, StoreError::Interrupted { .. });
    #[cfg(not(feature = "fault-injection"))]
    {
        let _ = error;
        false
    }
}

/// Creates a temporary file beside `target` (read and append, mode 0600) and locks it, so
/// a stale-temporary cleanup never takes it for an abandoned one.
pub(crate) fn create_locked_temp(target: &Path) -> Result<(PathBuf, File), StoreError> {
    let temp = names::temp_path(target);
    let file = std::fs::OpenOptions::new()
        .read(true)
        .append(true)
        .create_new(true)
        .mode(0o600)
        .open(&temp)
        .map_err(StoreError::io("cannot create", &temp))?;
    if let Err(error) = file.try_lock() {
        let _ = std::fs::remove_file(&temp);
        return Err(StoreError::io("cannot lock", &temp)(std::io::Error::other(error.to_string())));
    }
    Ok((temp, file))
}

/// Writes a new file atomically; returns the lock on the new file, held since before it
/// appeared at `target`.
fn atomic_write(
    target: &Path,
    install: Install<'_>,
    options: &RewriteOptions,
    fill: impl FnOnce(&mut Output<'_>) -> Result<(), StoreError>,
) -> Result<SessionLock, StoreError> {
    let (temp, file) = create_locked_temp(target)?;
    let result = install_temp(target, &temp, file, install, options, fill);
    if let Err(error) = &result {
        // A simulated crash leaves the temporary file as a real one would.
        if !simulated_crash(error) {
            let _ = std::fs::remove_file(&temp);
        }
    }
    result
}

fn install_temp(
    target: &Path,
    temp: &Path,
    file: File,
    install: Install<'_>,
    options: &RewriteOptions,
    fill: impl FnOnce(&mut Output<'_>) -> Result<(), StoreError>,
) -> Result<SessionLock, StoreError> {
    let locked = file.try_clone().map_err(StoreError::io("cannot open", temp))?;
    if let Install::Replace { original, .. } = &install {
        keep_mode_and_owner(&locked, temp, original)?;
    }
    let mut writer = io::writer(file, options.fault_plan());
    let mut output = Output { writer: writer.as_mut(), buffer: Vec::new(), path: temp };
    fill(&mut output)?;
    output.flush()?;
    stop_after!(options, target, TempWritten);
    writer.sync_data().map_err(StoreError::io("cannot sync", temp))?;
    drop(writer);
    stop_after!(options, target, TempSynced);
    match install {
        Install::Replace { backup, .. } => {
            if let Some(backup) = backup {
                keep_backup(target, backup)?;
                stop_after!(options, target, BackupKept);
            }
            std::fs::rename(temp, target).map_err(StoreError::io("cannot replace", target))?;
        }
        Install::CreateNew => {
            std::fs::hard_link(temp, target).map_err(|error| {
                if error.kind() == std::io::ErrorKind::AlreadyExists {
                    StoreError::AlreadyExists { path: target.to_path_buf() }
                } else {
                    StoreError::io("cannot create", target)(error)
                }
            })?;
            let _ = std::fs::remove_file(temp);
        }
    }
    let lock = SessionLock::adopt(locked, target);
    stop_after!(options, target, Renamed);
    let dir = names::parent_dir(target);
    io::sync_dir_with(&dir, options.fault_plan())
        .map_err(StoreError::io("cannot sync directory", &dir))?;
    stop_after!(options, target, DirSynced);
    Ok(lock)
}

/// Gives the new file the original's permission bits and, when they differ from the new
/// file's, its owner and group (refusing the rewrite when that is not allowed).
fn keep_mode_and_owner(
    file: &File,
    path: &Path,
    original: &std::fs::Metadata,
) -> Result<(), StoreError> {
    file.set_permissions(std::fs::Permissions::from_mode(original.mode() & 0o7777))
        .map_err(StoreError::io("cannot keep the mode of the original in", path))?;
    let new = file.metadata().map_err(StoreError::io("cannot read metadata of", path))?;
    if new.uid() != original.uid() || new.gid() != original.gid() {
        std::os::unix::fs::fchown(file, Some(original.uid()), Some(original.gid()))
            .map_err(StoreError::io("cannot keep the owner of the original in", path))?;
    }
    Ok(())
}

/// Removes temporary files an interrupted rewrite of `target` left behind: those named as
/// its temporary files and not locked by a live writer. Best effort.
fn remove_stale_temps(target: &Path) {
    let dir = names::parent_dir(target);
    let Some(prefix) = names::temp_prefix(target) else {
        return;
    };
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        if !name.to_str().is_some_and(|name| name.starts_with(&prefix)) {
            continue;
        }
        // Only regular files (never through a link), opened without blocking.
        if !entry.file_type().is_ok_and(|kind| kind.is_file()) {
            continue;
        }
        let path = entry.path();
        let Ok(file) = std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_NONBLOCK | libc::O_NOFOLLOW)
            .open(&path)
        else {
            continue;
        };
        let is_regular = file.metadata().is_ok_and(|metadata| metadata.is_file());
        if is_regular && file.try_lock().is_ok() {
            let _ = std::fs::remove_file(&path);
        }
    }
}

/// Hard-links the original to `backup`, or to `backup.1`, `backup.2`, … when an earlier
/// migration left one; `backup` is updated to the name used. A backup that already is the
/// original (left by a migration interrupted before its rename) is used as it is.
fn keep_backup(target: &Path, backup: &mut PathBuf) -> Result<(), StoreError> {
    let base = backup.clone();
    let original = std::fs::metadata(target).map_err(StoreError::io("cannot open", target))?;
    for attempt in 0..1000u32 {
        let candidate = if attempt == 0 {
            base.clone()
        } else {
            names::with_suffix(&base, &format!(".{attempt}"))
        };
        match std::fs::hard_link(target, &candidate) {
            Ok(()) => {
                *backup = candidate;
                return Ok(());
            }
            Err(error) if error.kind() == std::io::ErrorKind::AlreadyExists => {
                let same = std::fs::symlink_metadata(&candidate).is_ok_and(|existing| {
                    existing.dev() == original.dev() && existing.ino() == original.ino()
                });
                if same {
                    *backup = candidate;
                    return Ok(());
                }
            }
            Err(error) => return Err(StoreError::io("cannot keep a backup at", &candidate)(error)),
        }
    }
    Err(StoreError::AlreadyExists { path: base })
}

/// Writes a file that must not exist yet, atomically (it appears complete or not at all).
pub(crate) fn write_new_file(
    target: &Path,
    options: &RewriteOptions,
    fill: impl FnOnce(&mut Output<'_>) -> Result<(), StoreError>,
) -> Result<(), StoreError> {
    atomic_write(target, Install::CreateNew, options, fill).map(drop)
}

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
    if let Some(migrated) = report.migrated {
        return Ok(migrated);
    }
    Ok(MigrateReport {
        from_version: report.source_version,
        backup: None,
        entries: store.session().entries().len(),
        malformed_lines: report.malformed_lines.len(),
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
    remove_stale_temps(&target);
    let mut backup = names::with_suffix(&target, &format!(".bak-v{from_version}"));
    let length = store.file_length();
    let install = Install::Replace {
        backup: if keep_a_backup { Some(&mut backup) } else { None },
        original: &original,
    };
    let lock = atomic_write(&target, install, options, |output| {
        output.push(header.as_bytes())?;
        output.push(b"\n")?;
        write_body(output, session, length, &mut source, path, |_| true, |_| None)
    })?;
    let kept_malformed =
        session.malformed().iter().filter(|malformed| malformed.offset < length).count();
    let report = MigrateReport {
        from_version,
        backup: keep_a_backup.then_some(backup),
        entries: session.entries().len(),
        malformed_lines: kept_malformed,
    };
    Ok((report, SessionLock::adopt(lock.into_file(), path)))
}

/// Writes entries and (when `keep_malformed` says so) malformed lines in line order.
fn write_body(
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

fn write_malformed(
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
        let mut value: Value = serde_json::from_str(entry.raw()).ok()?;
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
        write_new_file(&rejected, options, |output| {
            for line in session.malformed() {
                write_malformed(output, line, &mut source, path)?;
            }
            Ok(())
        })?;
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
