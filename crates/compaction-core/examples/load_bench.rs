//! One-shot measurement of loading a session file: phase times and peak memory.
//!
//! `cargo run --release -p compaction-core --example load_bench -- FILE [--whole]`
//!
//! By default the file is streamed in 4 MiB chunks into the parser (as the store reads it),
//! so only the entries and one chunk are held; `--whole` reads the file into memory first (`parse_session`). Peak memory is the
//! process's high-water resident set (`VmHWM` from `/proc/self/status`, Linux only).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::Read;
use std::time::Instant;

use compaction_core::context::build_context;
use compaction_core::{ParseOptions, Session, SessionParser, parse_session};

fn peak_rss_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// Chunk size: `LOAD_BENCH_CHUNK_MIB` (default 4 MiB, the store's chunk size).
fn chunk_bytes() -> usize {
    std::env::var("LOAD_BENCH_CHUNK_MIB").ok().and_then(|v| v.parse().ok()).unwrap_or(4) << 20
}

/// Reads the file in chunks on a second thread while this one parses the previous
/// chunk, as the store does (`crates/compaction/src/store/read.rs`): each chunk is cut
/// after its last newline and checked as UTF-8 on the reading thread.
fn stream(path: &str) -> std::io::Result<Session> {
    let mut file = std::fs::File::open(path)?;
    let (full_sender, full) = std::sync::mpsc::sync_channel::<Result<String, Vec<u8>>>(1);
    let mut parser = SessionParser::new(ParseOptions::default());
    std::thread::scope(|scope| {
        let reading = scope.spawn(move || -> std::io::Result<()> {
            let size = chunk_bytes();
            let mut open_line = Vec::new();
            loop {
                let carried = open_line.len();
                let mut chunk = vec![0u8; carried + size];
                chunk[..carried].copy_from_slice(&open_line);
                open_line.clear();
                let mut filled = 0;
                while filled < size {
                    match file.read(&mut chunk[carried + filled..])? {
                        0 => break,
                        read => filled += read,
                    }
                }
                chunk.truncate(carried + filled);
                if filled == size
                    && let Some(last) = chunk[carried..].iter().rposition(|&b| b == b'\n')
                {
                    open_line.extend_from_slice(&chunk[carried + last + 1..]);
                    chunk.truncate(carried + last + 1);
                }
                if chunk.is_empty() {
                    break;
                }
                let chunk = String::from_utf8(chunk).map_err(|e| e.into_bytes());
                if full_sender.send(chunk).is_err() || filled < size {
                    break;
                }
            }
            Ok(())
        });
        for chunk in full.iter() {
            // The parser keeps the chunk; entries point into it.
            match chunk {
                Ok(text) => parser.push_text_chunk(text),
                Err(bytes) => parser.push_chunk(bytes),
            }
        }
        reading.join().unwrap()
    })?;
    Ok(parser.finish())
}

fn main() -> std::io::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(path) = args.iter().find(|a| !a.starts_with("--")) else {
        eprintln!("usage: load_bench FILE [--whole]");
        std::process::exit(2);
    };
    let whole = args.iter().any(|a| a == "--whole");
    let file_bytes = std::fs::metadata(path)?.len();

    let start = Instant::now();
    let session = if whole {
        let bytes = std::fs::read(path)?;
        parse_session(&bytes)
    } else {
        stream(path)?
    };
    let loaded = start.elapsed();

    let start = Instant::now();
    let path_to_leaf = session.path_to_leaf();
    let leaves = session.leaves();
    let tree = start.elapsed();

    let start = Instant::now();
    let context = build_context(&session, session.leaf());
    let messages = context.agent_messages(&session);
    let context_time = start.elapsed();

    let total = loaded + tree + context_time;
    let peak = peak_rss_kib().unwrap_or(0) * 1024;
    println!(
        "file: {path} ({:.1} MB, {} entries)",
        file_bytes as f64 / 1e6,
        session.entries().len()
    );
    if whole {
        println!("mode: whole file in memory");
    } else {
        println!("mode: streamed in {} MiB chunks", chunk_bytes() >> 20);
    }
    println!("load (read + parse + index): {:>8.1} ms", loaded.as_secs_f64() * 1e3);
    println!(
        "tree (path + leaves):        {:>8.1} ms  (path {} entries, {} leaves)",
        tree.as_secs_f64() * 1e3,
        path_to_leaf.len(),
        leaves.len()
    );
    println!(
        "context (build + messages):  {:>8.1} ms  ({} messages)",
        context_time.as_secs_f64() * 1e3,
        messages.len()
    );
    println!("total:                       {:>8.1} ms", total.as_secs_f64() * 1e3);
    println!(
        "peak RSS: {:.1} MB ({:.2}x file size)",
        peak as f64 / 1e6,
        peak as f64 / file_bytes as f64
    );
    println!("diagnostics: {}", session.diagnostics().len());
    Ok(())
}
