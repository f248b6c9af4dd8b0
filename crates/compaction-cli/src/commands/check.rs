//! `compaction check`: every problem in a session file, with line numbers.
//!
//! Exit 0 when the file has no warnings or errors (notes such as CRLF line ends or an
//! older format version are printed but accepted), 1 when it has, 2 when it cannot be read.
//! With `--repair`, a repaired copy is written beside the file (never in place) and its
//! paths are printed; the exit status still describes the original file. Entries whose parent
//! is not in the copy (it was an unusable line) are named; `--reattach` attaches each to the
//! entry before it so the copy passes `check`.

use crate::output::plural;
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
            "{file}: {} whose parent is not in the copy ({}) attached to the entry before \
             each; the copy passes `check`",
            plural(ids.len(), "entry"),
            ids.join(", ")
        );
    } else {
        eprintln!(
            "{file}: {} in the copy with a parent that is not in it ({}): pi shows each as \
             the start of its branch, and `check` on the copy reports it as dangling-parent; \
             add --reattach to attach each to the entry before it",
            plural(ids.len(), "entry"),
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
            println!("{}", crate::output::shown(&format!("{}:{diagnostic}", report.file)));
        }
        if report.clean {
            println!(
                "{}: ok ({}, {})",
                report.file,
                plural(session.entries().len(), "entry"),
                plural(report.notes, "note")
            );
        } else {
            println!(
                "{}: {}, {}, {}",
                report.file,
                plural(report.errors, "error"),
                plural(report.warnings, "warning"),
                plural(report.notes, "note")
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
            "{}: wrote repaired copy {} ({}{})",
            report.file,
            repair.copy.display(),
            plural(repair.entries, "entry"),
            if repair.header_rebuilt { ", new header" } else { "" }
        );
        if let Some(rejected) = &repair.rejected {
            eprintln!(
                "{}: {} set aside verbatim in {}",
                report.file,
                plural(repair.rejected_lines.len(), "unusable line"),
                rejected.display()
            );
        }
        report_orphans(&report.file, &repair);
    }
    Ok(if report.clean { ExitStatus::Success } else { ExitStatus::Failure })
}
