//! Whether the context is big enough to compact, and which rules say so.
//!
//! Three rules, each reported separately: pi's reserve rule (context > window −
//! `reserveTokens`), the ratio rule (context / window ≥ `threshold`), and the opt-in
//! message-count rule (messages ≥ `maxMessages`). Any rule firing fires the trigger.
//!
//! Invariant: with `enabled: false` the trigger never fires and reports no reason.

use std::fmt;

use serde::Serialize;

use crate::settings::CompactionSettings;

/// A rule that fired.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(rename_all = "camelCase", tag = "rule")]
pub enum TriggerReason {
    /// pi's rule: the context leaves less than `reserveTokens` of the window.
    Reserve {
        /// The context's tokens.
        tokens: u64,
        /// The window minus `reserveTokens`.
        limit: u64,
    },
    /// The context fills at least `threshold` of the window.
    Ratio {
        /// The context's share of the window.
        ratio: f64,
        /// The configured `threshold`.
        threshold: f64,
    },
    /// The context holds at least `maxMessages` messages.
    MessageCount {
        /// Messages in the context.
        messages: u64,
        /// The configured `maxMessages`.
        max: u64,
    },
}

impl fmt::Display for TriggerReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TriggerReason::Reserve { tokens, limit } => {
                write!(f, "reserve: {tokens} tokens > {limit} (window - reserveTokens)")
            }
            TriggerReason::Ratio { ratio, threshold } => write!(
                f,
                "ratio: {:.1}% of window >= threshold {:.1}%",
                ratio * 100.0,
                threshold * 100.0
            ),
            TriggerReason::MessageCount { messages, max } => {
                write!(f, "messages: {messages} >= maxMessages {max}")
            }
        }
    }
}

/// The trigger's verdict.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct TriggerDecision {
    /// Whether compaction is due.
    pub fire: bool,
    /// Every rule that fired.
    pub reasons: Vec<TriggerReason>,
}

/// Decides whether to compact a context of `context_tokens` tokens and `messages` messages
/// in a window of `window` tokens.
pub fn should_compact(
    context_tokens: u64,
    messages: u64,
    window: u64,
    settings: &CompactionSettings,
) -> TriggerDecision {
    let mut reasons = Vec::new();
    if !settings.enabled {
        return TriggerDecision { fire: false, reasons };
    }
    let limit = window.saturating_sub(settings.reserve_tokens);
    if context_tokens > limit {
        reasons.push(TriggerReason::Reserve { tokens: context_tokens, limit });
    }
    if window > 0 {
        let ratio = context_tokens as f64 / window as f64;
        if ratio >= settings.threshold {
            reasons.push(TriggerReason::Ratio { ratio, threshold: settings.threshold });
        }
    }
    if let Some(max) = settings.max_messages
        && messages >= max
    {
        reasons.push(TriggerReason::MessageCount { messages, max });
    }
    TriggerDecision { fire: !reasons.is_empty(), reasons }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn small_context_does_not_fire() {
        let decision = should_compact(10_000, 10, 128_000, &CompactionSettings::default());
        assert_eq!(decision, TriggerDecision::default());
    }

    #[test]
    fn ratio_fires_before_reserve() {
        // 96 000 / 128 000 = 0.75 ≥ 0.75, and 96 000 ≤ 111 616.
        let decision = should_compact(96_000, 10, 128_000, &CompactionSettings::default());
        assert!(decision.fire);
        assert_eq!(decision.reasons, vec![TriggerReason::Ratio { ratio: 0.75, threshold: 0.75 }]);
        assert!(!should_compact(95_999, 10, 128_000, &CompactionSettings::default()).fire);
    }

    #[test]
    fn reserve_rule_is_strictly_greater() {
        let settings = CompactionSettings { threshold: 1.0, ..CompactionSettings::default() };
        assert!(!should_compact(111_616, 1, 128_000, &settings).fire);
        assert_eq!(
            should_compact(111_617, 1, 128_000, &settings).reasons,
            vec![TriggerReason::Reserve { tokens: 111_617, limit: 111_616 }]
        );
    }

    #[test]
    fn message_count_is_opt_in() {
        let settings = CompactionSettings::default();
        assert!(!should_compact(100, 500, 128_000, &settings).fire);
        let settings = CompactionSettings { max_messages: Some(20), ..settings };
        let decision = should_compact(100, 20, 128_000, &settings);
        assert_eq!(decision.reasons, vec![TriggerReason::MessageCount { messages: 20, max: 20 }]);
        assert_eq!(decision.reasons[0].to_string(), "messages: 20 >= maxMessages 20");
    }

    #[test]
    fn all_reasons_are_reported_and_disabled_never_fires() {
        let settings =
            CompactionSettings { max_messages: Some(5), ..CompactionSettings::default() };
        assert_eq!(should_compact(127_000, 9, 128_000, &settings).reasons.len(), 3);
        let settings = CompactionSettings { enabled: false, ..settings };
        assert_eq!(should_compact(127_000, 9, 128_000, &settings), TriggerDecision::default());
    }
}
