//! `compaction man`: one manual page per command, generated from the clap definitions (so
//! the options always match this binary), with the exit status and examples added.
//!
//! `compaction man` prints `compaction(1)`, `compaction man run` prints
//! `compaction-run(1)`, and `compaction man --dir OUT` writes every page into `OUT`.

use std::io::Write;
use std::path::{Path, PathBuf};

use clap::CommandFactory;
use clap_mangen::Man;
use clap_mangen::roff::{Roff, bold, roman};

use super::{CommandError, ExitStatus};
use crate::cli::{Cli, ManArgs};

/// Examples of each command: (command line, what it does).
const EXAMPLES: &[(&str, &[(&str, &str)])] = &[
    (
        "stats",
        &[
            (
                "compaction stats session.jsonl",
                "entry counts, the path, leaves and the context size",
            ),
            ("compaction stats session.jsonl --json", "the same for scripts"),
        ],
    ),
    (
        "context",
        &[
            (
                "compaction context session.jsonl",
                "the context the model receives at the last entry",
            ),
            (
                "compaction context session.jsonl --leaf a1b2c3d4 --format json",
                "at another leaf, as JSON",
            ),
        ],
    ),
    ("tree", &[("compaction tree session.jsonl", "the session tree with branches and labels")]),
    (
        "check",
        &[(
            "compaction check session.jsonl",
            "every problem with its line; exit 1 when there is one",
        )],
    ),
    (
        "migrate",
        &[(
            "compaction migrate old-session.jsonl",
            "rewrite a version 1 or 2 session as version 3, keeping a backup",
        )],
    ),
    (
        "import",
        &[
            (
                "compaction import ~/.claude/projects/-src-app/abc.jsonl -o app.jsonl",
                "a Claude Code transcript as a pi session",
            ),
            (
                "compaction import rollout.jsonl --format codex -o codex.jsonl",
                "a Codex rollout, format named",
            ),
        ],
    ),
    (
        "store",
        &[
            (
                "compaction store import ~/.pi/agent/sessions --to sqlite:sessions.db",
                "copy every pi session under a folder into one SQLite database",
            ),
            (
                "compaction store list sqlite:sessions.db",
                "the sessions of a database with their size and context tokens",
            ),
            (
                "compaction store export sqlite:sessions.db#SESSION_ID -o session.jsonl",
                "one session back as a pi file, byte-identical to what was imported",
            ),
            (
                "PGPASSWORD=... compaction store import ~/.pi/agent/sessions --to postgres://ann@db:5432/fleet",
                "the same into Postgres, for workers on many machines (the password from the environment)",
            ),
        ],
    ),
    (
        "worker",
        &[
            (
                "compaction worker --store sqlite:sessions.db --concurrency 2",
                "compact every session of the database whose context crosses its trigger",
            ),
            (
                "compaction worker --store postgres://ann@db:5432/fleet",
                "one of many workers, on any machine, sharing a Postgres store",
            ),
        ],
    ),
    (
        "export",
        &[
            (
                "compaction export session.jsonl --format claude-code",
                "the context after the latest compaction as a Claude Code session to resume",
            ),
            (
                "compaction export session.jsonl --format codex -o rollout.jsonl",
                "the same as a Codex rollout, written to a file of your choice",
            ),
        ],
    ),
    (
        "plan",
        &[
            (
                "compaction plan session.jsonl",
                "what a compaction would summarize and keep, offline",
            ),
            (
                "compaction plan session.jsonl --context-window 32768 --json",
                "for a 32k window, as JSON",
            ),
        ],
    ),
    (
        "run",
        &[
            ("compaction run session.jsonl --offline", "compact with the offline summarizer"),
            (
                "compaction run session.jsonl --provider openai --model gpt-4o-mini",
                "summarize with an LLM (OPENAI_API_KEY)",
            ),
            (
                "compaction run session.jsonl --provider openai --base-url http://127.0.0.1:8080/v1 --model local --dry-run",
                "a local server, writing nothing",
            ),
        ],
    ),
    (
        "branch",
        &[
            (
                "compaction branch session.jsonl --to a1b2c3d4",
                "what moving to an entry would leave behind",
            ),
            (
                "compaction branch session.jsonl --to a1b2c3d4 --summarize --offline",
                "move there with a summary of the branch left",
            ),
        ],
    ),
    (
        "summarize",
        &[(
            "compaction summarize session.jsonl --offline --json",
            "the fields of a compaction entry, written nowhere",
        )],
    ),
    (
        "leaves",
        &[("compaction leaves session.jsonl", "every tip of the tree with its last message")],
    ),
    (
        "tokens",
        &[
            ("compaction tokens notes.md --estimator pi", "tokens of a text file"),
            ("compaction tokens session.jsonl --json", "tokens of every message of a session"),
        ],
    ),
    (
        "completions",
        &[(
            "compaction completions bash > ~/.local/share/bash-completion/completions/compaction",
            "install bash completions",
        )],
    ),
    (
        "man",
        &[
            ("compaction man run | man -l -", "read this page for `run`"),
            ("compaction man --dir ~/.local/share/man/man1", "install every page"),
        ],
    ),
    (
        "prune",
        &[
            (
                "compaction prune session.jsonl --dry-run",
                "which old tool outputs would become placeholders",
            ),
            ("compaction prune session.jsonl", "prune them (the originals stay recallable)"),
        ],
    ),
    (
        "recall",
        &[(
            "compaction recall session.jsonl a1b2c3d4",
            "the original content of a pruned or summarized entry",
        )],
    ),
    (
        "search",
        &[("compaction search session.jsonl 'migration'", "find text the context no longer shows")],
    ),
    (
        "undo",
        &[
            (
                "compaction undo session.jsonl --dry-run",
                "what undoing the last compaction or prune gives back",
            ),
            ("compaction undo session.jsonl", "undo it (append-only)"),
        ],
    ),
    (
        "dropped",
        &[(
            "compaction dropped session.jsonl",
            "every compaction and prune on the path with what it removed",
        )],
    ),
    (
        "config",
        &[
            ("compaction config", "every setting, its value and where it came from"),
            ("compaction config --json", "the same for scripts"),
        ],
    ),
    (
        "eval",
        &[(
            "compaction eval probes.json --offline",
            "score the offline summarizer on probe questions",
        )],
    ),
    (
        "pin",
        &[
            (
                "compaction pin session.jsonl --text 'Never edit generated files.'",
                "an instruction kept word for word",
            ),
            ("compaction pin session.jsonl --entry a1b2c3d4", "pin a user message"),
        ],
    ),
    ("unpin", &[("compaction unpin session.jsonl p1a2b3c4", "remove a pin")]),
];

/// The exit status section, the same for every command.
const EXIT_STATUS: &[(&str, &str)] = &[
    ("0", "Success."),
    (
        "1",
        "The command ran and found problems, or could not do what was asked (a provider error, a refused summary); files are left as they were.",
    ),
    (
        "2",
        "Bad usage, a file that cannot be used, a settings value that cannot be used, or an I/O error.",
    ),
    ("130", "Interrupted (Ctrl-C); files are left as they were."),
];

/// The examples of `command` (empty for one without any).
pub fn examples(command: &str) -> &'static [(&'static str, &'static str)] {
    EXAMPLES.iter().find(|(name, _)| *name == command).map_or(&[], |(_, examples)| examples)
}

fn built() -> clap::Command {
    let mut command = Cli::command().disable_help_subcommand(true);
    command.build();
    command
}

/// The names of the commands that have a page of their own.
pub fn command_names() -> Vec<String> {
    built()
        .get_subcommands()
        .filter(|sub| !sub.is_hide_set())
        .map(|sub| sub.get_name().to_owned())
        .collect()
}

/// Renders one page: `None` for `compaction(1)`, `Some(name)` for a command's page.
pub fn render(command: Option<&str>, out: &mut dyn Write) -> std::io::Result<()> {
    let top = built();
    let (page, name) = match command {
        None => (top.clone(), None),
        Some(name) => match top.find_subcommand(name) {
            Some(sub) => (sub.clone(), Some(name)),
            None => {
                return Err(std::io::Error::new(std::io::ErrorKind::NotFound, name.to_owned()));
            }
        },
    };
    let man = Man::new(page.clone());
    man.render_title(out)?;
    man.render_name_section(out)?;
    man.render_synopsis_section(out)?;
    man.render_description_section(out)?;
    if page.get_arguments().any(|arg| !arg.is_hide_set()) {
        man.render_options_section(out)?;
    }
    if page.has_subcommands() {
        man.render_subcommands_section(out)?;
    }
    let mut roff = Roff::default();
    roff.control("SH", ["EXIT STATUS"]);
    for (code, meaning) in EXIT_STATUS {
        roff.control("TP", []);
        roff.text([bold(*code)]);
        roff.text([roman(*meaning)]);
    }
    let examples = name.map(examples).unwrap_or_default();
    if !examples.is_empty() {
        roff.control("SH", ["EXAMPLES"]);
        for (line, what) in examples {
            roff.control("TP", []);
            roff.text([bold(*line)]);
            roff.text([roman(*what)]);
        }
    }
    roff.control("SH", ["SEE ALSO"]);
    let see_also: Vec<String> = match name {
        Some(_) => vec!["compaction(1)".to_owned()],
        None => command_names().iter().map(|name| format!("compaction-{name}(1)")).collect(),
    };
    roff.text([roman(see_also.join(", "))]);
    roff.to_writer(out)?;
    man.render_version_section(out)
}

pub fn man(args: &ManArgs) -> anyhow::Result<ExitStatus> {
    let names = command_names();
    if let Some(name) = &args.command
        && !names.contains(name)
    {
        return Err(CommandError::usage(format!(
            "no manual page for `{name}`: the pages are compaction and compaction-COMMAND for \
             {}",
            names.join(", ")
        )));
    }
    let Some(dir) = &args.dir else {
        let mut out = std::io::stdout().lock();
        render(args.command.as_deref(), &mut out)
            .and_then(|()| out.flush())
            .map_err(|e| CommandError::io("cannot write the manual page", e))?;
        return Ok(ExitStatus::Success);
    };
    let pages: Vec<Option<&str>> = match &args.command {
        Some(name) => vec![Some(name.as_str())],
        None => std::iter::once(None).chain(names.iter().map(|name| Some(name.as_str()))).collect(),
    };
    // Every page is checked before any is written: an existing page (without --force), a
    // FIFO, a directory or a link to a device refuses the whole command, leaving the folder
    // as it was.
    let paths: Vec<PathBuf> = pages.iter().map(|page| dir.join(page_file(*page))).collect();
    for path in &paths {
        compaction::disk::check_output(path, &[], args.force).map_err(CommandError::disk)?;
    }
    // Every page is written to its scratch file first, so a write that fails (a full disk, a
    // file size limit) leaves every page as it was, replaced ones too; only then are they
    // published, which writes no byte.
    let mut scratches = Vec::new();
    for (page, path) in pages.iter().zip(&paths) {
        scratches.push(write_page(path, *page)?);
    }
    let mut written = Vec::new();
    for (scratch, path) in scratches.into_iter().zip(&paths) {
        if let Err(error) = scratch.publish(&[], args.force).map_err(CommandError::disk) {
            // A page that appeared meanwhile: the pages this run published are taken back.
            for done in &written {
                let _ = std::fs::remove_file(done);
            }
            return Err(error);
        }
        if !args.force {
            written.push(path.clone());
        }
    }
    println!("wrote {} to {}", crate::output::plural(paths.len(), "manual page"), dir.display());
    Ok(ExitStatus::Success)
}

fn page_file(page: Option<&str>) -> String {
    match page {
        Some(name) => format!("compaction-{name}.1"),
        None => "compaction.1".to_owned(),
    }
}

/// Writes one page to its scratch file beside `path` ([`compaction::disk::Scratch`]), to be
/// published whole or not at all.
fn write_page(path: &Path, page: Option<&str>) -> anyhow::Result<compaction::disk::Scratch> {
    let mut bytes = Vec::new();
    render(page, &mut bytes).map_err(|e| CommandError::io("cannot render the manual page", e))?;
    let (mut scratch, removed) =
        compaction::disk::Scratch::create(path, "man").map_err(CommandError::disk)?;
    for stale in removed {
        eprintln!(
            "{}: removed {}, a temporary file left by an interrupted `man` (no process held it)",
            path.display(),
            stale.display()
        );
    }
    scratch
        .file()
        .write_all(&bytes)
        .map_err(|e| CommandError::io(format!("{}: cannot write", scratch.path().display()), e))?;
    Ok(scratch)
}

#[cfg(test)]
mod tests {
    use clap::Parser as _;

    use super::*;

    /// An example's words, as a shell splits them (single quotes group), up to a pipe or a
    /// redirection, without the environment assignments before the command (`PGPASSWORD=…`).
    fn words(line: &str) -> Vec<String> {
        let mut words = shell_words(line);
        let assignments = words
            .iter()
            .take_while(|word| {
                word.split_once('=').is_some_and(|(name, _)| {
                    !name.is_empty()
                        && name
                            .chars()
                            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
                })
            })
            .count();
        words.drain(..assignments);
        words
    }

    fn shell_words(line: &str) -> Vec<String> {
        let mut words = Vec::new();
        let mut current = String::new();
        let mut quoted = false;
        for ch in line.chars() {
            match ch {
                '\'' => quoted = !quoted,
                ' ' if !quoted => {
                    if !current.is_empty() {
                        words.push(std::mem::take(&mut current));
                    }
                }
                '|' | '>' if !quoted => break,
                _ => current.push(ch),
            }
        }
        if !current.is_empty() {
            words.push(current);
        }
        words
    }

    /// Every command has examples, and every example is a command line this binary accepts.
    #[test]
    fn every_command_has_examples_that_parse() {
        for name in command_names() {
            let examples = examples(&name);
            assert!(!examples.is_empty(), "`{name}` has no examples in commands/man.rs");
            for (line, _) in examples {
                let words = words(line);
                assert_eq!(words.get(1).map(String::as_str), Some(name.as_str()), "{line}");
                if let Err(error) = Cli::try_parse_from(&words) {
                    panic!("example `{line}` does not parse: {error}");
                }
            }
        }
        let listed: Vec<&str> = EXAMPLES.iter().map(|(name, _)| *name).collect();
        for name in listed {
            assert!(command_names().iter().any(|command| command == name), "no command {name}");
        }
    }

    /// Each page has its options, the exit status and its examples.
    #[test]
    fn each_page_has_options_exit_status_and_examples() {
        for name in command_names() {
            let mut page = Vec::new();
            render(Some(&name), &mut page).unwrap();
            let page = String::from_utf8(page).unwrap();
            assert!(page.contains(&format!(".TH compaction-{name} 1")), "{name}: {page}");
            for section in
                [".SH OPTIONS", ".SH \"EXIT STATUS\"", ".SH EXAMPLES", ".SH \"SEE ALSO\""]
            {
                assert!(page.contains(section), "{name} lacks {section}");
            }
        }
        let mut top = Vec::new();
        render(None, &mut top).unwrap();
        let top = String::from_utf8(top).unwrap();
        for name in command_names() {
            assert!(top.contains(&format!("compaction\\-{name}(1)")), "compaction(1) lacks {name}");
        }
    }
}
