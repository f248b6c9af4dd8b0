//! Token-estimator throughput on the corpus, as the best of many timed rounds: on a shared
//! or virtual machine the best round shows what the code can do, where a median also
//! measures the neighbours. Complements the criterion bench (`benches/tokens.rs`).
//!
//! ```text
//! cargo run --release -p compaction-core --example token_throughput
//! ```
//!
//! Prints MB/s (10^6 bytes per second) for every estimator on the whole corpus in one call,
//! then for the heuristic on each language/kind's messages joined.
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "../benches/corpus.rs"]
mod corpus;

use std::hint::black_box;
use std::time::{Duration, Instant};

use compaction_core::tokens::{ESTIMATOR_NAMES, TokenEstimator, estimator_by_name};

/// Best throughput over rounds of at least 2 ms each, for about `budget` in total.
fn best_mb_per_s(estimator: &dyn TokenEstimator, text: &str, budget: Duration) -> f64 {
    estimator.text_tokens("warm up");
    let started = Instant::now();
    let mut best = f64::MAX;
    while started.elapsed() < budget {
        let round = Instant::now();
        let mut calls = 0u32;
        while round.elapsed() < Duration::from_millis(2) {
            black_box(estimator.text_tokens(black_box(text)));
            calls += 1;
        }
        best = best.min(round.elapsed().as_secs_f64() / f64::from(calls));
    }
    text.len() as f64 / best / 1e6
}

fn main() {
    let whole = corpus::joined(None);
    println!("whole corpus ({} bytes), best of rounds:", whole.len());
    for name in ESTIMATOR_NAMES {
        let Ok(estimator) = estimator_by_name(name) else { continue };
        let budget = 3;
        let rate = best_mb_per_s(estimator.as_ref(), &whole, Duration::from_secs(budget));
        println!("  {name:<10} {rate:>8.1} MB/s");
    }
    let heuristic = estimator_by_name("heuristic").unwrap();
    println!("heuristic by language/kind:");
    for &(kind, _) in corpus::CORPUS_FILES {
        let text = corpus::joined(Some(kind));
        let rate = best_mb_per_s(heuristic.as_ref(), &text, Duration::from_secs(1));
        println!("  {kind:<10} {rate:>8.1} MB/s ({} bytes)", text.len());
    }
}
