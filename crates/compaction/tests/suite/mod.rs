//! Integration test modules, plus helpers they share.

mod extensions;
pub mod mock_server;
mod providers;

/// The shipped Rust example, compiled into the tests so they exercise the same code.
#[allow(dead_code)]
#[path = "../../examples/git_aware.rs"]
mod git_aware_example;
