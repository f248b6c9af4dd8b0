//! `compaction generate` (hidden, for development): writes a generated pi session.
//!
//! The session is streamed line by line, so a 100 000-entry file never sits in memory.
//! The output depends only on the flags.

use std::io::{BufWriter, Write};

use compaction_core::generate::{GenerateOptions, SessionGenerator};

use super::{CommandError, ExitStatus};
use crate::cli::GenerateArgs;

pub fn run(args: &GenerateArgs) -> anyhow::Result<ExitStatus> {
    let options = GenerateOptions {
        seed: args.seed,
        entries: args.entries,
        branches: !args.no_branches,
        compactions: !args.no_compactions,
        average_entry_bytes: args.average_entry_bytes,
        compaction_threshold_tokens: args.compaction_threshold,
        event_scale: args.event_scale,
    };
    let target =
        args.output.as_ref().map_or("standard output".to_owned(), |p| p.display().to_string());
    let sink: Box<dyn Write> = match &args.output {
        Some(path) => Box::new(
            std::fs::File::create(path)
                .map_err(|e| CommandError::io(format!("cannot create {target}"), e))?,
        ),
        None => Box::new(std::io::stdout().lock()),
    };
    let mut out = BufWriter::with_capacity(1 << 20, sink);
    let write_error = |e| CommandError::io(format!("cannot write {target}"), e);
    for line in SessionGenerator::new(options) {
        out.write_all(line.as_bytes()).map_err(write_error)?;
        out.write_all(b"\n").map_err(write_error)?;
    }
    out.flush().map_err(write_error)?;
    Ok(ExitStatus::Success)
}
