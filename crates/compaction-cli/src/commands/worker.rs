//! `compaction worker`: compacts the sessions of a store that cross their trigger, under
//! leases, until SIGTERM or Ctrl-C (or after one pass with `--once`).

use std::time::Duration;

use compaction::setup::ExtensionChoice;
use compaction::stores::worker::{WorkerEvent, WorkerOptions, run_worker};
use compaction::stores::{Locator, SessionBackend};
use serde_json::json;
use tokio_util::sync::CancellationToken;

use super::{CommandError, ExitStatus, setup};
use crate::cli::WorkerArgs;
use crate::output::plural;

/// The name this worker's leases are taken under: host and process id.
fn holder() -> String {
    let host = std::fs::read_to_string("/proc/sys/kernel/hostname").unwrap_or_default();
    format!("{}:{}", host.trim(), std::process::id())
}

fn print_event(event: &WorkerEvent, json: bool) {
    let value = match event {
        WorkerEvent::Claimed { session, tokens } => {
            json!({"event": "claimed", "session": session, "tokens": tokens})
        }
        WorkerEvent::Compacted { session, entry, tokens_before, tokens_after } => json!({
            "event": "compacted", "session": session, "entryId": entry,
            "tokensBefore": tokens_before, "estimatedTokensAfter": tokens_after,
        }),
        WorkerEvent::Skipped { session, reason } => {
            json!({"event": "skipped", "session": session, "reason": reason})
        }
        WorkerEvent::Failed { session, reason } => {
            json!({"event": "failed", "session": session, "reason": reason})
        }
        WorkerEvent::Reclaimed { file } => {
            json!({"event": "reclaimed", "file": file.display().to_string()})
        }
    };
    if json {
        println!("{value}");
        return;
    }
    match event {
        WorkerEvent::Claimed { session, tokens } => {
            println!("claimed {session} ({tokens} context tokens)")
        }
        WorkerEvent::Compacted { session, entry, tokens_before, tokens_after } => {
            println!(
                "compacted {session}: {tokens_before} → about {tokens_after} tokens; appended compaction {entry}"
            )
        }
        WorkerEvent::Skipped { session, reason } => println!("skipped {session}: {reason}"),
        WorkerEvent::Failed { session, reason } => {
            crate::output::eprint_shown(&format!("failed {session}: {reason}"))
        }
        WorkerEvent::Reclaimed { file } => {
            println!("removed {}, left by a compaction whose process died", file.display())
        }
    }
}

pub fn run(args: &WorkerArgs) -> anyhow::Result<ExitStatus> {
    let locator = Locator::parse(&args.store).map_err(|e| CommandError::usage(e.to_string()))?;
    let backend: Box<dyn SessionBackend> =
        compaction::stores::open(&locator).map_err(|e| super::store::backend_error(&e))?;
    // A worker runs no extension: it has no project whose code it could trust.
    let toolkit = setup::load(&args.compaction)?
        .toolkit(&setup::summarizer_choice(&args.summarizer), &ExtensionChoice::none(), None, None)
        .map_err(setup::setup_error)?;
    let compactor = toolkit.compactor();
    let options = WorkerOptions {
        holder: holder(),
        lease: Duration::from_secs(args.lease_seconds.max(1)),
        concurrency: args.concurrency.max(1),
        once: args.once,
        poll: Duration::from_secs(args.poll_seconds),
    };
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
    let json = args.json;
    let total = runtime.block_on(async {
        use tokio::signal::unix::{SignalKind, signal};
        let cancel = CancellationToken::new();
        let mut terminate = signal(SignalKind::terminate())?;
        let mut interrupt = signal(SignalKind::interrupt())?;
        let stopper = cancel.clone();
        let stopping = tokio::spawn(async move {
            tokio::select! {
                _ = terminate.recv() => {}
                _ = interrupt.recv() => {}
            }
            stopper.cancel();
        });
        let events = |event: WorkerEvent| print_event(&event, json);
        let done = run_worker(backend.as_ref(), &compactor, &options, &cancel, &events).await;
        stopping.abort();
        done.map_err(|e| super::store::backend_error(&e))
    })?;
    if json {
        println!("{}", json!({"event": "stopped", "compacted": total}));
    } else {
        println!("worker stopped: {} compacted", plural(total, "session"));
    }
    Ok(ExitStatus::Success)
}
