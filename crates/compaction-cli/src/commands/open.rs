//! Opening session files for a command: locked for writing, an interrupted last line moved
//! aside once it is known dead, and a write refused while the current branch may run through
//! a line this tool cannot read; what recovery did is told on stderr.

use super::CommandError;

/// Opens a session through the store (for writing: locked, torn tail recovered) and tells
/// the user what recovery did.
pub fn open_store(
    path: &std::path::Path,
    write: bool,
    wait: bool,
) -> anyhow::Result<compaction::store::SessionStore> {
    use compaction::store::{LockWait, OpenOptions, SessionStore};
    if write && super::store::database_session(path)?.is_some() {
        return Err(CommandError::usage(format!(
            "{}: this command rewrites session files; `compaction store export` writes one",
            path.display()
        )));
    }
    let mut options = if write { OpenOptions::for_writing() } else { OpenOptions::for_reading() };
    if wait {
        options.lock_wait = LockWait::Forever;
    }
    // An unfinished last line is moved aside on a write open: only once it is known dead.
    let dead = if write { super::torn::ensure_dead_tail(path)? } else { None };
    let (store, report) = SessionStore::open(path, options).map_err(|e| CommandError::store(&e))?;
    for message in report.messages() {
        crate::output::eprint_shown(&format!("{}: {message}", path.display()));
    }
    if let Some(backup) = report.migrated.as_ref().and_then(|m| m.backup.as_ref()) {
        let _ = MIGRATED.set(backup.clone());
    }
    if let Some(torn) = &report.torn_tail {
        let _ = TORN_TAIL_MOVED.set(torn.sidecar.clone());
        if let Some(dead) = dead {
            eprintln!("{}: {}", path.display(), dead_tail_note(dead));
        }
    }
    if write {
        refuse_unreadable_on_path(path, store.session())?;
    }
    Ok(store)
}

/// Refuses to write while the current branch may run through a line pi reads but this tool
/// cannot (nested deeper or longer than its limits): the last line of the file (pi's
/// current leaf), or the parent of an entry on the path. Writing then would compact past
/// entries that were never summarized, or fork from the wrong leaf.
pub fn refuse_unreadable_on_path(
    path: &std::path::Path,
    session: &compaction_core::Session,
) -> anyhow::Result<()> {
    use compaction_core::DiagnosticKind;
    let unreadable: Vec<&compaction_core::Diagnostic> = session
        .diagnostics()
        .iter()
        .filter(|d| matches!(d.kind, DiagnosticKind::TooDeep | DiagnosticKind::LineTooLong))
        .collect();
    if unreadable.is_empty() {
        return Ok(());
    }
    let last_entry_line = session.entries().last().map_or(1, |entry| entry.line);
    let dangling: Vec<usize> = session
        .diagnostics()
        .iter()
        .filter(|d| d.kind == DiagnosticKind::DanglingParent)
        .map(|d| d.line)
        .collect();
    let on_path = session.leaf().map(|leaf| session.path(leaf)).unwrap_or_default();
    let path_orphan = on_path
        .iter()
        .map(|&index| session.entries()[index].line)
        .find(|line| dangling.contains(line));
    let after_leaf = unreadable.iter().find(|d| d.line > last_entry_line);
    let blocking = match (after_leaf, path_orphan) {
        (Some(line), _) => Some(format!(
            "line {} ({}) comes after the last entry this tool can read, so it may be the \
             session's current leaf",
            line.line, line.message
        )),
        (None, Some(orphan)) => Some(format!(
            "the entry on line {orphan} is on the current branch and its parent is not an \
             entry this tool can read (line {}: {})",
            unreadable[0].line, unreadable[0].message
        )),
        (None, None) => None,
    };
    match blocking {
        Some(reason) => Err(CommandError::with_kind(
            super::ErrorKind::Input,
            format!(
                "{}: refusing to write: {reason}; writing now could summarize past entries \
                 that were never read. Nothing was written",
                path.display()
            ),
        )),
        None => Ok(()),
    }
}

/// Why an unfinished last line was taken for dead.
pub fn dead_tail_note(dead: super::torn::DeadTail) -> String {
    format!(
        "the interrupted line had not changed for {:.1} s and no other program had the file \
         open for writing",
        dead.age.as_secs_f64()
    )
}

/// Where [`open_store`] moved an interrupted last line, if it did: a failure afterwards must
/// not say the file was unchanged.
static TORN_TAIL_MOVED: std::sync::OnceLock<std::path::PathBuf> = std::sync::OnceLock::new();

/// Where [`open_store`] kept the original of a session it migrated to the current version
/// before writing (pi migrates such files on open too, so the migration stands when the
/// command then fails): a failure afterwards must not say the file was unchanged.
static MIGRATED: std::sync::OnceLock<std::path::PathBuf> = std::sync::OnceLock::new();

/// What a failed writing command says about the session file it opened.
pub fn unchanged_note() -> String {
    let mut changes = Vec::new();
    if let Some(backup) = MIGRATED.get() {
        changes.push(format!(
            "migrating it to version {} (the original is kept as {})",
            compaction_core::entry::CURRENT_VERSION,
            backup.display()
        ));
    }
    if let Some(sidecar) = TORN_TAIL_MOVED.get() {
        changes.push(format!("moving its interrupted last line to {}", sidecar.display()));
    }
    if changes.is_empty() {
        "the session file was not changed".to_owned()
    } else {
        format!("the session file was not changed beyond {}", changes.join(" and "))
    }
}

/// Opens a copy of `path` that becomes `output` once published (`run -o`).
pub fn open_copy(
    path: &std::path::Path,
    output: &std::path::Path,
    force: bool,
) -> anyhow::Result<compaction::store::SessionStore> {
    use compaction::store::{OpenOptions, SessionStore, StoreError};
    let (store, report) = SessionStore::open_copy(path, output, force, OpenOptions::for_writing())
        .map_err(|e| {
            if let StoreError::AlreadyExists { path } = &e {
                CommandError::with_kind(
                    super::ErrorKind::Input,
                    format!(
                        "{} already exists; pass --force to replace it (only once the \
                         compaction succeeded), or choose another output",
                        path.display()
                    ),
                )
            } else {
                CommandError::store(&e)
            }
        })?;
    for message in report.messages() {
        crate::output::eprint_shown(&format!("{}: {message}", output.display()));
    }
    refuse_unreadable_on_path(output, store.session())?;
    Ok(store)
}
