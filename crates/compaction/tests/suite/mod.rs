mod fuzz_replay;
mod store;
mod store_fixtures;
mod store_processes;
