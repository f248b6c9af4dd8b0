//! Text as a terminal shows it. Compilers, test runners and loggers colour what they print
//! when they think a terminal reads it, and agents keep those bytes: escape sequences (SGR
//! colours, cursor moves, hyperlinks), carriage returns that redraw a progress line,
//! backspaces of overstruck text. Every rule of the summarizer reads lines as words
//! (`error[E0308]: …` at a line's start, a log line's timestamp and level, `12 passed`), and
//! a summary is read by a model that cannot see colours: the summarizer reads each message
//! as the terminal would have shown it. The escape sequences are parsed by `vte`, the state
//! machine terminal emulators use; what the screen keeps of a line is decided here.

use std::borrow::Cow;

use crate::message::{AgentMessage, Content, ContentBlock};

/// Whether `text` holds anything a terminal would obey rather than show: ESC, a C1
/// control, a carriage return not ending a line, a backspace, or another C0 control but
/// tab and newline.
fn needs_terminal(text: &str) -> bool {
    let bytes = text.as_bytes();
    bytes.iter().enumerate().any(|(at, &byte)| match byte {
        b'\r' => bytes.get(at + 1) != Some(&b'\n'),
        b'\n' | b'\t' => false,
        0..0x20 | 0x7f => true,
        _ => false,
    }) || text.contains(|c: char| ('\u{80}'..='\u{9f}').contains(&c))
}

/// What the screen holds while `vte` reads the text.
struct Screen {
    out: String,
    /// Where the current line starts in `out`.
    line_start: usize,
    /// A carriage return was read: the next character printed on this line starts it over.
    returned: bool,
}

impl vte::Perform for Screen {
    fn print(&mut self, c: char) {
        if self.returned {
            // A progress line redrawn (`\r 40%\r 80%\r done`): what stays on screen is the
            // last drawing. (A terminal would leave the old line's tail where the new text is
            // shorter; the last drawing alone is what the program meant.)
            self.out.truncate(self.line_start);
            self.returned = false;
        }
        self.out.push(c);
    }

    fn execute(&mut self, byte: u8) {
        match byte {
            b'\n' => {
                self.out.push('\n');
                self.line_start = self.out.len();
                self.returned = false;
            }
            b'\t' => self.out.push('\t'),
            b'\r' => self.returned = true,
            // Backspace: overstrike (`H\x08H`, man's bold) and a spinner's erasures keep
            // the character printed last.
            0x08 if self.out.len() > self.line_start => {
                self.out.pop();
            }
            _ => {}
        }
    }
}

/// `text` as a terminal would show it: escape sequences and controls gone, a line redrawn
/// after carriage returns kept as last drawn, tabs and newlines kept. Borrowed when there
/// is nothing to do.
pub(super) fn as_shown(text: &str) -> Cow<'_, str> {
    if !needs_terminal(text) {
        return Cow::Borrowed(text);
    }
    let mut screen =
        Screen { out: String::with_capacity(text.len()), line_start: 0, returned: false };
    let mut parser = vte::Parser::new();
    parser.advance(&mut screen, text.as_bytes());
    Cow::Owned(screen.out)
}

/// Rewrites `text` in place when the terminal would show something else.
fn show(text: &mut String) {
    if let Cow::Owned(shown) = as_shown(text) {
        *text = shown;
    }
}

fn show_content(content: &mut Content) {
    match content {
        Content::Text(text) => show(text),
        Content::Blocks(blocks) => show_blocks(blocks),
    }
}

fn show_blocks(blocks: &mut [ContentBlock]) {
    for block in blocks {
        if let ContentBlock::Text(text) = block {
            show(&mut text.text);
        }
    }
}

/// Whether `message` has a text the terminal would show otherwise.
fn message_needs_terminal(message: &AgentMessage) -> bool {
    let block_needs = |block: &ContentBlock| match block {
        ContentBlock::Text(text) => needs_terminal(&text.text),
        ContentBlock::Image(_)
        | ContentBlock::Thinking(_)
        | ContentBlock::ToolCall(_)
        | ContentBlock::Other(_) => false,
    };
    let content_needs = |content: &Content| match content {
        Content::Text(text) => needs_terminal(text),
        Content::Blocks(blocks) => blocks.iter().any(block_needs),
    };
    match message {
        AgentMessage::User(user) => content_needs(&user.content),
        AgentMessage::Assistant(assistant) => assistant.content.iter().any(block_needs),
        AgentMessage::ToolResult(result) => content_needs(&result.content),
        AgentMessage::BashExecution(bash) => needs_terminal(&bash.output),
        AgentMessage::Custom(custom) => content_needs(&custom.content),
        AgentMessage::System(_)
        | AgentMessage::BranchSummary(_)
        | AgentMessage::CompactionSummary(_)
        | AgentMessage::Other(_) => false,
    }
}

/// The messages as a terminal would have shown their texts (the user's, the assistant's,
/// tool results, `!` commands' output, extensions' messages); borrowed when none needs it,
/// and only the texts that need it are rewritten.
pub(super) fn messages_as_shown(messages: &[AgentMessage]) -> Cow<'_, [AgentMessage]> {
    if !messages.iter().any(message_needs_terminal) {
        return Cow::Borrowed(messages);
    }
    let shown = messages
        .iter()
        .map(|message| {
            let mut message = message.clone();
            match &mut message {
                AgentMessage::User(user) => show_content(&mut user.content),
                AgentMessage::Assistant(assistant) => show_blocks(&mut assistant.content),
                AgentMessage::ToolResult(result) => show_content(&mut result.content),
                AgentMessage::BashExecution(bash) => show(&mut bash.output),
                AgentMessage::Custom(custom) => show_content(&mut custom.content),
                AgentMessage::System(_)
                | AgentMessage::BranchSummary(_)
                | AgentMessage::CompactionSummary(_)
                | AgentMessage::Other(_) => {}
            }
            message
        })
        .collect();
    Cow::Owned(shown)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn colours_and_styles_are_removed_and_words_kept() {
        assert_eq!(
            as_shown("\x1b[1m\x1b[31merror[E0308]\x1b[39m: mismatched types\x1b[0m"),
            "error[E0308]: mismatched types"
        );
        assert_eq!(
            as_shown("\x1b[2m2025-10-03T22:38:52Z\x1b[0m \x1b[31mERROR\x1b[0m exec error"),
            "2025-10-03T22:38:52Z ERROR exec error"
        );
        // 256 colours, true colour, a hyperlink (OSC 8), a cursor move.
        assert_eq!(
            as_shown(
                "\x1b[38;5;12m-->\x1b[0m \x1b[38;2;255;0;0mred\x1b[0m \x1b]8;;https://x.dev\x07link\x1b]8;;\x07\x1b[2K"
            ),
            "--> red link"
        );
    }

    #[test]
    fn tabs_newlines_and_line_ends_stay() {
        assert_eq!(
            as_shown("ok  \tgithub.com/acme/store\t0.41s\r\nnext"),
            "ok  \tgithub.com/acme/store\t0.41s\r\nnext"
        );
        assert_eq!(as_shown("a\x1b[0m\tb\nc"), "a\tb\nc");
        assert!(matches!(as_shown("plain text, ünïcode, 日本語\n"), Cow::Borrowed(_)));
    }

    #[test]
    fn a_redrawn_line_keeps_its_last_drawing() {
        assert_eq!(
            as_shown("Downloading  10%\rDownloading  60%\rDownloading 100%\nDone"),
            "Downloading 100%\nDone"
        );
        // Overstrike and a spinner's erasures.
        assert_eq!(as_shown("N\x08NAME\x08\x08\x08\x08NAME"), "NAME");
        assert_eq!(as_shown("working |\x08/\x08-\x08 done"), "working  done");
    }

    #[test]
    fn only_messages_that_need_it_are_rewritten() {
        let plain: Vec<AgentMessage> = vec![
            serde_json::from_value(serde_json::json!({
                "role": "user", "content": "run the tests", "timestamp": 1
            }))
            .unwrap(),
        ];
        assert!(matches!(messages_as_shown(&plain), Cow::Borrowed(_)));
        let coloured: Vec<AgentMessage> = vec![serde_json::from_value(serde_json::json!({
            "role": "toolResult", "toolCallId": "a", "toolName": "bash", "isError": false,
            "content": [{"type": "text", "text": "\x1b[32m12 passed\x1b[0m in 0.4s"}], "timestamp": 1
        }))
        .unwrap()];
        let shown = messages_as_shown(&coloured);
        let AgentMessage::ToolResult(result) = &shown[0] else { panic!("a tool result") };
        assert_eq!(result.content.joined_text(), "12 passed in 0.4s");
    }
}
