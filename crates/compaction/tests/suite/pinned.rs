//! Pinned instructions in the summaries the orchestration writes: the offline summarizer
//! writes them itself (so the quality gate passes without a repair), a model is handed them
//! fenced, and successive compactions and an unpin keep each active pin exactly once.

use std::path::Path;

use compaction::compact::{CompactOutcome, CompactRequest, Compactor};
use compaction::extension::Extensions;
use compaction::offline::OfflineSummarizer;
use compaction::pins::{PinSource, pin, unpin};
use compaction::provider::ProviderKind;
use compaction::store::NewEntry;
use compaction::summarizer::Summarizer;
use compaction_core::EntryKind;
use compaction_core::quality::QualityStatus;
use compaction_core::serialize::Redactor;
use serde_json::json;
use tokio_util::sync::CancellationToken;

use super::compact::{
    KEY, WINDOW, estimator, open, provider, session_copy, settings, streamed,
    summary_with_every_fact,
};
use super::mock_server::MockServer;

const FORMAT_PIN: &str = "Never change the file format.";
const SPACED_PIN: &str = "Keep the\n  changelog in English.";

async fn compact_with(path: &Path, summarizer: &dyn Summarizer) -> CompactOutcome {
    let settings = settings();
    let estimator = estimator();
    let compactor = Compactor {
        summarizer,
        settings: &settings,
        context_window: WINDOW,
        estimator: estimator.as_ref(),
        redactor: Redactor::new([KEY.to_owned()]),
        extensions: &Extensions::new(),
    };
    let mut store = open(path);
    compactor
        .run(&mut store, &CompactRequest::default(), &CancellationToken::new(), &|_| {})
        .await
        .unwrap()
}

/// Pins `text` at the file's leaf; returns the pin's id.
fn pin_text(path: &Path, text: &str) -> String {
    let mut store = open(path);
    let leaf = store.session().leaf();
    pin(&mut store, leaf, &PinSource::Text(text.to_owned())).unwrap().id
}

fn last_summary(path: &Path) -> String {
    let session = open(path).into_session();
    let EntryKind::Compaction(data) = &session.entries()[session.leaf().unwrap()].kind else {
        panic!("not a compaction")
    };
    data.summary.clone()
}

fn element(text: &str) -> String {
    format!("<pinned-instruction>\n{text}\n</pinned-instruction>")
}

/// The conversation goes on after a compaction: a new turn long enough to compact again.
fn continue_conversation(path: &Path, round: usize) {
    let mut store = open(path);
    let filler = "x".repeat(4000);
    for message in [
        json!({"role":"user","content":format!("Now document part {round} in docs/part{round}.md")}),
        json!({"role":"assistant","content":[{"type":"toolCall","id":format!("w{round}"),"name":"write","arguments":{"path":format!("docs/part{round}.md"),"content":filler}}]}),
        json!({"role":"toolResult","toolCallId":format!("w{round}"),"toolName":"write","content":[{"type":"text","text":"ok"}],"isError":false}),
        json!({"role":"assistant","content":[{"type":"text","text":format!("Documented part {round}.")}]}),
        json!({"role":"user","content":format!("Thanks, on to part {}", round + 1)}),
        json!({"role":"assistant","content":[{"type":"text","text":filler}]}),
    ] {
        let mut fields = serde_json::Map::new();
        fields.insert("message".into(), message);
        store.append(NewEntry::new("message", fields)).unwrap();
    }
}

#[tokio::test]
async fn offline_compaction_with_pins_passes_the_gate_with_each_pin_verbatim() {
    let (_dir, path) = session_copy();
    pin_text(&path, FORMAT_PIN);
    pin_text(&path, SPACED_PIN);
    let outcome = compact_with(&path, &OfflineSummarizer).await;
    let quality = outcome.quality.unwrap();
    assert_eq!(quality.status, QualityStatus::Passed, "{quality:?}");
    assert!(quality.missing.is_empty(), "{quality:?}");
    let summary = last_summary(&path);
    assert!(summary.starts_with("## Pinned Instructions\n"), "{summary}");
    for text in [FORMAT_PIN, SPACED_PIN] {
        assert_eq!(summary.matches(&element(text)).count(), 1, "{summary}");
    }
    assert!(!summary.contains("## Must Keep"), "{summary}");
}

/// A pin holding a secret reaches every summarizer redacted; the gate checks it as the
/// summarizer saw it, so the summary passes without a repair that would copy the secret in,
/// and the context after the compaction still shows the pin itself.
#[tokio::test]
async fn a_pin_with_a_secret_passes_the_gate_redacted_and_the_context_keeps_it_whole() {
    let (_dir, path) = session_copy();
    let secret_pin = "Deploy with the key ghp_abcdefghijklmnopqrstuvwxyz0123456789 only.";
    pin_text(&path, secret_pin);
    let outcome = compact_with(&path, &OfflineSummarizer).await;
    let quality = outcome.quality.unwrap();
    assert_eq!(quality.status, QualityStatus::Passed, "{quality:?}");
    let summary = last_summary(&path);
    assert!(!summary.contains("ghp_abcdefghij"), "{summary}");
    assert!(!summary.contains("## Must Keep"), "{summary}");
    let session = open(&path).into_session();
    let context = compaction_core::context::build_context(&session, session.leaf());
    let texts: Vec<String> = context
        .agent_messages(&session)
        .iter()
        .map(|message| serde_json::to_string(message).unwrap())
        .collect();
    assert!(texts.iter().any(|text| text.contains(secret_pin)), "{texts:?}");
}

#[tokio::test]
async fn pins_survive_five_offline_compactions_once_each_and_an_unpin_removes_one() {
    let (_dir, path) = session_copy();
    let format_pin = pin_text(&path, FORMAT_PIN);
    pin_text(&path, SPACED_PIN);
    for round in 1..=5 {
        if round > 1 {
            continue_conversation(&path, round);
        }
        let quality = compact_with(&path, &OfflineSummarizer).await.quality.unwrap();
        assert_eq!(quality.status, QualityStatus::Passed, "round {round}: {quality:?}");
        let summary = last_summary(&path);
        assert!(summary.contains(&format!("part {round}")) || round == 1, "{summary}");
        assert_eq!(summary.matches("## Pinned Instructions").count(), 1, "{summary}");
        for text in [FORMAT_PIN, SPACED_PIN] {
            assert_eq!(summary.matches(text).count(), 1, "round {round}, {text}:\n{summary}");
            assert_eq!(summary.matches(&element(text)).count(), 1, "round {round}:\n{summary}");
        }
    }
    {
        let mut store = open(&path);
        let leaf = store.session().leaf();
        unpin(&mut store, leaf, &[format_pin]).unwrap();
    }
    continue_conversation(&path, 6);
    let quality = compact_with(&path, &OfflineSummarizer).await.quality.unwrap();
    assert_eq!(quality.status, QualityStatus::Passed, "{quality:?}");
    let summary = last_summary(&path);
    assert!(!summary.contains(FORMAT_PIN), "an unpinned instruction was carried:\n{summary}");
    assert_eq!(summary.matches(&element(SPACED_PIN)).count(), 1, "{summary}");
}

async fn the_model_is_given_the_pins_escaped(kind: ProviderKind) {
    let server = MockServer::start().await;
    let (_dir, path) = session_copy();
    let tricky = "Keep </conversation> and <system> out of the docs.";
    pin_text(&path, FORMAT_PIN);
    pin_text(&path, tricky);
    let good = summary_with_every_fact(&path, "Fix nested list parsing");
    let answer =
        format!("## Pinned Instructions\n{}\n\n{}\n\n{good}", element(FORMAT_PIN), element(tricky));
    server.always(streamed(kind, &answer));
    let outcome = compact_with(&path, &provider(kind, &server)).await;
    assert_eq!(outcome.quality.unwrap().status, QualityStatus::Passed);
    let bodies: Vec<String> = server.requests().iter().map(|r| r.body.to_string()).collect();
    // History and the split turn's prefix; the pins go to the history summary only.
    assert_eq!(bodies.len(), 2, "{bodies:?}");
    let with_pins: Vec<&String> =
        bodies.iter().filter(|body| body.contains("Pinned Instructions")).collect();
    assert_eq!(with_pins.len(), 1, "{bodies:?}");
    let body = with_pins[0];
    assert!(body.contains(&json!(element(FORMAT_PIN)).to_string().trim_matches('"').to_owned()));
    let escaped = element("Keep &lt;/conversation> and &lt;system> out of the docs.");
    assert!(body.contains(json!(escaped).to_string().trim_matches('"')), "{body}");
    assert!(!body.contains("Keep </conversation>"), "{body}");
    assert_eq!(body.matches("</conversation>").count(), 1, "{body}");
}

mod the_model_is_given_the_pins_escaped {
    #[tokio::test]
    async fn openai() {
        super::the_model_is_given_the_pins_escaped(compaction::provider::ProviderKind::OpenAi)
            .await;
    }
    #[tokio::test]
    async fn anthropic() {
        super::the_model_is_given_the_pins_escaped(compaction::provider::ProviderKind::Anthropic)
            .await;
    }
}

#[tokio::test]
async fn a_branch_summary_carries_the_pins_in_force_at_the_target_only() {
    use compaction::navigate::NavigateRequest;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("branches.jsonl");
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../compaction-core/tests/fixtures/branch-two.jsonl");
    std::fs::copy(fixture, &path).unwrap();
    let (target, from) = {
        let mut store = open(&path);
        let at = |store: &compaction::store::SessionStore, id: &str| store.session().index_of(id);
        let target = at(&store, "e80776cc");
        let kept = pin(&mut store, target, &PinSource::Text(FORMAT_PIN.into())).unwrap();
        let from = at(&store, "6dee93a9");
        let left = pin(&mut store, from, &PinSource::Text("Only on the old branch.".into()));
        (kept.id, left.unwrap().id)
    };
    let settings = settings();
    let estimator = estimator();
    let compactor = Compactor {
        summarizer: &OfflineSummarizer,
        settings: &settings,
        context_window: 128_000,
        estimator: estimator.as_ref(),
        redactor: Redactor::default(),
        extensions: &Extensions::new(),
    };
    let request =
        NavigateRequest { target, from: Some(from), summarize: true, ..NavigateRequest::default() };
    let mut store = open(&path);
    compactor.navigate(&mut store, &request, &CancellationToken::new(), &|_| {}).await.unwrap();
    drop(store);
    let session = open(&path).into_session();
    let EntryKind::BranchSummary(data) = &session.entries()[session.leaf().unwrap()].kind else {
        panic!("not a branch summary")
    };
    assert_eq!(data.summary.matches(&element(FORMAT_PIN)).count(), 1, "{}", data.summary);
    assert!(!data.summary.contains("Only on the old branch."), "{}", data.summary);
}
