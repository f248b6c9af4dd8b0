//! The harness when compaction goes wrong or changes: the loop guard and backoff after
//! failures, abort, a model switch, and what extensions learn and warn about.

use super::*;

/// Fails every summary, counting calls.
struct FailingSummarizer(Arc<AtomicUsize>);

impl Summarizer for FailingSummarizer {
    fn summarize<'a>(
        &'a self,
        _request: &'a SummaryRequest,
        _cancel: &'a CancellationToken,
        _progress: &'a (dyn Fn(SummaryProgress) + Send + Sync),
    ) -> BoxFuture<'a, Result<SummaryResponse, SummarizerError>> {
        self.0.fetch_add(1, Ordering::SeqCst);
        Box::pin(async {
            Err(SummarizerError::Http {
                status: 500,
                message: "summary backend down".into(),
                attempts: 1,
                elapsed: Duration::ZERO,
            })
        })
    }

    fn label(&self) -> String {
        "failing".into()
    }
}

#[tokio::test]
async fn repeated_failures_back_off_until_the_context_changes() {
    let calls = Arc::new(AtomicUsize::new(0));
    let dir = tempfile::tempdir().unwrap();
    let summarizer = Box::new(FailingSummarizer(Arc::clone(&calls)));
    let (mut session, path) = session(dir.path(), settings(300, 500), 4000, summarizer);
    fill(&mut session, 6, 2000);
    session.append_message(&user_message("go on")).unwrap();
    let length = std::fs::metadata(&path).unwrap().len();
    let mut events = session.subscribe();
    for _ in 0..5 {
        // A failed automatic compaction does not fail the turn.
        assert!(!session.prepare_next_turn().await.unwrap().is_empty());
    }
    assert_eq!(calls.load(Ordering::SeqCst), 3, "three tries, then backoff");
    assert_eq!(std::fs::metadata(&path).unwrap().len(), length);
    let events = drain(&mut events);
    let failures = events
        .iter()
        .filter(|e| matches!(e, HarnessEvent::CompactionFinished { result: Err(_), .. }))
        .count();
    let skipped =
        events.iter().filter(|e| matches!(e, HarnessEvent::CompactionSkipped { .. })).count();
    assert_eq!((failures, skipped), (3, 2));
    session.append_message(&user_message("new input")).unwrap();
    session.prepare_next_turn().await.unwrap();
    assert_eq!(calls.load(Ordering::SeqCst), 4, "a changed context is tried again");
    session.prepare_next_turn().await.unwrap();
    assert_eq!(calls.load(Ordering::SeqCst), 4);
}

/// Waits until cancelled, after saying it started.
struct StallingSummarizer(Arc<tokio::sync::Notify>);

impl Summarizer for StallingSummarizer {
    fn summarize<'a>(
        &'a self,
        _request: &'a SummaryRequest,
        cancel: &'a CancellationToken,
        _progress: &'a (dyn Fn(SummaryProgress) + Send + Sync),
    ) -> BoxFuture<'a, Result<SummaryResponse, SummarizerError>> {
        Box::pin(async move {
            self.0.notify_one();
            cancel.cancelled().await;
            Err(SummarizerError::Cancelled { attempts: 1, elapsed: Duration::ZERO })
        })
    }

    fn label(&self) -> String {
        "stalling".into()
    }
}

#[tokio::test]
async fn abort_during_a_compaction_writes_nothing() {
    let started = Arc::new(tokio::sync::Notify::new());
    let dir = tempfile::tempdir().unwrap();
    let summarizer = Box::new(StallingSummarizer(Arc::clone(&started)));
    let (mut session, path) = session(dir.path(), settings(300, 500), 4000, summarizer);
    fill(&mut session, 6, 2000);
    let bytes = std::fs::read(&path).unwrap();
    let leaf = session.leaf_id().map(str::to_owned);
    let handle = session.abort_handle();
    assert!(!handle.abort(), "nothing runs yet");
    let (result, aborted) = tokio::join!(session.prepare_next_turn(), async {
        started.notified().await;
        handle.abort()
    });
    assert!(aborted);
    assert!(matches!(result, Err(HarnessError::Aborted)), "{result:?}");
    assert_eq!(std::fs::read(&path).unwrap(), bytes);
    assert_eq!(session.leaf_id().map(str::to_owned), leaf);
    // An abort is not a failure: the next turn tries again (and is aborted again).
    let (result, _) = tokio::join!(session.compact(None), async {
        started.notified().await;
        handle.abort()
    });
    assert!(matches!(result, Err(HarnessError::Aborted)));
    assert_eq!(std::fs::read(&path).unwrap(), bytes);
}

#[tokio::test]
async fn a_model_switch_uses_the_new_window() {
    let dir = tempfile::tempdir().unwrap();
    let (mut session, path) =
        session(dir.path(), settings(300, 500), 100_000, Box::new(OfflineSummarizer));
    fill(&mut session, 6, 2000);
    let tokens = session.context_tokens();
    assert!(!session.should_compact());
    let mut events = session.subscribe();
    session.prepare_next_turn().await.unwrap();
    assert!(drain(&mut events).is_empty());
    let small = ChatModel::new("openai", "small-model", Some(tokens + 500));
    session.set_model(small.clone()).unwrap();
    assert_eq!(session.model(), &small);
    assert!(session.should_compact());
    session.prepare_next_turn().await.unwrap();
    assert!(matches!(
        drain(&mut events).first(),
        Some(HarnessEvent::CompactionStarted { reason: CompactionReason::Threshold, .. })
    ));
    assert!(!session.should_compact());
    let stored = parse_session(&std::fs::read(&path).unwrap());
    assert!(stored.entries().iter().any(|entry| matches!(
        &entry.kind,
        EntryKind::ModelChange { model_id, .. } if model_id == "small-model"
    )));
    assert_eq!(compactions(&path).len(), 1);
    assert_valid(&path);
}

/// An extension that fails every `before_compact`.
struct BrokenExtension;

impl compaction::extension::Extension for BrokenExtension {
    fn name(&self) -> &str {
        "broken"
    }

    fn before_compact<'a>(
        &'a self,
        _event: &'a compaction::extension::BeforeCompactEvent<'_>,
    ) -> compaction::extension::HookFuture<'a, compaction::extension::Decision> {
        Box::pin(async {
            Err(compaction::extension::ExtensionError::Failed("index server is down".into()))
        })
    }
}

/// Records the reason of every compaction it is asked about, and carries on.
#[derive(Default)]
struct ReasonRecorder(std::sync::Mutex<Vec<CompactionReason>>);

impl compaction::extension::Extension for ReasonRecorder {
    fn name(&self) -> &str {
        "recorder"
    }

    fn before_compact<'a>(
        &'a self,
        event: &'a compaction::extension::BeforeCompactEvent<'_>,
    ) -> compaction::extension::HookFuture<'a, compaction::extension::Decision> {
        self.0.lock().unwrap().push(event.reason);
        Box::pin(async { Ok(compaction::extension::Decision::carry_on()) })
    }
}

#[tokio::test]
async fn extensions_learn_why_the_harness_compacts() {
    let dir = tempfile::tempdir().unwrap();
    let (mut session, _path) =
        session(dir.path(), settings(300, 500), 4000, Box::new(OfflineSummarizer));
    let recorder = Arc::new(ReasonRecorder::default());
    session.set_extensions(
        compaction::extension::Extensions::new()
            .with(Arc::clone(&recorder) as Arc<dyn compaction::extension::Extension>),
    );
    fill(&mut session, 6, 2000);
    session.prepare_next_turn().await.unwrap();
    assert_eq!(compaction_count(&session), 1, "the trigger fired");
    fill(&mut session, 4, 2000);
    session.compact(None).await.unwrap();
    assert_eq!(
        *recorder.0.lock().unwrap(),
        vec![CompactionReason::Threshold, CompactionReason::Manual]
    );
}

#[tokio::test]
async fn extension_warnings_are_reported_as_events() {
    let dir = tempfile::tempdir().unwrap();
    let (mut session, path) =
        session(dir.path(), settings(300, 500), 100_000, Box::new(OfflineSummarizer));
    session
        .set_extensions(compaction::extension::Extensions::new().with(Arc::new(BrokenExtension)));
    fill(&mut session, 6, 2000);
    let mut events = session.subscribe();
    session.compact(None).await.unwrap();
    let events = drain(&mut events);
    // The built-in compaction ran, then the warning followed its `CompactionFinished`.
    let finished = events
        .iter()
        .position(|e| matches!(e, HarnessEvent::CompactionFinished { result: Ok(_), .. }))
        .unwrap();
    let warnings: Vec<_> = events
        .iter()
        .enumerate()
        .filter_map(|(index, event)| {
            if let HarnessEvent::ExtensionWarning(warning) = event {
                Some((index, warning))
            } else {
                None
            }
        })
        .collect();
    assert_eq!(warnings.len(), 1, "{events:?}");
    assert!(warnings[0].0 > finished);
    assert_eq!(warnings[0].1.extension, "broken");
    assert!(warnings[0].1.message.contains("index server is down"), "{:?}", warnings[0].1);
    assert_eq!(compactions(&path).len(), 1);
}
