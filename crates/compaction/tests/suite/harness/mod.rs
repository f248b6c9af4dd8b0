//! The agent-loop harness against a mock OpenAI-compatible server: automatic compaction over
//! a long run, overflow recovery, the loop guard, backoff, abort, model switches, navigation
//! and the example's chat loop.
//! Failures, abort and extensions are in `guard`.

mod guard;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use compaction::compact::CompactionReason;
use compaction::error::SummarizerError;
use compaction::harness::chat::{ChatOptions, call_model, chat_loop, user_message};
use compaction::harness::{
    ChatModel, CompactingSession, HarnessError, HarnessEvent, HarnessSettings,
};
use compaction::offline::OfflineSummarizer;
use compaction::provider::{ApiKey, LlmSummarizer, ProviderClient, ProviderConfig, ProviderKind};
use compaction::store::{FsyncPolicy, OpenOptions, SessionStore};
use compaction::summarizer::{Summarizer, SummaryProgress, SummaryRequest, SummaryResponse};
use compaction_core::diagnostic::Severity;
use compaction_core::message::{
    AssistantMessage, Content, ContentBlock, Extra, ToolCall, ToolResultMessage,
};
use compaction_core::settings::CompactionSettings;
use compaction_core::tokens::{TokenEstimator, estimator_by_name};
use compaction_core::{AgentMessage, EntryKind, parse_session};
use futures_util::future::BoxFuture;
use serde_json::{Value, json};
use tokio::sync::broadcast;
use tokio_util::sync::CancellationToken;

use super::mock_server::{MockServer, Reply};

const CHAT_MODEL: &str = "chat-model";
const SUMMARY_MODEL: &str = "summary-model";
const OVERFLOW: &str = r#"{"error":{"message":"This model's maximum context length is 12000 tokens. However, your messages resulted in 13021 tokens.","type":"invalid_request_error","param":"messages","code":"context_length_exceeded"}}"#;

fn estimator() -> Box<dyn TokenEstimator> {
    estimator_by_name("pi").unwrap()
}

fn settings(keep_recent_tokens: u64, reserve_tokens: u64) -> CompactionSettings {
    CompactionSettings {
        keep_recent_tokens,
        reserve_tokens,
        min_turns_to_keep: 1,
        max_summary_tokens: 800,
        estimator: "pi".to_owned(),
        ..CompactionSettings::default()
    }
}

fn new_store(dir: &Path) -> (SessionStore, PathBuf) {
    let path = dir.join("session.jsonl");
    let options = OpenOptions { fsync: FsyncPolicy::Never, ..OpenOptions::for_writing() };
    let (store, _) = SessionStore::create(&path, "/work/project", options).unwrap();
    (store, path)
}

fn session(
    dir: &Path,
    settings: CompactionSettings,
    window: u64,
    summarizer: Box<dyn Summarizer>,
) -> (CompactingSession, PathBuf) {
    let (store, path) = new_store(dir);
    let model = ChatModel::new("openai", CHAT_MODEL, Some(window));
    (CompactingSession::new(store, settings, model, summarizer, estimator()), path)
}

fn client(server: &MockServer, model: &str) -> ProviderClient {
    let mut config = ProviderConfig::new(ProviderKind::OpenAi, model);
    config.base_url = Some(format!("{}/v1", server.url()));
    config.max_retries = 0;
    config.idle_timeout = Duration::from_secs(5);
    ProviderClient::new(config, ApiKey::new("sk-harness-test")).unwrap()
}

fn sse(data: &Value) -> String {
    format!("data: {data}\n\n")
}

/// A streamed chat reply writing `text` in two deltas.
fn chat_reply(text: &str) -> Reply {
    let (first, second) = text.split_at(text.len() / 2);
    Reply::stream(vec![
        sse(&json!({"choices":[{"index":0,"delta":{"role":"assistant","content":first}}]})),
        sse(&json!({"choices":[{"index":0,"delta":{"content":second}}]})),
        sse(&json!({"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]})),
        "data: [DONE]\n\n".to_owned(),
    ])
}

/// Prose of about `chars` characters, different for each `seed`.
fn prose(seed: usize, chars: usize) -> String {
    let mut text = String::new();
    let mut n = seed;
    while text.len() < chars {
        text.push_str(&format!(
            "Step {n}: checked module_{n}.rs and noted result {}. ",
            n * 7 % 13
        ));
        n += 1;
    }
    text.truncate(chars);
    text
}

fn user_text(message: &AgentMessage) -> String {
    let AgentMessage::User(user) = message else {
        panic!("expected a user message, got {message:?}");
    };
    user.content.joined_text()
}

fn assert_valid(path: &Path) {
    let session = parse_session(&std::fs::read(path).unwrap());
    let bad: Vec<String> = session
        .diagnostics()
        .iter()
        .filter(|d| d.severity() >= Severity::Warning)
        .map(ToString::to_string)
        .collect();
    assert!(bad.is_empty(), "{bad:?}");
}

fn compactions(path: &Path) -> Vec<compaction_core::Entry> {
    let session = parse_session(&std::fs::read(path).unwrap());
    session
        .entries()
        .iter()
        .filter(|entry| matches!(entry.kind, EntryKind::Compaction(_)))
        .cloned()
        .collect()
}

/// Compaction entries in the harness's own view of the session.
fn compaction_count(session: &CompactingSession) -> usize {
    let entries = session.store().session().entries();
    entries.iter().filter(|entry| matches!(entry.kind, EntryKind::Compaction(_))).count()
}

fn drain(events: &mut broadcast::Receiver<HarnessEvent>) -> Vec<HarnessEvent> {
    let mut out = Vec::new();
    while let Ok(event) = events.try_recv() {
        out.push(event);
    }
    out
}

/// Estimated tokens of a chat request body as the server received it.
fn request_tokens(body: &Value, estimator: &dyn TokenEstimator) -> u64 {
    body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|message| estimator.text_tokens(message["content"].as_str().unwrap()))
        .sum()
}

/// Appends `turns` exchanges: a user message of `chars` characters and a short reply (so
/// a cut by size lands on a user message and no turn is split).
fn fill(session: &mut CompactingSession, turns: usize, chars: usize) {
    for turn in 0..turns {
        session.append_message(&user_message(&prose(turn, chars))).unwrap();
        session.append_message(&assistant(&format!("noted {turn}"))).unwrap();
    }
}

fn assistant(text: &str) -> AgentMessage {
    AgentMessage::Assistant(AssistantMessage {
        content: vec![ContentBlock::text(text)],
        provider: Some("openai".into()),
        model: Some(CHAT_MODEL.into()),
        usage: None,
        stop_reason: Some("stop".into()),
        error_message: None,
        extra: Extra::new(),
    })
}

#[tokio::test]
async fn two_hundred_turns_stay_inside_the_window() {
    const WINDOW: u64 = 12_000;
    let server = MockServer::start().await;
    server.always(chat_reply(&prose(1, 1200)));
    let chat = client(&server, CHAT_MODEL);
    let dir = tempfile::tempdir().unwrap();
    let (mut session, path) =
        session(dir.path(), settings(2000, 2000), WINDOW, Box::new(OfflineSummarizer));
    let estimator = estimator();
    let mut fired_turns = 0;
    for turn in 0..200 {
        session
            .append_message(&user_message(&format!("Turn {turn}: look at the next file.")))
            .unwrap();
        let fired = session.should_compact();
        let before = compaction_count(&session);
        let reply = session
            .run_turn(|context| {
                let chat = &chat;
                async move {
                    let mut reply = call_model(
                        chat,
                        "openai",
                        "",
                        1024,
                        &context,
                        &CancellationToken::new(),
                        &|_| {},
                    )
                    .await?;
                    // The model "calls a tool" in every reply.
                    if let AgentMessage::Assistant(message) = &mut reply {
                        message.content.push(ContentBlock::ToolCall(ToolCall {
                            id: format!("call-{turn}"),
                            name: "read".into(),
                            arguments: json!({"path": format!("src/module_{turn}.rs")}),
                            extra: Extra::new(),
                        }));
                        message.stop_reason = Some("toolUse".into());
                    }
                    Ok::<_, SummarizerError>(reply)
                }
            })
            .await
            .unwrap();
        assert!(matches!(reply, AgentMessage::Assistant(_)));
        let after = compaction_count(&session);
        assert_eq!(after > before, fired, "turn {turn}: trigger said {fired}");
        fired_turns += usize::from(fired);
        session
            .append_message(&AgentMessage::ToolResult(ToolResultMessage {
                tool_call_id: format!("call-{turn}"),
                tool_name: "read".into(),
                content: Content::Text(prose(turn * 31, 2400)),
                is_error: false,
                extra: Extra::new(),
            }))
            .unwrap();
    }
    let requests = server.requests();
    assert_eq!(requests.len(), 200);
    for (turn, request) in requests.iter().enumerate() {
        assert_eq!(request.body["model"], CHAT_MODEL);
        let tokens = request_tokens(&request.body, estimator.as_ref());
        assert!(tokens <= WINDOW, "turn {turn}: {tokens} tokens sent");
    }
    let written = compactions(&path);
    assert!(written.len() >= 10, "only {} compactions", written.len());
    assert_eq!(written.len(), fired_turns);
    assert_valid(&path);
    let summary = written.last().unwrap().kind.as_compaction().unwrap().summary.clone();
    let context = session.context();
    assert!(user_text(&context[0]).contains(&summary));
}

#[tokio::test]
async fn overflow_compacts_once_with_the_summary_model_and_retries() {
    let server = MockServer::start().await;
    let chat = client(&server, CHAT_MODEL);
    let summarizer = LlmSummarizer::new(client(&server, SUMMARY_MODEL)).with_context_window(50_000);
    let dir = tempfile::tempdir().unwrap();
    let (mut session, path) =
        session(dir.path(), settings(300, 2000), 100_000, Box::new(summarizer));
    fill(&mut session, 6, 2000);
    session.append_message(&user_message("and now?")).unwrap();
    let mut events = session.subscribe();
    server.push(Reply::status(400, OVERFLOW));
    // A summary the quality gate passes: the checkpoint's structure and the latest request.
    let request = compaction_core::quality::opening(&prose(4, 2000));
    server.push(chat_reply(&format!(
        "## Goal\nA summary written by the summary model.\nLatest request: \"{request}\"\n\n\
         ## Next Steps\n- Answer."
    )));
    server.push(chat_reply("The answer after compacting."));
    let call = |context: Vec<AgentMessage>| {
        let chat = &chat;
        async move {
            call_model(chat, "openai", "", 512, &context, &CancellationToken::new(), &|_| {}).await
        }
    };
    let reply = session.run_turn(call).await.unwrap();
    assert_eq!(reply, session.context().last().cloned().unwrap());
    let requests = server.requests();
    let models: Vec<&str> = requests.iter().map(|r| r.body["model"].as_str().unwrap()).collect();
    assert_eq!(models, [CHAT_MODEL, SUMMARY_MODEL, CHAT_MODEL]);
    let estimator = estimator();
    assert!(
        request_tokens(&requests[2].body, estimator.as_ref())
            < request_tokens(&requests[0].body, estimator.as_ref())
    );
    assert_eq!(compactions(&path).len(), 1);
    let events = drain(&mut events);
    assert!(matches!(
        events[0],
        HarnessEvent::CompactionStarted { reason: CompactionReason::Overflow, .. }
    ));
    assert!(matches!(
        &events[1],
        HarnessEvent::CompactionFinished { reason: CompactionReason::Overflow, result: Ok(_) }
    ));

    // A second overflow after the recovery is surfaced, and no failed reply is appended.
    session.append_message(&user_message("more")).unwrap();
    fill(&mut session, 4, 2000);
    session.append_message(&user_message("still there?")).unwrap();
    server.push(Reply::status(400, OVERFLOW));
    let requests: Vec<String> =
        (0..4).map(|turn| compaction_core::quality::opening(&prose(turn, 2000))).collect();
    server.push(chat_reply(&format!(
        "## Goal\nSecond summary.\nLatest request: \"{}\"\n\n## Next Steps\n- Answer.",
        requests.join("\" or \"")
    )));
    server.push(Reply::status(400, OVERFLOW));
    let entries_before = parse_session(&std::fs::read(&path).unwrap()).entries().len();
    let error = session.run_turn(call).await.unwrap_err();
    assert!(
        matches!(error, HarnessError::ContextOverflow { after_compaction: true, .. }),
        "{error}"
    );
    assert_eq!(server.requests().len(), 6);
    let after = parse_session(&std::fs::read(&path).unwrap());
    assert_eq!(after.entries().len(), entries_before + 1, "only the compaction is written");
    assert_eq!(compactions(&path).len(), 2);
    assert_valid(&path);
}

#[tokio::test]
async fn an_ineffective_compaction_stops_automatic_compaction() {
    let dir = tempfile::tempdir().unwrap();
    // The last turn alone (~3 500 tokens) cannot fit under 75% of a 4 000-token window.
    let (mut session, path) =
        session(dir.path(), settings(100, 500), 4000, Box::new(OfflineSummarizer));
    fill(&mut session, 3, 400);
    fill(&mut session, 1, 14_000);
    let error = session.prepare_next_turn().await.unwrap_err();
    let HarnessError::CompactionIneffective { tokens, limit, window, keep_recent_tokens } = &error
    else {
        panic!("expected the loop guard, got {error}");
    };
    assert!(tokens > limit, "{tokens} {limit}");
    assert_eq!((*window, *keep_recent_tokens), (4000, 100));
    assert!(error.to_string().contains("Lower keepRecentTokens"), "{error}");
    let length = std::fs::metadata(&path).unwrap().len();
    let mut events = session.subscribe();
    // Later turns do not compact again.
    for _ in 0..3 {
        assert!(!session.prepare_next_turn().await.unwrap().is_empty());
    }
    assert_eq!(std::fs::metadata(&path).unwrap().len(), length);
    assert!(drain(&mut events).iter().all(|e| matches!(e, HarnessEvent::CompactionSkipped { .. })));
}

/// The harness built as the commands and workers build what they run with: a project's
/// settings file, resolved by `Setup`, reaches the automatic compaction.
#[tokio::test]
async fn a_session_built_from_a_setup_compacts_with_the_projects_settings() {
    use compaction::settings::{SettingsPaths, load_settings};
    use compaction::setup::{ExtensionChoice, Setup, SummarizerChoice};
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path().join("project");
    std::fs::create_dir_all(project.join(".pi")).unwrap();
    std::fs::write(
        project.join(".pi/settings.json"),
        r#"{"compaction":{"keepRecentTokens":300,"reserveTokens":500,"minTurnsToKeep":1,
            "maxSummaryTokens":800,"estimator":"pi","contextWindow":16000}}"#,
    )
    .unwrap();
    let paths = SettingsPaths::new(&project, Some(&dir.path().join("home")), None);
    let resolved = load_settings(&paths, |_| None, &Default::default()).unwrap();
    let offline = SummarizerChoice { offline: true, ..SummarizerChoice::default() };
    let toolkit = Setup::from_resolved(resolved, &project)
        .toolkit(&offline, &ExtensionChoice::none(), None, None)
        .unwrap();
    assert_eq!(toolkit.context_window, 16_000);
    let (store, path) = new_store(dir.path());
    let model = ChatModel::new("openai", CHAT_MODEL, Some(toolkit.context_window));
    let mut session =
        CompactingSession::from_toolkit(store, model, toolkit, HarnessSettings::default());
    assert_eq!(session.settings().keep_recent_tokens, 300);
    assert_eq!(session.settings().estimator, "pi");
    fill(&mut session, 3, 400);
    session.prepare_next_turn().await.unwrap();
    assert_eq!(compaction_count(&session), 0, "under the trigger of 15 500 tokens");
    fill(&mut session, 10, 8_000);
    session.prepare_next_turn().await.unwrap();
    assert_eq!(compaction_count(&session), 1);
    assert!(session.context_tokens() <= 15_500, "{}", session.context_tokens());
    assert_valid(&path);
}

#[tokio::test]
async fn navigation_moves_the_leaf_and_summarizes_the_branch() {
    let dir = tempfile::tempdir().unwrap();
    let (mut session, path) =
        session(dir.path(), settings(300, 500), 100_000, Box::new(OfflineSummarizer));
    let first = session.append_message(&user_message("start here")).unwrap();
    session.append_message(&assistant("fine")).unwrap();
    fill(&mut session, 3, 500);
    let mut events = session.subscribe();
    let summary = session.navigate(&first.id, true).await.unwrap().unwrap();
    assert_eq!(session.leaf_id(), Some(summary.id.as_str()));
    let events = drain(&mut events);
    assert!(matches!(events[0], HarnessEvent::BranchSummaryStarted { .. }));
    assert!(matches!(&events[1], HarnessEvent::BranchSummaryFinished { result: Ok(Some(_)) }));
    let next = session.append_message(&user_message("another way")).unwrap();
    let stored = parse_session(&std::fs::read(&path).unwrap());
    assert_eq!(stored.get(&next.id).unwrap().parent_id.as_deref(), Some(summary.id.as_str()));
    let context = session.context();
    assert_eq!(context.len(), 3, "first message, branch summary, new message");
    assert_valid(&path);
}

#[tokio::test]
async fn the_chat_loop_streams_replies_and_compacts() {
    let server = MockServer::start().await;
    server.always(chat_reply(&prose(5, 1600)));
    let chat = client(&server, CHAT_MODEL);
    let dir = tempfile::tempdir().unwrap();
    let (mut session, path) =
        session(dir.path(), settings(800, 1000), 4000, Box::new(OfflineSummarizer));
    let prompts: String = (0..18).map(|n| format!("prompt number {n}\n\n")).collect();
    let input = format!("{prompts}/compact\nlast prompt\n");
    let options = ChatOptions { system_prompt: "Be brief.".into(), max_output_tokens: 256 };
    let mut output = Vec::new();
    let stats =
        chat_loop(&mut session, &chat, &options, input.as_bytes(), &mut output).await.unwrap();
    let output = String::from_utf8(output).unwrap();
    assert_eq!(stats.turns, 19);
    assert_eq!(stats.failed_turns, 0);
    let notices: Vec<&str> = output.lines().filter(|line| line.starts_with('[')).collect();
    assert!(stats.compactions >= 3, "{notices:?}");
    assert_eq!(output.matches(&prose(5, 1600)).count(), 19);
    assert!(output.contains("[compacted (threshold): "), "{notices:?}");
    assert!(output.contains("[compacted (manual): "), "{notices:?}");
    let requests = server.requests();
    assert_eq!(requests.len(), 19);
    assert_eq!(requests[0].body["messages"][0], json!({"role": "system", "content": "Be brief."}));
    assert_eq!(
        requests[0].body["messages"][1],
        json!({"role": "user", "content": "prompt number 0"})
    );
    assert_eq!(compactions(&path).len(), stats.compactions);
    assert_valid(&path);
}

#[tokio::test]
async fn an_overflow_with_nothing_to_compact_is_surfaced_without_a_retry() {
    let server = MockServer::start().await;
    let chat = client(&server, CHAT_MODEL);
    let dir = tempfile::tempdir().unwrap();
    let (mut session, path) =
        session(dir.path(), settings(300, 500), 100_000, Box::new(OfflineSummarizer));
    session.append_message(&user_message(&prose(0, 4000))).unwrap();
    let bytes = std::fs::read(&path).unwrap();
    server.push(Reply::status(400, OVERFLOW));
    let error = session
        .run_turn(|context| {
            let chat = &chat;
            async move {
                call_model(chat, "openai", "", 64, &context, &CancellationToken::new(), &|_| {})
                    .await
            }
        })
        .await
        .unwrap_err();
    assert!(
        matches!(error, HarnessError::ContextOverflow { after_compaction: false, .. }),
        "{error}"
    );
    assert!(error.to_string().contains("maximum context length is 12000"), "{error}");
    assert_eq!(server.requests().len(), 1);
    assert_eq!(std::fs::read(&path).unwrap(), bytes);
}

#[tokio::test]
async fn pins_survive_five_successive_compactions_verbatim() {
    use compaction::pins::PinSource;
    let dir = tempfile::tempdir().unwrap();
    let (mut session, path) =
        session(dir.path(), settings(300, 500), 100_000, Box::new(OfflineSummarizer));
    session
        .append_message(&user_message("  Never change the file format.\n  Keep `v3` headers."))
        .unwrap();
    let from_entry = session.leaf_id().unwrap().to_owned();
    session.pin(&PinSource::Entry(from_entry.clone())).unwrap();
    let texted = session.pin(&PinSource::Text("Use rgb values, no indices".into())).unwrap();
    let dropped = session.pin(&PinSource::Text("temporary rule".into())).unwrap();
    session.unpin(std::slice::from_ref(&dropped.id)).unwrap();
    let expected = compaction_core::pins::pins_message_text(&session.pins());
    assert_eq!(session.pins().len(), 2);
    for round in 0..5 {
        fill(&mut session, 6, 600);
        session.compact(None).await.unwrap();
        let context = session.context();
        assert!(
            matches!(&context[0], AgentMessage::User(_))
                && user_text(&context[0]).contains("<summary>"),
            "round {round}: the summary does not come first"
        );
        assert_eq!(user_text(&context[1]), expected, "round {round}");
        assert!(
            user_text(&context[1])
                .contains("\n  Never change the file format.\n  Keep `v3` headers.\n")
        );
    }
    assert_eq!(compactions(&path).len(), 5);
    // Reading the file again gives the same pins.
    let reread = parse_session(&std::fs::read(&path).unwrap());
    let pins = compaction_core::pins::active_pins(&reread, reread.leaf());
    assert_eq!(pins.iter().map(|p| p.id.as_str()).collect::<Vec<_>>()[1], texted.id);
    assert_eq!(pins[0].source_entry_id.as_deref(), Some(from_entry.as_str()));
    assert!(session.unpin(&["not-a-pin".into()]).is_err());
    assert_valid(&path);
}

#[tokio::test]
async fn after_a_compaction_the_recently_modified_files_are_read_back() {
    let dir = tempfile::tempdir().unwrap();
    let cwd = dir.path().join("project");
    std::fs::create_dir_all(cwd.join("src")).unwrap();
    std::fs::write(cwd.join("src/a.rs"), "pub fn current() {}\n").unwrap();
    let options = OpenOptions { fsync: FsyncPolicy::Never, ..OpenOptions::for_writing() };
    let path = dir.path().join("session.jsonl");
    let (store, _) = SessionStore::create(&path, &cwd.to_string_lossy(), options).unwrap();
    let model = ChatModel::new("openai", CHAT_MODEL, Some(100_000));
    let mut session = CompactingSession::new(
        store,
        settings(300, 500),
        model,
        Box::new(OfflineSummarizer),
        estimator(),
    );
    let mut events = session.subscribe();
    session.append_message(&user_message("Rewrite src/a.rs")).unwrap();
    let message = |value: Value| serde_json::from_value::<AgentMessage>(value).unwrap();
    session
        .append_message(&message(json!({"role":"assistant","content":[
            {"type":"toolCall","id":"e1","name":"edit","arguments":{"path":"src/a.rs"}}]})))
        .unwrap();
    session
        .append_message(&message(json!({"role":"toolResult","toolCallId":"e1","toolName":"edit",
            "content":[{"type":"text","text":"ok"}],"isError":false})))
        .unwrap();
    fill(&mut session, 6, 600);
    session.compact(None).await.unwrap();
    let restored = drain(&mut events)
        .into_iter()
        .find_map(|event| {
            if let HarnessEvent::FilesRestored(outcome) = event { Some(outcome) } else { None }
        })
        .expect("no FilesRestored event");
    assert_eq!(restored.restored.iter().map(|f| f.path.as_str()).collect::<Vec<_>>(), ["src/a.rs"]);
    let context = session.context();
    let last = user_text(context.last().unwrap());
    assert!(last.contains("<file path=\"src/a.rs\">\npub fn current() {}\n</file>"), "{last}");
    // New messages go after the restored files.
    assert_eq!(session.leaf_id(), restored.entry.as_ref().map(|entry| entry.id.as_str()));
    assert_valid(&path);
}
