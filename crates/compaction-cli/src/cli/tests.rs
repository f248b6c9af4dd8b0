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

/// Every argument with enumerated values (a `ValueEnum`, or a list of possible values), in
/// every command: (command, long flag or value name, the value names).
fn enumerated_arguments() -> Vec<(String, String, Vec<String>)> {
    let mut found = Vec::new();
    for sub in Cli::command().get_subcommands() {
        for arg in sub.get_arguments() {
            let values: Vec<String> = arg
                .get_possible_values()
                .iter()
                .filter(|value| !value.is_hide_set())
                .map(|value| value.get_name().to_owned())
                .collect();
            if values.is_empty() || !arg.get_action().takes_values() {
                continue;
            }
            let name = arg.get_long().map_or_else(|| arg.get_id().to_string(), str::to_owned);
            found.push((sub.get_name().to_owned(), name, values));
        }
    }
    found
}

fn completion_script(shell: clap_complete::Shell) -> String {
    let mut out = Vec::new();
    clap_complete::generate(shell, &mut Cli::command(), "compaction", &mut out);
    String::from_utf8(out).unwrap()
}

/// The shells complete every enumerated value: `--provider <TAB>` gives openai and
/// anthropic, `--estimator <TAB>` the estimators, and so on for every such argument. Each
/// value must appear on the line of the script that names its flag or just after it (or,
/// for a positional, in the script at all).
#[test]
fn completions_offer_every_enumerated_value() {
    let arguments = enumerated_arguments();
    let names: Vec<&str> = arguments.iter().map(|(_, name, _)| name.as_str()).collect();
    for expected in ["provider", "estimator", "strategy", "format", "shell"] {
        assert!(names.contains(&expected), "{expected} is not enumerated: {names:?}");
    }
    for shell in [clap_complete::Shell::Bash, clap_complete::Shell::Zsh, clap_complete::Shell::Fish]
    {
        let script = completion_script(shell);
        for (command, flag, values) in &arguments {
            // The line naming the flag and the lines after it, one per value (bash puts the
            // values on the next line, zsh one per line with their help).
            let lines: Vec<&str> = script.lines().collect();
            let flagged: Vec<String> = lines
                .iter()
                .enumerate()
                .filter(|(_, line)| {
                    line.contains(&format!("-{flag}")) || line.contains(&format!("-l {flag} "))
                })
                .map(|(at, _)| lines[at..(at + 2 + values.len()).min(lines.len())].join("\n"))
                .collect();
            for value in values {
                let offered = if flagged.is_empty() {
                    script.contains(value.as_str())
                } else {
                    flagged.iter().any(|line| line.contains(value.as_str()))
                };
                assert!(offered, "{shell}: `{command} --{flag}` does not complete `{value}`");
            }
        }
    }
}

/// `--provider` accepts the aliases the provider configuration accepts, in any case, and
/// names the valid values when given another.
#[test]
fn provider_values_are_checked_by_the_parser() {
    use clap::Parser as _;
    for given in ["openai", "anthropic", "OpenAI", "openai-compatible"] {
        let parsed = Cli::try_parse_from(["compaction", "run", "s.jsonl", "--provider", given]);
        assert!(parsed.is_ok(), "{given}: {parsed:?}");
    }
    let error = Cli::try_parse_from(["compaction", "run", "s.jsonl", "--provider", "opneai"])
        .unwrap_err()
        .to_string();
    assert!(error.contains("openai") && error.contains("anthropic"), "{error}");
    let error = Cli::try_parse_from(["compaction", "plan", "s.jsonl", "--estimator", "o300k"])
        .unwrap_err()
        .to_string();
    assert!(error.contains("heuristic"), "{error}");
}
