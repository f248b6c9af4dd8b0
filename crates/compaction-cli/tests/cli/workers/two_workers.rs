//! `compaction worker` at small scale, on a SQLite database and on a Postgres database (a
//! throwaway cluster; skipped, saying why, only where Postgres is not installed): agents
//! append to the sessions while two worker processes compact them, and one worker is killed
//! with SIGKILL as soon as it claims a session. Afterwards no appended entry is lost or
//! doubled, every compaction was due when it was written (none twice for one trigger), the
//! killed worker's leases have expired and the survivor compacted every session over its
//! trigger, and the survivor stopped with SIGTERM exits 0 holding no lease.
//!
//! Scaled to run in CI in well under a minute per store: 24 sessions, 4 agents, 2 workers.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use compaction::stores::postgres::{Password, PostgresBackend, PostgresUrl};
use compaction::stores::sqlite::SqliteBackend;
use compaction::stores::{BackendError, SessionBackend};
use compaction_testdata::postgres::Cluster;

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

/// The store the scenario runs on.
enum Store {
    /// `db.sqlite` in the test's folder.
    Sqlite(PathBuf),
    /// A database of its own in a running cluster.
    Postgres { cluster: Arc<Cluster>, database: String },
}

impl Store {
    fn locator(&self) -> String {
        match self {
            Store::Sqlite(_) => "sqlite:db.sqlite".to_owned(),
            Store::Postgres { cluster, database } => cluster.url(database),
        }
    }

    /// The compaction binary with the credentials the store needs (none for SQLite; for
    /// Postgres the password in `PGPASSWORD`, never in an argument).
    fn command(&self, dir: &Path) -> Command {
        let mut command = Command::new(env!("CARGO_BIN_EXE_compaction"));
        command.current_dir(dir).env("HOME", dir).env_remove("PGPASSFILE");
        match self {
            Store::Sqlite(_) => command.env_remove("PGPASSWORD"),
            Store::Postgres { cluster, .. } => command.env("PGPASSWORD", cluster.password()),
        };
        command
    }

    fn open(&self) -> Box<dyn SessionBackend> {
        match self {
            Store::Sqlite(path) => Box::new(SqliteBackend::open(path).unwrap()),
            Store::Postgres { cluster, database } => {
                let url = PostgresUrl::parse(&cluster.url(database)).unwrap();
                let password = Password::given(cluster.password());
                Box::new(PostgresBackend::open_with(&url, &password).unwrap())
            }
        }
    }

    /// (leases of process `pid`, of them unexpired).
    fn leases_of(&self, pid: u32) -> (i64, i64) {
        let holder = format!("%:{pid}");
        match self {
            Store::Sqlite(path) => {
                let connection = rusqlite::Connection::open(path).unwrap();
                let now = std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .unwrap()
                    .as_millis() as i64;
                connection
                    .query_row(
                        "SELECT count(*), count(*) FILTER (WHERE expires_ms > ?2) FROM leases \
                         WHERE holder LIKE ?1",
                        rusqlite::params![holder, now],
                        |r| Ok((r.get(0)?, r.get(1)?)),
                    )
                    .unwrap()
            }
            Store::Postgres { cluster, database } => {
                let out = cluster.psql(
                    database,
                    &format!(
                        "SELECT count(*), count(*) FILTER (WHERE expires > clock_timestamp()) \
                         FROM compaction.leases WHERE holder LIKE '{holder}'"
                    ),
                );
                let (all, live) = out.split_once('|').unwrap();
                (all.parse().unwrap(), live.parse().unwrap())
            }
        }
    }
}

fn worker(store: &Store, dir: &Path, extra: &[&str]) -> Child {
    store
        .command(dir)
        .args(["worker", "--store", &store.locator(), "--json", "--estimator", "heuristic"])
        .args(["--context-window", WINDOW, "--reserve", RESERVE, "--keep-recent", KEEP_RECENT])
        .args(extra)
        .env_remove("OPENAI_API_KEY")
        .env_remove("ANTHROPIC_API_KEY")
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap()
}

/// One agent: appends user/assistant pairs to sessions in turn, planning each against the
/// leaf it read and reading again when a worker moved it.
fn agent(store: &Store, number: usize) -> Vec<String> {
    let backend = store.open();
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
    let store = Store::Sqlite(dir.path().join("db.sqlite"));
    scenario(&store, dir.path());
}

#[test]
fn postgres_agents_and_workers_lose_nothing_and_compact_each_trigger_once() {
    let Some(cluster) = Cluster::shared() else { return };
    let dir = tempfile::tempdir().unwrap();
    let database = cluster.create_database();
    let store = Store::Postgres { cluster, database };
    scenario(&store, dir.path());
}

fn scenario(store: &Store, dir: &Path) {
    let sessions = dir.join("sessions");
    std::fs::create_dir(&sessions).unwrap();
    for number in 0..SESSIONS {
        std::fs::write(sessions.join(format!("s{number:03}.jsonl")), session(number)).unwrap();
    }
    let import = store
        .command(dir)
        .args(["store", "import", "sessions", "--to", &store.locator()])
        .output()
        .unwrap();
    assert!(import.status.success(), "{}", String::from_utf8_lossy(&import.stderr));

    let lease = ["--lease-seconds", "2", "--poll-seconds", "1", "--concurrency", "2"];
    let mut doomed = worker(store, dir, &lease);
    let mut survivor = worker(store, dir, &lease);
    let doomed_pid = doomed.id();
    // The survivor's events, read as they come (a full pipe would stall it).
    let survivor_stdout = survivor.stdout.take().unwrap();
    let survivor_events = std::thread::spawn(move || {
        let mut out = String::new();
        std::io::Read::read_to_string(&mut BufReader::new(survivor_stdout), &mut out).unwrap();
        out
    });
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
    let (written, held_at_kill) = std::thread::scope(|scope| {
        let agents: Vec<_> =
            (0..AGENTS).map(|number| scope.spawn(move || agent(store, number))).collect();
        let _ = claims.recv_timeout(Duration::from_secs(30));
        doomed.kill().unwrap();
        doomed.wait().unwrap();
        let held_at_kill = store.leases_of(doomed_pid).1;
        let written: Vec<String> = agents.into_iter().flat_map(|a| a.join().unwrap()).collect();
        (written, held_at_kill)
    });
    assert!(held_at_kill > 0, "the worker was killed holding no lease: not mid-compaction");
    // The survivor takes the killed worker's sessions once their leases expire, and every
    // session over its trigger is compacted.
    let backend = store.open();
    // Generous: the survivor compacts most of the 24 sessions alone, with a debug build, on
    // a machine shared with other test binaries.
    let deadline = Instant::now() + Duration::from_secs(300);
    let mut over = over_trigger(backend.as_ref());
    while !over.is_empty() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(500));
        over = over_trigger(backend.as_ref());
    }
    if !over.is_empty() {
        let _ = survivor.kill();
        let _ = survivor.wait();
        let events = survivor_events.join().unwrap();
        panic!("still over the trigger: {over:?}; the survivor's events:\n{events}");
    }
    assert_eq!(store.leases_of(doomed_pid).1, 0, "the killed worker's leases have expired");
    let pid = i32::try_from(survivor.id()).unwrap();
    assert_eq!(unsafe_free_kill(pid), 0);
    let status = survivor.wait().unwrap();
    assert!(status.success(), "SIGTERM: {status:?}");
    let out = survivor_events.join().unwrap();
    assert!(out.contains("\"stopped\""), "{out}");

    let (held, _) = store.leases_of(survivor.id());
    assert_eq!(held, 0, "the stopped worker holds no lease");
    check_sessions(backend.as_ref(), &written);
}

fn settings() -> compaction_core::CompactionSettings {
    compaction_core::CompactionSettings {
        reserve_tokens: RESERVE.parse().unwrap(),
        ..compaction_core::CompactionSettings::default()
    }
}

/// The sessions whose context at the leaf crosses the workers' trigger.
fn over_trigger(backend: &dyn SessionBackend) -> Vec<String> {
    let estimator = compaction_core::estimator_by_name("heuristic").unwrap();
    let window: u64 = WINDOW.parse().unwrap();
    let mut over = Vec::new();
    for summary in backend.list().unwrap() {
        let read = backend.read_path(&summary.id, None).unwrap();
        let context = read.context();
        let tokens = compaction_core::context_tokens(&read.session, &context, estimator.as_ref());
        let due = compaction_core::should_compact(
            tokens.tokens,
            context.items.len() as u64,
            window,
            &settings(),
        );
        if due.fire {
            over.push(summary.id);
        }
    }
    over
}

/// SIGTERM to `pid` through the `kill` command (the tests use no unsafe code).
fn unsafe_free_kill(pid: i32) -> i32 {
    Command::new("kill").args(["-TERM", &pid.to_string()]).status().unwrap().code().unwrap_or(-1)
}

fn check_sessions(backend: &dyn SessionBackend, written: &[String]) {
    let estimator = compaction_core::estimator_by_name("heuristic").unwrap();
    let settings = settings();
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
