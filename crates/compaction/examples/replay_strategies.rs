//! Replays a session turn by turn through the harness under each compaction strategy
//! (`summarize`, `prune`, `hybrid`) with a fixed window, and reports per strategy: the
//! summarizer calls, the summarizer input tokens (the cost), the peak and mean context
//! tokens at model calls, and how many times the prompt prefix changed (a cache break: the
//! context sent was not the previous one plus what came after it).
//!
//! ```text
//! cargo run -p compaction --example replay_strategies -- examples/coding-session.jsonl 16000
//! cargo run -p compaction --example replay_strategies -- generated:7:3000 64000 8 16
//! ```
//! Arguments: the session (or `generated:SEED:ENTRIES`), the window, and the prune budgets
//! as divisors of the window: protected newest tool output (default 4: a quarter) and the
//! minimum saving (default 8).
//! `generated:SEED:ENTRIES` replays a generated linear session without compactions. Budgets
//! are scaled to the window (reserve 1/8, keep-recent 1/4, summary 1/16); the offline summarizer writes the summaries, and the input it is sent
//! is counted as an LLM would receive it (system prompt + rendered request). Usage recorded
//! in the original replies is dropped, so every size is the estimator's.

use std::sync::Mutex;

use compaction::error::SummarizerError;
use compaction::harness::{ChatModel, CompactingSession};
use compaction::offline::OfflineSummarizer;
use compaction::store::{OpenOptions, SessionStore};
use compaction::summarizer::{
    Summarizer, SummaryProgress, SummaryRequest, SummaryResponse, render_user_prompt,
};
use compaction_core::prune::{PruneSettings, Strategy};
use compaction_core::settings::CompactionSettings;
use compaction_core::tokens::{TokenEstimator, estimator_by_name};
use compaction_core::{AgentMessage, parse_session};
use compaction_testdata::{GenerateOptions, generate_session};
use futures_util::future::BoxFuture;
use tokio_util::sync::CancellationToken;

/// The offline summarizer, counting calls and the tokens of what each call is sent.
struct Counting {
    estimator: Box<dyn TokenEstimator>,
    counts: Mutex<(usize, u64)>,
}

impl Summarizer for Counting {
    fn summarize<'a>(
        &'a self,
        request: &'a SummaryRequest,
        cancel: &'a CancellationToken,
        progress: &'a (dyn Fn(SummaryProgress) + Send + Sync),
    ) -> BoxFuture<'a, Result<SummaryResponse, SummarizerError>> {
        let input = self.estimator.text_tokens(&request.system_prompt)
            + self.estimator.text_tokens(&render_user_prompt(request));
        if let Ok(mut counts) = self.counts.lock() {
            counts.0 += 1;
            counts.1 += input;
        }
        OfflineSummarizer.summarize(request, cancel, progress)
    }

    fn label(&self) -> String {
        "offline (counted)".into()
    }
}

#[derive(Debug, Default)]
struct Report {
    calls: usize,
    input_tokens: u64,
    model_calls: usize,
    peak: u64,
    total: u64,
    cache_breaks: usize,
}

fn messages_of(source: &str) -> anyhow::Result<Vec<AgentMessage>> {
    let text = match source.strip_prefix("generated:") {
        Some(spec) => {
            let (seed, entries) = spec.split_once(':').unwrap_or((spec, "3000"));
            generate_session(&GenerateOptions {
                seed: seed.parse()?,
                entries: entries.parse()?,
                branches: false,
                compactions: false,
                ..GenerateOptions::default()
            })
        }
        None => std::fs::read_to_string(source)?,
    };
    let session = parse_session(text.as_bytes());
    let context = compaction_core::context::build_context(&session, session.leaf());
    Ok(context
        .agent_messages(&session)
        .into_iter()
        .filter_map(|message| match message {
            AgentMessage::Assistant(mut assistant) => {
                assistant.usage = None;
                Some(AgentMessage::Assistant(assistant))
            }
            AgentMessage::User(_) | AgentMessage::ToolResult(_) => Some(message),
            AgentMessage::BashExecution(_)
            | AgentMessage::Custom(_)
            | AgentMessage::BranchSummary(_)
            | AgentMessage::CompactionSummary(_)
            | AgentMessage::System(_)
            | AgentMessage::Other(_) => None,
        })
        .collect())
}

/// Prune budgets as fractions of the window: protected newest tool output = window /
/// `protect`, minimum saving = window / `minimum`.
#[derive(Debug, Clone, Copy)]
struct Scale {
    protect: u64,
    minimum: u64,
}

async fn replay(
    messages: &[AgentMessage],
    window: u64,
    scale: Scale,
    strategy: Strategy,
) -> anyhow::Result<Report> {
    let dir = tempfile::tempdir()?;
    let path = dir.path().join("replay.jsonl");
    let (store, _) = SessionStore::create(&path, "/replay", OpenOptions::for_writing())?;
    let settings = CompactionSettings {
        reserve_tokens: window / 8,
        keep_recent_tokens: window / 4,
        min_turns_to_keep: 1,
        max_summary_tokens: window / 16,
        strategy,
        prune: PruneSettings {
            protect_recent_tokens: window / scale.protect,
            minimum_savings: window / scale.minimum,
            ..PruneSettings::default()
        },
        ..CompactionSettings::default()
    };
    let counting =
        Counting { estimator: estimator_by_name("heuristic")?, counts: Mutex::new((0, 0)) };
    let counts = std::sync::Arc::new(counting);
    let mut session = CompactingSession::new(
        store,
        settings,
        ChatModel::new("replay", "replay", Some(window)),
        Box::new(Shared(counts.clone())),
        estimator_by_name("heuristic")?,
    );
    let estimator = estimator_by_name("heuristic")?;
    let mut report = Report::default();
    let mut previous: Vec<AgentMessage> = Vec::new();
    for message in messages {
        if matches!(message, AgentMessage::Assistant(_)) {
            let context = match session.prepare_next_turn().await {
                Ok(context) => context,
                Err(_) => session.context(),
            };
            let tokens: u64 = context.iter().map(|m| estimator.message_tokens(m)).sum();
            report.model_calls += 1;
            report.peak = report.peak.max(tokens);
            report.total += tokens;
            let extends =
                context.len() >= previous.len() && context[..previous.len()] == previous[..];
            if !previous.is_empty() && !extends {
                report.cache_breaks += 1;
            }
            previous = context;
        }
        session.append_message(message)?;
    }
    let (calls, input) = counts.counts.lock().map(|c| *c).unwrap_or_default();
    report.calls = calls;
    report.input_tokens = input;
    Ok(report)
}

/// Shares one counting summarizer with the harness.
struct Shared(std::sync::Arc<Counting>);

impl Summarizer for Shared {
    fn summarize<'a>(
        &'a self,
        request: &'a SummaryRequest,
        cancel: &'a CancellationToken,
        progress: &'a (dyn Fn(SummaryProgress) + Send + Sync),
    ) -> BoxFuture<'a, Result<SummaryResponse, SummarizerError>> {
        self.0.summarize(request, cancel, progress)
    }

    fn label(&self) -> String {
        self.0.label()
    }
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> anyhow::Result<()> {
    let mut args = std::env::args().skip(1);
    let source = args.next().unwrap_or_else(|| "examples/coding-session.jsonl".to_owned());
    let window: u64 = args.next().map(|w| w.parse()).transpose()?.unwrap_or(16_000);
    let protect: u64 = args.next().map(|w| w.parse()).transpose()?.unwrap_or(4);
    let minimum: u64 = args.next().map(|w| w.parse()).transpose()?.unwrap_or(8);
    let scale = Scale { protect: protect.max(1), minimum: minimum.max(1) };
    let messages = messages_of(&source)?;
    println!(
        "{source}: {} messages replayed, window {window}, prune protects window/{} and needs \
         window/{} saved",
        messages.len(),
        scale.protect,
        scale.minimum
    );
    println!(
        "| strategy | summarizer calls | summarizer input tokens | peak context | mean context | cache breaks |"
    );
    println!("|---|---|---|---|---|---|");
    for strategy in [Strategy::Summarize, Strategy::Prune, Strategy::Hybrid] {
        let report = replay(&messages, window, scale, strategy).await?;
        println!(
            "| {} | {} | {} | {} | {} | {} |",
            strategy.as_str(),
            report.calls,
            report.input_tokens,
            report.peak,
            report.total / report.model_calls.max(1) as u64,
            report.cache_breaks,
        );
    }
    Ok(())
}
