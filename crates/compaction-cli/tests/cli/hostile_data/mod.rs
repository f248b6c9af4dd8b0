//! Round 10: what the data names and what others made, attacked by class.
//!
//! - `paths`: a path or folder named by a session (its header's `cwd`, the files its tool
//!   calls edited) that `run --restore-files` reads, and the folder `export` derives from
//!   that `cwd`: nothing outside the session's own project folder is ever read or written.
//! - `databases`: a SQLite store made by someone else (code in triggers, views in place of
//!   tables, objects this tool did not create, other schema versions, lying or ill-typed
//!   rows, files that are no database, journals beside it) given to every command that opens
//!   a store: refused with an error naming the file, every file left byte-identical.
//!
//! Instances are numbered in the order generated; instance `i` is in the test part when
//! `i % 3 == 0`, else in the dev part (the rule of every hostile suite). Each test prints its
//! counts and fails with the dev part's misses in full (the test part's by number only).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use crate::child::{Ran, run_until};
use crate::tally::Tally;

use crate::hostile_writes::{strings, walk};

mod databases;
mod paths;
mod postgres;

/// Runs the binary in `cwd` with `HOME` and `TMPDIR` given, a clean settings environment
/// and a 60 s deadline (exit -2 when it hung).
fn run_in(cwd: &Path, home: &Path, tmp: &Path, args: &[String], env: &[(&str, &str)]) -> Ran {
    let mut command = Command::new(env!("CARGO_BIN_EXE_compaction"));
    command
        .args(args)
        .current_dir(cwd)
        .env("HOME", home)
        .env("TMPDIR", tmp)
        .env_remove("PI_CODING_AGENT_DIR")
        .env_remove("ANTHROPIC_API_KEY")
        .env_remove("OPENAI_API_KEY")
        .env_remove("COMPACTION_TRANSCRIPTS")
        .env_remove("CLAUDE_CONFIG_DIR")
        .env_remove("CODEX_HOME")
        .envs(env.iter().copied());
    run_until(&mut command, Duration::from_secs(60))
}

/// Every path under `dir` with what it is: a file's bytes (hashed), a link's target, a
/// node's type.
fn snapshot(dir: &Path) -> Vec<(String, String)> {
    let mut items = Vec::new();
    walk(dir, "", &mut items);
    items.sort();
    items
}

/// What changed between two snapshots, as lines.
fn changes(before: &[(String, String)], after: &[(String, String)]) -> Vec<String> {
    let mut lines = Vec::new();
    for item in before {
        if !after.contains(item) {
            lines.push(format!("- {} ({})", item.0, item.1));
        }
    }
    for item in after {
        if !before.contains(item) {
            lines.push(format!("+ {} ({})", item.0, item.1));
        }
    }
    lines
}

/// The fixture session's text with its header's `cwd` set to `cwd` and every mention of
/// `src/parser.rs` (a file the compacted part edits) replaced by `path`.
fn session_naming(cwd: &str, path: &str) -> String {
    let text = std::fs::read_to_string(super::fixture("offline-coding.jsonl")).unwrap();
    let escaped = serde_json::to_string(path).unwrap();
    let escaped = &escaped[1..escaped.len() - 1];
    let mut lines = text.lines();
    let mut header: serde_json::Value = serde_json::from_str(lines.next().unwrap()).unwrap();
    header["cwd"] = serde_json::Value::from(cwd);
    let mut out = header.to_string();
    for line in lines {
        out.push('\n');
        out.push_str(&line.replace("src/parser.rs", escaped));
    }
    out.push('\n');
    out
}

/// A fresh instance folder: `work` (the current directory), `tmp`, `home`.
fn instance_root() -> (tempfile::TempDir, PathBuf, PathBuf, PathBuf) {
    let root = tempfile::tempdir().unwrap();
    let (work, tmp, home) =
        (root.path().join("work"), root.path().join("tmp"), root.path().join("home"));
    for dir in [&work, &tmp, &home] {
        std::fs::create_dir(dir).unwrap();
    }
    (root, work, tmp, home)
}
