//! `compaction import`: a Claude Code transcript or a Codex CLI rollout, converted into a pi
//! session file (see `compaction_core::import` for what is kept and what is dropped).
//!
//! The transcript is never changed. The session is written to a temporary file beside the
//! output and renamed into place, so an interrupted import leaves no half-written session;
//! an existing output is replaced only with `--force`. The written session is read back and
//! checked as `compaction check` would: exit 0 when it is clean, 1 when it is not (which
//! would be a bug in the conversion), 2 when the transcript cannot be read or converted.

use crate::output::plural;
use std::io::Write as _;
use std::path::{Path, PathBuf};

use compaction_core::import::{self, ImportReport, SourceFormat};
use compaction_core::redact::Redactor;
use compaction_core::{Severity, parse_session};
use serde::Serialize;

use super::{CommandError, ErrorKind, ExitStatus};
use crate::cli::{ImportArgs, ImportFormat};

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct Report<'a> {
    file: String,
    output: String,
    #[serde(flatten)]
    import: &'a ImportReport,
    check: Check,
}

#[derive(Debug, Serialize)]
struct Check {
    clean: bool,
    errors: usize,
    warnings: usize,
}

/// `NAME.pi.jsonl` beside `NAME.jsonl`.
fn default_output(file: &Path) -> PathBuf {
    let stem = file.file_stem().map_or_else(|| "session".into(), |s| s.to_string_lossy());
    file.with_file_name(format!("{stem}.pi.jsonl"))
}

/// Writes `text` to `path` through a temporary file in the same directory, readable by its
/// owner only (as the store creates sessions: they may hold what the agent read), then makes
/// the rename durable.
fn write_atomically(path: &Path, text: &str) -> anyhow::Result<()> {
    use std::os::unix::fs::OpenOptionsExt as _;
    let dir = path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let name = path.file_name().map_or_else(|| "session".into(), |n| n.to_string_lossy());
    let temporary = dir.join(format!(".{name}.import-{}", std::process::id()));
    let result = (|| -> std::io::Result<()> {
        let mut file = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(&temporary)?;
        file.write_all(text.as_bytes())?;
        file.sync_all()?;
        std::fs::rename(&temporary, path)?;
        std::fs::File::open(dir)?.sync_all()
    })();
    if let Err(error) = result {
        let _ = std::fs::remove_file(&temporary);
        return Err(CommandError::io(format!("{}: cannot write", path.display()), error));
    }
    Ok(())
}

pub fn run(args: &ImportArgs) -> anyhow::Result<ExitStatus> {
    let file = args.file.display().to_string();
    let bytes = std::fs::read(&args.file)
        .map_err(|e| CommandError::io(format!("{file}: cannot read"), e))?;
    let text = String::from_utf8(bytes).map_err(|e| {
        CommandError::with_kind(
            ErrorKind::Input,
            format!("{file}: not UTF-8 text (byte {})", e.utf8_error().valid_up_to()),
        )
    })?;
    let format = args.format.map(|format| match format {
        ImportFormat::ClaudeCode => SourceFormat::ClaudeCode,
        ImportFormat::Codex => SourceFormat::Codex,
    });
    let imported = import::import(&text, format, &Redactor::default())
        .map_err(|e| CommandError::with_kind(ErrorKind::Input, format!("{file}: {e}")))?;
    let output = args.output.clone().unwrap_or_else(|| default_output(&args.file));
    if output == args.file {
        return Err(CommandError::usage(format!(
            "{file}: the output would replace the transcript; name another with --output"
        )));
    }
    if output.exists() && !args.force {
        return Err(CommandError::with_kind(
            ErrorKind::Input,
            format!("{}: exists; add --force to replace it", output.display()),
        ));
    }
    write_atomically(&output, &imported.session)?;
    let session = parse_session(imported.session.as_bytes());
    let count =
        |severity| session.diagnostics().iter().filter(|d| d.severity() == severity).count();
    let check = Check {
        clean: count(Severity::Error) + count(Severity::Warning) == 0,
        errors: count(Severity::Error),
        warnings: count(Severity::Warning),
    };
    let clean = check.clean;
    let report = Report {
        file: file.clone(),
        output: output.display().to_string(),
        import: &imported.report,
        check,
    };
    if args.json {
        crate::output::print_json(&report)?;
    } else {
        print_human(&report);
    }
    Ok(if clean { ExitStatus::Success } else { ExitStatus::Failure })
}

fn print_human(report: &Report<'_>) {
    let import = report.import;
    println!(
        "{}: {} transcript, {} → {} ({})",
        report.file,
        import.format.as_str(),
        plural(import.lines, "line"),
        report.output,
        plural(import.entries, "entry")
    );
    println!(
        "  {}, {}, {}, {} ({})",
        plural(import.user_messages, "user message"),
        plural(import.assistant_messages, "assistant message"),
        plural(import.tool_calls, "tool call"),
        plural(import.tool_results, "tool result"),
        plural(import.tool_errors, "error")
    );
    if !import.renamed_tools.is_empty() {
        let renamed: Vec<String> =
            import.renamed_tools.iter().map(|(name, n)| format!("{name} ×{n}")).collect();
        println!("  renamed tools: {}", renamed.join(", "));
    }
    println!("  texts with a secret redacted: {}", import.redacted_texts);
    if !import.dropped.is_empty() {
        println!("  left out:");
        for (kind, n) in &import.dropped {
            println!("    {kind} ×{n}");
        }
    }
    if report.check.clean {
        println!("  check: ok");
    } else {
        println!(
            "  check: {}, {} (run `compaction check {}`)",
            plural(report.check.errors, "error"),
            plural(report.check.warnings, "warning"),
            report.output
        );
    }
}
