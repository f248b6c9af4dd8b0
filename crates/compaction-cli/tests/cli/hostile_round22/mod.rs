//! Round 22: hostile input by class (issue 28).
//!
//! - `userinfo`: a URL's user info of an edge shape (a password with a raw `@` or `/`, a
//!   `:`, `#` or `?` inside, an e-mail address as the user), through every command that
//!   prints or stores session text; round 21's `urls` generator with these shapes, and
//!   ordinary URLs with an `@` or a `/` where a password could be mistaken.
//! - `restore`: `run --restore-files` of a file whose path the redaction changed (a token as
//!   a folder or a file name), with a decoy file at the redacted name.
//!
//! Instances are numbered in the order generated; instance `i` is in the test part when
//! `i % 3 == 2`, else in the dev part (fixed before any fix). Each suite prints its counts
//! and fails with the dev part's misses in full, the test part's by number only
//! (`ROUND22_SHOW_TEST=1` prints them in full). `ROUND19_COMPACTION_BIN` runs a suite
//! against another build (the harness is round 19's).

use crate::tally::Tally;

mod restore;
mod userinfo;

/// Dev and test tallies of one class: instance `i` is in the test part when `i % 3 == 2`
/// (`ROUND22_SHOW_TEST` prints its misses in full).
fn split_tally() -> Tally {
    Tally::split(2, "ROUND22_SHOW_TEST")
}
