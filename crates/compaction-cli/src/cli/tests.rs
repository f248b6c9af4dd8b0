use clap::CommandFactory as _;

use super::Cli;

#[test]
fn flags_are_consistent() {
    Cli::command().debug_assert();
}

/// Commands whose output is a file for another program (a shell's completion script,
/// a man page), where JSON has no meaning.
const GENERATED_FILE_COMMANDS: &[&str] = &["completions", "man"];

/// Every command a user can see accepts `--json` (the error shape relies on it being
/// the same flag everywhere), except those that print a generated file.
#[test]
fn every_visible_command_accepts_json() {
    let command = Cli::command();
    let missing: Vec<&str> = command
        .get_subcommands()
        .filter(|sub| !sub.is_hide_set())
        .filter(|sub| !GENERATED_FILE_COMMANDS.contains(&sub.get_name()))
        .filter(|sub| !sub.get_arguments().any(|arg| arg.get_id() == "json"))
        .map(clap::Command::get_name)
        .collect();
    assert!(missing.is_empty(), "commands without --json: {missing:?}");
}

/// Every command with `--json` documents its output in `docs/json/<command>.schema.json`
/// (the CLI tests validate real output against them).
#[test]
fn every_json_command_has_a_schema() {
    let docs = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/json");
    let command = Cli::command();
    let missing: Vec<&str> = command
        .get_subcommands()
        .filter(|sub| sub.get_arguments().any(|arg| arg.get_id() == "json"))
        .map(clap::Command::get_name)
        .filter(|name| !docs.join(format!("{name}.schema.json")).is_file())
        .collect();
    assert!(missing.is_empty(), "commands without a schema in docs/json: {missing:?}");
    assert!(docs.join("error.schema.json").is_file());
}
