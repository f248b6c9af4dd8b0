//! Choosing what to prune at a leaf.
//!
//! The rules, newest output first: tool results in the last `protectTurns` user turns are
//! never pruned (their tokens still count as recent output); tools whose policy is
//! `protect` are never pruned; disposable results (`details.disposable: true`, or a tool
//! named in `disposableTools`) and reads superseded by a later read, edit or write of the
//! same path are pruned whatever their age; other results are kept until the newest
//! `protectRecentTokens` of tool output are accounted for, and older ones are pruned by
//! their tool's policy. The prune is worth doing only when it saves `minimumSavings`.
//!
//! Every rule reads the context as projected: an output another writer's `context_edit` left
//! out is not a candidate, and one it replaced is measured and described by its replacement.
//!
//! Invariant: a candidate is always a `toolResult` message in the context at the leaf, not
//! pruned yet, outside the protected turns, whose placeholder is smaller than its output.

use std::collections::HashMap;

use serde_json::Value;

use super::placeholder;
use super::record::{PruneRecord, PrunedItem};
use super::{PruneSettings, ToolPolicy};
use crate::context::{ContextItem, ContextItemKind, SessionContext};
use crate::message::{AgentMessage, ToolResultMessage};
use crate::session::Session;
use crate::tokens::{TokenEstimator, context_tokens, estimate_context_tokens};

/// Why an output is pruned.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase", tag = "kind")]
pub enum PruneReason {
    /// The result marked itself disposable, or its tool is listed as disposable.
    Disposable,
    /// A later call used the same path (the id of the entry holding that call).
    Superseded {
        /// The entry with the later call.
        by: String,
    },
    /// Older than the newest protected tool output.
    Old,
    /// An extension asked for it.
    Extension,
}

impl PruneReason {
    /// The short name stored in the prune record.
    pub fn as_str(&self) -> &'static str {
        match self {
            PruneReason::Disposable => "disposable",
            PruneReason::Superseded { .. } => "superseded",
            PruneReason::Old => "old",
            PruneReason::Extension => "extension",
        }
    }
}

/// One output the prune would replace.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PruneCandidate {
    /// Session index of the `toolResult` entry.
    #[serde(skip)]
    pub entry: usize,
    /// The entry id.
    pub id: String,
    /// The tool that produced the output.
    pub tool: String,
    /// The arguments of the call, when the call is in the context.
    pub arguments: Value,
    /// The policy that chose the placeholder.
    pub policy: ToolPolicy,
    /// Why it is pruned.
    pub reason: PruneReason,
    /// Estimated tokens of the output.
    pub tokens: u64,
    /// Estimated tokens of the placeholder.
    pub tokens_after: u64,
    /// What the model sees instead.
    pub placeholder: String,
}

/// Whether the plan prunes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub enum PruneDecision {
    /// Worth it: the candidates save at least the minimum.
    Prune,
    /// There are candidates, but they save less than the minimum.
    BelowMinimum,
    /// Nothing may be pruned.
    Nothing,
}

/// What a prune at a leaf would do.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PrunePlan {
    /// The outputs to replace, oldest first.
    pub candidates: Vec<PruneCandidate>,
    /// The estimate of the whole context at the leaf before the prune (the same measure as
    /// [`tokens_saved`](Self::tokens_saved) and [`tokens_after`](Self::tokens_after)).
    pub tokens_before: u64,
    /// Tokens the candidates save together (estimated).
    pub tokens_saved: u64,
    /// The context tokens of the last reply's recorded usage at the leaf, when one can be
    /// trusted (what the trigger counts with pi's rule); shown apart from the estimate,
    /// never compared with it.
    pub recorded_usage: Option<u64>,
    /// The saving a prune needs (`minimumSavings`).
    pub minimum_savings: u64,
    /// The id of the first entry of the protected user turns.
    pub protected_from: Option<String>,
    /// Whether to prune.
    pub decision: PruneDecision,
}

impl PrunePlan {
    /// Estimated context tokens after the prune (never more than before).
    pub fn tokens_after(&self) -> u64 {
        self.tokens_before.saturating_sub(self.tokens_saved)
    }

    /// The record a `compaction.prune` entry stores for this plan.
    pub fn record(&self) -> PruneRecord {
        PruneRecord::Prune {
            entries: self
                .candidates
                .iter()
                .map(|candidate| PrunedItem {
                    id: candidate.id.clone(),
                    placeholder: candidate.placeholder.clone(),
                    tool: candidate.tool.clone(),
                    policy: Some(candidate.policy),
                    reason: Some(candidate.reason.as_str().to_owned()),
                    tokens: candidate.tokens,
                    tokens_after: candidate.tokens_after,
                })
                .collect(),
            tokens_before: self.tokens_before,
            tokens_saved: self.tokens_saved,
            context_edits: true,
        }
    }

    fn finish(mut self) -> PrunePlan {
        self.candidates.sort_by_key(|candidate| candidate.entry);
        self.tokens_saved = self
            .candidates
            .iter()
            .map(|candidate| candidate.tokens.saturating_sub(candidate.tokens_after))
            .sum();
        self.decision = if self.candidates.is_empty() {
            PruneDecision::Nothing
        } else if self.tokens_saved >= self.minimum_savings {
            PruneDecision::Prune
        } else {
            PruneDecision::BelowMinimum
        };
        self
    }
}

/// A tool result of the context with what the planner needs to know about it.
struct Output {
    entry: usize,
    result: ToolResultMessage,
    tool: String,
    arguments: Value,
    tokens: u64,
    protected_turn: bool,
    superseded_by: Option<String>,
}

/// The tool results of the context that are not pruned yet, newest first.
fn outputs(
    session: &Session,
    context: &SessionContext,
    settings: &PruneSettings,
    estimator: &dyn TokenEstimator,
) -> (Vec<Output>, Option<String>) {
    let entries = session.entries();
    // Messages as the context shows them: another writer's `context_edit` is in force.
    let message_items: Vec<ContextItem> = context
        .items
        .iter()
        .filter(|item| item.kind == ContextItemKind::Message)
        .copied()
        .collect();
    let protect_turns = usize::try_from(settings.protect_turns).unwrap_or(usize::MAX);
    let user_positions: Vec<usize> = message_items
        .iter()
        .enumerate()
        .filter(|(_, item)| entries[item.entry].role() == Some("user"))
        .map(|(position, _)| position)
        .collect();
    // With fewer user turns than protected ones, everything is protected.
    let protected_from = if protect_turns == 0 {
        message_items.len()
    } else if user_positions.len() < protect_turns {
        0
    } else {
        user_positions[user_positions.len() - protect_turns]
    };
    let protected_id = message_items.get(protected_from).map(|item| entries[item.entry].id.clone());
    // The calls by id, and the last entry that used each path (read, edit or write).
    let mut calls: HashMap<String, (String, Value)> = HashMap::new();
    let mut path_uses: HashMap<String, Vec<usize>> = HashMap::new();
    for (position, &item) in message_items.iter().enumerate() {
        if entries[item.entry].role() != Some("assistant") {
            continue;
        }
        let AgentMessage::Assistant(assistant) = context.message(session, item) else { continue };
        for call in assistant.tool_calls() {
            if matches!(call.name.as_str(), "read" | "edit" | "write")
                && let Some(path) = call.arguments.get("path").and_then(Value::as_str)
            {
                path_uses.entry(path.to_owned()).or_default().push(position);
            }
            calls.insert(call.id.clone(), (call.name.clone(), call.arguments.clone()));
        }
    }
    let drop_superseded = settings.policy("read") == ToolPolicy::DropSuperseded;
    let mut outputs = Vec::new();
    for (position, &item) in message_items.iter().enumerate().rev() {
        let index = item.entry;
        if entries[index].role() != Some("toolResult") || context.pruned.get(index).is_some() {
            continue;
        }
        // The placeholder describes what the context shows: a replacement another writer
        // put in force, not the original output.
        let AgentMessage::ToolResult(result) = context.message(session, item) else { continue };
        let (tool, arguments) = calls
            .get(&result.tool_call_id)
            .cloned()
            .unwrap_or_else(|| (result.tool_name.clone(), Value::Null));
        let superseded_by = match arguments.get("path").and_then(Value::as_str) {
            Some(path) if drop_superseded && tool == "read" => path_uses
                .get(path)
                .and_then(|uses| uses.last())
                .filter(|&&last| last > position)
                .map(|&last| entries[message_items[last].entry].id.clone()),
            Some(_) | None => None,
        };
        let tokens = estimator.message_tokens(&AgentMessage::ToolResult(result.clone()));
        outputs.push(Output {
            entry: index,
            tool,
            arguments,
            tokens,
            protected_turn: position >= protected_from,
            superseded_by,
            result,
        });
    }
    (outputs, protected_id)
}

fn is_disposable(output: &Output, settings: &PruneSettings) -> bool {
    settings.is_disposable_tool(&output.tool)
        || output
            .result
            .extra
            .get("details")
            .and_then(|details| details.get("disposable"))
            .and_then(Value::as_bool)
            .unwrap_or(false)
}

fn candidate(
    session: &Session,
    output: &Output,
    reason: PruneReason,
    policy: ToolPolicy,
    settings: &PruneSettings,
    estimator: &dyn TokenEstimator,
) -> Option<PruneCandidate> {
    let id = &session.entries()[output.entry].id;
    let text = output.result.content.joined_text();
    let described = placeholder::PrunedOutput {
        tool: &output.tool,
        arguments: &output.arguments,
        tokens: output.tokens,
        id,
    };
    let (placeholder, policy) = match (&reason, policy) {
        (PruneReason::Superseded { by }, _) => {
            (placeholder::superseded(&described, by), ToolPolicy::DropSuperseded)
        }
        (PruneReason::Old, ToolPolicy::HeadTail) => {
            let exit = output
                .result
                .extra
                .get("details")
                .and_then(|details| details.get("exitCode"))
                .and_then(Value::as_i64)
                .map(|code| format!("exit code {code}"));
            let status = match exit {
                Some(exit) => Some(exit),
                None if output.result.is_error => Some("the tool reported an error".to_owned()),
                None => None,
            };
            let head = usize::try_from(settings.head_lines).unwrap_or(usize::MAX);
            let tail = usize::try_from(settings.tail_lines).unwrap_or(usize::MAX);
            let text = placeholder::head_tail(&described, &text, (head, tail), status.as_deref())?;
            (text, ToolPolicy::HeadTail)
        }
        (
            PruneReason::Old | PruneReason::Disposable | PruneReason::Extension,
            ToolPolicy::Elide
            | ToolPolicy::DropSuperseded
            | ToolPolicy::HeadTail
            | ToolPolicy::Protect,
        ) => (placeholder::elide(&described, &text), ToolPolicy::Elide),
    };
    let mut replaced = output.result.clone();
    replaced.content = crate::message::Content::Blocks(vec![crate::message::ContentBlock::text(
        placeholder.clone(),
    )]);
    let tokens_after = estimator.message_tokens(&AgentMessage::ToolResult(replaced));
    if tokens_after >= output.tokens {
        return None;
    }
    Some(PruneCandidate {
        entry: output.entry,
        id: id.clone(),
        tool: output.tool.clone(),
        arguments: output.arguments.clone(),
        policy,
        reason,
        tokens: output.tokens,
        tokens_after,
        placeholder,
    })
}

/// Plans a prune of `context` (the context at the leaf) under `settings`.
pub fn plan_prune(
    session: &Session,
    context: &SessionContext,
    settings: &PruneSettings,
    estimator: &dyn TokenEstimator,
) -> PrunePlan {
    let (outputs, protected_from) = outputs(session, context, settings, estimator);
    let recorded = context_tokens(session, context, estimator);
    let mut plan = PrunePlan {
        candidates: Vec::new(),
        tokens_before: estimate_context_tokens(session, context, estimator),
        tokens_saved: 0,
        recorded_usage: recorded.usage_entry_id.is_some().then_some(recorded.usage_tokens),
        minimum_savings: settings.minimum_savings,
        protected_from,
        decision: PruneDecision::Nothing,
    };
    let mut recent = 0u64;
    for output in &outputs {
        if output.protected_turn {
            recent = recent.saturating_add(output.tokens);
            continue;
        }
        let policy = settings.policy(&output.tool);
        if policy == ToolPolicy::Protect {
            continue;
        }
        let reason = if is_disposable(output, settings) {
            PruneReason::Disposable
        } else if let Some(by) = &output.superseded_by {
            PruneReason::Superseded { by: by.clone() }
        } else if recent < settings.protect_recent_tokens {
            recent = recent.saturating_add(output.tokens);
            continue;
        } else {
            PruneReason::Old
        };
        if let Some(candidate) = candidate(session, output, reason, policy, settings, estimator) {
            plan.candidates.push(candidate);
        }
    }
    plan.finish()
}

/// Replans with exactly the outputs `ids` names (an extension's choice): candidates of the
/// plan keep their placeholders, other unpruned outputs outside the protected turns and
/// not protected by their tool's policy are elided, and anything else is ignored. The
/// minimum saving no longer applies.
pub fn plan_prune_of(
    session: &Session,
    context: &SessionContext,
    settings: &PruneSettings,
    estimator: &dyn TokenEstimator,
    ids: &[String],
) -> PrunePlan {
    let planned = plan_prune(session, context, settings, estimator);
    let (outputs, _) = outputs(session, context, settings, estimator);
    let mut plan = PrunePlan { candidates: Vec::new(), minimum_savings: 0, ..planned.clone() };
    for id in ids {
        if plan.candidates.iter().any(|candidate| &candidate.id == id) {
            continue;
        }
        if let Some(candidate) = planned.candidates.iter().find(|candidate| &candidate.id == id) {
            plan.candidates.push(candidate.clone());
            continue;
        }
        let Some(output) = outputs.iter().find(|output| &session.entries()[output.entry].id == id)
        else {
            continue;
        };
        if output.protected_turn || settings.policy(&output.tool) == ToolPolicy::Protect {
            continue;
        }
        if let Some(candidate) = candidate(
            session,
            output,
            PruneReason::Extension,
            ToolPolicy::Elide,
            settings,
            estimator,
        ) {
            plan.candidates.push(candidate);
        }
    }
    plan.finish()
}
