//! A scripted HTTP server for provider tests.
//!
//! It replays real wire formats: each completion request (`…/chat/completions`,
//! `/v1/messages`) receives the next queued [`Reply`] (or the reply a responder function
//! chooses from the request, or the fallback reply once the queue is empty), streamed in
//! chunks with delays when it is an SSE reply, and every completion request's path, headers
//! and JSON body is recorded for assertions. Other requests (a summarizer asking a local
//! server for its window: `/props`, `/v1/models`, `/api/show`) get `404` unless
//! [`MockServer::answer_others`] says otherwise; they never take a queued reply.

use std::collections::{BTreeMap, VecDeque};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, Uri};
use axum::response::Response;

/// How a streamed reply ends after its chunks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StreamEnd {
    /// Close the body normally.
    Close,
    /// Abort the connection mid-body (a cut stream).
    Abort,
    /// Send nothing more and keep the connection open for a long time.
    Stall,
}

/// One scripted answer.
#[derive(Debug, Clone)]
pub enum Reply {
    /// A complete body with a status code and extra headers.
    Body { status: u16, body: String, headers: Vec<(String, String)> },
    /// No response at all (not even headers) for a minute.
    Hang,
    /// A `200 text/event-stream` body sent chunk by chunk with `delay` before each chunk.
    Stream { chunks: Vec<String>, delay: Duration, end: StreamEnd },
}

impl Reply {
    /// A JSON (or any text) body with `status`.
    pub fn status(status: u16, body: impl Into<String>) -> Self {
        Reply::Body {
            status,
            body: body.into(),
            headers: vec![("content-type".into(), "application/json".into())],
        }
    }

    /// Adds a response header (for `Reply::Body`).
    pub fn header(mut self, name: &str, value: &str) -> Self {
        if let Reply::Body { headers, .. } = &mut self {
            headers.push((name.to_owned(), value.to_owned()));
        }
        self
    }

    /// An SSE stream that ends normally, with a small delay between chunks.
    pub fn stream(chunks: Vec<String>) -> Self {
        Reply::Stream { chunks, delay: Duration::from_millis(2), end: StreamEnd::Close }
    }

    /// The same stream, ending as `end`.
    pub fn ending(mut self, new_end: StreamEnd) -> Self {
        if let Reply::Stream { end, .. } = &mut self {
            *end = new_end;
        }
        self
    }
}

/// A request as the server saw it.
#[derive(Debug, Clone)]
pub struct RecordedRequest {
    pub path: String,
    /// Header names in lower case.
    pub headers: BTreeMap<String, String>,
    /// The body parsed as JSON (`Null` when it was not JSON).
    pub body: serde_json::Value,
}

/// Chooses the reply from the request (for servers whose answer depends on what was sent).
type Responder = Arc<dyn Fn(&RecordedRequest) -> Reply + Send + Sync>;

#[derive(Default)]
struct Script {
    queue: VecDeque<Reply>,
    responder: Option<Responder>,
    fallback: Option<Reply>,
    others: Option<Responder>,
    requests: Vec<RecordedRequest>,
}

/// A running mock server on 127.0.0.1 with a random port.
pub struct MockServer {
    url: String,
    script: Arc<Mutex<Script>>,
}

impl MockServer {
    /// Binds and starts serving on the current runtime.
    pub async fn start() -> Self {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let address = listener.local_addr().unwrap();
        let script = Arc::new(Mutex::new(Script::default()));
        let app = Router::new().fallback(handle).with_state(Arc::clone(&script));
        tokio::spawn(async move {
            axum::serve(listener, app).await.unwrap();
        });
        MockServer { url: format!("http://{address}"), script }
    }

    /// `http://127.0.0.1:<port>`, without trailing slash.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// Queues `reply` for the next request not yet answered.
    pub fn push(&self, reply: Reply) {
        self.script.lock().unwrap().queue.push_back(reply);
    }

    /// Answers with `reply` whenever the queue is empty.
    pub fn always(&self, reply: Reply) {
        self.script.lock().unwrap().fallback = Some(reply);
    }

    /// Answers with `respond(request)` whenever the queue is empty (before the fallback).
    pub fn respond_with(
        &self,
        respond: impl Fn(&RecordedRequest) -> Reply + Send + Sync + 'static,
    ) {
        self.script.lock().unwrap().responder = Some(Arc::new(respond));
    }

    /// Answers requests other than completions with `respond(request)`.
    pub fn answer_others(
        &self,
        respond: impl Fn(&RecordedRequest) -> Reply + Send + Sync + 'static,
    ) {
        self.script.lock().unwrap().others = Some(Arc::new(respond));
    }

    /// Every completion request received so far, in order.
    pub fn requests(&self) -> Vec<RecordedRequest> {
        self.script.lock().unwrap().requests.clone()
    }
}

async fn handle(
    State(script): State<Arc<Mutex<Script>>>,
    uri: Uri,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let reply = {
        let mut script = script.lock().unwrap();
        let request = RecordedRequest {
            path: uri.path().to_owned(),
            headers: headers
                .iter()
                .map(|(name, value)| {
                    (
                        name.as_str().to_owned(),
                        String::from_utf8_lossy(value.as_bytes()).into_owned(),
                    )
                })
                .collect(),
            body: serde_json::from_slice(&body).unwrap_or(serde_json::Value::Null),
        };
        let completion =
            request.path.ends_with("/chat/completions") || request.path.ends_with("/v1/messages");
        if !completion {
            let others = script.others.clone();
            let not_found = || Reply::status(404, r#"{"detail":"Not Found"}"#);
            Some(others.map_or_else(not_found, |respond| respond(&request)))
        } else {
            let responder = script.responder.clone();
            let reply = script
                .queue
                .pop_front()
                .or_else(|| responder.map(|respond| respond(&request)))
                .or_else(|| script.fallback.clone());
            script.requests.push(request);
            reply
        }
    };
    match reply {
        None => Response::builder()
            .status(StatusCode::NOT_IMPLEMENTED)
            .body(Body::from("no scripted reply"))
            .unwrap(),
        Some(Reply::Hang) => {
            tokio::time::sleep(Duration::from_secs(60)).await;
            Response::builder().status(StatusCode::GATEWAY_TIMEOUT).body(Body::empty()).unwrap()
        }
        Some(Reply::Body { status, body, headers }) => {
            let mut builder = Response::builder().status(status);
            for (name, value) in headers {
                builder = builder.header(name, value);
            }
            builder.body(Body::from(body)).unwrap()
        }
        Some(Reply::Stream { chunks, delay, end }) => {
            let (sender, receiver) =
                tokio::sync::mpsc::channel::<Result<Vec<u8>, std::io::Error>>(1);
            tokio::spawn(async move {
                for chunk in chunks {
                    tokio::time::sleep(delay).await;
                    if sender.send(Ok(chunk.into_bytes())).await.is_err() {
                        return;
                    }
                }
                match end {
                    StreamEnd::Close => {}
                    StreamEnd::Abort => {
                        tokio::time::sleep(delay).await;
                        let _ = sender.send(Err(std::io::Error::other("scripted abort"))).await;
                    }
                    StreamEnd::Stall => {
                        tokio::time::sleep(Duration::from_secs(60)).await;
                        drop(sender);
                    }
                }
            });
            let stream = futures_util::stream::unfold(receiver, |mut receiver| async move {
                receiver.recv().await.map(|item| (item, receiver))
            });
            Response::builder()
                .status(StatusCode::OK)
                .header("content-type", "text/event-stream")
                .header("cache-control", "no-cache")
                .body(Body::from_stream(stream))
                .unwrap()
        }
    }
}
