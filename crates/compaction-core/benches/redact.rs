//! Redaction of a session-sized text: every line of the bundled session
//! (`examples/coding-session.jsonl`, 301 lines, ≈ 0.5 MB), each redacted as one text.
//!
//! `cargo bench -p compaction-core --bench redact`. Two measures:
//! - `redact/warm`: the lines redacted in a process whose rules are already compiled (the
//!   cost of searching);
//! - `redact/cold`: a new process (this bench binary, started again) that redacts the lines
//!   once and exits, so the rules it needs are compiled inside the measure, as in one
//!   `compaction run` (the time includes starting the process).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::hint::black_box;
use std::time::{Duration, Instant};

use compaction_core::redact::Redactor;
use criterion::{Criterion, Throughput, criterion_group, criterion_main};

/// Set in the child process of `redact/cold`.
const CHILD: &str = "COMPACTION_REDACT_BENCH_CHILD";

fn session_lines() -> Vec<String> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/coding-session.jsonl");
    let text = std::fs::read_to_string(path).expect("the bundled session");
    text.lines().map(str::to_owned).collect()
}

/// Redacts every line; the number of bytes written, so nothing is optimized away.
fn redact_all(redactor: &Redactor, lines: &[String]) -> usize {
    lines.iter().map(|line| redactor.redact(black_box(line)).len()).sum()
}

fn redact(c: &mut Criterion) {
    let lines = session_lines();
    let redactor = Redactor::default();
    if std::env::var_os(CHILD).is_some() {
        // The child of `redact/cold`: one redaction of the session, then exit.
        black_box(redact_all(&redactor, &lines));
        std::process::exit(0);
    }
    let bytes: usize = lines.iter().map(String::len).sum();
    let mut group = c.benchmark_group("redact");
    group.throughput(Throughput::Bytes(bytes as u64));
    group.sample_size(20);
    group.bench_function("cold", |b| {
        let exe = std::env::current_exe().unwrap();
        b.iter_custom(|iterations| {
            let mut total = Duration::ZERO;
            for _ in 0..iterations {
                let start = Instant::now();
                let status = std::process::Command::new(&exe).env(CHILD, "1").status().unwrap();
                total += start.elapsed();
                assert!(status.success());
            }
            total
        })
    });
    redact_all(&redactor, &lines);
    group.bench_function("warm", |b| b.iter(|| redact_all(&redactor, &lines)));
    group.finish();
}

criterion_group!(benches, redact);
criterion_main!(benches);
