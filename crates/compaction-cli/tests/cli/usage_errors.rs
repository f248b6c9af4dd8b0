//! Hardening round 15, the class "every line the binary prints is visible-safe", through the
//! one printer round 14 left out: clap's usage errors, which echo back what the user typed.
//!
//! Each of round 14's 11 control sequences (`terminal_controls::SEQUENCES`; NUL, which no
//! argument can hold, as U+0001) is typed in each
//! of 9 argument shapes clap refuses (an unknown command, a near-miss of one, an unknown
//! flag, a number option given text, an estimator name, a value of a fixed set, an extra
//! argument, a `--flag=value` form, a repeated single option), with and without `--json`:
//! 198 instances. An instance holds when the command exits 2 and neither stdout nor stderr
//! holds a raw control (each is printed as its JSON escape).
//!
//! The split, fixed before the fix: instance `i` (in the order generated) is in the test
//! part when `i % 3 == 2`, else in the dev part.
//!
//! `cargo test -p compaction-cli --test cli usage_errors -- --nocapture`; another binary (a
//! build before the fix) with `ROUND15_COMPACTION_BIN=/path/to/compaction`.

use super::terminal_controls::{SEQUENCES, is_raw_control};

/// The argument shapes, `{}` standing for the typed text.
const SHAPES: [&[&str]; 9] = [
    &["{}"],
    &["stats{}"],
    &["stats", "--x{}", "s.jsonl"],
    &["plan", "s.jsonl", "--keep-recent", "{}"],
    &["tokens", "s.jsonl", "--estimator", "{}"],
    &["context", "s.jsonl", "--format", "{}"],
    &["stats", "s.jsonl", "{}"],
    &["tokens", "--estimator={}", "s.jsonl"],
    &["import", "--format", "codex", "--format", "{}", "t.jsonl"],
];

fn run(args: &[String], cwd: &std::path::Path) -> std::process::Output {
    let binary = std::env::var_os("ROUND15_COMPACTION_BIN")
        .map_or_else(|| std::path::PathBuf::from(env!("CARGO_BIN_EXE_compaction")), Into::into);
    let home = tempfile::tempdir().unwrap();
    std::process::Command::new(binary)
        .args(args)
        .current_dir(cwd)
        .env("HOME", home.path())
        .env_remove("PI_CODING_AGENT_DIR")
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap()
}

fn raw_control(bytes: &[u8]) -> Option<char> {
    let text = String::from_utf8_lossy(bytes);
    let b = text.as_bytes();
    text.char_indices().find(|(at, ch)| is_raw_control(*ch, b.get(at + 1).copied())).map(|(_, c)| c)
}

#[test]
fn a_usage_error_never_echoes_a_raw_control() {
    let dir = tempfile::tempdir().unwrap();
    let mut instance = 0;
    let mut tally = [[0usize; 2]; 2];
    let mut dev_misses = Vec::new();
    let mut test_misses = Vec::new();
    for sequence in SEQUENCES {
        for shape in SHAPES {
            for json in [false, true] {
                // An argument cannot hold NUL: that sequence is typed with U+0001 instead.
                let typed = format!("Q{sequence}Q").replace('\0', "\u{1}");
                let mut args: Vec<String> = shape.iter().map(|a| a.replace("{}", &typed)).collect();
                if json {
                    args.insert(1.min(args.len()), "--json".to_owned());
                }
                let out = run(&args, dir.path());
                let code = out.status.code();
                let problem = if code != Some(2) {
                    Some(format!("exit {code:?}"))
                } else {
                    raw_control(&out.stdout)
                        .or_else(|| raw_control(&out.stderr))
                        .map(|ch| format!("raw control U+{:04X} printed", ch as u32))
                };
                let part = usize::from(instance % 3 == 2);
                tally[part][usize::from(problem.is_some())] += 1;
                if let Some(problem) = problem {
                    if part == 0 {
                        dev_misses.push(format!("#{instance} {args:?}: {problem}"));
                    } else {
                        test_misses.push(instance);
                    }
                }
                instance += 1;
            }
        }
    }
    for miss in dev_misses.iter().take(40) {
        eprintln!("dev miss {miss}");
    }
    eprintln!("test misses (by number): {test_misses:?}");
    let [[dev_held, dev_missed], [test_held, test_missed]] = tally;
    eprintln!(
        "usage errors: dev {dev_held}/{} held, test {test_held}/{} held",
        dev_held + dev_missed,
        test_held + test_missed
    );
    assert!(dev_misses.is_empty() && test_misses.is_empty());
}
