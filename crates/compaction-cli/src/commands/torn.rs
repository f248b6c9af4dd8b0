//! Before a writing command opens a session whose last line has no newline: make sure that
//! line is dead, not being written. The store moves such a line to a sidecar when it opens
//! the file for writing; if another program (pi) were still writing it, the rest of its line
//! would land broken after the cut and the entry would be lost.
//!
//! A last line without its newline is taken for dead only when the file has not changed for
//! [`GRACE`] (waiting out the rest of it when it changed more recently) and no other process
//! has the file open for writing (`/proc/*/fd`); otherwise the command refuses with "another
//! program is writing; try again", and nothing is written.
//!
//! Invariant: this only reads; the store does the moving.

use std::os::unix::fs::FileExt;
use std::path::Path;
use std::time::{Duration, SystemTime};

use super::{CommandError, ErrorKind};

/// How long the file must be unchanged before its unfinished last line is taken for dead
/// (the store applies the same rule again under its lock).
pub const GRACE: Duration = compaction::store::writers::TAIL_GRACE;

/// What was found about an unfinished last line, for the message.
#[derive(Debug, Clone, Copy)]
pub struct DeadTail {
    /// How long the file had been unchanged when it was judged.
    pub age: Duration,
}

/// `None` when the file ends with a newline (or is empty or missing: the store says why);
/// `Some` when its unfinished last line is dead; an error when another program may still be
/// writing it.
pub fn ensure_dead_tail(path: &Path) -> anyhow::Result<Option<DeadTail>> {
    // Anything but a regular file is left to the store to refuse; it is never opened here
    // (opening a FIFO would block).
    match std::fs::metadata(path) {
        Ok(metadata) if metadata.is_file() && metadata.len() > 0 => {}
        Ok(_) | Err(_) => return Ok(None),
    }
    use std::os::unix::fs::OpenOptionsExt;
    let Ok(file) = std::fs::OpenOptions::new().read(true).custom_flags(libc::O_NONBLOCK).open(path)
    else {
        return Ok(None);
    };
    let Ok(metadata) = file.metadata() else { return Ok(None) };
    if !metadata.is_file() || metadata.len() == 0 {
        return Ok(None);
    }
    let mut last = [0u8; 1];
    if file.read_exact_at(&mut last, metadata.len() - 1).is_err() || last[0] == b'\n' {
        return Ok(None);
    }
    let busy = |detail: String| {
        CommandError::with_kind(
            ErrorKind::Lock,
            format!(
                "{}: another program is writing this session ({detail}); try again",
                path.display()
            ),
        )
    };
    let (length, modified) = (metadata.len(), metadata.modified().ok());
    let age = modified.and_then(|time| SystemTime::now().duration_since(time).ok());
    let age = match age {
        Some(age) if age >= GRACE => age,
        _ => {
            std::thread::sleep(GRACE.saturating_sub(age.unwrap_or_default()));
            let now = std::fs::metadata(path).map_err(|e| CommandError::io("cannot stat", e))?;
            if now.len() != length || now.modified().ok() != modified {
                return Err(busy(format!(
                    "its last line grew from {length} to {} bytes within {} s",
                    now.len(),
                    GRACE.as_secs()
                )));
            }
            GRACE
        }
    };
    if let Some(pid) = compaction::store::writers::other_writer(&metadata) {
        return Err(busy(format!("process {pid} has it open for writing")));
    }
    Ok(Some(DeadTail { age }))
}
