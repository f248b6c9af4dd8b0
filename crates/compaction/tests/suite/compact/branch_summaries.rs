//! Branch summaries through the same path: appended under the target, and a failed summary
//! leaving the file byte-identical.

use compaction::compact::Compactor;
use compaction::extension::Extensions;
use compaction::navigate::NavigateRequest;
use compaction::provider::ProviderKind;
use compaction_core::EntryKind;
use compaction_core::context::build_context;
use compaction_core::serialize::Redactor;
use compaction_core::{AgentMessage, Session};
use tokio_util::sync::CancellationToken;

use super::super::mock_server::{MockServer, Reply};
use super::{KEY, estimator, open, provider, settings, streamed};

fn branch_copy() -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("branches.jsonl");
    let fixture = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../compaction-core/tests/fixtures/branch-two.jsonl");
    std::fs::copy(fixture, &path).unwrap();
    (dir, path)
}

async fn navigate(
    path: &std::path::Path,
    summarizer: &dyn compaction::summarizer::Summarizer,
) -> Result<compaction::navigate::NavigateOutcome, compaction::navigate::NavigateError> {
    let settings = settings();
    let estimator = estimator();
    let extensions = Extensions::new();
    let compactor = Compactor {
        summarizer,
        settings: &settings,
        context_window: 128_000,
        estimator: estimator.as_ref(),
        redactor: Redactor::new([KEY.to_owned()]),
        extensions: &extensions,
    };
    let request = NavigateRequest {
        target: "e80776cc".into(),
        from: Some("6dee93a9".into()),
        summarize: true,
        ..NavigateRequest::default()
    };
    let mut store = open(path);
    compactor.navigate(&mut store, &request, &CancellationToken::new(), &|_| {}).await
}

fn leaf_summary(session: &Session) -> String {
    let context = build_context(session, session.leaf());
    let messages = context.agent_messages(session);
    let Some(AgentMessage::BranchSummary(summary)) = messages.last() else {
        panic!("the context does not end with the branch summary: {messages:?}")
    };
    summary.summary.clone()
}

#[tokio::test]
async fn provider_summary_lands_under_the_target() {
    for kind in [ProviderKind::OpenAi, ProviderKind::Anthropic] {
        let server = MockServer::start().await;
        server.always(streamed(
            kind,
            "## Goal\n- Tried compression in src/compress.rs, measured it on the sample \
             files, and left it because the gain was too small for the added code.",
        ));
        let summarizer = provider(kind, &server);
        let (_dir, path) = branch_copy();
        let outcome = navigate(&path, &summarizer).await.unwrap();
        let entry = outcome.entry.unwrap();
        assert_eq!(entry.parent_id.as_deref(), Some("e80776cc"));
        let session = open(&path).into_session();
        let EntryKind::BranchSummary(data) = &session.entries()[session.leaf().unwrap()].kind
        else {
            panic!("not a branch summary")
        };
        assert_eq!(data.from_id, "6dee93a9");
        assert!(!data.from_hook);
        let summary = leaf_summary(&session);
        assert!(summary.contains("Tried compression in src/compress.rs"), "{summary}");
        assert!(summary.contains("<modified-files>"), "{summary}");
        let body = server.requests()[0].body.to_string();
        assert!(body.contains("conversation"), "{body}");
        assert_eq!(
            server.requests()[0].body["max_tokens"]
                .as_u64()
                .or(server.requests()[0].body["max_completion_tokens"].as_u64()),
            Some(2048)
        );
    }
}

#[tokio::test]
async fn failed_summary_leaves_the_file_byte_identical() {
    for kind in [ProviderKind::OpenAi, ProviderKind::Anthropic] {
        let server = MockServer::start().await;
        server.always(Reply::status(503, "{\"error\":{\"message\":\"down\"}}"));
        let summarizer = provider(kind, &server);
        let (_dir, path) = branch_copy();
        let before = std::fs::read(&path).unwrap();
        assert!(navigate(&path, &summarizer).await.is_err());
        assert_eq!(std::fs::read(&path).unwrap(), before);
    }
}

/// `branch --summarize` for a server on this machine scales its deadline as a compaction
/// does (the progress says so); a `timeoutSeconds` other than the default is kept.
#[tokio::test]
async fn a_branch_summary_scales_its_deadline_for_a_server_on_this_machine() {
    use compaction::compact::CompactionProgress;
    use compaction_core::settings::CompactionSettings;
    use std::sync::{Arc, Mutex};
    for (timeout_seconds, raised) in [(180, true), (60, false)] {
        let server = MockServer::start().await;
        server.always(streamed(
            ProviderKind::OpenAi,
            "## Goal\n- Tried compression in src/compress.rs, measured it on the sample files, \
             and left it because the gain was too small for the added code.",
        ));
        let summarizer = super::super::providers::local_server::local_summarizer(server.url());
        let (_dir, path) = branch_copy();
        let settings = CompactionSettings { timeout_seconds, ..settings() };
        let estimator = estimator();
        let extensions = Extensions::new();
        let compactor = Compactor {
            summarizer: &summarizer,
            settings: &settings,
            context_window: 128_000,
            estimator: estimator.as_ref(),
            redactor: Redactor::default(),
            extensions: &extensions,
        };
        let request = NavigateRequest {
            target: "e80776cc".into(),
            from: Some("6dee93a9".into()),
            summarize: true,
            ..NavigateRequest::default()
        };
        let events = Arc::new(Mutex::new(Vec::new()));
        let sink = Arc::clone(&events);
        let progress = move |event: CompactionProgress| sink.lock().unwrap().push(event);
        let mut store = open(&path);
        compactor
            .navigate(&mut store, &request, &CancellationToken::new(), &progress)
            .await
            .unwrap();
        let told = events.lock().unwrap().iter().any(|event| {
            matches!(event, CompactionProgress::Deadline { limit, .. } if limit.as_secs() > timeout_seconds)
        });
        assert_eq!(told, raised, "timeoutSeconds {timeout_seconds}");
    }
}
