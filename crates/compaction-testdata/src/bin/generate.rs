//! Writes a generated pi session, for fixtures and benchmarks.
//!
//! `cargo run --release -p compaction-testdata --bin generate -- --seed 1 --entries 100000
//! -o /tmp/s100k.jsonl`. The session is streamed line by line, so a 100 000-entry file never
//! sits in memory, and the output depends only on the flags.

use std::io::{BufWriter, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;
use compaction_testdata::{DEFAULT_AVERAGE_ENTRY_BYTES, GenerateOptions, SessionGenerator};

/// Write a realistic generated pi session (JSONL) to standard output or a file.
#[derive(Debug, Parser)]
#[command(name = "generate")]
struct Args {
    /// Seed of the generator; the same flags always give the same file.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Number of entries after the header.
    #[arg(long, default_value_t = 1000)]
    entries: usize,
    /// Keep the session linear (no branches, no branch summaries).
    #[arg(long)]
    no_branches: bool,
    /// Never append compactions.
    #[arg(long)]
    no_compactions: bool,
    /// Target mean entry size in bytes (tool outputs are scaled to reach it).
    #[arg(long, value_name = "BYTES", default_value_t = DEFAULT_AVERAGE_ENTRY_BYTES)]
    average_entry_bytes: usize,
    /// Estimated context tokens above which a compaction is appended.
    #[arg(long, value_name = "TOKENS", default_value_t = 120_000)]
    compaction_threshold: u64,
    /// Multiplier for the chance of events between turns (branches, labels, changes, …).
    #[arg(long, value_name = "FACTOR", default_value_t = 1.0)]
    event_scale: f64,
    /// Add what pi 1.6 writes: system messages, context edits, usage entries, compaction
    /// checkpoints.
    #[arg(long)]
    pi16: bool,
    /// Write to this file instead of standard output.
    #[arg(short, long, value_name = "FILE")]
    output: Option<PathBuf>,
}

fn main() -> ExitCode {
    let args = Args::parse();
    match write(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("generate: {message}");
            ExitCode::FAILURE
        }
    }
}

fn write(args: &Args) -> Result<(), String> {
    let options = GenerateOptions {
        seed: args.seed,
        entries: args.entries,
        branches: !args.no_branches,
        compactions: !args.no_compactions,
        average_entry_bytes: args.average_entry_bytes,
        compaction_threshold_tokens: args.compaction_threshold,
        event_scale: args.event_scale,
        pi16: args.pi16,
    };
    let target =
        args.output.as_ref().map_or("standard output".to_owned(), |p| p.display().to_string());
    let sink: Box<dyn Write> = match &args.output {
        Some(path) => Box::new(
            std::fs::File::create(path).map_err(|e| format!("cannot create {target}: {e}"))?,
        ),
        None => Box::new(std::io::stdout().lock()),
    };
    let mut out = BufWriter::with_capacity(1 << 20, sink);
    let write_error = |e: std::io::Error| format!("cannot write {target}: {e}");
    for line in SessionGenerator::new(options) {
        out.write_all(line.as_bytes()).map_err(write_error)?;
        out.write_all(b"\n").map_err(write_error)?;
    }
    out.flush().map_err(write_error)
}
