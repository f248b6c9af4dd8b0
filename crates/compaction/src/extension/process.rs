//! Extensions written in any language: a child process per hook call.
//!
//! The registry's event is written as one JSON object (see [`protocol`]) to
//! the child's stdin, which is then closed; the child prints one JSON decision on stdout and
//! exits 0. Empty output means continue. A nonzero exit, output that is not a decision, an
//! overrun time limit or a cancelled operation is an [`ExtensionError`]; the registry reports
//! it and carries on.
//!
//! Invariant: the child's environment is built from scratch — only [`SAFE_ENV`] and the
//! names the configuration lists in `passEnv` are copied — so API keys and tokens of the
//! parent never reach an extension that was not explicitly given them. A child still
//! running when its answer is no longer wanted (time limit, cancel, bad output) is killed.
//! On Unix each call runs in a process group of its own, and whatever is left of that group
//! when the call ends (processes the hook started in the background) is killed too: a hook
//! call is a request and its answer, and nothing it started outlives it unless it left the
//! group itself (`setsid`).

use std::ffi::OsString;
use std::path::PathBuf;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWriteExt};
use tokio::process::Command;
use tokio_util::sync::CancellationToken;

use super::protocol::{self, parse_decision};
use super::{
    AfterBranchSummaryEvent, AfterCompactEvent, BeforeBranchSummaryEvent, BeforeCompactEvent,
    BeforePruneEvent, Decision, EventName, Extension, ExtensionError, HookFuture, PruneChoice,
};

/// Environment variables every child receives when the parent has them: what programs need
/// to run and to handle text, nothing that holds a credential.
pub const SAFE_ENV: &[&str] = &[
    "PATH",
    "HOME",
    "USER",
    "LOGNAME",
    "SHELL",
    "LANG",
    "LANGUAGE",
    "LC_ALL",
    "LC_CTYPE",
    "LC_MESSAGES",
    "TERM",
    "TMPDIR",
    "TMP",
    "TEMP",
    "TZ",
];

/// Set in every child's environment to the protocol version.
pub const PROTOCOL_ENV: &str = "COMPACTION_EXTENSION_PROTOCOL";
/// Set in every child's environment to the event's name (`before_compact`, …).
pub const EVENT_ENV: &str = "COMPACTION_EXTENSION_EVENT";

/// The most a child may print on stdout.
pub const MAX_DECISION_BYTES: usize = 16 * 1024 * 1024;
/// How long a child's pipes may stay open after it exited: a process it started in the
/// background may hold them, and its answer is what it wrote before it exited.
const PIPE_GRACE: Duration = Duration::from_millis(500);
/// How much of a child's stderr is kept for error messages (its end).
const STDERR_TAIL_BYTES: usize = 4096;
/// How much of bad output is quoted in an error.
const EXCERPT_CHARS: usize = 200;

/// One configured process extension, as written in the settings file (`extensions` list).
///
/// ```json
/// {"name": "git-aware", "command": "python3", "args": ["examples/extensions/git_aware.py"],
///  "events": ["before_compact"], "timeoutMs": 10000, "passEnv": ["GIT_DIR"]}
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ExtensionConfig {
    /// Name used in warnings and reports.
    pub name: String,
    /// The program to run (looked up on `PATH`); not run through a shell.
    pub command: String,
    /// Its arguments.
    #[serde(default)]
    pub args: Vec<String>,
    /// Events it is called for; empty or absent means all four.
    #[serde(default)]
    pub events: Vec<EventName>,
    /// Time limit per call in milliseconds; absent means the registry's default (30 s).
    #[serde(default)]
    pub timeout_ms: Option<u64>,
    /// Extra environment variable names copied from the parent (e.g. an API key the
    /// extension needs). Nothing else beyond [`SAFE_ENV`] is passed.
    #[serde(default)]
    pub pass_env: Vec<String>,
}

/// An extension run as a child process.
#[derive(Debug, Clone, PartialEq)]
pub struct ProcessExtension {
    /// The name.
    pub name: String,
    /// The program, or with `shell` the command line given to `sh -c`.
    pub command: String,
    /// Arguments (with `shell`, they become `$1`, `$2`, … of the command line).
    pub args: Vec<String>,
    /// Run `command` through `sh -c`.
    pub shell: bool,
    /// Events it is called for; empty means all.
    pub events: Vec<EventName>,
    /// Time limit per call; `None` uses the registry's default.
    pub timeout: Option<Duration>,
    /// Extra variable names copied from the base environment.
    pub pass_env: Vec<String>,
    /// The environment the child's is picked from; `None` = this process's environment.
    pub base_env: Option<Vec<(OsString, OsString)>>,
    /// Working directory of the child; `None` = this process's.
    pub current_dir: Option<PathBuf>,
}

impl ProcessExtension {
    /// A command line run through `sh -c` (the CLI's `--extension "COMMAND"`), named after
    /// the command line, for all events, with the registry's default time limit.
    pub fn shell(command_line: impl Into<String>) -> Self {
        let command: String = command_line.into();
        ProcessExtension {
            name: command.clone(),
            command,
            args: Vec::new(),
            shell: true,
            events: Vec::new(),
            timeout: None,
            pass_env: Vec::new(),
            base_env: None,
            current_dir: None,
        }
    }

    /// A configured extension: the program is run directly, without a shell.
    pub fn from_config(config: &ExtensionConfig) -> Self {
        ProcessExtension {
            name: config.name.clone(),
            command: config.command.clone(),
            args: config.args.clone(),
            shell: false,
            events: config.events.clone(),
            timeout: config.timeout_ms.map(Duration::from_millis),
            pass_env: config.pass_env.clone(),
            base_env: None,
            current_dir: None,
        }
    }

    /// Picks the child's variables from `base` instead of this process's environment.
    #[must_use]
    pub fn with_base_env<K, V>(mut self, base: impl IntoIterator<Item = (K, V)>) -> Self
    where
        K: Into<OsString>,
        V: Into<OsString>,
    {
        self.base_env = Some(base.into_iter().map(|(k, v)| (k.into(), v.into())).collect());
        self
    }

    /// Whether this extension is called for `event`.
    pub fn handles(&self, event: EventName) -> bool {
        self.events.is_empty() || self.events.contains(&event)
    }

    /// The variables the child gets (besides [`PROTOCOL_ENV`] and [`EVENT_ENV`]): those of
    /// the base environment named in [`SAFE_ENV`] or `pass_env`.
    pub fn child_environment(&self) -> Vec<(OsString, OsString)> {
        let allowed = |name: &OsString| {
            name.to_str().is_some_and(|name| {
                SAFE_ENV.contains(&name) || self.pass_env.iter().any(|pass| pass == name)
            })
        };
        match &self.base_env {
            Some(base) => base.iter().filter(|(name, _)| allowed(name)).cloned().collect(),
            None => std::env::vars_os().filter(|(name, _)| allowed(name)).collect(),
        }
    }

    fn command(&self, event: EventName) -> Command {
        let mut command = if self.shell {
            let mut command = Command::new("sh");
            command.arg("-c").arg(&self.command).arg(&self.name).args(&self.args);
            command
        } else {
            let mut command = Command::new(&self.command);
            command.args(&self.args);
            command
        };
        command
            .env_clear()
            .envs(self.child_environment())
            .env(PROTOCOL_ENV, protocol::PROTOCOL_VERSION.to_string())
            .env(EVENT_ENV, event.as_str())
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .kill_on_drop(true);
        #[cfg(unix)]
        command.process_group(0);
        if let Some(dir) = &self.current_dir {
            command.current_dir(dir);
        }
        command
    }

    /// Sends one event and reads the decision. The child is killed when this future is
    /// dropped (time limit) or `cancel` fires.
    pub async fn exchange(
        &self,
        event: EventName,
        payload: &Value,
        cancel: &CancellationToken,
    ) -> Result<Decision, ExtensionError> {
        let text = self.exchange_text(event, payload, cancel).await?;
        parse_decision(&text).map_err(|error| ExtensionError::BadOutput {
            message: error.to_string(),
            excerpt: excerpt(&text),
        })
    }

    /// Sends a `before_prune` event and reads the prune decision.
    pub async fn exchange_prune(
        &self,
        payload: &Value,
        cancel: &CancellationToken,
    ) -> Result<PruneChoice, ExtensionError> {
        let text = self.exchange_text(EventName::BeforePrune, payload, cancel).await?;
        protocol::parse_prune_decision(&text).map_err(|error| ExtensionError::BadOutput {
            message: error.to_string(),
            excerpt: excerpt(&text),
        })
    }

    async fn exchange_text(
        &self,
        event: EventName,
        payload: &Value,
        cancel: &CancellationToken,
    ) -> Result<String, ExtensionError> {
        tokio::select! {
            result = self.exchange_uncancelled(event, payload) => result,
            () = cancel.cancelled() => Err(ExtensionError::Cancelled),
        }
    }

    async fn exchange_uncancelled(
        &self,
        event: EventName,
        payload: &Value,
    ) -> Result<String, ExtensionError> {
        let input = serde_json::to_vec(payload).map_err(|error| {
            ExtensionError::Failed(format!("could not encode the event: {error}"))
        })?;
        let mut child = self
            .command(event)
            .spawn()
            .map_err(|source| ExtensionError::Spawn { command: self.command.clone(), source })?;
        // Declared after `child`, so dropped before it: the group is killed first.
        let _group = ProcessGroup(child.id());
        let stdin = child.stdin.take();
        let stdout = child.stdout.take();
        let stderr = child.stderr.take();
        let write = async move {
            let Some(mut stdin) = stdin else { return Ok(()) };
            match stdin.write_all(&input).await {
                // A child that answers without reading its input is fine.
                Err(error) if error.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
                Err(error) => Err(error),
                Ok(()) => stdin.shutdown().await.or_else(|error| {
                    if error.kind() == std::io::ErrorKind::BrokenPipe { Ok(()) } else { Err(error) }
                }),
            }
        };
        let mut output = Vec::new();
        let mut errors = Vec::new();
        let status = {
            // Output past the bound ends the call at once: the other pipes are not waited
            // for (a child flooding stdout may keep stderr open forever).
            let reading = async {
                let out = async {
                    match read_limited(stdout, &mut output).await {
                        Ok(true) => Err(over_bound()),
                        Ok(false) => Ok(()),
                        Err(error) => Err(ExtensionError::Io(error)),
                    }
                };
                let errors =
                    async { read_tail(stderr, &mut errors).await.map_err(ExtensionError::Io) };
                let write = async { write.await.map_err(ExtensionError::Io) };
                tokio::try_join!(write, out, errors).map(|_| ())
            };
            tokio::pin!(reading);
            tokio::select! {
                ended = &mut reading => {
                    ended?;
                    child.wait().await
                }
                status = child.wait() => {
                    // The child has exited; a process it left behind may still hold its
                    // pipes. Its answer is what it wrote before exiting.
                    if let Ok(ended) = tokio::time::timeout(PIPE_GRACE, &mut reading).await {
                        ended?;
                    }
                    status
                }
            }
        };
        // (Past the bound also when the wait was cut short while stderr stayed open.)
        if output.len() > MAX_DECISION_BYTES {
            return Err(over_bound());
        }
        let status = status.map_err(ExtensionError::Io)?;
        if !status.success() {
            return Err(ExtensionError::Exit {
                status: status.to_string(),
                stderr: String::from_utf8_lossy(&errors).into_owned(),
            });
        }
        String::from_utf8(output).map_err(|error| ExtensionError::BadOutput {
            message: "stdout is not UTF-8".to_owned(),
            excerpt: excerpt(&String::from_utf8_lossy(error.as_bytes())),
        })
    }
}

/// The error of a child that printed more than [`MAX_DECISION_BYTES`] on stdout.
fn over_bound() -> ExtensionError {
    ExtensionError::BadOutput {
        message: format!("more than {MAX_DECISION_BYTES} bytes on stdout"),
        excerpt: String::new(),
    }
}

/// The process group a hook call runs in (led by the child, whose id it bears), killed when
/// the call ends: what the hook left running in the background ends with it. Nothing on
/// other systems, where the child alone is killed ([`Command::kill_on_drop`]).
struct ProcessGroup(Option<u32>);

impl Drop for ProcessGroup {
    fn drop(&mut self) {
        #[cfg(unix)]
        if let Some(leader) = self
            .0
            .and_then(|id| i32::try_from(id).ok())
            .filter(|id| *id > 1)
            .and_then(rustix::process::Pid::from_raw)
        {
            // A group that is gone already (nothing left running) is no error.
            let _gone = rustix::process::kill_process_group(leader, rustix::process::Signal::KILL);
        }
    }
}

/// The first characters of an extension's output, for an error message: redacted before
/// the cut, as an extension is given the session and may echo it.
fn excerpt(text: &str) -> String {
    let head: String = text.trim().chars().take(EXCERPT_CHARS.saturating_mul(4)).collect();
    compaction_core::serialize::Redactor::default()
        .redact(&head)
        .chars()
        .take(EXCERPT_CHARS)
        .collect()
}

/// Reads everything into `out`; `true` once more than [`MAX_DECISION_BYTES`] arrived (the
/// rest is not read).
async fn read_limited(
    stream: Option<impl AsyncRead + Unpin>,
    out: &mut Vec<u8>,
) -> std::io::Result<bool> {
    let Some(mut stream) = stream else { return Ok(false) };
    let mut buffer = [0u8; 8192];
    loop {
        let read = stream.read(&mut buffer).await?;
        if read == 0 {
            return Ok(false);
        }
        out.extend_from_slice(&buffer[..read]);
        if out.len() > MAX_DECISION_BYTES {
            return Ok(true);
        }
    }
}

/// Reads to the end, keeping only the last [`STDERR_TAIL_BYTES`] in `tail`.
async fn read_tail(
    stream: Option<impl AsyncRead + Unpin>,
    tail: &mut Vec<u8>,
) -> std::io::Result<()> {
    let Some(mut stream) = stream else { return Ok(()) };
    let mut buffer = [0u8; 8192];
    loop {
        let read = stream.read(&mut buffer).await?;
        if read == 0 {
            return Ok(());
        }
        tail.extend_from_slice(&buffer[..read]);
        if tail.len() > STDERR_TAIL_BYTES {
            tail.drain(..tail.len() - STDERR_TAIL_BYTES);
        }
    }
}

impl Extension for ProcessExtension {
    fn name(&self) -> &str {
        &self.name
    }

    fn timeout(&self) -> Option<Duration> {
        self.timeout
    }

    fn before_compact<'a>(&'a self, event: &'a BeforeCompactEvent<'_>) -> HookFuture<'a, Decision> {
        Box::pin(async move {
            if !self.handles(EventName::BeforeCompact) {
                return Ok(Decision::carry_on());
            }
            let payload = protocol::before_compact_event(event);
            self.exchange(EventName::BeforeCompact, &payload, &event.cancel).await
        })
    }

    fn before_prune<'a>(&'a self, event: &'a BeforePruneEvent<'_>) -> HookFuture<'a, PruneChoice> {
        Box::pin(async move {
            if !self.handles(EventName::BeforePrune) {
                return Ok(PruneChoice::Continue);
            }
            let payload = protocol::before_prune_event(event);
            self.exchange_prune(&payload, &event.cancel).await
        })
    }

    fn after_compact<'a>(&'a self, event: &'a AfterCompactEvent<'_>) -> HookFuture<'a, ()> {
        Box::pin(async move {
            if !self.handles(EventName::AfterCompact) {
                return Ok(());
            }
            let payload = protocol::after_compact_event(event);
            self.exchange(EventName::AfterCompact, &payload, &event.cancel).await.map(drop)
        })
    }

    fn before_branch_summary<'a>(
        &'a self,
        event: &'a BeforeBranchSummaryEvent<'_>,
    ) -> HookFuture<'a, Decision> {
        Box::pin(async move {
            if !self.handles(EventName::BeforeBranchSummary) {
                return Ok(Decision::carry_on());
            }
            let payload = protocol::before_branch_summary_event(event);
            self.exchange(EventName::BeforeBranchSummary, &payload, &event.cancel).await
        })
    }

    fn after_branch_summary<'a>(
        &'a self,
        event: &'a AfterBranchSummaryEvent<'_>,
    ) -> HookFuture<'a, ()> {
        Box::pin(async move {
            if !self.handles(EventName::AfterBranchSummary) {
                return Ok(());
            }
            let payload = protocol::after_branch_summary_event(event);
            self.exchange(EventName::AfterBranchSummary, &payload, &event.cancel).await.map(drop)
        })
    }
}
