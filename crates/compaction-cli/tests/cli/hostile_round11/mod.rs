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

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use crate::child::{Ran, run_until};
use crate::tally::Tally;

mod hooks;
mod sessions;

/// Runs the binary in `cwd` with `HOME` and `TMPDIR` given, a clean settings environment
/// and a deadline (exit -2 when it was still running then).
fn run_in(cwd: &Path, home: &Path, args: &[String], deadline: Duration) -> Ran {
    let tmp = home.join("tmp");
    std::fs::create_dir_all(&tmp).unwrap();
    // `ROUND11_COMPACTION_BIN` runs the suites against another build (the figures before
    // the fixes were measured with the binary of the commit before them).
    let binary = std::env::var_os("ROUND11_COMPACTION_BIN")
        .unwrap_or_else(|| env!("CARGO_BIN_EXE_compaction").into());
    let mut command = Command::new(binary);
    command
        .args(args)
        .current_dir(cwd)
        .env("HOME", home)
        .env("TMPDIR", &tmp)
        .env_remove("PI_CODING_AGENT_DIR")
        .env_remove("ANTHROPIC_API_KEY")
        .env_remove("OPENAI_API_KEY")
        .env_remove("COMPACTION_TRANSCRIPTS")
        .env_remove("ROUND11_COMPACTION_BIN");
    run_until(&mut command, deadline)
}
