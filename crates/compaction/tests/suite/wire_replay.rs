//! A server on 127.0.0.1 that answers with the exact bytes a real server sent.
//!
//! The captures under `tests/wire/` (see the README there) hold every byte llama-cpp-python
//! 0.3.36 sent for each behaviour: status line, headers, chunk-size lines, SSE events, the
//! zero-size last chunk or the connection closing. [`ReplayServer`] speaks raw TCP, so
//! nothing is re-encoded: a response is written as recorded, and a response the server never
//! finished (`complete=no`) ends with the connection closing, as it did.
//!
//! It also plays the server's one model slot ([`Answer::Slot`]): response headers at once,
//! events only once the model is free, and, like llama-cpp-python's default
//! `interrupt_requests=True`, a running stream that sees another request waiting sends
//! `data: [DONE]` and stops, the way `concurrent-role-only.http` recorded it.

use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// The folder of the llama-cpp-python 0.3.36 captures.
pub fn capture_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/wire/llama-cpp-python-0.3.36")
}

/// One block of a capture file.
#[derive(Debug, Clone)]
pub struct Block {
    /// `request`, `fields`, `response`, `timeline` or `end`.
    pub kind: String,
    /// The `key=value` pairs of its header line.
    pub attrs: Vec<(String, String)>,
    /// Its bytes (exact for blocks with `bytes=N`).
    pub body: Vec<u8>,
}

impl Block {
    /// The value of attribute `key`.
    pub fn attr(&self, key: &str) -> Option<&str> {
        self.attrs.iter().find(|(name, _)| name == key).map(|(_, value)| value.as_str())
    }
}

/// Reads a capture file as the README describes it.
pub fn read_capture(name: &str) -> Vec<Block> {
    let data = std::fs::read(capture_dir().join(name)).unwrap();
    let mut at = 0;
    while data[at..].starts_with(b"#") {
        at += data[at..].iter().position(|&b| b == b'\n').unwrap() + 1;
    }
    let mut blocks = Vec::new();
    while at < data.len() {
        let end = at + data[at..].iter().position(|&b| b == b'\n').unwrap();
        let header = String::from_utf8(data[at + 3..end].to_vec()).unwrap();
        let mut words = header.split(' ');
        let kind = words.next().unwrap().to_owned();
        let attrs: Vec<(String, String)> = words
            .filter_map(|word| word.split_once('='))
            .map(|(key, value)| (key.to_owned(), value.to_owned()))
            .collect();
        at = end + 1;
        let bytes: Option<usize> =
            attrs.iter().find(|(key, _)| key == "bytes").map(|(_, n)| n.parse().unwrap());
        let body = if let Some(length) = bytes {
            let body = data[at..at + length].to_vec();
            at += length + 1;
            body
        } else {
            let next = find(&data[at - 1..], b"\n@@ ").map(|offset| at - 1 + offset);
            match next {
                Some(next) => {
                    let body = data[at..next + 1].to_vec();
                    at = next + 1;
                    body
                }
                None => {
                    let body = data[at..].to_vec();
                    at = data.len();
                    body
                }
            }
        };
        blocks.push(Block { kind, attrs, body });
    }
    blocks
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|window| window == needle)
}

/// The recorded response of exchange `exchange` on connection `conn`, and whether the
/// server finished it.
pub fn response(name: &str, conn: u32, exchange: u32) -> (Vec<u8>, bool) {
    let (conn, exchange) = (conn.to_string(), exchange.to_string());
    let block = read_capture(name)
        .into_iter()
        .find(|block| {
            block.kind == "response"
                && block.attr("conn") == Some(conn.as_str())
                && block.attr("exchange") == Some(exchange.as_str())
        })
        .unwrap();
    let complete = block.attr("complete") == Some("yes");
    (block.body, complete)
}

/// A recorded chunked response taken apart: the head (status line and headers), each chunk
/// as sent (size line, data, CRLF), and whether the zero-size last chunk followed.
#[derive(Debug, Clone)]
pub struct Chunked {
    pub head: Vec<u8>,
    pub frames: Vec<Vec<u8>>,
    pub last_chunk: bool,
}

impl Chunked {
    /// Splits a recorded response with `Transfer-Encoding: chunked`.
    pub fn parse(bytes: &[u8]) -> Self {
        let head_end = find(bytes, b"\r\n\r\n").unwrap() + 4;
        let mut frames = Vec::new();
        let mut at = head_end;
        let mut last_chunk = false;
        while at < bytes.len() {
            let line_end = at + find(&bytes[at..], b"\r\n").unwrap();
            let size =
                usize::from_str_radix(std::str::from_utf8(&bytes[at..line_end]).unwrap(), 16)
                    .unwrap();
            if size == 0 {
                last_chunk = true;
                break;
            }
            let end = line_end + 2 + size + 2;
            frames.push(bytes[at..end].to_vec());
            at = end;
        }
        Chunked { head: bytes[..head_end].to_vec(), frames, last_chunk }
    }

    /// The SSE data of a frame (without the `data: ` prefix and the blank line).
    pub fn data(frame: &[u8]) -> String {
        let text = String::from_utf8_lossy(frame).into_owned();
        let start = text.find("\r\n").unwrap() + 2;
        text[start..text.len() - 2].trim_end().trim_start_matches("data: ").to_owned()
    }
}

/// One chunk as llama-cpp-python frames it: hex size, CRLF, the bytes, CRLF.
pub fn frame(data: &str) -> Vec<u8> {
    format!("{:x}\r\n{data}\r\n", data.len()).into_bytes()
}

/// `data: {...}\n\n` for a content delta in llama-cpp-python's format (Python's
/// `json.dumps`: `", "` and `": "` separators, non-ASCII as `\uXXXX`), with the id and
/// creation time of a recorded reply.
pub fn content_event(id: &str, created: u64, content: &str, finish: Option<&str>) -> String {
    let delta = if finish.is_some() {
        "{}".to_owned()
    } else {
        format!("{{\"content\": {}}}", python_string(content))
    };
    let finish = finish.map_or("null".to_owned(), |reason| format!("\"{reason}\""));
    format!(
        "data: {{\"id\": \"{id}\", \"model\": \"gemma3-270m\", \"created\": {created}, \"object\": \"chat.completion.chunk\", \"choices\": [{{\"index\": 0, \"delta\": {delta}, \"logprobs\": null, \"finish_reason\": {finish}}}]}}\n\n"
    )
}

/// A string as Python's `json.dumps` writes it (ASCII only).
fn python_string(text: &str) -> String {
    let mut out = String::from("\"");
    for unit in text.encode_utf16() {
        match unit {
            0x22 => out.push_str("\\\""),
            0x5c => out.push_str("\\\\"),
            0x0a => out.push_str("\\n"),
            0x0d => out.push_str("\\r"),
            0x09 => out.push_str("\\t"),
            0x20..=0x7e => out.push(char::from(unit as u8)),
            other => out.push_str(&format!("\\u{other:04x}")),
        }
    }
    out.push('"');
    out
}

/// A streamed reply writing `text`, framed exactly as llama-cpp-python frames one: the head
/// and role chunk of `normal-stream.http`, one content chunk per piece of 48 characters
/// (the server sends one per token; fewer keep the tests fast), the `stop` chunk, `data: [DONE]` and the last chunk.
pub fn stream_of(text: &str) -> Chunked {
    let (bytes, _) = response("normal-stream.http", 4, 1);
    let recorded = Chunked::parse(&bytes);
    let role = Chunked::data(&recorded.frames[0]);
    let role_json: serde_json::Value = serde_json::from_str(&role).unwrap();
    let id = role_json["id"].as_str().unwrap().to_owned();
    let created = role_json["created"].as_u64().unwrap();
    let mut frames = vec![recorded.frames[0].clone()];
    let chars: Vec<char> = text.chars().collect();
    for piece in chars.chunks(48) {
        let piece: String = piece.iter().collect();
        frames.push(frame(&content_event(&id, created, &piece, None)));
    }
    frames.push(frame(&content_event(&id, created, "", Some("stop"))));
    frames.push(recorded.frames.last().unwrap().clone());
    Chunked { head: recorded.head, frames, last_chunk: true }
}

/// What the server answers to one request.
#[derive(Debug, Clone)]
pub enum Answer {
    /// Write these bytes; then close the connection when `close` (the server did, or never
    /// finished the response), else wait for the next request on it.
    Bytes { bytes: Vec<u8>, close: bool },
    /// A stream through the model's one slot (see the module docs).
    Slot(Chunked),
    /// A stream through the slot, after which the server closes the connection.
    SlotThenClose(Chunked),
}

impl Answer {
    /// A recorded response, closing the connection when the capture says the server did
    /// (the over-window answers and unfinished responses).
    pub fn recorded(name: &str, conn: u32, exchange: u32, close: bool) -> Self {
        let (bytes, complete) = response(name, conn, exchange);
        Answer::Bytes { bytes, close: close || !complete }
    }
}

/// A request as the server read it.
#[derive(Debug, Clone)]
pub struct Seen {
    pub method: String,
    pub path: String,
    pub body: serde_json::Value,
}

impl Seen {
    /// Whether the request asked for a stream.
    pub fn streamed(&self) -> bool {
        self.body["stream"] == true
    }
}

type Respond = Arc<dyn Fn(usize, &Seen) -> Answer + Send + Sync>;

/// The replaying server (see the module docs).
pub struct ReplayServer {
    url: String,
    seen: Arc<Mutex<Vec<Seen>>>,
    /// Streams a waiting request cut short (role chunk and `[DONE]`).
    pub interrupted: Arc<AtomicUsize>,
}

struct Shared {
    respond: Respond,
    seen: Arc<Mutex<Vec<Seen>>>,
    slot: tokio::sync::Mutex<()>,
    waiting: AtomicUsize,
    interrupt: bool,
    interrupted: Arc<AtomicUsize>,
}

impl ReplayServer {
    /// Serves `respond(n, request)` for the n-th request (from 0). `interrupt` plays
    /// `interrupt_requests=True` for [`Answer::Slot`] streams.
    pub async fn start(
        interrupt: bool,
        respond: impl Fn(usize, &Seen) -> Answer + Send + Sync + 'static,
    ) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let seen = Arc::new(Mutex::new(Vec::new()));
        let interrupted = Arc::new(AtomicUsize::new(0));
        let shared = Arc::new(Shared {
            respond: Arc::new(respond),
            seen: Arc::clone(&seen),
            slot: tokio::sync::Mutex::new(()),
            waiting: AtomicUsize::new(0),
            interrupt,
            interrupted: Arc::clone(&interrupted),
        });
        tokio::spawn(async move {
            while let Ok((socket, _)) = listener.accept().await {
                tokio::spawn(serve(socket, Arc::clone(&shared)));
            }
        });
        ReplayServer { url, seen, interrupted }
    }

    /// `http://127.0.0.1:PORT`.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// Every request read so far, in order.
    pub fn seen(&self) -> Vec<Seen> {
        self.seen.lock().unwrap().clone()
    }

    /// The chat completion requests read so far.
    pub fn completions(&self) -> Vec<Seen> {
        self.seen().into_iter().filter(|seen| seen.path.ends_with("/chat/completions")).collect()
    }
}

/// One connection: requests one after the other (keep-alive) until either side closes.
async fn serve(mut socket: TcpStream, shared: Arc<Shared>) {
    let mut buffer = Vec::new();
    loop {
        let Some(seen) = read_request(&mut socket, &mut buffer).await else { return };
        let index = {
            let mut all = shared.seen.lock().unwrap();
            all.push(seen.clone());
            all.len() - 1
        };
        match (shared.respond)(index, &seen) {
            Answer::Bytes { bytes, close } => {
                if socket.write_all(&bytes).await.is_err() || close {
                    let _ = socket.shutdown().await;
                    return;
                }
            }
            Answer::Slot(chunked) => {
                if !slot_stream(&mut socket, &shared, chunked).await {
                    return;
                }
            }
            Answer::SlotThenClose(chunked) => {
                // The headers first, then the whole reply once the slot is free (no
                // interruption to play: the client sends one request at a time).
                if socket.write_all(&chunked.head).await.is_ok() {
                    let _slot = shared.slot.lock().await;
                    let mut body: Vec<u8> = chunked.frames.concat();
                    body.extend_from_slice(b"0\r\n\r\n");
                    let _ = socket.write_all(&body).await;
                }
                let _ = socket.shutdown().await;
                return;
            }
        }
    }
}

/// Plays one stream through the model slot; false when the connection is gone.
async fn slot_stream(socket: &mut TcpStream, shared: &Shared, chunked: Chunked) -> bool {
    // The headers go out before the model is free, as the server sends them.
    if socket.write_all(&chunked.head).await.is_err() {
        return false;
    }
    shared.waiting.fetch_add(1, Ordering::SeqCst);
    let mut probe = [0_u8; 1];
    let guard = tokio::select! {
        guard = shared.slot.lock() => Some(guard),
        // The client gave up while waiting (it closed the connection).
        _ = socket.read(&mut probe) => None,
    };
    shared.waiting.fetch_sub(1, Ordering::SeqCst);
    let Some(_guard) = guard else { return false };
    // Prompt evaluation.
    tokio::time::sleep(Duration::from_millis(30)).await;
    let last = chunked.frames.len().saturating_sub(1);
    for (number, frame) in chunked.frames.iter().enumerate() {
        if socket.write_all(frame).await.is_err() {
            return false;
        }
        tokio::time::sleep(Duration::from_millis(1)).await;
        if shared.interrupt && number < last && shared.waiting.load(Ordering::SeqCst) > 0 {
            shared.interrupted.fetch_add(1, Ordering::SeqCst);
            let done = frame_bytes("data: [DONE]\n\n");
            let _ = socket.write_all(&done).await;
            break;
        }
    }
    socket.write_all(b"0\r\n\r\n").await.is_ok()
}

fn frame_bytes(data: &str) -> Vec<u8> {
    frame(data)
}

/// Reads one request (head and `content-length` body); `None` when the client closed.
async fn read_request(socket: &mut TcpStream, buffer: &mut Vec<u8>) -> Option<Seen> {
    let mut chunk = [0_u8; 8192];
    let head_end = loop {
        if let Some(at) = find(buffer, b"\r\n\r\n") {
            break at + 4;
        }
        let read = socket.read(&mut chunk).await.ok()?;
        if read == 0 {
            return None;
        }
        buffer.extend_from_slice(&chunk[..read]);
    };
    let head = String::from_utf8_lossy(&buffer[..head_end]).into_owned();
    let mut lines = head.lines();
    let mut request_line = lines.next()?.split(' ');
    let method = request_line.next()?.to_owned();
    let path = request_line.next()?.to_owned();
    let length: usize = lines
        .filter_map(|line| line.split_once(':'))
        .find(|(name, _)| name.trim().eq_ignore_ascii_case("content-length"))
        .and_then(|(_, value)| value.trim().parse().ok())
        .unwrap_or(0);
    while buffer.len() < head_end + length {
        let read = socket.read(&mut chunk).await.ok()?;
        if read == 0 {
            return None;
        }
        buffer.extend_from_slice(&chunk[..read]);
    }
    let body = serde_json::from_slice(&buffer[head_end..head_end + length])
        .unwrap_or(serde_json::Value::Null);
    buffer.drain(..head_end + length);
    Some(Seen { method, path, body })
}
