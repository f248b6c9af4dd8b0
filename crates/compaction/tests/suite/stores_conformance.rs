//! The conformance suite of the session stores: every test runs against every backend (the
//! pi JSONL file, a SQLite database and a Postgres database in a throwaway cluster), through
//! the one `SessionBackend` interface. The Postgres runs are skipped, saying why, only where
//! no Postgres binaries are installed.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use compaction::stores::jsonl::JsonlBackend;
use compaction::stores::postgres::{Password, PostgresBackend, PostgresUrl};
use compaction::stores::sqlite::SqliteBackend;
use compaction::stores::{BackendError, SessionBackend};
use compaction_core::context::{SessionContext, build_context};
use compaction_core::{Session, TokenEstimator};
use compaction_testdata::postgres::Cluster;
use compaction_testdata::{GenerateOptions, generate_session};

/// A way to put a session into a store.
#[derive(Clone)]
enum Kind {
    Jsonl,
    Sqlite,
    /// A database of its own (named in the test's folder) in a running cluster.
    Postgres(Arc<Cluster>),
}

impl std::fmt::Debug for Kind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Kind::Jsonl => "Jsonl",
            Kind::Sqlite => "Sqlite",
            Kind::Postgres(_) => "Postgres",
        })
    }
}

/// Every backend this machine can run.
fn kinds() -> Vec<Kind> {
    let mut kinds = vec![Kind::Jsonl, Kind::Sqlite];
    kinds.extend(Cluster::shared().map(Kind::Postgres));
    kinds
}

/// The database backends this machine can run.
fn databases() -> Vec<Kind> {
    kinds().into_iter().filter(|kind| !matches!(kind, Kind::Jsonl)).collect()
}

fn password(cluster: &Cluster) -> Password {
    Password::given(cluster.password())
}

/// The URL of the Postgres database the test in `dir` made.
fn postgres_url(cluster: &Cluster, dir: &Path) -> PostgresUrl {
    let name = std::fs::read_to_string(dir.join("postgres-database")).unwrap();
    PostgresUrl::parse(&cluster.url(&name)).unwrap()
}

/// A store holding one session (the file's bytes), and that session's id.
fn put(kind: &Kind, dir: &Path, name: &str, bytes: &[u8]) -> (Box<dyn SessionBackend>, String) {
    let id = compaction_core::parse_session(bytes).header().unwrap().id.clone().unwrap();
    match kind {
        Kind::Jsonl => {
            let path = dir.join(format!("{name}.jsonl"));
            std::fs::write(&path, bytes).unwrap();
            (Box::new(JsonlBackend::new(path)), id)
        }
        Kind::Sqlite => {
            let backend = SqliteBackend::create(&dir.join("sessions.db")).unwrap();
            let imported = backend.import_bytes(bytes, name).unwrap();
            assert_eq!(imported.session, id);
            (Box::new(backend), id)
        }
        Kind::Postgres(cluster) => {
            let database = cluster.create_database();
            std::fs::write(dir.join("postgres-database"), &database).unwrap();
            let url = PostgresUrl::parse(&cluster.url(&database)).unwrap();
            let backend = PostgresBackend::create_with(&url, &password(cluster)).unwrap();
            let imported = backend.import_bytes(bytes, name).unwrap();
            assert_eq!(imported.session, id);
            (Box::new(backend), id)
        }
    }
}

/// A second handle on the same store (another connection or open file).
fn reopen(kind: &Kind, dir: &Path, name: &str) -> Box<dyn SessionBackend> {
    match kind {
        Kind::Jsonl => Box::new(JsonlBackend::new(dir.join(format!("{name}.jsonl")))),
        Kind::Sqlite => Box::new(SqliteBackend::open(&dir.join("sessions.db")).unwrap()),
        Kind::Postgres(cluster) => Box::new(
            PostgresBackend::open_with(&postgres_url(cluster, dir), &password(cluster)).unwrap(),
        ),
    }
}

fn small(seed: u64, pi16: bool) -> String {
    generate_session(&GenerateOptions {
        seed,
        entries: 400,
        average_entry_bytes: 400,
        compaction_threshold_tokens: 4_000,
        event_scale: 3.0,
        pi16,
        ..GenerateOptions::default()
    })
}

fn export(backend: &dyn SessionBackend, id: &str) -> Vec<u8> {
    let mut out = Vec::new();
    backend.export(id, &mut out).unwrap();
    out
}

fn leaf_id(session: &Session) -> Option<String> {
    session.leaf().map(|leaf| session.entries()[leaf].id.clone())
}

/// The lines of the shapes a session file can have besides the generated one: no final
/// newline, an unreadable line in the middle, a torn last line, a duplicate id.
fn shapes() -> Vec<(&'static str, Vec<u8>)> {
    let base = small(7, true).into_bytes();
    let mut no_newline = base.clone();
    no_newline.pop();
    let lines: Vec<&[u8]> = base.split(|&b| b == b'\n').filter(|l| !l.is_empty()).collect();
    let mut unreadable = Vec::new();
    for (number, line) in lines.iter().enumerate() {
        unreadable.extend_from_slice(line);
        unreadable.push(b'\n');
        if number == 20 {
            unreadable.extend_from_slice(b"{\"type\":\"message\", not json \xff\n");
        }
    }
    let mut torn = base.clone();
    torn.extend_from_slice(b"{\"type\":\"custom\",\"id\":\"torn");
    let mut duplicate = base.clone();
    duplicate.extend_from_slice(lines[5]);
    duplicate.push(b'\n');
    vec![
        ("generated", base),
        ("no-final-newline", no_newline),
        ("unreadable-line", unreadable),
        ("torn-tail", torn),
        ("duplicate-id", duplicate),
    ]
}

#[test]
fn export_gives_back_the_imported_bytes() {
    for kind in kinds() {
        for (name, bytes) in shapes() {
            let dir = tempfile::tempdir().unwrap();
            let (backend, id) = put(&kind, dir.path(), name, &bytes);
            assert_eq!(export(backend.as_ref(), &id), bytes, "{kind:?} {name}");
            let listed = backend.list().unwrap();
            assert_eq!(listed.len(), 1);
            assert_eq!(listed[0].id, id);
            assert_eq!(listed[0].bytes, bytes.len() as u64, "{kind:?} {name}");
        }
    }
}

#[test]
fn append_lands_only_on_the_planned_leaf() {
    for kind in kinds() {
        for (name, bytes) in shapes().into_iter().filter(|(name, _)| *name != "torn-tail") {
            let dir = tempfile::tempdir().unwrap();
            let (backend, id) = put(&kind, dir.path(), name, &bytes);
            let session = backend.read_session(&id).unwrap();
            let leaf = leaf_id(&session).unwrap();
            let line = |id: &str, parent: &str| {
                format!(
                    r#"{{"type":"custom","id":"{id}","parentId":"{parent}","timestamp":"2026-01-01T00:00:00.000Z","customType":"note"}}"#
                )
            };
            let first = vec![line("new00001", &leaf), line("new00002", "new00001")];
            backend.append_if_leaf(&id, Some(&leaf), &first).unwrap();
            let mut expected = bytes.clone();
            if expected.last() != Some(&b'\n') {
                expected.push(b'\n');
            }
            for appended in &first {
                expected.extend_from_slice(appended.as_bytes());
                expected.push(b'\n');
            }
            assert_eq!(export(backend.as_ref(), &id), expected, "{kind:?} {name}");

            // Planned against the old leaf: refused, nothing written.
            let late = vec![line("new00003", &leaf)];
            let error = backend.append_if_leaf(&id, Some(&leaf), &late).unwrap_err();
            assert!(matches!(error, BackendError::LeafMoved { .. }), "{kind:?} {name}: {error}");
            // An id in use, or an unknown parent: refused, nothing written.
            let taken = vec![line("new00004", "new00002"), line("new00001", "new00002")];
            assert!(backend.append_if_leaf(&id, Some("new00002"), &taken).is_err());
            let orphan = vec![line("new00005", "nosuchid")];
            assert!(backend.append_if_leaf(&id, Some("new00002"), &orphan).is_err());
            assert_eq!(export(backend.as_ref(), &id), expected, "{kind:?} {name}");

            let reread = reopen(&kind, dir.path(), name).read_session(&id).unwrap();
            assert_eq!(leaf_id(&reread).as_deref(), Some("new00002"));
        }
    }
}

#[test]
fn one_lease_holder_at_a_time() {
    for kind in kinds() {
        let dir = tempfile::tempdir().unwrap();
        let (first, id) = put(&kind, dir.path(), "s", small(3, false).as_bytes());
        let second = reopen(&kind, dir.path(), "s");
        let long = Duration::from_secs(600);
        assert!(first.try_lease(&id, "worker-a", long).unwrap());
        assert!(first.try_lease(&id, "worker-a", long).unwrap(), "{kind:?}: renewal");
        assert!(!second.try_lease(&id, "worker-b", long).unwrap(), "{kind:?}");
        // The holder appends under its lease.
        let session = first.read_session(&id).unwrap();
        let leaf = leaf_id(&session).unwrap();
        let line = format!(
            r#"{{"type":"custom","id":"lease001","parentId":"{leaf}","timestamp":"2026-01-01T00:00:00.000Z","customType":"note"}}"#
        );
        first.append_if_leaf(&id, Some(&leaf), &[line]).unwrap();
        first.release_lease(&id, "worker-a").unwrap();
        assert!(second.try_lease(&id, "worker-b", long).unwrap(), "{kind:?}");
        second.release_lease(&id, "worker-b").unwrap();
    }
}

#[test]
fn an_expired_lease_is_taken_over() {
    for kind in databases() {
        let dir = tempfile::tempdir().unwrap();
        let (first, id) = put(&kind, dir.path(), "s", small(3, false).as_bytes());
        let second = reopen(&kind, dir.path(), "s");
        // Both handles connected before the clock starts.
        second.list().unwrap();
        assert!(first.try_lease(&id, "worker-a", Duration::from_millis(1500)).unwrap());
        assert!(!second.try_lease(&id, "worker-b", Duration::from_secs(60)).unwrap(), "{kind:?}");
        std::thread::sleep(Duration::from_millis(1700));
        assert!(second.try_lease(&id, "worker-b", Duration::from_secs(60)).unwrap(), "{kind:?}");
        // The first holder's release no longer touches the second's lease.
        first.release_lease(&id, "worker-a").unwrap();
        assert!(!first.try_lease(&id, "worker-a", Duration::from_secs(60)).unwrap(), "{kind:?}");
    }
}

/// What the context at a leaf shows: each item's entry id, kind and edit, the thinking
/// level, the model and the token count.
fn shown(session: &Session, context: &SessionContext, estimator: &dyn TokenEstimator) -> String {
    let entries = session.entries();
    let items: Vec<String> = context
        .items
        .iter()
        .map(|item| {
            let edit = item.edit.map(|edit| entries[edit].id.as_str()).unwrap_or("-");
            format!("{}:{:?}:{edit}", entries[item.entry].id, item.kind)
        })
        .collect();
    let tokens = compaction_core::context_tokens(session, context, estimator).tokens;
    format!(
        "{} | {} | {:?} | {} tokens | pruned {:?}",
        items.join(" "),
        context.thinking_level,
        context.model,
        tokens,
        context.pruned.latest_position.is_some()
    )
}

/// The context a backend reads at a leaf (possibly only part of the path) equals the one
/// built from the whole file, at every leaf and at every 9th entry of generated sessions
/// with branches, compactions, pins, prunes, edits and model changes. Seeds split once:
/// seed % 3 == 0 is the test part, the rest dev.
#[test]
fn the_context_read_at_a_leaf_equals_the_whole_session_one() {
    let estimator = compaction_core::estimator_by_name("heuristic").unwrap();
    let mut mismatches = [0usize; 2];
    let mut checked = [0usize; 2];
    for seed in 0..9u64 {
        let part = usize::from(seed % 3 == 0);
        let text = small(seed, seed % 2 == 0);
        let whole = compaction_core::parse_session(text.as_bytes());
        let mut leaves: Vec<usize> = whole.leaves();
        leaves.extend((0..whole.entries().len()).step_by(9));
        for kind in kinds() {
            let dir = tempfile::tempdir().unwrap();
            let (backend, id) = put(&kind, dir.path(), "s", text.as_bytes());
            for &leaf in &leaves {
                let leaf_id = &whole.entries()[leaf].id;
                let expected =
                    shown(&whole, &build_context(&whole, Some(leaf)), estimator.as_ref());
                let read = backend.read_path(&id, Some(leaf_id)).unwrap();
                let actual = shown(&read.session, &read.context(), estimator.as_ref());
                checked[part] += 1;
                if actual != expected {
                    mismatches[part] += 1;
                    eprintln!("{kind:?} seed {seed} leaf {leaf_id}:\n  {expected}\n  {actual}");
                }
            }
        }
    }
    eprintln!(
        "context at a leaf: dev {} of {} differ, test {} of {} differ",
        mismatches[0], checked[0], mismatches[1], checked[1]
    );
    assert_eq!(mismatches, [0, 0]);
}

#[test]
fn a_database_of_another_schema_version_is_refused_not_changed() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("sessions.db");
    SqliteBackend::create(&path).unwrap();
    let connection = rusqlite::Connection::open(&path).unwrap();
    connection.pragma_update(None, "user_version", 99).unwrap();
    drop(connection);
    let error = SqliteBackend::open(&path).unwrap_err();
    assert!(matches!(error, BackendError::Schema { found: 99, .. }), "{error}");
    let error = SqliteBackend::migrate(&path).unwrap_err();
    assert!(matches!(error, BackendError::Schema { found: 99, .. }), "{error}");
    let connection = rusqlite::Connection::open(&path).unwrap();
    let version: i64 = connection.query_row("PRAGMA user_version", [], |row| row.get(0)).unwrap();
    assert_eq!(version, 99);
}

#[test]
fn an_older_format_file_is_refused_on_import() {
    let dir = tempfile::tempdir().unwrap();
    let backend = SqliteBackend::create(&dir.path().join("sessions.db")).unwrap();
    let v1 = "{\"type\":\"session\",\"id\":\"old\",\"timestamp\":\"t\",\"cwd\":\"/\"}\n\
              {\"type\":\"message\",\"timestamp\":\"t\",\"message\":{\"role\":\"user\",\"content\":\"hi\"}}\n";
    let error = backend.import_bytes(v1.as_bytes(), "old.jsonl").unwrap_err();
    assert!(error.to_string().contains("compaction migrate"), "{error}");
    assert!(backend.list().unwrap().is_empty());
}

#[test]
fn a_postgres_database_of_another_schema_version_is_refused_not_changed() {
    let Some(cluster) = Cluster::shared() else { return };
    let pw = password(&cluster);
    // A database without this tool's tables is not created by opening it.
    let empty = cluster.create_database();
    let url = PostgresUrl::parse(&cluster.url(&empty)).unwrap();
    let error = PostgresBackend::open_with(&url, &pw).unwrap_err();
    assert!(error.to_string().contains("store import"), "{error}");
    assert_eq!(
        cluster.psql(&empty, "SELECT count(*) FROM pg_namespace WHERE nspname = 'compaction'"),
        "0"
    );

    let database = cluster.create_database();
    let url = PostgresUrl::parse(&cluster.url(&database)).unwrap();
    let backend = PostgresBackend::create_with(&url, &pw).unwrap();
    backend.import_bytes(small(1, true).as_bytes(), "s.jsonl").unwrap();
    drop(backend);
    assert_eq!(PostgresBackend::migrate_with(&url, &pw).unwrap(), 1, "already current");
    cluster.psql(&database, "UPDATE compaction.schema_version SET version = 99");
    let error = PostgresBackend::open_with(&url, &pw).unwrap_err();
    assert!(matches!(error, BackendError::Schema { found: 99, .. }), "{error}");
    let error = PostgresBackend::migrate_with(&url, &pw).unwrap_err();
    assert!(matches!(error, BackendError::Schema { found: 99, .. }), "{error}");
    assert_eq!(cluster.psql(&database, "SELECT version FROM compaction.schema_version"), "99");
}

#[test]
fn a_wrong_postgres_password_fails_at_once_and_is_never_shown() {
    let Some(cluster) = Cluster::shared() else { return };
    let database = cluster.create_database();
    let url = PostgresUrl::parse(&cluster.url(&database)).unwrap();
    let started = std::time::Instant::now();
    let error = PostgresBackend::create_with(&url, &Password::given("not-the-password-42"))
        .unwrap_err()
        .to_string();
    assert!(started.elapsed() < Duration::from_secs(8), "took {:?}", started.elapsed());
    assert!(error.contains("password authentication failed"), "{error}");
    assert!(error.contains(&url.to_string()), "{error}");
    assert!(!error.contains("not-the-password-42") && !error.contains(cluster.password()));
}

/// Appends from many threads, each planned against the leaf it read: every entry lands once,
/// on the leaf it was planned against (the tree stays one chain), whatever the interleaving.
#[test]
fn concurrent_appends_each_land_once_on_their_planned_leaf() {
    for kind in databases() {
        let dir = tempfile::tempdir().unwrap();
        let (_, id) = put(&kind, dir.path(), "s", small(5, true).as_bytes());
        std::thread::scope(|scope| {
            for writer in 0..4 {
                let backend = reopen(&kind, dir.path(), "s");
                let id = &id;
                scope.spawn(move || {
                    for number in 0..10 {
                        let entry = format!("w{writer}n{number:02}");
                        loop {
                            let leaf = backend.list().unwrap()[0].leaf.clone().unwrap();
                            let line = format!(
                                r#"{{"type":"custom","id":"{entry}","parentId":"{leaf}","timestamp":"2026-01-01T00:00:00.000Z","customType":"note"}}"#
                            );
                            match backend.append_if_leaf(id, Some(&leaf), &[line]) {
                                Ok(()) => break,
                                Err(BackendError::LeafMoved { .. }) => continue,
                                Err(error) => panic!("{error}"),
                            }
                        }
                    }
                });
            }
        });
        let backend = reopen(&kind, dir.path(), "s");
        let session = compaction_core::parse_session(&export(backend.as_ref(), &id));
        assert!(session.diagnostics().is_empty(), "{kind:?}: {:?}", session.diagnostics());
        let appended: Vec<usize> = (0..session.entries().len())
            .filter(|&index| session.entries()[index].id.starts_with('w'))
            .collect();
        assert_eq!(appended.len(), 40, "{kind:?}");
        for pair in appended.windows(2) {
            assert_eq!(session.parent_of(pair[1]), Some(pair[0]), "{kind:?}: one chain");
        }
    }
}
