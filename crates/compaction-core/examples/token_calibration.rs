//! Measures the `heuristic` (and `pi`) estimators against exact o200k counts on the corpus,
//! per message, by language/kind; with `--fit`, refits the heuristic's weights; with
//! `--tables`, regenerates its lookup tables from the o200k vocabulary; with `--worst`, also
//! lists the messages it estimates worst.
//!
//! ```text
//! cargo run --release -p compaction-core --example token_calibration          # report
//! cargo run --release -p compaction-core --example token_calibration -- --fit # new weights
//! cargo run --release -p compaction-core --example token_calibration -- --tables \
//!     > crates/compaction-core/src/tokens/heuristic/o200k_tables.rs
//! ```
//!
//! The fit minimises Σ ((features·w − exact) / exact)² over all messages, each kind weighted
//! equally (so the many Rust chunks do not drown the few emoji ones), with non-negative
//! weights (a negative weight is pinned to zero and the rest refitted).
//!
//! The report's `held-out` columns are leave-one-out errors: each message is estimated with
//! weights fitted on every other message, which is what the estimator does on text it was not
//! fitted on. The in-sample columns use the shipped `heuristic::WEIGHTS`.

#[path = "../benches/corpus.rs"]
mod corpus;
#[path = "../benches/o200k_tables.rs"]
mod o200k_tables;

use compaction_core::tokens::heuristic::{FEATURE_COUNT, FEATURES, features};
use compaction_core::tokens::{TokenEstimator, estimator_by_name};

/// A message's feature counts, its exact o200k count and its weight in the fit.
type Row = ([f64; FEATURE_COUNT], f64, f64);

fn main() -> Result<(), Box<dyn std::error::Error>> {
    if std::env::args().any(|arg| arg == "--tables") {
        print!("{}", o200k_tables::render(&o200k_tables::derive()));
        return Ok(());
    }
    let exact = estimator_by_name("o200k")?;
    let messages = corpus::messages();
    let rows = rows(&messages, exact.as_ref());
    if std::env::args().any(|arg| arg == "--fit") {
        println!("pub const WEIGHTS: [f64; FEATURE_COUNT] = [");
        for (feature, weight) in FEATURES.iter().zip(fit(&rows)) {
            println!("    {weight:.4}, // {feature:?}");
        }
        println!("];");
        return Ok(());
    }
    println!("per-message error against o200k: (estimate - exact) / exact");
    println!(
        "{:<11} {:>4} {:>8} | {:>9} {:>9} {:>9} | {:>9} {:>9} | {:>9} {:>9}",
        "kind",
        "n",
        "o200k",
        "heur mean",
        "heur |m|",
        "heur p95",
        "held |m|",
        "held p95",
        "pi mean",
        "pi p95"
    );
    let heuristic = estimator_by_name("heuristic")?;
    let pi = estimator_by_name("pi")?;
    let held_out = held_out_estimates(&rows);
    let mut all = Errors::default();
    for &(kind, _) in corpus::CORPUS_FILES {
        let mut errors = Errors::default();
        for (index, &(_, text)) in messages.iter().enumerate().filter(|(_, (k, _))| *k == kind) {
            let truth = rows[index].1;
            errors.exact_total += truth as u64;
            errors.heuristic.push((heuristic.text_tokens(text) as f64 - truth) / truth);
            errors.held_out.push((held_out[index] - truth) / truth);
            errors.pi.push((pi.text_tokens(text) as f64 - truth) / truth);
        }
        errors.print(kind);
        all.exact_total += errors.exact_total;
        all.heuristic.extend(errors.heuristic);
        all.held_out.extend(errors.held_out);
        all.pi.extend(errors.pi);
    }
    all.print("all");
    if std::env::args().any(|arg| arg == "--worst") {
        let mut worst: Vec<(f64, &str, &str)> = messages
            .iter()
            .zip(&rows)
            .map(|(&(kind, text), row)| {
                ((heuristic.text_tokens(text) as f64 - row.1) / row.1, kind, text)
            })
            .collect();
        worst.sort_by(|a, b| b.0.abs().total_cmp(&a.0.abs()));
        println!("\nworst messages (in-sample):");
        for (error, kind, text) in worst.iter().take(15) {
            let start: String = text.chars().take(60).collect();
            println!("{:>+7.1}% {kind:<10} {}", error * 100.0, start.replace('\n', "⏎"));
        }
    }
    Ok(())
}

#[derive(Default)]
struct Errors {
    exact_total: u64,
    heuristic: Vec<f64>,
    held_out: Vec<f64>,
    pi: Vec<f64>,
}

impl Errors {
    fn print(&self, kind: &str) {
        let mean = |errors: &[f64]| errors.iter().sum::<f64>() / errors.len() as f64;
        let mean_abs =
            |errors: &[f64]| errors.iter().map(|e| e.abs()).sum::<f64>() / errors.len() as f64;
        println!(
            "{:<11} {:>4} {:>8} | {:>+8.1}% {:>8.1}% {:>8.1}% | {:>8.1}% {:>8.1}% | {:>+8.1}% {:>8.1}%",
            kind,
            self.heuristic.len(),
            self.exact_total,
            mean(&self.heuristic) * 100.0,
            mean_abs(&self.heuristic) * 100.0,
            p95_abs(&self.heuristic) * 100.0,
            mean_abs(&self.held_out) * 100.0,
            p95_abs(&self.held_out) * 100.0,
            mean(&self.pi) * 100.0,
            p95_abs(&self.pi) * 100.0,
        );
    }
}

/// Each message's estimate by weights fitted on all the other messages (leave-one-out).
fn held_out_estimates(rows: &[Row]) -> Vec<f64> {
    (0..rows.len())
        .map(|left_out| {
            let others: Vec<Row> = rows
                .iter()
                .enumerate()
                .filter(|&(index, _)| index != left_out)
                .map(|(_, row)| *row)
                .collect();
            let weights = fit(&others);
            let counts = rows[left_out].0;
            let dot: f64 = counts.iter().zip(weights).map(|(count, weight)| count * weight).sum();
            dot.round().max(1.0)
        })
        .collect()
}

/// The 95th percentile of |error| (nearest rank).
fn p95_abs(errors: &[f64]) -> f64 {
    let mut sorted: Vec<f64> = errors.iter().map(|e| e.abs()).collect();
    sorted.sort_by(f64::total_cmp);
    let rank = ((0.95 * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len());
    sorted[rank - 1]
}

/// Every message's feature counts and exact count, weighted so each kind counts equally.
fn rows(messages: &[(&str, &str)], exact: &dyn TokenEstimator) -> Vec<Row> {
    let mut per_kind = std::collections::HashMap::new();
    for (kind, _) in messages {
        *per_kind.entry(*kind).or_insert(0.0) += 1.0;
    }
    messages
        .iter()
        .map(|(kind, text)| {
            let counts = features(text).map(|c| c as f64);
            (counts, exact.text_tokens(text) as f64, 1.0 / per_kind[kind])
        })
        .collect()
}

/// Non-negative weighted least squares on relative error (see the module docs).
fn fit(rows: &[Row]) -> [f64; FEATURE_COUNT] {
    let mut active = [true; FEATURE_COUNT];
    loop {
        let weights = solve(rows, &active);
        match (0..FEATURE_COUNT).find(|&i| active[i] && weights[i] < 0.0) {
            Some(negative) => active[negative] = false,
            None => break weights,
        }
    }
}

/// Weighted least squares on relative error, restricted to the active features.
fn solve(rows: &[Row], active: &[bool; FEATURE_COUNT]) -> [f64; FEATURE_COUNT] {
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
