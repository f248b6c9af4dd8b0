//! Round 21: hostile input by class (issue 28).
//!
//! - `urls`: a URL's password (`scheme://user:PASSWORD@host`) of every shape (letters only,
//!   a lowercase word, words with separators, digits, percent-encoded with `@` or `:`
//!   inside, symbols), under many schemes (`postgres://`, `amqps://`, `redis://`,
//!   `git+ssh://`, `ftp://`, …) and hosts (names, ports, IPv4, IPv6), written in prose, in
//!   quotes, in JSON, in a `.env` assignment and in a shell command; through every command
//!   that prints or stores session text (`run`, `run -o --json`, `plan`, `context`,
//!   `recall`, `recall --json`, `branch --summarize`, `import`, `export`). The false-positive
//!   side rides along: each instance also holds an ordinary URL (a `user@host` without
//!   password, a port, a placeholder for the password) that must stay word for word.
//! - `refusals`: a compaction refused because the context would not shrink names what made
//!   it large (a pin, several pins, a pin copied from an entry), and `plan` tells beforehand.
//!
//! Instances are numbered in the order generated; instance `i` is in the test part when
//! `i % 3 == 2`, else in the dev part (fixed before any fix). Each suite prints its counts
//! and fails with the dev part's misses in full, the test part's by number only
//! (`ROUND21_SHOW_TEST=1` prints them in full). `ROUND19_COMPACTION_BIN` runs a suite
//! against another build (the harness is round 19's).

use crate::tally::Tally;

mod refusals;
pub(crate) mod urls;

/// Dev and test tallies of one class: instance `i` is in the test part when `i % 3 == 2`
/// (`ROUND21_SHOW_TEST` prints its misses in full).
fn split_tally() -> Tally {
    Tally::split(2, "ROUND21_SHOW_TEST")
}
