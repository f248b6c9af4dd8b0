//! `compaction stats`: what a session holds and what its context looks like.

use crate::output::plural;
use std::collections::BTreeMap;

use compaction_core::context::build_context;
use compaction_core::tokens::{TokenEstimator, context_tokens};
use compaction_core::{Diagnostic, Session, Severity};
use serde::Serialize;

use super::ExitStatus;
use crate::cli::StatsArgs;
use crate::output::print_json;

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Stats {
    pub file: String,
    pub header_version: u32,
    pub entries: usize,
    pub entry_types: BTreeMap<String, usize>,
    pub path_length: usize,
    pub leaf_id: Option<String>,
    pub leaves: usize,
    pub context_messages: usize,
    pub context_roles: BTreeMap<String, usize>,
    pub thinking_level: String,
    pub model: Option<compaction_core::context::ModelRef>,
    pub diagnostics: Vec<Diagnostic>,
    pub estimator: String,
    pub context_tokens: u64,
    /// Tool outputs the context shows as placeholders (`compaction.prune` entries).
    pub pruned_entries: usize,
    /// Estimated tokens those prunes keep out of the context.
    pub pruned_tokens: u64,
    pub context_window: u64,
    pub context_window_source: compaction::setup::ChatWindow,
    pub window_scaled_settings: serde_json::Value,
    pub should_compact: bool,
    pub trigger_reasons: Vec<String>,
    /// What the whole session spent (every branch, summarized history and `usage` entries
    /// included), summed as pi 1.6's session statistics sum it.
    pub session_usage: compaction_core::usage_totals::UsageTotals,
}

pub fn collect(
    file: String,
    session: &Session,
    leaf: Option<usize>,
    setup: &mut compaction::setup::Setup,
    estimator: &dyn TokenEstimator,
) -> anyhow::Result<Stats> {
    let mut entry_types = BTreeMap::new();
    for entry in session.entries() {
        let key = match entry.role() {
            Some(role) => format!("message:{role}"),
            None => entry.kind.type_name().to_owned(),
        };
        *entry_types.entry(key).or_insert(0) += 1;
    }
    let context = build_context(session, leaf);
    let mut context_roles = BTreeMap::new();
    for message in context.agent_messages(session) {
        *context_roles.entry(message.role().to_owned()).or_insert(0) += 1;
    }
    let tokens = context_tokens(session, &context, estimator);
    let pruned_tokens: u64 = context
        .pruned
        .entries()
        .filter_map(|index| {
            let original = session.entries()[index].message()?.ok()?;
            let shown = context.pruned.apply(index, original.clone());
            Some(
                estimator
                    .message_tokens(&original)
                    .saturating_sub(estimator.message_tokens(&shown)),
            )
        })
        .sum();
    let recorded = compaction_core::import::recorded_context_window(session);
    let window = setup.chat_window(None, context.model.as_ref(), recorded);
    setup.fit_to_window(&window, context.model.as_ref()).map_err(super::setup::setup_error)?;
    let resolved = &setup.resolved;
    let context_window = window.tokens;
    let decision = compaction_core::should_compact(
        tokens.tokens,
        context.items.len() as u64,
        context_window,
        &resolved.settings,
    );
    Ok(Stats {
        context_window_source: window,
        window_scaled_settings: super::plan::scaled_settings(resolved),
        estimator: estimator.name().to_owned(),
        context_tokens: tokens.tokens,
        pruned_entries: context.pruned.len(),
        pruned_tokens,
        context_window,
        should_compact: decision.fire,
        trigger_reasons: decision.reasons.iter().map(ToString::to_string).collect(),
        session_usage: compaction_core::usage_totals::session_usage_totals(session),
        file,
        header_version: session.source_version(),
        entries: session.entries().len(),
        entry_types,
        path_length: context.path.len(),
        leaf_id: leaf.map(|i| session.entries()[i].id.clone()),
        leaves: session.leaves().len(),
        context_messages: context.items.len(),
        context_roles,
        thinking_level: context.thinking_level.clone(),
        model: context.model.clone(),
        diagnostics: session.diagnostics().to_vec(),
    })
}

pub fn run(args: &StatsArgs) -> anyhow::Result<ExitStatus> {
    let (session, leaf) = super::load_with_leaf(&args.session)?;
    let flags = crate::cli::CompactionFlags {
        estimator: args.estimator.clone(),
        context_window: args.context_window,
        ..Default::default()
    };
    let mut setup = super::setup::load(&flags)?;
    let estimator = setup.estimator().map_err(super::setup::setup_error)?;
    let stats = collect(
        args.session.file.display().to_string(),
        &session,
        leaf,
        &mut setup,
        estimator.as_ref(),
    )?;
    if args.json {
        print_json(&stats)?;
    } else {
        print_human(&stats);
    }
    crate::load::release_at_exit(session);
    Ok(ExitStatus::Success)
}

fn print_human(stats: &Stats) {
    println!("{}", stats.file);
    println!("  format version   {}", stats.header_version);
    println!("  entries          {}", stats.entries);
    for (kind, count) in &stats.entry_types {
        println!("    {kind:<22} {count}");
    }
    println!("  leaves           {}", stats.leaves);
    println!(
        "  leaf             {} (path of {})",
        stats.leaf_id.as_deref().unwrap_or("-"),
        plural(stats.path_length, "entry")
    );
    if let Some(model) = &stats.model {
        println!("  model            {}/{}", model.provider, model.model_id);
    }
    println!("  thinking level   {}", stats.thinking_level);
    let roles: Vec<String> =
        stats.context_roles.iter().map(|(role, count)| format!("{count} {role}")).collect();
    println!(
        "  context          {} ({})",
        plural(stats.context_messages, "message"),
        roles.join(", ")
    );
    println!(
        "  context tokens   {} of {} ({:.1}% of window, {} estimator)",
        stats.context_tokens,
        stats.context_window,
        stats.context_tokens as f64 * 100.0 / stats.context_window.max(1) as f64,
        stats.estimator
    );
    if stats.pruned_entries > 0 {
        println!(
            "  pruned           {} shown as placeholders, about {} out of the context",
            plural(stats.pruned_entries, "tool output"),
            plural(stats.pruned_tokens, "token")
        );
    }
    println!(
        "  window           {} tokens, from {}",
        stats.context_window, stats.context_window_source.description
    );
    if stats.should_compact {
        println!("  compaction       would trigger: {}", stats.trigger_reasons.join("; "));
    } else {
        println!("  compaction       would not trigger");
    }
    let spent = &stats.session_usage;
    println!(
        "  session usage    {} tokens ({} in, {} out, {} cache read, {} cache write), cost {:.4}",
        spent.total, spent.input, spent.output, spent.cache_read, spent.cache_write, spent.cost
    );
    if spent.saturated {
        println!(
            "  (a usage sum passed {} and stopped there: the session's usage numbers are too \
             large to be real; the totals are lower bounds)",
            u64::MAX
        );
    }
    let count = |severity| stats.diagnostics.iter().filter(|d| d.severity() == severity).count();
    println!(
        "  diagnostics      {}, {}, {}{}",
        plural(count(Severity::Error), "error"),
        plural(count(Severity::Warning), "warning"),
        plural(count(Severity::Info), "note"),
        if stats.diagnostics.is_empty() { "" } else { " (see `compaction check`)" }
    );
}
