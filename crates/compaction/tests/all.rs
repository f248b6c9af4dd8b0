//! The single integration-test binary of the `compaction` crate; each area of the crate has
//! a module under `suite/`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod suite;
