//! Loading, tree and context benchmarks over generated sessions held in memory.
//!
//! Sizes: 1k and 10k entries always; 100k entries (~290 MB) when `BENCH_100K=1` is set,
//! since criterion's repeated runs make it slow. The one-shot `--release` measurement of
//! the 100k case with peak memory is `examples/load_bench.rs` (see BENCHMARKS.md).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::hint::black_box;

use compaction_core::context::build_context;
use compaction_core::parse_session;
use compaction_testdata::{GenerateOptions, generate_session};
use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};

fn sizes() -> Vec<usize> {
    let mut sizes = vec![1_000, 10_000];
    if std::env::var_os("BENCH_100K").is_some() {
        sizes.push(100_000);
    }
    sizes
}

fn load(c: &mut Criterion) {
    let mut group = c.benchmark_group("session");
    group.sample_size(10);
    for entries in sizes() {
        let text =
            generate_session(&GenerateOptions { seed: 1, entries, ..GenerateOptions::default() });
        let session = parse_session(text.as_bytes());
        assert!(session.diagnostics().is_empty());

        group.throughput(Throughput::Bytes(text.len() as u64));
        group.bench_with_input(BenchmarkId::new("parse", entries), &text, |b, text| {
            b.iter(|| parse_session(black_box(text.as_bytes())));
        });
        group.throughput(Throughput::Elements(entries as u64));
        group.bench_with_input(BenchmarkId::new("tree", entries), &session, |b, session| {
            b.iter(|| {
                let path = black_box(session).path_to_leaf();
                let leaves = session.leaves();
                (path.len(), leaves.len())
            });
        });
        group.bench_with_input(BenchmarkId::new("context", entries), &session, |b, session| {
            b.iter(|| {
                let context = build_context(black_box(session), session.leaf());
                context.agent_messages(session).len()
            });
        });
        group.bench_with_input(BenchmarkId::new("all", entries), &text, |b, text| {
            b.iter(|| {
                let session = parse_session(black_box(text.as_bytes()));
                let leaves = session.leaves().len();
                let context = build_context(&session, session.leaf());
                (leaves, context.agent_messages(&session).len())
            });
        });
    }
    group.finish();
}

criterion_group!(benches, load);
criterion_main!(benches);
