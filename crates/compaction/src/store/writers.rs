//! Other writers of a session file: pi appends without the store's lock, so the store looks
//! for them before it cuts an unfinished last line, and after a rewrite's rename before it
//! lets the old file go.
//!
//! - [`ensure_dead_tail`]: an unfinished last line is taken for dead only when the file has
//!   not changed for the grace period (waiting out the rest of it) and no other process has
//!   it open for writing. It runs under the lock, on the file the store read, so a half line
//!   left after any earlier check is judged the same way; a live one refuses the open with
//!   the file untouched.
//! - [`carry_late_appends`]: after a rewrite renamed its new file over the session, a writer
//!   that opened the old file before the rename may still append to it; those bytes are
//!   appended to the new file, until no other process has the old file open for writing.
//!
//! Invariant: neither function changes the session file it judges; `carry_late_appends`
//! only appends to the new one, with `O_APPEND`, so it never overwrites another writer.

use std::fs::{File, Metadata};
use std::io::Write;
use std::os::unix::fs::{FileExt, MetadataExt};
use std::path::Path;
use std::time::{Duration, Instant, SystemTime};

use super::error::{FileChange, StoreError};

/// How long a file must be unchanged before its unfinished last line is taken for dead.
pub const TAIL_GRACE: Duration = Duration::from_secs(2);

/// How long [`carry_late_appends`] waits for a writer of the old file to let it go.
pub const CARRY_LIMIT: Duration = Duration::from_secs(5);

/// Another process that has the file open for writing, found through `/proc/*/fd` and the
/// flags in `/proc/*/fdinfo` (processes this user may not inspect are not seen).
pub fn other_writer(file: &Metadata) -> Option<u32> {
    let own = std::process::id();
    for process in std::fs::read_dir("/proc").ok()?.flatten() {
        let Some(pid) = process.file_name().to_str().and_then(|name| name.parse::<u32>().ok())
        else {
            continue;
        };
        if pid == own {
            continue;
        }
        let Ok(fds) = std::fs::read_dir(process.path().join("fd")) else { continue };
        for fd in fds.flatten() {
            let Ok(target) = std::fs::metadata(fd.path()) else { continue };
            if target.dev() != file.dev() || target.ino() != file.ino() {
                continue;
            }
            let info = process.path().join("fdinfo").join(fd.file_name());
            let flags = std::fs::read_to_string(info).ok().and_then(|text| {
                text.lines()
                    .find_map(|line| line.strip_prefix("flags:"))
                    .and_then(|value| u32::from_str_radix(value.trim(), 8).ok())
            });
            // O_WRONLY = 1, O_RDWR = 2 (the low two bits are the access mode).
            if flags.is_some_and(|flags| flags & 3 != 0) {
                return Some(pid);
            }
        }
    }
    None
}

/// Refuses when the unfinished last line of `file` (read as `length` bytes) may still be
/// being written: the file changed within `grace` (waiting out the rest of it first), or
/// another process has it open for writing. Returns how long the file had been unchanged.
pub fn ensure_dead_tail(
    file: &File,
    path: &Path,
    length: u64,
    grace: Duration,
) -> Result<Duration, StoreError> {
    let stat =
        |file: &File| file.metadata().map_err(StoreError::io("cannot read metadata of", path));
    let metadata = stat(file)?;
    let modified = metadata.modified().ok();
    let changed = |now: &Metadata| -> Result<(), StoreError> {
        if now.len() == length && now.modified().ok() == modified {
            return Ok(());
        }
        let mut last = [0u8; 1];
        let complete = now.len() > 0
            && file.read_exact_at(&mut last, now.len() - 1).is_ok()
            && last[0] == b'\n';
        let change = if now.len() < length {
            FileChange::Rewritten { from: length, to: now.len() }
        } else if complete {
            FileChange::Grew { from: length, to: now.len() }
        } else {
            FileChange::Incomplete { from: length, to: now.len() }
        };
        Err(StoreError::Changed { path: path.to_path_buf(), change })
    };
    changed(&metadata)?;
    let age = modified.and_then(|time| SystemTime::now().duration_since(time).ok());
    let age = match age {
        Some(age) if age >= grace => age,
        _ => {
            std::thread::sleep(grace.saturating_sub(age.unwrap_or_default()));
            changed(&stat(file)?)?;
            grace
        }
    };
    // A process forked by another thread of this program holds a copy of our descriptors
    // until it runs `exec`: a writer is one that is still there after a short while.
    let started = Instant::now();
    let mut writer = other_writer(&metadata);
    while writer.is_some() && started.elapsed() < super::lock::NO_WAIT_GRACE {
        std::thread::sleep(Duration::from_millis(10));
        writer = other_writer(&metadata);
    }
    if let Some(pid) = writer {
        return Err(StoreError::Changed {
            path: path.to_path_buf(),
            change: FileChange::OpenForWriting { pid },
        });
    }
    Ok(age)
}

/// Appends to `target` (the new file, now at the session's path) what other writers
/// appended to `old` (the replaced file) past `length`, until no other process holds `old`
/// open for writing (or [`CARRY_LIMIT`] passed); returns the bytes carried.
pub fn carry_late_appends(old: &File, length: u64, target: &Path) -> Result<u64, StoreError> {
    let started = Instant::now();
    let mut carried = length;
    let mut output: Option<File> = None;
    loop {
        let metadata = old.metadata().map_err(StoreError::io("cannot read metadata of", target))?;
        let writer = other_writer(&metadata);
        // Read the length after looking for writers: bytes a writer wrote before it let go
        // are counted.
        let now = old.metadata().map_err(StoreError::io("cannot read metadata of", target))?.len();
        if now > carried {
            let mut bytes = vec![0u8; usize::try_from(now - carried).unwrap_or(usize::MAX)];
            old.read_exact_at(&mut bytes, carried)
                .map_err(StoreError::io("cannot read", target))?;
            let file = match output.as_mut() {
                Some(file) => file,
                None => output.insert(
                    std::fs::OpenOptions::new()
                        .append(true)
                        .open(target)
                        .map_err(StoreError::io("cannot open", target))?,
                ),
            };
            file.write_all(&bytes).map_err(StoreError::io("cannot append to", target))?;
            carried = now;
        }
        if writer.is_none() || started.elapsed() >= CARRY_LIMIT {
            break;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    if let Some(file) = output {
        file.sync_data().map_err(StoreError::io("cannot sync", target))?;
    }
    Ok(carried - length)
}
