//! `compaction plan`: the dry run of a compaction. Nothing written, no summary asked for,
//! and nothing sent anywhere: only with `--ask-server` (and `--provider` with a base URL of
//! an OpenAI-compatible server) is the server asked for its window as `run` asks it, so the
//! calls planned are the calls `run` makes.

use crate::output::plural;
use compaction_core::plan::{CompactionPlan, PinSize, PlanError, PlanInputs, plan_compaction};
use compaction_core::serialize::SerializeOptions;
use serde_json::{Value, json};

use super::{ExitStatus, setup};
use crate::cli::PlanArgs;
use crate::output::print_json;

pub fn run(args: &PlanArgs) -> anyhow::Result<ExitStatus> {
    let (session, leaf) = super::load_with_leaf(&args.session)?;
    let mut resolution = setup::load(&args.compaction)?;
    let session_model = compaction_core::context::build_context(&session, leaf).model;
    let window = resolution.chat_window(
        args.summarizer.model.as_deref(),
        session_model.as_ref(),
        compaction_core::import::recorded_context_window(&session),
    );
    resolution.fit_to_window(&window, session_model.as_ref()).map_err(setup::setup_error)?;
    let settings = resolution.resolved.settings.clone();
    let choice = setup::summarizer_choice(&args.summarizer);
    let estimator = setup::estimator(&settings)?;
    let serialize = SerializeOptions {
        tool_result_max_chars: usize::try_from(settings.tool_result_max_chars)
            .unwrap_or(usize::MAX),
        ..SerializeOptions::default()
    };
    // The summary window the provider path plans with: the summarizer's own (the server's
    // window when it tells, less the margin for an unknown tokenizer), so the calls counted
    // here are the calls `run` makes. Without a usable provider (no key), the configured one.
    let summarizer = resolution.summarizer(&choice, session_model.as_ref()).ok();
    // With --ask-server only, the server is asked (window, tokenizer) with the sample `run`
    // would measure.
    let asked = summarizer.as_ref().filter(|_| args.ask.ask_server);
    let window_note = asked.and_then(|(summarizer, secrets)| {
        let compactor = compaction::compact::Compactor {
            summarizer: summarizer.as_ref(),
            settings: &settings,
            context_window: window.tokens,
            estimator: estimator.as_ref(),
            redactor: compaction_core::serialize::Redactor::new(secrets.clone()),
            extensions: &compaction::extension::Extensions::new(),
        };
        let sample = compactor.tokenizer_sample(&session, leaf, args.instructions.as_deref());
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().ok()?;
        runtime.block_on(summarizer.prepare(&sample, estimator.as_ref()))
    });
    let window_note = window_note.or_else(|| {
        let remote = summarizer.as_ref()?;
        (!args.ask.ask_server && remote.0.label() != "offline").then(|| {
            "as configured; nothing was sent (--ask-server asks the server for its window)"
                .to_owned()
        })
    });
    let summary_window = match &summarizer {
        Some((summarizer, _)) => summarizer.context_window(),
        None => resolution.summary_window(&choice, session_model.as_ref()),
    };
    let inputs = PlanInputs {
        settings: &settings,
        context_window: window.tokens,
        summary_window,
        estimator: estimator.as_ref(),
        serialize: &serialize,
        instructions: args.instructions.as_deref(),
    };
    let plan = plan_compaction(&session, leaf, &inputs);
    let mut report = report(&session, &plan, estimator.as_ref());
    if let Value::Object(fields) = &mut report {
        fields.insert("contextWindowSource".into(), json!(window));
        fields.insert("windowScaledSettings".into(), scaled_settings(&resolution.resolved));
        fields.insert("summaryWindow".into(), json!(summary_window));
        fields.insert("summaryWindowSource".into(), json!(window_note));
        fields.insert(
            "summarizer".into(),
            json!(summarizer.as_ref().map(|(summarizer, _)| summarizer.label())),
        );
    }
    if args.json {
        print_json(&report)?;
    } else {
        print_human(&report);
    }
    crate::load::release_at_exit((session, plan));
    Ok(ExitStatus::Success)
}

/// The budgets capped to a quarter of a small window, as `{key: value}`.
pub fn scaled_settings(resolved: &compaction_core::settings::ResolvedSettings) -> Value {
    let settings = serde_json::to_value(&resolved.settings).unwrap_or(Value::Null);
    let fields: serde_json::Map<String, Value> = resolved
        .window_scaled
        .keys()
        .map(|&key| (key.to_owned(), settings.get(key).cloned().unwrap_or(Value::Null)))
        .collect();
    Value::Object(fields)
}

/// The plan as JSON (the `plan --json` and `run --dry-run --json` shape).
pub fn report(
    session: &compaction_core::Session,
    plan: &CompactionPlan,
    estimator: &dyn compaction_core::tokens::TokenEstimator,
) -> Value {
    let estimated_before =
        compaction_core::tokens::estimate_context_tokens(session, &plan.context, estimator);
    let mut report = json!({
        "estimator": estimator.name(),
        "contextTokens": plan.context_tokens.tokens,
        "recordedUsageTokens": plan.context_tokens.usage_entry_id.as_ref().map(|_| plan.context_tokens.usage_tokens),
        "contextWindow": plan.context_window,
        "shouldCompact": plan.trigger.fire,
        "triggerReasons": plan.trigger.reasons.iter().map(ToString::to_string).collect::<Vec<_>>(),
    });
    let Value::Object(fields) = &mut report else { return report };
    match &plan.compaction {
        Ok(planned) => {
            let preparation = &planned.preparation;
            let ids = |entries: &[usize]| -> Vec<String> {
                entries.iter().map(|&index| session.entries()[index].id.clone()).collect()
            };
            let extra = json!({
                "compactable": true,
                "firstKeptEntryId": preparation.first_kept_entry_id,
                "firstKeptEntryIndex": preparation.first_kept_index(),
                "isSplitTurn": preparation.cut.is_split_turn,
                "turnStartIndex": preparation.cut.turn_start,
                "keptForMinTurns": preparation.cut.moved_for_min_turns,
                "messagesToSummarize": preparation.messages_to_summarize.len(),
                "turnPrefixMessages": preparation.turn_prefix_messages.len(),
                "summarizeEntryIds": ids(&preparation.summarized_entries),
                "turnPrefixEntryIds": ids(&preparation.turn_prefix_entries),
                "tokensBefore": preparation.tokens_before,
                "estimatedTokensBefore": estimated_before,
                "keptTokens": preparation.kept_tokens,
                "estimatedTokensAfter": planned.estimated_tokens_after,
                "previousSummary": preparation.previous_summary.is_some(),
                "readFiles": preparation.read_files(),
                "modifiedFiles": preparation.modified_files(),
                "summarizerCalls": planned.summarizer_calls(),
                "historyChunks": planned.history_chunk_count(),
                "turnPrefixChunks": planned.turn_prefix_chunk_count(),
                "mustKeep": must_keep_with_pins(preparation, &planned.pin_texts()),
                // The tokens each pin adds to the summary, largest first (counted in
                // estimatedTokensAfter).
                "pinSizes": planned.pin_sizes(estimator).iter().map(|pin| json!({
                    "id": pin.id,
                    "tokens": pin.tokens,
                })).collect::<Vec<_>>(),
                "keptUserMessages": planned.kept_user_messages.as_ref().map(|kept| json!({
                    "messages": kept.messages,
                    "candidates": kept.candidates,
                    "tokens": kept.tokens,
                    "cut": kept.cut,
                })),
            });
            if let Value::Object(extra) = extra {
                fields.extend(extra);
            }
        }
        Err(error) => {
            fields.insert("compactable".into(), Value::Bool(false));
            fields.insert("reason".into(), Value::String(error.to_string()));
            // Nothing to compact is an answer; a request that cannot fit is a problem.
            let is_problem = matches!(error, PlanError::NoRoom(_));
            fields.insert("noRoom".into(), Value::Bool(is_problem));
        }
    }
    report
}

fn print_human(report: &Value) {
    let get = |key: &str| report.get(key).cloned().unwrap_or(Value::Null);
    let number = |key: &str| get(key).as_u64().unwrap_or(0);
    let window = number("contextWindow");
    let tokens = number("contextTokens");
    let percent = if window > 0 { tokens as f64 * 100.0 / window as f64 } else { 0.0 };
    let counted = match get("recordedUsageTokens").as_u64() {
        Some(usage) => {
            format!("the last reply's recorded usage {usage} + estimated later messages")
        }
        None => "estimated, no recorded usage to start from".to_owned(),
    };
    println!(
        "context: {tokens} tokens of {window} ({percent:.1}%; {counted}), estimator {}",
        get("estimator").as_str().unwrap_or("?")
    );
    println!(
        "window: {window} tokens, from {}",
        get("contextWindowSource")["description"].as_str().unwrap_or("?")
    );
    if let Some(scaled) = get("windowScaledSettings").as_object().filter(|s| !s.is_empty()) {
        let listed: Vec<String> =
            scaled.iter().map(|(key, value)| format!("{key} {value}")).collect();
        println!(
            "budgets: {} (defaults capped at a quarter of the window; set them to override)",
            listed.join(", ")
        );
    }
    let reasons: Vec<String> = get("triggerReasons")
        .as_array()
        .map(|r| r.iter().filter_map(|v| v.as_str().map(str::to_owned)).collect())
        .unwrap_or_default();
    if get("shouldCompact").as_bool() == Some(true) {
        println!("trigger: would compact now ({})", reasons.join("; "));
    } else {
        println!("trigger: not yet (no rule fires)");
    }
    if get("compactable").as_bool() != Some(true) {
        println!("plan: nothing to compact: {}", get("reason").as_str().unwrap_or(""));
        return;
    }
    println!(
        "cut: keep from {} (path index {}){}",
        get("firstKeptEntryId").as_str().unwrap_or("?"),
        number("firstKeptEntryIndex"),
        if get("isSplitTurn").as_bool() == Some(true) {
            format!(", splitting the turn that starts at path index {}", number("turnStartIndex"))
        } else {
            String::new()
        }
    );
    println!(
        "summarize: {}{}{}",
        plural(number("messagesToSummarize"), "message"),
        if number("turnPrefixMessages") > 0 {
            format!(" + {} of the split turn", number("turnPrefixMessages"))
        } else {
            String::new()
        },
        if get("previousSummary").as_bool() == Some(true) {
            ", updating the previous summary"
        } else {
            ""
        }
    );
    let (before, after) = (number("estimatedTokensBefore"), number("estimatedTokensAfter"));
    let pins: Vec<PinSize> = get("pinSizes")
        .as_array()
        .map(|pins| {
            pins.iter()
                .map(|pin| {
                    let id = pin["id"].as_str().unwrap_or_default();
                    PinSize {
                        id: crate::output::visible(&crate::output::shown(id)).into_owned(),
                        tokens: pin["tokens"].as_u64().unwrap_or(0),
                    }
                })
                .collect()
        })
        .unwrap_or_default();
    let pinned: u64 = pins.iter().map(|pin| pin.tokens).sum();
    let change = if after < before {
        format!("at most about {after} after (saves at least {})", before - after)
    } else if pinned > 0 {
        format!("up to about {after} after (could grow by {})", after - before)
    } else {
        format!(
            "up to about {after} after (could grow by {}: the summary budget is larger than \
             what is summarized)",
            after - before
        )
    };
    println!(
        "tokens (estimated context): {before} before, {change}; {} kept verbatim + summary \
         budget{}",
        number("keptTokens"),
        if pinned > 0 {
            format!(" + pins twice ({pinned} tokens each time)")
        } else {
            String::new()
        }
    );
    if after >= before && pinned > 0 {
        println!(
            "warning: the compaction may be refused, as the context could grow: every pin is \
             carried whole in the summary and again in the pins message after it: {}; \
             unpin or shorten the largest",
            PinSize::named(&pins)
        );
    }
    if let Some(kept) = get("keptUserMessages").as_object() {
        let count = |key: &str| kept.get(key).and_then(Value::as_u64).unwrap_or(0);
        println!(
            "user messages kept verbatim: {} of {} ({} tokens{})",
            count("messages"),
            count("candidates"),
            count("tokens"),
            if kept.get("cut").and_then(Value::as_bool) == Some(true) {
                ", the oldest cut to fit"
            } else {
                ""
            }
        );
    }
    let summarizer = get("summarizer");
    let by = summarizer.as_str().unwrap_or("the offline summarizer");
    println!("summarizer calls: {} ({by})", number("summarizerCalls"));
    if let Some(window) = get("summaryWindow").as_u64() {
        let source = get("summaryWindowSource");
        match source.as_str() {
            Some(source) => println!("summary window: {window} tokens planned ({source})"),
            None => println!("summary window: {window} tokens planned"),
        }
    }
    for (key, label) in [("readFiles", "read"), ("modifiedFiles", "modified")] {
        let files: Vec<String> = get(key)
            .as_array()
            .map(|r| r.iter().filter_map(|v| v.as_str().map(str::to_owned)).collect())
            .unwrap_or_default();
        if !files.is_empty() {
            println!("{label} files: {}", files.join(", "));
        }
    }
    print_must_keep(&get("mustKeep"));
}

/// The must-keep facts of the plan with the active pins, which every summary repeats
/// verbatim (`pins`, oldest first).
fn must_keep_with_pins(
    preparation: &compaction_core::prepare::CompactionPreparation,
    pins: &[String],
) -> Value {
    let mut facts =
        serde_json::to_value(preparation.must_keep(crate::output::redactor())).unwrap_or_default();
    if let Value::Object(fields) = &mut facts {
        fields.insert("pins".into(), json!(pins));
    }
    facts
}

/// The must-keep facts, one line each (long requests and errors shortened).
fn print_must_keep(facts: &Value) {
    let short = |text: &str| -> String {
        let line = text.split_whitespace().collect::<Vec<_>>().join(" ");
        match line.char_indices().nth(100) {
            Some((at, _)) => format!("{}…", &line[..at]),
            None => line,
        }
    };
    let constraints: Vec<&str> = facts
        .get("constraints")
        .and_then(Value::as_array)
        .map(|items| items.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let request = facts.get("latestRequest").and_then(Value::as_str);
    let error = facts.get("unresolvedError").filter(|error| !error.is_null());
    let pins: Vec<&str> = facts
        .get("pins")
        .and_then(Value::as_array)
        .map(|items| items.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    if constraints.is_empty() && request.is_none() && error.is_none() && pins.is_empty() {
        return;
    }
    println!("must keep:");
    for pin in pins {
        println!("  pin: {}", short(pin));
    }
    if let Some(request) = request {
        println!("  latest request: {}", short(request));
    }
    for constraint in constraints {
        println!("  constraint: {}", short(constraint));
    }
    if let Some(error) = error {
        let field = |key: &str| error.get(key).and_then(Value::as_str).unwrap_or_default();
        println!("  unresolved error: {} ({})", short(field("errorLine")), short(field("command")));
    }
}
