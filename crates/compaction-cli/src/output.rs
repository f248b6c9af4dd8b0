//! Shared output: JSON printing, errors (text or JSON), the quiet exit on a closed pipe, and
//! short previews of messages.
//!
//! Invariant: every command's output goes through these rules without opting in: a
//! broken pipe on stdout exits 0 without a message, and a command run with `--json` (or
//! `--format json`) reports its error as one JSON object on stdout.
//!
//! Invariant: the terminal never shows a secret from a session or another input. Text a
//! command prints from what it read (messages, previews, recalled entries, search hits, a
//! quoted line in an error or a warning, every string of a JSON document) goes through
//! [`shown`] or [`shown_value`]: the same redaction as what is sent to a model or stored.
//!
//! Invariant: the terminal never obeys a text it is shown. Everything printed (`println!`
//! and its kin, shadowed in `main.rs`; JSON documents; the writers of `context`, `tree`,
//! `recall` and `eval`) goes through [`visible`]: escape sequences, C1 and bidirectional
//! controls are printed as JSON escapes, never raw.

use std::borrow::Cow;
use std::process::ExitCode;
use std::sync::OnceLock;

use compaction_core::message::{AgentMessage, ContentBlock};
use compaction_core::serialize::Redactor;
use serde::Serialize;

/// The redactor of what the terminal shows: the built-in rules (built once, each rule the
/// first time a text may hold a match of it).
pub fn redactor() -> &'static Redactor {
    static REDACTOR: OnceLock<Redactor> = OnceLock::new();
    REDACTOR.get_or_init(Redactor::default)
}

/// `text` as the terminal may show it: secrets replaced by `[REDACTED]`.
pub fn shown(text: &str) -> Cow<'_, str> {
    redactor().redact(text)
}

/// A session's JSON (a message, an entry) as the terminal may show it: every string
/// redacted, each scalar judged with its key, as an import stores it.
pub fn shown_value(value: &serde_json::Value) -> serde_json::Value {
    redactor().redact_value(value)
}

/// Every string of a JSON document redacted alone (keys too), with no key taken for a
/// secret's name: the tool's own fields (`sessionId`, `tokensBefore`) stay as they are.
fn redact_strings(value: &mut serde_json::Value) {
    match value {
        serde_json::Value::String(text) => {
            if let Cow::Owned(redacted) = shown(text) {
                *text = redacted;
            }
        }
        serde_json::Value::Array(items) => items.iter_mut().for_each(redact_strings),
        serde_json::Value::Object(fields) => {
            let renamed: Vec<(String, String)> = fields
                .keys()
                .filter_map(|key| match shown(key) {
                    Cow::Owned(redacted) => Some((key.clone(), redacted)),
                    Cow::Borrowed(_) => None,
                })
                .collect();
            for (key, redacted) in renamed {
                if let Some(item) = fields.remove(&key) {
                    // Two keys that redact alike stay two: `[REDACTED]`, `[REDACTED]-2`, …
                    let mut name = redacted.clone();
                    let mut index = 1;
                    while fields.contains_key(&name) {
                        index += 1;
                        name = format!("{redacted}-{index}");
                    }
                    fields.insert(name, item);
                }
            }
            fields.values_mut().for_each(redact_strings);
        }
        serde_json::Value::Null | serde_json::Value::Bool(_) | serde_json::Value::Number(_) => {}
    }
}

/// Whether the terminal would take `ch` for an instruction rather than a character to show:
/// C0 controls but tab, newline and carriage return (escape sequences start with ESC, U+001B), DEL, C1
/// controls (U+009B starts a sequence on its own), and the bidirectional controls that
/// reorder what follows (U+061C, U+200E/F, U+202A–U+202E, U+2066–U+2069).
fn is_terminal_control(ch: char) -> bool {
    matches!(ch,
        '\u{0}'..='\u{8}' | '\u{b}' | '\u{c}' | '\u{e}'..='\u{1f}' | '\u{7f}'..='\u{9f}' | '\u{61c}'
        | '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

/// `text` with every character a terminal would obey instead of show (see
/// [`is_terminal_control`]) written as its JSON escape (`\u001b`), and a carriage return
/// kept only before a newline. Inside a JSON document's strings the escape reads back as the
/// same character, so printed JSON keeps its data; in text it is visible and inert.
pub fn visible(text: &str) -> Cow<'_, str> {
    let lone_return = |at: usize| text.as_bytes().get(at + 1) != Some(&b'\n');
    let needs = text
        .char_indices()
        .any(|(at, ch)| is_terminal_control(ch) || (ch == '\r' && lone_return(at)));
    if !needs {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 16);
    for (at, ch) in text.char_indices() {
        if is_terminal_control(ch) || (ch == '\r' && lone_return(at)) {
            out.push_str(&format!("\\u{:04x}", u32::from(ch)));
        } else {
            out.push(ch);
        }
    }
    Cow::Owned(out)
}

/// A writer for the terminal: every text written goes through [`visible`]. Each `write`
/// is expected to hold whole characters (as `write!` gives); bytes that are not UTF-8 are
/// written with their C0 controls escaped.
pub struct Visible<W: std::io::Write>(pub W);

impl<W: std::io::Write> std::io::Write for Visible<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        match std::str::from_utf8(buf) {
            Ok(text) => self.0.write_all(visible(text).as_bytes())?,
            Err(_) => {
                for &byte in buf {
                    if (byte < 0x20 && !matches!(byte, b'\n' | b'\t' | b'\r')) || byte == 0x7f {
                        write!(self.0, "\\u{byte:04x}")?;
                    } else {
                        self.0.write_all(&[byte])?;
                    }
                }
            }
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.0.flush()
    }
}

/// Prints a line on stderr with what it quotes redacted (see [`shown`]).
pub fn eprint_shown(line: &str) {
    eprintln!("{}", shown(line));
}

/// Prints a value as pretty JSON on stdout, every string redacted (see [`shown`]).
pub fn print_json<T: Serialize>(value: &T) -> anyhow::Result<()> {
    use std::io::Write as _;
    let mut value = serde_json::to_value(value)?;
    redact_strings(&mut value);
    // One string, written at once: the standard output's own buffer would flush at every
    // newline. serde_json escapes C0 controls; `visible` escapes the others (C1, DEL, bidi)
    // the same way, so the document reads back the same.
    let text = serde_json::to_string_pretty(&value)?;
    let mut stdout = std::io::stdout().lock();
    stdout.write_all(visible(&text).as_bytes())?;
    writeln!(stdout)?;
    stdout.flush()?;
    Ok(())
}

/// Whether the error comes from writing to a closed pipe (`compaction tree … | head`).
pub fn is_broken_pipe(error: &anyhow::Error) -> bool {
    error.chain().any(|cause| {
        let kind = cause
            .downcast_ref::<std::io::Error>()
            .map(std::io::Error::kind)
            .or_else(|| cause.downcast_ref::<serde_json::Error>().and_then(|e| e.io_error_kind()));
        kind == Some(std::io::ErrorKind::BrokenPipe)
    })
}

/// Makes `println!` on a closed stdout end the program quietly (exit 0), as ripgrep does.
///
/// The standard library panics when `println!` cannot write ("failed printing to stdout");
/// this panic hook recognises that panic when the cause is a broken pipe and exits instead,
/// so no command has to route its text output through a fallible writer. Any other panic
/// goes to the default hook.
pub fn exit_quietly_on_broken_pipe() {
    let default_hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let payload = info.payload();
        let message = payload
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| payload.downcast_ref::<&str>().copied())
            .unwrap_or_default();
        if is_broken_pipe_print_panic(message) {
            std::process::exit(0);
        }
        default_hook(info);
    }));
}

/// Whether a panic message is the standard library's "failed printing to stdout" with a
/// broken pipe as its cause.
fn is_broken_pipe_print_panic(message: &str) -> bool {
    let broken_pipe = std::io::Error::from(std::io::ErrorKind::BrokenPipe).to_string();
    message.starts_with("failed printing to stdout")
        && (message.contains(&broken_pipe) || message.contains("Broken pipe"))
}

/// Whether the parsed command asked for JSON output: a `json` flag that is set, or a
/// `format` option whose value is `json`. Read from the matches of the innermost
/// subcommand, so a command gets JSON errors by declaring the flag, nothing more.
pub fn json_requested(matches: &clap::ArgMatches) -> bool {
    let mut innermost = matches;
    while let Some((_, sub)) = innermost.subcommand() {
        innermost = sub;
    }
    let flag = innermost.try_get_one::<bool>("json").ok().flatten().copied().unwrap_or(false);
    let format = innermost
        .try_get_raw("format")
        .ok()
        .flatten()
        .is_some_and(|mut values| values.any(|value| value == "json"));
    flag || format
}

/// The JSON shape of an error: `{"error": {"kind", "message", "causes"}}`.
pub fn error_json(kind: &str, message: &str, causes: &[String]) -> serde_json::Value {
    serde_json::json!({"error": {"kind": kind, "message": message, "causes": causes}})
}

/// The causes of an error worth printing: each one whose text the line before it does not
/// already contain (`summarizing failed: HTTP 404 …` wraps `HTTP 404 …`, which then adds
/// nothing).
fn distinct_causes(error: &anyhow::Error) -> Vec<String> {
    let mut previous = error.to_string();
    let mut causes = Vec::new();
    for cause in error.chain().skip(1) {
        let text = cause.to_string();
        if !previous.contains(&text) {
            causes.push(text.clone());
        }
        previous = text;
    }
    causes
}

/// Prints a command's error: JSON on stdout when `json`, else text with its causes on
/// stderr. A provider error also gets the note naming the provider, the model and where the
/// model came from (`hint` in JSON). A failure to print is ignored (the exit code tells).
pub fn report_error(error: &anyhow::Error, kind: crate::commands::ErrorKind, json: bool) {
    let causes = distinct_causes(error);
    let note =
        crate::commands::provider_note().filter(|_| kind == crate::commands::ErrorKind::Provider);
    if json {
        let mut value = error_json(kind.as_str(), &error.to_string(), &causes);
        if let Some(note) = note {
            value["error"]["hint"] = serde_json::Value::String(note.to_owned());
        }
        let _ = print_json(&value);
        return;
    }
    eprint_shown(&format!("error: {error}"));
    for cause in &causes {
        eprint_shown(&format!("  caused by: {cause}"));
    }
    if let Some(note) = note {
        eprint_shown(&format!("  note: {note}"));
    }
}

/// Handles a flag-parsing error: help and version print as usual; other errors print as
/// JSON on stdout (kind `usage`) when `--json` is among the arguments, else as clap prints
/// them, through `visible`. Exit code 2 for errors, 0 for help and version.
pub fn report_usage_error(error: &clap::Error) -> ExitCode {
    use clap::error::ErrorKind as ClapKind;
    let is_error = !matches!(
        error.kind(),
        ClapKind::DisplayHelp
            | ClapKind::DisplayVersion
            | ClapKind::DisplayHelpOnMissingArgumentOrSubcommand
    );
    let json = std::env::args_os().take_while(|arg| arg != "--").any(|arg| arg == "--json");
    if is_error && json {
        let rendered = error.render().to_string();
        let message =
            rendered.lines().next().unwrap_or_default().trim_start_matches("error: ").to_owned();
        let _ = print_json(&error_json("usage", &message, &[]));
        return ExitCode::from(2);
    }
    if is_error {
        // An error echoes what the user typed: printed as plain text through `visible` (the
        // crate's `eprint!`), so a control in an argument is shown, not obeyed, and redacted
        // as every other error is.
        eprint!("{}", shown(&error.render().to_string()));
    } else {
        // Help and the version: the tool's own text, to stdout as clap prints it.
        let _ = error.print();
    }
    ExitCode::from(u8::try_from(error.exit_code()).unwrap_or(2))
}

pub use compaction_core::plural::plural;

/// Collapses whitespace and cuts text to `max` characters with an ellipsis, secrets
/// redacted. The redaction reads a little past the cut, so a secret that starts before it is
/// found whole.
pub fn preview(text: &str, max: usize) -> String {
    let read = text.char_indices().nth(max.saturating_mul(2).saturating_add(512));
    let text = shown(read.map_or(text, |(end, _)| &text[..end]));
    let mut out = String::new();
    let mut count = 0;
    let mut last_space = false;
    for ch in text.chars() {
        let ch = if ch.is_whitespace() { ' ' } else { ch };
        if ch == ' ' && (last_space || out.is_empty()) {
            continue;
        }
        last_space = ch == ' ';
        if count == max {
            out.truncate(out.trim_end().len());
            out.push('…');
            return out;
        }
        out.push(ch);
        count += 1;
    }
    out.trim_end().to_owned()
}

/// A one-line description of a message: its first text, or its tool calls.
pub fn message_preview(message: &AgentMessage, max: usize) -> String {
    let text = match message {
        AgentMessage::System(system) => system.prompt_text(),
        AgentMessage::User(user) => user.content.joined_text(),
        AgentMessage::Assistant(assistant) => {
            let text = compaction_core::message::joined_text(&assistant.content);
            let calls: Vec<String> = assistant
                .tool_calls()
                .map(|call| {
                    let target = call
                        .arguments
                        .get("path")
                        .or_else(|| call.arguments.get("command"))
                        .and_then(serde_json::Value::as_str)
                        .map(|s| format!(" {s}"))
                        .unwrap_or_default();
                    format!("{}{target}", call.name)
                })
                .collect();
            match (text.trim().is_empty(), calls.is_empty()) {
                (false, true) => text,
                (false, false) => format!("{text} → {}", calls.join(", ")),
                (true, false) => format!("→ {}", calls.join(", ")),
                (true, true) => {
                    let thinking = assistant.content.iter().find_map(|b| {
                        if let ContentBlock::Thinking(t) = b {
                            Some(t.thinking.clone())
                        } else {
                            None
                        }
                    });
                    thinking.map(|t| format!("(thinking) {t}")).unwrap_or_default()
                }
            }
        }
        AgentMessage::ToolResult(result) => {
            let label = if result.is_error {
                format!("{} (error)", result.tool_name)
            } else {
                result.tool_name.clone()
            };
            labelled(&label, &result.content.joined_text())
        }
        AgentMessage::BashExecution(bash) => format!("$ {}", bash.command),
        AgentMessage::Custom(custom) => {
            labelled(&custom.custom_type, &custom.content.joined_text())
        }
        AgentMessage::BranchSummary(summary) | AgentMessage::CompactionSummary(summary) => {
            summary.summary.clone()
        }
        AgentMessage::Other(value) => value.to_string(),
    };
    preview(&text, max)
}

/// `label: text`, or the label alone when there is no text (or the text alone when there is
/// no label): the one way a preview joins its parts, so no part is ever empty beside a
/// separator.
pub fn labelled(label: &str, text: &str) -> String {
    match (label.trim().is_empty(), text.trim().is_empty()) {
        (false, false) => format!("{label}: {text}"),
        (false, true) => label.to_owned(),
        (true, _) => text.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const KEY_A: &str = "sk-proj-Q7fW2xLm9RtZ4vBn8KcY3hJd6PsT1gXa5NeU0iVo";
    const KEY_B: &str = "sk-proj-Z3kP8wNq1XyT6mRb4VcJ9hLs2DfG7aQe5UoI0nWt";

    #[test]
    fn json_output_redacts_every_string_and_keeps_every_key() {
        let mut value = serde_json::json!({
            "sessionId": "0b9c4f8e-3d2a-4c1b-9e7f-5a6d8c2b1e0f",
            "tokensBefore": 1234,
            "text": format!("use {KEY_A} now"),
            "keys": { KEY_A: 1, KEY_B: 2 },
        });
        redact_strings(&mut value);
        let printed = value.to_string();
        assert!(!printed.contains(KEY_A) && !printed.contains(KEY_B), "{printed}");
        assert_eq!(value["sessionId"], "0b9c4f8e-3d2a-4c1b-9e7f-5a6d8c2b1e0f");
        assert_eq!(value["tokensBefore"], 1234);
        assert_eq!(value["text"], "use [REDACTED] now");
        let keys = value["keys"].as_object().unwrap();
        assert_eq!(keys.len(), 2, "{keys:?}");
    }

    #[test]
    fn a_preview_redacts_a_secret_its_cut_would_split() {
        let text = format!("deploy with OPENAI_API_KEY={KEY_A} and wait");
        let shown = preview(&text, 40);
        assert!(!shown.contains(&KEY_A[..10]), "{shown}");
        assert!(shown.starts_with("deploy with OPENAI_API_KEY="), "{shown}");
    }

    #[test]
    fn terminal_controls_are_shown_as_json_escapes_that_read_back_the_same() {
        let text = "a\u{1b}[2J b\u{9b}c \u{202e}d\re\r\nf\tg";
        assert_eq!(visible(text), "a\\u001b[2J b\\u009bc \\u202ed\\u000de\r\nf\tg");
        let json = serde_json::to_string(&serde_json::json!({ "t": text })).unwrap();
        let back: serde_json::Value = serde_json::from_str(&visible(&json)).unwrap();
        assert_eq!(back["t"], text);
        assert!(matches!(visible("plain, ü and 日本"), Cow::Borrowed(_)));
    }

    #[test]
    fn preview_collapses_whitespace_and_cuts() {
        assert_eq!(preview("  a\n\n b  ", 10), "a b");
        assert_eq!(preview("abcdefgh", 4), "abcd…");
        assert_eq!(preview("日本語のテキスト", 3), "日本語…");
    }
}
