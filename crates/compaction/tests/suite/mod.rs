//! Integration test modules, plus helpers they share.

pub mod compact;
mod extensions;
mod figures;
mod fuzz_replay;
mod harness;
mod kept_user_messages;
mod live_writers;
pub mod mock_server;
mod pinned;
mod providers;
mod prune;
mod quality_gate;
mod redaction;
mod restore;
mod secret_families;
mod store;
mod store_fixtures;
mod store_processes;
mod store_writers;
mod stores_conformance;
mod summarizer_limits;
mod trust_agent_dir;
pub mod wire_replay;

/// The shipped Rust example, compiled into the tests so they exercise the same code.
#[allow(dead_code)]
#[path = "../../examples/git_aware.rs"]
mod git_aware_example;
