//! `compaction import` on the real transcripts of `../shared/transcripts` (Claude Code with
//! and without hooks, Codex rollouts old and new), and the hint every command gives for them.
//! The folder is found through `COMPACTION_TRANSCRIPTS`, else beside the repository; without
//! it the tests print why they skip.
//!
//! Each transcript is in the test part when the first byte of
//! sha256("<repository>:<path>") of its `SOURCES.json` row is below 0x60, else in the dev
//! part; both parts are printed.

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::process::Command;

use compaction_core::files::FileOperations;
use compaction_core::import::{self, ImportOptions};
use compaction_core::message::AgentMessage;
use compaction_core::redact::Redactor;
use serde_json::Value;

fn transcripts() -> Option<PathBuf> {
    let dir = std::env::var_os("COMPACTION_TRANSCRIPTS").map(PathBuf::from).unwrap_or_else(|| {
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/transcripts")
    });
    if dir.join("SOURCES.json").is_file() {
        Some(dir)
    } else {
        eprintln!("skipped: no real transcripts at {} (set COMPACTION_TRANSCRIPTS)", dir.display());
        None
    }
}

/// `dev` or `test`, by the corpus's fixed rule (`None` without `sha256sum`).
fn part(row: &Value) -> Option<&'static str> {
    let key = format!("{}:{}", row["repository"].as_str()?, row["path"].as_str()?);
    let mut child = Command::new("sha256sum")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .ok()?;
    std::io::Write::write_all(&mut child.stdin.take()?, key.as_bytes()).ok()?;
    let output = child.wait_with_output().ok()?;
    let first = u8::from_str_radix(std::str::from_utf8(output.stdout.get(..2)?).ok()?, 16).ok()?;
    Some(if first < 0x60 { "test" } else { "dev" })
}

fn rows(dir: &std::path::Path) -> Vec<Value> {
    let sources: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("SOURCES.json")).unwrap()).unwrap();
    sources["files"].as_array().unwrap().clone()
}

/// The files the transcript's patches add or update and no later patch deletes or moves
/// away, read from the raw lines.
fn patched_files(text: &str) -> BTreeSet<String> {
    let mut files = BTreeSet::new();
    for line in text.lines() {
        if !line.contains("Begin Patch") {
            continue;
        }
        let Ok(value) = serde_json::from_str::<Value>(line) else { continue };
        let mut strings = Vec::new();
        collect_strings(&value, &mut strings);
        for patch in strings.iter().filter(|s| s.contains("*** Begin Patch")) {
            let mut updated = None::<String>;
            for patch_line in patch.lines() {
                let path =
                    |prefix: &str| patch_line.strip_prefix(prefix).map(|p| p.trim().to_owned());
                if let Some(path) = path("*** Add File:").or_else(|| path("*** Update File:")) {
                    files.insert(path.clone());
                    updated = Some(path);
                } else if let Some(path) = path("*** Delete File:") {
                    files.remove(&path);
                } else if let (Some(to), Some(from)) = (path("*** Move to:"), updated.take()) {
                    files.remove(&from);
                    files.insert(to);
                }
            }
        }
    }
    files
}

/// Every string in a JSON value, and the strings inside strings that hold JSON.
fn collect_strings(value: &Value, out: &mut Vec<String>) {
    match value {
        Value::String(text) => {
            if let Ok(inner @ (Value::Object(_) | Value::Array(_))) = serde_json::from_str(text) {
                collect_strings(&inner, out);
            }
            out.push(text.clone());
        }
        Value::Array(items) => items.iter().for_each(|item| collect_strings(item, out)),
        Value::Object(map) => map.values().for_each(|item| collect_strings(item, out)),
        Value::Null | Value::Bool(_) | Value::Number(_) => {}
    }
}

#[test]
fn real_transcripts_import_with_the_conversation_on_the_path() {
    let Some(dir) = transcripts() else { return };
    let redactor = Redactor::default();
    let mut failures = Vec::new();
    for row in rows(&dir) {
        let agent = row["agent"].as_str().unwrap_or("");
        if !matches!(agent, "claude-code" | "codex") {
            continue;
        }
        let file = row["file"].as_str().unwrap();
        let part = part(&row).unwrap_or("?");
        let text = std::fs::read_to_string(dir.join(file)).unwrap();
        let options = ImportOptions::default();
        let imported = match import::import_with(&text, &options, &redactor) {
            Ok(imported) => imported,
            Err(error) => {
                failures.push(format!("{file}: {error}"));
                continue;
            }
        };
        let report = &imported.report;
        let messages = report.user_messages + report.assistant_messages + report.tool_results;
        let session = compaction_core::parse_session(imported.session.as_bytes());
        let mut problems = Vec::new();
        if session.diagnostics().iter().any(|d| d.severity() != compaction_core::Severity::Info) {
            problems.push(format!("not clean: {:?}", session.diagnostics()));
        }
        // The conversation the user had is the file order: every message is on the path
        // (a message edited and sent again keeps its place as a custom entry).
        if report.messages_on_path != messages {
            problems
                .push(format!("{} of {messages} messages on the path", report.messages_on_path));
        }
        if report.tool_results_on_path != report.tool_results {
            problems.push(format!(
                "{} of {} tool results on the path",
                report.tool_results_on_path, report.tool_results
            ));
        }
        let entries: Vec<Value> =
            imported.session.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
        if entries[0]["cwd"].as_str().is_none_or(str::is_empty) {
            problems.push("header without cwd".into());
        }
        let replies: Vec<&Value> =
            entries.iter().filter(|e| e["message"]["role"] == "assistant").collect();
        if replies.iter().any(|r| !r["message"]["usage"]["cost"]["total"].is_number()) {
            problems.push("a reply without pi's full usage".into());
        }
        let patched = patched_files(&text);
        let mut files = FileOperations::default();
        for reply in &replies {
            let message: AgentMessage = serde_json::from_value(reply["message"].clone()).unwrap();
            files.add_message(&message);
        }
        let modified: BTreeSet<String> = files.modified().into_iter().collect();
        let missing: Vec<&String> = patched.difference(&modified).collect();
        if !missing.is_empty() {
            problems.push(format!("patched but not modified: {missing:?}"));
        }
        eprintln!(
            "{part:4} {file:58} path {}/{messages} (branches {}, resent {}), tool results {}/{}, \
             patched files {}/{}, compactions {}, window {:?}, usage missing {}, dropped kinds {}",
            report.messages_on_path,
            report.messages_off_path,
            report.resent_messages,
            report.tool_results_on_path,
            report.tool_results,
            patched.len() - missing.len(),
            patched.len(),
            report.compactions,
            report.context_window,
            report.usage_missing,
            report.dropped.len(),
        );
        if !problems.is_empty() {
            failures.push(format!("{file}: {}", problems.join("; ")));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn every_command_names_a_foreign_transcript_and_suggests_import() {
    let Some(dir) = transcripts() else { return };
    // Every file through `stats`; the first of each agent through `context` and `run` too
    // (every command opens a session through the same store error).
    let mut seen = BTreeSet::new();
    for row in rows(&dir) {
        let agent = row["agent"].as_str().unwrap_or("");
        let file = dir.join(row["file"].as_str().unwrap());
        let commands: &[&str] =
            if seen.insert(agent.to_owned()) { &["stats", "context", "run"] } else { &["stats"] };
        let expected = match agent {
            "claude-code" => Some("is a Claude Code transcript"),
            "codex" => Some("is a Codex CLI rollout"),
            "pi" => None,
            _ => continue,
        };
        for &command in commands {
            let output = Command::new(env!("CARGO_BIN_EXE_compaction"))
                .args([command, file.to_str().unwrap()])
                .args(if command == "run" { &["--offline", "--dry-run"][..] } else { &[] })
                .output()
                .unwrap();
            let stderr = String::from_utf8_lossy(&output.stderr);
            match expected {
                Some(format) => {
                    assert_eq!(output.status.code(), Some(2), "{command} {}", file.display());
                    assert!(stderr.contains(format), "{command} {}: {stderr}", file.display());
                    assert!(stderr.contains("compaction import "), "{stderr}");
                }
                None => assert!(!stderr.contains("compaction import"), "{stderr}"),
            }
        }
    }
}
