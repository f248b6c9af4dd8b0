//! Protocol version 1 between the registry and process extensions, as JSON values.
//!
//! The child reads one event object on stdin and prints one decision object on stdout
//! (empty output means continue). `docs/extension-protocol.schema.json` is the schema of
//! both; `docs/extensions.md` explains them. Field names are camelCase like pi's.
//!
//! Invariant: every event carries `"protocol": 1` and its `event` name; a decision that
//! names another protocol version is rejected rather than guessed at.

use compaction_core::Session;
use serde::Deserialize;
use serde_json::{Value, json};

use super::{
    AfterBranchSummaryEvent, AfterCompactEvent, BeforeBranchSummaryEvent, BeforeCompactEvent,
    BeforePruneEvent, Decision, EventName, PruneChoice, Replacement,
};

/// The protocol version this crate speaks.
pub const PROTOCOL_VERSION: u64 = 1;

/// The `before_compact` event.
pub fn before_compact_event(event: &BeforeCompactEvent<'_>) -> Value {
    let preparation = event.preparation;
    json!({
        "protocol": PROTOCOL_VERSION,
        "event": EventName::BeforeCompact.as_str(),
        "session": session_info(event.session),
        "preparation": {
            "firstKeptEntryId": preparation.first_kept_entry_id,
            "messagesToSummarize": preparation.messages_to_summarize,
            "summarizedEntryIds": event.summarized_entry_ids(),
            "turnPrefixMessages": preparation.turn_prefix_messages,
            "turnPrefixEntryIds": event.turn_prefix_entry_ids(),
            "isSplitTurn": preparation.cut.is_split_turn,
            "tokensBefore": preparation.tokens_before,
            "keptTokens": preparation.kept_tokens,
            "previousSummary": preparation.previous_summary,
            "readFiles": preparation.read_files(),
            "modifiedFiles": preparation.modified_files(),
            "settings": event.settings,
        },
        "branchEntries": event.branch_entries().map(entry_value).collect::<Vec<_>>(),
        "customInstructions": event.custom_instructions,
        "reason": event.reason.as_str(),
    })
}

/// The `after_compact` event.
pub fn after_compact_event(event: &AfterCompactEvent<'_>) -> Value {
    json!({
        "protocol": PROTOCOL_VERSION,
        "event": EventName::AfterCompact.as_str(),
        "entry": event.entry,
        "fromExtension": event.from_extension,
        "decidedBy": event.decided_by,
        "reason": event.reason.as_str(),
        "settings": event.settings,
    })
}

/// The `before_branch_summary` event.
pub fn before_branch_summary_event(event: &BeforeBranchSummaryEvent<'_>) -> Value {
    json!({
        "protocol": PROTOCOL_VERSION,
        "event": EventName::BeforeBranchSummary.as_str(),
        "session": session_info(event.session),
        "preparation": {
            "oldLeafId": event.old_leaf_id,
            "targetId": event.target_id,
            "commonAncestorId": event.common_ancestor_id,
            "messagesToSummarize": event.messages,
            "summarizedEntryIds": event.message_entry_ids,
            "readFiles": event.read_files,
            "modifiedFiles": event.modified_files,
            "settings": event.settings,
        },
        "branchEntries": event.branch_entries().map(entry_value).collect::<Vec<_>>(),
        "customInstructions": event.custom_instructions,
    })
}

/// The `after_branch_summary` event.
pub fn after_branch_summary_event(event: &AfterBranchSummaryEvent<'_>) -> Value {
    json!({
        "protocol": PROTOCOL_VERSION,
        "event": EventName::AfterBranchSummary.as_str(),
        "entry": event.entry,
        "fromExtension": event.from_extension,
        "decidedBy": event.decided_by,
                "settings": event.settings,
    })
}

/// The `before_prune` event.
pub fn before_prune_event(event: &BeforePruneEvent<'_>) -> Value {
    let plan = event.plan;
    json!({
        "protocol": PROTOCOL_VERSION,
        "event": EventName::BeforePrune.as_str(),
        "session": session_info(event.session),
        "prune": {
            "candidates": plan.candidates,
            "tokensBefore": plan.tokens_before,
            "tokensSaved": plan.tokens_saved,
            "minimumSavings": plan.minimum_savings,
            "protectedFrom": plan.protected_from,
            "settings": event.settings,
        },
        "reason": event.reason.as_str(),
    })
}

fn session_info(session: &Session) -> Value {
    let header = session.header();
    json!({
        "id": header.and_then(|h| h.id.clone()),
        "cwd": header.and_then(|h| h.cwd.clone()),
    })
}

fn entry_value(entry: &compaction_core::Entry) -> Value {
    // An entry's raw line parsed once already, so this only fails on memory exhaustion;
    // the id alone still tells the extension where it is.
    entry.to_value().unwrap_or_else(|_| json!({ "id": entry.id, "type": entry.kind.type_name() }))
}

/// Why a child's output is not a decision.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum DecisionError {
    /// Not one JSON value.
    #[error("not JSON: {0}")]
    NotJson(String),
    /// JSON, but not an object.
    #[error("a decision must be a JSON object")]
    NotAnObject,
    /// The decision names a protocol version other than 1.
    #[error("unsupported protocol version {0}")]
    UnsupportedProtocol(String),
    /// The object does not match any decision (unknown action, missing or mistyped field).
    #[error("{0}")]
    Shape(String),
}

#[allow(clippy::large_enum_variant)]
#[derive(Deserialize)]
#[serde(tag = "action", rename_all = "snake_case")]
enum WireDecision {
    Continue {
        #[serde(default)]
        instructions: Option<String>,
    },
    Cancel {
        #[serde(default)]
        reason: Option<String>,
    },
    #[serde(rename_all = "camelCase")]
    Replace {
        summary: String,
        #[serde(default)]
        first_kept_entry_id: Option<String>,
        #[serde(default)]
        kept_message_ids: Option<Vec<String>>,
        /// Any JSON: read by [`compaction_core::message::count_of`], so an odd number never
        /// makes the whole decision unreadable; what is no positive count is not given.
        #[serde(default)]
        tokens_before: Option<Value>,
        #[serde(default)]
        details: Option<Value>,
        #[serde(default)]
        usage: Option<Value>,
    },
}

#[derive(Deserialize)]
#[serde(tag = "action", rename_all = "snake_case")]
enum WirePruneDecision {
    Continue {},
    Cancel {
        #[serde(default)]
        reason: Option<String>,
    },
    #[serde(rename_all = "camelCase")]
    Prune {
        entry_ids: Vec<String>,
    },
}

/// Parses what a child printed for `before_prune`: `continue`, `cancel` (with an optional
/// `reason`) or `prune` with `entryIds`. Empty output is `continue`.
pub fn parse_prune_decision(output: &str) -> Result<PruneChoice, DecisionError> {
    if output.trim().is_empty() {
        return Ok(PruneChoice::Continue);
    }
    let value: Value = compaction_core::entry::from_json_text(output)
        .map_err(|error| DecisionError::NotJson(error.to_string()))?;
    let Some(object) = value.as_object() else { return Err(DecisionError::NotAnObject) };
    if let Some(protocol) = object.get("protocol")
        && !is_protocol_version(protocol)
    {
        return Err(DecisionError::UnsupportedProtocol(protocol.to_string()));
    }
    let wire: WirePruneDecision =
        serde_json::from_value(value).map_err(|error| DecisionError::Shape(error.to_string()))?;
    Ok(match wire {
        WirePruneDecision::Continue {} => PruneChoice::Continue,
        WirePruneDecision::Cancel { reason } => {
            PruneChoice::Cancel { reason: reason.unwrap_or_else(|| "no reason given".to_owned()) }
        }
        WirePruneDecision::Prune { entry_ids } => PruneChoice::Prune { entry_ids },
    })
}

/// Whether a decision's `protocol` is this version: a number equal to it however spelled
/// (`1`, `1.0` as Python writes it, `1e0`), as `JSON.parse` reads it; a string is not.
#[allow(clippy::cast_precision_loss, clippy::float_cmp)]
fn is_protocol_version(protocol: &Value) -> bool {
    let version = PROTOCOL_VERSION as f64;
    protocol.as_u64() == Some(PROTOCOL_VERSION) || protocol.as_f64() == Some(version)
}

/// A count an extension gave: a whole number as it is, another number by
/// [`compaction_core::message::count_of`] (past `u64` saturates, a fraction is cut); a
/// negative number, a string or `null` gives none (the engine counts for itself).
fn given_count(value: &Value) -> Option<u64> {
    let Value::Number(number) = value else { return None };
    number.as_u64().or_else(|| Some(compaction_core::message::count_of(value)).filter(|&c| c > 0))
}

/// Parses what a child printed. Empty (or whitespace-only) output is `Continue`; unknown
/// fields are ignored so later protocol additions do not break older extensions.
pub fn parse_decision(output: &str) -> Result<Decision, DecisionError> {
    if output.trim().is_empty() {
        return Ok(Decision::carry_on());
    }
    let value: Value = compaction_core::entry::from_json_text(output)
        .map_err(|error| DecisionError::NotJson(error.to_string()))?;
    let Some(object) = value.as_object() else { return Err(DecisionError::NotAnObject) };
    if let Some(protocol) = object.get("protocol")
        && !is_protocol_version(protocol)
    {
        return Err(DecisionError::UnsupportedProtocol(protocol.to_string()));
    }
    let wire: WireDecision =
        serde_json::from_value(value).map_err(|error| DecisionError::Shape(error.to_string()))?;
    Ok(match wire {
        WireDecision::Continue { instructions } => Decision::Continue { instructions },
        WireDecision::Cancel { reason } => {
            Decision::Cancel { reason: reason.unwrap_or_else(|| "no reason given".to_owned()) }
        }
        WireDecision::Replace {
            summary,
            first_kept_entry_id,
            kept_message_ids,
            tokens_before,
            details,
            usage,
        } => Decision::Replace(Replacement {
            summary,
            first_kept_entry_id,
            tokens_before: tokens_before.as_ref().and_then(given_count),
            details,
            usage,
            kept_message_ids,
        }),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decisions_parse() {
        assert_eq!(parse_decision("  \n").unwrap(), Decision::carry_on());
        assert_eq!(
            parse_decision(r#"{"action":"continue","instructions":"focus on tests"}"#).unwrap(),
            Decision::Continue { instructions: Some("focus on tests".into()) }
        );
        assert_eq!(
            parse_decision(r#"{"action":"cancel"}"#).unwrap(),
            Decision::Cancel { reason: "no reason given".into() }
        );
        let replace = parse_decision(
            r#"{"protocol":1,"action":"replace","summary":"s","keptMessageIds":["a"],"details":{"n":1},"later":true}"#,
        )
        .unwrap();
        assert_eq!(
            replace,
            Decision::Replace(Replacement {
                summary: "s".into(),
                kept_message_ids: Some(vec!["a".into()]),
                details: Some(json!({"n":1})),
                ..Replacement::default()
            })
        );
    }

    #[test]
    fn prune_decisions_parse() {
        assert_eq!(parse_prune_decision("").unwrap(), PruneChoice::Continue);
        assert_eq!(
            parse_prune_decision(r#"{"action":"continue"}"#).unwrap(),
            PruneChoice::Continue
        );
        assert_eq!(
            parse_prune_decision(r#"{"action":"cancel","reason":"cache is warm"}"#).unwrap(),
            PruneChoice::Cancel { reason: "cache is warm".into() }
        );
        assert_eq!(
            parse_prune_decision(r#"{"protocol":1,"action":"prune","entryIds":["a","b"]}"#)
                .unwrap(),
            PruneChoice::Prune { entry_ids: vec!["a".into(), "b".into()] }
        );
        assert!(matches!(
            parse_prune_decision(r#"{"action":"replace","summary":"s"}"#),
            Err(DecisionError::Shape(_))
        ));
        assert!(matches!(
            parse_prune_decision(r#"{"action":"prune"}"#),
            Err(DecisionError::Shape(_))
        ));
    }

    #[test]
    fn bad_decisions_are_errors() {
        assert!(matches!(parse_decision("hello"), Err(DecisionError::NotJson(_))));
        assert!(matches!(parse_decision("[1]"), Err(DecisionError::NotAnObject)));
        assert!(matches!(parse_decision(r#"{"action":"explode"}"#), Err(DecisionError::Shape(_))));
        assert!(matches!(parse_decision(r#"{"action":"replace"}"#), Err(DecisionError::Shape(_))));
        assert!(matches!(
            parse_decision(r#"{"protocol":2,"action":"continue"}"#),
            Err(DecisionError::UnsupportedProtocol(_))
        ));
        assert!(matches!(
            parse_decision(r#"{"action":"continue"} {"action":"cancel"}"#),
            Err(DecisionError::NotJson(_))
        ));
    }
}
