//! Compaction against a single-slot local server that speaks llama-cpp-python 0.3.36's
//! recorded bytes ([`ReplayServer`]): one request at a time gets a passed summary stored;
//! concurrent requests get interrupted, as the real server interrupts them, and what they
//! leave is never stored; the real server's echoed replies are never stored; a window the
//! server reveals is planned for.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use compaction::compact::{CompactError, CompactRequest, CompactionProgress, Compactor};
use compaction::extension::Extensions;
use compaction_core::EntryKind;
use compaction_core::quality::QualityStatus;
use compaction_core::serialize::Redactor;
use compaction_core::settings::CompactionSettings;
use tokio_util::sync::CancellationToken;

use super::super::providers::local_server::local_summarizer;
use super::super::wire_replay::{Answer, ReplayServer, stream_of};
use super::{WINDOW, estimator, open, session_copy, settings, summary_with_every_fact};

/// The session shipped in `examples/`.
fn bundled_session() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("session.jsonl");
    std::fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/coding-session.jsonl"),
        &path,
    )
    .unwrap();
    (dir, path)
}

/// A summary that passes the gate for `path`, streamed in the recorded framing through the
/// server's one slot; `404` (as uvicorn answers) for anything but chat completions.
fn summarizing(summary: String) -> impl Fn(usize, &super::super::wire_replay::Seen) -> Answer {
    move |_, seen| {
        if seen.path.ends_with("/chat/completions") {
            Answer::Slot(stream_of(&summary))
        } else {
            Answer::recorded("models-and-props.http", 2, 1, false)
        }
    }
}

pub(super) async fn run_with(
    path: &Path,
    summarizer: &compaction::provider::LlmSummarizer,
    settings: &CompactionSettings,
    events: &Arc<Mutex<Vec<CompactionProgress>>>,
) -> Result<compaction::compact::CompactOutcome, CompactError> {
    let estimator = estimator();
    let compactor = Compactor {
        summarizer,
        settings,
        context_window: WINDOW,
        estimator: estimator.as_ref(),
        redactor: Redactor::default(),
        extensions: &Extensions::new(),
    };
    let mut store = open(path);
    let sink = Arc::clone(events);
    let progress = move |event: CompactionProgress| sink.lock().unwrap().push(event);
    compactor
        .run(&mut store, &CompactRequest::default(), &CancellationToken::new(), &progress)
        .await
}

/// `run` on the bundled session against a single-slot server that interrupts a running
/// stream when another request waits: requests go one at a time (the default for a server
/// on this machine), none is interrupted, the stored summary passed the gate, the call count
/// is the requests the server received, and no usage is stored (the server reports none).
#[tokio::test]
async fn a_single_slot_server_gets_one_request_at_a_time_and_a_passed_summary_is_stored() {
    let (_dir, path) = bundled_session();
    let summary = summary_with_every_fact(&path, "Continue the work");
    let server = ReplayServer::start(true, summarizing(summary)).await;
    let summarizer = local_summarizer(server.url());
    let events = Arc::new(Mutex::new(Vec::new()));
    let outcome = run_with(&path, &summarizer, &settings(), &events).await.unwrap();
    assert_eq!(outcome.quality.as_ref().map(|q| q.status), Some(QualityStatus::Passed));
    assert_eq!(server.interrupted.load(std::sync::atomic::Ordering::SeqCst), 0);
    assert_eq!(outcome.summarizer_calls, server.completions().len());
    let session = open(&path).into_session();
    let leaf = &session.entries()[session.leaf().unwrap()];
    assert!(matches!(leaf.kind, EntryKind::Compaction(_)));
    let stored = leaf.to_value().unwrap();
    assert!(stored.get("usage").is_none(), "usage the server never reported: {stored}");
    assert_eq!(stored["details"]["quality"]["status"], "passed");
}

/// Two requests at once (`summaryConcurrency` 2) on the same server: it interrupts the
/// running stream (role chunk, `[DONE]`) as the real one did. Those replies are retried,
/// never taken; whatever the run ends with, nothing repaired is stored, and a failure leaves
/// the file byte-identical.
#[tokio::test]
async fn interrupted_streams_of_concurrent_requests_are_never_stored() {
    let (_dir, path) = session_copy();
    let summary = summary_with_every_fact(&path, "Fix nested list parsing");
    let server = ReplayServer::start(true, summarizing(summary)).await;
    let summarizer = local_summarizer(server.url()).with_concurrency(Some(2));
    let before = std::fs::read(&path).unwrap();
    let events = Arc::new(Mutex::new(Vec::new()));
    let outcome = run_with(&path, &summarizer, &settings(), &events).await;
    assert!(server.interrupted.load(std::sync::atomic::Ordering::SeqCst) > 0, "no interruption");
    match outcome {
        Ok(outcome) => {
            assert_eq!(outcome.quality.map(|q| q.status), Some(QualityStatus::Passed));
            assert_eq!(outcome.summarizer_calls, server.completions().len());
        }
        Err(error) => {
            assert_eq!(std::fs::read(&path).unwrap(), before, "file changed after: {error}");
        }
    }
}

/// What the real server's base model wrote (`normal-stream.http`: lines of our prompt and
/// its `<instructions>` block; `length-cut.http`: our system prompt, cut at the limit) is no
/// summary: the compaction fails and the file is byte-identical.
#[tokio::test]
async fn the_real_servers_echoes_are_never_stored() {
    for (name, conn, close) in [("normal-stream.http", 4, false), ("length-cut.http", 1, true)] {
        let (_dir, path) = session_copy();
        let server =
            ReplayServer::start(false, move |_, _| Answer::recorded(name, conn, 1, close)).await;
        let summarizer = local_summarizer(server.url());
        let before = std::fs::read(&path).unwrap();
        let events = Arc::new(Mutex::new(Vec::new()));
        let error = run_with(&path, &summarizer, &settings(), &events).await.unwrap_err();
        assert!(matches!(error, CompactError::Unusable { .. }), "{name}: {error}");
        assert_eq!(std::fs::read(&path).unwrap(), before, "{name}: file changed");
    }
}

/// A server whose window (4096) is far below the configured one (131 072, the model
/// table's): its streamed answer to an oversized request is an empty `200`, its unstreamed
/// one the `400` naming 4096 (both recorded). The compaction is planned again for that
/// window, the progress says so, and it succeeds with every request the server accepted.
#[tokio::test]
async fn the_window_a_server_reveals_is_planned_for() {
    const SERVER_WINDOW: u64 = 4096;
    let (_dir, path) = bundled_session();
    let summary = summary_with_every_fact(&path, "Fix nested list parsing");
    // Gemma's tokenizer counted 3.34 to 3.52 bytes of message text per token (README).
    let tokens = |seen: &super::super::wire_replay::Seen| {
        let text: usize = seen.body["messages"]
            .as_array()
            .map(|messages| {
                messages.iter().filter_map(|m| m["content"].as_str()).map(str::len).sum()
            })
            .unwrap_or(0);
        (text as f64 / 3.34) as u64
    };
    let server = ReplayServer::start(false, move |_, seen| {
        if !seen.path.ends_with("/chat/completions") {
            return Answer::recorded("models-and-props.http", 2, 1, false);
        }
        match (tokens(seen) >= SERVER_WINDOW, seen.streamed()) {
            (true, true) => Answer::recorded("over-window-stream.http", 1, 1, true),
            (true, false) => Answer::recorded("over-window-400.http", 2, 1, false),
            (false, _) => Answer::Slot(stream_of(&summary)),
        }
    })
    .await;
    let summarizer = local_summarizer(server.url()).with_context_window(131_072);
    let settings = CompactionSettings { max_summary_tokens: 1024, ..settings() };
    let events = Arc::new(Mutex::new(Vec::new()));
    let outcome = run_with(&path, &summarizer, &settings, &events).await.unwrap();
    let sizes: Vec<u64> = server.completions().iter().map(tokens).collect();
    // The first history request (streamed, then checked unstreamed) was the only one over.
    assert_eq!(sizes.iter().filter(|&&size| size >= SERVER_WINDOW).count(), 2, "{sizes:?}");
    let learned = events.lock().unwrap().iter().any(|event| {
        matches!(event, CompactionProgress::WindowLearned { window: SERVER_WINDOW, planned: _ })
    });
    assert!(learned, "no progress event said the window was learned");
    assert_eq!(summarizer.window(), SERVER_WINDOW);
    assert_eq!(outcome.quality.map(|q| q.status), Some(QualityStatus::Passed));
    assert_eq!(outcome.summarizer_calls, server.completions().len());
}

/// For a server on this machine the deadline is raised to what the planned requests may take
/// on a CPU, and the progress says so; a `timeoutSeconds` other than the default is kept.
#[tokio::test]
async fn the_deadline_is_scaled_for_a_server_on_this_machine() {
    let (_dir, path) = bundled_session();
    let session = open(&path).into_session();
    let leaf = session.leaf();
    let summarizer = local_summarizer("http://127.0.0.1:9");
    let estimator = estimator();
    let events = Arc::new(Mutex::new(Vec::new()));
    let sink = Arc::clone(&events);
    let progress = move |event: CompactionProgress| sink.lock().unwrap().push(event);
    for (timeout_seconds, raised) in [(180, true), (60, false)] {
        let settings = CompactionSettings { timeout_seconds, ..settings() };
        let compactor = Compactor {
            summarizer: &summarizer,
            settings: &settings,
            context_window: WINDOW,
            estimator: estimator.as_ref(),
            redactor: Redactor::default(),
            extensions: &Extensions::new(),
        };
        events.lock().unwrap().clear();
        let limit = compactor.deadline_for(&session, leaf, None, &progress);
        let told = events.lock().unwrap().iter().any(|event| {
            matches!(event, CompactionProgress::Deadline { limit: shown, .. } if *shown == limit)
        });
        assert_eq!(limit > std::time::Duration::from_secs(timeout_seconds), raised, "{limit:?}");
        assert_eq!(told, raised);
    }
}
