//! Appending entries, and noticing another writer before doing so.
//!
//! Invariant: an entry is written only when the file is exactly as this store last read or
//! wrote it (same file at the path, same length, same last bytes), checked under the lock
//! right before the write; otherwise nothing is written and [`StoreError::Changed`] says what
//! changed. A write that fails is undone (the file cut back to its previous length) or
//! poisons the store.

use std::os::unix::fs::FileExt;

use compaction_core::Entry;
use serde_json::{Map, Value};

use super::error::{FileChange, StoreError};
use super::io::SyncWrite;
use super::{
    FsyncPolicy, NewEntry, Parent, RESERVED_FIELDS, SessionStore, header, lock, names, read,
};

/// How many of the file's last bytes the store remembers to notice a rewrite.
pub(crate) const TAIL_BYTES: u64 = 256;

impl SessionStore {
    /// Appends an entry: fills `id` (8 hex digits, unique in the file), `parentId` and
    /// `timestamp`, checks that no other program changed the file since it was read (else
    /// [`StoreError::Changed`], nothing written), writes the line, meets the fsync policy and
    /// adds the entry to [`SessionStore::session`].
    pub fn append(&mut self, new: NewEntry) -> Result<Entry, StoreError> {
        let mut entries = self.append_all(vec![new])?;
        entries.pop().ok_or_else(|| self.invalid("no entry was built".to_owned()))
    }

    /// Appends several entries as one write: all of them or none. Each entry may name an
    /// earlier one of the batch as its parent ([`Parent::Id`]); [`Parent::Leaf`] is the
    /// leaf before the batch for the first entry and the previous entry of the batch after
    /// it. The file changes once, so a failure leaves it as it was.
    pub fn append_all(&mut self, news: Vec<NewEntry>) -> Result<Vec<Entry>, StoreError> {
        if self.writer.is_none() {
            return Err(StoreError::ReadOnly { path: self.path.clone() });
        }
        if self.poisoned {
            return Err(StoreError::Poisoned { path: self.path.clone() });
        }
        let mut entries: Vec<Entry> = Vec::with_capacity(news.len());
        for new in news {
            let entry = self.build_entry(new, &entries)?;
            entries.push(entry);
        }
        self.write_entries(entries)
    }

    /// Appends complete entry lines (each with its own `id` and `parentId`) as one write:
    /// all of them or none. An id already used in the file or earlier in the batch, or a
    /// parent that does not exist, is refused before anything is written.
    pub fn append_lines(&mut self, lines: &[String]) -> Result<Vec<Entry>, StoreError> {
        if self.writer.is_none() {
            return Err(StoreError::ReadOnly { path: self.path.clone() });
        }
        if self.poisoned {
            return Err(StoreError::Poisoned { path: self.path.clone() });
        }
        let mut entries: Vec<Entry> = Vec::with_capacity(lines.len());
        for raw in lines {
            let line = self.lines + entries.len() + 1;
            if raw.len() > self.options.max_line_bytes || raw.contains('\n') {
                return Err(self.invalid(format!("line {line} is not one line within the limit")));
            }
            let entry = Entry::parse(line, raw)
                .map_err(|error| self.invalid(format!("line {line}: {error}")))?;
            let in_batch = |id: &str| entries.iter().any(|earlier| earlier.id == id);
            if self.id_in_use(&entry.id) || in_batch(&entry.id) {
                return Err(self.invalid(format!("id `{}` is already used", entry.id)));
            }
            if let Some(parent) = &entry.parent_id
                && !self.session.contains(parent)
                && !in_batch(parent)
            {
                return Err(self.invalid(format!("parent `{parent}` does not exist")));
            }
            entries.push(entry);
        }
        self.write_entries(entries)
    }

    /// Writes built entries as one write, once the file is checked unchanged.
    fn write_entries(&mut self, entries: Vec<Entry>) -> Result<Vec<Entry>, StoreError> {
        self.check_unchanged()?;
        let mut bytes = Vec::new();
        if self.needs_newline {
            bytes.push(b'\n');
        }
        for entry in &entries {
            bytes.extend_from_slice(entry.raw().as_bytes());
            bytes.push(b'\n');
        }
        let previous_length = self.length;
        self.write_committed(&bytes, previous_length)?;
        self.length += bytes.len() as u64;
        self.lines += entries.len();
        self.needs_newline = false;
        self.remember_tail(&bytes);
        for entry in &entries {
            self.session.push(entry.clone()).map_err(|reason| self.invalid(reason))?;
        }
        Ok(entries)
    }

    /// Flushes entries written under [`FsyncPolicy::Batch`] or [`FsyncPolicy::Never`].
    pub fn sync(&mut self) -> Result<(), StoreError> {
        let Some(writer) = self.writer.as_mut() else {
            return Ok(());
        };
        match writer.sync_data() {
            Ok(()) => {
                self.unsynced = 0;
                Ok(())
            }
            Err(error) => {
                self.poisoned = true;
                Err(StoreError::io("cannot sync", &self.path)(error))
            }
        }
    }

    /// Checks that the file is what this store last read or wrote: the path still names the
    /// locked file, and its length and last bytes are unchanged.
    pub fn check_unchanged(&self) -> Result<(), StoreError> {
        let change = |change| StoreError::Changed { path: self.path.clone(), change };
        let file = self.lock_file()?;
        if self.copy.is_none() && !lock::names_same_file(&self.path, file)? {
            return Err(change(FileChange::Replaced));
        }
        let now =
            file.metadata().map_err(StoreError::io("cannot read metadata of", &self.path))?.len();
        let from = self.length;
        if now < from
            || read_tail(file, from).map_err(StoreError::io("cannot read", &self.path))?
                != self.tail
        {
            return Err(change(FileChange::Rewritten { from, to: now }));
        }
        if now == from {
            return Ok(());
        }
        let mut last = [0u8; 1];
        file.read_exact_at(&mut last, now - 1)
            .map_err(StoreError::io("cannot read", &self.path))?;
        Err(change(if last[0] == b'\n' {
            FileChange::Grew { from, to: now }
        } else {
            FileChange::Incomplete { from, to: now }
        }))
    }

    /// Reads the file again, under the lock, after another program appended complete lines
    /// to it ([`FileChange::Grew`]); the session then holds the new entries too.
    ///
    /// Refuses (changing nothing) when the file now ends in an incomplete line, as another
    /// program may be in the middle of writing it: nothing may be appended after it.
    pub fn reload(&mut self) -> Result<(), StoreError> {
        let file =
            self.lock_file()?.try_clone().map_err(StoreError::io("cannot open", &self.path))?;
        let (session, shape) =
            read::read_session(read::ReadAt::new(&file), self.options.parse_options())
                .map_err(StoreError::io("cannot read", &self.path))?;
        if !shape.ends_with_newline {
            return Err(StoreError::Changed {
                path: self.path.clone(),
                change: FileChange::Incomplete { from: self.length, to: shape.length },
            });
        }
        header::refuse_unwritable(&session, &self.path)?;
        self.session = session;
        self.length = shape.length;
        self.lines = shape.lines;
        self.needs_newline = false;
        self.tail =
            read_tail(&file, self.length).map_err(StoreError::io("cannot read", &self.path))?;
        Ok(())
    }

    /// Remembers the file's last bytes as they are now.
    pub(crate) fn with_tail(mut self) -> Result<SessionStore, StoreError> {
        let file = self.lock_file()?;
        self.tail =
            read_tail(file, self.length).map_err(StoreError::io("cannot read", &self.path))?;
        Ok(self)
    }

    fn remember_tail(&mut self, written: &[u8]) {
        self.tail.extend_from_slice(written);
        let keep = usize::try_from(TAIL_BYTES).unwrap_or(usize::MAX);
        if self.tail.len() > keep {
            self.tail.drain(..self.tail.len() - keep);
        }
    }

    pub(crate) fn invalid(&self, reason: String) -> StoreError {
        StoreError::InvalidEntry { path: self.path.clone(), reason }
    }

    /// Builds the entry `new` would be, after the not yet written `batch`.
    fn build_entry(&self, new: NewEntry, batch: &[Entry]) -> Result<Entry, StoreError> {
        if let Some(field) = RESERVED_FIELDS.iter().find(|field| new.fields.contains_key(**field)) {
            return Err(self.invalid(format!("`{field}` is set by the store")));
        }
        let in_batch = |id: &str| batch.iter().any(|entry| entry.id == id);
        let parent_id = match new.parent {
            Parent::Leaf => match batch.last() {
                Some(previous) => Some(previous.id.clone()),
                None => self.session.leaf().map(|index| self.session.entries()[index].id.clone()),
            },
            Parent::Root => None,
            Parent::Id(id) => {
                if !self.session.contains(&id) && !in_batch(&id) {
                    return Err(self.invalid(format!("parent `{id}` does not exist")));
                }
                Some(id)
            }
        };
        let mut id = names::random_entry_id();
        while self.id_in_use(&id) || in_batch(&id) {
            id = names::random_entry_id();
        }
        let mut map = Map::with_capacity(new.fields.len() + 4);
        map.insert("type".into(), new.entry_type.into());
        map.insert("id".into(), id.into());
        map.insert("parentId".into(), parent_id.map_or(Value::Null, Value::String));
        let now = std::time::SystemTime::now();
        map.insert("timestamp".into(), names::timestamp_of(now).into());
        map.extend(new.fields);
        // A compaction's system checkpoint carries the entry's time in milliseconds, as
        // pi 1.6 writes it.
        if let Some(Value::Object(system)) = map.get_mut("systemMessage") {
            system.insert("timestamp".into(), names::millis_of(now).into());
        }
        let raw = Value::Object(map).to_string();
        let line = self.lines + batch.len() + 1;
        if raw.len() > self.options.max_line_bytes {
            return Err(self.invalid(format!(
                "line {line} would be {} bytes, over the limit of {} bytes",
                raw.len(),
                self.options.max_line_bytes
            )));
        }
        Entry::parse(line, &raw).map_err(|error| self.invalid(format!("line {line}: {error}")))
    }

    /// Writes `bytes` and meets the fsync policy, or restores the file to
    /// `previous_length` and reports the error.
    fn write_committed(&mut self, bytes: &[u8], previous_length: u64) -> Result<(), StoreError> {
        let policy = self.options.fsync;
        let Some(writer) = self.writer.as_mut() else {
            return Err(StoreError::ReadOnly { path: self.path.clone() });
        };
        if let Err(error) = writer.write_all(bytes) {
            self.poisoned = !undo(writer.as_mut(), previous_length);
            return Err(StoreError::io("cannot append to", &self.path)(error));
        }
        let sync_now = match policy {
            FsyncPolicy::Always => true,
            FsyncPolicy::Batch(every) => {
                self.unsynced += 1;
                self.unsynced >= every.max(1)
            }
            FsyncPolicy::Never => false,
        };
        if sync_now {
            if let Err(error) = writer.sync_data() {
                // Only the entry being appended is withdrawn: earlier entries of a batch
                // were already acknowledged. Whether the page cache still holds them after
                // a failed sync is unknown, so the store refuses further writes.
                let undone =
                    policy == FsyncPolicy::Always && undo(writer.as_mut(), previous_length);
                self.poisoned = !undone;
                return Err(StoreError::io("cannot sync", &self.path)(error));
            }
            self.unsynced = 0;
        }
        Ok(())
    }
}

/// The last bytes (up to [`TAIL_BYTES`]) of the first `length` bytes of `file`.
pub(crate) fn read_tail(file: &std::fs::File, length: u64) -> std::io::Result<Vec<u8>> {
    let start = length.saturating_sub(TAIL_BYTES);
    let mut tail = vec![0u8; usize::try_from(length - start).unwrap_or(0)];
    file.read_exact_at(&mut tail, start)?;
    Ok(tail)
}

/// Cuts the file back to `length` and syncs; false when that failed too.
fn undo(writer: &mut dyn SyncWrite, length: u64) -> bool {
    writer.set_len(length).and_then(|()| writer.sync_data()).is_ok()
}

impl SessionStore {
    /// Whether `id` occurs anywhere in the file: as an entry's id, or anywhere in a line this
    /// store could not read (pi may read that line, and an entry there may have this id).
    /// A line too long to hold is searched on disk; when that fails, the id counts as used.
    fn id_in_use(&self, id: &str) -> bool {
        if self.session.contains(id) {
            return true;
        }
        let finder = memchr::memmem::Finder::new(id.as_bytes());
        self.session.malformed().iter().any(|line| match &line.bytes {
            Some(bytes) => finder.find(bytes).is_some(),
            None => self.range_contains(line.offset, line.length, &finder).unwrap_or(true),
        })
    }

    /// Whether the file's bytes `offset..offset + length` hold what `finder` looks for.
    fn range_contains(
        &self,
        offset: u64,
        length: usize,
        finder: &memchr::memmem::Finder<'_>,
    ) -> Result<bool, StoreError> {
        let file = self.lock_file()?;
        let overlap = finder.needle().len().saturating_sub(1);
        let mut buffer = vec![0u8; (1 << 20) + overlap];
        let mut kept = 0;
        let mut position = offset;
        let end = offset + length as u64;
        while position < end {
            let want = usize::try_from(end - position).unwrap_or(usize::MAX).min(1 << 20);
            let read = file
                .read_at(&mut buffer[kept..kept + want], position)
                .map_err(StoreError::io("cannot read", &self.path))?;
            if read == 0 {
                break;
            }
            if finder.find(&buffer[..kept + read]).is_some() {
                return Ok(true);
            }
            position += read as u64;
            let total = kept + read;
            kept = overlap.min(total);
            buffer.copy_within(total - kept..total, 0);
        }
        Ok(false)
    }
}
