//! `compaction worker` under load: agents append to sessions of one SQLite database while
//! two worker processes compact them, and one worker is killed with SIGKILL. Afterwards no
//! appended entry is lost or doubled, every compaction was due when it was written (none
//! twice for one trigger), and a worker stopped with SIGTERM exits 0 holding no lease.
//!
//! Scaled to run in CI in well under a minute: 24 sessions, 4 agents, 2 workers.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use compaction::stores::sqlite::SqliteBackend;
use compaction::stores::{BackendError, SessionBackend};

const SESSIONS: usize = 24;
const AGENTS: usize = 4;
const APPENDS: usize = 24;
/// Worker settings: the trigger fires above `WINDOW - RESERVE` tokens.
const WINDOW: &str = "30000";
const RESERVE: &str = "8000";
const KEEP_RECENT: &str = "3000";

/// About 1,000 tokens of message text.
fn text(tag: &str) -> String {
    format!("{tag} ") + &"the parser keeps every line of the log in order ".repeat(80)
}

fn message_line(id: &str, parent: Option<&str>, role: &str, tag: &str) -> String {
    let parent = parent.map_or("null".to_owned(), |p| format!("\"{p}\""));
    let content = if role == "user" {
        serde_json::json!(text(tag))
    } else {
        serde_json::json!([{"type": "text", "text": text(tag)}])
    };
    let message = serde_json::json!({"role": role, "content": content, "timestamp": 1});
    format!(
        r#"{{"type":"message","id":"{id}","parentId":{parent},"timestamp":"2026-01-01T00:00:00.000Z","message":{message}}}"#
    )
}

/// A session of 30 messages (about 29,000 tokens), over the trigger.
fn session(number: usize) -> String {
    let mut lines = vec![format!(
        r#"{{"type":"session","version":3,"id":"session-{number:03}","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/work"}}"#
    )];
    let mut parent: Option<String> = None;
    for turn in 0..30 {
        let id = format!("s{number}m{turn}");
        let role = if turn % 2 == 0 { "user" } else { "assistant" };
        lines.push(message_line(&id, parent.as_deref(), role, &id));
        parent = Some(id);
    }
    lines.join("\n") + "\n"
}

fn worker(dir: &Path, extra: &[&str]) -> Child {
    Command::new(env!("CARGO_BIN_EXE_compaction"))
        .args(["worker", "--store", "sqlite:db.sqlite", "--json", "--estimator", "heuristic"])
        .args(["--context-window", WINDOW, "--reserve", RESERVE, "--keep-recent", KEEP_RECENT])
        .args(extra)
        .current_dir(dir)
        .env("HOME", dir)
        .env_remove("OPENAI_API_KEY")
        .env_remove("ANTHROPIC_API_KEY")
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap()
}

/// One agent: appends user/assistant pairs to sessions in turn, planning each against the
/// leaf it read and reading again when a worker moved it.
fn agent(db: &Path, number: usize) -> Vec<String> {
    let backend = SqliteBackend::open(db).unwrap();
    let mut written = Vec::new();
    for append in 0..APPENDS {
        let session = format!("session-{:03}", (number * 7 + append * 5) % SESSIONS);
        let id = format!("agent{number}n{append}");
        loop {
            let leaf = backend.list().unwrap().into_iter().find(|s| s.id == session).unwrap().leaf;
            let role = if append % 2 == 0 { "user" } else { "assistant" };
            let line = message_line(&id, leaf.as_deref(), role, &id);
            match backend.append_if_leaf(&session, leaf.as_deref(), &[line]) {
                Ok(()) => break,
                Err(BackendError::LeafMoved { .. }) => continue,
                Err(error) => panic!("agent {number}: {error}"),
            }
        }
        written.push(id);
        std::thread::sleep(Duration::from_millis(20));
    }
    written
}

#[test]
fn agents_and_workers_lose_nothing_and_compact_each_trigger_once() {
    let dir = tempfile::tempdir().unwrap();
    let sessions = dir.path().join("sessions");
    std::fs::create_dir(&sessions).unwrap();
    for number in 0..SESSIONS {
        std::fs::write(sessions.join(format!("s{number:03}.jsonl")), session(number)).unwrap();
    }
    let import = Command::new(env!("CARGO_BIN_EXE_compaction"))
        .args(["store", "import", "sessions", "--to", "sqlite:db.sqlite"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert!(import.status.success(), "{}", String::from_utf8_lossy(&import.stderr));
    let db = dir.path().join("db.sqlite");

    let lease = ["--lease-seconds", "2", "--poll-seconds", "1", "--concurrency", "2"];
    let mut doomed = worker(dir.path(), &lease);
    let mut survivor = worker(dir.path(), &lease);
    let agents: Vec<_> = (0..AGENTS)
        .map(|number| {
            let db = db.clone();
            std::thread::spawn(move || agent(&db, number))
        })
        .collect();
    // Kill the first worker as soon as it has claimed a session (or after 30 s).
    let (claimed, claims) = std::sync::mpsc::channel();
    let stdout = doomed.stdout.take().unwrap();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if line.contains("\"claimed\"") {
                let _ = claimed.send(());
            }
        }
    });
    let _ = claims.recv_timeout(Duration::from_secs(30));
    doomed.kill().unwrap();
    doomed.wait().unwrap();
    let written: Vec<String> = agents.into_iter().flat_map(|a| a.join().unwrap()).collect();
    // Let the survivor take the killed worker's sessions once their leases expire.
    std::thread::sleep(Duration::from_secs(4));
    let pid = i32::try_from(survivor.id()).unwrap();
    assert_eq!(unsafe_free_kill(pid), 0);
    let status = survivor.wait().unwrap();
    assert!(status.success(), "SIGTERM: {status:?}");
    let mut out = String::new();
    std::io::Read::read_to_string(&mut survivor.stdout.take().unwrap(), &mut out).unwrap();
    assert!(out.contains("\"stopped\""), "{out}");

    let backend = SqliteBackend::open(&db).unwrap();
    let connection = rusqlite::Connection::open(&db).unwrap();
    let held: i64 = connection
        .query_row("SELECT count(*) FROM leases WHERE holder LIKE ?1", [format!("%:{pid}")], |r| {
            r.get(0)
        })
        .unwrap();
    assert_eq!(held, 0, "the stopped worker holds no lease");
    check_sessions(&backend, &written);
}

/// SIGTERM to `pid` through the `kill` command (the tests use no unsafe code).
fn unsafe_free_kill(pid: i32) -> i32 {
    Command::new("kill").args(["-TERM", &pid.to_string()]).status().unwrap().code().unwrap_or(-1)
}

fn check_sessions(backend: &SqliteBackend, written: &[String]) {
    let estimator = compaction_core::estimator_by_name("heuristic").unwrap();
    let settings = compaction_core::CompactionSettings {
        reserve_tokens: RESERVE.parse().unwrap(),
        ..compaction_core::CompactionSettings::default()
    };
    let window: u64 = WINDOW.parse().unwrap();
    let mut exported = Vec::new();
    let mut compactions = 0;
    for summary in backend.list().unwrap() {
        let mut bytes = Vec::new();
        backend.export(&summary.id, &mut bytes).unwrap();
        let session = compaction_core::parse_session(&bytes);
        assert!(session.diagnostics().is_empty(), "{:?}", session.diagnostics());
        for (index, entry) in session.entries().iter().enumerate() {
            if entry.kind.as_compaction().is_none() {
                continue;
            }
            compactions += 1;
            let parent = session.parent_of(index);
            let context = compaction_core::context::build_context(&session, parent);
            let tokens = compaction_core::context_tokens(&session, &context, estimator.as_ref());
            let due = compaction_core::should_compact(
                tokens.tokens,
                context.items.len() as u64,
                window,
                &settings,
            );
            assert!(
                due.fire,
                "{}: compaction {} was not due ({} tokens)",
                summary.id, entry.id, tokens.tokens
            );
        }
        exported.push(String::from_utf8(bytes).unwrap());
    }
    let all = exported.join("");
    for id in written {
        let count = all.matches(&format!("\"id\":\"{id}\"")).count();
        assert_eq!(count, 1, "entry {id} appears {count} times");
    }
    assert!(compactions > 0, "the workers compacted nothing");
}
