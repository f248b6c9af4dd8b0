//! What a killed command leaves, attacked by class: every command that makes a file or a
//! folder (an output, a database, a backup, a repaired copy, a scratch copy in the temporary
//! folder, a manual page, an evaluation's replay) is really started and killed with SIGKILL at
//! points spread over the time a clean run takes, then run again to the end. Afterwards the
//! work folder and the temporary folder must hold no name a clean run does not leave (names
//! compared with every run of digits read as one: timestamps and process ids differ): each
//! scratch or temporary file is removed by the next run of the command that makes it, or
//! lies where that run finds it.
//!
//! Instances are numbered in the order generated; instance `i` is in the test part when
//! `i % 3 == 0`, else in the dev part.

use std::collections::BTreeSet;
use std::path::Path;
use std::time::Instant;

use super::{Folder, database, strings, tally};

/// The commands, with `ID` for the stored session's id.
const COMMANDS: [&[&str]; 15] = [
    &[
        "run",
        "s.jsonl",
        "--offline",
        "--keep-recent",
        "500",
        "--min-turns",
        "0",
        "-o",
        "out.jsonl",
        "--force",
    ],
    &["run", "s.jsonl", "--offline", "--keep-recent", "500", "--min-turns", "0"],
    &["run", "v1.jsonl", "--offline", "--keep-recent", "5", "--min-turns", "0"],
    &["import", "t.jsonl", "-o", "imported.jsonl", "--force"],
    &["export", "s.jsonl", "--format", "codex", "-o", "exported.jsonl", "--force"],
    &["store", "export", "sqlite:db.sqlite#ID", "-o", "stored.jsonl", "--force"],
    &["store", "import", "in", "--to", "sqlite:new.sqlite"],
    &["man", "--dir", "pages", "--force"],
    &["migrate", "v1.jsonl"],
    &["check", "--repair", "bad.jsonl"],
    &["run", "sqlite:db.sqlite#ID", "--offline", "--keep-recent", "500", "--min-turns", "0"],
    &[
        "worker",
        "--store",
        "sqlite:db.sqlite",
        "--once",
        "--offline",
        "--keep-recent",
        "500",
        "--min-turns",
        "0",
        "--context-window",
        "4000",
        "--reserve",
        "2000",
    ],
    &[
        "worker",
        "--store",
        "in",
        "--once",
        "--offline",
        "--keep-recent",
        "500",
        "--min-turns",
        "0",
        "--context-window",
        "4000",
        "--reserve",
        "2000",
    ],
    &["eval", "docker-ci.probes.json", "--offline", "--compactions", "1,2"],
    &["pin", "s.jsonl", "--text", "Always run the tests before committing."],
];

/// Kill points per command.
const POINTS: u32 = 6;

/// A folder holding what the commands read; returns it and the stored session's id.
fn prepared() -> (Folder, String) {
    let folder = Folder::new();
    let id = database(&folder);
    let work = folder.work();
    let fixtures = super::super::fixture("");
    std::fs::copy(fixtures.join("offline-coding.jsonl"), work.join("s.jsonl")).unwrap();
    std::fs::copy(fixtures.join("v1-legacy.jsonl"), work.join("v1.jsonl")).unwrap();
    std::fs::copy(fixtures.join("damaged.jsonl"), work.join("bad.jsonl")).unwrap();
    std::fs::copy(fixtures.join("import/claude-code.jsonl"), work.join("t.jsonl")).unwrap();
    std::fs::create_dir(work.join("in")).unwrap();
    for name in ["offline-coding.jsonl", "small-linear.jsonl", "branching.jsonl"] {
        std::fs::copy(fixtures.join(name), work.join("in").join(name)).unwrap();
    }
    std::fs::create_dir(work.join("pages")).unwrap();
    let eval = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/eval");
    for name in ["docker-ci.jsonl", "docker-ci.probes.json"] {
        std::fs::copy(eval.join(name), work.join(name)).unwrap();
    }
    (folder, id)
}

/// Every name under the work and temporary folders, each run of digits read as `N`.
fn names(folder: &Folder) -> BTreeSet<String> {
    folder
        .snapshot()
        .into_iter()
        .map(|(name, _)| {
            let mut out = String::new();
            for ch in name.chars() {
                if ch.is_ascii_digit() {
                    if !out.ends_with('N') {
                        out.push('N');
                    }
                } else {
                    out.push(ch);
                }
            }
            out
        })
        .collect()
}

/// A fraction in [0, 1) drawn from `seed` (a fixed sequence, so every run kills at the same
/// points).
fn jitter(seed: u64) -> f64 {
    let mut x = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15).wrapping_add(0x2545_f491_4f6c_dd1d);
    x ^= x >> 33;
    x = x.wrapping_mul(0xff51_afd7_ed55_8ccd);
    x ^= x >> 33;
    (x >> 11) as f64 / (1u64 << 53) as f64
}

#[test]
fn a_killed_command_leaves_nothing_once_it_has_run_again() {
    let (mut dev, mut test) = ((0, 0), (0, 0));
    let mut failures = Vec::new();
    let mut index = 0;
    for command in COMMANDS {
        // What a clean run leaves, and how long it takes.
        let (clean, duration) = {
            let (folder, id) = prepared();
            let args: Vec<String> = command.iter().map(|a| a.replace("ID", &id)).collect();
            let started = Instant::now();
            let (code, stderr) = folder.run(&args);
            assert!(code == 0 || code == 1, "`{}`: exit {code}: {stderr}", args.join(" "));
            (names(&folder), started.elapsed())
        };
        for point in 0..POINTS {
            let (folder, id) = prepared();
            let args: Vec<String> = command.iter().map(|a| a.replace("ID", &id)).collect();
            let at = duration.mul_f64((f64::from(point) + jitter(index)) / f64::from(POINTS));
            let mut child = folder.command(&args).spawn().unwrap();
            std::thread::sleep(at);
            let _ = child.kill();
            let _ = child.wait();
            let (code, stderr) = folder.run(&args);
            let left: Vec<String> = names(&folder).difference(&clean).cloned().collect();
            let held = left.is_empty() && code != -2 && code != 101 && !stderr.contains("panicked");
            if !held {
                failures.push(format!(
                    "#{index} `{}` killed at {at:?} (a clean run: {duration:?}), then run again: \
                     exit {code}, left {left:?}: {}",
                    strings(command).join(" "),
                    stderr.trim()
                ));
            }
            tally(index as usize, held, &mut dev, &mut test);
            index += 1;
        }
    }
    super::report("killed commands leave nothing", dev, test, &failures);
}
