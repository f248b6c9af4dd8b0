//! What a failed command leaves, attacked by class: every command that can create something
//! (an output and the folders on its way, a database with its `-wal`/`-shm`/`-journal`
//! files, a backup, a repaired copy, scratch files beside the output or in the temporary
//! folder) × every way it can fail after it started (an input it cannot read, a write that
//! fails for a file size limit, an output name too long for its scratch file, a summarizer
//! that cannot be reached, a session missing from its database), each also with the output's
//! folders missing. A failed command exits non-zero and leaves every file and folder of the
//! work and temporary folders byte-identical. (A worker, which reports a session it could not
//! compact and goes on, exits 0; for it, no file may appear or go and every file but its
//! database, where leases are kept, stays byte-identical.)
//!
//! Instances are numbered in the order generated; instance `i` is in the test part when
//! `i % 3 == 0`, else in the dev part.

use super::{Folder, database, tally};

/// A file size limit of 0 blocks: every write of a byte fails (`EFBIG`, the signal ignored).
const FILE_LIMIT: &[&str] = &["sh", "-c", "trap '' XFSZ; ulimit -f 0; exec \"$0\" \"$@\""];

/// A file size limit of 11 blocks of 512 bytes: a small file is written, a larger one fails
/// (a command writing several files fails after the first ones).
const PARTIAL_LIMIT: &[&str] = &["sh", "-c", "trap '' XFSZ; ulimit -f 11; exec \"$0\" \"$@\""];

/// How the command is made to fail.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Failure {
    /// Its input is no session, transcript or probe file it can read.
    BadInput,
    /// Every write of a byte fails.
    SizeLimit,
    /// Writes past 5.5 KiB in a file fail.
    PartialLimit,
    /// The output's name is too long for its scratch file.
    LongName,
    /// The summarizer's address refuses connections.
    Unreachable,
    /// The stored session's id is not in the database.
    MissingSession,
}

const FAILURES: [Failure; 6] = [
    Failure::BadInput,
    Failure::SizeLimit,
    Failure::PartialLimit,
    Failure::LongName,
    Failure::Unreachable,
    Failure::MissingSession,
];

/// A command that can create something: its arguments, with `IN` (its input, good or bad),
/// `OUT` (its output, or the folder of its pages), `ID` (the stored session); the failures
/// it can meet; whether it names an output (that may lie in missing folders).
struct Maker {
    args: &'static [&'static str],
    input: Input,
    failures: &'static [Failure],
    output: bool,
    /// Whether it takes `--force` to replace an existing output.
    force: bool,
}

/// What `IN` is for the command.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Input {
    Session,
    Transcript,
    Probes,
    Folder,
    /// A small damaged session with a long unreadable line (its repaired copy is small, the
    /// file of its rejected lines large).
    Damaged,
    None,
}

const SUMMARIZER: &[&str] =
    &["--provider", "openai", "--base-url", "http://127.0.0.1:9/v1", "--model", "m"];

const MAKERS: [Maker; 16] = [
    Maker {
        args: &["run", "IN", "-o", "OUT", "--keep-recent", "500", "--min-turns", "0"],
        input: Input::Session,
        failures: &[Failure::BadInput, Failure::SizeLimit, Failure::LongName, Failure::Unreachable],
        force: true,
        output: true,
    },
    Maker {
        args: &["run", "IN", "--keep-recent", "500", "--min-turns", "0"],
        input: Input::Session,
        failures: &[Failure::BadInput, Failure::SizeLimit, Failure::Unreachable],
        force: false,
        output: false,
    },
    Maker {
        args: &["import", "IN", "-o", "OUT"],
        input: Input::Transcript,
        failures: &[Failure::BadInput, Failure::SizeLimit, Failure::LongName],
        force: true,
        output: true,
    },
    Maker {
        args: &["export", "IN", "--format", "codex", "-o", "OUT"],
        input: Input::Session,
        failures: &[Failure::BadInput, Failure::SizeLimit, Failure::LongName],
        force: true,
        output: true,
    },
    Maker {
        args: &["export", "IN", "--format", "claude-code", "-o", "OUT"],
        input: Input::Session,
        failures: &[Failure::BadInput, Failure::SizeLimit, Failure::LongName],
        force: true,
        output: true,
    },
    Maker {
        args: &["store", "export", "sqlite:db.sqlite#ID", "-o", "OUT"],
        input: Input::None,
        failures: &[Failure::SizeLimit, Failure::LongName, Failure::MissingSession],
        force: true,
        output: true,
    },
    Maker {
        args: &["store", "import", "IN", "--to", "sqlite:OUT"],
        input: Input::Folder,
        failures: &[Failure::BadInput, Failure::SizeLimit],
        force: false,
        output: true,
    },
    Maker {
        args: &["store", "import", "IN", "--to", "sqlite:OUT"],
        input: Input::Session,
        failures: &[Failure::BadInput, Failure::SizeLimit],
        force: false,
        output: true,
    },
    Maker {
        args: &["check", "--repair", "IN"],
        input: Input::Damaged,
        failures: &[Failure::SizeLimit, Failure::PartialLimit],
        force: false,
        output: false,
    },
    Maker {
        args: &["man", "--dir", "OUT"],
        input: Input::None,
        failures: &[Failure::SizeLimit, Failure::PartialLimit],
        force: true,
        output: true,
    },
    Maker {
        args: &["check", "--repair", "IN"],
        input: Input::Session,
        failures: &[Failure::SizeLimit],
        force: false,
        output: false,
    },
    Maker {
        args: &["pin", "IN", "--text", "Always run the tests first."],
        input: Input::Session,
        failures: &[Failure::BadInput, Failure::SizeLimit],
        force: false,
        output: false,
    },
    Maker {
        args: &["run", "sqlite:db.sqlite#ID", "--keep-recent", "500", "--min-turns", "0"],
        input: Input::None,
        failures: &[Failure::SizeLimit, Failure::Unreachable, Failure::MissingSession],
        force: false,
        output: false,
    },
    Maker {
        args: &[
            "worker",
            "--store",
            "sqlite:db.sqlite",
            "--once",
            "--keep-recent",
            "500",
            "--min-turns",
            "0",
            "--context-window",
            "4000",
            "--reserve",
            "2000",
        ],
        input: Input::None,
        failures: &[Failure::SizeLimit, Failure::Unreachable],
        force: false,
        output: false,
    },
    Maker {
        args: &[
            "worker",
            "--store",
            "IN",
            "--once",
            "--keep-recent",
            "500",
            "--min-turns",
            "0",
            "--context-window",
            "4000",
            "--reserve",
            "2000",
        ],
        input: Input::Folder,
        failures: &[Failure::SizeLimit, Failure::Unreachable],
        force: false,
        output: false,
    },
    Maker {
        args: &["eval", "IN", "--compactions", "1"],
        input: Input::Probes,
        failures: &[Failure::BadInput, Failure::SizeLimit, Failure::Unreachable],
        force: false,
        output: false,
    },
];

/// Where the output goes: in the work folder, under folders that do not exist yet, or onto
/// an existing output (a file of the user's; for manual pages, a folder of older pages)
/// replaced with `--force`.
const PLACES: [&str; 3] = ["", "new/a/", EXISTING];

const EXISTING: &str = "existing";

/// Bytes no reader takes for a session, a transcript or a probe file.
const GARBAGE: &[u8] = b"this is not JSON\n\x00\xff\n";

/// Prepares the folder for `maker` failing by `failure`; returns the arguments.
fn arguments(folder: &Folder, maker: &Maker, failure: Failure, place: &str) -> Vec<String> {
    let work = folder.work();
    let id = database(folder);
    let fixtures = super::super::fixture("");
    let bad = failure == Failure::BadInput;
    let input = match maker.input {
        Input::Session => {
            if bad {
                std::fs::write(work.join("in.jsonl"), GARBAGE).unwrap();
            } else {
                std::fs::copy(fixtures.join("offline-coding.jsonl"), work.join("in.jsonl"))
                    .unwrap();
            }
            "in.jsonl"
        }
        Input::Transcript => {
            if bad {
                std::fs::write(work.join("in.jsonl"), GARBAGE).unwrap();
            } else {
                std::fs::copy(fixtures.join("import/claude-code.jsonl"), work.join("in.jsonl"))
                    .unwrap();
            }
            "in.jsonl"
        }
        Input::Folder => {
            std::fs::create_dir(work.join("in")).unwrap();
            for name in ["offline-coding.jsonl", "small-linear.jsonl"] {
                if bad {
                    std::fs::write(work.join("in").join(name), GARBAGE).unwrap();
                } else {
                    std::fs::copy(fixtures.join(name), work.join("in").join(name)).unwrap();
                }
            }
            "in"
        }
        Input::Probes => {
            let eval = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/eval");
            std::fs::copy(eval.join("docker-ci.jsonl"), work.join("docker-ci.jsonl")).unwrap();
            if bad {
                std::fs::write(work.join("in.probes.json"), GARBAGE).unwrap();
            } else {
                std::fs::copy(eval.join("docker-ci.probes.json"), work.join("in.probes.json"))
                    .unwrap();
            }
            "in.probes.json"
        }
        Input::Damaged => {
            let mut bytes = std::fs::read(fixtures.join("damaged.jsonl")).unwrap();
            bytes.extend_from_slice(format!("{{garbage {}\n", "x".repeat(8000)).as_bytes());
            std::fs::write(work.join("in.jsonl"), bytes).unwrap();
            "in.jsonl"
        }
        Input::None => "",
    };
    let name = if failure == Failure::LongName { "n".repeat(250) } else { "out".to_owned() };
    let existing = place == EXISTING;
    let output = if existing { name } else { format!("{place}{name}") };
    if existing {
        if maker.args[0] == "man" {
            // Every page, as an older version installed them.
            std::fs::create_dir(work.join(&output)).unwrap();
            let (code, stderr) = folder.run(&super::strings(&["man", "--dir", &output]));
            assert_eq!(code, 0, "{stderr}");
        }
        let path = work.join(&output);
        if path.is_dir() {
            for page in std::fs::read_dir(&path).unwrap() {
                std::fs::write(page.unwrap().path(), "an older page\n").unwrap();
            }
        } else {
            std::fs::write(&path, "the user's own file\n").unwrap();
        }
    }
    let id = if failure == Failure::MissingSession { "no-such-session".to_owned() } else { id };
    let mut args: Vec<String> = maker
        .args
        .iter()
        .map(|arg| arg.replace("IN", input).replace("OUT", &output).replace("ID", &id))
        .collect();
    if existing {
        args.push("--force".into());
    }
    if failure == Failure::Unreachable {
        args.extend(SUMMARIZER.iter().map(|a| (*a).to_owned()));
    } else {
        args.push("--offline".into());
    }
    // Only the commands with a summarizer take `--offline`.
    let summarizes = matches!(args[0].as_str(), "run" | "worker" | "eval");
    if !summarizes {
        args.retain(|arg| arg != "--offline");
    }
    args
}

#[test]
fn a_failed_command_that_could_create_something_leaves_every_file_as_it_was() {
    let (mut dev, mut test) = ((0, 0), (0, 0));
    let mut failures = Vec::new();
    let mut index = 0;
    for maker in &MAKERS {
        for failure in FAILURES {
            if !maker.failures.contains(&failure) {
                continue;
            }
            for place in PLACES {
                if !place.is_empty() && !maker.output || place == EXISTING && !maker.force {
                    continue;
                }
                let folder = Folder::new();
                let args = arguments(&folder, maker, failure, place);
                let wrapper: &[&str] = match failure {
                    Failure::SizeLimit => FILE_LIMIT,
                    Failure::PartialLimit => PARTIAL_LIMIT,
                    Failure::BadInput
                    | Failure::LongName
                    | Failure::Unreachable
                    | Failure::MissingSession => &[],
                };
                let start = folder.snapshot();
                let (code, stderr) = folder.run_through(wrapper, &args);
                let end = folder.snapshot();
                // A worker reports a session it could not compact as a `failed` event and
                // goes on (exit 0, docs/stores.md), and its leases are bookkeeping inside the
                // database: for it, no name may appear or go, and every file but the
                // database stays byte-identical.
                let worker = args[0] == "worker";
                let unchanged = if worker {
                    let names = |items: &[(String, String)]| -> Vec<String> {
                        items.iter().map(|(name, _)| name.clone()).collect()
                    };
                    let files = |items: &[(String, String)]| -> Vec<(String, String)> {
                        items.iter().filter(|(name, _)| name != "work/db.sqlite").cloned().collect()
                    };
                    names(&start) == names(&end) && files(&start) == files(&end)
                } else {
                    start == end
                };
                let held = (worker || code != 0)
                    && code != -2
                    && !stderr.contains("panicked")
                    && unchanged;
                if !held {
                    let changed: Vec<_> = end.iter().filter(|item| !start.contains(item)).collect();
                    let gone: Vec<_> = start.iter().filter(|item| !end.contains(item)).collect();
                    failures.push(format!(
                        "#{index} {failure:?} `{}`: exit {code}, new {changed:?}, gone {gone:?}: {}",
                        args.join(" "),
                        stderr.trim()
                    ));
                }
                tally(index, held, &mut dev, &mut test);
                index += 1;
            }
        }
    }
    super::report("failed commands leave nothing", dev, test, &failures);
}
