//! `compaction store`: import pi files into a database, export one back, list, migrate; and
//! the locator handling every session-reading command shares.

use std::path::{Path, PathBuf};
use std::time::Instant;

use compaction::stores::postgres::{PostgresBackend, PostgresUrl};
use compaction::stores::sqlite::{Imported, SqliteBackend};
use compaction::stores::{BackendError, Locator, PathRead, SessionBackend};
use serde_json::json;

use super::{CommandError, ErrorKind, ExitStatus};
use crate::cli::{SessionArgs, StoreArgs, StoreCommand};
use crate::output::{plural, print_json};

/// A backend error as a command error of the right kind.
pub fn backend_error(error: &BackendError) -> anyhow::Error {
    match error {
        BackendError::Store(store) => CommandError::store(store),
        BackendError::Io { .. } => CommandError::with_kind(ErrorKind::Io, error.to_string()),
        BackendError::LeafMoved { .. } => {
            CommandError::with_kind(ErrorKind::Failed, error.to_string())
        }
        BackendError::Database { .. }
        | BackendError::NotFound { .. }
        | BackendError::Exists { .. }
        | BackendError::Schema { .. }
        | BackendError::Invalid { .. } => {
            CommandError::with_kind(ErrorKind::Input, error.to_string())
        }
    }
}

fn locator(text: &str) -> anyhow::Result<Locator> {
    Locator::parse(text).map_err(|e| CommandError::usage(e.to_string()))
}

fn open(locator: &Locator) -> anyhow::Result<Box<dyn SessionBackend>> {
    compaction::stores::open(locator).map_err(|e| backend_error(&e))
}

/// The database and session a path argument names, or `None` for a pi file.
pub fn database_session(path: &Path) -> anyhow::Result<Option<(Box<dyn SessionBackend>, String)>> {
    let locator = Locator::from_path(path).map_err(|e| CommandError::usage(e.to_string()))?;
    if locator.is_file() {
        return Ok(None);
    }
    let backend = open(&locator)?;
    let id = compaction::stores::session_id(&locator, backend.as_ref())
        .map_err(|e| backend_error(&e))?;
    Ok(Some((backend, id)))
}

/// What the context at the session's leaf needs: from a database, only that part of the
/// path; from a file, the whole session.
pub fn read_path(args: &SessionArgs) -> anyhow::Result<PathRead> {
    if let Some((backend, id)) = database_session(&args.file)? {
        return backend.read_path(&id, args.leaf.as_deref()).map_err(|e| backend_error(&e));
    }
    let (session, leaf) = super::load_with_leaf(args)?;
    Ok(PathRead::whole(session, leaf))
}

pub fn run(args: &StoreArgs) -> anyhow::Result<ExitStatus> {
    let json = args.json;
    match &args.command {
        StoreCommand::Import { source, to } => import(source, to, json),
        StoreCommand::Export { session, output, force } => export(session, output, *force, json),
        StoreCommand::List { store, estimator } => list(store, estimator.clone(), json),
        StoreCommand::Migrate { store } => migrate(store, json),
    }
}

/// A database a `store import` or `store migrate` names (not one of its sessions).
enum Database {
    Sqlite(PathBuf),
    Postgres(PostgresUrl),
}

fn database(locator: &Locator, verb: &str) -> anyhow::Result<Database> {
    match locator {
        Locator::Sqlite { path, session: None } => Ok(Database::Sqlite(path.clone())),
        Locator::Postgres { url, session: None } => Ok(Database::Postgres(url.clone())),
        Locator::Sqlite { session: Some(_), .. } | Locator::Postgres { session: Some(_), .. } => {
            Err(CommandError::usage(format!("`{locator}`: {verb} takes a database, not a session")))
        }
        Locator::File(_) => Err(CommandError::usage(format!(
            "`{locator}` is a file; {verb} takes a database such as `sqlite:sessions.db` or \
             `postgres://USER@HOST:PORT/DB`"
        ))),
    }
}

/// A database sessions are imported into (created when it has no tables yet).
enum Importer {
    Sqlite(SqliteBackend),
    Postgres(PostgresBackend),
}

impl Importer {
    fn create(database: &Database) -> Result<Importer, BackendError> {
        Ok(match database {
            Database::Sqlite(path) => Importer::Sqlite(SqliteBackend::create(path)?),
            Database::Postgres(url) => Importer::Postgres(PostgresBackend::create(url)?),
        })
    }

    fn import_file(&self, file: &Path) -> Result<Imported, BackendError> {
        match self {
            Importer::Sqlite(backend) => backend.import_file(file),
            Importer::Postgres(backend) => backend.import_file(file),
        }
    }

    fn describe(&self) -> String {
        match self {
            Importer::Sqlite(backend) => backend.describe(),
            Importer::Postgres(backend) => backend.describe(),
        }
    }
}

/// Every `.jsonl` file under `dir`, sorted.
fn session_files(dir: &Path, found: &mut Vec<PathBuf>) -> anyhow::Result<()> {
    let entries = std::fs::read_dir(dir)
        .map_err(|e| CommandError::io(format!("cannot read directory {}", dir.display()), e))?;
    for entry in entries {
        let entry =
            entry.map_err(|e| CommandError::io(format!("cannot read {}", dir.display()), e))?;
        let kind = entry
            .file_type()
            .map_err(|e| CommandError::io(format!("cannot read {}", entry.path().display()), e))?;
        let path = entry.path();
        if kind.is_dir() {
            session_files(&path, found)?;
        } else if kind.is_file() && path.extension().is_some_and(|ext| ext == "jsonl") {
            found.push(path);
        }
    }
    Ok(())
}

fn import(source: &Path, to: &str, json: bool) -> anyhow::Result<ExitStatus> {
    let database = database(&locator(to)?, "store import")?;
    let mut files = Vec::new();
    if source.is_dir() {
        session_files(source, &mut files)?;
        files.sort();
    } else {
        // A single file must be a regular one before the database is created or changed.
        compaction::disk::open_regular(source).map_err(CommandError::disk)?;
        files.push(source.to_path_buf());
    }
    // A database this import creates is taken back when no session could be put in it: a
    // failed command leaves no file behind (and, in Postgres, no table).
    let created = match &database {
        Database::Sqlite(path) => SqliteMade::before(path),
        Database::Postgres(_) => None,
    };
    let backend = match Importer::create(&database) {
        Ok(backend) => backend,
        Err(error) => {
            remove_sqlite_files(created.as_ref());
            return Err(backend_error(&error));
        }
    };
    let started = Instant::now();
    let (mut bytes, mut imported, mut failed) = (0u64, Vec::new(), Vec::new());
    for file in &files {
        match backend.import_file(file) {
            Ok(done) => {
                bytes += done.bytes;
                if !json {
                    println!(
                        "imported {} as {}#{} ({} lines, {} bytes)",
                        file.display(),
                        backend.describe(),
                        done.session,
                        done.lines,
                        done.bytes
                    );
                }
                imported.push(json!({"file": file, "session": done.session, "lines": done.lines, "bytes": done.bytes, "indexed": done.indexed}));
            }
            Err(error) => {
                if !json {
                    crate::output::eprint_shown(&format!(
                        "error: {}: not imported: {error}",
                        file.display()
                    ));
                }
                failed.push(json!({"file": file, "error": error.to_string()}));
            }
        }
    }
    let seconds = started.elapsed().as_secs_f64();
    if imported.is_empty() && !files.is_empty() {
        if let Importer::Postgres(postgres) = &backend {
            // The tables this import created go too; one that cannot be removed is said.
            if let Err(error) = postgres.remove_if_unused() {
                eprintln!("warning: the tables this import created could not be removed: {error}");
            }
        }
        drop(backend);
        remove_sqlite_files(created.as_ref());
    }
    if json {
        print_json(
            &json!({"imported": imported, "failed": failed, "bytes": bytes, "seconds": seconds}),
        )?;
    } else {
        println!(
            "{} imported ({bytes} bytes in {seconds:.2} s), {} failed",
            plural(imported.len(), "session"),
            failed.len()
        );
    }
    Ok(if failed.is_empty() { ExitStatus::Success } else { ExitStatus::Failure })
}

/// What a `store import` may make of a SQLite database's name, to be taken back when no
/// session went in: the database when nothing stood there, or the tables written into an
/// empty file (as `touch` leaves), and the journal files that were not there before.
struct SqliteMade {
    path: PathBuf,
    /// Whether an empty regular file stood there (it is emptied again, not removed).
    was_empty_file: bool,
    /// The journal files (`-wal`, `-shm`, `-journal`) that did not exist before.
    new_journals: Vec<PathBuf>,
}

impl SqliteMade {
    /// What the import could make at `path`; `None` when a database (or anything but an
    /// empty regular file) is there already, which the import only adds sessions to.
    fn before(path: &Path) -> Option<SqliteMade> {
        let was_empty_file = match std::fs::symlink_metadata(path) {
            Err(_) => false,
            Ok(metadata) if metadata.is_file() && metadata.len() == 0 => true,
            Ok(_) => return None,
        };
        let new_journals = ["-wal", "-shm", "-journal"]
            .into_iter()
            .map(|suffix| {
                let mut name = path.as_os_str().to_owned();
                name.push(suffix);
                PathBuf::from(name)
            })
            .filter(|journal| std::fs::symlink_metadata(journal).is_err())
            .collect();
        Some(SqliteMade { path: path.to_path_buf(), was_empty_file, new_journals })
    }
}

/// Takes back what an import made of a SQLite database (see [`SqliteMade`]).
fn remove_sqlite_files(created: Option<&SqliteMade>) {
    let Some(made) = created else { return };
    if made.was_empty_file {
        let _ = std::fs::OpenOptions::new().write(true).open(&made.path).and_then(|file| {
            file.set_len(0)?;
            file.sync_all()
        });
    } else {
        let _ = std::fs::remove_file(&made.path);
    }
    for journal in &made.new_journals {
        let _ = std::fs::remove_file(journal);
    }
}

fn export(session: &str, output: &Path, force: bool, json: bool) -> anyhow::Result<ExitStatus> {
    let locator = locator(session)?;
    if locator.is_file() || locator.session().is_none() {
        return Err(CommandError::usage(format!(
            "`{session}`: name a session in a database, such as `sqlite:sessions.db#ID` or \
             `postgres://USER@HOST:PORT/DB#ID`"
        )));
    }
    // The database is never the output, whatever path names it; an existing output is
    // replaced only with `force`, and only when it is a regular file.
    let database = match &locator {
        Locator::Sqlite { path, .. } => {
            std::fs::metadata(path).ok().map(|metadata| (path.clone(), metadata))
        }
        // A session file is refused above; a Postgres database has no local file.
        Locator::File(_) | Locator::Postgres { .. } => None,
    };
    let inputs: Vec<(&Path, &std::fs::Metadata)> =
        database.iter().map(|(path, metadata)| (path.as_path(), metadata)).collect();
    compaction::disk::check_output(output, &inputs, force).map_err(CommandError::disk)?;
    let backend = open(&locator)?;
    let id = compaction::stores::session_id(&locator, backend.as_ref())
        .map_err(|e| backend_error(&e))?;
    let (mut scratch, removed) =
        compaction::disk::Scratch::create(output, "export").map_err(CommandError::disk)?;
    for stale in removed {
        eprintln!(
            "{}: removed {}, a temporary file left by an interrupted export (no process held it)",
            output.display(),
            stale.display()
        );
    }
    let written = backend.export(&id, scratch.file()).map_err(|e| backend_error(&e))?;
    scratch.publish(&inputs, force).map_err(CommandError::disk)?;
    if json {
        print_json(&json!({"exported": locator.to_string(), "file": output, "bytes": written}))?;
    } else {
        println!("exported {locator} to {} ({written} bytes)", output.display());
    }
    Ok(ExitStatus::Success)
}

fn list(store: &str, estimator: Option<String>, json: bool) -> anyhow::Result<ExitStatus> {
    let locator = locator(store)?;
    let backend = open(&locator)?;
    let flags = crate::cli::CompactionFlags { estimator, ..Default::default() };
    let estimator = super::setup::estimator(&super::setup::settings(&flags)?)?;
    let mut rows = Vec::new();
    for summary in backend.list().map_err(|e| backend_error(&e))? {
        let read = backend.read_path(&summary.id, None).map_err(|e| backend_error(&e))?;
        let context = read.context();
        let tokens =
            compaction_core::tokens::context_tokens(&read.session, &context, estimator.as_ref());
        rows.push((summary, tokens.tokens));
    }
    if json {
        let listed: Vec<_> = rows
            .iter()
            .map(|(s, tokens)| json!({"id": s.id, "bytes": s.bytes, "lines": s.lines, "leaf": s.leaf, "contextTokens": tokens}))
            .collect();
        print_json(&listed)?;
    } else {
        println!("{:<38} {:>12} {:>8} {:>14}", "SESSION", "BYTES", "LINES", "CONTEXT TOKENS");
        for (s, tokens) in &rows {
            println!("{:<38} {:>12} {:>8} {:>14}", s.id, s.bytes, s.lines, tokens);
        }
    }
    Ok(ExitStatus::Success)
}

fn migrate(store: &str, json: bool) -> anyhow::Result<ExitStatus> {
    let (name, from, to) = match database(&locator(store)?, "store migrate")? {
        Database::Sqlite(path) => (
            format!("sqlite:{}", path.display()),
            SqliteBackend::migrate(&path).map_err(|e| backend_error(&e))?,
            compaction::stores::sqlite::schema::SCHEMA_VERSION,
        ),
        Database::Postgres(url) => (
            url.to_string(),
            PostgresBackend::migrate(&url).map_err(|e| backend_error(&e))?,
            compaction::stores::postgres::schema::SCHEMA_VERSION,
        ),
    };
    if json {
        print_json(&json!({"store": name, "fromVersion": from, "toVersion": to}))?;
    } else if from == to {
        println!("{name} is at schema version {to}; nothing to do");
    } else {
        println!("{name} migrated from schema version {from} to {to}");
    }
    Ok(ExitStatus::Success)
}
