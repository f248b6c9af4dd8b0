//! Command-line flags (clap definitions only; no I/O here).

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

mod store;
pub use store::{StoreArgs, StoreCommand, WorkerArgs};

/// Context compaction for pi-format agent sessions.
#[derive(Debug, Parser)]
#[command(name = "compaction", version = crate::VERSION, about, propagate_version = true)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Summarize a session: entry counts, path, leaves, context size, diagnostics.
    Stats(StatsArgs),
    /// Print the context the model would receive at a leaf.
    Context(ContextArgs),
    /// Draw the session tree.
    Tree(TreeArgs),
    /// Report every problem in a session file (exit 1 when there are problems).
    Check(CheckArgs),
    /// Rewrite an older-format session as the current version, keeping a backup.
    Migrate(MigrateArgs),
    /// Convert a Claude Code transcript or a Codex CLI rollout into a pi session
    /// (secrets redacted), so compaction, recall and eval work on it.
    Import(ImportArgs),
    /// Write a session's context after its latest compaction as a Claude Code session or a
    /// Codex rollout (secrets redacted), which the agent then resumes.
    Export(ExportArgs),
    /// Show what a compaction would do, without doing it. Sends nothing anywhere unless
    /// --ask-server is given.
    Plan(PlanArgs),
    /// Compact a session: summarize the older part and append a compaction entry.
    Run(RunArgs),
    /// Summarize the branch left behind when moving to another entry (with --summarize);
    /// without it, show what would be summarized and write nothing.
    ///
    /// pi's format has no record of a current position: the leaf is the last entry of the
    /// file, and a move becomes real only when the next entry is appended under the target.
    /// With --summarize, a `branch_summary` entry is appended under the target and becomes
    /// the leaf. Without it, nothing is written; pass `--leaf ID` to later commands
    /// (context, plan, run) to work from the target.
    Branch(BranchArgs),
    /// Compute a compaction (or, with --branch-to, a branch summary) and print the entry
    /// fields without writing anything: for hosts such as pi that append entries themselves.
    Summarize(SummarizeArgs),
    /// List the leaves of the session tree with their last message.
    Leaves(LeavesArgs),
    /// Count tokens of text (stdin or a file) or of every message of a session.
    Tokens(TokensArgs),
    /// Print a shell completion script (bash, zsh, fish, elvish, powershell).
    ///
    /// Install for bash: `compaction completions bash > ~/.local/share/bash-completion/completions/compaction`
    Completions(CompletionsArgs),
    /// Print a manual page (roff): `compaction(1)`, or one command's with its name.
    ///
    /// Install every page: `compaction man --dir ~/.local/share/man/man1`
    Man(ManArgs),
    /// Replace old tool outputs by placeholders (no LLM call); the originals stay recallable.
    Prune(PruneArgs),
    /// Print the original content of an entry (a pruned output, a summarized message).
    Recall(RecallArgs),
    /// Find text in what the context no longer shows (summarized and pruned entries).
    Search(SearchArgs),
    /// Take back the last compaction or prune, append-only, and show what came back.
    Undo(UndoArgs),
    /// List every compaction and prune on the path with what each removed.
    Dropped(DroppedArgs),
    /// Print every effective compaction setting with its value and where it came from
    /// (default, which settings file, environment variable, flag).
    Config(ConfigArgs),
    /// Score how well compaction keeps what matters: probe questions checked against the
    /// context after 1, 2 and 3 successive compactions (see docs/eval.md).
    Eval(EvalArgs),
    /// Pin an instruction: it reaches the model word for word after every compaction.
    Pin(PinArgs),
    /// Remove pins (by pin id, or by the id of the entry a pin was copied from).
    Unpin(UnpinArgs),
    /// Sessions in a database: import pi files, export one back, list them (see
    /// docs/stores.md). Other commands take `sqlite:DB#ID` or `postgres://USER@HOST:PORT/DB#ID`
    /// where they take a session file.
    Store(StoreArgs),
    /// Compact every session of a store whose context crosses the trigger, again and again
    /// (many workers may share a store; see docs/stores.md). Stops cleanly on SIGTERM.
    Worker(WorkerArgs),
}

/// Flags of `compaction config`.
#[derive(Debug, Args)]
pub struct ConfigArgs {
    #[command(flatten)]
    pub compaction: CompactionFlags,
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
}

/// Flags of `compaction man`.
#[derive(Debug, Args)]
pub struct ManArgs {
    /// The command whose page to print (`run` prints compaction-run(1)); default: the
    /// overview page, compaction(1).
    #[arg(value_name = "COMMAND")]
    pub command: Option<String>,
    /// Write the pages into this folder instead of printing one: every page, or only
    /// COMMAND's.
    #[arg(long, value_name = "DIR", value_hint = clap::ValueHint::DirPath)]
    pub dir: Option<PathBuf>,
    /// With --dir: replace pages that exist there (regular files only); without it an
    /// existing page is refused and no page is written.
    #[arg(long, requires = "dir")]
    pub force: bool,
}

/// The names `--provider` takes (with the aliases the provider configuration accepts).
fn provider_names() -> clap::builder::PossibleValuesParser {
    use clap::builder::PossibleValue;
    clap::builder::PossibleValuesParser::new([
        PossibleValue::new("openai")
            .help("OpenAI and OpenAI-compatible servers (llama.cpp, vLLM, Ollama, …)")
            .aliases(["openai-compatible", "openai-completions"]),
        PossibleValue::new("anthropic").help("Anthropic's Messages API"),
    ])
}

/// The names `--estimator` takes (those this build has).
fn estimator_names() -> clap::builder::PossibleValuesParser {
    clap::builder::PossibleValuesParser::new(compaction_core::tokens::ESTIMATOR_NAMES)
}

/// Flags of `compaction completions`.
#[derive(Debug, Args)]
pub struct CompletionsArgs {
    /// The shell to complete for.
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
}

/// Settings a command can override (highest precedence: flags > env > project > global).
#[derive(Debug, Clone, Default, Args)]
pub struct CompactionFlags {
    /// Recent tokens kept verbatim (`keepRecentTokens`).
    #[arg(long, value_name = "TOKENS")]
    pub keep_recent: Option<u64>,
    /// Tokens reserved for the model's reply (`reserveTokens`).
    #[arg(long, value_name = "TOKENS")]
    pub reserve: Option<u64>,
    /// Tokens for the user's latest messages kept word for word in the summary, beyond the
    /// room the summary leaves of its own budget (`keepUserMessagesTokens`; default 2048, at most a sixteenth of the window).
    #[arg(long, value_name = "TOKENS")]
    pub keep_user_messages: Option<u64>,
    /// User turns always kept verbatim when they fit (`minTurnsToKeep`).
    #[arg(long, value_name = "N")]
    pub min_turns: Option<u64>,
    /// The chat model's context window, overriding the model table (`contextWindow`).
    #[arg(long, value_name = "TOKENS")]
    pub context_window: Option<u64>,
    /// Token estimator: heuristic, pi, o200k or cl100k (`estimator`).
    #[arg(long, value_name = "NAME", value_parser = estimator_names())]
    pub estimator: Option<String>,
    /// Output budget of the summary in tokens (`maxSummaryTokens`; for `branch`, the branch
    /// summary's `branchMaxSummaryTokens`).
    #[arg(long, value_name = "TOKENS")]
    pub max_summary_tokens: Option<u64>,
    /// The summary model's window when it is not the chat model (`summaryContextWindow`).
    #[arg(long, value_name = "TOKENS")]
    pub summary_context_window: Option<u64>,
    /// Give up on a compaction or branch summary after this long (`timeoutSeconds`, 180).
    #[arg(long, value_name = "SECONDS")]
    pub timeout: Option<u64>,
}

/// Which summarizer writes the summary. Without `--provider`, the offline summarizer.
#[derive(Debug, Clone, Default, Args)]
pub struct SummarizerFlags {
    /// LLM provider: openai (and OpenAI-compatible servers) or anthropic.
    #[arg(long, value_name = "NAME", value_parser = provider_names(), ignore_case = true)]
    pub provider: Option<String>,
    /// The chat model (its window drives the trigger); default: the session's model.
    #[arg(long, value_name = "ID")]
    pub model: Option<String>,
    /// The model that writes summaries; default: `summaryModel` from settings, else --model.
    #[arg(long, value_name = "ID")]
    pub summary_model: Option<String>,
    /// Base URL of the provider's API (Ollama, llama.cpp, vLLM, OpenRouter, …).
    #[arg(long, value_name = "URL")]
    pub base_url: Option<String>,
    /// Environment variable holding the API key (default OPENAI_API_KEY / ANTHROPIC_API_KEY).
    #[arg(long, value_name = "VAR")]
    pub api_key_env: Option<String>,
    /// Use the offline summarizer even when a provider is configured.
    #[arg(long, conflicts_with = "provider")]
    pub offline: bool,
}

/// Extensions that may cancel, replace or steer a compaction or branch summary.
#[derive(Debug, Clone, Default, Args)]
pub struct ExtensionFlags {
    /// Run this command (through `sh -c`) as a process extension; repeatable. It reads one
    /// JSON event on stdin and answers one JSON decision (see docs/extensions.md).
    #[arg(long = "extension", value_name = "COMMAND")]
    pub extensions: Vec<String>,
    /// Skip every extension, including those configured in settings.
    #[arg(long, conflicts_with = "extensions")]
    pub no_extensions: bool,
    /// Run the extensions this project's own `.pi/settings.json` names (without it they
    /// run only for projects listed in the global setting `compaction.trustedProjects`).
    #[arg(long)]
    pub trust_project: bool,
}

#[derive(Debug, Args)]
pub struct PlanArgs {
    #[command(flatten)]
    pub session: SessionArgs,
    #[command(flatten)]
    pub compaction: CompactionFlags,
    #[command(flatten)]
    pub summarizer: SummarizerFlags,
    /// Custom instructions for the summary (counted in the request size).
    #[arg(long, value_name = "TEXT")]
    pub instructions: Option<String>,
    #[command(flatten)]
    pub ask: AskServerFlag,
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
}

/// Whether a plan may ask the summary model's server what `run` would ask it.
#[derive(Debug, Clone, Copy, Default, Args)]
pub struct AskServerFlag {
    /// Ask the summary model's server what `run` asks it, so the plan uses the same window:
    /// with --provider openai and a --base-url other than api.openai.com, GET <origin>/props,
    /// GET <base-url>/models and POST <origin>/api/show (body: the model name), then POST
    /// <origin>/tokenize with the start of the redacted transcript (at most 16 KB). Each
    /// carries the API key's header when the key variable is set. Without this flag the plan
    /// sends nothing and uses the configured window.
    #[arg(long)]
    pub ask_server: bool,
}

#[derive(Debug, Args)]
pub struct RunArgs {
    #[command(flatten)]
    pub session: SessionArgs,
    #[command(flatten)]
    pub compaction: CompactionFlags,
    #[command(flatten)]
    pub summarizer: SummarizerFlags,
    /// Custom instructions: what the summary should focus on.
    #[arg(long, value_name = "TEXT")]
    pub instructions: Option<String>,
    /// summarize, prune, or hybrid (prune first, summarize only when still above the
    /// trigger); default: `strategy` from settings, else hybrid.
    #[arg(long, value_enum, value_name = "NAME")]
    pub strategy: Option<StrategyArg>,
    #[command(flatten)]
    pub extension: ExtensionFlags,
    /// Only plan (same as `compaction plan`): sends nothing anywhere unless --ask-server is
    /// given too.
    #[arg(long)]
    pub dry_run: bool,
    #[command(flatten)]
    pub ask: AskServerFlag,
    /// Write the compacted session to this new file (a copy) instead of appending in place;
    /// it appears only once the compaction is written, and never replaces the input.
    #[arg(long, short, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// With --output: replace an existing output file (atomically, after success).
    #[arg(long, requires = "output")]
    pub force: bool,
    /// Wait for another process writing the session instead of failing.
    #[arg(long)]
    pub wait: bool,
    /// Fail (writing nothing) when the quality gate rejects the summary twice, instead of
    /// appending a Must Keep section (`strictQuality`).
    #[arg(long)]
    pub strict: bool,
    /// After compacting, re-read the most recently modified files (`preserveRecentFiles`,
    /// within `restoreFileTokens` each and `restoreTotalTokens` in all) from the session's
    /// `cwd` into the context, as a `custom_message` entry.
    #[arg(long)]
    pub restore_files: bool,
    /// No progress display.
    #[arg(long, short)]
    pub quiet: bool,
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
}

/// How `run` reduces the context.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum StrategyArg {
    /// Summarize only.
    Summarize,
    /// Prune old tool outputs only (no LLM call).
    Prune,
    /// Prune first; summarize when the context still fires the trigger.
    Hybrid,
}

impl From<StrategyArg> for compaction_core::prune::Strategy {
    fn from(value: StrategyArg) -> Self {
        match value {
            StrategyArg::Summarize => compaction_core::prune::Strategy::Summarize,
            StrategyArg::Prune => compaction_core::prune::Strategy::Prune,
            StrategyArg::Hybrid => compaction_core::prune::Strategy::Hybrid,
        }
    }
}

#[derive(Debug, Args)]
pub struct PruneArgs {
    #[command(flatten)]
    pub session: SessionArgs,
    /// Token estimator: heuristic, pi, o200k or cl100k (`estimator`).
    #[arg(long, value_name = "NAME", value_parser = estimator_names())]
    pub estimator: Option<String>,
    #[command(flatten)]
    pub extension: ExtensionFlags,
    /// Show what would be pruned; write nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// Wait for another process writing the session instead of failing.
    #[arg(long)]
    pub wait: bool,
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
}

/// Flags of `compaction eval`.
#[derive(Debug, Args)]
pub struct EvalArgs {
    /// Probe files (JSON: the session they are about and its probes; see docs/eval.md), or
    /// folders searched for `*.probes.json`.
    #[arg(required = true, value_name = "PROBES")]
    pub probes: Vec<PathBuf>,
    /// The real-transcript corpus that `transcript` probe files name (default: the
    /// environment variable COMPACTION_TRANSCRIPTS, else ../shared/transcripts beside the
    /// repository of the current directory).
    #[arg(long, value_name = "DIR")]
    pub transcripts: Option<PathBuf>,
    /// Which part of the corpus to run: dev, test, or all (probe files in the `session`
    /// form are outside the split and run only with all).
    #[arg(long, value_enum, default_value = "all")]
    pub part: EvalPart,
    /// How many successive compactions to run, each count from scratch (comma-separated).
    #[arg(long, value_delimiter = ',', default_value = "1,2,3", value_name = "N,…")]
    pub compactions: Vec<usize>,
    #[command(flatten)]
    pub compaction: CompactionFlags,
    #[command(flatten)]
    pub summarizer: SummarizerFlags,
    /// List every probe the context no longer answers.
    #[arg(long)]
    pub show_misses: bool,
    /// Print the summary of the last compaction of every run.
    #[arg(long)]
    pub show_summaries: bool,
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
}

/// The part of the real-transcript corpus `compaction eval` runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum EvalPart {
    Dev,
    Test,
    All,
}

impl EvalPart {
    pub fn as_str(self) -> &'static str {
        match self {
            EvalPart::Dev => "dev",
            EvalPart::Test => "test",
            EvalPart::All => "all",
        }
    }
}

#[derive(Debug, Args)]
pub struct RecallArgs {
    /// The session file (`.jsonl`).
    pub file: PathBuf,
    /// The entry id (as placeholders, `search` and `dropped` show it).
    pub id: String,
    /// Print JSON (with the entry's exact line) instead of the content.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct SearchArgs {
    #[command(flatten)]
    pub session: SessionArgs,
    /// The text to find (case-insensitive, literal).
    pub query: String,
    /// At most this many hits.
    #[arg(long, default_value_t = 20)]
    pub limit: usize,
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct UndoArgs {
    #[command(flatten)]
    pub session: SessionArgs,
    /// Token estimator for the report (`estimator`).
    #[arg(long, value_name = "NAME", value_parser = estimator_names())]
    pub estimator: Option<String>,
    /// Show what would come back; write nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// Wait for another process writing the session instead of failing.
    #[arg(long)]
    pub wait: bool,
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct DroppedArgs {
    #[command(flatten)]
    pub session: SessionArgs,
    /// Token estimator (`estimator`).
    #[arg(long, value_name = "NAME", value_parser = estimator_names())]
    pub estimator: Option<String>,
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct SummarizeArgs {
    #[command(flatten)]
    pub session: SessionArgs,
    /// Custom instructions: what the summary should focus on.
    #[arg(long, value_name = "TEXT")]
    pub instructions: Option<String>,
    /// Summarize the branch left when moving to --branch-to instead of compacting.
    #[arg(long, value_name = "ID", conflicts_with = "leaf")]
    pub branch_to: Option<String>,
    /// The leaf being left (default: the last entry of the file).
    #[arg(long, value_name = "ID", requires = "branch_to")]
    pub branch_from: Option<String>,
    /// Use --instructions as the whole branch prompt instead of adding them to it.
    #[arg(long, requires_all = ["instructions", "branch_to"])]
    pub replace_instructions: bool,
    /// Why the host compacts, as process extensions are told it.
    #[arg(long, value_enum, default_value_t = ReasonArg::Manual, conflicts_with = "branch_to")]
    pub reason: ReasonArg,
    #[command(flatten)]
    pub compaction: CompactionFlags,
    #[command(flatten)]
    pub summarizer: SummarizerFlags,
    #[command(flatten)]
    pub extension: ExtensionFlags,
    /// Wait for a process writing the session through this tool instead of failing.
    #[arg(long)]
    pub wait: bool,
    /// No progress display.
    #[arg(long, short)]
    pub quiet: bool,
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
}

/// Why a host such as pi compacts (`summarize --reason`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ReasonArg {
    /// Asked for by the user (`/compact`).
    Manual,
    /// The context crossed the trigger threshold.
    Threshold,
    /// The model rejected a request as too long.
    Overflow,
}

/// A session file and an optional leaf.
#[derive(Debug, Args)]
pub struct SessionArgs {
    /// The session file (`.jsonl`).
    pub file: PathBuf,
    /// Use this entry as the leaf instead of the last entry of the file.
    #[arg(long, value_name = "ID")]
    pub leaf: Option<String>,
}

#[derive(Debug, Args)]
pub struct StatsArgs {
    #[command(flatten)]
    pub session: SessionArgs,
    /// Token estimator: heuristic, pi, o200k or cl100k (default: from settings).
    #[arg(long, value_name = "NAME", value_parser = estimator_names())]
    pub estimator: Option<String>,
    /// Context window in tokens (default: settings, then the model table, then 128000).
    #[arg(long, value_name = "TOKENS")]
    pub context_window: Option<u64>,
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ContextFormat {
    /// A JSON array of the messages sent to the model.
    Json,
    /// Readable text, one block per message.
    Text,
}

#[derive(Debug, Args)]
pub struct ContextArgs {
    #[command(flatten)]
    pub session: SessionArgs,
    /// Output format.
    #[arg(long, value_enum, default_value_t = ContextFormat::Text)]
    pub format: ContextFormat,
    /// Print JSON instead of text (same as `--format json`).
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct TreeArgs {
    /// The session file (`.jsonl`).
    pub file: PathBuf,
    /// Show every entry instead of collapsing long linear runs.
    #[arg(long)]
    pub full: bool,
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct CheckArgs {
    /// The session file (`.jsonl`).
    pub file: PathBuf,
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
    /// Also write a repaired copy beside the file (the file itself is never changed):
    /// a readable header and every usable entry; unusable lines go to `<copy>.rejected`.
    #[arg(long)]
    pub repair: bool,
    /// With --repair: attach each entry whose parent is not in the copy to the entry before
    /// it, so the copy passes `check` (this changes what pi shows on those branches).
    #[arg(long, requires = "repair")]
    pub reattach: bool,
}

/// The transcript formats `compaction import` reads.
#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum ImportFormat {
    /// A Claude Code transcript (`~/.claude/projects/*/SESSION.jsonl`).
    ClaudeCode,
    /// A Codex CLI rollout (`~/.codex/sessions/**/rollout-*.jsonl`).
    Codex,
    /// A Cursor agent transcript (`~/.cursor/projects/*/agent-transcripts/*.jsonl`).
    Cursor,
    /// A Google Antigravity trajectory (`brain/*/.system_generated/logs/transcript_full.jsonl`).
    Antigravity,
}

#[derive(Debug, Args)]
pub struct ImportArgs {
    /// The transcript (`.jsonl`).
    pub file: PathBuf,
    /// Where to write the pi session [default: beside the transcript, `NAME.pi.jsonl`].
    #[arg(short, long, value_name = "PATH")]
    pub output: Option<PathBuf>,
    /// The transcript's format [default: detected from its lines].
    #[arg(long, value_enum)]
    pub format: Option<ImportFormat>,
    /// Replace the output file if it exists.
    #[arg(long)]
    pub force: bool,
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
}

/// The transcript formats `compaction export` writes.
#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum ExportFormat {
    /// A Claude Code session, resumed with `claude --resume ID`.
    ClaudeCode,
    /// A Codex CLI rollout, resumed with `codex resume ID`.
    Codex,
}

#[derive(Debug, Args)]
pub struct ExportArgs {
    #[command(flatten)]
    pub session: SessionArgs,
    /// The agent to write for.
    #[arg(long, value_enum)]
    pub format: ExportFormat,
    /// Where to write [default: where the agent finds its sessions: Claude Code's
    /// `$CLAUDE_CONFIG_DIR/projects/<project>/ID.jsonl` (`~/.claude` without the variable),
    /// Codex's `$CODEX_HOME/sessions/YYYY/MM/DD/rollout-…-ID.jsonl` (`~/.codex`)].
    #[arg(short, long, value_name = "PATH")]
    pub output: Option<PathBuf>,
    /// The project directory the agent resumes in [default: the session header's `cwd`].
    #[arg(long, value_name = "DIR")]
    pub cwd: Option<PathBuf>,
    /// Replace the output file if it exists.
    #[arg(long)]
    pub force: bool,
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct MigrateArgs {
    /// The session file (`.jsonl`).
    pub file: PathBuf,
    /// Wait for another writer to finish instead of failing.
    #[arg(long)]
    pub wait: bool,
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct BranchArgs {
    /// The session file (`.jsonl`).
    pub file: PathBuf,
    /// The entry to continue from.
    #[arg(long, value_name = "ID")]
    pub to: String,
    /// The leaf being left (default: the current leaf).
    #[arg(long, value_name = "ID")]
    pub from: Option<String>,
    /// Append a `branch_summary` of the abandoned branch under the target; it becomes the
    /// leaf, so pi continues from the target. Without this flag nothing is written.
    #[arg(long)]
    pub summarize: bool,
    /// Custom instructions for the branch summary.
    #[arg(long, value_name = "TEXT")]
    pub instructions: Option<String>,
    /// Use --instructions as the whole prompt instead of adding them to the built-in one.
    #[arg(long, requires = "instructions")]
    pub replace_instructions: bool,
    #[command(flatten)]
    pub compaction: CompactionFlags,
    #[command(flatten)]
    pub summarizer: SummarizerFlags,
    #[command(flatten)]
    pub extension: ExtensionFlags,
    /// Show what would be summarized; write nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// Wait for another process writing the session instead of failing.
    #[arg(long)]
    pub wait: bool,
    /// No progress display.
    #[arg(long, short)]
    pub quiet: bool,
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
#[command(group(clap::ArgGroup::new("source").required(true).args(["entry", "text"])))]
pub struct PinArgs {
    #[command(flatten)]
    pub session: SessionArgs,
    /// Pin the text of this entry (a user message, usually).
    #[arg(long, value_name = "ID")]
    pub entry: Option<String>,
    /// Pin this text, verbatim.
    #[arg(long, value_name = "TEXT")]
    pub text: Option<String>,
    /// Wait for another process writing the session instead of failing.
    #[arg(long)]
    pub wait: bool,
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct UnpinArgs {
    #[command(flatten)]
    pub session: SessionArgs,
    /// Ids of the pins to remove (or of the entries they were pinned from).
    #[arg(required = true, value_name = "ID")]
    pub ids: Vec<String>,
    /// Wait for another process writing the session instead of failing.
    #[arg(long)]
    pub wait: bool,
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct LeavesArgs {
    /// The session file (`.jsonl`).
    pub file: PathBuf,
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct TokensArgs {
    /// A session file, a text file, or `-` (the default) for standard input.
    pub file: Option<PathBuf>,
    /// Token estimator: heuristic, pi, o200k or cl100k (default: from settings).
    #[arg(long, value_name = "NAME", value_parser = estimator_names())]
    pub estimator: Option<String>,
    /// For a session, use this entry as the leaf.
    #[arg(long, value_name = "ID")]
    pub leaf: Option<String>,
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
}
#[cfg(test)]
mod tests;
