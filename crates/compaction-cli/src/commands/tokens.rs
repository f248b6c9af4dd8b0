//! `compaction tokens`: token counts of plain text or of a session's messages.
//!
//! Input whose first line is a session header is read as a session (every `message` entry
//! on the path to the leaf, and the context size by pi's rule); anything else is text.

use crate::output::plural;
use std::io::Read as _;

use compaction_core::context::build_context;
use compaction_core::tokens::{TokenEstimator, context_tokens};
use serde::Serialize;

use super::{CommandError, ExitStatus};
use crate::cli::TokensArgs;
use crate::output::print_json;

#[derive(Debug, Serialize)]
struct TextCount {
    estimator: &'static str,
    bytes: usize,
    chars: usize,
    tokens: u64,
}

#[derive(Debug, Serialize)]
struct MessageCount {
    id: String,
    role: String,
    tokens: u64,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct SessionCount {
    estimator: &'static str,
    messages: Vec<MessageCount>,
    message_tokens: u64,
    context_tokens: u64,
}

pub fn run(args: &TokensArgs) -> anyhow::Result<ExitStatus> {
    let flags =
        crate::cli::CompactionFlags { estimator: args.estimator.clone(), ..Default::default() };
    let estimator = super::setup::estimator(&super::setup::settings(&flags)?)?;
    let bytes = read_input(args)?;
    if looks_like_session(&bytes) {
        count_session(args, &bytes, estimator.as_ref())
    } else {
        let text = String::from_utf8_lossy(&bytes);
        let count = TextCount {
            estimator: estimator.name(),
            bytes: bytes.len(),
            chars: text.chars().count(),
            tokens: estimator.text_tokens(&text),
        };
        if args.json {
            print_json(&count)?;
        } else {
            println!(
                "{} ({} estimator, {}, {})",
                plural(count.tokens, "token"),
                count.estimator,
                plural(count.bytes, "byte"),
                plural(count.chars, "char")
            );
        }
        Ok(ExitStatus::Success)
    }
}

/// The most input `tokens` reads (`/dev/zero` or `yes |` never end).
pub const MAX_INPUT_BYTES: u64 = 256 * 1024 * 1024;

fn read_input(args: &TokensArgs) -> anyhow::Result<Vec<u8>> {
    match args.file.as_deref() {
        None => read_stdin(),
        Some(path) if path.as_os_str() == "-" => read_stdin(),
        Some(path) if let Some((backend, id)) = super::store::database_session(path)? => {
            let mut bytes = Vec::new();
            backend.export(&id, &mut bytes).map_err(|e| super::store::backend_error(&e))?;
            Ok(bytes)
        }
        Some(path) => {
            let name = path.display().to_string();
            // A regular file only: a FIFO with no writer would block forever.
            let (file, _) = compaction::disk::open_regular(path).map_err(CommandError::disk)?;
            read_bounded(file, &name)
        }
    }
}

fn read_stdin() -> anyhow::Result<Vec<u8>> {
    read_bounded(std::io::stdin().lock(), "standard input")
}

/// Reads at most [`MAX_INPUT_BYTES`]; more is an error naming the input.
fn read_bounded(reader: impl std::io::Read, name: &str) -> anyhow::Result<Vec<u8>> {
    let mut bytes = Vec::new();
    reader
        .take(MAX_INPUT_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| CommandError::io(format!("cannot read {name}"), e))?;
    if bytes.len() as u64 > MAX_INPUT_BYTES {
        return Err(CommandError::usage(format!(
            "{name}: more than {} MiB; `tokens` reads at most that much",
            MAX_INPUT_BYTES / (1024 * 1024)
        )));
    }
    Ok(bytes)
}

/// Whether the first line is a pi session header.
fn looks_like_session(bytes: &[u8]) -> bool {
    let bytes = bytes.strip_prefix(b"\xef\xbb\xbf").unwrap_or(bytes);
    let first = bytes.split(|&b| b == b'\n').next().unwrap_or_default();
    #[derive(serde::Deserialize)]
    struct Header {
        #[serde(rename = "type")]
        kind: String,
    }
    serde_json::from_slice::<Header>(first.trim_ascii()).is_ok_and(|h| h.kind == "session")
}

fn count_session(
    args: &TokensArgs,
    bytes: &[u8],
    estimator: &dyn TokenEstimator,
) -> anyhow::Result<ExitStatus> {
    let session = compaction_core::parse_session(bytes);
    let leaf = session
        .resolve_leaf(args.leaf.as_deref())
        .map_err(|e| CommandError::usage(e.to_string()))?;
    let context = build_context(&session, leaf);
    let mut messages = Vec::new();
    for &index in &context.path {
        let entry = &session.entries()[index];
        if let Some(Ok(message)) = entry.message() {
            messages.push(MessageCount {
                id: entry.id.clone(),
                role: message.role().to_owned(),
                tokens: estimator.message_tokens(&message),
            });
        }
    }
    let count = SessionCount {
        estimator: estimator.name(),
        message_tokens: messages.iter().map(|m| m.tokens).sum(),
        context_tokens: context_tokens(&session, &context, estimator).tokens,
        messages,
    };
    if args.json {
        print_json(&count)?;
    } else {
        for message in &count.messages {
            println!("{:<10} {:<14} {:>8}", message.id, message.role, message.tokens);
        }
        println!(
            "messages on path: {} tokens ({} estimator)",
            count.message_tokens, count.estimator
        );
        println!("context:          {} tokens", count.context_tokens);
    }
    Ok(ExitStatus::Success)
}

#[cfg(test)]
mod tests {
    use super::looks_like_session;

    #[test]
    fn session_detection_reads_the_first_line_only() {
        let header = br#"{"type":"session","version":3,"id":"s","timestamp":"t","cwd":"/"}"#;
        assert!(looks_like_session(header));
        let mut with_bom = b"\xef\xbb\xbf".to_vec();
        with_bom.extend_from_slice(header);
        with_bom.extend_from_slice(b"\r\n{}");
        assert!(looks_like_session(&with_bom));
        assert!(!looks_like_session(br#"{"type":"message"}"#));
        assert!(!looks_like_session(b"plain text\nmore"));
        assert!(!looks_like_session(b""));
    }
}
