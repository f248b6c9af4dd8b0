//! Measures the `heuristic` (and `pi`) estimators against exact o200k counts on the corpus,
//! per message, by language/kind; with `--fit`, refits the heuristic's weights.
//!
//! ```text
//! cargo run --release -p compaction-core --example token_calibration          # report
//! cargo run --release -p compaction-core --example token_calibration -- --fit # new weights
//! ```
//!
//! The fit minimises Σ ((features·w − exact) / exact)² over all messages, each kind weighted
//! equally (so the many Rust chunks do not drown the few emoji ones), with non-negative
//! weights (a negative weight is pinned to zero and the rest refitted).

#[path = "../benches/corpus.rs"]
mod corpus;

use compaction_core::tokens::heuristic::{FEATURE_COUNT, FEATURES, features};
use compaction_core::tokens::{TokenEstimator, estimator_by_name};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let exact = estimator_by_name("o200k")?;
    let messages = corpus::messages();
    if std::env::args().any(|arg| arg == "--fit") {
        fit(&messages, exact.as_ref());
        return Ok(());
    }
    println!("per-message error against o200k: (estimate - exact) / exact");
    println!(
        "{:<11} {:>4} {:>8} | {:>9} {:>9} {:>9} | {:>9} {:>9}",
        "kind", "n", "o200k", "heur mean", "heur |m|", "heur p95", "pi mean", "pi p95"
    );
    let heuristic = estimator_by_name("heuristic")?;
    let pi = estimator_by_name("pi")?;
    let mut all_heuristic = Vec::new();
    let mut all_pi = Vec::new();
    for &(kind, _) in corpus::CORPUS_FILES {
        let mut heuristic_errors = Vec::new();
        let mut pi_errors = Vec::new();
        let mut exact_total = 0;
        for &(_, text) in messages.iter().filter(|(k, _)| *k == kind) {
            let truth = exact.text_tokens(text) as f64;
            exact_total += truth as u64;
            heuristic_errors.push((heuristic.text_tokens(text) as f64 - truth) / truth);
            pi_errors.push((pi.text_tokens(text) as f64 - truth) / truth);
        }
        print_row(kind, exact_total, &heuristic_errors, &pi_errors);
        all_heuristic.extend(heuristic_errors);
        all_pi.extend(pi_errors);
    }
    let total = messages.iter().map(|(_, text)| exact.text_tokens(text)).sum();
    print_row("all", total, &all_heuristic, &all_pi);
    Ok(())
}

fn print_row(kind: &str, exact_total: u64, heuristic: &[f64], pi: &[f64]) {
    let mean = |errors: &[f64]| errors.iter().sum::<f64>() / errors.len() as f64;
    let mean_abs =
        |errors: &[f64]| errors.iter().map(|e| e.abs()).sum::<f64>() / errors.len() as f64;
    println!(
        "{:<11} {:>4} {:>8} | {:>+8.1}% {:>8.1}% {:>8.1}% | {:>+8.1}% {:>8.1}%",
        kind,
        heuristic.len(),
        exact_total,
        mean(heuristic) * 100.0,
        mean_abs(heuristic) * 100.0,
        p95_abs(heuristic) * 100.0,
        mean(pi) * 100.0,
        p95_abs(pi) * 100.0,
    );
}

/// The 95th percentile of |error| (nearest rank).
fn p95_abs(errors: &[f64]) -> f64 {
    let mut sorted: Vec<f64> = errors.iter().map(|e| e.abs()).collect();
    sorted.sort_by(f64::total_cmp);
    let rank = ((0.95 * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len());
    sorted[rank - 1]
}

fn fit(messages: &[(&str, &str)], exact: &dyn TokenEstimator) {
    let mut per_kind = std::collections::HashMap::new();
    for (kind, _) in messages {
        *per_kind.entry(*kind).or_insert(0.0) += 1.0;
    }
    let rows: Vec<([f64; FEATURE_COUNT], f64, f64)> = messages
        .iter()
        .map(|(kind, text)| {
            let counts = features(text).map(|c| c as f64);
            (counts, exact.text_tokens(text) as f64, 1.0 / per_kind[kind])
        })
        .collect();
    let mut active = [true; FEATURE_COUNT];
    let weights = loop {
        let weights = solve(&rows, &active);
        match (0..FEATURE_COUNT).find(|&i| active[i] && weights[i] < 0.0) {
            Some(negative) => active[negative] = false,
            None => break weights,
        }
    };
    println!("pub const WEIGHTS: [f64; FEATURE_COUNT] = [");
    for (feature, weight) in FEATURES.iter().zip(weights) {
        println!("    {weight:.4}, // {feature:?}");
    }
    println!("];");
}

/// Weighted least squares on relative error, restricted to the active features.
fn solve(
    rows: &[([f64; FEATURE_COUNT], f64, f64)],
    active: &[bool; FEATURE_COUNT],
) -> [f64; FEATURE_COUNT] {
    let n = FEATURE_COUNT;
    let mut a = vec![vec![0.0; n + 1]; n];
    for (x, y, weight) in rows {
        let scale = weight / (y * y);
        for i in 0..n {
            for j in 0..n {
                a[i][j] += scale * x[i] * x[j];
            }
            a[i][n] += scale * x[i] * y;
        }
    }
    for (i, row) in a.iter_mut().enumerate() {
        // A tiny ridge keeps features absent from the corpus solvable (they go to zero).
        row[i] += 1e-9;
        if !active[i] {
            row.iter_mut().for_each(|v| *v = 0.0);
            row[i] = 1.0;
        }
    }
    for i in 0..n {
        if !active[i] {
            for (k, row) in a.iter_mut().enumerate() {
                if k != i {
                    row[i] = 0.0;
                }
            }
        }
    }
    // Gaussian elimination with partial pivoting.
    for col in 0..n {
        let pivot =
            (col..n).max_by(|&p, &q| a[p][col].abs().total_cmp(&a[q][col].abs())).unwrap_or(col);
        a.swap(col, pivot);
        let divisor = a[col][col];
        for value in &mut a[col][col..] {
            *value /= divisor;
        }
        let pivot_row = a[col].clone();
        for (r, row) in a.iter_mut().enumerate() {
            if r != col {
                let factor = row[col];
                for (value, p) in row[col..].iter_mut().zip(&pivot_row[col..]) {
                    *value -= factor * p;
                }
            }
        }
    }
    let mut weights = [0.0; FEATURE_COUNT];
    for i in 0..n {
        weights[i] = if active[i] { a[i][n] } else { 0.0 };
    }
    weights
}
