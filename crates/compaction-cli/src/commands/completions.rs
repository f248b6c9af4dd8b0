//! `compaction completions SHELL`: generated from the clap definitions, so it always
//! matches the flags of this binary; enumerated values (`--provider`, `--estimator`,
//! `--strategy`, `--format`, …) complete to their names.

use std::io::Write;

use clap::CommandFactory;

use super::{CommandError, ExitStatus};
use crate::cli::{Cli, CompletionsArgs};

pub fn completions(args: &CompletionsArgs) -> anyhow::Result<ExitStatus> {
    let mut command = Cli::command();
    let mut out = std::io::stdout().lock();
    clap_complete::generate(args.shell, &mut command, "compaction", &mut out);
    out.flush().map_err(|e| CommandError::io("cannot write the completion script", e))?;
    Ok(ExitStatus::Success)
}
