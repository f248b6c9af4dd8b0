//! Where to cut a session path: what is summarized and what stays verbatim.
//!
//! pi 0.73.1's rule: walk back from the newest entry adding the estimate of every `message`
//! entry; once the sum reaches `keepRecentTokens`, cut at the first valid cut point at or
//! after that entry, then move the cut back over directly preceding entries that are neither
//! messages nor compactions (settings changes, labels, …). A cut that is not on a user
//! message splits a turn: the turn's start up to the cut is summarized separately.
//!
//! On top of that we guarantee `minTurnsToKeep` complete user turns stay verbatim while they
//! fit, and we never fall back to keeping everything when the budget is reached inside a
//! run of trailing tool results (pi's fallback to the first cut point summarizes nothing).
//!
//! Invariant: the first kept entry is a valid cut point or a non-message entry directly in
//! front of one, so the kept part never starts with a tool result and a tool result is never
//! separated from the assistant message holding its call.

use crate::entry::EntryKind;
use crate::message::AgentMessage;
use crate::session::Session;

/// Whether an entry may be the first entry kept verbatim.
pub fn is_valid_cut_point(session: &Session, index: usize) -> bool {
    let entry = &session.entries()[index];
    match &entry.kind {
        EntryKind::Message { role } => matches!(
            role.as_ref(),
            "user"
                | "assistant"
                | "bashExecution"
                | "custom"
                | "branchSummary"
                | "compactionSummary"
        ),
        EntryKind::BranchSummary(_) | EntryKind::CustomMessage { .. } => true,
        EntryKind::ThinkingLevelChange { .. }
        | EntryKind::ModelChange { .. }
        | EntryKind::Compaction(_)
        | EntryKind::Custom { .. }
        | EntryKind::Label { .. }
        | EntryKind::SessionInfo { .. }
        | EntryKind::Unknown { .. } => false,
    }
}

/// Whether an entry starts a turn (a user message, a shell command the user ran, a branch
/// summary or an extension's message).
pub fn is_turn_start(session: &Session, index: usize) -> bool {
    let entry = &session.entries()[index];
    match &entry.kind {
        EntryKind::Message { role } => role == "user" || role == "bashExecution",
        EntryKind::BranchSummary(_) | EntryKind::CustomMessage { .. } => true,
        EntryKind::ThinkingLevelChange { .. }
        | EntryKind::ModelChange { .. }
        | EntryKind::Compaction(_)
        | EntryKind::Custom { .. }
        | EntryKind::Label { .. }
        | EntryKind::SessionInfo { .. }
        | EntryKind::Unknown { .. } => false,
    }
}

fn is_user_message(session: &Session, index: usize) -> bool {
    session.entries()[index].role() == Some("user")
}

/// What the cut keeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CutPoint {
    /// Index into the path of the first entry kept verbatim.
    pub first_kept: usize,
    /// Index into the path of the start of the split turn, when the cut splits one.
    pub turn_start: Option<usize>,
    /// Whether the cut falls inside a turn (pi's `isSplitTurn`).
    pub is_split_turn: bool,
    /// Whether the `minTurnsToKeep` guarantee moved the cut earlier than pi's rule.
    pub moved_for_min_turns: bool,
}

/// Limits for finding a cut.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CutOptions {
    /// Recent tokens to keep verbatim.
    pub keep_recent_tokens: u64,
    /// Complete user turns to keep verbatim when the region has more than this many.
    pub min_turns_to_keep: usize,
    /// The most the kept part may hold for the `min_turns_to_keep` guarantee to apply
    /// (window − reserve − max summary tokens).
    pub max_kept_tokens: u64,
}

/// Finds the cut in `path[start..end]` (indices into `path`).
///
/// `message_tokens` returns the estimate for the `message` entry at a path position; it is
/// called at most once per position, newest first, and only as far back as the walk goes.
pub fn find_cut_point(
    session: &Session,
    path: &[usize],
    start: usize,
    end: usize,
    options: CutOptions,
    message_tokens: &mut dyn FnMut(usize) -> u64,
) -> CutPoint {
    let cut_points: Vec<usize> =
        (start..end).filter(|&position| is_valid_cut_point(session, path[position])).collect();
    let Some(&first_cut_point) = cut_points.first() else {
        return CutPoint {
            first_kept: start,
            turn_start: None,
            is_split_turn: false,
            moved_for_min_turns: false,
        };
    };
    // Token totals from each position to the end, for the entries the walk visits.
    let mut kept_tokens = vec![0u64; end.saturating_sub(start) + 1];
    let mut accumulated = 0u64;
    let mut cut = first_cut_point;
    let mut walked_to = end;
    for position in (start..end).rev() {
        walked_to = position;
        if session.entries()[path[position]].is_message() {
            accumulated += message_tokens(position);
        }
        kept_tokens[position - start] = accumulated;
        if accumulated >= options.keep_recent_tokens {
            cut = match cut_points.iter().find(|&&point| point >= position) {
                Some(&point) => point,
                // The budget ran out inside trailing tool results: keep the whole turn
                // rather than everything (pi falls back to the first cut point here).
                None => cut_points
                    .iter()
                    .rev()
                    .find(|&&point| point < position)
                    .copied()
                    .unwrap_or(first_cut_point),
            };
            break;
        }
    }
    let mut point = walk_back(session, path, start, cut);
    point.first_kept = point.first_kept.max(start);

    // The min-turns guarantee: move the cut earlier to the start of the N-th newest user
    // turn, when the region has more turns than that and the kept part still fits.
    if options.min_turns_to_keep > 0 {
        let user_turns: Vec<usize> =
            (start..end).filter(|&position| is_user_message(session, path[position])).collect();
        if user_turns.len() > options.min_turns_to_keep {
            let wanted = user_turns[user_turns.len() - options.min_turns_to_keep];
            if wanted < point.first_kept {
                // Finish the token walk down to `wanted` to know what keeping it costs.
                for position in (wanted..walked_to).rev() {
                    if session.entries()[path[position]].is_message() {
                        accumulated += message_tokens(position);
                    }
                    kept_tokens[position - start] = accumulated;
                }
                if kept_tokens[wanted - start] <= options.max_kept_tokens {
                    let mut moved = walk_back(session, path, start, wanted);
                    moved.turn_start = None;
                    moved.is_split_turn = false;
                    moved.moved_for_min_turns = true;
                    point = moved;
                }
            }
        }
    }
    point
}

/// Moves a cut back over directly preceding entries that are neither messages nor
/// compactions, then finds the turn start when the cut is not on a user message.
fn walk_back(session: &Session, path: &[usize], start: usize, mut cut: usize) -> CutPoint {
    while cut > start {
        let previous = &session.entries()[path[cut - 1]];
        if previous.is_message() || matches!(previous.kind, EntryKind::Compaction(_)) {
            break;
        }
        cut -= 1;
    }
    let turn_start = if is_user_message(session, path[cut]) {
        None
    } else {
        (start..=cut).rev().find(|&position| is_turn_start(session, path[position]))
    };
    CutPoint {
        first_kept: cut,
        turn_start,
        is_split_turn: turn_start.is_some(),
        moved_for_min_turns: false,
    }
}

/// Whether a message is one the cut must never separate from the previous entry.
pub fn is_tool_result(message: &AgentMessage) -> bool {
    matches!(message, AgentMessage::ToolResult(_))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::parse_session;
    use serde_json::{Value, json};

    fn session(messages: &[Value]) -> Session {
        let mut text =
            json!({"type":"session","version":3,"id":"s","timestamp":"t","cwd":"/"}).to_string();
        text.push('\n');
        let mut parent = Value::Null;
        for (number, message) in messages.iter().enumerate() {
            let id = format!("{:08x}", number + 1);
            let line = if message.get("type").is_some() {
                let mut entry = message.clone();
                entry["id"] = json!(id);
                entry["parentId"] = parent.clone();
                entry["timestamp"] = json!("t");
                entry
            } else {
                json!({"type":"message","id":id,"parentId":parent,"timestamp":"t","message":message})
            };
            text.push_str(&line.to_string());
            text.push('\n');
            parent = json!(id);
        }
        parse_session(text.as_bytes())
    }

    fn user(text: &str) -> Value {
        json!({"role":"user","content":text})
    }
    fn assistant(text: &str) -> Value {
        json!({"role":"assistant","content":[{"type":"text","text":text}]})
    }
    fn call() -> Value {
        json!({"role":"assistant","content":[{"type":"toolCall","id":"c","name":"read","arguments":{"path":"a"}}]})
    }
    fn result(text: &str) -> Value {
        json!({"role":"toolResult","toolCallId":"c","toolName":"read","content":[{"type":"text","text":text}],"isError":false})
    }

    /// Each message costs the length of its JSON text / 10: enough to steer the walk.
    fn cut(s: &Session, keep: u64, min_turns: usize, max_kept: u64) -> CutPoint {
        let path = s.path_to_leaf();
        let options = CutOptions {
            keep_recent_tokens: keep,
            min_turns_to_keep: min_turns,
            max_kept_tokens: max_kept,
        };
        let mut tokens = |position: usize| {
            let m = s.entries()[path[position]].message().unwrap().unwrap();
            match m {
                AgentMessage::User(u) => u.content.joined_text().len() as u64,
                AgentMessage::Assistant(a) => {
                    crate::message::joined_text(&a.content).len() as u64 + 5
                }
                AgentMessage::ToolResult(r) => r.content.joined_text().len() as u64,
                AgentMessage::BashExecution(_)
                | AgentMessage::Custom(_)
                | AgentMessage::BranchSummary(_)
                | AgentMessage::CompactionSummary(_)
                | AgentMessage::Other(_) => 1,
            }
        };
        find_cut_point(s, &path, 0, path.len(), options, &mut tokens)
    }

    #[test]
    fn cut_lands_on_user_message_when_budget_reached_there() {
        let s = session(&[user("aaaa"), assistant("bbbb"), user("cccc"), assistant("dddddddddd")]);
        // From the end: 15 (assistant), then 4 (user) → 19 ≥ 19 at position 2.
        let point = cut(&s, 19, 0, u64::MAX);
        assert_eq!(
            point,
            CutPoint {
                first_kept: 2,
                turn_start: None,
                is_split_turn: false,
                moved_for_min_turns: false
            }
        );
    }

    #[test]
    fn cut_moves_forward_past_tool_results_and_splits_the_turn() {
        let s = session(&[user("q"), call(), result(&"x".repeat(50)), assistant("done")]);
        // The budget is reached at the tool result; the next cut point is the assistant.
        let point = cut(&s, 20, 0, u64::MAX);
        assert_eq!(point.first_kept, 3);
        assert_eq!(point.turn_start, Some(0));
        assert!(point.is_split_turn);
    }

    #[test]
    fn budget_reached_in_trailing_tool_results_keeps_the_last_turn_only() {
        let s =
            session(&[user("q1"), assistant("a1"), user("q2"), call(), result(&"x".repeat(500))]);
        let point = cut(&s, 100, 0, u64::MAX);
        // Not position 0 (pi's fallback keeps everything): the call before the result.
        assert_eq!(point.first_kept, 3);
        assert!(point.is_split_turn);
        assert_eq!(point.turn_start, Some(2));
    }

    #[test]
    fn walk_back_keeps_settings_changes_with_the_kept_part() {
        let s = session(&[
            user("aaaa"),
            assistant("bbbb"),
            json!({"type":"model_change","provider":"p","modelId":"m"}),
            user("cccc"),
            assistant("dddddddddd"),
        ]);
        let point = cut(&s, 19, 0, u64::MAX);
        assert_eq!(point.first_kept, 2);
        // pi reports this as a split turn whose start is the previous user message.
        assert_eq!(point.turn_start, Some(0));
    }

    #[test]
    fn min_turns_moves_the_cut_earlier_when_it_fits() {
        let s = session(&[
            user("a"),
            assistant("b"),
            user("c"),
            assistant("d"),
            user("e"),
            assistant("ffffffffff"),
        ]);
        let point = cut(&s, 10, 2, u64::MAX);
        assert_eq!(point.first_kept, 2);
        assert!(point.moved_for_min_turns);
        // With no room, pi's cut stands.
        let point = cut(&s, 10, 2, 5);
        assert_eq!(point.first_kept, 5);
        assert!(!point.moved_for_min_turns);
    }

    #[test]
    fn no_cut_points_keeps_from_start() {
        let s = session(&[json!({"type":"model_change","provider":"p","modelId":"m"})]);
        assert_eq!(cut(&s, 1, 0, u64::MAX).first_kept, 0);
    }
}
