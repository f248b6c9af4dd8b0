//! Recovering a torn last line when a session is opened for writing.
//!
//! Invariant: a last line without its `\n` that is not a usable entry (cut JSON, or a bare
//! JSON value such as `12345` or `{"type":"message"}`) never stays in front of the next
//! append: its bytes are first copied verbatim to a synced sidecar, then the file is cut back
//! to its last complete line and synced. A failure before the cut leaves the session as it
//! was and no sidecar behind.

use std::os::unix::fs::{FileExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

use compaction_core::DiagnosticKind;

use super::error::StoreError;
use super::{SessionStore, TornTail, io, names};

impl SessionStore {
    /// The torn last line's number and offset, if there is one.
    pub(crate) fn torn_line(&self) -> Option<(usize, u64)> {
        let cut_json = self
            .session
            .diagnostics()
            .iter()
            .any(|diagnostic| diagnostic.kind == DiagnosticKind::TornLastLine);
        // A complete JSON value without its newline that is no entry is as torn as cut JSON.
        if !cut_json && !self.needs_newline {
            return None;
        }
        self.session
            .malformed()
            .iter()
            .find(|malformed| malformed.line == self.lines && malformed.line > 1)
            .map(|malformed| (malformed.line, malformed.offset))
    }

    /// Copies the torn tail to a sidecar (synced), then truncates the session to `offset`
    /// (synced). A failure before the truncation leaves the session as it was.
    pub(crate) fn recover_torn_tail(
        &mut self,
        line: usize,
        offset: u64,
    ) -> Result<TornTail, StoreError> {
        let length = self.length - offset;
        let sidecar = self.write_sidecar(offset, length)?;
        self.truncate_to(offset)?;
        Ok(TornTail { line, offset, length, sidecar })
    }

    /// Cuts a torn tail from a copy: the source still holds its bytes.
    pub(crate) fn cut_torn_tail(
        &mut self,
        line: usize,
        offset: u64,
        source: &Path,
    ) -> Result<TornTail, StoreError> {
        let length = self.length - offset;
        self.truncate_to(offset)?;
        Ok(TornTail { line, offset, length, sidecar: source.to_path_buf() })
    }

    fn truncate_to(&mut self, offset: u64) -> Result<(), StoreError> {
        let Some(writer) = self.writer.as_mut() else {
            return Err(StoreError::ReadOnly { path: self.path.clone() });
        };
        writer
            .set_len(offset)
            .and_then(|()| writer.sync_data())
            .map_err(StoreError::io("cannot truncate torn tail of", &self.path))?;
        self.length = offset;
        self.lines -= 1;
        self.needs_newline = false;
        Ok(())
    }

    fn write_sidecar(&self, offset: u64, length: u64) -> Result<PathBuf, StoreError> {
        let stamp = names::file_timestamp();
        let mut attempt = 0u32;
        let (sidecar, file) = loop {
            let suffix = if attempt == 0 {
                format!(".torn-{stamp}")
            } else {
                format!(".torn-{stamp}-{attempt}")
            };
            let sidecar = names::with_suffix(&self.path, &suffix);
            match std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .mode(0o600)
                .open(&sidecar)
            {
                Ok(file) => break (sidecar, file),
                Err(error)
                    if error.kind() == std::io::ErrorKind::AlreadyExists && attempt < 100 =>
                {
                    attempt += 1;
                }
                Err(error) => return Err(StoreError::io("cannot create", &sidecar)(error)),
            }
        };
        let written = self.fill_sidecar(file, &sidecar, offset, length);
        if written.is_err() {
            // A sidecar that does not hold the bytes (a full disk) is only clutter.
            let _ = std::fs::remove_file(&sidecar);
        }
        written.map(|()| sidecar)
    }

    fn fill_sidecar(
        &self,
        file: std::fs::File,
        sidecar: &Path,
        offset: u64,
        length: u64,
    ) -> Result<(), StoreError> {
        let source = self.lock_file()?;
        let mut writer = io::writer(file, self.options.fault_plan());
        let mut position = offset;
        let end = offset + length;
        let mut buffer = vec![0u8; 1 << 16];
        while position < end {
            let want =
                usize::try_from((end - position).min(buffer.len() as u64)).unwrap_or(buffer.len());
            let got = source
                .read_at(&mut buffer[..want], position)
                .map_err(StoreError::io("cannot read", &self.path))?;
            if got == 0 {
                break;
            }
            writer.write_all(&buffer[..got]).map_err(StoreError::io("cannot write", sidecar))?;
            position += got as u64;
        }
        writer.sync_data().map_err(StoreError::io("cannot sync", sidecar))?;
        let dir = names::parent_dir(sidecar);
        io::sync_dir_with(&dir, self.options.fault_plan())
            .map_err(StoreError::io("cannot sync directory", &dir))
    }
}
