//! `compaction worker`: the full-scale load test (agents appending while workers compact,
//! one worker killed), the removal of a killed worker's scratch files, and the rule that
//! keeps lease contention from starving a session; and two workers against one SQLite or
//! Postgres database, with the killed worker's leases checked in the database itself.

mod fairness;
mod load;
mod scratch;
mod sessions;
mod two_workers;
