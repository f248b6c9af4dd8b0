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
//!
//! Stages, one module each: `migrate` and `repair` (the two rewrites); the atomic write they
//! share (temporary file, sync, rename or link, backups) is here.

mod migrate;
mod repair;

pub(crate) use migrate::migrate_locked;
pub use migrate::{MigrateReport, migrate, migrate_with};
pub use repair::{RepairReport, repair_copy, repair_copy_reattaching, repair_copy_with};

use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::os::unix::fs::{MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

use super::error::StoreError;
#[cfg(feature = "fault-injection")]
use super::io::FaultPlan;
use super::io::{self, SyncWrite};
use super::lock::SessionLock;
use super::names;

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
    /// `unchanged` is asked right before the backup and the rename: it fails when another
    /// program changed the original since it was read (pi appends without our lock), so
    /// nothing it wrote is left only in the backup or lost.
    Replace {
        backup: Option<&'a mut PathBuf>,
        original: &'a std::fs::Metadata,
        unchanged: &'a dyn Fn() -> Result<(), StoreError>,
    },
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

#[cfg(feature = "fault-injection")]
thread_local! {
    static BEFORE_INSTALL: std::cell::RefCell<Option<Box<dyn FnOnce()>>> =
        const { std::cell::RefCell::new(None) };
}

/// Runs `hook` in the next rewrite on this thread, after its temporary file is synced and
/// before it is installed (a test aid of the `fault-injection` feature: another program
/// writing at the worst moment).
#[cfg(feature = "fault-injection")]
pub fn before_next_install(hook: impl FnOnce() + 'static) {
    BEFORE_INSTALL.with(|slot| *slot.borrow_mut() = Some(Box::new(hook)));
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
    let file =
        crate::disk::create_locked(&temp, true).map_err(StoreError::io("cannot create", &temp))?;
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
    #[cfg(feature = "fault-injection")]
    if let Some(hook) = BEFORE_INSTALL.with(|hook| hook.borrow_mut().take()) {
        hook();
    }
    match install {
        Install::Replace { backup, unchanged, .. } => {
            unchanged()?;
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
/// its temporary files and not locked by a live writer. Best effort; returns the files
/// removed, so the caller can say so.
pub(crate) fn remove_stale_temps(target: &Path) -> Vec<PathBuf> {
    let Some(prefix) = names::temp_prefix(target) else {
        return Vec::new();
    };
    remove_stale_temps_named(&names::parent_dir(target), |name| name.starts_with(&prefix))
}

/// Removes the files in `dir` whose name `ours` recognises as one of this tool's temporary
/// files, when no live process holds them: every writer keeps its temporary file locked
/// until it is renamed into place, and the kernel drops the lock when the writer dies, so an
/// unlocked one was left by a process that was killed. Returns the files removed.
pub(crate) fn remove_stale_temps_named(dir: &Path, ours: impl Fn(&str) -> bool) -> Vec<PathBuf> {
    let mut removed = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return removed;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        if !name.to_str().is_some_and(&ours) {
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
        if is_regular && file.try_lock().is_ok() && std::fs::remove_file(&path).is_ok() {
            removed.push(path);
        }
    }
    removed
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
