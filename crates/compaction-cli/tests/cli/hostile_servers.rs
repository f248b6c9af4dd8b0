//! Servers that answer slowly, attacked by class across the commands that ask them: a body
//! dripped one byte a second, headers dripped one byte a second, a chunked body of one-byte
//! chunks a second apart, a server that reads the request and never answers, and an event
//! stream that sends only keep-alive comments. Every question is bounded in time: the window
//! questions together and `/tokenize` within their short timeout each, a compaction within
//! `--timeout`. Nothing is written when the compaction does not finish.
//!
//! Instances are numbered in the order generated; instance `i` is in the test part when
//! `i % 3 == 0`, else in the dev part (a rule fixed before the instances were run).

use std::io::{Read as _, Write as _};
use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// How a server drips its answer.
#[derive(Debug, Clone, Copy)]
enum Drip {
    /// Headers at once (a large `content-length`), then the body one byte a second.
    Body,
    /// The status line and headers one byte a second, never finished.
    Headers,
    /// A chunked body of one-byte chunks a second apart.
    Chunks,
    /// Reads the request and never answers.
    Silent,
    /// An event stream of keep-alive comments, one a second, never an event.
    KeepAlive,
}

fn serve(mut stream: TcpStream, drip: Drip) {
    let mut buffer = [0u8; 65536];
    let _ = stream.set_read_timeout(Some(Duration::from_millis(500)));
    let _ = stream.read(&mut buffer);
    let second = Duration::from_secs(1);
    let _ = match drip {
        Drip::Body => stream
            .write_all(b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 100000\r\n\r\n{")
            .and_then(|()| loop {
                std::thread::sleep(second);
                stream.write_all(b" ")?;
            }),
        Drip::Headers => {
            let head = b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\nx-padding: ";
            head.iter().try_for_each(|byte| {
                std::thread::sleep(second);
                stream.write_all(&[*byte])
            })
            .and_then(|()| loop {
                std::thread::sleep(second);
                stream.write_all(b"a")?;
            })
        }
        Drip::Chunks => stream
            .write_all(b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\n\r\n")
            .and_then(|()| loop {
                stream.write_all(b"1\r\n \r\n")?;
                std::thread::sleep(second);
            }),
        Drip::Silent => {
            std::thread::sleep(Duration::from_secs(120));
            Ok(())
        }
        Drip::KeepAlive => stream
            .write_all(b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n\r\n")
            .and_then(|()| loop {
                stream.write_all(b": keep-alive\n\n")?;
                std::thread::sleep(second);
            }),
    };
}

/// A server on 127.0.0.1 answering every connection with `drip`; returns its base URL.
fn dripping_server(drip: Drip) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/v1", listener.local_addr().unwrap());
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            std::thread::spawn(move || serve(stream, drip));
        }
    });
    url
}

/// Runs the binary in `cwd`; returns its exit code and how long it ran (killed at 60 s).
fn timed(args: &[String], cwd: &Path) -> (i32, Duration) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_compaction"))
        .args(args)
        .current_dir(cwd)
        .env("HOME", cwd.join("home"))
        .env("TMPDIR", cwd)
        .env_remove("PI_CODING_AGENT_DIR")
        .env_remove("ANTHROPIC_API_KEY")
        .env("OPENAI_API_KEY", "sk-test-key-for-a-local-server")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let started = Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return (status.code().unwrap_or(-1), started.elapsed());
        }
        if started.elapsed() > Duration::from_secs(60) {
            child.kill().unwrap();
            let _ = child.wait();
            return (-2, started.elapsed());
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn slow_dripping_servers_are_bounded_in_time_by_every_asking_command() {
    let drips = [Drip::Body, Drip::Headers, Drip::Chunks, Drip::Silent, Drip::KeepAlive];
    // (arguments, the longest it may take, whether it must succeed). The window questions
    // (3 s together) and `/tokenize` (3 s) for plan; `--timeout 3` for a compaction. The
    // slack covers starting a debug build on a loaded machine.
    let commands: [(&[&str], u64, Option<bool>); 4] = [
        (&["plan", "s.jsonl", "--ask-server"], 6, Some(true)),
        (&["run", "s.jsonl", "--dry-run", "--ask-server"], 6, Some(true)),
        (
            &[
                "run",
                "s.jsonl",
                "-o",
                "out.jsonl",
                "--keep-recent",
                "500",
                "--min-turns",
                "0",
                "--timeout",
                "3",
            ],
            3,
            Some(false),
        ),
        (
            &[
                "worker",
                "--store",
                "s.jsonl",
                "--once",
                "--keep-recent",
                "500",
                "--min-turns",
                "0",
                "--context-window",
                "4000",
                "--reserve",
                "2000",
                "--timeout",
                "3",
            ],
            3,
            // A worker reports a failed compaction and goes on: either exit is fine.
            None,
        ),
    ];
    let slack = Duration::from_secs(2);
    let (mut dev, mut test) = ((0, 0), (0, 0));
    let mut failures = Vec::new();
    let mut index = 0_usize;
    for drip in drips {
        let url = dripping_server(drip);
        for (args, bound, succeeds) in commands {
            let dir = tempfile::tempdir().unwrap();
            std::fs::create_dir(dir.path().join("home")).unwrap();
            let session = dir.path().join("s.jsonl");
            std::fs::copy(super::fixture("offline-coding.jsonl"), &session).unwrap();
            let before = std::fs::read(&session).unwrap();
            let mut args: Vec<String> = args.iter().map(|a| (*a).to_owned()).collect();
            args.extend(
                ["--provider", "openai", "--base-url", &url, "--model", "m"].map(String::from),
            );
            let (code, took) = timed(&args, dir.path());
            let limit = Duration::from_secs(bound) + slack;
            let unchanged = std::fs::read(&session).unwrap() == before
                && !dir.path().join("out.jsonl").exists();
            let exit_ok = matches!(code, 0 | 1) && succeeds.is_none_or(|ok| (code == 0) == ok);
            let held = took <= limit && exit_ok && unchanged;
            if !held {
                failures.push(format!(
                    "#{index} {drip:?} to `{}`: exit {code} after {:.1} s (at most {} s), \
                     session {}",
                    args.join(" "),
                    took.as_secs_f64(),
                    limit.as_secs(),
                    if unchanged { "unchanged" } else { "CHANGED" }
                ));
            }
            println!(
                "#{index} {drip:?} to `{}`: exit {code} after {:.1} s",
                args[0],
                took.as_secs_f64()
            );
            let part = if index.is_multiple_of(3) { &mut test } else { &mut dev };
            part.1 += 1;
            part.0 += usize::from(held);
            index += 1;
        }
    }
    println!("slow servers bounded: dev {}/{}, test {}/{}", dev.0, dev.1, test.0, test.1);
    assert!(failures.is_empty(), "{} failed:\n{}", failures.len(), failures.join("\n"));
}

/// `plan` and `run --dry-run` without `--ask-server`, with every way of naming a local
/// server: nothing connects to it (not discovery, not `/tokenize`, not the summarizer).
#[test]
fn plans_send_nothing_anywhere_unless_asked() {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let url = format!("http://{}/v1", listener.local_addr().unwrap());
    let commands: [&[&str]; 4] = [
        &["plan", "s.jsonl"],
        &["plan", "s.jsonl", "--json"],
        &["run", "s.jsonl", "--dry-run"],
        &["run", "s.jsonl", "--dry-run", "--json", "--keep-recent", "500", "--min-turns", "0"],
    ];
    let namings: [&[&str]; 3] = [
        &["--provider", "openai", "--base-url", "URL", "--model", "m"],
        &[
            "--provider",
            "openai",
            "--base-url",
            "URL",
            "--model",
            "m",
            "--summary-context-window",
            "8192",
        ],
        &["--provider", "anthropic", "--base-url", "URL", "--model", "m"],
    ];
    let (mut dev, mut test) = ((0, 0), (0, 0));
    let mut failures = Vec::new();
    let mut index = 0_usize;
    for command in commands {
        for naming in namings {
            let dir = tempfile::tempdir().unwrap();
            std::fs::create_dir(dir.path().join("home")).unwrap();
            std::fs::copy(super::fixture("offline-coding.jsonl"), dir.path().join("s.jsonl"))
                .unwrap();
            let mut args: Vec<String> = command.iter().map(|a| (*a).to_owned()).collect();
            args.extend(naming.iter().map(|a| a.replace("URL", &url)));
            let (code, _) = timed(&args, dir.path());
            let mut connections = 0;
            while listener.accept().is_ok() {
                connections += 1;
            }
            let held = code == 0 && connections == 0;
            if !held {
                failures.push(format!(
                    "#{index} `{}`: exit {code}, {connections} connections",
                    args.join(" ")
                ));
            }
            let part = if index.is_multiple_of(3) { &mut test } else { &mut dev };
            part.1 += 1;
            part.0 += usize::from(held);
            index += 1;
        }
    }
    println!("plans offline: dev {}/{}, test {}/{}", dev.0, dev.1, test.0, test.1);
    assert!(failures.is_empty(), "{} failed:\n{}", failures.len(), failures.join("\n"));
}
