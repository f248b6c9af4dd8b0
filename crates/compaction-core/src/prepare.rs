//! Compaction preparation: everything a summarizer needs, as plain data.
//!
//! `prepare_compaction` works on the projection (see [`crate::context`]): the region is the
//! context after the latest compaction, the cut is found there, and it collects the
//! messages to summarize, the split turn's prefix, the previous summary and the file
//! operations. It performs no I/O and calls no model, so `plan`, hooks and tests see exactly
//! what `run` would do. Invariant: `messages_to_summarize` and `turn_prefix_messages`
//! together are the messages the model sees from the region before the first kept entry,
//! without system messages, in context order (omitted entries give none, edited ones their
//! replacement).

use serde_json::{Map, Value};

use crate::context::{ContextItemKind, SessionContext};
use crate::cut::{CutOptions, CutPoint, find_cut_point};
use crate::entry::EntryKind;
use crate::files::{FileOperations, file_lists_appendix};
use crate::message::{AgentMessage, CustomMessage, Extra, SummaryMessage, SystemMessage};
use crate::session::Session;
use crate::user_messages::split_kept_user_messages;

/// The knobs preparation needs (resolved from the compaction settings).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PrepareOptions {
    /// Tokens of recent messages kept verbatim.
    pub keep_recent_tokens: u64,
    /// Tokens kept free for the model's reply.
    pub reserve_tokens: u64,
    /// User turns kept verbatim when they fit.
    pub min_turns_to_keep: usize,
    /// The summary's output budget.
    pub max_summary_tokens: u64,
    /// The budget of the verbatim user messages appended to the summary
    /// (`keepUserMessagesTokens`; 0 when off).
    pub keep_user_messages_tokens: u64,
    /// The chat model's context window.
    pub context_window: u64,
}

impl PrepareOptions {
    /// The most the kept part may hold while the `minTurnsToKeep` guarantee applies: the
    /// window less the reply's reserve and the summary's room (its output budget and the
    /// verbatim user messages appended to it).
    pub fn max_kept_tokens(&self) -> u64 {
        self.context_window
            .saturating_sub(self.reserve_tokens)
            .saturating_sub(self.max_summary_tokens)
            .saturating_sub(self.keep_user_messages_tokens)
    }
}

/// Why there is nothing to compact.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum NothingToCompact {
    /// The path has no entries.
    #[error("the session has no entries")]
    EmptyPath,
    /// The leaf is already a compaction.
    #[error("the leaf is already a compaction")]
    LeafIsCompaction,
    /// No cut point leaves anything older than the kept part: everything in the region fits
    /// in the recent part kept verbatim, or the only place a cut may fall is its start.
    #[error("nothing older than the kept part: {}", nothing_older(*region_tokens, *keep_recent_tokens))]
    NothingToSummarize {
        /// Tokens of the region after the latest compaction.
        region_tokens: u64,
        /// The recent tokens kept verbatim.
        keep_recent_tokens: u64,
    },
}

/// Why the region gives nothing to summarize, with a comparison the numbers bear out.
fn nothing_older(region_tokens: u64, keep_recent_tokens: u64) -> String {
    use crate::plural::plural;
    if region_tokens <= keep_recent_tokens {
        format!(
            "the region's {} fit in the {} kept verbatim",
            plural(region_tokens, "token"),
            plural(keep_recent_tokens, "recent token")
        )
    } else {
        format!(
            "the region's {} are more than the {} kept verbatim, but the only place a cut may \
             fall is the region's start",
            plural(region_tokens, "token"),
            plural(keep_recent_tokens, "recent token")
        )
    }
}

/// The data a compaction is built from.
#[derive(Debug, Clone, PartialEq)]
pub struct CompactionPreparation {
    /// The entries from the root to the leaf (session indices).
    pub path: Vec<usize>,
    /// Index into `path` where the region starts (the first entry after the previous
    /// compaction's projection: its first kept entry, or the entry after it).
    pub region_start: usize,
    /// The cut, as positions in `path`.
    pub cut: CutPoint,
    /// Id of the first entry kept verbatim.
    pub first_kept_entry_id: String,
    /// Messages summarized into the history summary, in order.
    pub messages_to_summarize: Vec<AgentMessage>,
    /// The entry (session index) each message of `messages_to_summarize` comes from.
    pub summarized_entries: Vec<usize>,
    /// Messages of the split turn before the cut (summarized separately).
    pub turn_prefix_messages: Vec<AgentMessage>,
    /// The entry (session index) each message of `turn_prefix_messages` comes from.
    pub turn_prefix_entries: Vec<usize>,
    /// Messages kept verbatim after the cut, in order: not summarized, read by the offline
    /// summarizer for what they settle (see [`crate::offline::OfflineInput::after`]).
    pub kept_messages: Vec<AgentMessage>,
    /// Context tokens of the whole path before compaction.
    pub tokens_before: u64,
    /// Estimated tokens of the messages kept verbatim.
    pub kept_tokens: u64,
    /// The previous compaction's summary, for an iterative update, without its verbatim
    /// user messages section (see [`crate::user_messages`]).
    pub previous_summary: Option<String>,
    /// The messages of the previous summary's verbatim user messages section, oldest first
    /// (as written there: redacted and escaped).
    pub previous_user_messages: Vec<String>,
    /// Files read and changed, cumulative over earlier compactions: as recorded from
    /// [`prepare_compaction`], redacted from [`crate::plan::plan_compaction`] (see
    /// [`FileOperations::redacted`]).
    pub file_operations: FileOperations,
    /// The system prompt and tools the context holds now (its system messages replayed into
    /// one): the compaction entry's `systemMessage`, which leads the compacted context, so
    /// pi 1.6 does not declare the prompt again on the next request.
    pub system_message: Option<SystemMessage>,
}

impl CompactionPreparation {
    /// Index into `path` of the first kept entry.
    pub fn first_kept_index(&self) -> usize {
        self.cut.first_kept
    }

    /// Files only read (sorted).
    pub fn read_files(&self) -> Vec<String> {
        self.file_operations.read_only()
    }

    /// Files written or edited (sorted).
    pub fn modified_files(&self) -> Vec<String> {
        self.file_operations.modified()
    }

    /// `summary` as the `compaction` entry stores it: with the file lists appended in pi's
    /// format.
    pub fn stored_summary(&self, summary: &str) -> String {
        stored_summary(summary, &self.read_files(), &self.modified_files())
    }

    /// The fields of the `compaction` entry recording this preparation with `summary`
    /// (the store adds `id`, `parentId` and `timestamp`). The file lists are appended to
    /// the summary in pi's format and stored in `details`.
    pub fn entry_fields(&self, summary: &str, usage: Option<Value>) -> Map<String, Value> {
        let read_files = self.read_files();
        let modified_files = self.modified_files();
        let mut fields = Map::new();
        fields.insert("type".into(), Value::from("compaction"));
        fields.insert(
            "summary".into(),
            Value::from(stored_summary(summary, &read_files, &modified_files)),
        );
        fields.insert("firstKeptEntryId".into(), Value::from(self.first_kept_entry_id.clone()));
        fields.insert("tokensBefore".into(), Value::from(self.tokens_before));
        if let Some(system) = &self.system_message
            && let Ok(value) = serde_json::to_value(AgentMessage::System(system.clone()))
        {
            fields.insert("systemMessage".into(), value);
        }
        fields.insert(
            "details".into(),
            serde_json::json!({ "readFiles": read_files, "modifiedFiles": modified_files }),
        );
        if let Some(usage) = usage {
            fields.insert("usage".into(), usage);
        }
        fields.insert("fromHook".into(), Value::Bool(false));
        fields
    }
}

/// `summary` with the file lists appended, as the entry stores it.
fn stored_summary(summary: &str, read_files: &[String], modified_files: &[String]) -> String {
    format!("{}{}", summary.trim_end(), file_lists_appendix(read_files, modified_files))
}

/// The message an entry contributes to a compaction's input (pi's mapping: tool results
/// included, branch summaries even when empty, compactions left out).
pub fn compaction_input_message(session: &Session, index: usize) -> Option<AgentMessage> {
    let entry = &session.entries()[index];
    match &entry.kind {
        EntryKind::Message { .. } => entry.message().map(|parsed| {
            parsed.unwrap_or_else(|_| {
                AgentMessage::Other(
                    entry
                        .to_value()
                        .ok()
                        .and_then(|v| v.get("message").cloned())
                        .unwrap_or_default(),
                )
            })
        }),
        EntryKind::CustomMessage { .. } => {
            let value = entry.to_value().unwrap_or_default();
            Some(AgentMessage::Custom(CustomMessage {
                custom_type: value
                    .get("customType")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_owned(),
                content: value
                    .get("content")
                    .cloned()
                    .and_then(|c| serde_json::from_value(c).ok())
                    .unwrap_or_default(),
                display: value.get("display").and_then(Value::as_bool).unwrap_or(false),
                extra: value
                    .get("details")
                    .map(|details| Extra::from_iter([("details".to_owned(), details.clone())]))
                    .unwrap_or_default(),
            }))
        }
        EntryKind::BranchSummary(data) => {
            let mut extra = Extra::new();
            extra.insert("fromId".into(), Value::String(data.from_id.clone()));
            Some(AgentMessage::BranchSummary(SummaryMessage {
                summary: data.summary.clone(),
                extra,
            }))
        }
        EntryKind::Compaction(_)
        | EntryKind::ThinkingLevelChange { .. }
        | EntryKind::ModelChange { .. }
        | EntryKind::Custom { .. }
        | EntryKind::Label { .. }
        | EntryKind::SessionInfo { .. }
        | EntryKind::ContextEdit { .. }
        | EntryKind::Usage { .. }
        | EntryKind::Unknown { .. } => None,
    }
}

/// Prepares a compaction of the path ending at `leaf`.
///
/// `message_tokens` estimates one message; `tokens_before` is the context size of the whole
/// path (see the token module), reported as the compaction's `tokensBefore`.
pub fn prepare_compaction(
    session: &Session,
    leaf: Option<usize>,
    options: PrepareOptions,
    message_tokens: &dyn Fn(&AgentMessage) -> u64,
    tokens_before: u64,
) -> Result<CompactionPreparation, NothingToCompact> {
    let Some(leaf) = leaf else { return Err(NothingToCompact::EmptyPath) };
    let context = crate::context::build_context(session, Some(leaf));
    prepare_from_context(session, &context, options, message_tokens, tokens_before)
}

/// [`prepare_compaction`] on a context already built for the leaf (pi 1.6's
/// `prepareCompaction` on the projection).
///
/// The region is the context after the latest compaction (all of it without one). Messages
/// to summarize are the items of the region's entries before the cut (the split turn's
/// start, when the cut splits one), without system messages; the split turn's prefix runs
/// from its start to the cut.
pub fn prepare_from_context(
    session: &Session,
    context: &SessionContext,
    options: PrepareOptions,
    message_tokens: &dyn Fn(&AgentMessage) -> u64,
    tokens_before: u64,
) -> Result<CompactionPreparation, NothingToCompact> {
    let Some(&leaf) = context.path.last() else { return Err(NothingToCompact::EmptyPath) };
    let entries = session.entries();
    if matches!(entries[leaf].kind, EntryKind::Compaction(_)) {
        return Err(NothingToCompact::LeafIsCompaction);
    }
    let mut previous_summary = None;
    let mut previous_user_messages = Vec::new();
    let mut file_operations = FileOperations::default();
    let previous = context.speaking_compaction();
    if let Some(previous) = previous
        && let Some(data) = entries[context.entries[previous].entry].kind.as_compaction()
    {
        let (summary, carried) = split_kept_user_messages(&data.summary);
        previous_summary = Some(summary.into_owned());
        previous_user_messages = carried;
        if !data.from_hook
            && let Some(details) = &data.details
        {
            file_operations.add_details(details);
        }
    }
    let start = previous.map_or(0, |previous| previous + 1);
    let end = context.entries.len();
    let mut entry_tokens = |entry: usize| -> u64 {
        let entry = &context.entries[entry];
        context
            .entry_items(entry)
            .iter()
            .map(|&item| message_tokens(&context.message(session, item)))
            .sum()
    };
    let cut_options = CutOptions {
        keep_recent_tokens: options.keep_recent_tokens,
        min_turns_to_keep: options.min_turns_to_keep,
        max_kept_tokens: options.max_kept_tokens(),
    };
    let cut = find_cut_point(session, context, start, end, cut_options, &mut entry_tokens);
    let history_end = cut.turn_start.unwrap_or(cut.first_kept);
    let collect = |range: std::ops::Range<usize>| -> (Vec<AgentMessage>, Vec<usize>) {
        let mut messages = Vec::new();
        let mut sources = Vec::new();
        for entry in &context.entries[range] {
            if matches!(entries[entry.entry].kind, EntryKind::Compaction(_)) {
                continue;
            }
            for &item in context.entry_items(entry) {
                let message = context.message(session, item);
                if !matches!(message, AgentMessage::System(_)) {
                    messages.push(message);
                    sources.push(entry.entry);
                }
            }
        }
        (messages, sources)
    };
    let (messages_to_summarize, summarized_entries) = collect(start..history_end);
    let (turn_prefix_messages, turn_prefix_entries) =
        if cut.is_split_turn { collect(history_end..cut.first_kept) } else { Default::default() };
    let (kept_messages, _) = collect(cut.first_kept..end);
    let kept_tokens: u64 = (cut.first_kept..end).map(&mut entry_tokens).sum();
    if messages_to_summarize.is_empty() && turn_prefix_messages.is_empty() {
        return Err(NothingToCompact::NothingToSummarize {
            region_tokens: (start..end).map(&mut entry_tokens).sum(),
            keep_recent_tokens: options.keep_recent_tokens,
        });
    }
    // A tool result left out by a context edit still ran: its call's file counts.
    let omitted_results: std::collections::BTreeSet<String> = context.entries
        [start..cut.first_kept]
        .iter()
        .filter(|entry| entry.omitted && entries[entry.entry].role() == Some("toolResult"))
        .filter_map(|entry| {
            if let Some(Ok(AgentMessage::ToolResult(result))) = entries[entry.entry].message() {
                Some(result.tool_call_id)
            } else {
                None
            }
        })
        .collect();
    file_operations.add_messages_answered(
        messages_to_summarize.iter().chain(&turn_prefix_messages),
        omitted_results,
    );
    let systems: Vec<SystemMessage> = context
        .items
        .iter()
        .filter(|item| {
            item.kind == ContextItemKind::SystemCheckpoint
                || (item.kind == ContextItemKind::Message
                    && entries[item.entry].role() == Some("system"))
        })
        .filter_map(|&item| {
            if let AgentMessage::System(system) = context.message(session, item) {
                Some(system)
            } else {
                None
            }
        })
        .collect();
    let position = |entry: usize| {
        context.entries.get(entry).map_or(context.path.len(), |entry| entry.position)
    };
    Ok(CompactionPreparation {
        first_kept_entry_id: entries[context.entries[cut.first_kept].entry].id.clone(),
        path: context.path.clone(),
        region_start: position(start),
        cut: cut.map(position),
        messages_to_summarize,
        summarized_entries,
        turn_prefix_messages,
        turn_prefix_entries,
        kept_messages,
        tokens_before,
        kept_tokens,
        previous_summary,
        previous_user_messages,
        file_operations,
        system_message: SystemMessage::replay(&systems),
    })
}

#[cfg(test)]
mod tests {
    use super::NothingToCompact;

    #[test]
    fn nothing_to_summarize_says_why_on_each_side_of_the_budget() {
        let below =
            NothingToCompact::NothingToSummarize { region_tokens: 4095, keep_recent_tokens: 4096 };
        assert!(below.to_string().contains("4095 tokens fit in the 4096"), "{below}");
        // Above the budget the region does not fit: the budget reaches its first cut.
        for region_tokens in [4097, 4201] {
            let above =
                NothingToCompact::NothingToSummarize { region_tokens, keep_recent_tokens: 4096 };
            let text = above.to_string();
            assert!(!text.contains("fit in"), "{text}");
            assert!(text.contains("the only place a cut may fall is the region's start"), "{text}");
            assert!(text.contains(&format!("{region_tokens} tokens are more than")), "{text}");
        }
    }
}
