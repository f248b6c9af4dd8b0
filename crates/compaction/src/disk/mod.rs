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
//!   file appeared; replacing (`--force`) puts it over a regular file only, never over a FIFO,
//!   device, socket or directory, judged on what an atomic swap took out of the name (put
//!   back when refused), so one that appeared after the check survives too. [`publish_file`]
//!   is that one rule, for these outputs and the store's copies (`run -o`) alike, and
//!   `create_locked` the one way their scratch files are made. A scratch file whose writer
//!   was killed is recognised by its name and its missing lock, and removed by the next
//!   writer of that output.
//! - A command that fails leaves no folder it made on the way to its output
//!   ([`create_parent_dirs`] takes them back unless the output was published).

mod dirs;
mod temp;
pub use dirs::{MadeDirs, create_parent_dirs};
pub use temp::{
    TEMP_SCRATCH_PREFIX, TempScratch, reclaim_temp_scratch, reclaim_temp_scratch_in,
    temp_scratch_pid,
};

use std::fs::{File, Metadata};
use std::io::Read as _;
use std::os::unix::fs::{MetadataExt as _, OpenOptionsExt as _};
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

/// The refusal to replace `found`, the metadata of what stands at `output` (links
/// followed), when it is one of `inputs` (the same device and inode).
fn output_is_input(
    output: &Path,
    found: &Metadata,
    inputs: &[(&Path, &Metadata)],
) -> Option<DiskError> {
    inputs.iter().find(|(_, input)| input.dev() == found.dev() && input.ino() == found.ino()).map(
        |(input, _)| DiskError::OutputIsInput {
            output: output.to_path_buf(),
            input: input.to_path_buf(),
        },
    )
}

/// Refuses an `output` that is one of `inputs` (each with the path shown for it), that is
/// not a regular file (even with `replace`), or that exists without `replace`.
pub fn check_output(
    output: &Path,
    inputs: &[(&Path, &Metadata)],
    replace: bool,
) -> Result<(), DiskError> {
    // What the output names, following a link; a path that names nothing is no file.
    let found = std::fs::metadata(output).ok();
    if let Some(error) = found.as_ref().and_then(|found| output_is_input(output, found, inputs)) {
        return Err(error);
    }
    if std::fs::symlink_metadata(output).is_ok() {
        if !replace {
            return Err(DiskError::Exists { path: output.to_path_buf() });
        }
        // Only a regular file is ever replaced (following a link to what it names); a link
        // that names nothing is replaced by the file.
        if let Some(found) = &found {
            refuse_irregular(output, found)?;
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
    replace_by_swap(temp, output, inputs)
}

/// Puts `temp` in the place of what stands at `output` when that is a regular file, a link
/// to one or a link to nothing, and none of `inputs`; checked on what the atomic swap took
/// out, which is swapped back when refused (so it is never destroyed). Without an atomic
/// swap, a plain rename.
fn replace_by_swap(
    temp: &Path,
    output: &Path,
    inputs: &[(&Path, &Metadata)],
) -> Result<(), DiskError> {
    if exchange(temp, output).is_err() {
        // No atomic swap here (another system, a file system without it): the caller's
        // check is the last word, and a plain rename replaces.
        return std::fs::rename(temp, output).map_err(DiskError::io("replace", output));
    }
    // `temp` now names what stood at `output`, followed through a link (a link to nothing
    // may go).
    let refusal = std::fs::metadata(temp).ok().and_then(|taken| {
        refuse_irregular(output, &taken).err().or_else(|| output_is_input(output, &taken, inputs))
    });
    if let Some(refusal) = refusal {
        exchange(temp, output).map_err(DiskError::io("restore", output))?;
        return Err(refusal);
    }
    std::fs::remove_file(temp).map_err(DiskError::io("remove the replaced file", temp))
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

    /// What the swap takes out is judged: a FIFO or a folder that appeared at the output
    /// after the caller's check is put back, a regular file or a link to nothing replaced.
    #[test]
    fn a_replacing_publish_puts_back_a_fifo_or_folder_it_took_out() {
        let dir = tempfile::tempdir().unwrap();
        let temp = dir.path().join(".out.test-1");
        let output = dir.path().join("out");
        for what in ["fifo", "folder", "file", "dangling link"] {
            std::fs::write(&temp, "ours\n").unwrap();
            match what {
                "fifo" => assert!(
                    std::process::Command::new("mkfifo").arg(&output).status().unwrap().success()
                ),
                "folder" => std::fs::create_dir(&output).unwrap(),
                "file" => std::fs::write(&output, "theirs\n").unwrap(),
                _ => std::os::unix::fs::symlink("nowhere", &output).unwrap(),
            }
            let result = replace_by_swap(&temp, &output, &[]);
            let kind = std::fs::symlink_metadata(&output).unwrap().file_type();
            match what {
                "fifo" | "folder" => {
                    assert!(matches!(result, Err(DiskError::Irregular { .. })), "{what}");
                    assert!(irregular(kind).is_some(), "{what} is back at the output");
                    assert_eq!(std::fs::read_to_string(&temp).unwrap(), "ours\n");
                    if what == "fifo" {
                        std::fs::remove_file(&output).unwrap();
                    } else {
                        std::fs::remove_dir(&output).unwrap();
                    }
                }
                _ => {
                    result.unwrap();
                    assert_eq!(std::fs::read_to_string(&output).unwrap(), "ours\n", "{what}");
                    assert!(!temp.exists() && !dir.path().join("nowhere").exists());
                    std::fs::remove_file(&output).unwrap();
                }
            }
        }
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
}
