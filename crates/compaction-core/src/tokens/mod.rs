//! Token accounting: estimators behind one trait, and the context size pi's rules give.
//!
//! Estimators are chosen by name ([`estimator_by_name`]): `heuristic` (the default, fast and
//! script-aware), `pi` (pi 0.73.1's chars/4, exact, for comparing with pi), and with the
//! `exact-tokenizers` feature `o200k` and `cl100k` (exact BPE counts, vocabularies built
//! into the binary). [`context_tokens`] combines the last trustworthy `usage` an assistant
//! reply reported with estimates of what came after it.
//!
//! Invariant: estimators are pure functions of their input; a usage recorded before the
//! latest compaction on the path never counts towards the context after it.

use serde_json::Value;

use crate::context::SessionContext;
use crate::message::{AgentMessage, Content, ContentBlock, ImageContent, SystemMessage};
use crate::session::Session;

#[cfg(feature = "exact-tokenizers")]
pub mod bpe;
pub mod heuristic;
pub mod image;
pub mod pi;

pub use heuristic::HeuristicEstimator;
pub use pi::PiEstimator;

/// Counts tokens of text and of whole agent messages.
pub trait TokenEstimator: Send + Sync {
    /// The name that selects this estimator (`pi`, `heuristic`, `o200k`, `cl100k`).
    fn name(&self) -> &'static str;

    /// Tokens of a piece of plain text.
    fn text_tokens(&self, text: &str) -> u64;

    /// Tokens one image costs. The default reads the image size from its header when it
    /// can (see [`image::image_tokens`]).
    fn image_tokens(&self, image: &ImageContent) -> u64 {
        image::image_tokens(image)
    }

    /// Tokens of one message as the model receives it. The default adds the tokens of
    /// every text, thinking block, tool call (name + compact JSON arguments) and image;
    /// unknown roles count zero.
    fn message_tokens(&self, message: &AgentMessage) -> u64 {
        message_parts_tokens(self, message)
    }
}

/// The estimator used when settings name none.
pub const DEFAULT_ESTIMATOR: &str = "heuristic";

/// The names [`estimator_by_name`] accepts in this build.
#[cfg(feature = "exact-tokenizers")]
pub const ESTIMATOR_NAMES: &[&str] = &["heuristic", "pi", "o200k", "cl100k"];
/// The names [`estimator_by_name`] accepts in this build.
#[cfg(not(feature = "exact-tokenizers"))]
pub const ESTIMATOR_NAMES: &[&str] = &["heuristic", "pi"];

/// An estimator name this build does not provide.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown token estimator `{name}` (available: {})", ESTIMATOR_NAMES.join(", "))]
pub struct UnknownEstimator {
    /// The name asked for.
    pub name: String,
}

/// The estimator called `name`.
pub fn estimator_by_name(name: &str) -> Result<Box<dyn TokenEstimator>, UnknownEstimator> {
    match name {
        "heuristic" => Ok(Box::new(HeuristicEstimator)),
        "pi" => Ok(Box::new(PiEstimator)),
        #[cfg(feature = "exact-tokenizers")]
        "o200k" => Ok(Box::new(bpe::BpeEstimator::o200k())),
        #[cfg(feature = "exact-tokenizers")]
        "cl100k" => Ok(Box::new(bpe::BpeEstimator::cl100k())),
        other => Err(UnknownEstimator { name: other.to_owned() }),
    }
}

/// The default [`TokenEstimator::message_tokens`]: the sum over the message's parts.
pub fn message_parts_tokens<E: TokenEstimator + ?Sized>(
    estimator: &E,
    message: &AgentMessage,
) -> u64 {
    let content = |content: &Content| match content {
        Content::Text(text) => estimator.text_tokens(text),
        Content::Blocks(blocks) => blocks.iter().map(|block| block_tokens(estimator, block)).sum(),
    };
    match message {
        AgentMessage::User(user) => content(&user.content),
        AgentMessage::Assistant(assistant) => {
            assistant.content.iter().map(|block| block_tokens(estimator, block)).sum()
        }
        AgentMessage::ToolResult(result) => content(&result.content),
        AgentMessage::Custom(custom) => content(&custom.content),
        AgentMessage::BashExecution(bash) => {
            estimator.text_tokens(&bash.command) + estimator.text_tokens(&bash.output)
        }
        AgentMessage::BranchSummary(summary) | AgentMessage::CompactionSummary(summary) => {
            estimator.text_tokens(&summary.summary)
        }
        AgentMessage::System(system) => {
            let sections: u64 = system
                .sections
                .iter()
                .flat_map(|sections| sections.values())
                .filter_map(Value::as_str)
                .map(|text| estimator.text_tokens(text))
                .sum();
            let tools = system.tools_added.as_ref().map_or(0, |tools| {
                estimator.text_tokens(&serde_json::to_string(tools).unwrap_or_default())
            });
            content(&system.content) + sections + tools
        }
        AgentMessage::Other(_) => 0,
    }
}

fn block_tokens<E: TokenEstimator + ?Sized>(estimator: &E, block: &ContentBlock) -> u64 {
    match block {
        ContentBlock::Text(text) => estimator.text_tokens(&text.text),
        ContentBlock::Thinking(thinking) => estimator.text_tokens(&thinking.thinking),
        ContentBlock::ToolCall(call) => {
            let arguments = serde_json::to_string(&call.arguments).unwrap_or_default();
            estimator.text_tokens(&call.name) + estimator.text_tokens(&arguments)
        }
        ContentBlock::Image(image) => estimator.image_tokens(image),
        ContentBlock::Other(_) => 0,
    }
}

/// How big the context at a leaf is, and where the number came from.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ContextTokens {
    /// `usage_tokens + estimated_tokens`.
    pub tokens: u64,
    /// What the last trustworthy assistant usage reported (0 without one).
    pub usage_tokens: u64,
    /// The estimate of every context message after that usage (all of them without one).
    pub estimated_tokens: u64,
    /// The entry id of the assistant message whose usage was taken.
    pub usage_entry_id: Option<String>,
    /// How many context messages were estimated.
    pub estimated_messages: usize,
}

/// Context tokens with pi 1.6's rule (`estimateProjectedContextTokens`).
///
/// The last assistant reply in the context whose usage can be trusted: not `error` or
/// `aborted`, not all zeros, and recorded after the latest compaction, `context_edit` or
/// prune on the path (a usage from before those measured a context that no longer exists).
/// Its usage (`totalTokens`, or the sum of the parts) plus the estimate of every item after
/// it is the result. Without such a reply, the estimate of the whole context, where the
/// system messages count once, as their replay. Only message bodies on the walk are parsed
/// while a usage is found.
pub fn context_tokens(
    session: &Session,
    context: &SessionContext,
    estimator: &dyn TokenEstimator,
) -> ContextTokens {
    let entries = session.entries();
    let barrier = context
        .compaction_position
        .max(context.latest_edit_position)
        .max(context.pruned.latest_position);
    let mut result = ContextTokens::default();
    for &item in context.items.iter().rev() {
        let message = context.message(session, item);
        if let AgentMessage::Assistant(assistant) = &message
            && !assistant.is_failed()
            && let Some(usage) = &assistant.usage
            && usage.context_tokens() > 0
        {
            let trusted = match barrier {
                None => true,
                Some(barrier) => {
                    context.path.iter().rposition(|&index| index == item.entry) > Some(barrier)
                }
            };
            if !trusted {
                break;
            }
            result.usage_tokens = usage.context_tokens();
            result.usage_entry_id = Some(entries[item.entry].id.clone());
            result.tokens = result.usage_tokens.saturating_add(result.estimated_tokens);
            return result;
        }
        result.estimated_tokens += estimator.message_tokens(&message);
        result.estimated_messages += 1;
    }
    let estimated = estimate_projected(session, context, estimator);
    ContextTokens {
        tokens: estimated.0,
        usage_tokens: 0,
        estimated_tokens: estimated.0,
        usage_entry_id: None,
        estimated_messages: estimated.1,
    }
}

/// The estimate of the whole context at a leaf, whatever usage was recorded: the one measure
/// a before/after figure shown to a user takes on both sides (a recorded usage measured a
/// context that a prune or a compaction no longer has, so it cannot be the "before" of an
/// estimated "after"). The system messages count once, as their replay.
pub fn estimate_context_tokens(
    session: &Session,
    context: &SessionContext,
    estimator: &dyn TokenEstimator,
) -> u64 {
    estimate_projected(session, context, estimator).0
}

/// The estimate of the whole context with the system messages replayed into one (pi 1.6
/// counts the prompt and tools once, as the provider receives them); with the count of
/// messages estimated.
fn estimate_projected(
    session: &Session,
    context: &SessionContext,
    estimator: &dyn TokenEstimator,
) -> (u64, usize) {
    let mut systems = Vec::new();
    let mut tokens = 0;
    let mut count = 0;
    for &item in &context.items {
        let message = context.message(session, item);
        if let AgentMessage::System(system) = message {
            systems.push(system);
        } else {
            tokens += estimator.message_tokens(&message);
            count += 1;
        }
    }
    if let Some(system) = SystemMessage::replay(&systems) {
        tokens += estimator.message_tokens(&AgentMessage::System(system));
        count += 1;
    }
    (tokens, count)
}

/// Estimates a whole request a caller assembles itself: system prompt, the JSON schemas of
/// its tools (as compact JSON text) and the messages.
pub fn estimate_request_tokens(
    system_prompt: &str,
    tool_schemas: &[Value],
    messages: &[AgentMessage],
    estimator: &dyn TokenEstimator,
) -> u64 {
    let tools: u64 = tool_schemas
        .iter()
        .map(|schema| estimator.text_tokens(&serde_json::to_string(schema).unwrap_or_default()))
        .sum();
    let messages: u64 = messages.iter().map(|message| estimator.message_tokens(message)).sum();
    estimator.text_tokens(system_prompt) + tools + messages
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::context::build_context;
    use crate::parse_session;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    const HEADER: &str =
        r#"{"type":"session","version":3,"id":"s","timestamp":"2025-01-01T00:00:00Z","cwd":"/"}"#;

    fn session(lines: &[Value]) -> Session {
        let mut text = String::from(HEADER);
        for line in lines {
            text.push('\n');
            text.push_str(&line.to_string());
        }
        parse_session(text.as_bytes())
    }

    fn entry(id: &str, parent: Option<&str>, message: Value) -> Value {
        json!({"type":"message","id":id,"parentId":parent,"timestamp":"2025-01-01T00:00:01Z","message":message})
    }

    fn user(text: &str) -> Value {
        json!({"role":"user","content":text})
    }

    fn assistant(text: &str, total: u64, stop: &str) -> Value {
        json!({"role":"assistant","content":[{"type":"text","text":text}],
            "usage":{"input":total,"output":0,"cacheRead":0,"cacheWrite":0,"totalTokens":total},
            "stopReason":stop})
    }

    fn measure(session: &Session) -> ContextTokens {
        let context = build_context(session, session.leaf());
        context_tokens(session, &context, &PiEstimator)
    }

    #[test]
    fn without_usage_sums_estimates() {
        let s = session(&[entry("a", None, user("12345678")), entry("b", Some("a"), user("1234"))]);
        let tokens = measure(&s);
        assert_eq!(tokens.tokens, 3);
        assert_eq!(tokens.usage_tokens, 0);
        assert_eq!(tokens.estimated_messages, 2);
        assert_eq!(tokens.usage_entry_id, None);
    }

    #[test]
    fn last_usage_plus_later_estimates() {
        let s = session(&[
            entry("a", None, user("12345678")),
            entry("b", Some("a"), assistant("x", 500, "stop")),
            entry("c", Some("b"), user("1234")),
            entry("d", Some("c"), assistant("y", 900, "stop")),
            entry("e", Some("d"), user("12345678")),
        ]);
        assert_eq!(
            measure(&s),
            ContextTokens {
                tokens: 902,
                usage_tokens: 900,
                estimated_tokens: 2,
                usage_entry_id: Some("d".into()),
                estimated_messages: 1,
            }
        );
    }

    #[test]
    fn error_and_aborted_replies_are_skipped() {
        let s = session(&[
            entry("a", None, user("1234")),
            entry("b", Some("a"), assistant("x", 500, "stop")),
            entry("c", Some("b"), user("1234")),
            entry("d", Some("c"), assistant("12345678", 900, "error")),
            entry("e", Some("d"), assistant("1234", 800, "aborted")),
        ]);
        let tokens = measure(&s);
        assert_eq!(tokens.usage_entry_id.as_deref(), Some("b"));
        assert_eq!(tokens.tokens, 500 + 1 + 2 + 1);
    }

    #[test]
    fn usage_before_the_latest_compaction_is_ignored() {
        let s = session(&[
            entry("a", None, user("1234")),
            entry("b", Some("a"), assistant("x", 150_000, "stop")),
            entry("c", Some("b"), user("12345678")),
            json!({"type":"compaction","id":"k","parentId":"c","timestamp":"2025-01-01T00:00:02Z",
                "summary":"1234567890123456","firstKeptEntryId":"b","tokensBefore":150_002}),
            entry("d", Some("k"), user("1234")),
        ]);
        let tokens = measure(&s);
        // Summary 4 + kept "x" 1 + "12345678" 2 + "1234" 1; the kept reply's usage is stale.
        assert_eq!(tokens.usage_tokens, 0);
        assert_eq!(tokens.tokens, 8);
        assert_eq!(tokens.estimated_messages, 4);

        // A reply after the compaction is trusted again.
        let mut lines = vec![
            entry("a", None, user("1234")),
            entry("b", Some("a"), assistant("x", 150_000, "stop")),
            json!({"type":"compaction","id":"k","parentId":"b","timestamp":"2025-01-01T00:00:02Z",
                "summary":"s","firstKeptEntryId":"b","tokensBefore":1}),
        ];
        lines.push(entry("d", Some("k"), assistant("y", 3_000, "stop")));
        lines.push(entry("e", Some("d"), user("1234")));
        let tokens = measure(&session(&lines));
        assert_eq!(tokens.usage_entry_id.as_deref(), Some("d"));
        assert_eq!(tokens.tokens, 3_001);
    }

    #[test]
    fn request_estimate_adds_system_prompt_and_tools() {
        let tools = [json!({"name":"read","parameters":{"type":"object"}})];
        let messages = [AgentMessage::user_text("12345678")];
        // System 16 chars → 4; tool JSON 46 chars → 12; message → 2.
        let tool_text = serde_json::to_string(&tools[0]).unwrap();
        assert_eq!(tool_text.len(), 46);
        assert_eq!(
            estimate_request_tokens("You are helpful.", &tools, &messages, &PiEstimator),
            4 + 12 + 2
        );
    }

    #[test]
    fn estimators_are_selected_by_name() {
        for name in ESTIMATOR_NAMES {
            assert_eq!(estimator_by_name(name).unwrap().name(), *name);
        }
        let error = estimator_by_name("gpt2").err().unwrap();
        assert_eq!(error.name, "gpt2");
        assert!(error.to_string().contains("heuristic"));
    }
}
