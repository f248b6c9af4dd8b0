//! Extensions as child processes: the protocol round trip, a clean environment, the
//! example extensions in Python and Rust, the JSON Schema of events and decisions, and a
//! cancelled operation stopping a running child.

use pretty_assertions::assert_eq;

use super::*;

fn temp_script(dir: &Path, name: &str, body: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, body).unwrap();
    path
}

#[tokio::test]
async fn process_protocol_round_trips_through_a_child() {
    let (session, preparation) = git_session();
    let settings = settings();
    let dir = tempfile::tempdir().unwrap();
    let seen = dir.path().join("event.json");
    let script = temp_script(
        dir.path(),
        "replace.sh",
        r#"cat > "$1"
printf '{"action":"replace","summary":"From a child (%s).","keptMessageIds":["b1"],"details":{"n":1}}' "$COMPACTION_EXTENSION_EVENT"
"#,
    );
    let config: ExtensionConfig = serde_json::from_value(json!({
        "name": "child",
        "command": "sh",
        "args": [script, seen],
        "events": ["before_compact"],
        "timeoutMs": 10_000,
    }))
    .unwrap();
    let extensions = Extensions::new().with(Arc::new(ProcessExtension::from_config(&config)));
    let result = extensions.decide_compaction(&event(&session, &preparation, &settings)).await;
    assert!(result.warnings.is_empty(), "{:?}", result.warnings);
    let CompactionDecision::Replaced { replacement, extension } = result.decision else {
        panic!("expected a replacement, got {:?}", result.decision)
    };
    assert_eq!(extension, "child");
    assert_eq!(replacement.summary, "From a child (before_compact).");
    assert_eq!(replacement.first_kept_entry_id, "b1");
    assert_eq!(replacement.details, Some(json!({"n": 1})));

    let sent: Value = serde_json::from_str(&std::fs::read_to_string(&seen).unwrap()).unwrap();
    assert_eq!(sent["protocol"], 1);
    assert_eq!(sent["event"], "before_compact");
    assert_eq!(sent["session"], json!({"id": "s1", "cwd": "/repo"}));
    assert_eq!(sent["customInstructions"], "Keep it short.");
    assert_eq!(sent["reason"], "threshold");
    let prepared = &sent["preparation"];
    assert_eq!(prepared["firstKeptEntryId"], "u3");
    assert_eq!(prepared["summarizedEntryIds"], json!(["u1", "a1", "t1", "u2", "a2", "b1"]));
    assert_eq!(prepared["tokensBefore"], 800);
    assert_eq!(prepared["isSplitTurn"], false);
    assert_eq!(prepared["settings"], settings);
    let messages: Vec<AgentMessage> =
        serde_json::from_value(prepared["messagesToSummarize"].clone()).unwrap();
    assert_eq!(messages, preparation.messages_to_summarize);
    assert_eq!(sent["branchEntries"].as_array().unwrap().len(), 8);
    assert_eq!(sent["branchEntries"][1]["id"], "a1");

    // The after hook is not among its events: no child runs, no warning.
    let entry = json!({"type": "compaction"});
    let after = AfterCompactEvent {
        entry: &entry,
        from_extension: true,
        decided_by: Some("child"),
        reason: CompactionReason::Manual,
        settings: &settings,
        cancel: Default::default(),
    };
    std::fs::remove_file(&seen).unwrap();
    assert!(extensions.after_compact(&after).await.is_empty());
    assert!(!seen.exists());
}

#[tokio::test]
async fn child_environment_holds_no_credentials_unless_passed() {
    let (session, preparation) = git_session();
    let settings = settings();
    let dir = tempfile::tempdir().unwrap();
    let dump = dir.path().join("env.txt");
    let path = std::env::var("PATH").unwrap_or_default();
    let extension = ProcessExtension {
        pass_env: vec!["ALLOWED_TOKEN".into()],
        ..ProcessExtension::shell(format!("cat > /dev/null; env > '{}'", dump.display()))
    }
    .with_base_env([
        ("PATH", path.as_str()),
        ("HOME", "/home/tester"),
        ("OPENAI_API_KEY", "sk-fake-openai"),
        ("ANTHROPIC_API_KEY", "sk-ant-fake"),
        ("GITHUB_TOKEN", "ghp_fake"),
        ("DB_SECRET", "hunter2"),
        ("ALLOWED_TOKEN", "given-on-purpose"),
    ]);
    let outcome = Extensions::new()
        .with(Arc::new(extension))
        .before_compact(&event(&session, &preparation, &settings))
        .await;
    assert!(outcome.warnings.is_empty(), "{:?}", outcome.warnings);
    let env = std::fs::read_to_string(&dump).unwrap();
    for secret in ["OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GITHUB_TOKEN", "DB_SECRET"] {
        assert!(!env.contains(secret), "{secret} leaked:\n{env}");
    }
    assert!(env.lines().any(|line| line == "ALLOWED_TOKEN=given-on-purpose"), "{env}");
    assert!(env.lines().any(|line| line == "HOME=/home/tester"), "{env}");
    assert!(env.lines().any(|line| line == "COMPACTION_EXTENSION_PROTOCOL=1"), "{env}");
}

fn repository_file(relative: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").join(relative)
}

fn python3_available() -> bool {
    std::process::Command::new("python3")
        .arg("--version")
        .output()
        .is_ok_and(|output| output.status.success())
}

#[tokio::test]
async fn python_git_aware_example_matches_the_rust_one() {
    if !python3_available() {
        println!("skipped: python3 is not available to run examples/extensions/git_aware.py");
        return;
    }
    let (session, preparation) = git_session();
    let settings = settings();
    let script = repository_file("examples/extensions/git_aware.py");
    let python = ProcessExtension::from_config(&ExtensionConfig {
        name: "git-aware.py".into(),
        command: "python3".into(),
        args: vec![script.display().to_string()],
        events: vec![EventName::BeforeCompact],
        timeout_ms: Some(20_000),
        pass_env: vec![],
    });
    let from_python = Extensions::new()
        .with(Arc::new(python))
        .decide_compaction(&event(&session, &preparation, &settings))
        .await;
    assert!(from_python.warnings.is_empty(), "{:?}", from_python.warnings);
    let from_rust = Extensions::new()
        .with(Arc::new(GitAware))
        .decide_compaction(&event(&session, &preparation, &settings))
        .await;
    let (
        CompactionDecision::Replaced { replacement: python, .. },
        CompactionDecision::Replaced { replacement: rust, .. },
    ) = (&from_python.decision, &from_rust.decision)
    else {
        panic!("expected replacements: {from_python:?} / {from_rust:?}")
    };
    assert_eq!(python, rust);
    // a1 ran `git status` (kept with its result t1), b1 ran `git log`; b1 is directly
    // before the cut, so it stays verbatim and a1, t1 are preserved in the summary.
    assert_eq!(rust.details, Some(json!({"preservedGitOps": 2})));
    assert_eq!(rust.first_kept_entry_id, "b1");
    assert_eq!(rust.preserved_message_ids, ["a1", "t1"]);
    assert!(rust.summary.contains("- Check the repository state.\n- Fix the failing test."));
    assert!(rust.summary.contains("git status --short"));
}

#[tokio::test]
async fn rust_git_aware_steps_aside_without_git() {
    let text = GIT_SESSION.replace("git status", "ls").replace("git log", "ls");
    let (session, preparation) = prepared(&text);
    let settings = settings();
    let result = Extensions::new()
        .with(Arc::new(GitAware))
        .decide_compaction(&event(&session, &preparation, &settings))
        .await;
    assert_eq!(
        result.decision,
        CompactionDecision::BuiltIn { instructions: Some("Keep it short.".into()) }
    );
}

#[tokio::test]
async fn focus_example_only_adds_instructions() {
    let (session, preparation) = git_session();
    let settings = settings();
    let script = repository_file("examples/extensions/focus.sh");
    let focus = ProcessExtension::shell(format!("sh '{}' 'the \"flaky\" test'", script.display()));
    let result = Extensions::new()
        .with(Arc::new(focus))
        .decide_compaction(&event(&session, &preparation, &settings))
        .await;
    assert!(result.warnings.is_empty(), "{:?}", result.warnings);
    assert_eq!(
        result.decision,
        CompactionDecision::BuiltIn {
            instructions: Some(
                "Keep it short.\n\nPay particular attention to the \"flaky\" test.".into()
            )
        }
    );
}

const SCHEMA_CHECK: &str = r#"
import json, sys, jsonschema
schema = json.load(open(sys.argv[1]))
jsonschema.Draft202012Validator.check_schema(schema)
validator = jsonschema.Draft202012Validator(schema)
failures = []
for kind, text in json.load(sys.stdin):
    errors = [e.message for e in validator.iter_errors(json.loads(text))]
    if (kind == "valid") == bool(errors):
        failures.append((kind, text, errors[:3]))
if failures:
    sys.exit(repr(failures))
"#;

#[tokio::test]
async fn events_and_decisions_match_the_json_schema() {
    let has_jsonschema = std::process::Command::new("python3")
        .args(["-c", "import jsonschema"])
        .output()
        .is_ok_and(|output| output.status.success());
    if !has_jsonschema {
        println!("skipped: python3 with the jsonschema module is not available");
        return;
    }
    use compaction::extension::protocol;
    let (session, preparation) = git_session();
    let settings = settings();
    let before = event(&session, &preparation, &settings);
    let entry = json!({"type": "compaction", "id": "k9", "parentId": "a3", "summary": "S"});
    let after = AfterCompactEvent {
        entry: &entry,
        from_extension: false,
        decided_by: None,
        reason: CompactionReason::Manual,
        settings: &settings,
        cancel: Default::default(),
    };
    let entries: Vec<usize> =
        ["b1", "u3", "a3"].iter().map(|id| session.index_of(id).unwrap()).collect();
    let messages = vec![AgentMessage::user_text("Next task.")];
    let ids = vec!["u3".to_owned()];
    let files = vec!["src/lib.rs".to_owned()];
    let branch = BeforeBranchSummaryEvent {
        session: &session,
        old_leaf_id: "a3",
        target_id: "a2",
        common_ancestor_id: Some("a2"),
        entries: &entries,
        messages: &messages,
        message_entry_ids: &ids,
        read_files: &files,
        modified_files: &[],
        custom_instructions: None,
        settings: &settings,
        cancel: Default::default(),
    };
    let branch_entry = json!({"type": "branch_summary", "id": "s9", "parentId": "a2", "fromId": "a3", "summary": "S"});
    let after_branch = compaction::extension::AfterBranchSummaryEvent {
        entry: &branch_entry,
        from_extension: true,
        decided_by: Some("x"),
        settings: &settings,
        cancel: Default::default(),
    };
    use compaction_core::prune::{
        PruneCandidate, PruneDecision, PrunePlan, PruneReason, ToolPolicy,
    };
    let prune_plan = PrunePlan {
        candidates: vec![PruneCandidate {
            entry: session.index_of("t1").unwrap(),
            id: "t1".into(),
            tool: "bash".into(),
            arguments: json!({"command": "git status --short"}),
            policy: ToolPolicy::Elide,
            reason: PruneReason::Superseded { by: "a2".into() },
            tokens: 400,
            tokens_after: 30,
            placeholder: "[output pruned: …]".into(),
        }],
        tokens_before: 900,
        tokens_saved: 370,
        recorded_usage: None,
        minimum_savings: 20_000,
        protected_from: Some("u3".into()),
        decision: PruneDecision::BelowMinimum,
    };
    let before_prune = compaction::extension::BeforePruneEvent {
        session: &session,
        plan: &prune_plan,
        reason: compaction::compact::CompactionReason::Threshold,
        settings: &settings,
        cancel: Default::default(),
    };
    let mut cases: Vec<(&str, String)> = [
        protocol::before_compact_event(&before),
        protocol::after_compact_event(&after),
        protocol::before_branch_summary_event(&branch),
        protocol::after_branch_summary_event(&after_branch),
        protocol::before_prune_event(&before_prune),
    ]
    .iter()
    .map(|value| ("valid", value.to_string()))
    .collect();
    for text in [
        r#"{"action":"continue"}"#,
        r#"{"action":"continue","instructions":"x"}"#,
        r#"{"action":"cancel","reason":"r"}"#,
        r#"{"protocol":1,"action":"replace","summary":"s","keptMessageIds":["b1"],"details":{"n":1}}"#,
    ] {
        assert!(protocol::parse_decision(text).is_ok(), "{text}");
        cases.push(("valid", text.to_owned()));
    }
    let prune_decision = r#"{"protocol":1,"action":"prune","entryIds":["b1"]}"#;
    assert!(protocol::parse_prune_decision(prune_decision).is_ok());
    cases.push(("valid", prune_decision.to_owned()));
    assert!(protocol::parse_prune_decision(r#"{"action":"prune"}"#).is_err());
    cases.push(("invalid", r#"{"action":"prune"}"#.to_owned()));
    for text in [
        r#"{"action":"explode"}"#,
        r#"{"action":"replace"}"#,
        r#"{"protocol":2,"action":"continue"}"#,
    ] {
        assert!(protocol::parse_decision(text).is_err(), "{text}");
        cases.push(("invalid", text.to_owned()));
    }
    let mut child = std::process::Command::new("python3")
        .args(["-c", SCHEMA_CHECK])
        .arg(repository_file("docs/extension-protocol.schema.json"))
        .stdin(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    {
        use std::io::Write;
        let mut stdin = child.stdin.take().unwrap();
        stdin.write_all(serde_json::to_string(&cases).unwrap().as_bytes()).unwrap();
    }
    let output = child.wait_with_output().unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
}

#[tokio::test]
async fn cancelling_the_operation_stops_a_running_child_and_asks_no_one_else() {
    let (session, preparation) = git_session();
    let settings = settings();
    let later = Scripted::new("later", Behaviour::Answer(replace("unused")));
    let extensions = Extensions::new()
        .with(Arc::new(ProcessExtension::shell("exec sleep 30")))
        .with(later.clone());
    let before = event(&session, &preparation, &settings);
    let cancel = before.cancel.clone();
    let canceller = tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(100)).await;
        cancel.cancel();
    });
    let outcome = extensions.before_compact(&before).await;
    canceller.await.unwrap();
    assert_eq!(outcome.decision, Decision::carry_on());
    assert_eq!(outcome.warnings.len(), 1);
    assert!(outcome.warnings[0].message.contains("cancelled"), "{}", outcome.warnings[0]);
    assert_eq!(later.before_calls.load(Ordering::SeqCst), 0);
}
