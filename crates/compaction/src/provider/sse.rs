//! Incremental parser for server-sent events (the `text/event-stream` format).
//!
//! Bytes arrive in arbitrary network chunks; [`SseParser::push`] buffers until a full line is
//! available and yields every event completed so far. Invariant: the events produced do not
//! depend on how the byte stream was split into chunks (a multi-byte character or a CRLF may
//! straddle two reads).

/// One dispatched event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SseEvent {
    /// The `event:` field, when one was sent (otherwise the event type is "message").
    pub event: Option<String>,
    /// The `data:` lines joined with `\n`.
    pub data: String,
}

/// Stateful parser; feed it chunks with [`SseParser::push`], then call
/// [`SseParser::finish`] at the end of the stream.
#[derive(Debug, Default)]
pub struct SseParser {
    /// Bytes of an incomplete line.
    pending: Vec<u8>,
    /// Whether the previous chunk ended with `\r` (a following `\n` belongs to it).
    after_carriage_return: bool,
    /// Whether the stream's first line is still to come (a BOM may start it).
    at_start: bool,
    event: Option<String>,
    data: String,
    has_data: bool,
}

impl SseParser {
    /// A parser at the start of a stream.
    pub fn new() -> Self {
        Self { at_start: true, ..Self::default() }
    }

    /// Feeds one chunk and returns the events it completed.
    pub fn push(&mut self, chunk: &[u8]) -> Vec<SseEvent> {
        let mut events = Vec::new();
        let mut rest = chunk;
        if self.after_carriage_return {
            self.after_carriage_return = false;
            if let Some(stripped) = rest.strip_prefix(b"\n") {
                rest = stripped;
            }
        }
        while let Some(position) = rest.iter().position(|byte| *byte == b'\n' || *byte == b'\r') {
            let terminator = rest[position];
            self.pending.extend_from_slice(&rest[..position]);
            let line = std::mem::take(&mut self.pending);
            self.process_line(&line, &mut events);
            rest = &rest[position + 1..];
            if terminator == b'\r' {
                match rest.first() {
                    Some(b'\n') => rest = &rest[1..],
                    Some(_) => {}
                    None => self.after_carriage_return = true,
                }
            }
        }
        self.pending.extend_from_slice(rest);
        events
    }

    /// Ends the stream: a last line without terminator is processed, and an event whose
    /// blank line never came is dispatched anyway (lenient: some servers close right after
    /// the final `data:` line).
    pub fn finish(&mut self) -> Option<SseEvent> {
        let mut events = Vec::new();
        if !self.pending.is_empty() {
            let line = std::mem::take(&mut self.pending);
            self.process_line(&line, &mut events);
        }
        self.dispatch(&mut events);
        events.pop()
    }

    fn process_line(&mut self, line: &[u8], events: &mut Vec<SseEvent>) {
        let mut line = line;
        if self.at_start {
            self.at_start = false;
            if let Some(stripped) = line.strip_prefix("\u{feff}".as_bytes()) {
                line = stripped;
            }
        }
        if line.is_empty() {
            self.dispatch(events);
            return;
        }
        if line.starts_with(b":") {
            return; // comment / keep-alive
        }
        let (field, value) = match line.iter().position(|byte| *byte == b':') {
            Some(colon) => {
                let value = &line[colon + 1..];
                (&line[..colon], value.strip_prefix(b" ").unwrap_or(value))
            }
            None => (line, &b""[..]),
        };
        let value = String::from_utf8_lossy(value);
        match field {
            b"data" => {
                if self.has_data {
                    self.data.push('\n');
                }
                self.data.push_str(&value);
                self.has_data = true;
            }
            b"event" => self.event = Some(value.into_owned()),
            _ => {} // id, retry and unknown fields do not matter to us
        }
    }

    fn dispatch(&mut self, events: &mut Vec<SseEvent>) {
        let event = self.event.take();
        if !self.has_data {
            return;
        }
        self.has_data = false;
        events.push(SseEvent {
            event: event.filter(|name| !name.is_empty()),
            data: std::mem::take(&mut self.data),
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn parse_chunks(chunks: &[&[u8]]) -> Vec<SseEvent> {
        let mut parser = SseParser::new();
        let mut events = Vec::new();
        for chunk in chunks {
            events.extend(parser.push(chunk));
        }
        events.extend(parser.finish());
        events
    }

    fn event(name: Option<&str>, data: &str) -> SseEvent {
        SseEvent { event: name.map(str::to_owned), data: data.to_owned() }
    }

    #[test]
    fn simple_events() {
        assert_eq!(
            parse_chunks(&[b"data: one\n\ndata: two\n\n"]),
            vec![event(None, "one"), event(None, "two")]
        );
    }

    #[test]
    fn multi_line_data_is_joined() {
        assert_eq!(
            parse_chunks(&[b"data: a\ndata:b\ndata:  c\n\n"]),
            vec![event(None, "a\nb\n c")]
        );
    }

    #[test]
    fn comments_and_unknown_fields_are_ignored() {
        assert_eq!(
            parse_chunks(&[b": keep-alive\n\nid: 7\nretry: 10\ndata: x\nfoo: bar\n\n"]),
            vec![event(None, "x")]
        );
    }

    #[test]
    fn event_names() {
        assert_eq!(
            parse_chunks(&[
                b"event: message_start\ndata: {}\n\nevent: ping\ndata: {\"type\":\"ping\"}\n\n"
            ]),
            vec![event(Some("message_start"), "{}"), event(Some("ping"), "{\"type\":\"ping\"}")]
        );
    }

    #[test]
    fn event_without_data_is_not_dispatched_and_does_not_leak_its_name() {
        assert_eq!(parse_chunks(&[b"event: lonely\n\ndata: x\n\n"]), vec![event(None, "x")]);
    }

    #[test]
    fn crlf_and_cr_line_ends() {
        assert_eq!(
            parse_chunks(&[b"event: a\r\ndata: 1\r\n\r\ndata: 2\r\rdata: 3\n\n"]),
            vec![event(Some("a"), "1"), event(None, "2"), event(None, "3")]
        );
    }

    #[test]
    fn crlf_split_across_reads() {
        assert_eq!(
            parse_chunks(&[b"data: 1\r", b"\n\r", b"\ndata: 2\r\n\r\n"]),
            vec![event(None, "1"), event(None, "2")]
        );
    }

    #[test]
    fn chunking_does_not_matter() {
        let stream =
            "\u{feff}event: e\r\ndata: héllo wörld ✓\r\n\r\n: c\ndata: [DONE]\n\n".as_bytes();
        let whole = parse_chunks(&[stream]);
        assert_eq!(whole, vec![event(Some("e"), "héllo wörld ✓"), event(None, "[DONE]")]);
        for split in 0..stream.len() {
            let (left, right) = stream.split_at(split);
            assert_eq!(parse_chunks(&[left, right]), whole, "split at {split}");
        }
        let bytes: Vec<&[u8]> = stream.chunks(1).collect();
        assert_eq!(parse_chunks(&bytes), whole);
    }

    #[test]
    fn unterminated_final_event_is_dispatched_at_finish() {
        assert_eq!(
            parse_chunks(&[b"data: a\n\ndata: [DONE]"]),
            vec![event(None, "a"), event(None, "[DONE]")]
        );
    }

    #[test]
    fn line_without_colon_is_a_field_with_empty_value() {
        assert_eq!(parse_chunks(&[b"data\n\n"]), vec![event(None, "")]);
    }
}
