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
use crate::disk::DiskError;

/// A copy waiting in its temporary file for [`SessionStore::publish`].
#[derive(Debug)]
pub struct PendingCopy {
    temp: PathBuf,
    output: PathBuf,
    source: PathBuf,
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
        crate::disk::check_output(output, &[(source, &metadata)], replace)
            .map_err(|error| from_disk(error, source))?;
        names::validate_new_path(output)?;
        let removed_temps = super::rewrite::remove_stale_temps(output);
        let (temp, mut file) = create_locked_temp(output)?;
        let pending = PendingCopy {
            temp: temp.clone(),
            output: output.to_path_buf(),
            source: source.to_path_buf(),
            replace,
        };
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
        // The one publishing rule (a link, or with `replace` a checked swap), the output
        // checked again against the source: it may have been linked there meanwhile.
        let source = std::fs::metadata(&copy.source).ok();
        let inputs: Vec<(&Path, &std::fs::Metadata)> =
            source.iter().map(|metadata| (copy.source.as_path(), metadata)).collect();
        if let Err(error) =
            crate::disk::publish_file(&copy.temp, &copy.output, &inputs, copy.replace)
        {
            let error = from_disk(error, &copy.output);
            copy.discard();
            return Err(error);
        }
        let dir = names::parent_dir(&copy.output);
        io::sync_dir_with(&dir, self.options.fault_plan())
            .map_err(StoreError::io("cannot sync directory", &dir))?;
        Ok(copy.output)
    }
}

/// A refusal of the shared disk rules, as the store names it (`path`: the file an I/O error
/// concerns when the error names none).
fn from_disk(error: DiskError, path: &Path) -> StoreError {
    match error {
        DiskError::Exists { path } => StoreError::AlreadyExists { path },
        DiskError::OutputIsInput { output, input } => StoreError::OutputIsInput { output, input },
        DiskError::Irregular { path, what } => StoreError::NotRegularFile { path, what },
        DiskError::Io { action, path, source } => StoreError::Io { action, path, source },
        DiskError::TooLarge { .. } => StoreError::Io {
            action: "cannot read",
            path: path.to_path_buf(),
            source: std::io::Error::other(error.to_string()),
        },
    }
}
