//! One module per command; each returns the exit status it wants.

mod branch;
mod check;
mod completions;
mod config;
mod context;
mod dropped;
mod eval;
mod export;
mod import;
mod leaves;
mod man;
mod migrate;
mod open;
mod pin;
mod plan;
mod prune;
mod recall;
mod run;
mod run_stored;
mod setup;
mod stats;
pub mod store;
mod summarize;
mod tokens;
mod torn;
mod tree;
mod undo;
mod worker;

use std::process::ExitCode;

use crate::cli::{Cli, Command};

pub use setup::provider_note;

/// How a command ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExitStatus {
    /// Everything went as asked.
    Success,
    /// The command ran and found problems, or could not do what was asked.
    Failure,
    /// Bad usage or an I/O error (a file that cannot be read, …).
    Usage,
    /// Interrupted by Ctrl-C (SIGINT), as shells report it: 130.
    Interrupted,
}

impl From<ExitStatus> for ExitCode {
    fn from(status: ExitStatus) -> Self {
        match status {
            ExitStatus::Success => ExitCode::SUCCESS,
            ExitStatus::Failure => ExitCode::from(1),
            ExitStatus::Usage => ExitCode::from(2),
            ExitStatus::Interrupted => ExitCode::from(130),
        }
    }
}

/// What kind of problem ended a command: the `kind` of a `--json` error
/// (`{"error": {"kind", "message"}}`), documented in `docs/json/error.schema.json`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    /// Bad flags or arguments, or an entry id that does not exist (exit 2).
    Usage,
    /// A file that cannot be used as asked: unreadable, not a session, a refused write (exit 2).
    Input,
    /// A settings value (file, `COMPACTION_*` variable or flag) that cannot be used (exit 2).
    Settings,
    /// The summarizer provider is misconfigured or failed (no key, unknown model, HTTP error).
    Provider,
    /// Another process holds the session's write lock (exit 2).
    Lock,
    /// Reading or writing a file or stream failed (exit 2).
    Io,
    /// The command ran but could not do what was asked (exit 1).
    Failed,
}

impl ErrorKind {
    /// The name used in JSON output.
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorKind::Usage => "usage",
            ErrorKind::Input => "input",
            ErrorKind::Settings => "settings",
            ErrorKind::Provider => "provider",
            ErrorKind::Lock => "lock",
            ErrorKind::Io => "io",
            ErrorKind::Failed => "failed",
        }
    }

    /// The kind of an error no command classified: from the first cause whose type says it.
    pub fn of(error: &anyhow::Error) -> ErrorKind {
        use compaction::compact::CompactError;
        use compaction::store::StoreError;
        for cause in error.chain() {
            if let Some(command) = cause.downcast_ref::<CommandError>() {
                return command.kind;
            }
            if let Some(store) = cause.downcast_ref::<StoreError>() {
                return ErrorKind::of_store(store);
            }
            if cause.downcast_ref::<compaction::error::SummarizerError>().is_some() {
                return ErrorKind::Provider;
            }
            if let Some(compact) = cause.downcast_ref::<CompactError>() {
                if let CompactError::Store(store) = compact {
                    return ErrorKind::of_store(store);
                }
                if matches!(compact, CompactError::Summarizer(_)) {
                    return ErrorKind::Provider;
                }
                if matches!(compact, CompactError::UnknownLeaf(_)) {
                    return ErrorKind::Usage;
                }
                return ErrorKind::Failed;
            }
            if cause.downcast_ref::<std::io::Error>().is_some() {
                return ErrorKind::Io;
            }
        }
        ErrorKind::Failed
    }

    /// The kind of a store error: a held lock, an I/O failure, or a file refused as input.
    pub fn of_store(error: &compaction::store::StoreError) -> ErrorKind {
        use compaction::store::StoreError;
        // `matches!` rather than a `match`: the store adds variants, and every one not
        // named here is a file refused as input.
        if matches!(error, StoreError::InUse { .. } | StoreError::LockTimeout { .. }) {
            ErrorKind::Lock
        } else if matches!(error, StoreError::Io { .. } | StoreError::Poisoned { .. }) {
            ErrorKind::Io
        } else {
            ErrorKind::Input
        }
    }
}

/// An error carrying the exit status it should produce and its kind.
#[derive(Debug, thiserror::Error)]
#[error("{message}")]
pub struct CommandError {
    pub status: ExitStatus,
    pub kind: ErrorKind,
    message: String,
    #[source]
    source: Option<Box<dyn std::error::Error + Send + Sync>>,
}

impl CommandError {
    /// An error of `kind` (exit 2) with a message.
    pub fn with_kind(kind: ErrorKind, message: impl Into<String>) -> anyhow::Error {
        CommandError { status: ExitStatus::Usage, kind, message: message.into(), source: None }
            .into()
    }

    /// A file that cannot be read or written as asked (exit 2): an input or output at fault
    /// (not a regular file, too large, the output naming the input, an existing output) is
    /// `input` (`usage` for an output naming the input), the system failing is `io`.
    pub fn disk(error: compaction::disk::DiskError) -> anyhow::Error {
        use compaction::disk::DiskError;
        match error {
            DiskError::OutputIsInput { .. } => CommandError::usage(error.to_string()),
            DiskError::Io { source, action, path } => {
                CommandError::io(format!("{}: cannot {action}", path.display()), source)
            }
            DiskError::Irregular { .. } | DiskError::TooLarge { .. } | DiskError::Exists { .. } => {
                CommandError::with_kind(ErrorKind::Input, error.to_string())
            }
        }
    }

    /// A usage error (exit 2) with a message.
    pub fn usage(message: impl Into<String>) -> anyhow::Error {
        CommandError::with_kind(ErrorKind::Usage, message)
    }

    /// A store error (exit 2), its kind taken from the variant; a held lock names `--wait`.
    pub fn store(error: &compaction::store::StoreError) -> anyhow::Error {
        let kind = ErrorKind::of_store(error);
        if kind == ErrorKind::Lock {
            CommandError::with_kind(kind, format!("{error}; run again with --wait to wait for it"))
        } else if let compaction::store::StoreError::NotASession { path, .. } = error
            && let Some(hint) = import::foreign_transcript_hint(path)
        {
            CommandError::with_kind(kind, hint)
        } else {
            CommandError::with_kind(kind, error.to_string())
        }
    }

    /// An I/O error (exit 2) with context.
    pub fn io(message: impl Into<String>, source: std::io::Error) -> anyhow::Error {
        CommandError {
            status: ExitStatus::Usage,
            kind: ErrorKind::Io,
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
        Command::Import(args) => import::run(&args),
        Command::Export(args) => export::run(&args),
        Command::Plan(args) => plan::run(&args),
        Command::Run(args) => run::run(&args),
        Command::Branch(args) => branch::run(&args),
        Command::Summarize(args) => summarize::run(&args),
        Command::Leaves(args) => leaves::run(&args),
        Command::Eval(args) => eval::run(&args),
        Command::Tokens(args) => tokens::run(&args),
        Command::Completions(args) => completions::completions(&args),
        Command::Man(args) => man::man(&args),
        Command::Prune(args) => prune::run(&args),
        Command::Recall(args) => recall::run(&args),
        Command::Search(args) => recall::search(&args),
        Command::Undo(args) => undo::run(&args),
        Command::Dropped(args) => dropped::run(&args),
        Command::Config(args) => config::run(&args),
        Command::Pin(args) => pin::pin(&args),
        Command::Unpin(args) => pin::unpin(&args),
        Command::Store(args) => store::run(&args),
        Command::Worker(args) => worker::run(&args),
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
