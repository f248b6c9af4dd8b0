//! Lease contention does not starve a session: a session whose lease another holder has when
//! a pass reaches it is visited again at the end of the same pass, and compacted there when
//! the lease was released meanwhile; one still held is left to the next pass, which takes it.

use std::cell::RefCell;
use std::time::Duration;

use compaction::compact::Compactor;
use compaction::extension::Extensions;
use compaction::offline::OfflineSummarizer;
use compaction::stores::SessionBackend;
use compaction::stores::sqlite::SqliteBackend;
use compaction::stores::worker::{WorkerEvent, WorkerOptions, run_pass};
use compaction_core::serialize::Redactor;
use tokio_util::sync::CancellationToken;

use super::sessions::{KEEP_RECENT, RESERVE, WINDOW, session_id, write_sessions};

const SESSIONS: usize = 3;

/// A database of three sessions over the trigger, and a second connection to it.
fn store(dir: &std::path::Path) -> (SqliteBackend, SqliteBackend) {
    let sessions = dir.join("sessions");
    write_sessions(&sessions, SESSIONS);
    let backend = SqliteBackend::create(&dir.join("db.sqlite")).unwrap();
    for number in 0..SESSIONS {
        backend.import_file(&sessions.join(super::sessions::file_name(number))).unwrap();
    }
    (backend, SqliteBackend::open(&dir.join("db.sqlite")).unwrap())
}

/// One pass of a worker named "worker" over `backend`; `on_event` sees each event first.
/// Returns the sessions compacted and the events.
fn pass(backend: &SqliteBackend, on_event: &dyn Fn(&WorkerEvent)) -> (usize, Vec<WorkerEvent>) {
    let settings = compaction_core::CompactionSettings {
        reserve_tokens: RESERVE.parse().unwrap(),
        keep_recent_tokens: KEEP_RECENT.parse().unwrap(),
        ..compaction_core::CompactionSettings::default()
    };
    let estimator = compaction_core::estimator_by_name("heuristic").unwrap();
    let extensions = Extensions::new();
    let compactor = Compactor {
        summarizer: &OfflineSummarizer,
        settings: &settings,
        context_window: WINDOW.parse().unwrap(),
        estimator: estimator.as_ref(),
        redactor: Redactor::default(),
        extensions: &extensions,
    };
    let options = WorkerOptions {
        holder: "worker".to_owned(),
        lease: Duration::from_secs(60),
        concurrency: 1,
        once: true,
        poll: Duration::from_secs(1),
    };
    let seen = RefCell::new(Vec::new());
    let events = |event: WorkerEvent| {
        on_event(&event);
        seen.borrow_mut().push(event);
    };
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let cancel = CancellationToken::new();
    let compacted =
        runtime.block_on(run_pass(backend, &compactor, &options, &cancel, &events)).unwrap();
    (compacted, seen.into_inner())
}

fn kinds(events: &[WorkerEvent], session: &str) -> Vec<&'static str> {
    events
        .iter()
        .filter_map(|event| {
            let (about, kind) = match event {
                WorkerEvent::Claimed { session, .. } => (session, "claimed"),
                WorkerEvent::Compacted { session, .. } => (session, "compacted"),
                WorkerEvent::Skipped { session, .. } => (session, "skipped"),
                WorkerEvent::Failed { session, .. } => (session, "failed"),
                WorkerEvent::Reclaimed { .. } => return None,
            };
            (about == session).then_some(kind)
        })
        .collect()
}

#[test]
fn a_session_whose_lease_frees_during_the_pass_is_compacted_in_that_pass() {
    let dir = tempfile::tempdir().unwrap();
    let (backend, other) = store(dir.path());
    let first = session_id(0);
    assert!(other.try_lease(&first, "other", Duration::from_secs(60)).unwrap());
    // The other worker gives the session up right after this one found it held.
    let (compacted, events) = pass(&backend, &|event| {
        if matches!(event, WorkerEvent::Skipped { session, .. } if *session == first) {
            other.release_lease(&first, "other").unwrap();
        }
    });
    assert_eq!(kinds(&events, &first), ["skipped", "claimed", "compacted"], "{events:?}");
    assert_eq!(compacted, SESSIONS, "{events:?}");
}

#[test]
fn a_session_still_leased_at_the_end_of_a_pass_is_taken_by_the_next() {
    let dir = tempfile::tempdir().unwrap();
    let (backend, other) = store(dir.path());
    let first = session_id(0);
    assert!(other.try_lease(&first, "other", Duration::from_secs(60)).unwrap());
    let (compacted, events) = pass(&backend, &|_| {});
    assert_eq!(kinds(&events, &first), ["skipped", "skipped"], "{events:?}");
    assert_eq!(compacted, SESSIONS - 1);
    other.release_lease(&first, "other").unwrap();
    let (compacted, events) = pass(&backend, &|_| {});
    assert_eq!(kinds(&events, &first), ["claimed", "compacted"], "{events:?}");
    assert_eq!(compacted, 1, "{events:?}");
}
