//! Integration test modules, plus helpers they share.

pub mod mock_server;
mod providers;
