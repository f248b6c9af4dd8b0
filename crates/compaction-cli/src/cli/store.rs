//! Flags of `compaction store`.

use std::path::PathBuf;

use clap::{Args, Subcommand};

/// Flags of `compaction store`.
#[derive(Debug, Args)]
pub struct StoreArgs {
    #[command(subcommand)]
    pub command: StoreCommand,
    /// Print JSON instead of text.
    #[arg(long, global = true)]
    pub json: bool,
}

#[derive(Debug, Subcommand)]
pub enum StoreCommand {
    /// Copy pi session files into a database (a directory: every `.jsonl` file under it).
    Import {
        /// A pi session file, or a directory of them (such as `~/.pi/agent/sessions`).
        source: PathBuf,
        /// The database: `sqlite:PATH` (created when missing) or `postgres://USER@HOST:PORT/DB`
        /// (its tables created when missing; the password from PGPASSWORD or ~/.pgpass).
        #[arg(long, value_name = "URL")]
        to: String,
    },
    /// Write one session back as a pi file, byte-identical to what was imported plus what
    /// was appended since.
    Export {
        /// The session: `sqlite:PATH#SESSION_ID` or `postgres://USER@HOST:PORT/DB#SESSION_ID`.
        session: String,
        /// The file to write (it must not exist unless --force).
        #[arg(long, short, value_name = "FILE")]
        output: PathBuf,
        /// Replace an existing file (atomically, once the export is complete).
        #[arg(long)]
        force: bool,
    },
    /// List the sessions of a store with their size and context tokens.
    List {
        /// The store: `sqlite:PATH`, `postgres://USER@HOST:PORT/DB`, or a pi session file.
        store: String,
        /// Token estimator: heuristic, pi, o200k or cl100k (default: from settings).
        #[arg(long, value_name = "NAME")]
        estimator: Option<String>,
    },
    /// Upgrade a database's schema to this version's (never done implicitly).
    Migrate {
        /// The database: `sqlite:PATH` or `postgres://USER@HOST:PORT/DB`.
        store: String,
    },
}

/// Flags of `compaction worker`.
#[derive(Debug, Args)]
pub struct WorkerArgs {
    /// The store to work on: `sqlite:PATH`, `postgres://USER@HOST:PORT/DB`, a folder of pi
    /// session files, or one pi session file.
    #[arg(long, value_name = "URL")]
    pub store: String,
    /// Sessions compacted at the same time.
    #[arg(long, value_name = "N", default_value_t = 1)]
    pub concurrency: usize,
    /// How long a claim on a session lasts without renewal: a worker that dies frees its
    /// sessions after this long.
    #[arg(long, value_name = "SECONDS", default_value_t = 60)]
    pub lease_seconds: u64,
    /// Pause between passes over the store.
    #[arg(long, value_name = "SECONDS", default_value_t = 5)]
    pub poll_seconds: u64,
    /// One pass over the store, then exit.
    #[arg(long)]
    pub once: bool,
    #[command(flatten)]
    pub compaction: super::CompactionFlags,
    #[command(flatten)]
    pub summarizer: super::SummarizerFlags,
    /// One JSON event per line (claimed, compacted, skipped, failed) instead of text.
    #[arg(long)]
    pub json: bool,
}
