//! Compaction workers: find the sessions of a store whose context crosses the trigger and
//! compact them, many workers on one store without compacting a session twice.
//!
//! Invariants:
//! - A session is compacted only under its lease, and only when, read after the lease was
//!   taken, its context still crosses the trigger: a worker that claims a session another
//!   worker just compacted finds it under the trigger and leaves it.
//! - The compaction lands against the leaf it was planned for ([`compact_stored`]); when an
//!   agent appended meanwhile it is planned again (up to [`REPLANS`] times).
//! - The lease is renewed while the compaction runs and released afterwards, whatever the
//!   outcome; a worker that dies holds it until it expires.
//! - Cancelling stops claiming at once; compactions under way are cancelled (nothing is
//!   written for them) and their leases released before [`run_worker`] returns.
//! - No session is starved by lease contention. A pass visits the sessions over the trigger
//!   in store order; one whose lease another holder has is visited again once, at the end of
//!   the same pass, so a lease released meanwhile (the other worker failed, or found it under
//!   the trigger) does not leave the session until the next pass. A holder keeps a lease at
//!   most as long as one compaction may take (its deadline cancels it) plus the renewal
//!   period, and a dead holder's lease expires, so the next pass of any worker takes it.
//! - Each pass first removes the scratch files of compactions whose process died
//!   ([`super::reclaim_scratch`]).

use std::cell::{Cell, RefCell};
use std::path::PathBuf;
use std::time::Duration;

use futures_util::StreamExt;
use tokio_util::sync::CancellationToken;

use super::{BackendError, SessionBackend, StoredCompactError, compact_stored};
use crate::compact::{CompactError, CompactRequest, CompactionReason, Compactor};

/// How often a compaction whose leaf moved is planned again.
pub const REPLANS: usize = 3;

/// How a worker runs.
#[derive(Debug, Clone)]
pub struct WorkerOptions {
    /// The name leases are taken under (unique per worker: host and process id).
    pub holder: String,
    /// How long a lease lasts without renewal; a dead worker's lease frees after this.
    pub lease: Duration,
    /// Sessions compacted at the same time.
    pub concurrency: usize,
    /// Stop after one pass over the store instead of polling.
    pub once: bool,
    /// Pause between passes.
    pub poll: Duration,
}

/// What happened to one session.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WorkerEvent {
    /// The lease was taken; a compaction starts.
    Claimed {
        /// The session.
        session: String,
        /// Its context tokens.
        tokens: u64,
    },
    /// A compaction was appended.
    Compacted {
        /// The session.
        session: String,
        /// The appended entry.
        entry: String,
        /// Context tokens before.
        tokens_before: u64,
        /// Estimated context tokens after.
        tokens_after: u64,
    },
    /// The session did not need it after all, or another worker holds it.
    Skipped {
        /// The session.
        session: String,
        /// Why.
        reason: String,
    },
    /// The compaction failed; nothing was written.
    Failed {
        /// The session.
        session: String,
        /// Why.
        reason: String,
    },
    /// A scratch file left by a compaction whose process died was removed.
    Reclaimed {
        /// The file.
        file: PathBuf,
    },
}

/// How a visit to one session ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Visit {
    /// A compaction was appended.
    Compacted,
    /// Another holder had the lease.
    Busy,
    /// Anything else (under the trigger, nothing to compact, failed).
    Done,
}

/// The context tokens of `session` at its leaf when they cross the trigger.
fn over_trigger(
    backend: &dyn SessionBackend,
    session: &str,
    compactor: &Compactor<'_>,
) -> Result<Option<u64>, BackendError> {
    let read = backend.read_path(session, None)?;
    let context = read.context();
    let tokens = compaction_core::context_tokens(&read.session, &context, compactor.estimator);
    let decision = compaction_core::should_compact(
        tokens.tokens,
        context.items.len() as u64,
        compactor.context_window,
        compactor.settings,
    );
    Ok(decision.fire.then_some(tokens.tokens))
}

/// One pass: every session over its trigger, `concurrency` at a time, then once more the
/// ones another holder's lease kept (see the module documentation). Returns how many
/// sessions were compacted.
pub async fn run_pass(
    backend: &dyn SessionBackend,
    compactor: &Compactor<'_>,
    options: &WorkerOptions,
    cancel: &CancellationToken,
    events: &dyn Fn(WorkerEvent),
) -> Result<usize, BackendError> {
    for file in super::reclaim_scratch() {
        events(WorkerEvent::Reclaimed { file });
    }
    let sessions: Vec<String> = backend.list()?.into_iter().map(|summary| summary.id).collect();
    let compacted = Cell::new(0usize);
    let busy = RefCell::new(Vec::new());
    visit_all(backend, compactor, options, cancel, events, sessions, &compacted, &busy).await;
    let again = busy.take();
    visit_all(backend, compactor, options, cancel, events, again, &compacted, &busy).await;
    Ok(compacted.get())
}

/// Visits `sessions`, `concurrency` at a time: counts the compactions in `compacted`, and
/// adds the sessions another holder's lease kept to `busy`.
#[allow(clippy::too_many_arguments)]
async fn visit_all(
    backend: &dyn SessionBackend,
    compactor: &Compactor<'_>,
    options: &WorkerOptions,
    cancel: &CancellationToken,
    events: &dyn Fn(WorkerEvent),
    sessions: Vec<String>,
    compacted: &Cell<usize>,
    busy: &RefCell<Vec<String>>,
) {
    futures_util::stream::iter(sessions)
        .for_each_concurrent(options.concurrency.max(1), |session| async move {
            if cancel.is_cancelled() {
                return;
            }
            match over_trigger(backend, &session, compactor) {
                Ok(Some(_)) => {}
                Ok(None) => return,
                Err(error) => {
                    events(WorkerEvent::Failed { session, reason: error.to_string() });
                    return;
                }
            }
            match compact_one(backend, &session, compactor, options, cancel, events).await {
                Visit::Compacted => compacted.set(compacted.get() + 1),
                Visit::Busy => busy.borrow_mut().push(session),
                Visit::Done => {}
            }
        })
        .await;
}

/// Claims and compacts one session.
async fn compact_one(
    backend: &dyn SessionBackend,
    session: &str,
    compactor: &Compactor<'_>,
    options: &WorkerOptions,
    cancel: &CancellationToken,
    events: &dyn Fn(WorkerEvent),
) -> Visit {
    let failed =
        |reason: String| events(WorkerEvent::Failed { session: session.to_owned(), reason });
    match backend.try_lease(session, &options.holder, options.lease) {
        Ok(true) => {}
        Ok(false) => {
            let reason = "another worker holds its lease".to_owned();
            events(WorkerEvent::Skipped { session: session.to_owned(), reason });
            return Visit::Busy;
        }
        Err(error) => {
            failed(error.to_string());
            return Visit::Done;
        }
    }
    let done = compact_leased(backend, session, compactor, options, cancel, events).await;
    if let Err(error) = backend.release_lease(session, &options.holder) {
        failed(format!("cannot release the lease: {error}"));
    }
    if done { Visit::Compacted } else { Visit::Done }
}

/// The work under the lease: check the trigger again, compact, renew the lease meanwhile.
async fn compact_leased(
    backend: &dyn SessionBackend,
    session: &str,
    compactor: &Compactor<'_>,
    options: &WorkerOptions,
    cancel: &CancellationToken,
    events: &dyn Fn(WorkerEvent),
) -> bool {
    let failed =
        |reason: String| events(WorkerEvent::Failed { session: session.to_owned(), reason });
    let request =
        CompactRequest { reason: CompactionReason::Threshold, ..CompactRequest::default() };
    for _ in 0..=REPLANS {
        let tokens = match over_trigger(backend, session, compactor) {
            Ok(Some(tokens)) => tokens,
            Ok(None) => {
                let reason = "under the trigger (compacted meanwhile)".to_owned();
                events(WorkerEvent::Skipped { session: session.to_owned(), reason });
                return false;
            }
            Err(error) => {
                failed(error.to_string());
                return false;
            }
        };
        events(WorkerEvent::Claimed { session: session.to_owned(), tokens });
        let compacting = compact_stored(backend, session, compactor, &request, cancel, &|_| {});
        let renewing = renew(backend, session, options);
        let result = tokio::select! {
            result = compacting => result,
            lost = renewing => Err(StoredCompactError::Backend(lost)),
        };
        match result {
            Ok(outcome) => {
                events(WorkerEvent::Compacted {
                    session: session.to_owned(),
                    entry: outcome.entry.id,
                    tokens_before: outcome.tokens_before,
                    tokens_after: outcome.tokens_after,
                });
                return true;
            }
            Err(StoredCompactError::Moved(_)) => continue,
            Err(StoredCompactError::Compact(CompactError::Nothing(reason))) => {
                let reason = format!("nothing to compact: {reason}");
                events(WorkerEvent::Skipped { session: session.to_owned(), reason });
                return false;
            }
            Err(error) => {
                failed(error.to_string());
                return false;
            }
        }
    }
    failed(format!("the session moved on {} times while it was compacted", REPLANS + 1));
    false
}

/// Renews the lease every third of its length; returns only when renewing failed or the
/// lease was lost.
async fn renew(
    backend: &dyn SessionBackend,
    session: &str,
    options: &WorkerOptions,
) -> BackendError {
    loop {
        tokio::time::sleep(options.lease / 3).await;
        match backend.try_lease(session, &options.holder, options.lease) {
            Ok(true) => {}
            Ok(false) => {
                return BackendError::Invalid {
                    store: backend.describe(),
                    reason: format!("the lease of `{session}` was lost to another worker"),
                };
            }
            Err(error) => return error,
        }
    }
}

/// Runs passes until cancelled (or one pass with [`WorkerOptions::once`]). Returns the
/// number of sessions compacted.
pub async fn run_worker(
    backend: &dyn SessionBackend,
    compactor: &Compactor<'_>,
    options: &WorkerOptions,
    cancel: &CancellationToken,
    events: &dyn Fn(WorkerEvent),
) -> Result<usize, BackendError> {
    let mut total = 0;
    loop {
        total += run_pass(backend, compactor, options, cancel, events).await?;
        if options.once || cancel.is_cancelled() {
            return Ok(total);
        }
        tokio::select! {
            () = cancel.cancelled() => return Ok(total),
            () = tokio::time::sleep(options.poll) => {}
        }
    }
}
