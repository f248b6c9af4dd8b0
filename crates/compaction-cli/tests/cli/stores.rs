//! `compaction store` and the commands that take `sqlite:DB#ID`: a session imported into a
//! database reads, counts, plans and compacts as its file does, and exports back unchanged.

use std::path::Path;
use std::process::{Command, Output};

use super::fixture;

const FIXTURES: [&str; 6] = [
    "pi16/branch-summaries.jsonl",
    "small-linear.jsonl",
    "branching.jsonl",
    "offline-coding.jsonl",
    "branch-two.jsonl",
    "damaged.jsonl",
];

fn compaction(args: &[&str], cwd: &Path) -> Output {
    let home = tempfile::tempdir().unwrap();
    Command::new(env!("CARGO_BIN_EXE_compaction"))
        .args(args)
        .current_dir(cwd)
        .env("HOME", home.path())
        .env_remove("PI_CODING_AGENT_DIR")
        .env_remove("OPENAI_API_KEY")
        .env_remove("ANTHROPIC_API_KEY")
        .output()
        .unwrap()
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
fn imported() -> (tempfile::TempDir, Vec<(String, String)>) {
    let dir = tempfile::tempdir().unwrap();
    let sessions = dir.path().join("sessions/--project--");
    std::fs::create_dir_all(&sessions).unwrap();
    for name in FIXTURES {
        std::fs::copy(fixture(name), sessions.join(base(name))).unwrap();
    }
    let out = compaction(&["store", "import", "sessions", "--to", "sqlite:db.sqlite"], dir.path());
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}{}", String::from_utf8_lossy(&out.stderr));
    assert!(stdout.contains("6 sessions imported"), "{stdout}");
    let pairs = FIXTURES
        .iter()
        .map(|name| {
            let file = format!("sessions/--project--/{}", base(name));
            let locator = format!("sqlite:db.sqlite#{}", session_id(&dir.path().join(&file)));
            (file, locator)
        })
        .collect();
    (dir, pairs)
}

#[test]
fn read_only_commands_print_the_same_for_a_file_and_its_imported_session() {
    let (dir, pairs) = imported();
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
            let actual = compaction(&on_database, dir.path());
            let text = |out: &Output| String::from_utf8_lossy(&out.stdout).replace(file, "S");
            let database_text = String::from_utf8_lossy(&actual.stdout).replace(locator, "S");
            assert_eq!(expected.status.code(), actual.status.code(), "{command:?} {file}");
            assert_eq!(text(&expected), database_text, "{command:?} {file}");
        }
    }
}

#[test]
fn export_gives_back_each_imported_file_and_refuses_to_overwrite() {
    let (dir, pairs) = imported();
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
    let out = compaction(&["store", "import", &pairs[0].0, "--to", "sqlite:db.sqlite"], dir.path());
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("already exists"));
    let listed = compaction(&["store", "list", "sqlite:db.sqlite", "--json"], dir.path());
    let listed: serde_json::Value = serde_json::from_slice(&listed.stdout).unwrap();
    assert_eq!(listed.as_array().unwrap().len(), FIXTURES.len());
    for row in listed.as_array().unwrap() {
        assert!(row["contextTokens"].as_u64().is_some(), "{row}");
    }
}

#[test]
fn run_on_a_database_session_appends_the_compaction_there() {
    let (dir, pairs) = imported();
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
