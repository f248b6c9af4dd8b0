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
use compaction::harness::{ChatModel, CompactingSession};
use compaction::offline::OfflineSummarizer;
use compaction::provider::{ApiKey, LlmSummarizer, ProviderClient, ProviderConfig, ProviderKind};
use compaction::settings::load_settings_from_process;
use compaction::store::{OpenOptions, SessionStore};
use compaction::summarizer::Summarizer;
use compaction_core::models::resolve_context_window;
use compaction_core::serialize::Redactor;
use compaction_core::settings::SettingsPatch;
use compaction_core::tokens::estimator_by_name;

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
    // The same settings as the `compaction` command, these flags on top.
    let flags = SettingsPatch {
        keep_recent_tokens: args.keep_recent_tokens,
        context_window: args.context_window.map(Some),
        ..SettingsPatch::default()
    };
    let mut resolved = load_settings_from_process(&std::env::current_dir()?, &flags)?;
    let window = resolve_context_window(Some(&args.model), resolved.settings.context_window);
    // Budgets left at their defaults shrink to fit small windows; explicit ones are checked.
    resolved.fit_to_window(window.tokens, &format!("the window of {}", args.model))?;
    let settings = resolved.settings;
    let model = ChatModel::new("openai", &args.model, Some(window.tokens));
    let key = ApiKey::from_env("OPENAI_API_KEY").unwrap_or_else(|_| ApiKey::new(""));
    let mut config = ProviderConfig::new(ProviderKind::OpenAi, &args.model);
    config.base_url = Some(args.base_url.clone());
    let client = ProviderClient::new(config.clone(), key.clone())?;
    let summarizer: Box<dyn Summarizer> = match &args.summary_model {
        Some(summary_model) => {
            // The summary model's window: `summaryContextWindow` when set, the chat window
            // when it is the chat model, else the model table's.
            let summary_window = match settings.summary_context_window {
                Some(tokens) => tokens,
                None if *summary_model == args.model => window.tokens,
                None => resolve_context_window(Some(summary_model), None).tokens,
            };
            config.model = summary_model.clone();
            Box::new(
                LlmSummarizer::new(ProviderClient::new(config, key.clone())?)
                    .with_context_window(summary_window),
            )
        }
        None => Box::new(OfflineSummarizer),
    };
    let store = if args.session.exists() {
        SessionStore::open(&args.session, OpenOptions::for_writing())
    } else {
        let cwd = std::env::current_dir()?.display().to_string();
        SessionStore::create(&args.session, &cwd, OpenOptions::for_writing())
    }
    .map(|(store, _report)| store)
    .with_context(|| format!("cannot open {}", args.session.display()))?;
    let estimator = estimator_by_name(&settings.estimator)?;
    let mut session = CompactingSession::new(store, settings, model, summarizer, estimator);
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
