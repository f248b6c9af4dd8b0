//! The prune stage through the one orchestration path: `prune` writes one
//! `compaction.prune` entry, `hybrid` summarizes only when the pruned context still fires
//! the trigger and then summarizes the pruned view, a failed summary writes neither entry,
//! and `before_prune` extensions cancel or choose the set.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use compaction::compact::{CompactError, CompactRequest, Compactor};
use compaction::error::SummarizerError;
use compaction::extension::{BeforePruneEvent, Extension, Extensions, HookFuture, PruneChoice};
use compaction::offline::OfflineSummarizer;
use compaction::store::{OpenOptions, SessionStore};
use compaction::summarizer::{Summarizer, SummaryProgress, SummaryRequest, SummaryResponse};
use compaction_core::EntryKind;
use compaction_core::context::build_context;
use compaction_core::prune::{PruneSettings, Strategy};
use compaction_core::serialize::Redactor;
use compaction_core::settings::CompactionSettings;
use compaction_core::tokens::estimator_by_name;
use futures_util::future::BoxFuture;
use tokio_util::sync::CancellationToken;

fn example() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/coding-session.jsonl")
}

fn copy() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("session.jsonl");
    std::fs::copy(example(), &path).unwrap();
    (dir, path)
}

fn settings() -> CompactionSettings {
    CompactionSettings {
        keep_recent_tokens: 4000,
        prune: PruneSettings {
            protect_recent_tokens: 4000,
            minimum_savings: 2000,
            ..PruneSettings::default()
        },
        ..CompactionSettings::default()
    }
}

/// Records every transcript it is asked to summarize; fails when `fail` is set.
#[derive(Default)]
struct Recording {
    transcripts: Mutex<Vec<String>>,
    fail: bool,
}

impl Summarizer for Recording {
    fn summarize<'a>(
        &'a self,
        request: &'a SummaryRequest,
        _cancel: &'a CancellationToken,
        _progress: &'a (dyn Fn(SummaryProgress) + Send + Sync),
    ) -> BoxFuture<'a, Result<SummaryResponse, SummarizerError>> {
        self.transcripts.lock().unwrap().push(request.transcript.clone());
        let fail = self.fail;
        Box::pin(async move {
            if fail {
                return Err(SummarizerError::Http {
                    status: 500,
                    message: "down".into(),
                    attempts: 1,
                    elapsed: std::time::Duration::ZERO,
                });
            }
            Ok(SummaryResponse {
                text: super::compact::checkpoint_in_words("Short summary"),
                usage: Default::default(),
                truncated: false,
                requests: 1,
            })
        })
    }

    fn label(&self) -> String {
        "recording".into()
    }
}

async fn run(
    path: &Path,
    summarizer: &dyn Summarizer,
    window: u64,
    strategy: Strategy,
    extensions: &Extensions,
) -> Result<compaction::compact::CompactOutcome, CompactError> {
    let settings = settings();
    let estimator = estimator_by_name("heuristic").unwrap();
    let compactor = Compactor {
        summarizer,
        settings: &settings,
        context_window: window,
        estimator: estimator.as_ref(),
        redactor: Redactor::default(),
        extensions,
    };
    let mut store = SessionStore::open(path, OpenOptions::for_writing()).unwrap().0;
    let request = CompactRequest { strategy: Some(strategy), ..CompactRequest::default() };
    compactor.run(&mut store, &request, &CancellationToken::new(), &|_| {}).await
}

fn appended(path: &Path, before: &[u8]) -> Vec<serde_json::Value> {
    let after = std::fs::read(path).unwrap();
    assert!(after.starts_with(before), "the log is only appended to");
    std::str::from_utf8(&after[before.len()..])
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect()
}

#[tokio::test]
async fn hybrid_stops_after_the_prune_when_the_trigger_no_longer_fires() {
    let (_dir, path) = copy();
    let before = std::fs::read(&path).unwrap();
    let summarizer = Recording::default();
    // A 44k window fires above 27.6k (window − reserve): the 32.8k context does, the
    // pruned one (about 24.5k) does not.
    let outcome =
        run(&path, &summarizer, 44_000, Strategy::Hybrid, &Extensions::new()).await.unwrap();
    assert!(summarizer.transcripts.lock().unwrap().is_empty(), "no summary was needed");
    assert!(!outcome.summarized);
    let pruned = outcome.pruned.unwrap();
    // One context edit per pruned output, then the prune record.
    assert_eq!(appended(&path, &before).len(), pruned.plan.candidates.len() + 1);
}

#[tokio::test]
async fn prune_strategy_writes_context_edits_pi_applies_then_its_record_and_never_summarizes() {
    let (_dir, path) = copy();
    let before = std::fs::read(&path).unwrap();
    let summarizer = Recording::default();
    let outcome =
        run(&path, &summarizer, 200_000, Strategy::Prune, &Extensions::new()).await.unwrap();
    assert!(summarizer.transcripts.lock().unwrap().is_empty());
    assert!(!outcome.summarized);
    let pruned = outcome.pruned.unwrap();
    assert_eq!(outcome.entry.id, pruned.entry.id);
    assert!(pruned.tokens_after < pruned.tokens_before);
    let lines = appended(&path, &before);
    let (record, edits) = lines.split_last().unwrap();
    assert_eq!(edits.len(), pruned.plan.candidates.len());
    let record_entries = record["data"]["entries"].as_array().unwrap();
    for ((edit, item), parent) in edits
        .iter()
        .zip(record_entries)
        .zip(std::iter::once(&lines[0]["parentId"]).chain(edits.iter().map(|edit| &edit["id"])))
    {
        assert_eq!(edit["type"], "context_edit");
        assert_eq!(edit["parentId"], *parent, "the edits form one chain");
        assert_eq!(edit["targetId"], item["id"]);
        assert_eq!(edit["replacement"]["content"][0]["text"], item["placeholder"]);
    }
    assert_eq!(record["type"], "custom");
    assert_eq!(record["customType"], "compaction.prune");
    assert_eq!(record["parentId"], edits.last().unwrap()["id"]);
}

#[tokio::test]
async fn hybrid_summarizes_the_pruned_view_and_appends_prune_then_compaction() {
    let (_dir, path) = copy();
    let before = std::fs::read(&path).unwrap();
    let summarizer = Recording::default();
    // A 30k window: the pruned context (about 24.5k) still fires the trigger (13.6k).
    let outcome =
        run(&path, &summarizer, 30_000, Strategy::Hybrid, &Extensions::new()).await.unwrap();
    assert!(outcome.summarized);
    let pruned = outcome.pruned.clone().unwrap();
    let lines = appended(&path, &before);
    let edits = pruned.plan.candidates.len();
    assert_eq!(lines.len(), edits + 2);
    assert!(lines[..edits].iter().all(|line| line["type"] == "context_edit"));
    assert_eq!(lines[edits]["customType"], "compaction.prune");
    assert_eq!(lines[edits + 1]["type"], "compaction");
    assert_eq!(
        lines[edits + 1]["parentId"],
        lines[edits]["id"],
        "the compaction follows the prune"
    );
    // The summarizer read placeholders, not the pruned outputs.
    let transcripts = summarizer.transcripts.lock().unwrap().join("\n");
    let session = SessionStore::open(&path, OpenOptions::for_reading()).unwrap().0.into_session();
    let summarized_and_pruned = pruned
        .plan
        .candidates
        .iter()
        .filter(|c| transcripts.contains(&format!("recall entry {}", c.id)))
        .count();
    assert!(summarized_and_pruned > 0, "no placeholder reached the summarizer");
    let context = build_context(&session, session.leaf());
    assert!(matches!(session.entries()[context.items[0].entry].kind, EntryKind::Compaction(_)));
    assert_eq!(context.pruned.active.len(), 1, "the prune still applies after the compaction");
}

#[tokio::test]
async fn hybrid_with_a_failing_summarizer_leaves_the_file_byte_identical() {
    let (_dir, path) = copy();
    let before = std::fs::read(&path).unwrap();
    let summarizer = Recording { fail: true, ..Recording::default() };
    let error =
        run(&path, &summarizer, 30_000, Strategy::Hybrid, &Extensions::new()).await.unwrap_err();
    assert!(matches!(error, CompactError::Summarizer(_)), "{error}");
    assert_eq!(std::fs::read(&path).unwrap(), before, "not even the prune was written");
}

#[tokio::test]
async fn summarize_strategy_never_prunes() {
    let (_dir, path) = copy();
    let before = std::fs::read(&path).unwrap();
    let outcome = run(&path, &OfflineSummarizer, 30_000, Strategy::Summarize, &Extensions::new())
        .await
        .unwrap();
    assert!(outcome.pruned.is_none());
    let lines = appended(&path, &before);
    assert_eq!(lines.len(), 1);
    assert_eq!(lines[0]["type"], "compaction");
}

/// Answers `before_prune` with a fixed choice and remembers the candidates it saw.
struct Chooser {
    choice: PruneChoice,
    seen: Arc<Mutex<Vec<String>>>,
}

impl Extension for Chooser {
    fn name(&self) -> &str {
        "chooser"
    }

    fn before_prune<'a>(&'a self, event: &'a BeforePruneEvent<'_>) -> HookFuture<'a, PruneChoice> {
        let ids = event.plan.candidates.iter().map(|c| c.id.clone()).collect();
        *self.seen.lock().unwrap() = ids;
        let choice = self.choice.clone();
        Box::pin(async move { Ok(choice) })
    }
}

#[tokio::test]
async fn before_prune_can_cancel_or_choose_the_set() {
    let (_dir, path) = copy();
    let before = std::fs::read(&path).unwrap();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let cancel = Extensions::new().with(Arc::new(Chooser {
        choice: PruneChoice::Cancel { reason: "cache is warm".into() },
        seen: seen.clone(),
    }));
    let error =
        run(&path, &OfflineSummarizer, 200_000, Strategy::Prune, &cancel).await.unwrap_err();
    assert!(
        matches!(error, CompactError::Cancelled { ref extension, .. } if extension == "chooser")
    );
    assert_eq!(std::fs::read(&path).unwrap(), before);
    let candidates = seen.lock().unwrap().clone();
    assert!(candidates.len() > 2);

    let chosen = vec![candidates[0].clone(), candidates[1].clone(), "not-an-entry".to_owned()];
    let choose = Extensions::new().with(Arc::new(Chooser {
        choice: PruneChoice::Prune { entry_ids: chosen.clone() },
        seen: seen.clone(),
    }));
    let outcome = run(&path, &OfflineSummarizer, 200_000, Strategy::Prune, &choose).await.unwrap();
    let ids: Vec<String> =
        outcome.pruned.unwrap().plan.candidates.iter().map(|c| c.id.clone()).collect();
    assert_eq!(ids, chosen[..2]);
}

#[tokio::test]
async fn a_process_extension_cancels_a_prune_through_the_protocol() {
    let (_dir, path) = copy();
    let before = std::fs::read(&path).unwrap();
    let script = r#"event=$(cat); case "$event" in *'"event":"before_prune"'*) echo '{"action":"cancel","reason":"cache is warm"}';; esac"#;
    let extensions = Extensions::new()
        .with(Arc::new(compaction::extension::ProcessExtension::shell(script.to_owned())));
    let error =
        run(&path, &OfflineSummarizer, 200_000, Strategy::Prune, &extensions).await.unwrap_err();
    let CompactError::Cancelled { reason, .. } = error else { panic!("{error}") };
    assert_eq!(reason, "cache is warm");
    assert_eq!(std::fs::read(&path).unwrap(), before);
}

#[tokio::test]
async fn the_harness_prunes_reports_it_and_the_model_can_recall_and_search() {
    use compaction::harness::history::{RECALL_TOOL, history_tools};
    use compaction::harness::{ChatModel, CompactingSession, HarnessEvent, HarnessSettings};
    let (_dir, path) = copy();
    let store = SessionStore::open(&path, OpenOptions::for_writing()).unwrap().0;
    let mut session = CompactingSession::with_harness_settings(
        store,
        settings(),
        ChatModel::new("test", "m", Some(44_000)),
        Box::new(Recording::default()),
        estimator_by_name("heuristic").unwrap(),
        HarnessSettings { history_tool_max_chars: 300, ..HarnessSettings::default() },
    );
    let mut events = session.subscribe();
    let context = session.prepare_next_turn().await.unwrap();
    let mut pruned = None;
    while let Ok(event) = events.try_recv() {
        if let HarnessEvent::Pruned(event) = event {
            pruned = Some(event);
        }
    }
    let pruned = pruned.expect("a Pruned event");
    assert!(pruned.tokens_after < pruned.tokens_before);
    assert_eq!(session.leaf_id(), Some(pruned.entry.id.as_str()));
    let text = serde_json::to_string(&context).unwrap();
    let id = &pruned.entry_ids[0];
    assert!(text.contains(&format!("recall entry {id}")), "the context names the id");

    assert_eq!(history_tools()[0].name, RECALL_TOOL);
    let original = compaction_core::recall::recall(session.store().session(), id).unwrap().text;
    let recalled = session.recall(&serde_json::json!({ "id": id }));
    if original.chars().count() <= 300 {
        assert_eq!(recalled, original);
    } else {
        let first: String = original.chars().take(300).collect();
        assert!(recalled.starts_with(&first), "{recalled}");
        assert!(recalled.contains("offset 300"), "{recalled}");
    }
    assert!(session.recall(&serde_json::json!({})).contains("needs an `id`"));
    let word = original.split_whitespace().find(|w| w.len() > 8).unwrap();
    let found = session.search(&serde_json::json!({ "query": word }));
    assert!(found.chars().count() <= 300 + 80, "capped: {found}");
    assert!(found.contains("pruned"), "{found}");
}
