//! `compaction store` and the commands that take `sqlite:DB#ID` or
//! `postgres://USER@HOST:PORT/DB#ID`: a session imported into a database reads, counts, plans
//! and compacts as its file does, and exports back unchanged. The Postgres runs use a
//! throwaway cluster (skipped, saying why, only where Postgres is not installed), with the
//! password in a `~/.pgpass` file.

use std::path::Path;
use std::process::{Command, Output};
use std::sync::Arc;

use compaction_testdata::postgres::Cluster;

use super::fixture;

/// The database the sessions are imported into.
struct Target {
    /// `sqlite:db.sqlite`, or the URL of a Postgres database of its own.
    store: String,
    cluster: Option<Arc<Cluster>>,
}

/// SQLite, and Postgres where it is installed.
fn targets() -> Vec<Target> {
    let mut targets = vec![Target { store: "sqlite:db.sqlite".to_owned(), cluster: None }];
    if let Some(cluster) = Cluster::shared() {
        let store = cluster.url(&cluster.create_database());
        targets.push(Target { store, cluster: Some(cluster) });
    }
    targets
}

const FIXTURES: [&str; 6] = [
    "pi16/branch-summaries.jsonl",
    "small-linear.jsonl",
    "branching.jsonl",
    "offline-coding.jsonl",
    "branch-two.jsonl",
    "damaged.jsonl",
];

/// Runs the binary in a fresh home; for a Postgres target, the home's `~/.pgpass` (mode 0600)
/// holds the password, and `PGPASSWORD` is unset.
fn compaction_on(target: &Target, args: &[&str], cwd: &Path) -> Output {
    use std::os::unix::fs::PermissionsExt;
    let home = tempfile::tempdir().unwrap();
    if let Some(cluster) = &target.cluster {
        let pgpass = home.path().join(".pgpass");
        let line = format!("127.0.0.1:{}:*:postgres:{}\n", cluster.port(), cluster.password());
        std::fs::write(&pgpass, line).unwrap();
        std::fs::set_permissions(&pgpass, std::fs::Permissions::from_mode(0o600)).unwrap();
    }
    Command::new(env!("CARGO_BIN_EXE_compaction"))
        .args(args)
        .current_dir(cwd)
        .env("HOME", home.path())
        .env_remove("PGPASSWORD")
        .env_remove("PGPASSFILE")
        .env_remove("PI_CODING_AGENT_DIR")
        .env_remove("OPENAI_API_KEY")
        .env_remove("ANTHROPIC_API_KEY")
        .output()
        .unwrap()
}

fn compaction(args: &[&str], cwd: &Path) -> Output {
    compaction_on(&Target { store: String::new(), cluster: None }, args, cwd)
}

fn base(name: &str) -> &str {
    name.rsplit('/').next().unwrap_or(name)
}

fn session_id(file: &Path) -> String {
    let text = std::fs::read_to_string(file).unwrap();
    let header: serde_json::Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    header["id"].as_str().unwrap().to_owned()
}

/// A directory holding copies of the fixtures (in a subdirectory, as pi keeps them), and a
/// database they were imported into with one `store import` of the directory.
fn imported(target: &Target) -> (tempfile::TempDir, Vec<(String, String)>) {
    let dir = tempfile::tempdir().unwrap();
    let sessions = dir.path().join("sessions/--project--");
    std::fs::create_dir_all(&sessions).unwrap();
    for name in FIXTURES {
        std::fs::copy(fixture(name), sessions.join(base(name))).unwrap();
    }
    let out =
        compaction_on(target, &["store", "import", "sessions", "--to", &target.store], dir.path());
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}{}", String::from_utf8_lossy(&out.stderr));
    assert!(stdout.contains("6 sessions imported"), "{stdout}");
    let pairs = FIXTURES
        .iter()
        .map(|name| {
            let file = format!("sessions/--project--/{}", base(name));
            let locator = format!("{}#{}", target.store, session_id(&dir.path().join(&file)));
            (file, locator)
        })
        .collect();
    (dir, pairs)
}

#[test]
fn read_only_commands_print_the_same_for_a_file_and_its_imported_session() {
    for target in targets() {
        read_only_commands_print_the_same(&target);
    }
}

fn read_only_commands_print_the_same(target: &Target) {
    let (dir, pairs) = imported(target);
    for (file, locator) in &pairs {
        for command in [
            vec!["context"],
            vec!["context", "--json"],
            vec!["tokens", "--json"],
            vec!["plan", "--json"],
            vec!["stats", "--json"],
            vec!["tree"],
        ] {
            let mut on_file = command.clone();
            on_file.push(file);
            let mut on_database = command.clone();
            on_database.push(locator);
            let expected = compaction(&on_file, dir.path());
            let actual = compaction_on(target, &on_database, dir.path());
            let text = |out: &Output| String::from_utf8_lossy(&out.stdout).replace(file, "S");
            let database_text = String::from_utf8_lossy(&actual.stdout).replace(locator, "S");
            assert_eq!(expected.status.code(), actual.status.code(), "{command:?} {file}");
            assert_eq!(text(&expected), database_text, "{command:?} {file}");
        }
    }
}

#[test]
fn export_gives_back_each_imported_file_and_refuses_to_overwrite() {
    for target in targets() {
        export_gives_back_each_imported_file(&target);
    }
}

fn export_gives_back_each_imported_file(target: &Target) {
    let compaction = |args: &[&str], cwd: &Path| compaction_on(target, args, cwd);
    let (dir, pairs) = imported(target);
    for (number, (file, locator)) in pairs.iter().enumerate() {
        let output = format!("out{number}.jsonl");
        let out = compaction(&["store", "export", locator, "-o", &output], dir.path());
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        assert_eq!(
            std::fs::read(dir.path().join(&output)).unwrap(),
            std::fs::read(dir.path().join(file)).unwrap(),
            "{file}"
        );
        let again = compaction(&["store", "export", locator, "-o", &output], dir.path());
        assert_eq!(again.status.code(), Some(2));
        assert!(String::from_utf8_lossy(&again.stderr).contains("--force"));
    }
    // Importing a session again is refused, and says which.
    let out = compaction(&["store", "import", &pairs[0].0, "--to", &target.store], dir.path());
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("already exists"));
    let listed = compaction(&["store", "list", &target.store, "--json"], dir.path());
    let listed: serde_json::Value = serde_json::from_slice(&listed.stdout).unwrap();
    assert_eq!(listed.as_array().unwrap().len(), FIXTURES.len());
    for row in listed.as_array().unwrap() {
        assert!(row["contextTokens"].as_u64().is_some(), "{row}");
    }
    // The schema is current: migrate has nothing to do.
    let out = compaction(&["store", "migrate", &target.store], dir.path());
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stdout).contains("nothing to do"));
}

#[test]
fn run_on_a_database_session_appends_the_compaction_there() {
    for target in targets() {
        run_appends_the_compaction_there(&target);
    }
}

fn run_appends_the_compaction_there(target: &Target) {
    let compaction = |args: &[&str], cwd: &Path| compaction_on(target, args, cwd);
    let (dir, pairs) = imported(target);
    let (file, locator) = &pairs[3];
    let before = std::fs::read(dir.path().join(file)).unwrap();
    let args = ["run", locator, "--keep-recent", "200", "--json", "--quiet"];
    let out = compaction(&args, dir.path());
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let result: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(result["compacted"], true, "{result}");
    let exported = dir.path().join("after.jsonl");
    let out = compaction(&["store", "export", locator, "-o", "after.jsonl"], dir.path());
    assert!(out.status.success());
    let after = std::fs::read(&exported).unwrap();
    assert!(after.starts_with(&before), "the imported bytes stay as they were");
    let last = after[before.len()..].split(|&b| b == b'\n').rfind(|l| !l.is_empty()).unwrap();
    let entry: serde_json::Value = serde_json::from_slice(last).unwrap();
    assert_eq!(entry["type"], "compaction");
    assert_eq!(entry["id"], result["entryId"]);
    // The database's context is the exported file's.
    let on_database = compaction(&["context", locator], dir.path());
    let on_file = compaction(&["context", "after.jsonl"], dir.path());
    assert_eq!(on_database.stdout, on_file.stdout);
}

/// A password written into a Postgres URL is refused before anything connects, and no
/// message repeats it; a password file others may read is refused, naming it.
#[test]
fn a_password_in_a_postgres_url_is_refused_and_never_printed() {
    let dir = tempfile::tempdir().unwrap();
    let url = "postgres://ann:hunter2-secret@127.0.0.1:1/fleet";
    for args in [
        vec!["context".to_owned(), format!("{url}#s1")],
        vec!["store".to_owned(), "list".to_owned(), url.to_owned()],
        vec![
            "store".to_owned(),
            "import".to_owned(),
            ".".to_owned(),
            "--to".to_owned(),
            url.to_owned(),
        ],
        vec!["worker".to_owned(), "--store".to_owned(), url.to_owned(), "--once".to_owned()],
    ] {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let out = compaction(&args, dir.path());
        let all = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        assert_eq!(out.status.code(), Some(2), "{args:?}: {all}");
        assert!(all.contains("PGPASSWORD"), "{args:?}: {all}");
        assert!(all.contains("postgres://ann@127.0.0.1:1/fleet"), "{args:?}: {all}");
        assert!(!all.contains("hunter2"), "{args:?}: {all}");
    }

    use std::os::unix::fs::PermissionsExt;
    let home = tempfile::tempdir().unwrap();
    let pgpass = home.path().join(".pgpass");
    std::fs::write(&pgpass, "*:*:*:*:hunter2-secret\n").unwrap();
    std::fs::set_permissions(&pgpass, std::fs::Permissions::from_mode(0o644)).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_compaction"))
        .args(["store", "list", "postgres://ann@127.0.0.1:1/fleet"])
        .env("HOME", home.path())
        .env_remove("PGPASSWORD")
        .env_remove("PGPASSFILE")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains(&pgpass.display().to_string()) && stderr.contains("chmod 0600"),
        "{stderr}"
    );
    assert!(!stderr.contains("hunter2"), "{stderr}");
}
