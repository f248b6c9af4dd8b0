//! What a command that fails late leaves: the parent folders a writing command created
//! before its write failed, and the tables `store import` created in a Postgres database
//! into which no session went. A failed command leaves every file, folder and table as it
//! was; a command that put something in keeps what it needs for it.
//!
//! Instances are numbered in the order generated; instance `i` is in the test part when
//! `i % 3 == 0`, else in the dev part (a rule fixed before the instances were run).

use std::process::Command;

use compaction_testdata::postgres::Cluster;

use super::{BAD_FILES, Folder, strings, tally};

/// Wrappers that make the write itself fail once the command got that far: a file size
/// limit of 0 (the write fails with `EFBIG`; the signal is ignored as a shell can set it),
/// and nothing (the output's name is then made too long for its scratch file).
const FILE_LIMIT: &[&str] = &["sh", "-c", "trap '' XFSZ; ulimit -f 0; exec \"$0\" \"$@\""];

#[test]
fn a_write_that_fails_leaves_no_folder_it_created() {
    // Where the output's folder is, relative to the work folder (`have` exists, `link` is a
    // symbolic link to it); every folder on the way after those is missing.
    let parents = ["new", "new/a/b", "have/new", "new/./a/../b", "link/new/c"];
    let long_name = format!("{}.jsonl", "n".repeat(245));
    let commands: [&[&str]; 4] = [
        &["export", "s.jsonl", "--format", "codex", "-o"],
        &["export", "s.jsonl", "--format", "claude-code", "-o"],
        &["import", "t.jsonl", "-o"],
        &["run", "s.jsonl", "--offline", "--keep-recent", "500", "--min-turns", "0", "-o"],
    ];
    // Each: the arguments, variables given through `env`, and whether the size limit is on.
    type Case<'a> = (Vec<String>, Vec<(&'a str, String)>, bool);
    let mut cases: Vec<Case<'_>> = Vec::new();
    for command in commands {
        for parent in parents {
            for limited in [true, false] {
                let name = if limited { "out.jsonl" } else { long_name.as_str() };
                let mut args = strings(command);
                args.push(format!("{parent}/{name}"));
                cases.push((args, Vec::new(), limited));
            }
        }
    }
    // Exports to the agents' own folders, named by their variables, the folders missing.
    for (format, variable) in [("codex", "CODEX_HOME"), ("claude-code", "CLAUDE_CONFIG_DIR")] {
        for home in ["agent-home", "have/agent-home"] {
            let args = strings(&["export", "s.jsonl", "--format", format]);
            cases.push((args, vec![(variable, home.to_owned())], true));
        }
    }
    let transcript =
        include_str!("../../../../compaction-core/tests/fixtures/import/claude-code.jsonl");
    let (mut dev, mut test) = ((0, 0), (0, 0));
    let mut failures = Vec::new();
    for (index, (args, env, limited)) in cases.iter().enumerate() {
        let folder = Folder::new();
        let work = folder.work();
        std::fs::copy(super::super::fixture("offline-coding.jsonl"), work.join("s.jsonl")).unwrap();
        std::fs::write(work.join("t.jsonl"), transcript).unwrap();
        std::fs::create_dir(work.join("have")).unwrap();
        std::os::unix::fs::symlink("have", work.join("link")).unwrap();
        let wrapper: &[&str] = if *limited { FILE_LIMIT } else { &[] };
        let mut args = args.clone();
        for (variable, value) in env {
            // The variables are given through `env`, which the wrapper runs first.
            args.insert(0, format!("{variable}={}", work.join(value).display()));
        }
        let wrapper: Vec<&str> =
            if env.is_empty() { wrapper.to_vec() } else { [wrapper, &["env"]].concat() };
        let start = folder.snapshot();
        let (code, stderr) = folder.run_through(&wrapper, &args);
        let end = folder.snapshot();
        let held = code != 0 && code != -2 && start == end;
        if !held {
            let changed: Vec<_> = end.iter().filter(|item| !start.contains(item)).collect();
            failures.push(format!(
                "#{index} `{}`: exit {code}, {changed:?}: {}",
                args.join(" "),
                stderr.trim()
            ));
        }
        tally(index, held, &mut dev, &mut test);
    }
    super::report("failed writes leave no folder", dev, test, &failures);
}

/// What an import is given: `in` or one file of it, and the files `in/` holds.
type Source<'a> = (&'a str, Vec<(&'a str, &'a [u8])>);

/// What a Postgres database holds of this tool: whether its schema exists, and the ids of
/// its sessions.
fn contents(cluster: &Cluster, database: &str) -> (bool, String) {
    let schema = cluster
        .psql(database, "SELECT count(*) FROM pg_namespace WHERE nspname = 'compaction'")
        == "1";
    let sessions = if schema {
        cluster.psql(database, "SELECT string_agg(id, ',' ORDER BY id) FROM compaction.sessions")
    } else {
        String::new()
    };
    (schema, sessions)
}

#[test]
fn a_postgres_import_that_puts_no_session_in_leaves_the_database_as_it_was() {
    let Some(cluster) = Cluster::shared() else { return };
    let session = std::fs::read(super::super::fixture("offline-coding.jsonl")).unwrap();
    let other = std::fs::read(super::super::fixture("small-linear.jsonl")).unwrap();
    let v1 = b"{\"type\":\"session\",\"id\":\"old\",\"timestamp\":\"t\",\"cwd\":\"/\"}\n\
               {\"type\":\"message\",\"timestamp\":\"t\",\"message\":{\"role\":\"user\",\"content\":\"hi\"}}\n";
    // The sources: what `in/` holds, and what is imported (`in` or one file of it).
    let sources: [Source<'_>; 6] = [
        ("in", BAD_FILES.to_vec()),
        ("in/garbage.jsonl", BAD_FILES[..1].to_vec()),
        ("in/old.jsonl", vec![("old.jsonl", v1)]),
        ("in", vec![("old.jsonl", v1), ("binary.jsonl", BAD_FILES[3].1)]),
        ("in", vec![("s.jsonl", &session), ("garbage.jsonl", BAD_FILES[0].1)]),
        ("in/dup.jsonl", vec![("dup.jsonl", &other)]),
    ];
    // The database first: empty; holding this tool's tables and one session (the one
    // `dup.jsonl` holds); holding the tables with no session in them.
    let states = ["empty", "holding", "tables only"];
    let (mut dev, mut test) = ((0, 0), (0, 0));
    let mut failures = Vec::new();
    let mut index = 0;
    for state in states {
        for (source, files) in &sources {
            let folder = Folder::new();
            let work = folder.work();
            std::fs::create_dir(work.join("in")).unwrap();
            for (name, bytes) in files {
                std::fs::write(work.join("in").join(name), bytes).unwrap();
            }
            let database = cluster.create_database();
            let url = cluster.url(&database);
            let import = |source: &str| {
                Command::new(env!("CARGO_BIN_EXE_compaction"))
                    .args(["store", "import", source, "--to", &url])
                    .current_dir(&work)
                    .env("HOME", work.join("home"))
                    .env("PGPASSWORD", cluster.password())
                    .env_remove("PGPASSFILE")
                    .output()
                    .unwrap()
            };
            if state != "empty" {
                std::fs::write(work.join("first.jsonl"), &other).unwrap();
                assert!(import("first.jsonl").status.success());
                std::fs::remove_file(work.join("first.jsonl")).unwrap();
                if state == "tables only" {
                    cluster.psql(&database, "DELETE FROM compaction.lines");
                    cluster.psql(&database, "DELETE FROM compaction.sessions");
                }
            }
            let before = contents(&cluster, &database);
            let output = import(source);
            let after = contents(&cluster, &database);
            let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
            let went_in = String::from_utf8_lossy(&output.stdout).contains("imported in/");
            let held = if went_in {
                // Something went in: the tables stay, with it.
                after.0 && after.1 != before.1 && !stderr.contains("panicked")
            } else {
                !output.status.success() && before == after
            };
            if !held {
                failures.push(format!(
                    "#{index} {state} database, `store import {source}`: exit {:?}, \
                     {before:?} → {after:?}: {}",
                    output.status.code(),
                    stderr.trim()
                ));
            }
            tally(index, held, &mut dev, &mut test);
            index += 1;
        }
    }
    super::report("failed Postgres imports leave the database", dev, test, &failures);
}

/// The SQLite twin of the Postgres suite, over what stands at the database's name first:
/// nothing, an empty file (as `touch` leaves), a store holding one session, a store whose
/// sessions were all removed. A failed import leaves every file byte-identical.
#[test]
fn a_sqlite_import_that_puts_no_session_in_leaves_every_file_as_it_was() {
    let session = std::fs::read(super::super::fixture("offline-coding.jsonl")).unwrap();
    let other = std::fs::read(super::super::fixture("small-linear.jsonl")).unwrap();
    let v1 = b"{\"type\":\"session\",\"id\":\"old\",\"timestamp\":\"t\",\"cwd\":\"/\"}\n\
               {\"type\":\"message\",\"timestamp\":\"t\",\"message\":{\"role\":\"user\",\"content\":\"hi\"}}\n";
    let sources: [Source<'_>; 6] = [
        ("in", BAD_FILES.to_vec()),
        ("in/garbage.jsonl", BAD_FILES[..1].to_vec()),
        ("in/old.jsonl", vec![("old.jsonl", v1)]),
        ("in", vec![("old.jsonl", v1), ("binary.jsonl", BAD_FILES[3].1)]),
        ("in", vec![("s.jsonl", &session), ("garbage.jsonl", BAD_FILES[0].1)]),
        ("in/dup.jsonl", vec![("dup.jsonl", &other)]),
    ];
    let states = ["missing", "empty file", "holding", "emptied"];
    let (mut dev, mut test) = ((0, 0), (0, 0));
    let mut failures = Vec::new();
    let mut index = 0;
    for state in states {
        for (source, files) in &sources {
            let folder = Folder::new();
            let work = folder.work();
            std::fs::create_dir(work.join("in")).unwrap();
            for (name, bytes) in files {
                std::fs::write(work.join("in").join(name), bytes).unwrap();
            }
            match state {
                "empty file" => std::fs::write(work.join("db.sqlite"), b"").unwrap(),
                "holding" | "emptied" => {
                    std::fs::write(work.join("first.jsonl"), &other).unwrap();
                    let (code, stderr) = folder.run(&strings(&[
                        "store",
                        "import",
                        "first.jsonl",
                        "--to",
                        "sqlite:db.sqlite",
                    ]));
                    assert_eq!(code, 0, "{stderr}");
                    std::fs::remove_file(work.join("first.jsonl")).unwrap();
                    if state == "emptied" {
                        let connection =
                            rusqlite::Connection::open(work.join("db.sqlite")).unwrap();
                        connection
                            .execute_batch("DELETE FROM lines; DELETE FROM sessions;")
                            .unwrap();
                    }
                }
                _ => {}
            }
            let start = folder.snapshot();
            let args = strings(&["store", "import", source, "--to", "sqlite:db.sqlite"]);
            let (code, stderr) = folder.run(&args);
            let end = folder.snapshot();
            let went_in = matches!(*source, "in") && files.iter().any(|(n, _)| *n == "s.jsonl")
                || (*source == "in/dup.jsonl" && state != "holding");
            let held = if went_in { code == 1 || code == 0 } else { code != 0 && start == end };
            if !held {
                let changed: Vec<_> = end.iter().filter(|item| !start.contains(item)).collect();
                failures.push(format!(
                    "#{index} {state}, `store import {source}`: exit {code}, {changed:?}: {}",
                    stderr.trim()
                ));
            }
            tally(index, held, &mut dev, &mut test);
            index += 1;
        }
    }
    super::report("failed SQLite imports leave every file", dev, test, &failures);
}

/// The misses as printed: those of the dev part in full, those of the test part by number
/// only (each starts with `#N `).
pub(super) fn dev_only(failures: &[String]) -> String {
    let shown: Vec<String> = failures
        .iter()
        .map(|failure| {
            let number = failure[1..].split(' ').next().and_then(|n| n.parse::<usize>().ok());
            match number {
                Some(n) if n.is_multiple_of(3) => format!("#{n} (test part)"),
                _ => failure.clone(),
            }
        })
        .collect();
    shown.join("\n")
}
