//! Throughput of every token estimator on the corpus (`benches/corpus/`).
//!
//! `cargo bench -p compaction-core --bench tokens`; criterion reports bytes/s per estimator.
//! The text is the whole corpus concatenated (≈ 74 KB of prose, code, JSON, CJK, emoji),
//! counted in one call; `messages` counts it message by message. `heuristic-by-kind` counts
//! each language/kind's messages joined, in one call.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod corpus;

use std::hint::black_box;

use compaction_core::tokens::{ESTIMATOR_NAMES, estimator_by_name};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};

fn estimators(c: &mut Criterion) {
    let messages = corpus::messages();
    let text = corpus::joined(None);
    let mut group = c.benchmark_group("tokens");
    group.throughput(Throughput::Bytes(text.len() as u64));
    for name in ESTIMATOR_NAMES {
        let Ok(estimator) = estimator_by_name(name) else {
            continue;
        };
        // Load vocabularies before timing.
        estimator.text_tokens("warm up");
        group.bench_function(format!("{name}/whole"), |b| {
            b.iter(|| estimator.text_tokens(black_box(&text)))
        });
        group.bench_function(format!("{name}/messages"), |b| {
            b.iter(|| {
                messages.iter().map(|(_, m)| estimator.text_tokens(black_box(m))).sum::<u64>()
            })
        });
    }
    group.finish();
    // The heuristic by language/kind: CJK text takes its lookup pass, other text does not.
    let heuristic = estimator_by_name("heuristic").unwrap();
    let mut group = c.benchmark_group("heuristic-by-kind");
    for &(kind, _) in corpus::CORPUS_FILES {
        let text = corpus::joined(Some(kind));
        group.throughput(Throughput::Bytes(text.len() as u64));
        group.bench_function(kind, |b| b.iter(|| heuristic.text_tokens(black_box(&text))));
    }
    group.finish();
}

criterion_group!(benches, estimators);
criterion_main!(benches);
