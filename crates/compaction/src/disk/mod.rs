//! Files outside the session store that a command reads (transcripts, restored files, a
//! session given to `export`) or writes (an imported session, an exported transcript, a
//! store's export): one place for the rules every such path follows.
//!
//! Invariants:
//! - Only regular files are read: the type is checked before opening, the file is opened
//!   without blocking, and the type is checked again on the open file, so a FIFO with no
//!   writer, a device (`/dev/zero`), a socket or a directory is refused before anything could
//!   block or grow; [`read_regular`] reads at most a given number of bytes.
//! - An output is never the input: compared by device and inode after following links, so
//!   `./x`, an absolute against a relative path, `../dir/x`, a symbolic and a hard link are all
//!   the same file ([`check_output`]).
//! - An output appears only once complete and never replaces a file unless asked: it is
//!   written to a [`Scratch`] file beside it (`.NAME.TAG-PID`, locked while its writer lives)
//!   and published by a hard link, which fails when the name is taken, however late the other
//!   file appeared; replacing (`--force`) renames over a regular file only, never over a FIFO,
//!   device, socket or directory. A scratch file whose writer was killed is recognised by its
//!   name and its missing lock, and removed by the next writer of that output.
//! - A command that fails leaves no folder it made on the way to its output
//!   ([`create_parent_dirs`] takes them back unless the output was published).

mod dirs;
pub use dirs::{MadeDirs, create_parent_dirs};

use std::fs::{File, Metadata};
use std::io::Read as _;
use std::os::unix::fs::{DirBuilderExt as _, MetadataExt as _, OpenOptionsExt as _};
use std::path::{Path, PathBuf};

/// Why a file could not be used.
#[derive(Debug, thiserror::Error)]
pub enum DiskError {
    /// Not a regular file (a FIFO, device, socket or directory).
    #[error("{}: {what}, not a regular file; nothing read or written there", path.display())]
    Irregular {
        /// The file.
        path: PathBuf,
        /// What it is.
        what: &'static str,
    },
    /// Longer than the reader allows.
    #[error("{}: larger than {limit} bytes; refused without reading the rest", path.display())]
    TooLarge {
        /// The file.
        path: PathBuf,
        /// The bound.
        limit: u64,
    },
    /// The output names the input (the same device and inode).
    #[error("{}: is the input {} itself (the same file); name another output", output.display(), input.display())]
    OutputIsInput {
        /// The output as given.
        output: PathBuf,
        /// The input as given.
        input: PathBuf,
    },
    /// The output exists and replacing it was not asked for (or it appeared meanwhile).
    #[error("{}: exists; add --force to replace it", path.display())]
    Exists {
        /// The output.
        path: PathBuf,
    },
    /// Reading or writing failed.
    #[error("{}: cannot {action}: {source}", path.display())]
    Io {
        /// What was being done.
        action: &'static str,
        /// The file.
        path: PathBuf,
        /// The error.
        #[source]
        source: std::io::Error,
    },
}

impl DiskError {
    fn io<'a>(
        action: &'static str,
        path: &'a Path,
    ) -> impl FnOnce(std::io::Error) -> DiskError + 'a {
        move |source| DiskError::Io { action, path: path.to_path_buf(), source }
    }

    /// Whether the input itself is at fault (its type, its size, the output named), rather
    /// than the system.
    pub fn is_input(&self) -> bool {
        !matches!(self, DiskError::Io { .. })
    }
}

/// What a file type is, when it is not a regular file.
pub fn irregular(kind: std::fs::FileType) -> Option<&'static str> {
    use std::os::unix::fs::FileTypeExt as _;
    if kind.is_file() {
        None
    } else if kind.is_dir() {
        Some("a directory")
    } else if kind.is_fifo() {
        Some("a FIFO (named pipe)")
    } else if kind.is_socket() {
        Some("a socket")
    } else if kind.is_char_device() || kind.is_block_device() {
        Some("a device")
    } else {
        Some("not a regular file")
    }
}

fn refuse_irregular(path: &Path, metadata: &Metadata) -> Result<(), DiskError> {
    match irregular(metadata.file_type()) {
        None => Ok(()),
        Some(what) => Err(DiskError::Irregular { path: path.to_path_buf(), what }),
    }
}

/// Opens a regular file for reading (following links), refusing anything else before it
/// could block: checked before opening, opened without blocking, checked again once open.
pub fn open_regular(path: &Path) -> Result<(File, Metadata), DiskError> {
    let before = std::fs::metadata(path).map_err(DiskError::io("read", path))?;
    refuse_irregular(path, &before)?;
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)
        .map_err(DiskError::io("read", path))?;
    let metadata = file.metadata().map_err(DiskError::io("read", path))?;
    refuse_irregular(path, &metadata)?;
    Ok((file, metadata))
}

/// The bytes of the regular file `path`, at most `limit` of them: a longer file is refused
/// after reading `limit + 1` bytes (a file can grow after its size was looked at).
pub fn read_regular(path: &Path, limit: u64) -> Result<Vec<u8>, DiskError> {
    let (file, metadata) = open_regular(path)?;
    if metadata.len() > limit {
        return Err(DiskError::TooLarge { path: path.to_path_buf(), limit });
    }
    let mut bytes = Vec::new();
    file.take(limit.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(DiskError::io("read", path))?;
    if bytes.len() as u64 > limit {
        return Err(DiskError::TooLarge { path: path.to_path_buf(), limit });
    }
    Ok(bytes)
}

/// Whether `path` names the file whose metadata is `input` (the same device and inode,
/// after following links). A path that names nothing is no file.
pub fn is_same_file(input: &Metadata, path: &Path) -> bool {
    std::fs::metadata(path).is_ok_and(|m| m.dev() == input.dev() && m.ino() == input.ino())
}

/// Refuses an `output` that is one of `inputs` (each with the path shown for it), that is
/// not a regular file (even with `replace`), or that exists without `replace`.
pub fn check_output(
    output: &Path,
    inputs: &[(&Path, &Metadata)],
    replace: bool,
) -> Result<(), DiskError> {
    for (input, metadata) in inputs {
        if is_same_file(metadata, output) {
            return Err(DiskError::OutputIsInput {
                output: output.to_path_buf(),
                input: input.to_path_buf(),
            });
        }
    }
    if std::fs::symlink_metadata(output).is_ok() {
        if !replace {
            return Err(DiskError::Exists { path: output.to_path_buf() });
        }
        // Only a regular file is ever replaced (following a link to what it names); a link
        // that names nothing is replaced by the file.
        if let Ok(target) = std::fs::metadata(output) {
            refuse_irregular(output, &target)?;
        }
    }
    Ok(())
}

/// The folder an output is written in (`.` for a bare name).
pub fn parent_dir(output: &Path) -> PathBuf {
    match output.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

fn scratch_prefix(output: &Path, tag: &str) -> String {
    let name = output.file_name().map_or_else(|| "output".into(), |n| n.to_string_lossy());
    format!(".{name}.{tag}-")
}

/// A file being written beside its output, `.NAME.TAG-PID`, locked by its writer until it is
/// published; removed when dropped unpublished.
#[derive(Debug)]
pub struct Scratch {
    path: PathBuf,
    output: PathBuf,
    file: Option<File>,
}

impl Scratch {
    /// Removes the scratch files of `output` with this `tag` that no live writer holds (the
    /// kernel drops a writer's lock when it dies), then creates this process's, mode 0600,
    /// locked. Returns it and the stale files removed.
    pub fn create(output: &Path, tag: &str) -> Result<(Scratch, Vec<PathBuf>), DiskError> {
        let dir = parent_dir(output);
        let prefix = scratch_prefix(output, tag);
        let removed = crate::store::rewrite::remove_stale_temps_named(&dir, |name| {
            name.strip_prefix(&prefix)
                .is_some_and(|pid| !pid.is_empty() && pid.bytes().all(|b| b.is_ascii_digit()))
        });
        let path = dir.join(format!("{prefix}{}", std::process::id()));
        let file = create_locked(&path, false).map_err(DiskError::io("create", &path))?;
        Ok((Scratch { path, output: output.to_path_buf(), file: Some(file) }, removed))
    }

    /// The open scratch file.
    pub fn file(&mut self) -> &mut File {
        self.file.as_mut().unwrap_or_else(|| unreachable!("a scratch file is open until published"))
    }

    /// Where the scratch file is.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Syncs the scratch file and makes it appear at its output: by a hard link, which
    /// fails if any file is there (however late it appeared), or with `replace` by a rename
    /// over a regular file (never over a FIFO, device, socket or directory, nor over any of
    /// `inputs`); then syncs the folder. On failure the output is untouched and the scratch
    /// file removed.
    pub fn publish(
        mut self,
        inputs: &[(&Path, &Metadata)],
        replace: bool,
    ) -> Result<PathBuf, DiskError> {
        let output = self.output.clone();
        if let Some(file) = &self.file {
            file.sync_all().map_err(DiskError::io("sync", &self.path))?;
        }
        publish_file(&self.path, &output, inputs, replace)?;
        // Published: nothing is left to remove, and the lock goes with the file.
        self.file = None;
        self.path = PathBuf::new();
        let dir = parent_dir(&output);
        File::open(&dir).and_then(|d| d.sync_all()).map_err(DiskError::io("sync", &dir))?;
        Ok(output)
    }
}

/// Creates the file `path`, which must not exist (mode 0600, readable, and writable or
/// appending), and takes its lock, so that no reclaim of abandoned scratch files takes it for
/// one while its writer lives. The one way this project makes a file it will publish: the
/// scratch files of [`Scratch`] and the store's temporary files of rewrites and copies.
pub(crate) fn create_locked(path: &Path, append: bool) -> std::io::Result<File> {
    let file = std::fs::OpenOptions::new()
        .read(true)
        .write(!append)
        .append(append)
        .create_new(true)
        .mode(0o600)
        .open(path)?;
    if let Err(error) = file.try_lock() {
        let _ = std::fs::remove_file(path);
        return Err(std::io::Error::other(format!("cannot lock: {error}")));
    }
    Ok(file)
}

/// Makes the complete file `temp` appear at `output` (beside it), the one publishing rule:
///
/// - without `replace`, by a hard link, which fails when any name is there, however late it
///   appeared (then `temp` is left for the caller to remove);
/// - with `replace`, the output is checked again ([`check_output`]: never one of `inputs`,
///   never a FIFO, device, socket or directory, also through a link) and `temp` renamed over
///   it. Where the system can swap two names atomically (`renameat2` with
///   `RENAME_EXCHANGE`), the swap is what is checked: what came out of `output` is looked at
///   after the swap, and anything but a regular file or a link to one (or to nothing) is
///   swapped back, so a FIFO or folder that appeared after the check is never destroyed.
///
/// On success `temp` no longer exists.
pub fn publish_file(
    temp: &Path,
    output: &Path,
    inputs: &[(&Path, &Metadata)],
    replace: bool,
) -> Result<(), DiskError> {
    match check_output(output, inputs, replace) {
        Ok(()) => {}
        // Without `replace`, the link below is the check that cannot race.
        Err(DiskError::Exists { .. }) if !replace => {}
        Err(error) => return Err(error),
    }
    match std::fs::hard_link(temp, output) {
        Ok(()) => {
            let _ = std::fs::remove_file(temp);
            return Ok(());
        }
        Err(source) if source.kind() == std::io::ErrorKind::AlreadyExists => {
            if !replace {
                return Err(DiskError::Exists { path: output.to_path_buf() });
            }
        }
        Err(source) => {
            return Err(DiskError::Io { action: "create", path: output.to_path_buf(), source });
        }
    }
    match exchange(temp, output) {
        Ok(()) => {
            // `temp` now names what stood at `output`: keep it only if it may be replaced.
            let refusal = match std::fs::symlink_metadata(temp) {
                Ok(meta) if meta.file_type().is_symlink() => match std::fs::metadata(temp) {
                    Ok(target) => refuse_irregular(output, &target).err(),
                    Err(_) => None,
                },
                Ok(meta) => refuse_irregular(output, &meta).err(),
                Err(_) => None,
            };
            let refusal = refusal.or_else(|| {
                let moved = std::fs::metadata(temp).ok()?;
                inputs
                    .iter()
                    .find(|(_, input)| input.dev() == moved.dev() && input.ino() == moved.ino())
                    .map(|(input, _)| DiskError::OutputIsInput {
                        output: output.to_path_buf(),
                        input: input.to_path_buf(),
                    })
            });
            if let Some(refusal) = refusal {
                exchange(temp, output).map_err(DiskError::io("restore", output))?;
                return Err(refusal);
            }
            let removed = match std::fs::symlink_metadata(temp) {
                Ok(meta) if meta.is_dir() => Ok(()),
                _ => std::fs::remove_file(temp),
            };
            removed.map_err(DiskError::io("remove the replaced file", temp))
        }
        // No atomic swap here (another system, a file system without it): the check above
        // is the last word, and a plain rename replaces.
        Err(_) => std::fs::rename(temp, output).map_err(DiskError::io("replace", output)),
    }
}

/// Swaps the names `a` and `b` atomically (Linux `renameat2` with `RENAME_EXCHANGE`).
fn exchange(a: &Path, b: &Path) -> std::io::Result<()> {
    #[cfg(target_os = "linux")]
    {
        use rustix::fs::{CWD, RenameFlags, renameat_with};
        renameat_with(CWD, a, CWD, b, RenameFlags::EXCHANGE).map_err(std::io::Error::from)
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = (a, b);
        Err(std::io::Error::from(std::io::ErrorKind::Unsupported))
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        if !self.path.as_os_str().is_empty() {
            let _ = std::fs::remove_file(&self.path);
        }
    }
}

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
    fn a_file_that_appears_before_publishing_is_kept_unless_replacing() {
        let dir = tempfile::tempdir().unwrap();
        let output = dir.path().join("out.jsonl");
        let (mut scratch, _) = Scratch::create(&output, "test").unwrap();
        std::io::Write::write_all(scratch.file(), b"ours\n").unwrap();
        std::fs::write(&output, "theirs").unwrap();
        assert!(matches!(scratch.publish(&[], false), Err(DiskError::Exists { .. })));
        assert_eq!(std::fs::read_to_string(&output).unwrap(), "theirs");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1, "the scratch file is gone");
        let (mut scratch, _) = Scratch::create(&output, "test").unwrap();
        std::io::Write::write_all(scratch.file(), b"ours\n").unwrap();
        scratch.publish(&[], true).unwrap();
        assert_eq!(std::fs::read_to_string(&output).unwrap(), "ours\n");
    }

    #[test]
    fn a_held_scratch_file_is_kept_and_an_abandoned_one_removed() {
        let dir = tempfile::tempdir().unwrap();
        let output = dir.path().join("out.jsonl");
        let (held, _) = Scratch::create(&output, "test").unwrap();
        let held_path = held.path().to_path_buf();
        // A second writer in another process would have another pid; this one reclaims.
        std::fs::rename(&held_path, dir.path().join(".out.jsonl.test-2")).unwrap();
        let abandoned = dir.path().join(".out.jsonl.test-1");
        std::fs::write(&abandoned, "left by a killed writer").unwrap();
        let (_second, removed) = Scratch::create(&output, "test").unwrap();
        assert_eq!(removed, vec![abandoned]);
        assert!(dir.path().join(".out.jsonl.test-2").exists(), "a locked one stays");
        drop(held);
    }

    #[test]
    fn reads_are_bounded_and_only_of_regular_files() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("big");
        std::fs::File::create(&path).unwrap().set_len(1 << 40).unwrap();
        assert!(matches!(read_regular(&path, 1 << 20), Err(DiskError::TooLarge { .. })));
        assert!(matches!(read_regular(dir.path(), 10), Err(DiskError::Irregular { .. })));
        assert!(matches!(
            read_regular(Path::new("/dev/zero"), 10),
            Err(DiskError::Irregular { what: "a device", .. })
        ));
    }

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
