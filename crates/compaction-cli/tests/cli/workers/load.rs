//! `compaction worker` under load, at full scale: 8 agents append to 200 sessions while 3
//! worker processes compact them, and one worker is killed with SIGKILL as soon as it has
//! claimed a session. Afterwards:
//! - no appended entry is lost or doubled;
//! - every compaction was due when it was written (none twice for one trigger), and every
//!   session is under its trigger (each was over it at the start, so none was starved);
//! - the scratch files the killed worker left are removed by a surviving worker;
//! - the workers stopped with SIGTERM exit 0 and hold no lease;
//! - every session's context read through the store equals the context of its export, and
//!   `compaction context` on the store prints it.
//!
//! The store is a parameter, named by its locator: a SQLite database and a Postgres database
//! (a throwaway cluster; skipped, saying why, only where Postgres is not installed), the
//! sessions imported with `compaction store import`, and a folder of pi files.
//!
//! For the pi 1.6 check, every tenth session's export and the `compaction context --json` of
//! the store are written to `target/tmp/concurrency-exports/STORE/` (20 sessions per store);
//! `integrations/pi-oracle/test/stores.test.mjs` opens each export in pi 1.6 and compares its
//! context with the one printed.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::Child;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use compaction::stores::postgres::{Password, PostgresBackend};
use compaction::stores::{BackendError, Locator, SessionBackend};

use super::sessions::{
    KEEP_RECENT, PG_PASSWORD, RESERVE, WINDOW, command, file_name, message_line, scratch_files,
    session_id, worker, write_sessions,
};

const SESSIONS: usize = 200;
const AGENTS: usize = 8;
const WORKERS: usize = 3;
const APPENDS: usize = 25;
/// Every how many sessions one goes to the pi 1.6 check (20 of 200).
const SAMPLE_EVERY: usize = 10;
/// How long the workers get to bring every session under its trigger.
const SETTLE: Duration = Duration::from_secs(600);

/// A store the scenario runs against.
pub struct Store {
    /// The name of its exports folder.
    pub name: &'static str,
    /// Its locator (absolute paths).
    pub locator: String,
    /// The locator `compaction context` reads session `number` through.
    pub context: Box<dyn Fn(usize) -> String>,
}

/// A database store named by `locator`, the sessions of `dir/sessions` imported into it with
/// `compaction store import`; session N is `LOCATOR#session-N`.
pub fn imported(name: &'static str, dir: &Path, locator: &str) -> Store {
    let import =
        command(dir, dir).args(["store", "import", "sessions", "--to", locator]).output().unwrap();
    assert!(import.status.success(), "{}", String::from_utf8_lossy(&import.stderr));
    let base = locator.to_owned();
    Store {
        name,
        locator: locator.to_owned(),
        context: Box::new(move |number| format!("{base}#{}", session_id(number))),
    }
}

#[test]
fn sqlite_store_loses_nothing_under_load() {
    let dir = tempfile::tempdir().unwrap();
    write_sessions(&dir.path().join("sessions"), SESSIONS);
    let locator = format!("sqlite:{}", dir.path().join("db.sqlite").display());
    let store = imported("sqlite", dir.path(), &locator);
    run(dir.path(), &store);
}

#[test]
fn postgres_store_loses_nothing_under_load() {
    let Some(cluster) = compaction_testdata::postgres::Cluster::shared() else { return };
    PG_PASSWORD.get_or_init(|| cluster.password());
    let dir = tempfile::tempdir().unwrap();
    write_sessions(&dir.path().join("sessions"), SESSIONS);
    let locator = cluster.url(&cluster.create_database());
    let store = imported("postgres", dir.path(), &locator);
    run(dir.path(), &store);
}

#[test]
fn folder_store_loses_nothing_under_load() {
    let dir = tempfile::tempdir().unwrap();
    let sessions = dir.path().join("sessions");
    write_sessions(&sessions, SESSIONS);
    let files = sessions.clone();
    let store = Store {
        name: "folder",
        locator: sessions.display().to_string(),
        context: Box::new(move |number| files.join(file_name(number)).display().to_string()),
    };
    run(dir.path(), &store);
}

/// The backend a locator names (a Postgres one with the test cluster's password).
fn open(locator: &str) -> Box<dyn SessionBackend> {
    let parsed = Locator::parse(locator).unwrap();
    match (&parsed, PG_PASSWORD.get()) {
        (Locator::Postgres { url, .. }, Some(password)) => {
            let password = Password::given(password);
            Box::new(PostgresBackend::open_with(url, &password).unwrap())
        }
        (Locator::File(_) | Locator::Sqlite { .. } | Locator::Postgres { .. }, _) => {
            compaction::stores::open(&parsed).unwrap()
        }
    }
}

/// The session's leaf id, read through the path.
fn leaf(backend: &dyn SessionBackend, session: &str) -> Option<String> {
    let read = backend.read_path(session, None).unwrap();
    read.leaf().map(|leaf| read.session.entries()[leaf].id.clone())
}

/// One agent: appends user/assistant messages to sessions in turn, planning each against
/// the leaf it read and reading again when a worker moved it.
fn agent(locator: &str, number: usize) -> Vec<String> {
    let backend = open(locator);
    let mut written = Vec::new();
    for append in 0..APPENDS {
        let session = session_id((number * 31 + append * 8) % SESSIONS);
        let id = format!("agent{number}n{append}");
        loop {
            let planned = leaf(backend.as_ref(), &session);
            let role = if append % 2 == 0 { "user" } else { "assistant" };
            let line = message_line(&id, planned.as_deref(), role, &id);
            match backend.append_if_leaf(&session, planned.as_deref(), &[line]) {
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

/// A running worker and the JSON events it printed so far.
struct Running {
    child: Child,
    events: Arc<Mutex<Vec<serde_json::Value>>>,
    claimed: std::sync::mpsc::Receiver<()>,
    /// The thread reading the worker's output: joined after the worker exits, so every
    /// event it printed is in `events` (under load the reader can lag behind the exit).
    reader: Option<std::thread::JoinHandle<()>>,
}

fn start(dir: &Path, tmp: &Path, locator: &str) -> Running {
    let lease = ["--lease-seconds", "2", "--poll-seconds", "1", "--concurrency", "2"];
    let mut child = worker(dir, tmp, locator, &lease);
    let events = Arc::new(Mutex::new(Vec::new()));
    let (claims, claimed) = std::sync::mpsc::channel();
    let stdout = child.stdout.take().unwrap();
    let seen = Arc::clone(&events);
    let reader = std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            let event: serde_json::Value = serde_json::from_str(&line).unwrap();
            if event["event"] == "claimed" {
                let _ = claims.send(());
            }
            seen.lock().unwrap().push(event);
        }
    });
    Running { child, events, claimed, reader: Some(reader) }
}

fn settings() -> (compaction_core::CompactionSettings, u64) {
    let settings = compaction_core::CompactionSettings {
        reserve_tokens: RESERVE.parse().unwrap(),
        keep_recent_tokens: KEEP_RECENT.parse().unwrap(),
        ..compaction_core::CompactionSettings::default()
    };
    (settings, WINDOW.parse().unwrap())
}

/// The sessions whose context at the leaf crosses the trigger.
fn over_trigger(backend: &dyn SessionBackend) -> Vec<String> {
    let estimator = compaction_core::estimator_by_name("heuristic").unwrap();
    let (settings, window) = settings();
    let mut over = Vec::new();
    for summary in backend.list().unwrap() {
        let read = backend.read_path(&summary.id, None).unwrap();
        let context = read.context();
        let tokens = compaction_core::context_tokens(&read.session, &context, estimator.as_ref());
        let items = context.items.len() as u64;
        if compaction_core::should_compact(tokens.tokens, items, window, &settings).fire {
            over.push(summary.id);
        }
    }
    over
}

/// SIGTERM to `pid` through the `kill` command (the tests use no unsafe code).
fn terminate(pid: u32) {
    let status =
        std::process::Command::new("kill").args(["-TERM", &pid.to_string()]).status().unwrap();
    assert!(status.success());
}

fn run(dir: &Path, store: &Store) {
    let started = Instant::now();
    let tmp = dir.join("tmp");
    std::fs::create_dir(&tmp).unwrap();
    let mut workers: Vec<Running> =
        (0..WORKERS).map(|_| start(dir, &tmp, &store.locator)).collect();
    let agents: Vec<_> = (0..AGENTS)
        .map(|number| {
            let locator = store.locator.clone();
            std::thread::spawn(move || agent(&locator, number))
        })
        .collect();

    // Kill the first worker as soon as it has claimed a session.
    let mut doomed = workers.remove(0);
    doomed.claimed.recv_timeout(Duration::from_secs(120)).expect("the first worker claimed");
    doomed.child.kill().unwrap();
    doomed.child.wait().unwrap();
    let left: Vec<String> = scratch_files(&tmp)
        .into_iter()
        .filter(|name| name.starts_with(&format!("compaction-scratch-{}-", doomed.child.id())))
        .collect();
    let written: Vec<String> = agents.into_iter().flat_map(|a| a.join().unwrap()).collect();

    // The survivors compact every session, the killed worker's once its leases expire.
    let backend = open(&store.locator);
    let mut over = over_trigger(backend.as_ref());
    while !over.is_empty() && started.elapsed() < SETTLE {
        std::thread::sleep(Duration::from_millis(500));
        over = over_trigger(backend.as_ref());
    }
    // One more pass of each survivor after the last compaction, to remove scratch files.
    std::thread::sleep(Duration::from_millis(2500));
    for running in &mut workers {
        terminate(running.child.id());
        let status = running.child.wait().unwrap();
        assert!(status.success(), "SIGTERM: {status:?}");
        running.reader.take().unwrap().join().unwrap();
    }
    assert!(over.is_empty(), "over the trigger after {SETTLE:?}: {over:?}");
    let events: Vec<serde_json::Value> =
        workers.iter().flat_map(|running| running.events.lock().unwrap().clone()).collect();
    for running in &workers {
        let last = running.events.lock().unwrap().last().cloned();
        assert_eq!(last.as_ref().map(|e| &e["event"]), Some(&"stopped".into()), "{last:?}");
    }

    // No lease is held: a new holder takes each session at once.
    for summary in backend.list().unwrap() {
        let free = backend.try_lease(&summary.id, "checker", Duration::from_secs(1)).unwrap();
        assert!(free, "{}: a stopped or killed worker still holds its lease", summary.id);
        backend.release_lease(&summary.id, "checker").unwrap();
    }
    // The killed worker's scratch files were removed by a survivor.
    assert_eq!(scratch_files(&tmp), Vec::<String>::new(), "scratch files left");
    for name in &left {
        let reclaimed = events.iter().any(|event| {
            event["event"] == "reclaimed"
                && event["file"].as_str().is_some_and(|f| f.ends_with(name))
        });
        assert!(reclaimed, "{name} was not reported reclaimed");
    }

    check_sessions(backend.as_ref(), &written);
    write_exports(dir, store, backend.as_ref());
    eprintln!(
        "{}: {SESSIONS} sessions, {AGENTS} agents, {WORKERS} workers (one killed, {} scratch \
         file(s) it left reclaimed): {:.1} s",
        store.name,
        left.len(),
        started.elapsed().as_secs_f64()
    );
}

/// Roles and entry ids of a context.
fn shape(
    session: &compaction_core::Session,
    context: &compaction_core::context::SessionContext,
) -> Vec<(String, String)> {
    context
        .items
        .iter()
        .filter_map(|&item| {
            let message = compaction_core::context::to_llm(context.message(session, item))?;
            Some((message.role().to_owned(), session.entries()[item.entry].id.clone()))
        })
        .collect()
}

fn check_sessions(backend: &dyn SessionBackend, written: &[String]) {
    let estimator = compaction_core::estimator_by_name("heuristic").unwrap();
    let (settings, window) = settings();
    let mut exported = Vec::new();
    let mut compacted = 0;
    for summary in backend.list().unwrap() {
        let mut bytes = Vec::new();
        backend.export(&summary.id, &mut bytes).unwrap();
        let session = compaction_core::parse_session(&bytes);
        assert!(session.diagnostics().is_empty(), "{:?}", session.diagnostics());
        let mut compactions = 0;
        for (index, entry) in session.entries().iter().enumerate() {
            if entry.kind.as_compaction().is_none() {
                continue;
            }
            compactions += 1;
            let parent = session.parent_of(index);
            let context = compaction_core::context::build_context(&session, parent);
            let tokens = compaction_core::context_tokens(&session, &context, estimator.as_ref());
            let items = context.items.len() as u64;
            let due = compaction_core::should_compact(tokens.tokens, items, window, &settings);
            assert!(
                due.fire,
                "{}: compaction {} was not due ({} tokens)",
                summary.id, entry.id, tokens.tokens
            );
        }
        assert!(compactions > 0, "{}: never compacted", summary.id);
        compacted += compactions;
        // The context read through the store is the context of the exported file.
        let read = backend.read_path(&summary.id, None).unwrap();
        let whole = compaction_core::context::build_context(&session, session.leaf());
        assert_eq!(
            shape(&read.session, &read.context()),
            shape(&session, &whole),
            "{}: the store's context differs from its export's",
            summary.id
        );
        exported.push(String::from_utf8(bytes).unwrap());
    }
    assert!(compacted >= SESSIONS, "{compacted} compactions for {SESSIONS} sessions");
    let all = exported.join("");
    for id in written {
        let count = all.matches(&format!("\"id\":\"{id}\"")).count();
        assert_eq!(count, 1, "entry {id} appears {count} times");
    }
}

/// Where the exports for the pi 1.6 check go.
fn exports_dir(store: &Store) -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR")).join("concurrency-exports").join(store.name)
}

/// Writes every tenth session's export and its `compaction context --json` for the pi 1.6
/// check.
fn write_exports(dir: &Path, store: &Store, backend: &dyn SessionBackend) {
    let out = exports_dir(store);
    let _ = std::fs::remove_dir_all(&out);
    std::fs::create_dir_all(&out).unwrap();
    for number in (0..SESSIONS).step_by(SAMPLE_EVERY) {
        let name = file_name(number);
        let mut bytes = Vec::new();
        backend.export(&session_id(number), &mut bytes).unwrap();
        std::fs::write(out.join(&name), &bytes).unwrap();
        let context = command(dir, dir)
            .args(["context", &(store.context)(number), "--json"])
            .output()
            .unwrap();
        assert!(context.status.success(), "{}", String::from_utf8_lossy(&context.stderr));
        let listed: serde_json::Value = serde_json::from_slice(&context.stdout).unwrap();
        assert!(listed.as_array().is_some_and(|messages| !messages.is_empty()), "{listed}");
        std::fs::write(out.join(name.replace(".jsonl", ".context.json")), &context.stdout).unwrap();
    }
}
