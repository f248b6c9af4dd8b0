//! Writing to a copy of a session (`compaction run FILE -o OUT`) that appears at its output
//! only once complete.
//!
//! Invariant: the source is only read, and the output path is untouched until
//! [`SessionStore::publish`]: the copy is built and appended to in a locked temporary file
//! beside the output, and only after every entry is durably written is it linked to the
//! output (a new name: never replacing anything) or, when replacing was asked for, renamed
//! over it. An output that is the source itself (through `.`, `..`, a symbolic or a hard link)
//! is refused before anything is created. A copy that is never published is removed.

use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};

use super::error::StoreError;
use super::lock::SessionLock;
use super::rewrite::create_locked_temp;
use super::{OpenOptions, OpenReport, Opening, SessionStore, io, names};

/// A copy waiting in its temporary file for [`SessionStore::publish`].
#[derive(Debug)]
pub struct PendingCopy {
    temp: PathBuf,
    output: PathBuf,
    replace: bool,
}

impl PendingCopy {
    /// Removes the temporary file of a copy that will not be published.
    pub(crate) fn discard(self) {
        let _ = std::fs::remove_file(&self.temp);
    }
}

impl SessionStore {
    /// Opens a copy of the session `source` for writing, to become `output` on
    /// [`SessionStore::publish`]. Refuses an `output` that is `source` itself, and one that
    /// exists unless `replace` is set. The copy has the source's permission bits; a torn
    /// last line of the source is not copied (the source keeps it), and an older format is
    /// migrated in the copy only.
    pub fn open_copy(
        source: &Path,
        output: &Path,
        replace: bool,
        options: OpenOptions,
    ) -> Result<(SessionStore, OpenReport), StoreError> {
        let mut input = io::open_regular(source, false)?;
        let metadata =
            input.metadata().map_err(StoreError::io("cannot read metadata of", source))?;
        if let Ok(existing) = std::fs::metadata(output)
            && existing.dev() == metadata.dev()
            && existing.ino() == metadata.ino()
        {
            return Err(StoreError::OutputIsInput {
                output: output.to_path_buf(),
                input: source.to_path_buf(),
            });
        }
        match std::fs::symlink_metadata(output) {
            Ok(_) if !replace => {
                return Err(StoreError::AlreadyExists { path: output.to_path_buf() });
            }
            Ok(_) => {
                // Only a regular file is ever replaced (following a link to what it names):
                // a device, a FIFO, a socket or a directory is refused even with `replace`.
                let target = std::fs::metadata(output)
                    .map_err(StoreError::io("cannot read metadata of", output))?;
                io::refuse_irregular(output, target.file_type())?;
            }
            Err(_) => {}
        }
        names::validate_new_path(output)?;
        let removed_temps = super::rewrite::remove_stale_temps(output);
        let (temp, mut file) = create_locked_temp(output)?;
        let pending = PendingCopy { temp: temp.clone(), output: output.to_path_buf(), replace };
        let copied = std::io::copy(&mut input, &mut file)
            .map_err(StoreError::io("cannot copy to", &temp))
            .and_then(|_| {
                file.set_permissions(std::fs::Permissions::from_mode(metadata.mode() & 0o777))
                    .map_err(StoreError::io("cannot set the mode of", &temp))
            });
        if let Err(error) = copied {
            pending.discard();
            return Err(error);
        }
        let rewrite = options.rewrite_options();
        let opening = Opening {
            lock: SessionLock::adopt(file, &temp),
            rewrite: &rewrite,
            copied_from: Some(source.to_path_buf()),
        };
        match SessionStore::open_locked(&temp, options, opening) {
            Ok((mut store, mut report)) => {
                store.copy = Some(pending);
                report.removed_temps = removed_temps;
                Ok((store, report))
            }
            Err(error) => {
                pending.discard();
                Err(error)
            }
        }
    }

    /// Makes a copy opened with [`SessionStore::open_copy`] appear at its output: syncs what
    /// is unsynced, links the temporary file to the output (or renames it over the output
    /// when replacing was asked for) and syncs the directory. Returns the output path.
    pub fn publish(mut self) -> Result<PathBuf, StoreError> {
        let Some(copy) = self.copy.take() else {
            return Ok(self.path.clone());
        };
        if let Err(error) = self.sync() {
            copy.discard();
            return Err(error);
        }
        let installed = if copy.replace {
            std::fs::rename(&copy.temp, &copy.output)
                .map_err(StoreError::io("cannot replace", &copy.output))
        } else {
            std::fs::hard_link(&copy.temp, &copy.output).map_err(|error| {
                if error.kind() == std::io::ErrorKind::AlreadyExists {
                    StoreError::AlreadyExists { path: copy.output.clone() }
                } else {
                    StoreError::io("cannot create", &copy.output)(error)
                }
            })
        };
        if let Err(error) = installed {
            copy.discard();
            return Err(error);
        }
        if !copy.replace {
            let _ = std::fs::remove_file(&copy.temp);
        }
        let dir = names::parent_dir(&copy.output);
        io::sync_dir_with(&dir, self.options.fault_plan())
            .map_err(StoreError::io("cannot sync directory", &dir))?;
        Ok(copy.output)
    }
}
