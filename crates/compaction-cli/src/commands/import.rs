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
use std::os::unix::fs::{MetadataExt as _, OpenOptionsExt as _};
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

/// What a file type is, when it is not a regular file.
fn irregular(kind: std::fs::FileType) -> Option<&'static str> {
    use std::os::unix::fs::FileTypeExt as _;
    if kind.is_file() {
        None
    } else if kind.is_dir() {
        Some("a directory")
    } else if kind.is_fifo() {
        Some("a FIFO (named pipe)")
    } else if kind.is_socket() {
        Some("a socket")
    } else if kind.is_char_device() || kind.is_block_device() {
        Some("a device")
    } else {
        Some("not a regular file")
    }
}

/// Opens the transcript for reading, refusing anything but a regular file before it could
/// block: the type is checked before opening, the file is opened without blocking, and the
/// type is checked again on the open file.
fn open_transcript(path: &Path) -> anyhow::Result<(File, std::fs::Metadata)> {
    let name = path.display();
    let metadata =
        std::fs::metadata(path).map_err(|e| CommandError::io(format!("{name}: cannot read"), e))?;
    if let Some(what) = irregular(metadata.file_type()) {
        return Err(input_error(format!("{name}: {what}, not a transcript file; nothing read")));
    }
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)
        .map_err(|e| CommandError::io(format!("{name}: cannot read"), e))?;
    let metadata =
        file.metadata().map_err(|e| CommandError::io(format!("{name}: cannot read"), e))?;
    if let Some(what) = irregular(metadata.file_type()) {
        return Err(input_error(format!("{name}: {what}, not a transcript file; nothing read")));
    }
    Ok((file, metadata))
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

/// The temporary file of the import writing `output` from this process.
fn temp_name(output: &Path) -> String {
    let name = output.file_name().map_or_else(|| "session".into(), |n| n.to_string_lossy());
    format!(".{name}.import-{}", std::process::id())
}

/// Removes the `.NAME.import-PID` files beside `output` that no live import holds (each
/// import keeps its temporary file locked until it is published; the kernel drops the lock
/// when the process dies). Returns the files removed.
fn remove_stale_temps(dir: &Path, output: &Path) -> Vec<PathBuf> {
    let name = output.file_name().map_or_else(|| "session".into(), |n| n.to_string_lossy());
    let prefix = format!(".{name}.import-");
    let mut removed = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else { return removed };
    for entry in entries.flatten() {
        let ours = entry.file_name().to_str().is_some_and(|n| {
            n.strip_prefix(&prefix).is_some_and(|pid| pid.bytes().all(|b| b.is_ascii_digit()))
        });
        if !ours || !entry.file_type().is_ok_and(|kind| kind.is_file()) {
            continue;
        }
        let path = entry.path();
        let Ok(file) = std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_NONBLOCK | libc::O_NOFOLLOW)
            .open(&path)
        else {
            continue;
        };
        if file.metadata().is_ok_and(|m| m.is_file())
            && file.try_lock().is_ok()
            && std::fs::remove_file(&path).is_ok()
        {
            removed.push(path);
        }
    }
    removed
}

/// Refuses an output that is the transcript itself (same device and inode, whatever the
/// path says), or something other than a regular file, or (without `force`) any existing
/// file.
fn check_output(
    output: &Path,
    input: &std::fs::Metadata,
    file: &str,
    force: bool,
) -> anyhow::Result<()> {
    let shown = output.display();
    if let Ok(existing) = std::fs::metadata(output) {
        if existing.dev() == input.dev() && existing.ino() == input.ino() {
            return Err(CommandError::usage(format!(
                "{file}: the output {shown} is the transcript itself; name another with --output"
            )));
        }
        if let Some(what) = irregular(existing.file_type()) {
            return Err(input_error(format!("{shown}: {what}; the session is not written there")));
        }
    }
    if std::fs::symlink_metadata(output).is_ok() && !force {
        return Err(input_error(format!("{shown}: exists; add --force to replace it")));
    }
    Ok(())
}

/// Where the session is being written, until it is published or discarded.
struct Temporary {
    path: PathBuf,
    file: File,
}

impl Temporary {
    /// Creates the temporary file (mode 0600: a session holds what the agent read) and
    /// locks it, so another import's cleanup never takes it for an abandoned one.
    fn create(dir: &Path, output: &Path) -> anyhow::Result<Self> {
        let path = dir.join(temp_name(output));
        let file = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(&path)
            .map_err(|e| CommandError::io(format!("{}: cannot create", path.display()), e))?;
        if let Err(error) = file.try_lock() {
            let _ = std::fs::remove_file(&path);
            return Err(CommandError::io(
                format!("{}: cannot lock", path.display()),
                std::io::Error::other(error.to_string()),
            ));
        }
        Ok(Temporary { path, file })
    }

    /// Makes the written file appear at `output`: linked (never over an existing file), or
    /// renamed over it with `force`; then the directory is synced.
    fn publish(self, output: &Path, dir: &Path, force: bool) -> anyhow::Result<()> {
        let shown = output.display();
        let result = if force {
            std::fs::rename(&self.path, output)
        } else {
            std::fs::hard_link(&self.path, output).map(|()| {
                let _ = std::fs::remove_file(&self.path);
            })
        };
        if let Err(error) = result {
            let _ = std::fs::remove_file(&self.path);
            if error.kind() == std::io::ErrorKind::AlreadyExists {
                return Err(input_error(format!(
                    "{shown}: a file appeared there while importing; it is left as it is (add \
                     --force to replace it)"
                )));
            }
            return Err(CommandError::io(format!("{shown}: cannot write"), error));
        }
        File::open(dir)
            .and_then(|d| d.sync_all())
            .map_err(|e| CommandError::io(format!("{}: cannot sync", dir.display()), e))
    }

    fn discard(self) {
        let _ = std::fs::remove_file(&self.path);
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
    check_output(&output, &metadata, &file, args.force)?;
    let dir = output.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let removed = remove_stale_temps(dir, &output);
    for temp in &removed {
        eprintln!(
            "{}: removed {}, a temporary file left by an interrupted import (no process held it)",
            output.display(),
            temp.display()
        );
    }
    let temporary = Temporary::create(dir, &output)?;
    let converted = (|| -> anyhow::Result<(ImportReport, ReadBack)> {
        reader.rewind().map_err(|e| CommandError::io(format!("{file}: cannot read"), e))?;
        let mut writer = BufWriter::with_capacity(1 << 16, &temporary.file);
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
        let path = temporary.path.display();
        written.map_err(|e| CommandError::io(format!("{path}: cannot write"), e))?;
        writer.flush().map_err(|e| CommandError::io(format!("{path}: cannot write"), e))?;
        drop(writer);
        temporary
            .file
            .sync_all()
            .map_err(|e| CommandError::io(format!("{path}: cannot sync"), e))?;
        Ok((report, read_back))
    })();
    let (report, read_back) = match converted {
        Ok(converted) => converted,
        Err(error) => {
            temporary.discard();
            return Err(error);
        }
    };
    temporary.publish(&output, dir, args.force)?;

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
    fn a_file_that_appears_after_the_check_is_never_replaced_without_force() {
        let dir = tempfile::tempdir().unwrap();
        let output = dir.path().join("out.jsonl");
        check_output(&output, &std::fs::metadata(dir.path()).unwrap(), "t.jsonl", false).unwrap();
        let temporary = Temporary::create(dir.path(), &output).unwrap();
        (&temporary.file).write_all(b"converted\n").unwrap();
        let temp_path = temporary.path.clone();
        // Another process creates the output between the check and the publication.
        std::fs::write(&output, "theirs").unwrap();
        let error = temporary.publish(&output, dir.path(), false).unwrap_err();
        assert!(error.to_string().contains("appeared there while importing"), "{error}");
        assert_eq!(std::fs::read_to_string(&output).unwrap(), "theirs");
        assert!(!temp_path.exists(), "the temporary file is removed");
        // With --force, the output is replaced.
        let temporary = Temporary::create(dir.path(), &output).unwrap();
        (&temporary.file).write_all(b"converted\n").unwrap();
        temporary.publish(&output, dir.path(), true).unwrap();
        assert_eq!(std::fs::read_to_string(&output).unwrap(), "converted\n");
    }

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
