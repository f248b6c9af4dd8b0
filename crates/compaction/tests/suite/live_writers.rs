//! Real concurrent writers against the store, many iterations each:
//! - a half line another process leaves (and finishes later) is never moved aside while it
//!   is being written: the store judges it under its lock with the grace period and the
//!   writer check, and refuses with the file untouched;
//! - `migrate` (and a write open of a version 1 file, which migrates) racing a process that
//!   appends lines: every line that reached the old file reaches the new one, or the
//!   command refuses with the file untouched.
//!
//! The iterations are split once by a fixed rule: iteration numbers divisible by 3 are the
//! test part, the rest the dev part; both are reported.

use std::path::Path;
use std::process::{Child, Command};
use std::time::Duration;

use compaction::store::{OpenOptions, SessionStore, StoreError};

const HEADER: &str =
    r#"{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/p"}"#;

fn entry(id: &str, parent: &str, text: &str) -> String {
    format!(
        r#"{{"type":"message","id":"{id}","parentId":"{parent}","timestamp":"2026-01-01T00:00:01.000Z","message":{{"role":"user","content":"{text}"}}}}"#
    )
}

fn sidecars(dir: &Path) -> usize {
    std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .filter(|entry| entry.file_name().to_string_lossy().contains(".torn-"))
        .count()
}

/// A writer that writes the first half of `line`, waits `pause` (holding the file open, or
/// closing and reopening it), then writes the rest with its newline.
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

fn iteration_half_line(number: u32) -> Result<(), String> {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.jsonl");
    std::fs::write(&path, format!("{HEADER}\n{}\n", entry("u1", "null", "one"))).unwrap();
    let line = entry("u2", "u1", &format!("the writer's entry {number}"));
    let hold_open = number.is_multiple_of(2);
    let pause = Duration::from_millis(80 + u64::from(number % 5) * 40);
    let mut writer = half_line_writer(&path, &line, pause, hold_open);
    // Open once the half line is there.
    let initial = std::fs::metadata(&path).unwrap().len();
    while std::fs::metadata(&path).unwrap().len() == initial {
        std::thread::sleep(Duration::from_millis(1));
    }
    let options =
        OpenOptions { tail_grace: Duration::from_millis(400), ..OpenOptions::for_writing() };
    let opened = SessionStore::open(&path, options);
    let status = writer.wait().unwrap();
    assert!(status.success());
    let text = std::fs::read_to_string(&path).unwrap();
    match opened {
        Ok((_, report)) if report.torn_tail.is_some() => {
            return Err(format!("{number}: a half line being written was moved aside"));
        }
        Ok(_) | Err(StoreError::Changed { .. }) => {}
        Err(other) => return Err(format!("{number}: unexpected error {other}")),
    }
    if !text.contains(&format!("{line}\n")) || sidecars(dir.path()) != 0 {
        return Err(format!("{number}: the writer's entry was split:\n{text}"));
    }
    Ok(())
}

#[test]
fn a_half_line_being_written_is_never_moved_aside() {
    let (mut dev, mut test) = ((0, 0), (0, 0));
    let mut failures = Vec::new();
    for number in 0..24u32 {
        let part = if number.is_multiple_of(3) { &mut test } else { &mut dev };
        part.1 += 1;
        match iteration_half_line(number) {
            Ok(()) => part.0 += 1,
            Err(error) => failures.push(error),
        }
    }
    println!("half lines: dev {}/{} hold, test {}/{}", dev.0, dev.1, test.0, test.1);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

const V1_HEADER: &str =
    r#"{"type":"session","id":"s","timestamp":"2024-06-10T06:13:00.000Z","cwd":"/p"}"#;

fn v1_line(marker: &str) -> String {
    format!(
        r#"{{"type":"message","timestamp":"2024-06-10T06:13:01.000Z","message":{{"role":"user","content":"{marker}","timestamp":1718000001000}}}}"#
    )
}

/// One race: a process appends `lines` lines (one `>>` each, as pi appends) while the file
/// is migrated (`through_open`: by a write open, as `run` does).
fn iteration_migrate(number: u32, through_open: bool) -> Result<(), String> {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.jsonl");
    let mut text = format!("{V1_HEADER}\n");
    for k in 0..200 {
        text.push_str(&v1_line(&format!("before-{k}")));
        text.push('\n');
    }
    std::fs::write(&path, text).unwrap();
    let lines = 300;
    let template = v1_line("late-N");
    let (head, tail) = template.split_once("late-N").unwrap();
    let script = format!(
        r#"i=0; while [ $i -lt {lines} ]; do printf '%s%s%s\n' '{head}' "late-$i" '{tail}' >> "$1"; i=$((i+1)); done"#
    );
    let mut writer = Command::new("sh").args(["-c", &script, "writer"]).arg(&path).spawn().unwrap();
    std::thread::sleep(Duration::from_millis(u64::from(number % 7) * 3));
    let result = if through_open {
        let options = OpenOptions {
            tail_grace: Duration::from_millis(50),
            lock_wait: compaction::store::LockWait::For(Duration::from_secs(10)),
            ..OpenOptions::for_writing()
        };
        SessionStore::open(&path, options).map(|_| ())
    } else {
        compaction::store::migrate(&path).map(|_| ())
    };
    assert!(writer.wait().unwrap().success());
    match &result {
        Ok(()) | Err(StoreError::Changed { .. }) => {}
        Err(other) => return Err(format!("{number}: unexpected error {other}")),
    }
    let text = std::fs::read_to_string(&path).unwrap();
    for k in 0..lines {
        let count = text.matches(&format!("\"late-{k}\"")).count();
        if count != 1 {
            let how = if result.is_ok() { "migrated" } else { "refused" };
            return Err(format!(
                "{number} ({how}, through open: {through_open}): line late-{k} is in the \
                 session {count} times"
            ));
        }
    }
    Ok(())
}

#[test]
fn lines_appended_during_a_migration_reach_the_new_file() {
    let (mut dev, mut test) = ((0, 0), (0, 0));
    let mut failures = Vec::new();
    for number in 0..30u32 {
        let part = if number.is_multiple_of(3) { &mut test } else { &mut dev };
        part.1 += 1;
        match iteration_migrate(number, number % 2 == 1) {
            Ok(()) => part.0 += 1,
            Err(error) => failures.push(error),
        }
    }
    println!("migration races: dev {}/{} hold, test {}/{}", dev.0, dev.1, test.0, test.1);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
