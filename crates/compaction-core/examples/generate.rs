//! Writes a generated session to stdout (the CLI's `compaction generate` does the same).
//!
//! `cargo run --release -p compaction-core --example generate -- SEED ENTRIES
//! [--no-branches] [--no-compactions] [--average-entry-bytes N] [--compaction-threshold N] [--event-scale X]`
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::{BufWriter, Write};

use compaction_core::generate::{GenerateOptions, SessionGenerator};

fn main() -> std::io::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let number = |index: usize| args.get(index).and_then(|a| a.parse::<u64>().ok());
    let flag_value = |name: &str| {
        args.iter()
            .position(|a| a == name)
            .and_then(|i| args.get(i + 1))
            .and_then(|v| v.parse::<u64>().ok())
    };
    let defaults = GenerateOptions::default();
    let options = GenerateOptions {
        seed: number(0).unwrap_or(defaults.seed),
        entries: number(1).map_or(defaults.entries, |n| n as usize),
        branches: !args.iter().any(|a| a == "--no-branches"),
        compactions: !args.iter().any(|a| a == "--no-compactions"),
        average_entry_bytes: flag_value("--average-entry-bytes")
            .map_or(defaults.average_entry_bytes, |n| n as usize),
        compaction_threshold_tokens: flag_value("--compaction-threshold")
            .unwrap_or(defaults.compaction_threshold_tokens),
        event_scale: args
            .iter()
            .position(|a| a == "--event-scale")
            .and_then(|i| args.get(i + 1))
            .and_then(|v| v.parse::<f64>().ok())
            .unwrap_or(defaults.event_scale),
    };
    let mut out = BufWriter::new(std::io::stdout().lock());
    for line in SessionGenerator::new(options) {
        out.write_all(line.as_bytes())?;
        out.write_all(b"\n")?;
    }
    out.flush()
}
