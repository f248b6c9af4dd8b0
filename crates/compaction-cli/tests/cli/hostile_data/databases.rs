//! A database is hostile input: a SQLite store file made by someone else, given to every
//! command that opens a store. Code in triggers on this tool's tables (SQL that would run
//! when the tool writes), views in place of its tables, objects it did not create or ones it
//! needs missing, other or future schema versions, rows with lying sizes or values of the
//! wrong type, files that are no database, a FIFO, folder or device at the name, a rollback
//! journal or a write-ahead log from someone else beside it.
//!
//! Held: a database holding code or a schema this tool did not create, a version it does not
//! know, or no database at all is refused (an exit status of 1 or 2, no crash, no hang), the
//! error names the file, and every file in the folder is byte-identical afterwards (the
//! database, its companions, no output made). Rows with odd values (not refused by rule) may
//! be read, but never crash a command, and a command that fails leaves every file as it was.

use std::path::{Path, PathBuf};

use rusqlite::Connection;

use super::{Tally, changes, instance_root, run_in, snapshot, strings};

/// How one shape is made from a good database at `db` (in the instance's work folder).
type Make = Box<dyn Fn(&Path)>;

struct Shape {
    name: String,
    /// Whether every command must refuse it.
    must_refuse: bool,
    make: Make,
}

fn sql(statements: &'static str) -> Make {
    Box::new(move |db: &Path| {
        let connection = Connection::open(db).unwrap();
        connection.execute_batch(statements).unwrap();
    })
}

fn sql_owned(statements: String) -> Make {
    Box::new(move |db: &Path| {
        let connection = Connection::open(db).unwrap();
        connection.execute_batch(&statements).unwrap();
    })
}

fn bytes(content: Vec<u8>) -> Make {
    Box::new(move |db: &Path| std::fs::write(db, &content).unwrap())
}

fn companion(db: &Path, suffix: &str) -> PathBuf {
    let mut name = db.as_os_str().to_owned();
    name.push(suffix);
    PathBuf::from(name)
}

/// A rollback journal of another copy of the database, taken in the middle of a write that
/// changed every line: a hot journal SQLite would play back into the database on open.
fn hot_journal(db: &Path) {
    let other = db.with_file_name("other.sqlite");
    std::fs::copy(db, &other).unwrap();
    let connection = Connection::open(&other).unwrap();
    let _: String = connection.query_row("PRAGMA journal_mode=DELETE", [], |r| r.get(0)).unwrap();
    connection
        .execute_batch(
            "PRAGMA cache_size=1; BEGIN IMMEDIATE; \
             UPDATE lines SET bytes = zeroblob(length(bytes)); \
             UPDATE sessions SET bytes = 1;",
        )
        .unwrap();
    std::fs::copy(companion(&other, "-journal"), companion(db, "-journal")).unwrap();
    connection.execute_batch("ROLLBACK").unwrap();
    drop(connection);
    for suffix in ["", "-journal", "-wal", "-shm"] {
        let _ = std::fs::remove_file(companion(&other, suffix));
    }
}

/// A write-ahead log of another copy of the database in which a trigger was created, left
/// beside the database (the log SQLite reads as part of it).
fn foreign_wal(db: &Path) {
    let other = db.with_file_name("other.sqlite");
    std::fs::copy(db, &other).unwrap();
    let connection = Connection::open(&other).unwrap();
    let _: String = connection.query_row("PRAGMA journal_mode=WAL", [], |r| r.get(0)).unwrap();
    connection
        .execute_batch(
            "PRAGMA wal_autocheckpoint=0; CREATE TABLE pwned (what TEXT); \
             CREATE TRIGGER spy AFTER INSERT ON lines BEGIN INSERT INTO pwned VALUES ('x'); END;",
        )
        .unwrap();
    std::fs::copy(companion(&other, "-wal"), companion(db, "-wal")).unwrap();
    // Closing checkpoints the other copy; the log beside `db` stays as it was copied.
    drop(connection);
    for suffix in ["", "-journal", "-wal", "-shm"] {
        let _ = std::fs::remove_file(companion(&other, suffix));
    }
}

fn shapes(good: &[u8], session_text: &str) -> Vec<Shape> {
    let mut shapes = Vec::new();
    let mut add = |name: String, must_refuse: bool, make: Make| {
        shapes.push(Shape { name, must_refuse, make });
    };
    // Code: a trigger on each of the tool's tables for each event.
    let mut n = 0;
    for table in ["sessions", "lines", "leases"] {
        for event in ["INSERT", "UPDATE", "DELETE"] {
            let timing = if n % 2 == 0 { "AFTER" } else { "BEFORE" };
            n += 1;
            add(
                format!("a trigger {timing} {event} ON {table}"),
                true,
                sql_owned(format!(
                    "CREATE TABLE pwned (what TEXT); CREATE TRIGGER spy_{n} {timing} {event} \
                     ON {table} BEGIN INSERT INTO pwned VALUES ('{table} {event}'); END;"
                )),
            );
        }
    }
    add(
        "a trigger that silently drops appended lines".into(),
        true,
        sql("CREATE TRIGGER drop_lines BEFORE INSERT ON lines BEGIN SELECT RAISE(IGNORE); END;"),
    );
    add(
        "a trigger with a WHEN clause rewriting sessions".into(),
        true,
        sql("CREATE TRIGGER shrink AFTER UPDATE ON sessions WHEN new.lines > 1 \
             BEGIN UPDATE sessions SET bytes = 0 WHERE sid = new.sid; END;"),
    );
    // Views and objects the tool did not create, or ones it needs missing.
    add(
        "`sessions` is a view over another table".into(),
        true,
        sql("ALTER TABLE sessions RENAME TO real_sessions; \
             CREATE VIEW sessions AS SELECT * FROM real_sessions;"),
    );
    add(
        "`lines` is a view over another table".into(),
        true,
        sql("ALTER TABLE lines RENAME TO real_lines; \
             CREATE VIEW lines AS SELECT * FROM real_lines;"),
    );
    add("an extra view".into(), true, sql("CREATE VIEW recent AS SELECT * FROM lines;"));
    add("an extra table".into(), true, sql("CREATE TABLE notes (text TEXT);"));
    add("an extra index".into(), true, sql("CREATE INDEX by_bytes ON lines (bytes);"));
    add(
        "an index on an expression".into(),
        true,
        sql("CREATE INDEX by_length ON lines (length(bytes));"),
    );
    add("an index of the tool missing".into(), true, sql("DROP INDEX lines_type;"));
    add(
        "a table of the tool with other columns".into(),
        true,
        sql("DROP TABLE leases; CREATE TABLE leases (sid INTEGER PRIMARY KEY, holder TEXT, \
             expires_ms INTEGER, note TEXT);"),
    );
    // Schema versions.
    for version in ["0", "2", "99", "-1", "1099511627776"] {
        add(
            format!("schema version {version}"),
            true,
            sql_owned(format!("PRAGMA user_version = {version};")),
        );
    }
    // Rows with lying or ill-typed values.
    for (name, statement) in [
        ("a session's byte count of i64::MAX", "UPDATE sessions SET bytes = 9223372036854775807;"),
        ("a session's line count of i64::MAX", "UPDATE sessions SET lines = 9223372036854775807;"),
        ("a negative line count", "UPDATE sessions SET lines = -5;"),
        ("a leaf on a line that does not exist", "UPDATE sessions SET leaf_seq = 123456;"),
        ("a line stored as text", "UPDATE lines SET bytes = CAST(bytes AS TEXT) WHERE seq = 2;"),
        ("an entry id stored as a blob", "UPDATE lines SET id = X'ff00' WHERE seq = 3;"),
        (
            "a line that is not JSON",
            "UPDATE lines SET bytes = CAST('{\"type\":' AS BLOB) WHERE seq = 4;",
        ),
        ("a text in a flag column", "UPDATE sessions SET final_newline = 'yes', indexed = 'no';"),
        ("a path column pointing at itself", "UPDATE lines SET parent_seq = seq WHERE seq > 1;"),
    ] {
        add(name.to_owned(), false, sql(statement));
    }
    // No database at all.
    let mut noise = Vec::with_capacity(8192);
    let mut state = 0x2545_f491_4f6c_dd1du64;
    for _ in 0..8192 {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        noise.push((state >> 24) as u8);
    }
    add("random bytes".into(), true, bytes(noise));
    add("a pi session file".into(), true, bytes(session_text.as_bytes().to_vec()));
    add("the first 4 KiB of a database".into(), true, bytes(good[..4096].to_vec()));
    let mut zeroed = good.to_vec();
    zeroed[..16].fill(0);
    add("a database whose header is zeroed".into(), true, bytes(zeroed));
    let mut wrong_page = good.to_vec();
    wrong_page[16] = 0x03;
    add("a database with an impossible page size".into(), true, bytes(wrong_page));
    add("an empty file".into(), false, bytes(Vec::new()));
    // Not a file.
    add(
        "a FIFO".into(),
        true,
        Box::new(|db: &Path| {
            std::fs::remove_file(db).unwrap();
            assert!(std::process::Command::new("mkfifo").arg(db).status().unwrap().success());
        }),
    );
    add(
        "a link to a FIFO".into(),
        true,
        Box::new(|db: &Path| {
            std::fs::remove_file(db).unwrap();
            let fifo = db.with_file_name("pipe");
            assert!(std::process::Command::new("mkfifo").arg(fifo).status().unwrap().success());
            std::os::unix::fs::symlink("pipe", db).unwrap();
        }),
    );
    add(
        "a folder".into(),
        true,
        Box::new(|db: &Path| {
            std::fs::remove_file(db).unwrap();
            std::fs::create_dir(db).unwrap();
        }),
    );
    add(
        "a link to /dev/zero".into(),
        true,
        Box::new(|db: &Path| {
            std::fs::remove_file(db).unwrap();
            std::os::unix::fs::symlink("/dev/zero", db).unwrap();
        }),
    );
    // Companions from someone else.
    add("a hot rollback journal beside it".into(), true, Box::new(hot_journal));
    add("a write-ahead log holding a trigger beside it".into(), true, Box::new(foreign_wal));
    add(
        "an empty rollback journal beside it".into(),
        false,
        Box::new(|db: &Path| std::fs::write(companion(db, "-journal"), b"").unwrap()),
    );
    add(
        "a write-ahead log of random bytes beside it".into(),
        false,
        Box::new(|db: &Path| std::fs::write(companion(db, "-wal"), [7u8; 4096]).unwrap()),
    );
    shapes
}

/// The commands that open a store, as arguments (`ID`: the session id).
const COMMANDS: [&[&str]; 7] = [
    &["store", "list", "sqlite:db.sqlite"],
    &["stats", "sqlite:db.sqlite#ID"],
    &["store", "export", "sqlite:db.sqlite#ID", "-o", "out.jsonl"],
    &["run", "sqlite:db.sqlite#ID", "--keep-recent", "500", "--min-turns", "0"],
    &["store", "import", "other.jsonl", "--to", "sqlite:db.sqlite"],
    &["store", "migrate", "sqlite:db.sqlite"],
    &[
        "worker",
        "--store",
        "sqlite:db.sqlite",
        "--once",
        "--keep-recent",
        "500",
        "--min-turns",
        "0",
        "--context-window",
        "4000",
        "--reserve",
        "2000",
    ],
];

#[test]
fn a_database_made_by_someone_else_is_refused_naming_it_and_left_as_it_was() {
    // A good store, made once by the tool itself.
    let (template, work, tmp, home) = instance_root();
    let fixture = std::fs::read_to_string(super::super::fixture("offline-coding.jsonl")).unwrap();
    std::fs::write(work.join("s.jsonl"), &fixture).unwrap();
    let made = run_in(
        &work,
        &home,
        &tmp,
        &strings(&["store", "import", "s.jsonl", "--to", "sqlite:db.sqlite"]),
        &[],
    );
    assert_eq!(made.code, 0, "{}", made.stderr);
    let good = std::fs::read(work.join("db.sqlite")).unwrap();
    let header: serde_json::Value = serde_json::from_str(fixture.lines().next().unwrap()).unwrap();
    let id = header["id"].as_str().unwrap().to_owned();
    let other = fixture.replacen(&id, "0190bbbb-2222-7000-8000-00000000beef", 1);
    drop(template);

    let mut tally = Tally::default();
    let mut index = 0;
    for shape in shapes(&good, &fixture) {
        for command in COMMANDS {
            let (root, work, tmp, home) = instance_root();
            let db = work.join("db.sqlite");
            std::fs::write(&db, &good).unwrap();
            std::fs::write(work.join("other.jsonl"), &other).unwrap();
            (shape.make)(&db);
            let before = snapshot(root.path());
            let args: Vec<String> = command.iter().map(|arg| arg.replace("ID", &id)).collect();
            let ran = run_in(&work, &home, &tmp, &args, &[]);
            let changed = changes(&before, &snapshot(root.path()));
            let what = format!("{} × `{}`", shape.name, command[..2].join(" "));
            let names_it = ran.stderr.contains("db.sqlite");
            let miss = match ran.code {
                -2 => Some(format!("{what}: hung")),
                0 if shape.must_refuse => Some(format!(
                    "{what}: accepted (stdout {:?}, changed {changed:?})",
                    ran.stdout.chars().take(200).collect::<String>()
                )),
                0 => None,
                1 | 2 if !names_it => {
                    Some(format!("{what}: the error does not name the file: {}", ran.stderr.trim()))
                }
                1 | 2 if !changed.is_empty() => {
                    Some(format!("{what}: failed ({}) but changed {changed:?}", ran.stderr.trim()))
                }
                1 | 2 => None,
                code => Some(format!("{what}: exit {code}: {}", ran.stderr.trim())),
            };
            tally.count(index, miss);
            index += 1;
        }
    }
    tally.report("databases made by someone else");
}
