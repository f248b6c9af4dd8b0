//! Resource limits: endless input is refused at a bound instead of filling memory, and
//! absurd flag values are clamped instead of overflowing.

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use super::*;

/// Runs the binary with `stdin`, killing it after 60 s; returns (exit code, stderr).
fn run_bounded(args: &[&str], cwd: &Path, stdin: Stdio) -> (Option<i32>, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_compaction"))
        .args(args)
        .current_dir(cwd)
        .env("HOME", cwd)
        .env_remove("PI_CODING_AGENT_DIR")
        .stdin(stdin)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if started.elapsed() > Duration::from_secs(60) {
            child.kill().unwrap();
            panic!("{args:?} did not end within 60 s");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let mut stderr = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut stderr).unwrap();
    (status.code(), stderr)
}

#[test]
fn tokens_of_endless_input_is_refused_at_a_bound() {
    let dir = tempfile::tempdir().unwrap();
    // A device is refused before it is read; a regular file past the bound (sparse: it
    // costs no disk) is refused once the bound is read.
    let (code, stderr) = run_bounded(&["tokens", "/dev/zero"], dir.path(), Stdio::null());
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("/dev/zero") && stderr.contains("a device"), "{stderr}");
    let big = dir.path().join("big.txt");
    std::fs::File::create(&big).unwrap().set_len(300 << 20).unwrap();
    let (code, stderr) = run_bounded(&["tokens", "big.txt"], dir.path(), Stdio::null());
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("big.txt") && stderr.contains("at most"), "{stderr}");
    let mut yes = Command::new("yes").stdout(Stdio::piped()).spawn().unwrap();
    let pipe = Stdio::from(yes.stdout.take().unwrap());
    let (code, stderr) = run_bounded(&["tokens", "-"], dir.path(), pipe);
    yes.kill().unwrap();
    yes.wait().unwrap();
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("standard input") && stderr.contains("at most"), "{stderr}");
}

#[test]
fn a_huge_timeout_is_clamped_instead_of_overflowing() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(fixture("offline-coding.jsonl"), dir.path().join("s.jsonl")).unwrap();
    let out = run(
        &[
            "run",
            "s.jsonl",
            "--estimator",
            "pi",
            "--min-turns",
            "0",
            "--keep-recent",
            "500",
            "--context-window",
            "20000",
            "--timeout",
            "9223372036854775807",
        ],
        dir.path(),
    );
    assert!(out.starts_with("exit: 0\n"), "{out}");
    assert!(out.contains("appended compaction"), "{out}");
    assert!(!out.contains("panicked"), "{out}");
}
