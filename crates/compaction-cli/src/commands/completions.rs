//! `compaction completions SHELL` and `compaction man`: generated from the clap definitions,
//! so they always match the flags of this binary.

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

pub fn man() -> anyhow::Result<ExitStatus> {
    let page = clap_mangen::Man::new(Cli::command());
    let mut out = std::io::stdout().lock();
    page.render(&mut out).map_err(|e| CommandError::io("cannot write the manual page", e))?;
    out.flush().map_err(|e| CommandError::io("cannot write the manual page", e))?;
    Ok(ExitStatus::Success)
}
