//! Names the store makes: entry ids, timestamps, sidecar and temporary file names, and the
//! checks on names that come from outside.
//!
//! Invariant: a name the store joins onto a directory is a single plain component (no path
//! separator, no `..`, no NUL), so nothing it creates lands outside the session's directory.

use std::ffi::OsString;
use std::path::{Component, Path, PathBuf};
use std::time::SystemTime;

use super::error::StoreError;

/// Checks that `name` is one plain path component.
pub fn validate_name(name: &str) -> Result<(), StoreError> {
    let reason = if name.is_empty() {
        Some("it is empty")
    } else if name.contains('\0') {
        Some("it contains a NUL byte")
    } else if name.contains('/') || name.contains('\\') {
        Some("it contains a path separator")
    } else if name == "." || name == ".." {
        Some("it is `.` or `..`")
    } else if name.contains("..") {
        Some("it contains `..`")
    } else {
        None
    };
    match reason {
        Some(reason) => Err(StoreError::InvalidName { name: name.to_owned(), reason }),
        None => Ok(()),
    }
}

/// Checks a path the store will create: its file name is a plain name and no component is
/// `..`.
pub fn validate_new_path(path: &Path) -> Result<(), StoreError> {
    let shown = path.display().to_string();
    if path.components().any(|component| matches!(component, Component::ParentDir)) {
        return Err(StoreError::InvalidName { name: shown, reason: "it contains `..`" });
    }
    let Some(name) = path.file_name().and_then(|name| name.to_str()) else {
        return Err(StoreError::InvalidName { name: shown, reason: "it has no UTF-8 file name" });
    };
    validate_name(name)
}

/// Joins a validated session file name (or id used as one) onto a directory.
pub fn session_path(dir: &Path, name: &str) -> Result<PathBuf, StoreError> {
    validate_name(name)?;
    Ok(dir.join(name))
}

/// Now, as pi writes timestamps: ISO-8601 UTC with milliseconds (`2025-01-01T00:00:00.000Z`).
pub fn timestamp_now() -> String {
    timestamp_of(SystemTime::now())
}

/// The ISO-8601 timestamp of `time`, in milliseconds.
pub fn timestamp_of(time: SystemTime) -> String {
    humantime::format_rfc3339_millis(time).to_string()
}

/// Milliseconds since the Unix epoch (pi's message timestamps).
pub fn millis_of(time: SystemTime) -> u64 {
    time.duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0, |since| u64::try_from(since.as_millis()).unwrap_or(u64::MAX))
}

/// A timestamp fit for a file name: `20250101T000000.000Z`.
pub fn file_timestamp() -> String {
    timestamp_now().replace(['-', ':'], "")
}

/// A new entry id: 8 lowercase hex digits.
pub fn random_entry_id() -> String {
    #[cfg(feature = "fault-injection")]
    if let Some(id) = FORCED_IDS.with(|ids| ids.borrow_mut().pop_front()) {
        return id;
    }
    format!("{:08x}", rand::random::<u32>())
}

#[cfg(feature = "fault-injection")]
thread_local! {
    static FORCED_IDS: std::cell::RefCell<std::collections::VecDeque<String>> =
        const { std::cell::RefCell::new(std::collections::VecDeque::new()) };
}

/// Makes the next entry ids this thread draws be `ids`, in order (a test aid of the
/// `fault-injection` feature, to make id collisions happen on purpose).
#[cfg(feature = "fault-injection")]
pub fn force_next_entry_ids(ids: &[&str]) {
    FORCED_IDS.with(|queue| queue.borrow_mut().extend(ids.iter().map(|id| (*id).to_owned())));
}

/// A random (version 4) UUID for a new session header.
pub fn random_uuid() -> String {
    let mut bytes: [u8; 16] = rand::random();
    bytes[6] = (bytes[6] & 0x0f) | 0x40;
    bytes[8] = (bytes[8] & 0x3f) | 0x80;
    let hex: String = bytes.iter().map(|byte| format!("{byte:02x}")).collect();
    format!("{}-{}-{}-{}-{}", &hex[0..8], &hex[8..12], &hex[12..16], &hex[16..20], &hex[20..32])
}

/// `path` with `suffix` appended to its file name (`a.jsonl` → `a.jsonl.lock`).
pub fn with_suffix(path: &Path, suffix: &str) -> PathBuf {
    let mut name = path.file_name().map(OsString::from).unwrap_or_default();
    name.push(suffix);
    path.with_file_name(name)
}

/// A hidden temporary file beside `path`, unique to this call.
pub fn temp_path(path: &Path) -> PathBuf {
    let mut name = OsString::from(".");
    name.push(path.file_name().unwrap_or_default());
    name.push(format!(".tmp-{:08x}", rand::random::<u32>()));
    path.with_file_name(name)
}

/// The start of every [`temp_path`] name for `path` (`None` for a non-UTF-8 name).
pub(crate) fn temp_prefix(path: &Path) -> Option<String> {
    path.file_name().and_then(|name| name.to_str()).map(|name| format!(".{name}.tmp-"))
}

/// The directory holding `path` (`.` for a bare file name).
pub fn parent_dir(path: &Path) -> PathBuf {
    match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent.to_path_buf(),
        Some(_) | None => PathBuf::from("."),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_with_separators_dots_or_nul_are_rejected() {
        for bad in ["", ".", "..", "a/b", "a\\b", "a\0b", "..x", "x..jsonl"] {
            assert!(validate_name(bad).is_err(), "{bad:?} accepted");
        }
        for good in ["a.jsonl", "2025-01-01_abc.jsonl", "0f3a9c1e"] {
            assert!(validate_name(good).is_ok(), "{good:?} rejected");
        }
        assert!(validate_new_path(Path::new("dir/../x.jsonl")).is_err());
        assert!(validate_new_path(Path::new("/tmp/dir/x.jsonl")).is_ok());
        assert!(session_path(Path::new("/tmp"), "../etc").is_err());
    }

    #[test]
    fn ids_timestamps_and_uuids_have_their_shapes() {
        let id = random_entry_id();
        assert_eq!(id.len(), 8);
        assert!(id.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b)));
        let stamp = timestamp_now();
        assert_eq!(stamp.len(), 24, "{stamp}");
        assert!(stamp.ends_with('Z') && stamp.as_bytes()[19] == b'.');
        let uuid = random_uuid();
        assert_eq!(uuid.len(), 36);
        assert_eq!(uuid.as_bytes()[14], b'4');
        assert_eq!(with_suffix(Path::new("/d/s.jsonl"), ".lock"), PathBuf::from("/d/s.jsonl.lock"));
    }
}
