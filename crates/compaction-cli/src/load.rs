//! Reading a session file for the read-only commands.
//!
//! The file is streamed line by line into the core parser, so memory stays close to the
//! size of the entries rather than twice the file. Reading never modifies the file.

use std::fs::File;
use std::io::{BufRead, BufReader};
use std::path::Path;

use anyhow::Context as _;
use compaction_core::{ParseOptions, Session, SessionParser};

use crate::commands::CommandError;

/// Reads and parses a session file.
pub fn read_session(path: &Path) -> anyhow::Result<Session> {
    let file = File::open(path)
        .map_err(|e| CommandError::io(format!("cannot open {}", path.display()), e))?;
    let options = ParseOptions::default();
    let mut reader = BufReader::with_capacity(1 << 20, file);
    let mut parser = SessionParser::new(options);
    let mut line = Vec::new();
    loop {
        line.clear();
        let read = reader
            .read_until(b'\n', &mut line)
            .with_context(|| format!("cannot read {}", path.display()))
            .map_err(|e| CommandError::wrap(crate::commands::ExitStatus::Usage, e))?;
        if read == 0 {
            break;
        }
        let terminated = line.last() == Some(&b'\n');
        if terminated {
            line.pop();
        }
        parser.push_line(&line, terminated);
    }
    Ok(parser.finish())
}
