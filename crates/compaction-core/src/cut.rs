//! Where to cut the context: what is summarized and what stays verbatim.
//!
//! pi 1.6's rule, on the context entries of the projection (see [`crate::context`]): walk
//! back from the newest entry adding the estimate of every item it gives (system messages,
//! summaries, custom messages and shell commands included); once the sum reaches
//! `keepRecentTokens`, cut at the first valid cut point at or after that entry (the last
//! one when the budget runs out inside trailing tool results). When everything after the
//! cut is invisible to the model and holds an omitted assistant attempt (an overflow
//! recovery), the cut moves past the cut entry onto that suffix. Then the cut moves back
//! over directly preceding entries that give no item (settings changes, edits, omitted
//! entries, …), stopping at a compaction. A cut on an entry that does not start a turn
//! (user message, shell command, custom message, branch summary) splits a turn: the turn's
//! start up to the cut is summarized separately.
//!
//! On top of that we guarantee `minTurnsToKeep` complete user turns stay verbatim while they
//! fit.
//!
//! Invariant: the first kept entry is a valid cut point or an entry directly in front of one
//! that gives no item, so the kept part never starts with a tool result and a tool result is
//! never separated from the assistant message holding its call.

use crate::context::{ContextEntry, ContextItemKind, SessionContext};
use crate::entry::EntryKind;
use crate::message::AgentMessage;
use crate::session::Session;

/// The roles of the items a context entry gives, as pi names them.
fn item_roles<'a>(
    session: &'a Session,
    context: &'a SessionContext,
    entry: &'a ContextEntry,
) -> impl Iterator<Item = &'a str> + 'a {
    context.entry_items(entry).iter().map(move |item| match item.kind {
        ContextItemKind::Message => match session.entries()[item.entry].role() {
            Some("hookMessage") => "custom",
            Some(role) => role,
            None => "",
        },
        ContextItemKind::CustomMessage | ContextItemKind::Pins => "custom",
        ContextItemKind::BranchSummary => "branchSummary",
        ContextItemKind::CompactionSummary => "compactionSummary",
        ContextItemKind::SystemCheckpoint => "system",
    })
}

fn is_compaction(session: &Session, entry: &ContextEntry) -> bool {
    matches!(session.entries()[entry.entry].kind, EntryKind::Compaction(_))
}

/// Whether a context entry may be the first entry kept verbatim: it is not a compaction and
/// gives a message other than a tool result or the prompt.
pub fn is_valid_cut_point(session: &Session, context: &SessionContext, entry: usize) -> bool {
    let entry = &context.entries[entry];
    !is_compaction(session, entry)
        && item_roles(session, context, entry).any(|role| {
            matches!(
                role,
                "user"
                    | "assistant"
                    | "bashExecution"
                    | "custom"
                    | "branchSummary"
                    | "compactionSummary"
            )
        })
}

/// Whether a context entry starts a turn: a user message, a shell command the user ran, a
/// custom message or a summary.
pub fn is_turn_start(session: &Session, context: &SessionContext, entry: usize) -> bool {
    let entry = &context.entries[entry];
    !is_compaction(session, entry)
        && item_roles(session, context, entry).any(|role| {
            matches!(
                role,
                "user" | "bashExecution" | "custom" | "branchSummary" | "compactionSummary"
            )
        })
}

fn is_user_turn(session: &Session, context: &SessionContext, entry: usize) -> bool {
    item_roles(session, context, &context.entries[entry]).any(|role| role == "user")
}

/// Whether an entry of the raw path may be the first kept entry of a compaction an
/// extension returns: a message other than a tool result or a system message, a custom
/// message or a branch summary.
pub fn is_valid_raw_cut_point(session: &Session, index: usize) -> bool {
    let entry = &session.entries()[index];
    match &entry.kind {
        EntryKind::Message { role } => !matches!(role.as_ref(), "toolResult" | "system"),
        EntryKind::BranchSummary(_) | EntryKind::CustomMessage { .. } => true,
        EntryKind::ThinkingLevelChange { .. }
        | EntryKind::ModelChange { .. }
        | EntryKind::Compaction(_)
        | EntryKind::Custom { .. }
        | EntryKind::Label { .. }
        | EntryKind::SessionInfo { .. }
        | EntryKind::ContextEdit { .. }
        | EntryKind::Usage { .. }
        | EntryKind::Unknown { .. } => false,
    }
}

/// What the cut keeps, as indices into the context entries (or, in a
/// [`crate::prepare::CompactionPreparation`], into the path).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CutPoint {
    /// The first entry kept verbatim.
    pub first_kept: usize,
    /// The start of the split turn, when the cut splits one.
    pub turn_start: Option<usize>,
    /// Whether the cut falls inside a turn (pi's `isSplitTurn`).
    pub is_split_turn: bool,
    /// Whether the `minTurnsToKeep` guarantee moved the cut earlier than pi's rule.
    pub moved_for_min_turns: bool,
}

impl CutPoint {
    /// The same cut with its indices mapped (context entries to path positions).
    pub fn map(self, to: impl Fn(usize) -> usize) -> CutPoint {
        CutPoint { first_kept: to(self.first_kept), turn_start: self.turn_start.map(&to), ..self }
    }
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

/// Finds the cut in `context.entries[start..end]`.
///
/// `entry_tokens` returns the estimate of the items of the context entry at an index; it is
/// called at most once per entry, newest first, and only as far back as the walk goes.
pub fn find_cut_point(
    session: &Session,
    context: &SessionContext,
    start: usize,
    end: usize,
    options: CutOptions,
    entry_tokens: &mut dyn FnMut(usize) -> u64,
) -> CutPoint {
    let cut_points: Vec<usize> =
        (start..end).filter(|&entry| is_valid_cut_point(session, context, entry)).collect();
    let Some(&first_cut_point) = cut_points.first() else {
        return CutPoint {
            first_kept: start,
            turn_start: None,
            is_split_turn: false,
            moved_for_min_turns: false,
        };
    };
    // Token totals from each entry to the end, for the entries the walk visits.
    let mut kept_tokens = vec![0u64; end.saturating_sub(start) + 1];
    let mut accumulated = 0u64;
    let mut cut = first_cut_point;
    let mut exceeded_budget = false;
    let mut walked_to = end;
    for entry in (start..end).rev() {
        walked_to = entry;
        accumulated += entry_tokens(entry);
        kept_tokens[entry - start] = accumulated;
        if accumulated >= options.keep_recent_tokens && accumulated > 0 {
            exceeded_budget = true;
            // The next cut point; when the budget ran out inside trailing tool results,
            // the assistant message that called them.
            cut = cut_points
                .iter()
                .find(|&&point| point >= entry)
                .or(cut_points.last())
                .copied()
                .unwrap_or(first_cut_point);
            break;
        }
    }
    if exceeded_budget && is_recovery_suffix(session, context, cut + 1, end) {
        cut += 1;
    }
    let mut point = walk_back(session, context, start, cut);

    // The min-turns guarantee: move the cut earlier to the start of the N-th newest user
    // turn, when the region has more turns than that and the kept part still fits.
    if options.min_turns_to_keep > 0 {
        let user_turns: Vec<usize> =
            (start..end).filter(|&entry| is_user_turn(session, context, entry)).collect();
        if user_turns.len() > options.min_turns_to_keep {
            let wanted = user_turns[user_turns.len() - options.min_turns_to_keep];
            if wanted < point.first_kept {
                // Finish the token walk down to `wanted` to know what keeping it costs.
                for entry in (wanted..walked_to).rev() {
                    accumulated += entry_tokens(entry);
                    kept_tokens[entry - start] = accumulated;
                }
                if kept_tokens[wanted - start] <= options.max_kept_tokens {
                    let mut moved = walk_back(session, context, start, wanted);
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

/// Whether `context.entries[from..end]` is what an overflow recovery leaves behind: nothing
/// the model sees, an omitted assistant attempt among it, no compaction, and no replacement
/// edit of an entry outside it (pi 1.6's recovery-omission suffix).
fn is_recovery_suffix(
    session: &Session,
    context: &SessionContext,
    from: usize,
    end: usize,
) -> bool {
    let suffix = &context.entries[from.min(end)..end];
    let entries = session.entries();
    let omitted_assistant = suffix
        .iter()
        .any(|entry| entry.omitted && entries[entry.entry].role() == Some("assistant"));
    let all_invisible = suffix
        .iter()
        .all(|entry| !is_compaction(session, entry) && (entry.is_invisible() || entry.omitted));
    let external_replacement = suffix.iter().any(|entry| {
        if let EntryKind::ContextEdit { target_id, omit: false } = &entries[entry.entry].kind {
            !suffix.iter().any(|other| other.omitted && entries[other.entry].id == *target_id)
        } else {
            false
        }
    });
    omitted_assistant && all_invisible && !external_replacement
}

/// Moves a cut back over directly preceding entries that give no item, stopping at a
/// compaction, then finds the turn start when the cut does not start a turn.
fn walk_back(
    session: &Session,
    context: &SessionContext,
    start: usize,
    mut cut: usize,
) -> CutPoint {
    while cut > start {
        let previous = &context.entries[cut - 1];
        if is_compaction(session, previous) || !previous.is_invisible() {
            break;
        }
        cut -= 1;
    }
    let turn_start = if is_turn_start(session, context, cut) {
        None
    } else {
        (start..=cut).rev().find(|&entry| is_turn_start(session, context, entry))
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
            let Some(m) = s.entries()[path[position]].message() else { return 0 };
            let m = m.unwrap();
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
                | AgentMessage::System(_)
                | AgentMessage::Other(_) => 1,
            }
        };
        let context = crate::context::build_context(s, s.leaf());
        find_cut_point(s, &context, 0, path.len(), options, &mut tokens)
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
