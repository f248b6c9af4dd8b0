//! `compaction context`: the messages the model would receive at a leaf.

use std::io::Write as _;

use compaction_core::message::{AgentMessage, Content, ContentBlock};

use super::ExitStatus;
use crate::cli::{ContextArgs, ContextFormat};
use crate::output::print_json;

pub fn run(args: &ContextArgs) -> anyhow::Result<ExitStatus> {
    let read = super::store::read_path(&args.session)?;
    let context = read.context();
    let session = read.session;
    // Each LLM message with the id of the entry it comes from.
    let sourced: Vec<(AgentMessage, &str)> = context
        .items
        .iter()
        .filter_map(|&item| {
            let message = compaction_core::context::to_llm(context.message(&session, item))?;
            Some((message, session.entries()[item.entry].id.as_str()))
        })
        .collect();
    let messages: Vec<AgentMessage> = sourced.iter().map(|(message, _)| message.clone()).collect();
    let format = if args.json { ContextFormat::Json } else { args.format };
    match format {
        ContextFormat::Json => {
            let listed: Vec<serde_json::Value> = sourced
                .iter()
                .map(|(message, id)| {
                    let mut value = crate::output::shown_value(
                        &serde_json::to_value(message).unwrap_or_default(),
                    );
                    if let serde_json::Value::Object(fields) = &mut value {
                        fields.insert("entryId".into(), serde_json::Value::from(*id));
                    }
                    value
                })
                .collect();
            print_json(&listed)?
        }
        ContextFormat::Text => {
            let mut out = crate::output::Visible(std::io::BufWriter::with_capacity(
                1 << 16,
                std::io::stdout().lock(),
            ));
            let mut text = Vec::new();
            for (number, message) in messages.iter().enumerate() {
                if number > 0 {
                    writeln!(out)?;
                }
                // One message at a time, redacted whole (a secret never spans two).
                text.clear();
                write_message(&mut text, message)?;
                out.write_all(crate::output::shown(&String::from_utf8_lossy(&text)).as_bytes())?;
            }
            out.flush()?;
        }
    }
    crate::load::release_at_exit((sourced, messages, context));
    crate::load::release_at_exit(session);
    Ok(ExitStatus::Success)
}

fn write_blocks(out: &mut impl std::io::Write, blocks: &[ContentBlock]) -> std::io::Result<()> {
    for block in blocks {
        match block {
            ContentBlock::Text(text) => writeln!(out, "{}", text.text)?,
            ContentBlock::Image(image) => writeln!(
                out,
                "[image {}, {} of base64]",
                image.mime_type,
                crate::output::plural(image.data.len(), "byte")
            )?,
            ContentBlock::Thinking(thinking) => {
                writeln!(out, "[thinking]")?;
                writeln!(out, "{}", thinking.thinking)?;
                writeln!(out, "[/thinking]")?;
            }
            ContentBlock::ToolCall(call) => {
                writeln!(out, "[tool call {} {}] {}", call.name, call.id, call.arguments)?
            }
            ContentBlock::Other(value) => writeln!(out, "[block] {value}")?,
        }
    }
    Ok(())
}

fn write_message(out: &mut impl std::io::Write, message: &AgentMessage) -> std::io::Result<()> {
    match message {
        AgentMessage::User(user) => {
            writeln!(out, "── user ──")?;
            match &user.content {
                Content::Text(text) => writeln!(out, "{text}")?,
                Content::Blocks(blocks) => write_blocks(out, blocks)?,
            }
        }
        AgentMessage::Assistant(assistant) => {
            writeln!(out, "── assistant ──")?;
            write_blocks(out, &assistant.content)?;
        }
        AgentMessage::ToolResult(result) => {
            let status = if result.is_error { ", error" } else { "" };
            writeln!(
                out,
                "── tool result ({} {}{status}) ──",
                result.tool_name, result.tool_call_id
            )?;
            write_blocks(out, &result.content.blocks())?;
        }
        AgentMessage::System(system) => {
            writeln!(out, "── system ──")?;
            let content = system.content.joined_text();
            if !content.is_empty() {
                writeln!(out, "{content}")?;
            }
            for (name, value) in system.sections.iter().flatten() {
                match value.as_str() {
                    Some(text) => writeln!(out, "[section {name}]\n{text}")?,
                    None => writeln!(out, "[section {name} removed]")?,
                }
            }
            let names = |tools: &Option<Vec<serde_json::Value>>| -> Vec<String> {
                tools
                    .iter()
                    .flatten()
                    .filter_map(|tool| tool.get("name").and_then(serde_json::Value::as_str))
                    .map(str::to_owned)
                    .collect()
            };
            let added = names(&system.tools_added);
            if !added.is_empty() {
                writeln!(out, "[tools declared] {}", added.join(", "))?;
            }
            let removed = names(&system.tools_removed);
            if !removed.is_empty() {
                writeln!(out, "[tools removed] {}", removed.join(", "))?;
            }
        }
        AgentMessage::BashExecution(_)
        | AgentMessage::Custom(_)
        | AgentMessage::BranchSummary(_)
        | AgentMessage::CompactionSummary(_)
        | AgentMessage::Other(_) => {
            // `llm_messages` converts these to user messages; print anything else as JSON.
            writeln!(out, "── {} ──", message.role())?;
            writeln!(out, "{}", serde_json::to_string(message).unwrap_or_default())?;
        }
    }
    Ok(())
}
