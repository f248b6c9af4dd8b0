//! The `compaction` command: inspect, plan and compact pi-format agent sessions.
//!
//! `main` parses flags, runs one command, prints errors with their cause chain, and maps
//! outcomes to exit codes: 0 success, 1 the command found problems (or failed), 2 usage or
//! I/O errors, 130 interrupted by Ctrl-C. Two rules hold for every command, here and in [`output`], not in each one:
//! - a closed stdout (`compaction tokens … | head -1`) ends the program quietly with exit 0,
//!   whether the write came from `println!` or from a returned I/O error;
//! - when the command was asked for JSON (`--json`, or `--format json`), an error is printed
//!   as `{"error": {"kind", "message", "causes"}}` on stdout instead of text on stderr,
//!   with the same exit code.

// Every line the commands print goes through `output::visible`: these shadow the standard
// macros for the whole crate (declared before the modules, so they are in scope in each).
macro_rules! println {
    () => { ::std::println!() };
    ($($arg:tt)*) => { ::std::println!("{}", $crate::output::visible(&::std::format!($($arg)*))) };
}
#[allow(unused_macros)]
macro_rules! print {
    ($($arg:tt)*) => { ::std::print!("{}", $crate::output::visible(&::std::format!($($arg)*))) };
}
macro_rules! eprintln {
    () => { ::std::eprintln!() };
    ($($arg:tt)*) => { ::std::eprintln!("{}", $crate::output::visible(&::std::format!($($arg)*))) };
}
#[allow(unused_macros)]
macro_rules! eprint {
    ($($arg:tt)*) => { ::std::eprint!("{}", $crate::output::visible(&::std::format!($($arg)*))) };
}

mod cli;
mod commands;
mod load;
mod output;
mod progress;

use std::process::ExitCode;

use clap::{CommandFactory as _, FromArgMatches as _};

/// The version `--version` prints: the package version, then the git revision the binary
/// was built from when it was built from a git checkout (`build.rs`).
pub const VERSION: &str = env!("COMPACTION_VERSION");

fn main() -> ExitCode {
    output::exit_quietly_on_broken_pipe();
    let matches = match cli::Cli::command().try_get_matches() {
        Ok(matches) => matches,
        Err(error) => return output::report_usage_error(&error),
    };
    let json = output::json_requested(&matches);
    let parsed = match cli::Cli::from_arg_matches(&matches) {
        Ok(parsed) => parsed,
        Err(error) => return output::report_usage_error(&error),
    };
    match commands::run(parsed) {
        Ok(status) => status.into(),
        Err(error) => {
            if output::is_broken_pipe(&error) {
                return ExitCode::SUCCESS;
            }
            let code = if progress::interrupted() {
                commands::ExitStatus::Interrupted
            } else {
                error
                    .chain()
                    .find_map(|cause| cause.downcast_ref::<commands::CommandError>())
                    .map_or(commands::ExitStatus::Failure, |e| e.status)
            };
            output::report_error(&error, commands::ErrorKind::of(&error), json);
            code.into()
        }
    }
}
