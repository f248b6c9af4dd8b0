//! Compaction with extensions: a replacement written as pi's hook entry, a cancellation
//! that writes nothing, hooks that fail or print garbage, and instructions a process adds.

use std::sync::Arc;

use compaction::compact::{CompactError, CompactRequest, Compactor};
use compaction::extension::{
    BeforeCompactEvent, Decision, Extension, ExtensionError, Extensions, HookFuture,
    ProcessExtension, Replacement,
};
use compaction::offline::OfflineSummarizer;
use compaction_core::EntryKind;
use compaction_core::serialize::Redactor;
use serde_json::json;
use tokio_util::sync::CancellationToken;

use super::{estimator, open, session_copy, settings};

struct Fixed(&'static str, Decision);

impl Extension for Fixed {
    fn name(&self) -> &str {
        self.0
    }
    fn before_compact<'a>(&'a self, _: &'a BeforeCompactEvent<'_>) -> HookFuture<'a, Decision> {
        let decision = self.1.clone();
        Box::pin(async move { Ok(decision) })
    }
}

struct Failing;

impl Extension for Failing {
    fn name(&self) -> &str {
        "failing"
    }
    fn before_compact<'a>(&'a self, _: &'a BeforeCompactEvent<'_>) -> HookFuture<'a, Decision> {
        Box::pin(async { Err(ExtensionError::Failed("boom".into())) })
    }
}

async fn run_with(
    path: &std::path::Path,
    extensions: Extensions,
) -> Result<compaction::compact::CompactOutcome, CompactError> {
    let settings = settings();
    let estimator = estimator();
    let compactor = Compactor {
        summarizer: &OfflineSummarizer,
        settings: &settings,
        context_window: super::WINDOW,
        estimator: estimator.as_ref(),
        redactor: Redactor::default(),
        extensions: &extensions,
    };
    let mut store = open(path);
    compactor.run(&mut store, &CompactRequest::default(), &CancellationToken::new(), &|_| {}).await
}

#[tokio::test]
async fn cancel_writes_nothing() {
    let (_dir, path) = session_copy();
    let before = std::fs::read(&path).unwrap();
    let extensions = Extensions::new()
        .with(Arc::new(Fixed("stopper", Decision::Cancel { reason: "not now".into() })));
    let error = run_with(&path, extensions).await.unwrap_err();
    let CompactError::Cancelled { reason, extension, .. } = error else { panic!("{error}") };
    assert_eq!((reason.as_str(), extension.as_str()), ("not now", "stopper"));
    assert_eq!(std::fs::read(&path).unwrap(), before);
}

#[tokio::test]
async fn replacement_is_written_from_hook_with_its_details() {
    let (_dir, path) = session_copy();
    let mut replacement = Replacement::new("Custom checkpoint");
    replacement.details = Some(json!({"mine": true}));
    let extensions = Extensions::new()
        .with(Arc::new(Fixed("first", Decision::carry_on())))
        .with(Arc::new(Fixed("writer", Decision::Replace(replacement))))
        .with(Arc::new(Fixed("late", Decision::Cancel { reason: "never asked".into() })));
    let outcome = run_with(&path, extensions).await.unwrap();
    assert_eq!(outcome.decided_by.as_deref(), Some("writer"));
    let session = open(&path).into_session();
    let EntryKind::Compaction(data) = &session.entries()[session.leaf().unwrap()].kind else {
        panic!("not a compaction")
    };
    assert!(data.from_hook);
    assert_eq!(data.summary, "Custom checkpoint");
    assert_eq!(data.details, Some(json!({"mine": true})));
    assert_eq!(data.first_kept_entry_id, "5e550016");
}

#[tokio::test]
async fn failing_and_garbage_extensions_fall_back_to_the_built_in_summary() {
    let (_dir, path) = session_copy();
    let extensions = Extensions::new()
        .with(Arc::new(Failing))
        .with(Arc::new(ProcessExtension::shell("echo 'this is not json'")));
    let outcome = run_with(&path, extensions).await.unwrap();
    assert_eq!(outcome.decided_by, None);
    // Both fail before the summary (the shell one prints garbage after it too).
    let before: Vec<_> = outcome
        .warnings
        .iter()
        .filter(|w| w.event == compaction::extension::EventName::BeforeCompact)
        .collect();
    assert_eq!(before.len(), 2, "{:?}", outcome.warnings);
    assert!(before[0].to_string().contains("failing"));
    let session = open(&path).into_session();
    let EntryKind::Compaction(data) = &session.entries()[session.leaf().unwrap()].kind else {
        panic!("not a compaction")
    };
    assert!(!data.from_hook);
    assert!(data.summary.contains("## Goal"));
}

#[tokio::test]
async fn process_extension_added_instructions_reach_the_summary() {
    let (_dir, path) = session_copy();
    let script =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/extensions/focus.sh");
    let extensions = Extensions::new().with(Arc::new(ProcessExtension::shell(format!(
        "sh {} 'the lexer tests'",
        script.display()
    ))));
    let outcome = run_with(&path, extensions).await.unwrap();
    assert!(outcome.warnings.is_empty(), "{:?}", outcome.warnings);
    let session = open(&path).into_session();
    let EntryKind::Compaction(data) = &session.entries()[session.leaf().unwrap()].kind else {
        panic!("not a compaction")
    };
    assert!(data.summary.contains("the lexer tests"), "{}", data.summary);
}
