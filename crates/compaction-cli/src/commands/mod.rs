//! One module per command; each returns the exit status it wants.

mod branch;
mod check;
mod completions;
mod context;
mod generate;
mod leaves;
mod migrate;
mod plan;
mod run;
mod setup;
mod stats;
mod tokens;
mod tree;

use std::process::ExitCode;

use crate::cli::{Cli, Command};

/// How a command ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExitStatus {
    /// Everything went as asked.
    Success,
    /// The command ran and found problems, or could not do what was asked.
    Failure,
    /// Bad usage or an I/O error (a file that cannot be read, …).
    Usage,
}

impl From<ExitStatus> for ExitCode {
    fn from(status: ExitStatus) -> Self {
        match status {
            ExitStatus::Success => ExitCode::SUCCESS,
            ExitStatus::Failure => ExitCode::from(1),
            ExitStatus::Usage => ExitCode::from(2),
        }
    }
}

/// An error carrying the exit status it should produce.
#[derive(Debug, thiserror::Error)]
#[error("{message}")]
pub struct CommandError {
    pub status: ExitStatus,
    message: String,
    #[source]
    source: Option<Box<dyn std::error::Error + Send + Sync>>,
}

impl CommandError {
    /// A usage or input error (exit 2) with a message.
    pub fn usage(message: impl Into<String>) -> anyhow::Error {
        CommandError { status: ExitStatus::Usage, message: message.into(), source: None }.into()
    }

    /// An I/O error (exit 2) with context.
    pub fn io(message: impl Into<String>, source: std::io::Error) -> anyhow::Error {
        CommandError {
            status: ExitStatus::Usage,
            message: message.into(),
            source: Some(source.into()),
        }
        .into()
    }
}

/// Runs the chosen command.
pub fn run(cli: Cli) -> anyhow::Result<ExitStatus> {
    match cli.command {
        Command::Stats(args) => stats::run(&args),
        Command::Context(args) => context::run(&args),
        Command::Tree(args) => tree::run(&args),
        Command::Check(args) => check::run(&args),
        Command::Migrate(args) => migrate::run(&args),
        Command::Plan(args) => plan::run(&args),
        Command::Run(args) => run::run(&args),
        Command::Branch(args) => branch::run(&args),
        Command::Leaves(args) => leaves::run(&args),
        Command::Generate(args) => generate::run(&args),
        Command::Tokens(args) => tokens::run(&args),
        Command::Completions(args) => completions::completions(&args),
        Command::Man => completions::man(),
    }
}

/// Loads a session and resolves the leaf the user asked for.
pub fn load_with_leaf(
    args: &crate::cli::SessionArgs,
) -> anyhow::Result<(compaction_core::Session, Option<usize>)> {
    let session = crate::load::read_session(&args.file)?;
    let leaf = session
        .resolve_leaf(args.leaf.as_deref())
        .map_err(|e| CommandError::usage(format!("{}: {e}", args.file.display())))?;
    Ok((session, leaf))
}
