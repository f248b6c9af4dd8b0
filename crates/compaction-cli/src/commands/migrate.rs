//! `compaction migrate`: rewrite an older-format session as the current version.
//!
//! The rewrite is atomic (temporary file, sync, rename, directory sync), goes through a
//! symbolic link to the file it names, keeps the file's mode and owner, and keeps the
//! original as `<file>.bak-v<N>`; a current file is left untouched. Exit 0 on success,
//! 2 when the store refuses or fails (unreadable header, session in use, I/O error).

use crate::output::plural;
use compaction::store::{LockWait, RewriteOptions};

use super::{CommandError, ExitStatus};
use crate::cli::MigrateArgs;

pub fn run(args: &MigrateArgs) -> anyhow::Result<ExitStatus> {
    let wait = if args.wait { LockWait::Forever } else { LockWait::NoWait };
    let dead = super::torn::ensure_dead_tail(&args.file)?;
    let report = compaction::store::migrate_with(&args.file, wait, &RewriteOptions::default())
        .map_err(|e| CommandError::store(&e))?;
    if let (Some(dead), Some(_)) = (dead, &report.torn_tail) {
        eprintln!("{}: {}", args.file.display(), super::open::dead_tail_note(dead));
    }
    let file = args.file.display();
    if args.json {
        crate::output::print_json(&serde_json::json!({
            "file": file.to_string(),
            "migrated": report.backup.is_some(),
            "fromVersion": report.from_version,
            "toVersion": compaction_core::entry::CURRENT_VERSION,
            "entries": report.entries,
            "malformedLines": report.malformed_lines,
            "backup": report.backup.as_ref().map(|backup| backup.display().to_string()),
            "tornTailMovedTo": report.torn_tail.as_ref().map(|torn| torn.sidecar.display().to_string()),
        }))?;
        return Ok(ExitStatus::Success);
    }
    match &report.backup {
        Some(backup) => println!(
            "{file}: migrated from version {} to {} ({}, {} carried over); original kept as {}",
            report.from_version,
            compaction_core::entry::CURRENT_VERSION,
            plural(report.entries, "entry"),
            plural(report.malformed_lines, "unreadable line"),
            backup.display()
        ),
        None => match &report.torn_tail {
            Some(torn) => println!(
                "{file}: already version {}; its interrupted last line {} ({}) was moved to {}",
                report.from_version,
                torn.line,
                plural(torn.length, "byte"),
                torn.sidecar.display()
            ),
            None => println!("{file}: already version {}; unchanged", report.from_version),
        },
    }
    Ok(ExitStatus::Success)
}
