//! A child process run to its end or to a deadline, with both outputs read while it runs:
//! what the hostile suites need of every run of the binary.

use std::io::Read as _;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// What one run gave.
pub struct Ran {
    /// The exit code; -1 for a signal, -2 when it was killed at its deadline.
    pub code: i32,
    /// Standard output, invalid UTF-8 replaced.
    pub stdout: String,
    /// Standard error, invalid UTF-8 replaced.
    pub stderr: String,
    /// How long it ran.
    pub elapsed: Duration,
}

/// Runs `command` (stdin closed, stdout and stderr read by two threads) until it exits, or
/// kills it once `deadline` has passed.
pub fn run_until(command: &mut Command, deadline: Duration) -> Ran {
    let mut child =
        command.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    let read = |mut pipe: Box<dyn std::io::Read + Send>| {
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            let _ = pipe.read_to_end(&mut bytes);
            String::from_utf8_lossy(&bytes).into_owned()
        })
    };
    let out = read(Box::new(child.stdout.take().unwrap()));
    let err = read(Box::new(child.stderr.take().unwrap()));
    let started = Instant::now();
    let code = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status.code().unwrap_or(-1);
        }
        if started.elapsed() > deadline {
            child.kill().unwrap();
            let _ = child.wait();
            break -2;
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    let elapsed = started.elapsed();
    Ran { code, stdout: out.join().unwrap(), stderr: err.join().unwrap(), elapsed }
}
