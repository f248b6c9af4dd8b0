//! A minimal terminal chat agent with automatic compaction, on any OpenAI-compatible
//! endpoint. One prompt per stdin line; replies stream to stdout; `/compact` compacts by
//! hand. The session is a pi-format JSONL file that `compaction tree/context/stats` reads.
//!
//! ```text
//! OPENAI_API_KEY=sk-... cargo run -p compaction --example chat -- \
//!     --model gpt-4o-mini --session /tmp/chat.jsonl
//! cargo run -p compaction --example chat -- --base-url http://127.0.0.1:8080/v1 \
//!     --model local --context-window 8192 --keep-recent-tokens 2000 --session /tmp/local.jsonl
//! ```
//! Local servers usually need no key: without `OPENAI_API_KEY` an empty bearer token is sent.
//! With Ollama, pass the window the model runs with (its `num_ctx`):
//!
//! ```text
//! cargo run -p compaction --example chat -- --base-url http://localhost:11434/v1 \
//!     --model qwen2.5-coder:7b --context-window 8192 --session /tmp/ollama.jsonl
//! ```
//!
//! Settings are read as the `compaction` command reads them (flags > `COMPACTION_*` >
//! `.pi/settings.json` > `~/.pi/agent/settings.json` > defaults), and budgets left at their
//! defaults are fitted to the window. The program exits with status 1 when a turn failed
//! (for example when the server cannot be reached), after saving the session.

use std::path::PathBuf;

use anyhow::Context as _;
use clap::Parser;
use compaction::harness::chat::{ChatOptions, chat_loop};
use compaction::harness::{ChatModel, CompactingSession, HarnessSettings};
use compaction::provider::{ApiKey, ProviderClient, ProviderConfig, ProviderKind};
use compaction::setup::{ExtensionChoice, Setup, SummarizerChoice};
use compaction::store::{OpenOptions, SessionStore};
use compaction_core::serialize::Redactor;
use compaction_core::settings::SettingsPatch;

#[derive(Parser)]
#[command(
    about = "Chat with an OpenAI-compatible model; the context is compacted automatically",
    after_help = "Type one prompt per line; replies stream back. `/compact` compacts the \
                  session by hand. Lines in brackets report compactions and errors. End the \
                  input (Ctrl-D) to quit; the exit status is 1 when any turn failed, e.g. \
                  because the server could not be reached.\n\n\
                  Settings come from the same places as the `compaction` command's: flags, \
                  COMPACTION_* variables, .pi/settings.json, ~/.pi/agent/settings.json."
)]
struct Args {
    /// Base URL of the OpenAI-compatible API.
    #[arg(long, default_value = "https://api.openai.com/v1")]
    base_url: String,
    /// Chat model.
    #[arg(long)]
    model: String,
    /// The chat model's context window (default: the model table's).
    #[arg(long)]
    context_window: Option<u64>,
    /// Session file (created when missing).
    #[arg(long)]
    session: PathBuf,
    /// Model that writes summaries on the same endpoint (default: the offline summarizer).
    #[arg(long)]
    summary_model: Option<String>,
    /// Tokens of recent messages kept verbatim by a compaction.
    #[arg(long)]
    keep_recent_tokens: Option<u64>,
    /// Output limit of each reply.
    #[arg(long, default_value_t = 2048)]
    max_output_tokens: u32,
    /// System prompt.
    #[arg(long, default_value = "You are a helpful assistant. Answer concisely.")]
    system: String,
}

fn main() -> std::process::ExitCode {
    let args = Args::parse();
    let result = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(anyhow::Error::from)
        .and_then(|runtime| runtime.block_on(run(args)));
    match result {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("error: {error:#}");
            std::process::ExitCode::FAILURE
        }
    }
}

async fn run(args: Args) -> anyhow::Result<()> {
    // The same settings, window, estimator and summarizer as the `compaction` command
    // (`Setup`), these flags on top. Budgets left at their defaults shrink to fit small
    // windows; explicit ones are checked.
    let flags = SettingsPatch {
        keep_recent_tokens: args.keep_recent_tokens,
        context_window: args.context_window.map(Some),
        ..SettingsPatch::default()
    };
    let setup = Setup::load_here(&flags)?.with_notes(|note| eprintln!("[note: {note:?}]"));
    // Without --summary-model the offline summarizer writes the summaries.
    let choice = SummarizerChoice {
        provider: args.summary_model.as_ref().map(|_| "openai".to_owned()),
        model: Some(args.model.clone()),
        summary_model: args.summary_model.clone(),
        base_url: Some(args.base_url.clone()),
        ..SummarizerChoice::default()
    };
    // The chat loop runs no extension.
    let toolkit = setup.toolkit(&choice, &ExtensionChoice::none(), None, None)?;
    let model = ChatModel::new("openai", &args.model, Some(toolkit.context_window));
    let key = ApiKey::from_env("OPENAI_API_KEY").unwrap_or_else(|_| ApiKey::new(""));
    let mut config = ProviderConfig::new(ProviderKind::OpenAi, &args.model);
    config.base_url = Some(args.base_url.clone());
    let client = ProviderClient::new(config, key.clone())?;
    let store = if args.session.exists() {
        SessionStore::open(&args.session, OpenOptions::for_writing())
    } else {
        let cwd = std::env::current_dir()?.display().to_string();
        SessionStore::create(&args.session, &cwd, OpenOptions::for_writing())
    }
    .map(|(store, _report)| store)
    .with_context(|| format!("cannot open {}", args.session.display()))?;
    let mut session =
        CompactingSession::from_toolkit(store, model, toolkit, HarnessSettings::default());
    if !key.expose().is_empty() {
        session.set_redactor(Redactor::new([key.expose().to_owned()]));
    }
    let options =
        ChatOptions { system_prompt: args.system, max_output_tokens: args.max_output_tokens };
    let stdin = std::io::stdin();
    let mut stdout = std::io::stdout();
    let stats = chat_loop(&mut session, &client, &options, stdin.lock(), &mut stdout).await?;
    eprintln!(
        "{} turns ({} failed), {} compactions; session saved in {}",
        stats.turns,
        stats.failed_turns,
        stats.compactions,
        args.session.display()
    );
    if stats.failed_turns > 0 {
        anyhow::bail!(
            "{} of {} turns failed; is the server at {} reachable and serving `{}`?",
            stats.failed_turns,
            stats.turns + stats.failed_turns,
            args.base_url,
            args.model
        );
    }
    Ok(())
}
