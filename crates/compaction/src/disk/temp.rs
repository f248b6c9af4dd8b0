//! Scratch files and folders in the system temporary folder, and their reclaim: a command
//! killed while it held one leaves it behind, and the next command that makes one removes
//! every one whose writer is gone (its process id names no running process).

use std::os::unix::fs::{DirBuilderExt as _, MetadataExt as _, OpenOptionsExt as _};
use std::path::{Path, PathBuf};

use super::DiskError;

/// The beginning of every scratch name this project puts in the system temporary folder.
pub const TEMP_SCRATCH_PREFIX: &str = "compaction-scratch-";

/// The scratch names this process holds now (a process restarted under the same id, as PID 1
/// of a container is, must not take its own live files for those of its earlier life).
static HELD: std::sync::Mutex<std::collections::BTreeSet<PathBuf>> =
    std::sync::Mutex::new(std::collections::BTreeSet::new());

fn held() -> std::sync::MutexGuard<'static, std::collections::BTreeSet<PathBuf>> {
    HELD.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// A scratch file or folder in the system temporary folder (a session copied out of a
/// database, an evaluation's replay), named `compaction-scratch-PID-RANDOM.jsonl` (a file) or
/// `compaction-scratch-PID-RANDOM` (a folder), private to its owner (mode 0600, a folder
/// 0700), removed when dropped. A process killed meanwhile leaves it behind; every command
/// that creates one (`run` on a database, `worker`, `eval`) first removes, and reports, every
/// one whose writer is gone ([`reclaim_temp_scratch`]).
#[derive(Debug)]
pub struct TempScratch {
    path: PathBuf,
    folder: bool,
}

impl TempScratch {
    /// A new, empty scratch file in `dir` (the system temporary folder for the commands).
    pub fn file_in(dir: &Path) -> Result<TempScratch, DiskError> {
        TempScratch::create(dir, false)
    }

    /// A new, empty scratch folder in `dir`.
    pub fn folder_in(dir: &Path) -> Result<TempScratch, DiskError> {
        TempScratch::create(dir, true)
    }

    fn create(dir: &Path, folder: bool) -> Result<TempScratch, DiskError> {
        let name = format!(
            "{TEMP_SCRATCH_PREFIX}{}-{}{}",
            std::process::id(),
            crate::store::names::random_entry_id(),
            if folder { "" } else { ".jsonl" }
        );
        let path = dir.join(name);
        held().insert(path.clone());
        let scratch = TempScratch { path, folder };
        let created = if folder {
            std::fs::DirBuilder::new()
                .mode(0o700)
                .create(&scratch.path)
                .map_err(DiskError::io("create", &scratch.path))
        } else {
            std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .mode(0o600)
                .open(&scratch.path)
                .map(drop)
                .map_err(DiskError::io("create", &scratch.path))
        };
        created.map(|()| scratch)
    }

    /// Where it is.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for TempScratch {
    fn drop(&mut self) {
        let _ = if self.folder {
            std::fs::remove_dir_all(&self.path)
        } else {
            std::fs::remove_file(&self.path)
        };
        held().remove(&self.path);
    }
}

/// The process id a temporary scratch name carries, and whether the name is a folder's
/// (`compaction-scratch-PID-RANDOM`) rather than a file's (`….jsonl`).
pub fn temp_scratch_pid(name: &str) -> Option<(u32, bool)> {
    let rest = name.strip_prefix(TEMP_SCRATCH_PREFIX)?;
    let (rest, folder) = match rest.strip_suffix(".jsonl") {
        Some(rest) => (rest, false),
        None => (rest, true),
    };
    let (pid, random) = rest.split_once('-')?;
    if random.is_empty()
        || !random.bytes().all(|b| b.is_ascii_alphanumeric())
        || pid.is_empty()
        || !pid.bytes().all(|b| b.is_ascii_digit())
    {
        return None;
    }
    pid.parse().ok().map(|pid| (pid, folder))
}

/// Whether `pid` names a running process (`/proc/PID` exists).
fn running(pid: u32) -> bool {
    Path::new("/proc").join(pid.to_string()).exists()
}

/// Removes the temporary scratch files and folders in `dir` whose writer is gone: its process
/// id names no running process, or names this process, which does not hold it. A file that is
/// locked (a compaction is writing it) is never removed, nor anything that is not a regular
/// file or a folder of this user's own named as such (never followed through a link). Returns
/// what was removed.
pub fn reclaim_temp_scratch_in(dir: &Path) -> Vec<PathBuf> {
    let mut removed = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else { return removed };
    let me = std::process::id();
    // This process's own files only: `/proc/self` belongs to its user.
    let Ok(uid) = std::fs::metadata("/proc/self").map(|m| m.uid()) else { return removed };
    for entry in entries.flatten() {
        let Some((pid, folder)) = entry.file_name().to_str().and_then(temp_scratch_pid) else {
            continue;
        };
        let path = entry.path();
        let orphaned = if pid == me { !held().contains(&path) } else { !running(pid) };
        if !orphaned {
            continue;
        }
        let Ok(metadata) = std::fs::symlink_metadata(&path) else { continue };
        if metadata.uid() != uid {
            continue;
        }
        // Only the shapes scratch takes: a folder named as a folder, a file named as a file.
        if metadata.is_dir() != folder {
            continue;
        }
        if metadata.is_dir() {
            if std::fs::remove_dir_all(&path).is_ok() {
                removed.push(path);
            }
            continue;
        }
        if !metadata.is_file() {
            continue;
        }
        // A compaction under way holds its scratch file's write lock: never remove that one.
        let Ok(file) = std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_NONBLOCK | libc::O_NOFOLLOW)
            .open(&path)
        else {
            continue;
        };
        if file.metadata().is_ok_and(|m| m.is_file())
            && file.try_lock().is_ok()
            && std::fs::remove_file(&path).is_ok()
        {
            removed.push(path);
        }
    }
    removed
}

/// [`reclaim_temp_scratch_in`] the system temporary folder.
pub fn reclaim_temp_scratch() -> Vec<PathBuf> {
    reclaim_temp_scratch_in(&std::env::temp_dir())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn temp_scratch_names_carry_their_process_id() {
        assert_eq!(temp_scratch_pid("compaction-scratch-42-a1b2c3d4.jsonl"), Some((42, false)));
        assert_eq!(temp_scratch_pid("compaction-scratch-42-a1b2c3d4"), Some((42, true)));
        assert_eq!(temp_scratch_pid("compaction-scratch-42-.jsonl"), None);
        assert_eq!(temp_scratch_pid("compaction-scratch-x2-a1.jsonl"), None);
        assert_eq!(temp_scratch_pid("compaction-scratch-42-a1.json"), None);
        assert_eq!(temp_scratch_pid(".compaction-scratch-42-a1.jsonl"), None);
    }

    /// A process restarted under the same id (PID 1 of a container) removes the scratch
    /// files and folders its earlier life left, and never one it holds now.
    #[test]
    fn this_process_reclaims_its_own_id_only_for_scratch_it_does_not_hold() {
        let dir = tempfile::tempdir().unwrap();
        let held = TempScratch::file_in(dir.path()).unwrap();
        let held_folder = TempScratch::folder_in(dir.path()).unwrap();
        // A folder with a file's name is no scratch folder: kept.
        let odd =
            dir.path().join(format!("{TEMP_SCRATCH_PREFIX}{}-0d0d0d0d.jsonl", std::process::id()));
        std::fs::create_dir(&odd).unwrap();
        let left =
            dir.path().join(format!("{TEMP_SCRATCH_PREFIX}{}-0f0f0f0f.jsonl", std::process::id()));
        std::fs::write(&left, "{}\n").unwrap();
        let left_folder =
            dir.path().join(format!("{TEMP_SCRATCH_PREFIX}{}-0e0e0e0e", std::process::id()));
        std::fs::create_dir(&left_folder).unwrap();
        std::fs::write(left_folder.join("session.jsonl"), "{}\n").unwrap();
        let mut removed = reclaim_temp_scratch_in(dir.path());
        removed.sort();
        let mut expected = vec![left.clone(), left_folder.clone()];
        expected.sort();
        assert_eq!(removed, expected);
        assert!(held.path().exists() && held_folder.path().is_dir() && odd.is_dir());
        let (path, folder) = (held.path().to_path_buf(), held_folder.path().to_path_buf());
        drop((held, held_folder));
        assert!(!path.exists() && !folder.exists(), "scratch is removed when dropped");
    }
}
