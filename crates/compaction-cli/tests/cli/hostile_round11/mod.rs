//! Round 11: a trusted hook that misbehaves, and a session crafted to break the projection
//! and the planner, attacked by class.
//!
//! - `hooks`: a process extension named in the global settings (so it runs, trusted) that
//!   floods or never answers, answers half or twice, leaves a process holding its pipes,
//!   exits oddly, or answers with a summary too large, carrying a secret, or keeping from an
//!   entry it may not keep from; run through `run`, `run -o` and `summarize`.
//! - `sessions`: session files whose tree is hostile (parent cycles, self-parents, very deep
//!   chains, duplicate ids, compactions keeping from nowhere or from the future, thousands
//!   of leaves, odd timestamps, edits of themselves) through every reading command and
//!   `run -o`: bounded time, no panic, and pi 1.6's context where pi 1.6 defines one.
//!
//! Instances are numbered in the order generated; instance `i` is in the test part when
//! `i % 3 == 0`, else in the dev part (the rule of every hostile suite). Each test prints its
//! counts and fails with the dev part's misses in full (the test part's by number only).

use std::io::Read as _;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::tally::Tally;

mod hooks;
mod sessions;

/// What one run of the binary gave.
struct Ran {
    /// The exit code; -1 for a signal, -2 when it was killed at its deadline.
    code: i32,
    stdout: String,
    stderr: String,
    elapsed: Duration,
}

/// Runs the binary in `cwd` with `HOME` and `TMPDIR` given, a clean settings environment
/// and a deadline (exit -2 when it was still running then).
fn run_in(cwd: &Path, home: &Path, args: &[String], deadline: Duration) -> Ran {
    let tmp = home.join("tmp");
    std::fs::create_dir_all(&tmp).unwrap();
    // `ROUND11_COMPACTION_BIN` runs the suites against another build (the figures before
    // the fixes were measured with the binary of the commit before them).
    let binary = std::env::var_os("ROUND11_COMPACTION_BIN")
        .unwrap_or_else(|| env!("CARGO_BIN_EXE_compaction").into());
    let mut child = Command::new(binary)
        .args(args)
        .current_dir(cwd)
        .env("HOME", home)
        .env("TMPDIR", &tmp)
        .env_remove("PI_CODING_AGENT_DIR")
        .env_remove("ANTHROPIC_API_KEY")
        .env_remove("OPENAI_API_KEY")
        .env_remove("COMPACTION_TRANSCRIPTS")
        .env_remove("ROUND11_COMPACTION_BIN")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdout_pipe = child.stdout.take().unwrap();
    let mut stderr_pipe = child.stderr.take().unwrap();
    let out = std::thread::spawn(move || {
        let mut bytes = Vec::new();
        let _ = stdout_pipe.read_to_end(&mut bytes);
        String::from_utf8_lossy(&bytes).into_owned()
    });
    let err = std::thread::spawn(move || {
        let mut bytes = Vec::new();
        let _ = stderr_pipe.read_to_end(&mut bytes);
        String::from_utf8_lossy(&bytes).into_owned()
    });
    let started = Instant::now();
    let code = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status.code().unwrap_or(-1);
        }
        if started.elapsed() > deadline {
            child.kill().unwrap();
            let _ = child.wait();
            break -2;
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    let elapsed = started.elapsed();
    Ran { code, stdout: out.join().unwrap(), stderr: err.join().unwrap(), elapsed }
}
