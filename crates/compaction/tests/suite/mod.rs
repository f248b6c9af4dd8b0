//! Integration test modules, plus helpers they share.

mod fuzz_replay;
pub mod mock_server;
mod providers;
mod store;
mod store_fixtures;
mod store_processes;
