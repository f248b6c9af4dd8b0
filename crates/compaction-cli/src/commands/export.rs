//! `compaction export`: the context of a session after its latest compaction, written as a
//! Claude Code session or a Codex rollout that the agent resumes (see
//! `compaction_core::export` for what is written and what is left out).
//!
//! The session is never changed, nor is it ever the output (compared by device and inode,
//! through links). The transcript goes where the agent looks for its sessions
//! (or to `--output`) under a new session id, through a temporary file in the same directory;
//! an existing file is replaced only with `--force`, and without it the file is put in place
//! by a link that fails when the name is taken, so a file that appeared meanwhile is never
//! replaced. Exit 0 when written, 2 when the session cannot be read or exported.

use std::io::Write as _;
use std::path::{Path, PathBuf};

use compaction_core::export::{self, ExportOptions, ExportReport, TargetFormat};
use compaction_core::redact::Redactor;
use serde::Serialize;

use super::{CommandError, ErrorKind, ExitStatus};
use crate::cli::{ExportArgs, ExportFormat};

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct Report<'a> {
    file: String,
    output: String,
    cwd: String,
    /// The command that resumes the session, run in `cwd`.
    resume: String,
    #[serde(flatten)]
    export: &'a ExportReport,
}

/// Claude Code's longest project folder name; longer ones end in a hash of the path.
const CLAUDE_PROJECT_NAME_MAX: usize = 200;

pub fn run(args: &ExportArgs) -> anyhow::Result<ExitStatus> {
    let file = args.session.file.display().to_string();
    let (session, leaf) = super::load_with_leaf(&args.session)?;
    let format = match args.format {
        ExportFormat::ClaudeCode => TargetFormat::ClaudeCode,
        ExportFormat::Codex => TargetFormat::Codex,
    };
    let cwd = match &args.cwd {
        Some(dir) => std::path::absolute(dir)
            .map_err(|e| CommandError::io(format!("{}: cannot resolve", dir.display()), e))?
            .display()
            .to_string(),
        None => session
            .header()
            .and_then(|header| header.cwd.clone())
            .filter(|cwd| !cwd.is_empty())
            .ok_or_else(|| {
                CommandError::usage(format!(
                    "{file}: the session header names no project directory (`cwd`); pass \
                     --cwd DIR, the directory the agent will resume in"
                ))
            })?,
    };
    let options = ExportOptions {
        session_id: new_session_id(),
        cwd: cwd.clone(),
        timestamp: compaction::store::names::timestamp_now(),
    };
    let exported = export::export(&session, leaf, format, &options, &Redactor::default())
        .map_err(|e| CommandError::with_kind(ErrorKind::Input, format!("{file}: {e}")))?;
    let output = match &args.output {
        Some(output) => output.clone(),
        None => default_output(format, &cwd, &options)?,
    };
    // The session as given (through links): never the output, whatever path names it.
    let session_file = std::fs::metadata(&args.session.file)
        .map_err(|e| CommandError::io(format!("{file}: cannot read"), e))?;
    let inputs = [(args.session.file.as_path(), &session_file)];
    compaction::disk::check_output(&output, &inputs, args.force).map_err(CommandError::disk)?;
    write_new(&output, &exported.transcript, &inputs, args.force)?;
    let id = &exported.report.session_id;
    let resume = match format {
        TargetFormat::ClaudeCode => format!("claude --resume {id}"),
        TargetFormat::Codex => format!("codex resume {id}"),
    };
    let report = Report {
        file,
        output: output.display().to_string(),
        cwd,
        resume,
        export: &exported.report,
    };
    if args.json {
        crate::output::print_json(&report)?;
    } else {
        print_human(&report);
    }
    crate::load::release_at_exit(session);
    Ok(ExitStatus::Success)
}

/// A random (version 4) UUID.
fn new_session_id() -> String {
    let mut bytes: [u8; 16] = rand::random();
    bytes[6] = (bytes[6] & 0x0f) | 0x40;
    bytes[8] = (bytes[8] & 0x3f) | 0x80;
    let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    format!("{}-{}-{}-{}-{}", &hex[..8], &hex[8..12], &hex[12..16], &hex[16..20], &hex[20..])
}

/// A directory from an environment variable, or `~/<fallback>`.
fn agent_home(variable: &str, fallback: &str) -> anyhow::Result<PathBuf> {
    if let Some(dir) = std::env::var_os(variable).filter(|dir| !dir.is_empty()) {
        return Ok(PathBuf::from(dir));
    }
    let home = std::env::var_os("HOME").filter(|home| !home.is_empty()).ok_or_else(|| {
        CommandError::usage(format!("neither {variable} nor HOME is set; pass --output PATH"))
    })?;
    Ok(PathBuf::from(home).join(fallback))
}

/// Where the agent looks for the session.
fn default_output(
    format: TargetFormat,
    cwd: &str,
    options: &ExportOptions,
) -> anyhow::Result<PathBuf> {
    let id = &options.session_id;
    match format {
        TargetFormat::ClaudeCode => {
            // Claude Code's folder for a project: the path with every UTF-16 code unit that is
            // not an ASCII letter or digit replaced by `-` (JavaScript's
            // `replace(/[^a-zA-Z0-9]/g, "-")`, so a character outside the BMP gives two).
            let project: String = cwd
                .chars()
                .flat_map(|c| {
                    let units = if c.is_ascii_alphanumeric() { 1 } else { c.len_utf16() };
                    std::iter::repeat_n(if c.is_ascii_alphanumeric() { c } else { '-' }, units)
                })
                .collect();
            if project.len() > CLAUDE_PROJECT_NAME_MAX {
                return Err(CommandError::usage(format!(
                    "{cwd}: Claude Code names the folder of a project path this long with a \
                     hash of it; pass --output with the session file's path in that folder"
                )));
            }
            Ok(agent_home("CLAUDE_CONFIG_DIR", ".claude")?
                .join("projects")
                .join(project)
                .join(format!("{id}.jsonl")))
        }
        TargetFormat::Codex => {
            // `2026-01-02T03:04:05.678Z` → sessions/2026/01/02/rollout-2026-01-02T03-04-05-ID.jsonl
            let stamp = &options.timestamp;
            let (date, time) = (stamp.get(..10).unwrap_or(""), stamp.get(11..19).unwrap_or(""));
            let mut dir = agent_home("CODEX_HOME", ".codex")?.join("sessions");
            for part in date.split('-') {
                dir.push(part);
            }
            Ok(dir.join(format!("rollout-{date}T{}-{id}.jsonl", time.replace(':', "-"))))
        }
    }
}

/// Writes `text` to `path` through a scratch file beside it, readable by its owner only
/// (the transcript holds what the agent read), published without replacing anything unless
/// `replace` (see [`compaction::disk`]); a scratch file a killed export left is removed.
/// Missing folders on the way are made (0700) and removed again when the export fails.
fn write_new(
    path: &Path,
    text: &str,
    inputs: &[(&Path, &std::fs::Metadata)],
    replace: bool,
) -> anyhow::Result<()> {
    // The folders made here are removed again if anything below fails.
    let made = compaction::disk::create_parent_dirs(path).map_err(CommandError::disk)?;
    let (mut scratch, removed) =
        compaction::disk::Scratch::create(path, "export").map_err(CommandError::disk)?;
    for stale in removed {
        eprintln!(
            "{}: removed {}, a temporary file left by an interrupted export (no process held it)",
            path.display(),
            stale.display()
        );
    }
    scratch
        .file()
        .write_all(text.as_bytes())
        .map_err(|e| CommandError::io(format!("{}: cannot write", scratch.path().display()), e))?;
    scratch.publish(inputs, replace).map_err(CommandError::disk)?;
    made.keep();
    Ok(())
}

fn print_human(report: &Report<'_>) {
    let export = report.export;
    let agent = match export.format {
        TargetFormat::ClaudeCode => "Claude Code session",
        TargetFormat::Codex => "Codex rollout",
    };
    println!("{}: {agent} {} → {}", report.file, export.session_id, report.output);
    if export.summary {
        println!("  the latest compaction's summary, then the messages it kept and those after it");
    } else {
        println!("  no compaction on the path: the whole context was written");
    }
    println!(
        "  {} user messages, {} assistant messages, {} tool calls, {} tool results",
        export.user_messages, export.assistant_messages, export.tool_calls, export.tool_results
    );
    println!("  texts with a secret redacted: {}", export.redacted_texts);
    for (title, counts) in [("left out", &export.dropped), ("added", &export.added)] {
        if !counts.is_empty() {
            println!("  {title}:");
            for (kind, n) in counts {
                println!("    {kind} ×{n}");
            }
        }
    }
    println!("  resume: cd {} && {}", shell_quote(&report.cwd), report.resume);
}

/// `text` quoted for a POSIX shell when it needs it.
fn shell_quote(text: &str) -> String {
    if !text.is_empty()
        && text.chars().all(|c| c.is_ascii_alphanumeric() || "/._-+=:,@".contains(c))
    {
        text.to_owned()
    } else {
        format!("'{}'", text.replace('\'', r"'\''"))
    }
}
