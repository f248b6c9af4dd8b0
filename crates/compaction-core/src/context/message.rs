//! One context item as an agent message: the entry's message, a summary or checkpoint built
//! from a compaction or branch summary, or the pins; with a `context_edit` replacement and
//! the legacy prunes applied. Invariant: an edit replaces only the content of user,
//! assistant, tool-result and custom messages (pi 1.6); every other field is the entry's.

use serde_json::Value;

use super::{ContextItem, ContextItemKind, SessionContext, to_llm};
use crate::entry::EntryKind;
use crate::message::{AgentMessage, Content, CustomMessage, Extra, SummaryMessage, SystemMessage};
use crate::session::Session;

/// Turns one context item into the agent message it stands for.
///
/// A `message` entry whose body does not fit the typed model is returned as
/// [`AgentMessage::Other`] with its raw JSON, so nothing is dropped.
pub fn agent_message(session: &Session, item: ContextItem) -> AgentMessage {
    let message = entry_message(session, item);
    match item.edit {
        Some(edit) => apply_edit(message, &session.entries()[edit]),
        None => message,
    }
}

fn entry_message(session: &Session, item: ContextItem) -> AgentMessage {
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
        (EntryKind::Compaction(_), ContextItemKind::SystemCheckpoint) => entry
            .to_value()
            .ok()
            .and_then(|mut value| value.get_mut("systemMessage").map(Value::take))
            .and_then(|value| serde_json::from_value::<SystemMessage>(without_role(value)).ok())
            .map_or_else(|| AgentMessage::Other(Value::Null), AgentMessage::System),
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
            | EntryKind::ContextEdit { .. }
            | EntryKind::Usage { .. }
            | EntryKind::Unknown { .. },
            _,
        ) => AgentMessage::Other(entry.to_value().unwrap_or_default()),
    }
}

fn without_role(mut value: Value) -> Value {
    if let Value::Object(map) = &mut value {
        map.shift_remove("role");
    }
    value
}

/// Applies a `context_edit`'s replacement: only the content of user, assistant, tool-result
/// and custom messages changes; a string becomes one text block where the role needs blocks.
pub(crate) fn apply_edit(message: AgentMessage, edit: &crate::entry::Entry) -> AgentMessage {
    let Some(content) = edit
        .to_value()
        .ok()
        .and_then(|mut value| value.get_mut("replacement").map(Value::take))
        .and_then(|mut replacement| replacement.get_mut("content").map(Value::take))
        .and_then(|content| serde_json::from_value::<Content>(content).ok())
    else {
        return message;
    };
    match message {
        AgentMessage::User(mut user) => {
            user.content = content;
            AgentMessage::User(user)
        }
        AgentMessage::Custom(mut custom) => {
            custom.content = content;
            AgentMessage::Custom(custom)
        }
        AgentMessage::Assistant(mut assistant) => {
            assistant.content = content.blocks();
            AgentMessage::Assistant(assistant)
        }
        AgentMessage::ToolResult(mut result) => {
            result.content = Content::Blocks(content.blocks());
            AgentMessage::ToolResult(result)
        }
        AgentMessage::System(_)
        | AgentMessage::BashExecution(_)
        | AgentMessage::BranchSummary(_)
        | AgentMessage::CompactionSummary(_)
        | AgentMessage::Other(_) => message,
    }
}

impl SessionContext {
    /// One item as the model sees it: [`agent_message`] with the prunes applied.
    pub fn message(&self, session: &Session, item: ContextItem) -> AgentMessage {
        let message = agent_message(session, item);
        if self.pruned.is_empty() {
            message
        } else {
            self.pruned.apply_to_context(item.entry, item.edit, message)
        }
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
