//! `compaction import`: a Claude Code transcript or a Codex CLI rollout, converted into a pi
//! session file (see `compaction_core::import` for what is kept and what is dropped).
//!
//! The transcript is only read: it must be a regular file (a FIFO, a device or a directory
//! is refused before anything could block), each line is read with a bound, and the output
//! may never be the transcript itself (compared by device and inode, through links). The
//! conversion streams: one pass reads what the header needs, a second converts line by line
//! into a temporary file beside the output, `.NAME.import-PID`, locked while it is written,
//! so the next import removes one that a killed import left. The temporary file is then
//! published: linked to the output, which fails if a file appeared there meanwhile (an
//! existing file is replaced only with `--force`, by a rename). Each written line is read
//! back by the session reader's line parser: exit 0 when all are clean, 1 when one is not
//! (a bug in the conversion), 2 when the transcript cannot be read or converted, with the
//! output untouched.

use crate::output::plural;
use std::fs::File;
use std::io::{BufRead, BufReader, BufWriter, Seek as _, Write as _};
use std::path::{Path, PathBuf};

use compaction_core::Severity;
use compaction_core::entry::Entry;
use compaction_core::import::{
    ImportError, ImportOptions, ImportReport, Importer, Scan, SourceFormat,
};
use compaction_core::parse::DEFAULT_MAX_LINE_BYTES;
use compaction_core::redact::Redactor;
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
    /// Temporary files of interrupted imports that were removed.
    removed_temps: Vec<String>,
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

fn input_error(message: String) -> anyhow::Error {
    CommandError::with_kind(ErrorKind::Input, message)
}

/// Opens the transcript for reading: a regular file only (see [`compaction::disk`]).
fn open_transcript(path: &Path) -> anyhow::Result<(File, std::fs::Metadata)> {
    compaction::disk::open_regular(path).map_err(CommandError::disk)
}

/// Reads the lines of `reader`, each of at most `max_line` bytes, calling
/// `each(number, line)`.
fn for_each_line(
    reader: &mut impl BufRead,
    file: &str,
    max_line: usize,
    mut each: impl FnMut(usize, &str) -> Result<(), ImportError>,
) -> anyhow::Result<()> {
    let mut buffer = Vec::new();
    let mut number = 0;
    loop {
        buffer.clear();
        let limit = u64::try_from(max_line).unwrap_or(u64::MAX).saturating_add(1);
        let read = std::io::Read::take(&mut *reader, limit)
            .read_until(b'\n', &mut buffer)
            .map_err(|e| CommandError::io(format!("{file}: cannot read"), e))?;
        if read == 0 {
            return Ok(());
        }
        number += 1;
        if buffer.len() > max_line {
            return Err(input_error(format!(
                "{file}: line {number}: longer than {max_line} bytes; not a transcript line"
            )));
        }
        let line = std::str::from_utf8(&buffer).map_err(|e| {
            input_error(format!(
                "{file}: line {number}: not UTF-8 text (byte {} of the line)",
                e.valid_up_to() + 1
            ))
        })?;
        each(number, line).map_err(|e| input_error(format!("{file}: {e}")))?;
    }
}

/// Reads each written line back as the session reader's line parser does.
#[derive(Default)]
struct ReadBack {
    line: usize,
    errors: usize,
}

impl ReadBack {
    fn line(&mut self, text: &str) {
        self.line += 1;
        let text = text.trim_end_matches('\n');
        let clean = if self.line == 1 {
            let session = compaction_core::parse_session(text.as_bytes());
            session.header().is_some()
                && session.diagnostics().iter().all(|d| d.severity() == Severity::Info)
        } else {
            Entry::parse(self.line, text).is_ok()
        };
        if !clean {
            self.errors += 1;
        }
    }
}

pub fn run(args: &ImportArgs) -> anyhow::Result<ExitStatus> {
    let file = args.file.display().to_string();
    let (input, metadata) = open_transcript(&args.file)?;
    // First pass: the format and what the header says. Nothing is written before the whole
    // transcript has been read once without error.
    let mut reader = BufReader::with_capacity(1 << 16, input);
    let mut scan = Scan::default();
    for_each_line(&mut reader, &file, DEFAULT_MAX_LINE_BYTES, |number, line| {
        scan.line(number, line)
    })?;
    let options = ImportOptions {
        format: args.format.map(|format| match format {
            ImportFormat::ClaudeCode => SourceFormat::ClaudeCode,
            ImportFormat::Codex => SourceFormat::Codex,
            ImportFormat::Cursor => SourceFormat::Cursor,
            ImportFormat::Antigravity => SourceFormat::Antigravity,
        }),
        fallback_cwd: std::env::current_dir().ok().map(|d| d.display().to_string()),
    };
    let redactor = Redactor::default();
    let mut importer = Importer::new(&scan, &options, &redactor)
        .map_err(|e| input_error(format!("{file}: {e}")))?;

    let output = args.output.clone().unwrap_or_else(|| default_output(&args.file));
    let inputs = [(args.file.as_path(), &metadata)];
    compaction::disk::check_output(&output, &inputs, args.force).map_err(CommandError::disk)?;
    let (mut temporary, removed) =
        compaction::disk::Scratch::create(&output, "import").map_err(CommandError::disk)?;
    for temp in &removed {
        eprintln!(
            "{}: removed {}, a temporary file left by an interrupted import (no process held it)",
            output.display(),
            temp.display()
        );
    }
    let converted = (|| -> anyhow::Result<(ImportReport, ReadBack)> {
        reader.rewind().map_err(|e| CommandError::io(format!("{file}: cannot read"), e))?;
        let path = temporary.path().display().to_string();
        let mut writer = BufWriter::with_capacity(1 << 16, temporary.file());
        let mut written: std::io::Result<()> = Ok(());
        let mut read_back = ReadBack::default();
        let mut out = |line: &str| {
            if written.is_ok() {
                read_back.line(line);
                written = writer.write_all(line.as_bytes());
            }
        };
        for_each_line(&mut reader, &file, DEFAULT_MAX_LINE_BYTES, |number, line| {
            importer.line(number, line, &mut out)
        })?;
        let report = importer.finish(&mut out).map_err(|e| input_error(format!("{file}: {e}")))?;
        written.map_err(|e| CommandError::io(format!("{path}: cannot write"), e))?;
        writer.flush().map_err(|e| CommandError::io(format!("{path}: cannot write"), e))?;
        Ok((report, read_back))
    })();
    // On an error the scratch file is removed as it is dropped.
    let (report, read_back) = converted?;
    temporary.publish(&inputs, args.force).map_err(CommandError::disk)?;

    let check = Check { clean: read_back.errors == 0, errors: read_back.errors, warnings: 0 };
    let clean = check.clean;
    let report = Report {
        file: file.clone(),
        output: output.display().to_string(),
        import: &report,
        removed_temps: removed.iter().map(|p| p.display().to_string()).collect(),
        check,
    };
    if args.json {
        crate::output::print_json(&report)?;
    } else {
        print_human(&report);
    }
    Ok(if clean { ExitStatus::Success } else { ExitStatus::Failure })
}

/// How many lines (and bytes) of a file that is not a pi session are read to recognize
/// another agent's transcript.
const HINT_MAX_LINES: usize = 64;
const HINT_MAX_BYTES: u64 = 4 << 20;

/// When `path` is a Claude Code transcript or a Codex rollout (not a pi session), the error
/// that says so and how to convert it; `None` for any other file. Reads a few lines at most,
/// from a regular file only.
pub fn foreign_transcript_hint(path: &Path) -> Option<String> {
    let (file, _) = open_transcript(path).ok()?;
    let mut reader = BufReader::new(std::io::Read::take(file, HINT_MAX_BYTES));
    let mut scan = Scan::default();
    let mut line = String::new();
    for number in 1..=HINT_MAX_LINES {
        line.clear();
        if reader.read_line(&mut line).ok()? == 0 {
            break;
        }
        // A line cut by the byte limit or not JSON: stop reading, judge by what was read.
        if scan.line(number, &line).is_err() || scan.format().is_some() {
            break;
        }
    }
    let agent = match scan.format()? {
        SourceFormat::ClaudeCode => "a Claude Code transcript",
        SourceFormat::Codex => "a Codex CLI rollout",
        SourceFormat::Cursor => "a Cursor agent transcript",
        SourceFormat::Antigravity => "an Antigravity trajectory",
    };
    let shown = path.display().to_string();
    let stem = path.file_stem().map_or_else(|| "session".into(), |s| s.to_string_lossy());
    Some(format!(
        "{shown} is {agent}, not a pi session file; convert it first: `compaction import {} -o \
         {}`, then use the converted session",
        shell_word(&shown),
        shell_word(&format!("{stem}.pi.jsonl"))
    ))
}

/// `word` as one shell word: as it is when it is plain, else in single quotes.
fn shell_word(word: &str) -> String {
    let plain = !word.is_empty()
        && word.chars().all(|c| c.is_ascii_alphanumeric() || "-_./=:,+@%".contains(c));
    if plain { word.to_owned() } else { format!("'{}'", word.replace('\'', r"'\''")) }
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
    println!(
        "  current path: {} messages ({} tool results){}",
        import.messages_on_path,
        import.tool_results_on_path,
        match (import.resent_messages, import.messages_off_path) {
            (0, 0) => String::new(),
            (resent, 0) => format!("; {resent} messages edited and sent again kept outside it"),
            (resent, off) => format!(
                "; {resent} messages edited and sent again kept outside it; {off} messages on \
                 branches the user left"
            ),
        }
    );
    if import.compactions > 0 {
        println!("  the agent's own compactions: {}", import.compactions);
    }
    if let Some(window) = import.context_window {
        println!("  context window recorded by the agent: {window} tokens");
    }
    if import.usage_missing > 0 {
        println!(
            "  assistant messages without recorded usage (written as zeros): {}",
            import.usage_missing
        );
    }
    if !import.cwd_recorded {
        println!("  the transcript records no working directory; the header says the current one");
    }
    if !import.renamed_tools.is_empty() {
        let renamed: Vec<String> =
            import.renamed_tools.iter().map(|(name, n)| format!("{name} ×{n}")).collect();
        println!("  renamed tools: {}", renamed.join(", "));
    }
    println!("  texts with a secret redacted: {}", import.redacted_texts);
    if !import.converted.is_empty() {
        println!("  kept in another form:");
        for (kind, n) in &import.converted {
            println!("    {kind} ×{n}");
        }
    }
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
            "  check: {} the session reader refuses (run `compaction check {}`)",
            plural(report.check.errors, "line"),
            report.output
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_over_the_bound_is_an_error_naming_it_and_is_never_buffered_whole() {
        let text = format!("{{\"a\":1}}\n{{\"b\":\"{}\"}}\n", "x".repeat(5000));
        let mut reader = std::io::Cursor::new(text.into_bytes());
        let mut seen = Vec::new();
        let error = for_each_line(&mut reader, "t.jsonl", 1000, |number, _| {
            seen.push(number);
            Ok(())
        })
        .unwrap_err();
        assert_eq!(seen, [1]);
        assert!(error.to_string().contains("t.jsonl: line 2: longer than 1000 bytes"), "{error}");
        assert!(reader.position() <= 1011, "read {} bytes, not the whole line", reader.position());
    }

    #[test]
    fn the_hint_names_the_format_and_quotes_the_path() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("my session.jsonl");
        let fixture = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../compaction-core/tests/fixtures/import/codex-rollout.jsonl");
        std::fs::copy(fixture, &path).unwrap();
        let hint = foreign_transcript_hint(&path).unwrap();
        assert!(hint.contains("is a Codex CLI rollout"), "{hint}");
        assert!(hint.contains(&format!("compaction import '{}'", path.display())), "{hint}");
        assert!(hint.contains("-o 'my session.pi.jsonl'"), "{hint}");
        std::fs::write(&path, "{\"type\":\"session\",\"version\":3,\"id\":\"x\"}\n").unwrap();
        assert_eq!(foreign_transcript_hint(&path), None);
        assert_eq!(foreign_transcript_hint(Path::new("/dev/zero")), None);
    }
}
