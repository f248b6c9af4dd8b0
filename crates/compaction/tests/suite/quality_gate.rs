//! The quality gate in the orchestration path, against the mock server speaking both
//! providers' wire formats: every rejection reason is retried once with what is missing;
//! a summary that lacks facts is then repaired with a Must Keep section, or, with
//! `strictQuality`, fails and leaves the file byte-identical; an unusable one (empty, a
//! refusal, an echo, cut off, without the checkpoint's structure, a few words) is never
//! repaired: the compaction fails with the file
//! byte-identical, or the offline summarizer writes it with `fallbackToOffline`.

use std::path::Path;

use compaction::compact::{CompactError, CompactOutcome, CompactRequest, Compactor};
use compaction::extension::Extensions;
use compaction::provider::ProviderKind;
use compaction::summarizer::Summarizer;
use compaction_core::EntryKind;
use compaction_core::quality::QualityStatus;
use compaction_core::serialize::Redactor;
use compaction_core::settings::CompactionSettings;
use tokio_util::sync::CancellationToken;

use super::compact::{
    KEY, WINDOW, estimator, open, provider, session_copy, stream_chunks, streamed,
    summary_with_every_fact,
};
use super::mock_server::{MockServer, Reply};

/// The shared settings with the verbatim user messages section off: the gate is tested on
/// what the summary itself says, and the section would carry the user's constraints by itself.
fn settings() -> CompactionSettings {
    CompactionSettings { keep_user_messages_tokens: 0, ..super::compact::settings() }
}

const CONSTRAINT: &str = "Don't change the public signature of `parse_expr`.";

async fn compact_with(
    path: &Path,
    summarizer: &dyn Summarizer,
    settings: &CompactionSettings,
) -> Result<CompactOutcome, CompactError> {
    let estimator = estimator();
    let compactor = Compactor {
        summarizer,
        settings,
        context_window: WINDOW,
        estimator: estimator.as_ref(),
        redactor: Redactor::new([KEY.to_owned()]),
        extensions: &Extensions::new(),
    };
    let mut store = open(path);
    compactor.run(&mut store, &CompactRequest::default(), &CancellationToken::new(), &|_| {}).await
}

/// A stream that ends because the output limit was reached.
fn truncated(kind: ProviderKind, text: &str) -> Reply {
    let chunks = stream_chunks(kind, text)
        .into_iter()
        .map(|chunk| {
            chunk
                .replace("\"finish_reason\":\"stop\"", "\"finish_reason\":\"length\"")
                .replace("\"stop_reason\":\"end_turn\"", "\"stop_reason\":\"max_tokens\"")
                // It used all of its output limit.
                .replace("\"completion_tokens\":60", "\"completion_tokens\":1000000")
        })
        .collect();
    Reply::stream(chunks)
}

/// One rejection reason: the reply, what the retry request must name, what the repaired
/// summary must hold.
struct Case {
    name: &'static str,
    reply: fn(ProviderKind, &str) -> Reply,
    retry_names: &'static str,
    repaired_holds: &'static str,
}

/// Replies the gate can repair: facts are missing from a usable summary.
fn cases() -> Vec<Case> {
    vec![Case {
        name: "missing constraint",
        reply: |kind, good| streamed(kind, &good.replace(&format!("- \"{CONSTRAINT}\"\n"), "")),
        retry_names: "quote it word for word under Constraints & Preferences: \"Don't change the public signature of `parse_expr`.\"",
        repaired_holds: "## Must Keep\n- Constraint (user's words): \"Don't change the public signature of `parse_expr`.\"",
    }]
}

/// Replies that are no summary at all: never repaired.
fn unusable_cases() -> Vec<Case> {
    vec![
        Case {
            name: "empty",
            reply: |kind, _| streamed(kind, ""),
            retry_names: "It was empty",
            repaired_holds: "",
        },
        Case {
            name: "refusal",
            reply: |kind, _| streamed(kind, "I'm sorry, but I can't help with that."),
            retry_names: "It was a refusal",
            repaired_holds: "",
        },
        Case {
            name: "truncated",
            reply: |kind, good| truncated(kind, good),
            retry_names: "cut off at the output limit",
            repaired_holds: "",
        },
        Case {
            // What a model answered in place of 82 messages, replayed.
            name: "five words",
            reply: |kind, _| streamed(kind, "The user fixed the bug."),
            retry_names: "It lacked the checkpoint structure",
            repaired_holds: "",
        },
        Case {
            name: "section-less prose",
            reply: |kind, good| {
                let prose: Vec<&str> = good.lines().filter(|line| !line.starts_with('#')).collect();
                streamed(kind, &prose.join(" "))
            },
            retry_names: "It lacked the checkpoint structure",
            repaired_holds: "",
        },
        Case {
            name: "wrong headings",
            reply: |kind, good| {
                streamed(
                    kind,
                    &good.replace("## Goal", "## Summary").replace("## Progress", "## Work"),
                )
            },
            retry_names: "Use these headings: `## Goal`",
            repaired_holds: "",
        },
        Case {
            name: "echo",
            reply: |kind, _| {
                streamed(kind, "<conversation>\n<user>\nFix nested list parsing\n</user>")
            },
            retry_names: "It repeated the request",
            repaired_holds: "",
        },
    ]
}

fn request_text(kind: ProviderKind, body: &serde_json::Value) -> String {
    match kind {
        ProviderKind::OpenAi => body["messages"][1]["content"].as_str().unwrap_or("").to_owned(),
        ProviderKind::Anthropic => body["messages"][0]["content"].as_str().unwrap_or("").to_owned(),
    }
}

async fn each_rejection_is_retried_then_repaired(kind: ProviderKind) {
    for case in cases() {
        let server = MockServer::start().await;
        let (_dir, path) = session_copy();
        let good = summary_with_every_fact(&path, "Fix nested list parsing");
        assert!(good.contains(CONSTRAINT), "the fixture's constraint moved: {good}");
        server.always((case.reply)(kind, &good));
        let summarizer = provider(kind, &server);
        let outcome = compact_with(&path, &summarizer, &settings()).await.unwrap();
        let quality = outcome.quality.clone().unwrap();
        assert_eq!(quality.status, QualityStatus::Repaired, "{}: {quality:?}", case.name);
        assert_eq!(quality.attempts, 2, "{}", case.name);
        assert!(!quality.missing.is_empty(), "{}", case.name);
        // Turn prefix and history, then the history again (the turn prefix's request
        // would be the same, so its summary is reused).
        let requests = server.requests();
        assert_eq!(requests.len(), 3, "{}", case.name);
        assert_eq!(outcome.summarizer_calls, 3, "{}", case.name);
        let retried: Vec<String> =
            requests[2..].iter().map(|r| request_text(kind, &r.body)).collect();
        assert!(
            retried.iter().any(|text| text.contains(case.retry_names)),
            "{}: the retry does not say what is missing: {retried:?}",
            case.name
        );
        assert!(
            requests[..2].iter().all(|r| !request_text(kind, &r.body).contains("was rejected")),
            "{}",
            case.name
        );
        let session = open(&path).into_session();
        let entry = &session.entries()[session.leaf().unwrap()];
        let EntryKind::Compaction(data) = &entry.kind else { panic!("not a compaction") };
        assert!(data.summary.contains(case.repaired_holds), "{}: {}", case.name, data.summary);
        let details = data.details.as_ref().unwrap();
        assert_eq!(details["quality"]["status"], "repaired", "{}", case.name);
        assert_eq!(details["quality"]["attempts"], 2, "{}", case.name);
    }
}

async fn strict_leaves_the_file_byte_identical(kind: ProviderKind) {
    let strict = CompactionSettings { strict_quality: true, ..settings() };
    for case in cases() {
        let server = MockServer::start().await;
        let (_dir, path) = session_copy();
        let good = summary_with_every_fact(&path, "Fix nested list parsing");
        server.always((case.reply)(kind, &good));
        let summarizer = provider(kind, &server);
        let before = std::fs::read(&path).unwrap();
        let error = compact_with(&path, &summarizer, &strict).await.unwrap_err();
        let CompactError::QualityRejected { missing, attempts } = &error else {
            panic!("{}: {error}", case.name)
        };
        assert_eq!(*attempts, 2, "{}", case.name);
        assert!(!missing.is_empty(), "{}", case.name);
        assert_eq!(server.requests().len(), 3, "{}", case.name);
        assert_eq!(std::fs::read(&path).unwrap(), before, "{}: file changed", case.name);
    }
}

/// An empty, refused, echoed or cut-off reply, twice, fails the compaction with the file
/// byte-identical (never a Must Keep list in place of the history); the error counts the
/// requests the server received.
async fn unusable_replies_are_never_repaired(kind: ProviderKind) {
    for case in unusable_cases() {
        let server = MockServer::start().await;
        let (_dir, path) = session_copy();
        let good = summary_with_every_fact(&path, "Fix nested list parsing");
        server.always((case.reply)(kind, &good));
        let summarizer = provider(kind, &server);
        let before = std::fs::read(&path).unwrap();
        let error = compact_with(&path, &summarizer, &settings()).await.unwrap_err();
        let CompactError::Unusable { problems, attempts, requests, .. } = &error else {
            panic!("{}: {error}", case.name)
        };
        assert_eq!(*attempts, 2, "{}", case.name);
        assert!(!problems.is_empty(), "{}", case.name);
        assert_eq!(*requests, server.requests().len(), "{}: {error}", case.name);
        assert_eq!(std::fs::read(&path).unwrap(), before, "{}: file changed", case.name);
        let retried: Vec<String> =
            server.requests().iter().map(|r| request_text(kind, &r.body)).collect();
        assert!(
            retried.iter().any(|text| text.contains(case.retry_names)),
            "{}: the retry does not say what was wrong: {retried:?}",
            case.name
        );
        if case.name == "truncated" {
            // A cut-off reply is reported as cut off, not as empty.
            assert!(problems.iter().all(|p| !p.contains("empty")), "{problems:?}");
            assert!(!retried.iter().any(|text| text.contains("It was empty")));
        }
    }
}

/// With `fallbackToOffline`, the offline summarizer writes the summary the model could not,
/// and the entry records the fallback and why.
async fn unusable_replies_fall_back_to_offline_when_configured(kind: ProviderKind) {
    let fallback = CompactionSettings { fallback_to_offline: true, ..settings() };
    for case in unusable_cases() {
        let server = MockServer::start().await;
        let (_dir, path) = session_copy();
        let good = summary_with_every_fact(&path, "Fix nested list parsing");
        server.always((case.reply)(kind, &good));
        let summarizer = provider(kind, &server);
        let outcome = compact_with(&path, &summarizer, &fallback).await.unwrap();
        let quality = outcome.quality.clone().unwrap();
        let recorded = quality.fallback.clone().unwrap();
        assert_eq!(recorded.summarizer, "offline", "{}", case.name);
        assert!(!recorded.reason.is_empty(), "{}", case.name);
        assert_eq!(recorded.requests, server.requests().len(), "{}", case.name);
        // The model's requests are counted, then the offline summarizer's calls.
        assert!(outcome.summarizer_calls > server.requests().len(), "{}", case.name);
        // The usage is the real usage of the requests the model got (900 input tokens each
        // in these replies), not zeros.
        let sent = server.requests().len() as u64;
        assert_eq!(outcome.usage.input_tokens, 900 * sent, "{}: {:?}", case.name, outcome.usage);
        let session = open(&path).into_session();
        let EntryKind::Compaction(data) = &session.entries()[session.leaf().unwrap()].kind else {
            panic!("not a compaction")
        };
        let details = data.details.as_ref().unwrap();
        assert_eq!(details["quality"]["fallback"]["summarizer"], "offline", "{}", case.name);
        assert!(data.summary.contains("## Goal"), "{}: {}", case.name, data.summary);
        assert!(!data.summary.contains("<conversation>"), "{}", case.name);
    }
}

async fn a_good_retry_passes(kind: ProviderKind) {
    let server = MockServer::start().await;
    let (_dir, path) = session_copy();
    let good = summary_with_every_fact(&path, "Fix nested list parsing");
    let dropped = good.replace(&format!("- \"{CONSTRAINT}\"\n"), "");
    server.push(streamed(kind, &dropped));
    server.push(streamed(kind, &dropped));
    server.always(streamed(kind, &good));
    let summarizer = provider(kind, &server);
    let outcome = compact_with(&path, &summarizer, &settings()).await.unwrap();
    let quality = outcome.quality.unwrap();
    assert_eq!(quality.status, QualityStatus::Passed);
    assert_eq!(quality.attempts, 2);
    assert_eq!(quality.first_attempt_missing, [format!("missing constraint \"{CONSTRAINT}\"")]);
    assert!(quality.missing.is_empty());
    // Prefix and history, then the history again: the prefix's summary is reused.
    assert_eq!(outcome.summarizer_calls, 3);
    let session = open(&path).into_session();
    let EntryKind::Compaction(data) = &session.entries()[session.leaf().unwrap()].kind else {
        panic!("not a compaction")
    };
    assert!(!data.summary.contains("## Must Keep"), "{}", data.summary);
}

macro_rules! both_providers {
    ($($name:ident),* $(,)?) => {$(
        mod $name {
            #[tokio::test]
            async fn openai() {
                super::$name(compaction::provider::ProviderKind::OpenAi).await;
            }
            #[tokio::test]
            async fn anthropic() {
                super::$name(compaction::provider::ProviderKind::Anthropic).await;
            }
        }
    )*};
}

both_providers!(
    each_rejection_is_retried_then_repaired,
    strict_leaves_the_file_byte_identical,
    unusable_replies_are_never_repaired,
    unusable_replies_fall_back_to_offline_when_configured,
    a_good_retry_passes,
);

/// The offline summarizer, never told the pins: its summaries lack them.
struct ForgetsPins;

impl Summarizer for ForgetsPins {
    fn summarize<'a>(
        &'a self,
        request: &'a compaction::summarizer::SummaryRequest,
        cancel: &'a CancellationToken,
        progress: &'a (dyn Fn(compaction::summarizer::SummaryProgress) + Send + Sync),
    ) -> futures_util::future::BoxFuture<
        'a,
        Result<compaction::summarizer::SummaryResponse, compaction::error::SummarizerError>,
    > {
        Box::pin(async move {
            let forgetful =
                compaction::summarizer::SummaryRequest { pins: Vec::new(), ..request.clone() };
            compaction::offline::OfflineSummarizer.summarize(&forgetful, cancel, progress).await
        })
    }

    fn label(&self) -> String {
        "offline, without pins".to_owned()
    }

    fn follows_instructions(&self) -> bool {
        false
    }
}

#[tokio::test]
async fn a_deterministic_summary_without_a_pin_is_repaired_without_a_retry() {
    let (_dir, path) = session_copy();
    {
        let mut store = open(&path);
        let leaf = store.session().leaf();
        compaction::pins::pin(
            &mut store,
            leaf,
            &compaction::pins::PinSource::Text("Keep the\n  changelog in English.".into()),
        )
        .unwrap();
    }
    let outcome = compact_with(&path, &ForgetsPins, &settings()).await.unwrap();
    let quality = outcome.quality.unwrap();
    assert_eq!(quality.status, QualityStatus::Repaired);
    assert_eq!(quality.attempts, 1, "a deterministic summarizer gets no retry");
    assert!(
        quality.missing.iter().all(|m| m.starts_with("missing pinned instruction")),
        "{quality:?}"
    );
    let session = open(&path).into_session();
    let EntryKind::Compaction(data) = &session.entries()[session.leaf().unwrap()].kind else {
        panic!("not a compaction")
    };
    assert!(
        data.summary.contains(
            "<pinned-instruction>\nKeep the\n  changelog in English.\n</pinned-instruction>"
        ),
        "{}",
        data.summary
    );
}

/// A modified file the summary does not name is no missing fact: the entry appends its
/// modified-files list after the summary, so the model reads the file's path either way, and
/// no retry is spent on it.
#[tokio::test]
async fn a_summary_that_leaves_the_file_list_to_the_entry_passes_first_time() {
    for kind in [ProviderKind::OpenAi, ProviderKind::Anthropic] {
        let server = MockServer::start().await;
        let (_dir, path) = session_copy();
        let good = summary_with_every_fact(&path, "Fix nested list parsing");
        let lines: Vec<&str> =
            good.lines().filter(|line| !line.contains("src/parser.rs")).collect();
        let without = lines.join("\n");
        server.always(streamed(kind, &without));
        let summarizer = provider(kind, &server);
        let outcome = compact_with(&path, &summarizer, &settings()).await.unwrap();
        let quality = outcome.quality.clone().unwrap();
        assert_eq!(quality.status, QualityStatus::Passed, "{quality:?}");
        assert_eq!(quality.attempts, 1, "{quality:?}");
        let session = open(&path).into_session();
        let entry = &session.entries()[session.leaf().unwrap()];
        let EntryKind::Compaction(data) = &entry.kind else { panic!("not a compaction") };
        assert!(!data.summary.contains("## Must Keep"), "{}", data.summary);
        let (_, list) = data.summary.split_once("<modified-files>\n").expect("the entry's list");
        assert!(list.lines().any(|line| line == "src/parser.rs"), "{}", data.summary);
    }
}
