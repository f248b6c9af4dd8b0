//! Other programs writing the session while a writing command of the binary runs, attacked
//! through the commands themselves (the store's own suite drives the store directly):
//! - a half line another process is writing when the command starts, finished later (with
//!   the file held open, or closed and reopened as pi does): never moved aside, never fused
//!   with the command's entry;
//! - lines appended to a version 1 file (which every writing command migrates first) by
//!   writers of several styles (pi's open-append-close, a writer holding the file open, one
//!   writing each line in two halves, one writing bursts of lines at once): every line that
//!   reached the file reaches the session exactly once, and every line stays whole.
//!
//! Instances are numbered in the order generated; instance `i` is in the test part when
//! `i % 3 == 0`, else in the dev part (a rule fixed before the instances were run). Only the
//! dev part's misses are printed.

use std::path::Path;
use std::process::{Child, Command};
use std::time::Duration;

use serde_json::Value;

fn compaction(args: &[&str], cwd: &Path) -> (i32, String) {
    let output = super::isolated_output(args, cwd);
    (output.status.code().unwrap_or(-1), String::from_utf8_lossy(&output.stderr).into_owned())
}

/// Every line of the session parses as JSON (none fused, none cut).
fn every_line_whole(text: &str) -> Result<(), String> {
    for (number, line) in text.lines().enumerate() {
        if serde_json::from_str::<Value>(line).is_err() {
            return Err(format!("line {} is not whole JSON: {line:.120}", number + 1));
        }
    }
    if !text.ends_with('\n') {
        return Err("the file ends inside a line".to_owned());
    }
    Ok(())
}

fn tally(
    index: usize,
    result: Result<i32, String>,
    parts: &mut [(usize, usize); 2],
) -> Option<String> {
    let is_test = index.is_multiple_of(3);
    let part = &mut parts[usize::from(!is_test)];
    part.1 += 1;
    match result {
        Ok(_) => {
            part.0 += 1;
            None
        }
        Err(error) if !is_test => Some(format!("#{index} {error}")),
        Err(_) => Some(format!("#{index} (test part)")),
    }
}

/// A writer that writes the first half of `line`, waits `pause`, then the rest.
fn half_line_writer(path: &Path, line: &str, pause: Duration, hold_open: bool) -> Child {
    let (head, tail) = line.split_at(line.len() / 2);
    let script = if hold_open {
        r#"exec 3>>"$1"; printf '%s' "$2" >&3; sleep "$4"; printf '%s\n' "$3" >&3; exec 3>&-"#
    } else {
        r#"printf '%s' "$2" >> "$1"; sleep "$4"; printf '%s\n' "$3" >> "$1""#
    };
    Command::new("sh")
        .args(["-c", script, "writer"])
        .arg(path)
        .args([head, tail, &format!("{:.3}", pause.as_secs_f64())])
        .spawn()
        .unwrap()
}

fn half_line_instance(args: &[&str], hold_open: bool, pause_ms: u64) -> Result<i32, String> {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.jsonl");
    std::fs::copy(super::fixture("offline-coding.jsonl"), &path).unwrap();
    let before = std::fs::read_to_string(&path).unwrap();
    let last: Value = serde_json::from_str(before.lines().last().unwrap()).unwrap();
    let line = format!(
        r#"{{"type":"message","id":"writer01","parentId":"{}","timestamp":"2026-03-04T10:00:00.000Z","message":{{"role":"user","content":"the other writer's entry","timestamp":1}}}}"#,
        last["id"].as_str().unwrap()
    );
    let mut writer = half_line_writer(&path, &line, Duration::from_millis(pause_ms), hold_open);
    while std::fs::metadata(&path).unwrap().len() == before.len() as u64 {
        std::thread::sleep(Duration::from_millis(1));
    }
    let (code, stderr) = compaction(args, dir.path());
    assert!(writer.wait().unwrap().success());
    let after = std::fs::read_to_string(&path).unwrap();
    let what = format!("`{}` (held open: {hold_open}, {pause_ms} ms)", args.join(" "));
    if code == 101 || stderr.contains("panicked") {
        return Err(format!("{what}: panicked: {stderr}"));
    }
    if after.matches(&format!("{line}\n")).count() != 1 {
        return Err(format!("{what}: exit {code}, the writer's entry is not whole once: {stderr}"));
    }
    every_line_whole(&after).map_err(|error| format!("{what}: exit {code}: {error}"))?;
    let sidecars = std::fs::read_dir(dir.path())
        .unwrap()
        .flatten()
        .filter(|entry| entry.file_name().to_string_lossy().contains(".torn-"))
        .count();
    if sidecars != 0 {
        return Err(format!("{what}: exit {code}: a part of the writer's line was moved aside"));
    }
    Ok(code)
}

#[test]
fn a_half_line_another_program_is_writing_is_never_moved_or_fused_by_any_command() {
    let commands: [&[&str]; 5] = [
        &["pin", "s.jsonl", "--entry", "5e550003"],
        &["prune", "s.jsonl"],
        &["run", "s.jsonl", "--offline", "--keep-recent", "500", "--min-turns", "0"],
        &["branch", "s.jsonl", "--to", "5e550003", "--summarize", "--offline"],
        &["check", "s.jsonl", "--repair"],
    ];
    let mut parts = [(0, 0); 2];
    let mut failures = Vec::new();
    let mut outcomes = std::collections::BTreeMap::new();
    let mut index = 0;
    for args in commands {
        for hold_open in [true, false] {
            for pause_ms in [300, 1200] {
                let result = half_line_instance(args, hold_open, pause_ms);
                if let Ok(code) = &result {
                    *outcomes.entry(*code).or_insert(0) += 1;
                }
                failures.extend(tally(index, result, &mut parts));
                index += 1;
            }
        }
    }
    let [test, dev] = parts;
    println!(
        "half lines, every command: dev {}/{}, test {}/{} (exit codes of those that hold: {outcomes:?})",
        dev.0, dev.1, test.0, test.1
    );
    assert!(failures.is_empty(), "{} failed:\n{}", failures.len(), failures.join("\n"));
}

const V1_HEADER: &str =
    r#"{"type":"session","id":"s","timestamp":"2024-06-10T06:13:00.000Z","cwd":"/p"}"#;

fn v1_line(marker: &str, role: &str) -> String {
    format!(
        r#"{{"type":"message","timestamp":"2024-06-10T06:13:01.000Z","message":{{"role":"{role}","content":"{marker} {filler}","timestamp":1718000001000}}}}"#,
        filler = "some words of the message ".repeat(8)
    )
}

/// The shell script of a writer style appending `lines` lines `late-K` to `$1`.
fn writer_script(style: &str, lines: usize) -> String {
    let template = v1_line("late-N", "user");
    let (head, tail) = template.split_once("late-N").unwrap();
    let (half_head, half_tail) = tail.split_at(tail.len() / 2);
    match style {
        // pi: open, append one line, close.
        "append" => format!(
            r#"i=0; while [ $i -lt {lines} ]; do printf '%s%s%s\n' '{head}' "late-$i" '{tail}' >> "$1"; i=$((i+1)); done"#
        ),
        // One descriptor held open for every line.
        "held" => format!(
            r#"exec 3>>"$1"; i=0; while [ $i -lt {lines} ]; do printf '%s%s%s\n' '{head}' "late-$i" '{tail}' >&3; i=$((i+1)); done; exec 3>&-"#
        ),
        // Each line in two writes.
        "halves" => format!(
            r#"exec 3>>"$1"; i=0; while [ $i -lt {lines} ]; do printf '%s%s%s' '{head}' "late-$i" '{half_head}' >&3; printf '%s\n' '{half_tail}' >&3; i=$((i+1)); done; exec 3>&-"#
        ),
        // Bursts of ten lines in one write.
        _ => format!(
            r#"i=0; while [ $i -lt {lines} ]; do b=$(j=0; while [ $j -lt 10 ]; do printf '%s%s%s\n' '{head}' "late-$((i+j))" '{tail}'; j=$((j+1)); done); printf '%s\n' "$b" >> "$1"; i=$((i+10)); done"#
        ),
    }
}

fn migration_instance(args: &[&str], style: &str, delay_ms: u64) -> Result<i32, String> {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.jsonl");
    let mut text = format!("{V1_HEADER}\n");
    for k in 0..200 {
        let role = if k % 2 == 0 { "user" } else { "assistant" };
        text.push_str(&v1_line(&format!("before-{k}"), role));
        text.push('\n');
    }
    std::fs::write(&path, text).unwrap();
    let lines = 300;
    let script = writer_script(style, lines);
    let mut writer = Command::new("sh").args(["-c", &script, "writer"]).arg(&path).spawn().unwrap();
    std::thread::sleep(Duration::from_millis(delay_ms));
    let (code, stderr) = compaction(args, dir.path());
    assert!(writer.wait().unwrap().success());
    let what = format!("`{}` ({style} writer, {delay_ms} ms)", args.join(" "));
    if code == 101 || stderr.contains("panicked") {
        return Err(format!("{what}: panicked: {stderr}"));
    }
    let after = std::fs::read_to_string(&path).unwrap();
    for k in 0..lines {
        let count = after.matches(&format!("\"late-{k} ")).count();
        if count != 1 {
            return Err(format!(
                "{what}: exit {code}: line late-{k} is in the session {count} times: {}",
                stderr.trim()
            ));
        }
    }
    every_line_whole(&after).map_err(|error| format!("{what}: exit {code}: {error}"))?;
    // Whether the command migrated (a `.bak-v1` beside it) or refused.
    let migrated = std::fs::read_dir(dir.path())
        .unwrap()
        .flatten()
        .any(|entry| entry.file_name().to_string_lossy().contains(".bak-v1"));
    Ok(i32::from(migrated))
}

#[test]
fn lines_appended_while_a_command_migrates_reach_the_session_once_and_whole() {
    let commands: [&[&str]; 3] = [
        &["migrate", "s.jsonl"],
        &["run", "s.jsonl", "--offline", "--keep-recent", "500", "--min-turns", "0"],
        &["prune", "s.jsonl"],
    ];
    let mut parts = [(0, 0); 2];
    let mut failures = Vec::new();
    let mut outcomes = std::collections::BTreeMap::new();
    let mut index = 0;
    for args in commands {
        for style in ["append", "held", "halves", "bursts"] {
            for delay_ms in [0, 20] {
                let result = migration_instance(args, style, delay_ms);
                if let Ok(migrated) = &result {
                    *outcomes.entry(*migrated).or_insert(0) += 1;
                }
                failures.extend(tally(index, result, &mut parts));
                index += 1;
            }
        }
    }
    let [test, dev] = parts;
    println!(
        "migration races, every command: dev {}/{}, test {}/{} (refused: {}, migrated: {})",
        dev.0,
        dev.1,
        test.0,
        test.1,
        outcomes.get(&0).unwrap_or(&0),
        outcomes.get(&1).unwrap_or(&0)
    );
    assert!(failures.is_empty(), "{} failed:\n{}", failures.len(), failures.join("\n"));
}
