//! Extension hooks: decisions, replacement resolution, failure handling, ordering, and the
//! process protocol through real child processes.
//! In-process extensions here; child processes in `processes`.

mod processes;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use compaction::compact::CompactionReason;
use compaction::extension::{
    AfterCompactEvent, BeforeBranchSummaryEvent, BeforeCompactEvent, BranchSummaryDecision,
    CompactionDecision, Decision, EventName, Extension, ExtensionConfig, ExtensionError,
    Extensions, HookFuture, InvalidReplacement, PRESERVED_HEADING, ProcessExtension, Replacement,
    resolve_branch_replacement, resolve_replacement,
};
use compaction_core::prepare::{CompactionPreparation, PrepareOptions, prepare_compaction};
use compaction_core::{AgentMessage, Session};
use pretty_assertions::assert_eq;
use serde_json::{Value, json};

use super::git_aware_example::GitAware;

/// u1 a1(git status) t1 u2 a2 b1(git log) u3 a3; with 100 tokens a message and 150 kept,
/// the cut keeps u3 and a3.
const GIT_SESSION: &str = r#"{"type":"session","version":3,"id":"s1","timestamp":"2025-01-01T00:00:00Z","cwd":"/repo"}
{"type":"message","id":"u1","parentId":null,"timestamp":"2025-01-01T00:00:01Z","message":{"role":"user","content":"Check the repository state."}}
{"type":"message","id":"a1","parentId":"u1","timestamp":"2025-01-01T00:00:02Z","message":{"role":"assistant","content":[{"type":"toolCall","id":"c1","name":"bash","arguments":{"command":"git status --short"}}]}}
{"type":"message","id":"t1","parentId":"a1","timestamp":"2025-01-01T00:00:03Z","message":{"role":"toolResult","toolCallId":"c1","toolName":"bash","content":[{"type":"text","text":" M src/lib.rs"}],"isError":false}}
{"type":"message","id":"u2","parentId":"t1","timestamp":"2025-01-01T00:00:04Z","message":{"role":"user","content":"Fix the failing test."}}
{"type":"message","id":"a2","parentId":"u2","timestamp":"2025-01-01T00:00:05Z","message":{"role":"assistant","content":[{"type":"text","text":"Fixed."}]}}
{"type":"message","id":"b1","parentId":"a2","timestamp":"2025-01-01T00:00:06Z","message":{"role":"bashExecution","command":"git log --oneline -3","output":"abc123 fix test","exitCode":0,"cancelled":false,"truncated":false}}
{"type":"message","id":"u3","parentId":"b1","timestamp":"2025-01-01T00:00:07Z","message":{"role":"user","content":"Next task."}}
{"type":"message","id":"a3","parentId":"u3","timestamp":"2025-01-01T00:00:08Z","message":{"role":"assistant","content":[{"type":"text","text":"On it."}]}}
"#;

/// The same start, then a compaction keeping from u2, then more turns.
const COMPACTED_SESSION_TAIL: &str = r#"{"type":"compaction","id":"k1","parentId":"a3","timestamp":"2025-01-01T00:00:09Z","summary":"old","firstKeptEntryId":"u2","tokensBefore":800}
{"type":"message","id":"u4","parentId":"k1","timestamp":"2025-01-01T00:00:10Z","message":{"role":"user","content":"More."}}
{"type":"message","id":"a4","parentId":"u4","timestamp":"2025-01-01T00:00:11Z","message":{"role":"assistant","content":[{"type":"text","text":"Done."}]}}
{"type":"message","id":"u5","parentId":"a4","timestamp":"2025-01-01T00:00:12Z","message":{"role":"user","content":"Last."}}
{"type":"message","id":"a5","parentId":"u5","timestamp":"2025-01-01T00:00:13Z","message":{"role":"assistant","content":[{"type":"text","text":"Ok."}]}}
"#;

fn options() -> PrepareOptions {
    PrepareOptions {
        keep_recent_tokens: 150,
        reserve_tokens: 0,
        min_turns_to_keep: 0,
        max_summary_tokens: 0,
        keep_user_messages_tokens: 0,
        context_window: 1_000_000,
    }
}

fn prepared(text: &str) -> (Session, CompactionPreparation) {
    let session = compaction_core::parse_session(text.as_bytes());
    assert!(session.diagnostics().is_empty(), "{:?}", session.diagnostics());
    let preparation = prepare_compaction(&session, session.leaf(), options(), &|_| 100, 800)
        .expect("something to compact");
    (session, preparation)
}

fn git_session() -> (Session, CompactionPreparation) {
    let (session, preparation) = prepared(GIT_SESSION);
    assert_eq!(preparation.first_kept_entry_id, "u3");
    (session, preparation)
}

fn settings() -> Value {
    json!({"keepRecentTokens": 150})
}

fn event<'a>(
    session: &'a Session,
    preparation: &'a CompactionPreparation,
    settings: &'a Value,
) -> BeforeCompactEvent<'a> {
    BeforeCompactEvent {
        session,
        preparation,
        custom_instructions: Some("Keep it short."),
        reason: CompactionReason::Threshold,
        settings,
        cancel: Default::default(),
    }
}

/// A scripted Rust extension that answers `before_compact` with a fixed behaviour and
/// counts its calls.
struct Scripted {
    name: &'static str,
    behaviour: Behaviour,
    before_calls: AtomicUsize,
    after_calls: AtomicUsize,
}

#[allow(clippy::large_enum_variant)]
#[derive(Clone)]
enum Behaviour {
    Answer(Decision),
    Fail,
    Panic,
    Hang,
}

impl Scripted {
    fn new(name: &'static str, behaviour: Behaviour) -> Arc<Self> {
        Arc::new(Scripted {
            name,
            behaviour,
            before_calls: AtomicUsize::new(0),
            after_calls: AtomicUsize::new(0),
        })
    }
}

impl Extension for Scripted {
    fn name(&self) -> &str {
        self.name
    }

    fn before_compact<'a>(
        &'a self,
        _event: &'a BeforeCompactEvent<'_>,
    ) -> HookFuture<'a, Decision> {
        self.before_calls.fetch_add(1, Ordering::SeqCst);
        let behaviour = self.behaviour.clone();
        Box::pin(async move {
            match behaviour {
                Behaviour::Answer(decision) => Ok(decision),
                Behaviour::Fail => Err(ExtensionError::Failed("model quota exhausted".into())),
                Behaviour::Panic => panic!("extension bug"),
                Behaviour::Hang => {
                    std::future::pending::<()>().await;
                    Ok(Decision::carry_on())
                }
            }
        })
    }

    fn after_compact<'a>(&'a self, _event: &'a AfterCompactEvent<'_>) -> HookFuture<'a, ()> {
        self.after_calls.fetch_add(1, Ordering::SeqCst);
        Box::pin(async { Ok(()) })
    }
}

fn replace(summary: &str) -> Decision {
    Decision::Replace(Replacement::new(summary))
}

#[tokio::test]
async fn cancel_decision_names_the_extension_and_reason() {
    let (session, preparation) = git_session();
    let settings = settings();
    let extensions = Extensions::new().with(Scripted::new(
        "guard",
        Behaviour::Answer(Decision::Cancel { reason: "session is frozen".into() }),
    ));
    let result = extensions.decide_compaction(&event(&session, &preparation, &settings)).await;
    assert_eq!(
        result.decision,
        CompactionDecision::Cancelled {
            reason: "session is frozen".into(),
            extension: "guard".into()
        }
    );
    assert!(result.warnings.is_empty());
}

#[tokio::test]
async fn replace_resolves_to_a_from_hook_entry_with_the_extensions_details() {
    let (session, preparation) = git_session();
    let settings = settings();
    let decision = Decision::Replace(Replacement {
        details: Some(json!({"tickets": ["T-1"]})),
        usage: Some(json!({"input": 10, "output": 5})),
        ..Replacement::new("Custom summary.")
    });
    let extensions = Extensions::new().with(Scripted::new("tickets", Behaviour::Answer(decision)));
    let result = extensions.decide_compaction(&event(&session, &preparation, &settings)).await;
    let CompactionDecision::Replaced { replacement, extension } = result.decision else {
        panic!("expected a replacement, got {:?}", result.decision)
    };
    assert_eq!(extension, "tickets");
    assert_eq!(
        Value::Object(replacement.entry_fields()),
        json!({
            "type": "compaction",
            "summary": "Custom summary.",
            "firstKeptEntryId": "u3",
            "tokensBefore": 800,
            "details": {"tickets": ["T-1"]},
            "usage": {"input": 10, "output": 5},
            "fromHook": true,
        })
    );
}

#[test]
fn seed_shape_keeps_the_contiguous_run_and_preserves_the_rest_in_order() {
    let (session, preparation) = git_session();
    let replacement = Replacement {
        kept_message_ids: Some(vec!["b1".into(), "a1".into(), "t1".into()]),
        ..Replacement::new("Condensed history.")
    };
    let resolved = resolve_replacement(&session, &preparation, replacement).unwrap();
    // b1 sits directly before the cut (u3), so the kept part grows back to it; a1 and t1
    // are separated from it by u2 and a2 and are rendered, in path order.
    assert_eq!(resolved.first_kept_entry_id, "b1");
    assert_eq!(resolved.preserved_message_ids, ["a1", "t1"]);
    assert_eq!(
        resolved.summary,
        format!(
            "Condensed history.\n\n{PRESERVED_HEADING}\n\n<tool-call name=\"bash\">\n{{\"command\":\"git status --short\"}}\n</tool-call>\n\n<tool-result name=\"bash\">\n M src/lib.rs\n</tool-result>"
        )
    );
    assert_eq!(resolved.tokens_before, 800);
}

#[test]
fn kept_part_never_starts_with_a_tool_result() {
    let (session, preparation) = git_session();
    let replacement = Replacement {
        kept_message_ids: Some(["t1", "u2", "a2", "b1"].map(String::from).to_vec()),
        ..Replacement::new("S")
    };
    let resolved = resolve_replacement(&session, &preparation, replacement).unwrap();
    assert_eq!(resolved.first_kept_entry_id, "u2");
    assert_eq!(resolved.preserved_message_ids, ["t1"]);
}

#[test]
fn explicit_first_kept_entry_may_be_the_leaf() {
    let (session, preparation) = git_session();
    let replacement = Replacement {
        first_kept_entry_id: Some("a3".into()),
        tokens_before: Some(42),
        ..Replacement::new("S")
    };
    let resolved = resolve_replacement(&session, &preparation, replacement).unwrap();
    assert_eq!((resolved.first_kept_entry_id.as_str(), resolved.tokens_before), ("a3", 42));
}

#[test]
fn invalid_replacements_are_rejected_with_the_reason() {
    let (session, preparation) = git_session();
    let check = |replacement: Replacement, expected: InvalidReplacement| {
        assert_eq!(resolve_replacement(&session, &preparation, replacement), Err(expected));
    };
    let first_kept =
        |id: &str| Replacement { first_kept_entry_id: Some(id.into()), ..Replacement::new("S") };
    check(first_kept("nope"), InvalidReplacement::FirstKeptNotOnPath("nope".into()));
    check(first_kept("t1"), InvalidReplacement::FirstKeptIsToolResult("t1".into()));
    check(
        Replacement { kept_message_ids: Some(vec!["zz".into()]), ..Replacement::new("S") },
        InvalidReplacement::KeptMessageNotInRegion("zz".into()),
    );
    check(Replacement::new(" \n"), InvalidReplacement::EmptySummary);

    let (session, preparation) = prepared(&format!("{GIT_SESSION}{COMPACTED_SESSION_TAIL}"));
    assert_eq!(preparation.first_kept_entry_id, "u5");
    assert_eq!(
        resolve_replacement(&session, &preparation, first_kept("u1")),
        Err(InvalidReplacement::FirstKeptBeforeRegion("u1".into()))
    );
    // u2 starts the region (the previous compaction kept it): keeping from there is allowed.
    assert_eq!(
        resolve_replacement(&session, &preparation, first_kept("u2")).unwrap().first_kept_entry_id,
        "u2"
    );
    let outside =
        Replacement { kept_message_ids: Some(vec!["a1".into()]), ..Replacement::new("S") };
    assert_eq!(
        resolve_replacement(&session, &preparation, outside),
        Err(InvalidReplacement::KeptMessageNotInRegion("a1".into()))
    );
}

#[tokio::test]
async fn invalid_replacement_falls_back_to_the_built_in_summary_with_a_warning() {
    let (session, preparation) = git_session();
    let settings = settings();
    let decision = Decision::Replace(Replacement {
        first_kept_entry_id: Some("missing".into()),
        ..Replacement::new("S")
    });
    let extensions = Extensions::new().with(Scripted::new("sloppy", Behaviour::Answer(decision)));
    let result = extensions.decide_compaction(&event(&session, &preparation, &settings)).await;
    assert_eq!(
        result.decision,
        CompactionDecision::BuiltIn { instructions: Some("Keep it short.".into()) }
    );
    assert_eq!(result.warnings.len(), 1);
    assert_eq!(result.warnings[0].extension, "sloppy");
    assert!(result.warnings[0].message.contains("missing"), "{}", result.warnings[0]);
}

async fn falls_back_with_one_warning(extension: Arc<dyn Extension>, expected_text: &str) {
    let (session, preparation) = git_session();
    let settings = settings();
    let name = extension.name().to_owned();
    let extensions =
        Extensions::new().with_default_timeout(Duration::from_millis(300)).with(extension);
    let result = extensions.decide_compaction(&event(&session, &preparation, &settings)).await;
    assert_eq!(
        result.decision,
        CompactionDecision::BuiltIn { instructions: Some("Keep it short.".into()) }
    );
    assert_eq!(result.warnings.len(), 1, "{:?}", result.warnings);
    let warning = &result.warnings[0];
    assert_eq!(
        (warning.extension.as_str(), warning.event),
        (name.as_str(), EventName::BeforeCompact)
    );
    assert!(warning.to_string().contains(&name), "{warning}");
    assert!(warning.message.contains(expected_text), "{warning}");
}

#[tokio::test]
async fn erroring_extension_falls_back() {
    falls_back_with_one_warning(Scripted::new("quota", Behaviour::Fail), "model quota exhausted")
        .await;
}

#[tokio::test]
async fn panicking_extension_falls_back() {
    falls_back_with_one_warning(
        Scripted::new("buggy", Behaviour::Panic),
        "panicked: extension bug",
    )
    .await;
}

#[tokio::test]
async fn hanging_extension_times_out_and_falls_back() {
    falls_back_with_one_warning(
        Scripted::new("stuck", Behaviour::Hang),
        "did not answer within 300 ms",
    )
    .await;
}

#[tokio::test]
async fn garbage_printing_process_falls_back() {
    let extension = ProcessExtension::shell("cat > /dev/null; echo 'Sure! Here is a summary:'");
    falls_back_with_one_warning(Arc::new(extension), "printed an invalid decision").await;
}

#[tokio::test]
async fn failing_process_falls_back_with_its_stderr() {
    let extension = ProcessExtension::shell("cat > /dev/null; echo 'no config' >&2; exit 3");
    falls_back_with_one_warning(Arc::new(extension), "no config").await;
}

#[tokio::test]
async fn hanging_process_is_killed_at_its_time_limit() {
    let extension = ProcessExtension {
        timeout: Some(Duration::from_millis(200)),
        ..ProcessExtension::shell("exec sleep 30")
    };
    falls_back_with_one_warning(Arc::new(extension), "did not answer within 200 ms").await;
}

#[tokio::test]
async fn first_decisive_extension_wins_and_after_hooks_reach_all() {
    let (session, preparation) = git_session();
    let settings = settings();
    let steer = Scripted::new(
        "steer",
        Behaviour::Answer(Decision::Continue { instructions: Some("Mention the tests.".into()) }),
    );
    let broken = Scripted::new("broken", Behaviour::Fail);
    let writer = Scripted::new("writer", Behaviour::Answer(replace("From writer.")));
    let late = Scripted::new("late", Behaviour::Answer(replace("From late.")));
    let extensions = Extensions::new()
        .with(steer.clone())
        .with(broken.clone())
        .with(writer.clone())
        .with(late.clone());
    let outcome = extensions.before_compact(&event(&session, &preparation, &settings)).await;
    assert_eq!(outcome.decision, replace("From writer."));
    assert_eq!(outcome.decided_by.as_deref(), Some("writer"));
    assert_eq!(outcome.instructions.as_deref(), Some("Mention the tests."));
    assert_eq!(
        outcome.warnings.iter().map(|w| w.extension.as_str()).collect::<Vec<_>>(),
        ["broken"]
    );
    assert_eq!(late.before_calls.load(Ordering::SeqCst), 0);

    let entry = json!({"type": "compaction", "summary": "From writer."});
    let after = AfterCompactEvent {
        entry: &entry,
        from_extension: true,
        decided_by: Some("writer"),
        reason: CompactionReason::Manual,
        settings: &settings,
        cancel: Default::default(),
    };
    assert!(extensions.after_compact(&after).await.is_empty());
    for extension in [&steer, &broken, &writer, &late] {
        assert_eq!(extension.after_calls.load(Ordering::SeqCst), 1, "{}", extension.name);
    }
}

#[tokio::test]
async fn continuing_extensions_add_instructions_to_the_users() {
    let (session, preparation) = git_session();
    let settings = settings();
    let add = |name, text: &str| {
        Scripted::new(
            name,
            Behaviour::Answer(Decision::Continue { instructions: Some(text.into()) }),
        )
    };
    let extensions =
        Extensions::new().with(add("one", "First focus.")).with(add("two", "Second focus."));
    let result = extensions.decide_compaction(&event(&session, &preparation, &settings)).await;
    assert_eq!(
        result.decision,
        CompactionDecision::BuiltIn {
            instructions: Some("Keep it short.\n\nFirst focus.\n\nSecond focus.".into())
        }
    );
}

#[tokio::test]
async fn branch_summary_replacement_preserves_kept_messages() {
    let session = compaction_core::parse_session(GIT_SESSION.as_bytes());
    let settings = settings();
    // Leaving a3 for u2: the abandoned entries are a2 .. a3.
    let entries: Vec<usize> =
        ["a2", "b1", "u3", "a3"].iter().map(|id| session.index_of(id).unwrap()).collect();
    let decision = Decision::Replace(Replacement {
        kept_message_ids: Some(vec!["b1".into()]),
        details: Some(json!({"preservedGitOps": 1})),
        ..Replacement::new("Left a branch.")
    });
    let extension = Scripted::new("unused", Behaviour::Fail);
    struct BranchWriter(Decision);
    impl Extension for BranchWriter {
        fn name(&self) -> &str {
            "branch-writer"
        }
        fn before_branch_summary<'a>(
            &'a self,
            _event: &'a BeforeBranchSummaryEvent<'_>,
        ) -> HookFuture<'a, Decision> {
            let decision = self.0.clone();
            Box::pin(async move { Ok(decision) })
        }
    }
    let ids: Vec<String> = ["a2", "b1", "u3", "a3"].map(String::from).to_vec();
    let event = BeforeBranchSummaryEvent {
        session: &session,
        old_leaf_id: "a3",
        target_id: "u2",
        common_ancestor_id: Some("u2"),
        entries: &entries,
        messages: &[],
        message_entry_ids: &ids,
        read_files: &[],
        modified_files: &[],
        custom_instructions: None,
        settings: &settings,
        cancel: Default::default(),
    };
    // A compaction-only extension (default branch hook) does not decide.
    let result = Extensions::new()
        .with(extension)
        .with(Arc::new(BranchWriter(decision)))
        .decide_branch_summary(&event)
        .await;
    assert!(result.warnings.is_empty(), "{:?}", result.warnings);
    let BranchSummaryDecision::Replaced { replacement, extension } = result.decision else {
        panic!("expected a replacement, got {:?}", result.decision)
    };
    assert_eq!(extension, "branch-writer");
    assert_eq!(
        Value::Object(replacement.entry_fields("a3")),
        json!({
            "type": "branch_summary",
            "fromId": "a3",
            "summary": format!("Left a branch.\n\n{PRESERVED_HEADING}\n\n<user kind=\"shell\">\nThe user ran a shell command:\n$ git log --oneline -3\nabc123 fix test\n[exit code 0]\n</user>"),
            "details": {"preservedGitOps": 1},
            "fromHook": true,
        })
    );
    assert_eq!(
        resolve_branch_replacement(
            &session,
            &entries,
            Replacement { first_kept_entry_id: Some("u3".into()), ..Replacement::new("S") }
        ),
        Err(InvalidReplacement::FirstKeptInBranchSummary)
    );
}

#[test]
fn details_of_a_compaction_from_an_extension_do_not_feed_the_built_in_file_lists() {
    let with_details = |from_hook: bool| {
        let tail = COMPACTED_SESSION_TAIL.replace(
            r#""tokensBefore":800}"#,
            &format!(
                r#""tokensBefore":800,"details":{{"readFiles":["notes.md"],"modifiedFiles":["src/x.rs"]}},"fromHook":{from_hook}}}"#
            ),
        );
        let (_, preparation) = prepared(&format!("{GIT_SESSION}{tail}"));
        (preparation.read_files(), preparation.modified_files())
    };
    assert_eq!(with_details(false), (vec!["notes.md".to_owned()], vec!["src/x.rs".to_owned()]));
    assert_eq!(with_details(true), (Vec::<String>::new(), Vec::<String>::new()));
}

#[tokio::test]
async fn preserved_messages_are_redacted_with_the_configured_secrets() {
    let (session, preparation) = git_session();
    let settings = settings();
    let decision = Decision::Replace(Replacement {
        kept_message_ids: Some(vec!["a1".into()]),
        ..Replacement::new("S")
    });
    let result = Extensions::new()
        .with_redactor(compaction_core::serialize::Redactor::new(["git status --short".to_owned()]))
        .with(Scripted::new("keeper", Behaviour::Answer(decision)))
        .decide_compaction(&event(&session, &preparation, &settings))
        .await;
    let CompactionDecision::Replaced { replacement, .. } = result.decision else {
        panic!("expected a replacement, got {:?}", result.decision)
    };
    assert_eq!(replacement.preserved_message_ids, ["a1"]);
    assert!(replacement.summary.contains("[REDACTED]"), "{}", replacement.summary);
    assert!(!replacement.summary.contains("git status --short"), "{}", replacement.summary);
}
