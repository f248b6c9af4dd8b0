//! System messages (pi 1.6): the prompt sections and tool declarations, and their replay.
//! Invariant: [`SystemMessage::replay`] gives what pi's `getCurrentSystemMessage` gives for
//! the same messages (sections patched by name, tools by name, contents joined).

use serde::{Deserialize, Deserializer, Serialize};
use serde_json::{Map, Value};

use super::{Content, Extra};

/// The system prompt and tool declarations (role `system`, pi 1.6).
///
/// The first request of a session stores one with every prompt section and tool; later ones
/// patch `sections` by name (`null` removes one) and add or remove tools. Replaying them in
/// order ([`SystemMessage::replay`]) gives the current prompt and tools.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SystemMessage {
    /// Prompt text that is not in a named section (often empty).
    #[serde(default, deserialize_with = "content_or_empty")]
    pub content: Content,
    /// Named prompt sections; a `null` value removes the section.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sections: Option<Map<String, Value>>,
    /// Tool declarations (`name`, `description`, `parameters`) added by this message.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools_added: Option<Vec<Value>>,
    /// Tools (`{name}`) removed by this message.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools_removed: Option<Vec<Value>>,
    /// Fields this version does not model (`timestamp`, …), kept for the round trip.
    #[serde(flatten)]
    pub extra: Extra,
}

/// A `null` content reads as empty text, as pi reads it.
fn content_or_empty<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Content, D::Error> {
    Ok(Option::<Content>::deserialize(deserializer)?.unwrap_or(Content::Text(String::new())))
}

impl SystemMessage {
    /// The one system message that replaying `messages` in order gives: the non-empty
    /// contents joined by blank lines, the sections patched by name, and the tools left
    /// after every removal and addition (a removed tool added again goes to the end; a
    /// tool declared again without removal keeps its place). `None` when
    /// there is no system message, or none with a timestamp and no tool remains (pi's rule).
    pub fn replay<'a>(messages: impl IntoIterator<Item = &'a SystemMessage>) -> Option<Self> {
        let mut content: Vec<String> = Vec::new();
        let mut sections = Map::new();
        let mut tools: Vec<(String, Value)> = Vec::new();
        let mut timestamp: Option<Value> = None;
        for message in messages {
            if timestamp.is_none() {
                timestamp = message.extra.get("timestamp").filter(|t| !t.is_null()).cloned();
            }
            let text = message.content.joined_text();
            if !text.is_empty() {
                content.push(text);
            }
            for (name, value) in message.sections.iter().flatten() {
                if value.is_null() {
                    sections.shift_remove(name);
                } else {
                    sections.insert(name.clone(), value.clone());
                }
            }
            for removed in message.tools_removed.iter().flatten() {
                let name = removed.get("name").and_then(Value::as_str).unwrap_or_default();
                tools.retain(|(tool, _)| tool != name);
            }
            for added in message.tools_added.iter().flatten() {
                let name = added.get("name").and_then(Value::as_str).unwrap_or_default().to_owned();
                // A declaration of a tool that is already there replaces it in place.
                match tools.iter_mut().find(|(tool, _)| *tool == name) {
                    Some(slot) => slot.1 = added.clone(),
                    None => tools.push((name, added.clone())),
                }
            }
        }
        if timestamp.is_none() && tools.is_empty() {
            return None;
        }
        let mut extra = Extra::new();
        extra.insert("timestamp".into(), timestamp.unwrap_or(Value::from(0)));
        Some(SystemMessage {
            content: Content::Text(content.join("\n\n")),
            sections: (!sections.is_empty()).then_some(sections),
            tools_added: (!tools.is_empty()).then(|| tools.into_iter().map(|(_, t)| t).collect()),
            tools_removed: None,
            extra,
        })
    }

    /// The prompt text a provider receives: the content, then each section in order.
    pub fn prompt_text(&self) -> String {
        let mut parts: Vec<String> = Vec::new();
        let content = self.content.joined_text();
        if !content.is_empty() {
            parts.push(content);
        }
        for value in self.sections.iter().flat_map(|sections| sections.values()) {
            if let Some(text) = value.as_str().filter(|text| !text.is_empty()) {
                parts.push(text.to_owned());
            }
        }
        parts.join("\n\n")
    }
}
