//! Rebuilding the context a model sees at a leaf, and converting it to LLM messages.
//!
//! The rule (pi 0.73.1): walk the path root → leaf. With a compaction on the path, the
//! latest one's summary comes first, then the message-producing entries from its
//! `firstKeptEntryId` up to the compaction, then everything after it. Without one, every
//! message-producing entry. Message-producing entries are `message`, `custom_message`, and
//! `branch_summary` with a non-empty summary. The pins active on the path (our addition,
//! see [`crate::pins`]) follow the summary as one user message, or come first without a
//! compaction. Invariant: the items are in path order after the summary and the pins, and
//! building them is linear in the path length and parses no message body.
//!
//! Prunes (`compaction.prune` entries, pi ignores them) are a view over the items: the
//! context keeps every item and [`SessionContext::message`] swaps a pruned tool result's
//! content for its placeholder.

use serde_json::Value;

use crate::entry::EntryKind;
use crate::message::{
    AgentMessage, Content, ContentBlock, CustomMessage, Extra, SummaryMessage, UserMessage,
};
use crate::session::Session;

/// What produced one item of the context.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ContextItemKind {
    /// A `message` entry.
    Message,
    /// A `custom_message` entry (a user message from an extension).
    CustomMessage,
    /// A `branch_summary` entry.
    BranchSummary,
    /// The summary of the latest `compaction` entry on the path.
    CompactionSummary,
    /// The pins active on the path (see [`crate::pins`]), as one user message; the entry is
    /// the last `compaction.pin` or `compaction.unpin` entry on the path.
    Pins,
}

/// One item of the context: an entry index and how it contributes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ContextItem {
    /// Index of the entry in the session.
    pub entry: usize,
    /// How the entry enters the context.
    pub kind: ContextItemKind,
}

/// The model a context was last talking to.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ModelRef {
    /// The provider's name.
    pub provider: String,
    /// The model id.
    pub model_id: String,
}

/// The context at a leaf, as entry references.
#[derive(Debug, Clone, PartialEq)]
pub struct SessionContext {
    /// The entries from the root to the leaf.
    pub path: Vec<usize>,
    /// The context items in the order the model sees them.
    pub items: Vec<ContextItem>,
    /// The thinking level from the last `thinking_level_change` on the path, or `off`.
    pub thinking_level: String,
    /// The model from the last `model_change` or assistant reply on the path.
    pub model: Option<ModelRef>,
    /// The latest compaction on the path, as an index into `path`.
    pub compaction_position: Option<usize>,
    /// Index into `path` of the first entry the context keeps verbatim before the compaction.
    pub first_kept_position: Option<usize>,
    /// The prunes in force on the path.
    pub pruned: crate::prune::PruneView,
}

/// Builds the context for `leaf` (an entry index); `None` gives the empty context.
pub fn build_context(session: &Session, leaf: Option<usize>) -> SessionContext {
    let path = leaf.map(|leaf| session.path(leaf)).unwrap_or_default();
    build_context_for_path(session, path)
}

/// Builds the context for an explicit root → leaf path of entry indices.
pub fn build_context_for_path(session: &Session, path: Vec<usize>) -> SessionContext {
    let entries = session.entries();
    let mut thinking_level = None;
    let mut compaction_position = None;
    for (position, &index) in path.iter().enumerate() {
        match &entries[index].kind {
            EntryKind::ThinkingLevelChange { thinking_level: level } => {
                thinking_level = Some(level.clone());
            }
            EntryKind::Compaction(_) => compaction_position = Some(position),
            EntryKind::Message { .. }
            | EntryKind::ModelChange { .. }
            | EntryKind::BranchSummary(_)
            | EntryKind::Custom { .. }
            | EntryKind::CustomMessage { .. }
            | EntryKind::Label { .. }
            | EntryKind::SessionInfo { .. }
            | EntryKind::Unknown { .. } => {}
        }
    }
    let model = last_model(session, &path);
    let pruned = crate::prune::PruneView::for_path(session, &path);
    let mut items = Vec::new();
    let mut first_kept_position = None;
    match compaction_position {
        Some(compaction_at) => {
            let compaction = path[compaction_at];
            items.push(ContextItem { entry: compaction, kind: ContextItemKind::CompactionSummary });
            let first_kept =
                entries[compaction].kind.as_compaction().map(|d| d.first_kept_entry_id.as_str());
            let start = path[..compaction_at]
                .iter()
                .position(|&index| Some(entries[index].id.as_str()) == first_kept);
            if let Some(start) = start {
                first_kept_position = Some(start);
                for &index in &path[start..compaction_at] {
                    push_item(session, index, &mut items);
                }
            }
            for &index in &path[compaction_at + 1..] {
                push_item(session, index, &mut items);
            }
        }
        None => {
            for &index in &path {
                push_item(session, index, &mut items);
            }
        }
    }
    insert_pins(session, &path, compaction_position.is_some(), &mut items);
    SessionContext {
        path,
        items,
        thinking_level: thinking_level.unwrap_or_else(|| "off".to_owned()),
        model,
        compaction_position,
        first_kept_position,
        pruned,
    }
}

/// Puts the active pins right after the compaction summary, or first without one.
fn insert_pins(session: &Session, path: &[usize], compacted: bool, items: &mut Vec<ContextItem>) {
    let (pins, last) = crate::pins::active_pins_on_path(session, path);
    if let (false, Some(entry)) = (pins.is_empty(), last) {
        let at = if compacted { 1.min(items.len()) } else { 0 };
        items.insert(at, ContextItem { entry, kind: ContextItemKind::Pins });
    }
}

fn push_item(session: &Session, index: usize, items: &mut Vec<ContextItem>) {
    let kind = match &session.entries()[index].kind {
        EntryKind::Message { .. } => ContextItemKind::Message,
        EntryKind::CustomMessage { .. } => ContextItemKind::CustomMessage,
        EntryKind::BranchSummary(data) if !data.summary.is_empty() => {
            ContextItemKind::BranchSummary
        }
        EntryKind::BranchSummary(_)
        | EntryKind::ThinkingLevelChange { .. }
        | EntryKind::ModelChange { .. }
        | EntryKind::Compaction(_)
        | EntryKind::Custom { .. }
        | EntryKind::Label { .. }
        | EntryKind::SessionInfo { .. }
        | EntryKind::Unknown { .. } => return,
    };
    items.push(ContextItem { entry: index, kind });
}

/// The last model named on the path: a `model_change`, or an assistant reply's
/// provider/model. Walks backwards so only one message body is parsed.
fn last_model(session: &Session, path: &[usize]) -> Option<ModelRef> {
    for &index in path.iter().rev() {
        let entry = &session.entries()[index];
        match &entry.kind {
            EntryKind::ModelChange { provider, model_id } => {
                return Some(ModelRef { provider: provider.clone(), model_id: model_id.clone() });
            }
            EntryKind::Message { role } if role == "assistant" => {
                if let Some(Ok(AgentMessage::Assistant(message))) = entry.message()
                    && let (Some(provider), Some(model)) = (message.provider, message.model)
                {
                    return Some(ModelRef { provider, model_id: model });
                }
            }
            EntryKind::Message { .. }
            | EntryKind::ThinkingLevelChange { .. }
            | EntryKind::Compaction(_)
            | EntryKind::BranchSummary(_)
            | EntryKind::Custom { .. }
            | EntryKind::CustomMessage { .. }
            | EntryKind::Label { .. }
            | EntryKind::SessionInfo { .. }
            | EntryKind::Unknown { .. } => {}
        }
    }
    None
}

/// Turns one context item into the agent message it stands for.
///
/// A `message` entry whose body does not fit the typed model is returned as
/// [`AgentMessage::Other`] with its raw JSON, so nothing is dropped.
pub fn agent_message(session: &Session, item: ContextItem) -> AgentMessage {
    let entry = &session.entries()[item.entry];
    let timestamp = entry.timestamp().map(|t| Value::String(t.to_owned()));
    let with_timestamp = |mut extra: Extra| {
        if let Some(timestamp) = &timestamp {
            extra.insert("timestamp".into(), timestamp.clone());
        }
        extra
    };
    match (&entry.kind, item.kind) {
        (_, ContextItemKind::Pins) => {
            let (pins, _) = crate::pins::active_pins_on_path(session, &session.path(item.entry));
            AgentMessage::Custom(CustomMessage {
                custom_type: crate::pins::PINS_MESSAGE_CUSTOM_TYPE.to_owned(),
                content: Content::Text(crate::pins::pins_message_text(&pins)),
                display: false,
                extra: with_timestamp(Extra::new()),
            })
        }
        (EntryKind::Message { .. }, _) => match entry.message() {
            Some(Ok(message)) => message,
            Some(Err(_)) | None => {
                let value = entry.to_value().ok();
                AgentMessage::Other(
                    value.and_then(|v| v.get("message").cloned()).unwrap_or_default(),
                )
            }
        },
        (EntryKind::Compaction(data), _) => {
            let mut extra = Extra::new();
            extra.insert("tokensBefore".into(), Value::from(data.tokens_before));
            AgentMessage::CompactionSummary(SummaryMessage {
                summary: data.summary.clone(),
                extra: with_timestamp(extra),
            })
        }
        (EntryKind::BranchSummary(data), _) => {
            let mut extra = Extra::new();
            extra.insert("fromId".into(), Value::String(data.from_id.clone()));
            AgentMessage::BranchSummary(SummaryMessage {
                summary: data.summary.clone(),
                extra: with_timestamp(extra),
            })
        }
        (EntryKind::CustomMessage { custom_type, display }, _) => {
            let value = entry.to_value().unwrap_or_default();
            let content = value
                .get("content")
                .cloned()
                .and_then(|c| serde_json::from_value::<Content>(c).ok())
                .unwrap_or_default();
            let mut extra = Extra::new();
            if let Some(details) = value.get("details") {
                extra.insert("details".into(), details.clone());
            }
            AgentMessage::Custom(CustomMessage {
                custom_type: custom_type.clone(),
                content,
                display: *display,
                extra: with_timestamp(extra),
            })
        }
        (
            EntryKind::ThinkingLevelChange { .. }
            | EntryKind::ModelChange { .. }
            | EntryKind::Custom { .. }
            | EntryKind::Label { .. }
            | EntryKind::SessionInfo { .. }
            | EntryKind::Unknown { .. },
            _,
        ) => AgentMessage::Other(entry.to_value().unwrap_or_default()),
    }
}

impl SessionContext {
    /// One item as the model sees it: [`agent_message`] with the prunes applied.
    pub fn message(&self, session: &Session, item: ContextItem) -> AgentMessage {
        let message = agent_message(session, item);
        if self.pruned.is_empty() { message } else { self.pruned.apply(item.entry, message) }
    }

    /// The context as agent messages (the session's own roles).
    pub fn agent_messages(&self, session: &Session) -> Vec<AgentMessage> {
        self.items.iter().map(|&item| self.message(session, item)).collect()
    }

    /// The context as the LLM receives it: only `user`, `assistant` and `toolResult`.
    pub fn llm_messages(&self, session: &Session) -> Vec<AgentMessage> {
        self.items.iter().filter_map(|&item| to_llm(self.message(session, item))).collect()
    }
}

/// The preface put before a compaction summary in the context.
pub const COMPACTION_SUMMARY_PREFACE: &str = "Earlier turns of this conversation were condensed into the checkpoint below; \
     continue from it as if you remembered them.";

/// The preface put before a branch summary in the context.
pub const BRANCH_SUMMARY_PREFACE: &str =
    "The conversation came back from another branch of work; this is what happened there.";

/// Wraps a summary for the model: a one-line preface and the text in `<summary>` tags.
pub fn wrap_summary(preface: &str, summary: &str) -> String {
    format!("{preface}\n\n<summary>\n{summary}\n</summary>")
}

/// Renders a user's shell command and its output as the text the model reads.
pub fn bash_execution_text(message: &crate::message::BashExecutionMessage) -> String {
    let mut text = format!("The user ran a shell command:\n$ {}\n", message.command);
    if message.output.is_empty() {
        text.push_str("(no output)\n");
    } else {
        text.push_str(&message.output);
        if !message.output.ends_with('\n') {
            text.push('\n');
        }
    }
    if message.cancelled {
        text.push_str("[command cancelled]");
    } else {
        match message.exit_code {
            Some(code) => text.push_str(&format!("[exit code {code}]")),
            None => text.push_str("[exit code unknown]"),
        }
    }
    if message.truncated {
        match &message.full_output_path {
            Some(path) => text.push_str(&format!(" [output truncated; full output in {path}]")),
            None => text.push_str(" [output truncated]"),
        }
    }
    text
}

fn user_text_message(text: String, extra: &Extra) -> AgentMessage {
    let mut kept = Extra::new();
    if let Some(timestamp) = extra.get("timestamp") {
        kept.insert("timestamp".into(), timestamp.clone());
    }
    AgentMessage::User(UserMessage {
        content: Content::Blocks(vec![ContentBlock::text(text)]),
        extra: kept,
    })
}

/// Converts one agent message to what the LLM receives (`None`: left out).
pub fn to_llm(message: AgentMessage) -> Option<AgentMessage> {
    match message {
        AgentMessage::User(_) | AgentMessage::Assistant(_) | AgentMessage::ToolResult(_) => {
            Some(message)
        }
        AgentMessage::BashExecution(bash) => {
            if bash.exclude_from_context == Some(true) {
                None
            } else {
                Some(user_text_message(bash_execution_text(&bash), &bash.extra))
            }
        }
        AgentMessage::Custom(custom) => {
            let mut extra = Extra::new();
            if let Some(timestamp) = custom.extra.get("timestamp") {
                extra.insert("timestamp".into(), timestamp.clone());
            }
            Some(AgentMessage::User(UserMessage {
                content: Content::Blocks(custom.content.blocks()),
                extra,
            }))
        }
        AgentMessage::BranchSummary(summary) => Some(user_text_message(
            wrap_summary(BRANCH_SUMMARY_PREFACE, &summary.summary),
            &summary.extra,
        )),
        AgentMessage::CompactionSummary(summary) => Some(user_text_message(
            wrap_summary(COMPACTION_SUMMARY_PREFACE, &summary.summary),
            &summary.extra,
        )),
        AgentMessage::Other(_) => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::parse_session;
    use serde_json::json;

    fn session(lines: Vec<Value>) -> Session {
        let mut text =
            json!({"type":"session","version":3,"id":"s","timestamp":"t","cwd":"/"}).to_string();
        text.push('\n');
        for line in lines {
            text.push_str(&line.to_string());
            text.push('\n');
        }
        parse_session(text.as_bytes())
    }

    fn msg(id: &str, parent: Option<&str>, message: Value) -> Value {
        json!({"type":"message","id":id,"parentId":parent,"timestamp":"t","message":message})
    }

    fn roles(s: &Session, c: &SessionContext) -> Vec<String> {
        c.agent_messages(s).iter().map(|m| m.role().to_owned()).collect()
    }

    fn ids(s: &Session, c: &SessionContext) -> Vec<String> {
        c.items.iter().map(|i| s.entries()[i.entry].id.clone()).collect()
    }

    #[test]
    fn without_compaction_all_message_producing_entries_in_order() {
        let s = session(vec![
            msg("a", None, json!({"role":"user","content":"q"})),
            json!({"type":"thinking_level_change","id":"t1","parentId":"a","timestamp":"t","thinkingLevel":"high"}),
            msg(
                "b",
                Some("t1"),
                json!({"role":"assistant","content":[],"provider":"openai","model":"gpt-5"}),
            ),
            json!({"type":"custom","id":"c","parentId":"b","timestamp":"t","customType":"state","data":{}}),
            json!({"type":"custom_message","id":"cm","parentId":"c","timestamp":"t","customType":"n","content":"note","display":true}),
            json!({"type":"branch_summary","id":"bs0","parentId":"cm","timestamp":"t","fromId":"x","summary":""}),
            json!({"type":"branch_summary","id":"bs","parentId":"bs0","timestamp":"t","fromId":"x","summary":"went elsewhere"}),
            json!({"type":"model_change","id":"mc","parentId":"bs","timestamp":"t","provider":"anthropic","modelId":"claude"}),
        ]);
        let c = build_context(&s, s.leaf());
        assert_eq!(ids(&s, &c), ["a", "b", "cm", "bs"]);
        assert_eq!(c.thinking_level, "high");
        assert_eq!(
            c.model,
            Some(ModelRef { provider: "anthropic".into(), model_id: "claude".into() })
        );
        let llm = c.llm_messages(&s);
        assert_eq!(llm.len(), 4);
        let AgentMessage::User(user) = &llm[3] else { panic!() };
        let text = user.content.joined_text();
        assert!(text.contains("<summary>\nwent elsewhere\n</summary>"), "{text}");
    }

    #[test]
    fn with_compaction_summary_then_kept_then_later() {
        let s = session(vec![
            msg("a", None, json!({"role":"user","content":"1"})),
            msg("b", Some("a"), json!({"role":"assistant","content":[]})),
            msg("c", Some("b"), json!({"role":"user","content":"2"})),
            msg("d", Some("c"), json!({"role":"assistant","content":[]})),
            json!({"type":"compaction","id":"k","parentId":"d","timestamp":"t","summary":"S1","firstKeptEntryId":"c","tokensBefore":50}),
            msg("e", Some("k"), json!({"role":"user","content":"3"})),
            json!({"type":"compaction","id":"k2","parentId":"e","timestamp":"t","summary":"S2","firstKeptEntryId":"e","tokensBefore":60}),
            msg("f", Some("k2"), json!({"role":"assistant","content":[]})),
        ]);
        let c = build_context(&s, s.leaf());
        assert_eq!(ids(&s, &c), ["k2", "e", "f"]);
        assert_eq!(roles(&s, &c), ["compactionSummary", "user", "assistant"]);
        let at_e = build_context(&s, s.index_of("e"));
        assert_eq!(ids(&s, &at_e), ["k", "c", "d", "e"]);
    }

    #[test]
    fn bash_execution_is_user_text_unless_excluded() {
        let s = session(vec![
            msg(
                "a",
                None,
                json!({"role":"bashExecution","command":"cargo test","output":"ok","exitCode":0,"cancelled":false,"truncated":false}),
            ),
            msg(
                "b",
                Some("a"),
                json!({"role":"bashExecution","command":"secret","output":"x","exitCode":1,"cancelled":false,"truncated":false,"excludeFromContext":true}),
            ),
        ]);
        let c = build_context(&s, s.leaf());
        let llm = c.llm_messages(&s);
        assert_eq!(llm.len(), 1);
        let AgentMessage::User(user) = &llm[0] else { panic!() };
        assert_eq!(
            user.content.joined_text(),
            "The user ran a shell command:\n$ cargo test\nok\n[exit code 0]"
        );
    }

    #[test]
    fn context_on_a_branch_follows_that_branch() {
        let s = session(vec![
            msg("a", None, json!({"role":"user","content":"1"})),
            msg("b", Some("a"), json!({"role":"assistant","content":[]})),
            msg("c", Some("a"), json!({"role":"assistant","content":[]})),
        ]);
        assert_eq!(ids(&s, &build_context(&s, s.leaf())), ["a", "c"]);
        assert_eq!(ids(&s, &build_context(&s, s.index_of("b"))), ["a", "b"]);
        assert!(build_context(&s, None).items.is_empty());
    }
}
