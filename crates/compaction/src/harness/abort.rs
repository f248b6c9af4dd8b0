//! Cancelling the compaction in flight from another task ([`AbortHandle`]), and the
//! bookkeeping of the loop guard and the backoff.

use std::sync::{Arc, Mutex};

use tokio_util::sync::CancellationToken;

/// Cancels the compaction in flight, from another task. Cheap to clone.
#[derive(Debug, Clone, Default)]
pub struct AbortHandle(Arc<Mutex<Option<CancellationToken>>>);

impl AbortHandle {
    /// Cancels the running compaction or branch summary; `false` when none was running.
    pub fn abort(&self) -> bool {
        match self.0.lock() {
            Ok(slot) => slot.as_ref().map(CancellationToken::cancel).is_some(),
            Err(_) => false,
        }
    }

    pub(super) fn start(&self) -> CancellationToken {
        let token = CancellationToken::new();
        if let Ok(mut slot) = self.0.lock() {
            *slot = Some(token.clone());
        }
        token
    }

    pub(super) fn finish(&self) {
        if let Ok(mut slot) = self.0.lock() {
            *slot = None;
        }
    }
}

/// Bookkeeping for the loop guard and the backoff.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Guard {
    /// Bumped whenever the context changes (append, navigate, model change).
    pub(super) generation: u64,
    pub(super) consecutive_failures: u32,
    /// The generation of the last failure.
    pub(super) failed_generation: u64,
    /// A compaction did not get below the trigger: no automatic compaction until reset.
    pub(super) stalled: bool,
}
