//! The fault injector (the `fault-injection` feature): a [`FaultPlan`] fails one chosen write
//! or sync of the store's write path, so tests can check that every failure leaves only
//! committed entries on disk.

use std::io;
use std::path::Path;
use std::sync::{Arc, Mutex};

use super::{SyncWrite, sync_dir};

/// Which operation a fault hits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FaultOp {
    /// A data write (`write_all`).
    Write,
    /// A file or directory sync.
    Sync,
}

/// How the failing operation fails.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FaultKind {
    /// `ENOSPC`: no space left on the device.
    NoSpace,
    /// `EIO`: an input/output error.
    Io,
    /// Half the bytes are written, then `ENOSPC` (only meaningful for writes).
    ShortWrite,
}

#[derive(Debug, Default)]
struct FaultState {
    writes: u64,
    syncs: u64,
    fired: bool,
}

/// Fails the `nth` (1-based) operation of one kind across every file the store writes
/// through it, once. Clones share the counters.
#[derive(Debug, Clone)]
pub struct FaultPlan {
    op: FaultOp,
    nth: u64,
    kind: FaultKind,
    state: Arc<Mutex<FaultState>>,
}

impl FaultPlan {
    /// Fail the `nth` operation `op` with `kind`.
    pub fn new(op: FaultOp, nth: u64, kind: FaultKind) -> Self {
        FaultPlan { op, nth, kind, state: Arc::default() }
    }

    /// Whether the fault has happened.
    pub fn fired(&self) -> bool {
        self.state.lock().map(|state| state.fired).unwrap_or(true)
    }

    /// How many writes and syncs went through the plan so far.
    pub fn counts(&self) -> (u64, u64) {
        self.state.lock().map(|state| (state.writes, state.syncs)).unwrap_or((0, 0))
    }

    /// Counts one operation and says whether it must fail.
    fn hit(&self, op: FaultOp) -> bool {
        let Ok(mut state) = self.state.lock() else {
            return true;
        };
        let count = match op {
            FaultOp::Write => {
                state.writes += 1;
                state.writes
            }
            FaultOp::Sync => {
                state.syncs += 1;
                state.syncs
            }
        };
        if op == self.op && count == self.nth && !state.fired {
            state.fired = true;
            true
        } else {
            false
        }
    }

    fn error(&self) -> io::Error {
        match self.kind {
            FaultKind::NoSpace | FaultKind::ShortWrite => {
                io::Error::from_raw_os_error(libc::ENOSPC)
            }
            FaultKind::Io => io::Error::from_raw_os_error(libc::EIO),
        }
    }

    /// Wraps a file so its operations go through this plan.
    pub fn wrap<W: SyncWrite>(&self, inner: W) -> FaultyWriter<W> {
        FaultyWriter { inner, plan: self.clone() }
    }

    /// A directory sync through this plan.
    pub fn sync_dir(&self, dir: &Path) -> io::Result<()> {
        if self.hit(FaultOp::Sync) {
            return Err(self.error());
        }
        sync_dir(dir)
    }
}

/// A writer whose operations can fail on purpose (see [`FaultPlan`]).
#[derive(Debug)]
pub struct FaultyWriter<W> {
    inner: W,
    plan: FaultPlan,
}

impl<W: SyncWrite> SyncWrite for FaultyWriter<W> {
    fn write_all(&mut self, bytes: &[u8]) -> io::Result<()> {
        if self.plan.hit(FaultOp::Write) {
            if self.plan.kind == FaultKind::ShortWrite {
                self.inner.write_all(&bytes[..bytes.len() / 2])?;
            }
            return Err(self.plan.error());
        }
        self.inner.write_all(bytes)
    }

    fn sync_data(&mut self) -> io::Result<()> {
        if self.plan.hit(FaultOp::Sync) {
            return Err(self.plan.error());
        }
        self.inner.sync_data()
    }

    fn set_len(&mut self, length: u64) -> io::Result<()> {
        self.inner.set_len(length)
    }
}
