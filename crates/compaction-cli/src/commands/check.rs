//! `compaction check`: every problem in a session file, with line numbers.
//!
//! Exit 0 when the file has no warnings or errors (notes such as CRLF line ends or an
//! older format version are printed but accepted), 1 when it has, 2 when it cannot be read.
//! With `--repair`, a repaired copy is written beside the file (never in place) and its
//! paths are printed; the exit status still describes the original file. Entries whose parent
//! is not in the copy (it was an unusable line) are named; `--reattach` attaches each to the
//! entry before it so the copy passes `check`.

use compaction_core::{Diagnostic, Severity};
use serde::Serialize;

use super::{CommandError, ExitStatus};
use crate::cli::CheckArgs;
use crate::output::print_json;

/// Says what became of entries whose parent is not in the repaired copy.
fn report_orphans(file: &str, repair: &compaction::store::RepairReport) {
    if repair.orphans.is_empty() {
        return;
    }
    let ids: Vec<&str> = repair.orphans.iter().map(|(id, _)| id.as_str()).collect();
    if repair.reattached {
        eprintln!(
            "{file}: {} entr{} whose parent is not in the copy ({}) attached to the entry \
             before each; the copy passes `check`",
            ids.len(),
            if ids.len() == 1 { "y" } else { "ies" },
            ids.join(", ")
        );
    } else {
        eprintln!(
            "{file}: {} entr{} in the copy ha{} a parent that is not in it ({}): pi shows \
             each as the start of its branch, and `check` on the copy reports it as \
             dangling-parent; add --reattach to attach each to the entry before it",
            ids.len(),
            if ids.len() == 1 { "y" } else { "ies" },
            if ids.len() == 1 { "s" } else { "ve" },
            ids.join(", ")
        );
    }
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct Report<'a> {
    file: String,
    clean: bool,
    errors: usize,
    warnings: usize,
    notes: usize,
    diagnostics: &'a [Diagnostic],
}

pub fn run(args: &CheckArgs) -> anyhow::Result<ExitStatus> {
    let session = crate::load::read_any_session(&args.file)?;
    let mut all = session.diagnostics().to_vec();
    all.extend(compaction_core::integrity::entry_diagnostics(&session));
    let diagnostics = all.as_slice();
    let count = |severity| diagnostics.iter().filter(|d| d.severity() == severity).count();
    let report = Report {
        file: args.file.display().to_string(),
        clean: count(Severity::Error) + count(Severity::Warning) == 0,
        errors: count(Severity::Error),
        warnings: count(Severity::Warning),
        notes: count(Severity::Info),
        diagnostics,
    };
    if args.json {
        print_json(&report)?;
    } else {
        let mut sorted: Vec<&Diagnostic> = diagnostics.iter().collect();
        sorted.sort_by_key(|d| d.line);
        for diagnostic in sorted {
            println!("{}:{diagnostic}", report.file);
        }
        if report.clean {
            println!(
                "{}: ok ({} entries, {} notes)",
                report.file,
                session.entries().len(),
                report.notes
            );
        } else {
            println!(
                "{}: {} errors, {} warnings, {} notes",
                report.file, report.errors, report.warnings, report.notes
            );
        }
    }
    if args.repair {
        let repair = compaction::store::repair_copy_reattaching(
            &args.file,
            &compaction::store::RewriteOptions::default(),
            args.reattach,
        )
        .map_err(|e| CommandError::store(&e))?;
        for temp in &repair.removed_temps {
            eprintln!(
                "{}: removed {}, a temporary file left by an interrupted repair (no process \
                 held it)",
                report.file,
                temp.display()
            );
        }
        eprintln!(
            "{}: wrote repaired copy {} ({} entries{})",
            report.file,
            repair.copy.display(),
            repair.entries,
            if repair.header_rebuilt { ", new header" } else { "" }
        );
        if let Some(rejected) = &repair.rejected {
            eprintln!(
                "{}: {} unusable line(s) set aside verbatim in {}",
                report.file,
                repair.rejected_lines.len(),
                rejected.display()
            );
        }
        report_orphans(&report.file, &repair);
    }
    Ok(if report.clean { ExitStatus::Success } else { ExitStatus::Failure })
}
