//! `compaction check`: every problem in a session file, with line numbers.
//!
//! Exit 0 when the file has no warnings or errors (notes such as CRLF line ends or an
//! older format version are printed but accepted), 1 when it has, 2 when it cannot be read.
//! With `--repair`, a repaired copy is written beside the file (never in place) and its
//! paths are printed; the exit status still describes the original file.

use compaction_core::{Diagnostic, Severity};
use serde::Serialize;

use super::{CommandError, ExitStatus};
use crate::cli::CheckArgs;
use crate::output::print_json;

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
    let diagnostics = session.diagnostics();
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
        let repair =
            compaction::store::repair_copy(&args.file).map_err(|e| CommandError::store(&e))?;
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
    }
    Ok(if report.clean { ExitStatus::Success } else { ExitStatus::Failure })
}
