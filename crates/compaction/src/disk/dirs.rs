//! The folders a command makes on the way to its output, taken back when it fails.

use std::os::unix::fs::DirBuilderExt as _;
use std::path::{Path, PathBuf};

use super::{DiskError, parent_dir};

/// The folders [`create_parent_dirs`] made for an output, removed again (deepest first, each
/// only while empty) when dropped unless [`MadeDirs::keep`] was called: a command that fails
/// after it made its output's folders leaves none of them behind.
#[derive(Debug, Default)]
#[must_use = "the folders are removed when this is dropped without `keep`"]
pub struct MadeDirs {
    made: Vec<PathBuf>,
}

impl MadeDirs {
    /// The folders made, outermost first.
    pub fn made(&self) -> &[PathBuf] {
        &self.made
    }

    /// Keeps the folders (the output is in place).
    pub fn keep(mut self) {
        self.made.clear();
    }
}

impl Drop for MadeDirs {
    fn drop(&mut self) {
        // `remove_dir` removes only an empty folder, so what another program put in one
        // meanwhile stays, and so do the folders around it.
        for dir in self.made.iter().rev() {
            let _ = std::fs::remove_dir(dir);
        }
    }
}

/// Creates the missing folders on the way to `output` (mode 0700), remembering each one made
/// (a folder that another process made meanwhile is not counted). `a/../b` makes `a` too, as
/// `mkdir -p` does; each is remembered.
pub fn create_parent_dirs(output: &Path) -> Result<MadeDirs, DiskError> {
    let dir = parent_dir(output);
    let mut missing = Vec::new();
    let mut at = dir.as_path();
    loop {
        if std::fs::symlink_metadata(at).is_ok() {
            break;
        }
        missing.push(at.to_path_buf());
        match at.parent() {
            Some(parent) if !parent.as_os_str().is_empty() => at = parent,
            _ => break,
        }
    }
    let mut made = MadeDirs::default();
    for path in missing.into_iter().rev() {
        // A `..` component names a folder made (or found) before it.
        if path.file_name().is_none() {
            continue;
        }
        match std::fs::DirBuilder::new().mode(0o700).create(&path) {
            Ok(()) => made.made.push(path),
            Err(error) if error.kind() == std::io::ErrorKind::AlreadyExists => {}
            Err(source) => return Err(DiskError::Io { action: "create", path, source }),
        }
    }
    if !std::fs::metadata(&dir).is_ok_and(|m| m.is_dir()) {
        return Err(DiskError::Io {
            action: "create",
            path: dir,
            source: std::io::Error::from(std::io::ErrorKind::NotADirectory),
        });
    }
    Ok(made)
}
