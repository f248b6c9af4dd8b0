//! The `compaction` command: inspect, plan and compact pi-format agent sessions.
//!
//! `main` parses flags, runs one command, prints errors with their cause chain, and maps
//! outcomes to exit codes: 0 success, 1 the command found problems (or failed), 2 usage or
//! I/O errors. A closed stdout (`compaction tree … | head`) ends the program quietly.

mod cli;
mod commands;
mod load;
mod output;
mod progress;

use std::process::ExitCode;

use clap::Parser;

/// The version `--version` prints: the package version, then the git revision the binary
/// was built from when it was built from a git checkout (`build.rs`).
pub const VERSION: &str = env!("COMPACTION_VERSION");

fn main() -> ExitCode {
    let cli = cli::Cli::parse();
    match commands::run(cli) {
        Ok(status) => status.into(),
        Err(error) => {
            if is_broken_pipe(&error) {
                return ExitCode::SUCCESS;
            }
            let code = error
                .chain()
                .find_map(|cause| cause.downcast_ref::<commands::CommandError>())
                .map_or(commands::ExitStatus::Failure, |e| e.status);
            eprintln!("error: {error}");
            for cause in error.chain().skip(1) {
                eprintln!("  caused by: {cause}");
            }
            code.into()
        }
    }
}

fn is_broken_pipe(error: &anyhow::Error) -> bool {
    error.chain().any(|cause| {
        cause
            .downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}
