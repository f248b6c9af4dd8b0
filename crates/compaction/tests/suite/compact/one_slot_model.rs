//! Compaction against a simulated llama-cpp-python 0.3.36 server that behaves as the real one
//! did on this machine (see `tests/wire/llama-cpp-python-0.3.36/README.md`): one slot, the
//! connection closed after each reply, a prompt of `n_ctx` tokens or more refused (an empty
//! `200` stream, or the recorded `400` unstreamed), an output limit lowered to the room the
//! window leaves, no usage in streams, usage in unstreamed answers, and (for the base model)
//! replies that echo the prompt. Its tokenizer counts 3.4 bytes of message text per token, as
//! Gemma's did; a reply token is 4 characters of text, one stream event each.
//!
//! The requests are counted at the server: what the engine reports must equal them.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use compaction::compact::{CompactError, CompactionProgress};
use compaction::store::NewEntry;
use compaction_core::EntryKind;
use compaction_core::settings::CompactionSettings;
use serde_json::json;

use super::super::providers::local_server::local_summarizer;
use super::super::wire_replay::{
    Answer, Chunked, ReplayServer, Seen, content_event, frame, response,
};
use super::{open, session_copy, settings, summary_with_every_fact};

/// Characters of reply text per generated token.
const CHARS_PER_TOKEN: usize = 4;

/// What the simulated model writes.
#[derive(Clone)]
enum Writes {
    /// The base model: the request's own text back (its user message).
    Echo,
    /// An instruction-following model: this summary, padded with detail lines to `tokens`.
    Summary { text: String, tokens: usize },
}

/// The server's token count of a request: its message text at 3.4 bytes per token.
fn prompt_tokens(seen: &Seen) -> u64 {
    let bytes: usize = seen.body["messages"]
        .as_array()
        .map(|messages| messages.iter().filter_map(|m| m["content"].as_str()).map(str::len).sum())
        .unwrap_or(0);
    (bytes as u64 * 10).div_ceil(34)
}

fn asked_tokens(seen: &Seen) -> u64 {
    seen.body["max_tokens"].as_u64().or(seen.body["max_completion_tokens"].as_u64()).unwrap_or(16)
}

/// The reply the model writes for `seen`, as tokens of text.
fn reply_tokens(writes: &Writes, seen: &Seen) -> Vec<String> {
    let text = match writes {
        Writes::Echo => seen.body["messages"][1]["content"].as_str().unwrap_or("").to_owned(),
        Writes::Summary { text, tokens } => {
            let mut text = text.clone();
            let mut line = 0;
            while text.chars().count() < tokens * CHARS_PER_TOKEN {
                line += 1;
                text.push_str(&format!("\n- Detail {line}: the parser keeps its state per line."));
            }
            text
        }
    };
    let chars: Vec<char> = text.chars().collect();
    chars.chunks(CHARS_PER_TOKEN).map(|piece| piece.iter().collect()).collect()
}

/// A stream of `tokens`, one event each, ending with `finish`, in the recorded framing.
fn stream(tokens: &[String], finish: &str) -> Chunked {
    let (bytes, _) = response("normal-stream.http", 4, 1);
    let recorded = Chunked::parse(&bytes);
    let mut frames = vec![recorded.frames[0].clone()];
    for token in tokens {
        frames.push(frame(&content_event("chatcmpl-sim", 1, token, None)));
    }
    frames.push(frame(&content_event("chatcmpl-sim", 1, "", Some(finish))));
    frames.push(recorded.frames.last().unwrap().clone());
    Chunked { head: recorded.head, frames, last_chunk: true }
}

fn json_answer(status: &str, body: &serde_json::Value, close: bool) -> Answer {
    let body = body.to_string();
    let bytes = format!(
        "HTTP/1.1 {status}\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n{body}",
        body.len()
    );
    Answer::Bytes { bytes: bytes.into_bytes(), close }
}

/// How the simulated server answers `seen` with a window of `n_ctx` tokens.
fn answer(n_ctx: u64, writes: &Writes, seen: &Seen) -> Answer {
    if !seen.path.ends_with("/chat/completions") {
        // `/props` is 404 and `/v1/models` tells no window (as recorded).
        return Answer::recorded("models-and-props.http", 2, 1, true);
    }
    let prompt = prompt_tokens(seen);
    let asked = asked_tokens(seen);
    if prompt >= n_ctx {
        if seen.streamed() {
            return Answer::recorded("over-window-stream.http", 1, 1, true);
        }
        let message = format!(
            "This model's maximum context length is {n_ctx} tokens. However, you requested {} \
             tokens ({prompt} in the messages, {asked} in the completion). Please reduce the \
             length of the messages or completion.",
            prompt + asked
        );
        return json_answer(
            "400 Bad Request",
            &json!({"error": {"message": message, "type": "invalid_request_error", "param": "messages", "code": "context_length_exceeded"}}),
            true,
        );
    }
    // The output limit is lowered to the room the window leaves.
    let room = n_ctx - prompt;
    let allowed = usize::try_from(asked.min(room)).unwrap();
    let mut tokens = reply_tokens(writes, seen);
    let finish = if tokens.len() > allowed {
        tokens.truncate(allowed);
        "length"
    } else {
        "stop"
    };
    if seen.streamed() {
        return Answer::SlotThenClose(stream(&tokens, finish));
    }
    json_answer(
        "200 OK",
        &json!({
            "id": "chatcmpl-sim", "object": "chat.completion", "created": 1, "model": "gemma3-270m",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": tokens.concat()}, "logprobs": null, "finish_reason": finish}],
            "usage": {"prompt_tokens": prompt, "completion_tokens": tokens.len(), "total_tokens": prompt + tokens.len() as u64}
        }),
        true,
    )
}

/// The fixture session grown by `turns` long turns (a history of a few thousand tokens).
fn grown_session(turns: usize) -> (tempfile::TempDir, PathBuf) {
    let (dir, path) = session_copy();
    let mut store = open(&path);
    let words = ["parser", "lexer", "state", "line", "comment", "token", "test", "module"];
    for turn in 0..turns {
        let text: String =
            (0..700).map(|n| words[(n * 7 + turn) % words.len()]).collect::<Vec<_>>().join(" ");
        for message in [
            json!({"role": "user", "content": format!("Step {turn}: continue")}),
            json!({"role": "assistant", "content": [{"type": "text", "text": text}]}),
        ] {
            let mut fields = serde_json::Map::new();
            fields.insert("message".into(), message);
            store.append(NewEntry::new("message", fields)).unwrap();
        }
    }
    let mut fields = serde_json::Map::new();
    fields.insert("message".into(), json!({"role": "user", "content": "And now?"}));
    store.append(NewEntry::new("message", fields)).unwrap();
    (dir, path)
}

async fn start(n_ctx: u64, writes: Writes) -> ReplayServer {
    ReplayServer::start(false, move |_, seen| answer(n_ctx, &writes, seen)).await
}

async fn compact(
    path: &std::path::Path,
    server: &ReplayServer,
    settings: &CompactionSettings,
) -> (Result<compaction::compact::CompactOutcome, CompactError>, Vec<CompactionProgress>) {
    // The window a user who gave none plans with (the model table's, for gemma3-270m).
    let summarizer = local_summarizer(server.url()).with_context_window(131_072);
    let events = Arc::new(Mutex::new(Vec::new()));
    let result = super::local_server::run_with(path, &summarizer, settings, &events).await;
    let events = events.lock().unwrap().clone();
    (result, events)
}

/// An instruction-following model on an 8192-token server, with no window given: the first
/// reply is cut at the room the window leaves (short of the limit asked for), the engine
/// learns the window from it (the prompt's tokens, asked unstreamed, plus the reply's) instead
/// of raising the output limit, plans again for it, and the summary passes. The calls
/// reported are the requests the server received, in order.
#[tokio::test]
async fn a_reply_cut_at_the_room_left_teaches_the_window() {
    const N_CTX: u64 = 8192;
    let (_dir, path) = grown_session(4);
    let summary = summary_with_every_fact(&path, "Comments in the lexer");
    let server = start(N_CTX, Writes::Summary { text: summary, tokens: 1500 }).await;
    let (result, events) = compact(&path, &server, &settings()).await;
    let prompts: Vec<(u64, u64)> =
        server.completions().iter().map(|seen| (prompt_tokens(seen), asked_tokens(seen))).collect();
    let outcome = result.unwrap_or_else(|error| panic!("{error}; requests {prompts:?}"));
    // A request fit, but left less room than it asked for; its prompt was asked for once
    // more unstreamed (output limit 1) to learn its size.
    let probe = prompts.iter().position(|&(_, asked)| asked == 1).expect("no probe");
    let (prompt, asked) = prompts[probe - 1];
    assert!(prompt < N_CTX && prompt + asked > N_CTX, "{prompts:?}");
    assert_eq!(prompts[probe].0, prompt);
    let learned: Vec<u64> = events
        .iter()
        .filter_map(|event| {
            if let CompactionProgress::WindowLearned { window, .. } = event {
                Some(*window)
            } else {
                None
            }
        })
        .collect();
    assert_eq!(learned, [N_CTX], "{prompts:?}");
    // Never a larger output limit than the first one.
    assert!(prompts.iter().all(|&(_, later)| later <= asked), "{prompts:?}");
    // Every request after the window was learned fits it with its whole output limit.
    assert!(prompts[probe..].iter().all(|&(p, a)| p + a <= N_CTX), "{prompts:?}");
    assert_eq!(outcome.summarizer_calls, server.completions().len());
    assert!(outcome.quality.is_some_and(|quality| quality.fallback.is_none()));
    // Calls are numbered in the order they are sent.
    let numbers: Vec<usize> = events
        .iter()
        .filter_map(|event| {
            if let CompactionProgress::Call { call, .. } = event { Some(*call) } else { None }
        })
        .collect();
    // Each plan's calls count up from 1 (a plan made again starts again at 1).
    let in_order = numbers.windows(2).all(|pair| pair[1] == 1 || pair[1] == pair[0] + 1);
    assert!(numbers.first() == Some(&1) && in_order, "calls out of order: {numbers:?}");
}

/// The base model echoes: a cut echo teaches the window too, an echo is never answered with a
/// larger output limit, and after the gate's retry the compaction fails with the file
/// byte-identical and the requests the server received counted. With `fallbackToOffline`
/// the offline summarizer writes it, the entry says so, and its usage is that of the model's
/// unstreamed answers (the streamed ones report none, so the sum is not claimed).
#[tokio::test]
async fn an_echoing_model_is_recognised_and_never_given_more_room() {
    const N_CTX: u64 = 8192;
    let (_dir, path) = grown_session(4);
    let before = std::fs::read(&path).unwrap();
    let server = start(N_CTX, Writes::Echo).await;
    let (result, events) = compact(&path, &server, &settings()).await;
    let error = result.unwrap_err();
    let CompactError::Unusable { requests, problems, .. } = &error else { panic!("{error}") };
    assert_eq!(*requests, server.completions().len(), "{error}");
    assert!(problems.iter().any(|problem| problem.contains("echo")), "{problems:?}");
    assert!(error.to_string().contains("the session is unchanged"), "{error}");
    assert_eq!(std::fs::read(&path).unwrap(), before);
    let asked: Vec<u64> = server.completions().iter().map(asked_tokens).collect();
    let first = asked[0];
    assert!(asked.iter().all(|&limit| limit <= first), "the output limit grew: {asked:?}");
    assert!(
        events
            .iter()
            .any(|event| matches!(event, CompactionProgress::WindowLearned { window: N_CTX, .. })),
        "the window was not learned"
    );

    let server = start(N_CTX, Writes::Echo).await;
    let fallback = CompactionSettings { fallback_to_offline: true, ..settings() };
    let (result, events) = compact(&path, &server, &fallback).await;
    let outcome = result.unwrap();
    let quality = outcome.quality.clone().unwrap();
    let recorded = quality.fallback.unwrap();
    assert_eq!(recorded.summarizer, "offline");
    assert_eq!(recorded.requests, server.completions().len());
    assert!(events.iter().any(|event| matches!(event, CompactionProgress::Fallback { .. })));
    // The model's requests and then the offline summarizer's calls.
    assert!(outcome.summarizer_calls > server.completions().len());
    // The unstreamed answers reported usage; the streamed ones did not, so none is stored.
    assert!(outcome.usage.input_tokens > 0, "{:?}", outcome.usage);
    assert!(outcome.usage.unreported_requests > 0);
    let session = open(&path).into_session();
    let EntryKind::Compaction(data) = &session.entries()[session.leaf().unwrap()].kind else {
        panic!("not a compaction")
    };
    assert_eq!(data.details.as_ref().unwrap()["quality"]["fallback"]["summarizer"], "offline");
}

/// A window of 8192 told by the user compacts with the default budgets: every request fits
/// with its whole output limit, none is refused or cut.
#[tokio::test]
async fn an_8192_window_given_compacts_with_default_budgets() {
    const N_CTX: u64 = 8192;
    let (_dir, path) = grown_session(4);
    let summary = summary_with_every_fact(&path, "Comments in the lexer");
    let server = start(N_CTX, Writes::Summary { text: summary, tokens: 600 }).await;
    let summarizer = local_summarizer(server.url()).with_context_window(N_CTX);
    let events = Arc::new(Mutex::new(Vec::new()));
    let outcome =
        super::local_server::run_with(&path, &summarizer, &settings(), &events).await.unwrap();
    for seen in server.completions() {
        assert!(
            prompt_tokens(&seen) + asked_tokens(&seen) <= N_CTX,
            "{:?}",
            seen.body["max_tokens"]
        );
    }
    assert_eq!(outcome.summarizer_calls, server.completions().len());
}

/// One generated server behaviour: the window the server runs, what its model writes, the
/// history's size, whether the user gave the window, and `fallbackToOffline`.
#[derive(Debug, Clone)]
struct Instance {
    n_ctx: u64,
    echo: bool,
    reply_tokens: usize,
    turns: usize,
    window_given: bool,
    fallback: bool,
}

/// The instances, in a fixed order; `index % 3 == 0` is the TEST part (chosen before the
/// engine's rules were written), the rest DEV.
fn instances() -> Vec<Instance> {
    let mut state = 0x2545_f491_4f6c_dd1d_u64;
    let mut next = |n: usize| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state % n as u64) as usize
    };
    (0..24)
        .map(|_| Instance {
            n_ctx: [4096, 6144, 8192, 12288, 16384][next(5)],
            echo: next(3) == 0,
            reply_tokens: [300, 900, 1500][next(3)],
            turns: 1 + next(5),
            window_given: next(2) == 0,
            fallback: next(2) == 0,
        })
        .collect()
}

/// What must hold for every instance; `Err` names what did not.
async fn check_instance(instance: &Instance) -> Result<(), String> {
    let (_dir, path) = grown_session(instance.turns);
    let before = std::fs::read(&path).unwrap();
    let writes = if instance.echo {
        Writes::Echo
    } else {
        let text = summary_with_every_fact(&path, "Comments in the lexer");
        Writes::Summary { text, tokens: instance.reply_tokens }
    };
    let server = start(instance.n_ctx, writes).await;
    let window = if instance.window_given { instance.n_ctx } else { 131_072 };
    let summarizer = local_summarizer(server.url()).with_context_window(window);
    let settings = CompactionSettings { fallback_to_offline: instance.fallback, ..settings() };
    let events = Arc::new(Mutex::new(Vec::new()));
    let result = super::local_server::run_with(&path, &summarizer, &settings, &events).await;
    let received = server.completions().len();
    let asked: Vec<u64> = server.completions().iter().map(asked_tokens).collect();
    if instance.echo && asked.iter().any(|&limit| limit > asked[0]) {
        return Err(format!("an echo was given a larger output limit: {asked:?}"));
    }
    match result {
        Err(error) => {
            if std::fs::read(&path).unwrap() != before {
                return Err(format!("the file changed after: {error}"));
            }
            if let CompactError::Unusable { requests, .. } = &error
                && *requests != received
            {
                return Err(format!("reported {requests} requests, the server got {received}"));
            }
            // A window of 8192 or more compacts a model that follows instructions, unless the
            // summary it wrote would make the context larger than it is (measured with the
            // same estimate on both sides): then refusing is right.
            let grows = matches!(error, CompactError::NotReducing { .. });
            if instance.n_ctx >= 8192 && !instance.echo && !grows {
                return Err(format!("a {} window did not compact: {error}", instance.n_ctx));
            }
            if instance.echo && instance.fallback {
                return Err(format!("fallbackToOffline did not write it: {error}"));
            }
            Ok(())
        }
        Ok(outcome) => {
            let quality = outcome.quality.clone().ok_or("no quality report")?;
            match &quality.fallback {
                Some(fallback) => {
                    if fallback.requests != received {
                        return Err(format!(
                            "fallback after {} requests, the server got {received}",
                            fallback.requests
                        ));
                    }
                }
                None => {
                    if instance.echo {
                        return Err("an echo was stored".to_owned());
                    }
                    if outcome.summarizer_calls != received {
                        return Err(format!(
                            "reported {} calls, the server got {received}",
                            outcome.summarizer_calls
                        ));
                    }
                }
            }
            let session = open(&path).into_session();
            let EntryKind::Compaction(data) = &session.entries()[session.leaf().unwrap()].kind
            else {
                return Err("no compaction entry".to_owned());
            };
            if compaction_core::quality::echo(&data.summary).is_some() {
                return Err("the stored summary echoes the request".to_owned());
            }
            Ok(())
        }
    }
}

async fn check_part(test_part: bool) {
    let mut failures = Vec::new();
    let mut total = 0;
    for (index, instance) in instances().into_iter().enumerate() {
        if (index % 3 == 0) != test_part {
            continue;
        }
        total += 1;
        let verdict = check_instance(&instance).await;
        eprintln!("{index}: {instance:?}: {verdict:?}");
        if let Err(problem) = verdict {
            failures.push(format!("{instance:?}: {problem}"));
        }
    }
    let part = if test_part { "test" } else { "dev" };
    eprintln!(
        "one-slot servers ({part}): {} of {total} hold every invariant",
        total - failures.len()
    );
    assert!(failures.is_empty(), "{part}: {failures:#?}");
}

#[tokio::test]
async fn generated_one_slot_servers_dev() {
    check_part(false).await;
}

#[tokio::test]
async fn generated_one_slot_servers_test() {
    check_part(true).await;
}
