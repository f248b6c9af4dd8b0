//! Integration test modules, plus helpers they share.

mod compact;
mod fuzz_replay;
mod harness;
pub mod mock_server;
mod providers;
mod store;
mod store_fixtures;
mod store_processes;
