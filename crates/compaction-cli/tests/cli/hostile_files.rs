//! The files every command reads or writes, attacked by class across all the commands that
//! take them: an output that is the input under another name, an output that exists, is a
//! FIFO, a directory or a link to a FIFO, a scratch file a killed writer left or a live one
//! holds, and inputs that are no regular file.
//!
//! The writing commands: `import`, `export`, `run -o`, `store export`. Instances are numbered
//! in the order generated; instance `i` is in the test part when `i % 3 == 0`, else in the
//! dev part (a rule fixed before the instances were run). Both parts must hold; each test
//! prints its counts.

use std::os::unix::fs::FileTypeExt as _;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const TRANSCRIPT: &str =
    include_str!("../../../compaction-core/tests/fixtures/import/claude-code.jsonl");

/// Runs the binary in `cwd` with a deadline; returns the exit code and stderr.
fn run_bounded(args: &[String], cwd: &Path) -> (i32, String) {
    let home = cwd.join("..").join("home");
    let _ = std::fs::create_dir_all(&home);
    let mut child = Command::new(env!("CARGO_BIN_EXE_compaction"))
        .args(args)
        .current_dir(cwd)
        .env("HOME", &home)
        .env_remove("PI_CODING_AGENT_DIR")
        .env_remove("OPENAI_API_KEY")
        .env_remove("ANTHROPIC_API_KEY")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let started = Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            let output = child.wait_with_output().unwrap();
            return (status.code().unwrap_or(-1), String::from_utf8_lossy(&output.stderr).into());
        }
        if started.elapsed() > Duration::from_secs(15) {
            child.kill().unwrap();
            let _ = child.wait();
            return (-2, format!("`compaction {}` hung", args.join(" ")));
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// Every name in `dir` with what it is: a file's bytes, a link's target, a node's type.
fn snapshot(dir: &Path) -> Vec<(String, String)> {
    let mut items: Vec<(String, String)> = std::fs::read_dir(dir)
        .unwrap()
        .map(|entry| {
            let entry = entry.unwrap();
            let kind = entry.file_type().unwrap();
            let what = if kind.is_symlink() {
                format!("link to {}", std::fs::read_link(entry.path()).unwrap().display())
            } else if kind.is_file() {
                let bytes = std::fs::read(entry.path()).unwrap();
                format!("file of {} bytes, {:x}", bytes.len(), fnv(&bytes))
            } else if kind.is_fifo() {
                "fifo".to_owned()
            } else if kind.is_socket() {
                "socket".to_owned()
            } else {
                "directory".to_owned()
            };
            (entry.file_name().to_string_lossy().into_owned(), what)
        })
        .collect();
    items.sort();
    items
}

fn fnv(bytes: &[u8]) -> u64 {
    bytes
        .iter()
        .fold(0xcbf2_9ce4_8422_2325, |hash, &b| (hash ^ u64::from(b)).wrapping_mul(0x100_0000_01b3))
}

/// A writing command: the input it reads (a file in the work folder) and its arguments.
#[derive(Clone, Copy)]
struct Writer {
    name: &'static str,
    input: &'static str,
    /// The name a scratch file of this command's writing `out.jsonl` has, from a dead pid.
    stale_scratch: &'static str,
}

const WRITERS: [Writer; 4] = [
    Writer { name: "import", input: "t.jsonl", stale_scratch: ".out.jsonl.import-999999" },
    Writer { name: "export", input: "s.jsonl", stale_scratch: ".out.jsonl.export-999999" },
    Writer { name: "run -o", input: "s.jsonl", stale_scratch: ".out.jsonl.tmp-0badcafe" },
    Writer { name: "store export", input: "db.sqlite", stale_scratch: ".out.jsonl.export-999999" },
];

impl Writer {
    fn args(&self, input: &str, output: &str, force: bool, id: &str) -> Vec<String> {
        let mut args: Vec<String> = match self.name {
            "import" => vec!["import".into(), input.into()],
            "export" => vec!["export".into(), input.into(), "--format".into(), "codex".into()],
            "run -o" => ["run", input, "--keep-recent", "500", "--min-turns", "0"]
                .map(String::from)
                .to_vec(),
            _ => vec!["store".into(), "export".into(), format!("sqlite:{input}#{id}")],
        };
        args.extend(["-o".into(), output.into()]);
        if force {
            args.push("--force".into());
        }
        args
    }
}

/// A work folder holding every command's input, `sub/`, and a link `dirlink` to itself;
/// returns the root (parent of `work`) and the session id in the database.
fn work_folder() -> (tempfile::TempDir, String) {
    let root = tempfile::tempdir().unwrap();
    let work = root.path().join("work");
    std::fs::create_dir_all(work.join("sub")).unwrap();
    std::fs::write(work.join("t.jsonl"), TRANSCRIPT).unwrap();
    std::fs::copy(super::fixture("offline-coding.jsonl"), work.join("s.jsonl")).unwrap();
    std::os::unix::fs::symlink(".", work.join("dirlink")).unwrap();
    let args = ["store", "import", "s.jsonl", "--to", "sqlite:db.sqlite"].map(String::from);
    let (code, stderr) = run_bounded(&args, &work);
    assert_eq!(code, 0, "{stderr}");
    let text = std::fs::read_to_string(work.join("s.jsonl")).unwrap();
    let header: serde_json::Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    (root, header["id"].as_str().unwrap().to_owned())
}

/// Counts one instance in its part; returns whether it is in the test part.
fn tally(index: usize, held: bool, dev: &mut (usize, usize), test: &mut (usize, usize)) {
    let part = if index.is_multiple_of(3) { test } else { dev };
    part.1 += 1;
    if held {
        part.0 += 1;
    }
}

#[test]
fn no_writing_command_ever_writes_onto_its_input_whatever_path_names_it() {
    let (mut dev, mut test) = ((0, 0), (0, 0));
    let mut failures = Vec::new();
    let mut index = 0;
    for writer in WRITERS {
        let name = writer.input;
        let variants: [(String, String); 9] = [
            (name.into(), name.into()),
            (name.into(), format!("./{name}")),
            (format!("ABSOLUTE/{name}"), name.into()),
            (name.into(), format!("../work/{name}")),
            (name.into(), "link".into()),
            ("link".into(), name.into()),
            (name.into(), "hard".into()),
            (name.into(), format!("sub/../{name}")),
            (name.into(), format!("dirlink/{name}")),
        ];
        for (input, output) in &variants {
            for force in [false, true] {
                // A fresh folder per instance: one that fails must not change the next.
                let (root, id) = work_folder();
                let work = root.path().join("work");
                std::os::unix::fs::symlink(name, work.join("link")).unwrap();
                std::fs::hard_link(work.join(name), work.join("hard")).unwrap();
                let input = input.replace("ABSOLUTE", &work.display().to_string());
                let before = snapshot(&work);
                let args = writer.args(&input, output, force, &id);
                let (code, stderr) = run_bounded(&args, &work);
                let after = snapshot(&work);
                let held = code == 2 && before == after;
                if !held {
                    failures.push(format!(
                        "#{index} {}: `{}` exit {code}, files {}: {}",
                        writer.name,
                        args.join(" "),
                        if before == after { "unchanged" } else { "CHANGED" },
                        stderr.trim()
                    ));
                }
                tally(index, held, &mut dev, &mut test);
                index += 1;
            }
        }
    }
    println!("output onto the input: dev {}/{}, test {}/{}", dev.0, dev.1, test.0, test.1);
    assert!(failures.is_empty(), "{} failed:\n{}", failures.len(), failures.join("\n"));
}

/// What stands at the output before the command runs.
#[derive(Debug, Clone, Copy)]
enum Before {
    /// A regular file, and no `--force`.
    File,
    /// A FIFO, with `--force`.
    Fifo,
    /// A directory, with `--force`.
    Directory,
    /// A link to a FIFO, with `--force`.
    LinkToFifo,
    /// Nothing, but a scratch file a killed writer left (no process holds it).
    StaleScratch,
    /// Nothing, but a scratch file a live writer holds (locked).
    HeldScratch,
}

#[test]
fn every_writing_command_publishes_without_replacing_and_reclaims_what_a_killed_one_left() {
    let befores = [
        Before::File,
        Before::Fifo,
        Before::Directory,
        Before::LinkToFifo,
        Before::StaleScratch,
        Before::HeldScratch,
    ];
    let (mut dev, mut test) = ((0, 0), (0, 0));
    let mut failures = Vec::new();
    let mut index = 0;
    for writer in WRITERS {
        for before in befores {
            let (root, id) = work_folder();
            let work = root.path().join("work");
            let output = work.join("out.jsonl");
            let scratch = work.join(writer.stale_scratch);
            let mut _held = None;
            let force = match before {
                Before::File => {
                    std::fs::write(&output, "theirs\n").unwrap();
                    false
                }
                Before::Fifo => {
                    assert!(Command::new("mkfifo").arg(&output).status().unwrap().success());
                    true
                }
                Before::Directory => {
                    std::fs::create_dir(&output).unwrap();
                    true
                }
                Before::LinkToFifo => {
                    assert!(
                        Command::new("mkfifo").arg(work.join("pipe")).status().unwrap().success()
                    );
                    std::os::unix::fs::symlink("pipe", &output).unwrap();
                    true
                }
                Before::StaleScratch => {
                    std::fs::write(&scratch, "left by a killed writer\n").unwrap();
                    false
                }
                Before::HeldScratch => {
                    std::fs::write(&scratch, "being written\n").unwrap();
                    let file = std::fs::File::open(&scratch).unwrap();
                    file.try_lock().unwrap();
                    _held = Some(file);
                    false
                }
            };
            let start = snapshot(&work);
            let args = writer.args(writer.input, "out.jsonl", force, &id);
            let (code, stderr) = run_bounded(&args, &work);
            let end = snapshot(&work);
            let published = output.is_file()
                && std::fs::read_to_string(&output).is_ok_and(|t| t.starts_with('{'));
            let (held, why) = match before {
                Before::File | Before::Fifo | Before::Directory | Before::LinkToFifo => {
                    (code == 2 && start == end, "refused with every file unchanged")
                }
                Before::StaleScratch => (
                    code == 0 && published && !scratch.exists(),
                    "written, the abandoned scratch file removed",
                ),
                Before::HeldScratch => (
                    code == 0 && published && scratch.exists(),
                    "written, the held scratch file kept",
                ),
            };
            // Scratch files this run left behind: any `.out.jsonl.*` name that was not there.
            let leftovers: Vec<&String> = end
                .iter()
                .map(|(name, _)| name)
                .filter(|name| name.starts_with(".out.jsonl."))
                .filter(|name| !start.iter().any(|(old, _)| old == *name))
                .collect();
            let held = held && leftovers.is_empty();
            if !held {
                failures.push(format!(
                    "#{index} {} with {before:?} at the output: expected {why}; exit {code}, \
                     leftovers {leftovers:?}, before {start:?}, after {end:?}: {}",
                    writer.name,
                    stderr.trim()
                ));
            }
            tally(index, held, &mut dev, &mut test);
            index += 1;
        }
    }
    println!("publishing outputs: dev {}/{}, test {}/{}", dev.0, dev.1, test.0, test.1);
    assert!(failures.is_empty(), "{} failed:\n{}", failures.len(), failures.join("\n"));
}

#[test]
fn every_reading_command_refuses_an_input_that_is_no_regular_file_without_blocking() {
    let readers: [&[&str]; 8] = [
        &["import", "IN", "-o", "out.jsonl"],
        &["export", "IN", "--format", "codex", "-o", "out.jsonl"],
        &["run", "IN", "-o", "out.jsonl"],
        &["stats", "IN"],
        &["context", "IN"],
        &["check", "IN"],
        &["store", "import", "IN", "--to", "sqlite:db.sqlite"],
        &["tokens", "IN"],
    ];
    let kinds = ["fifo", "directory", "socket", "device"];
    let (mut dev, mut test) = ((0, 0), (0, 0));
    let mut failures = Vec::new();
    let mut index = 0;
    for reader in readers {
        for kind in kinds {
            if reader[0] == "store" && kind == "directory" {
                // `store import` takes a folder of sessions: a directory is its input.
                continue;
            }
            let root = tempfile::tempdir().unwrap();
            let work = root.path().join("work");
            std::fs::create_dir_all(&work).unwrap();
            let input = work.join("in.jsonl");
            let _socket = match kind {
                "fifo" => {
                    assert!(Command::new("mkfifo").arg(&input).status().unwrap().success());
                    None
                }
                "directory" => {
                    std::fs::create_dir(&input).unwrap();
                    None
                }
                "socket" => Some(std::os::unix::net::UnixListener::bind(&input).unwrap()),
                _ => {
                    std::os::unix::fs::symlink("/dev/zero", &input).unwrap();
                    None
                }
            };
            let start = snapshot(&work);
            let args: Vec<String> = reader
                .iter()
                .map(|a| if *a == "IN" { "in.jsonl".into() } else { (*a).into() })
                .collect();
            let (code, stderr) = run_bounded(&args, &work);
            let end = snapshot(&work);
            let held = code == 2 && stderr.contains("in.jsonl") && start == end;
            if !held {
                failures.push(format!(
                    "#{index} `{}` on a {kind}: exit {code}, files {}: {}",
                    args.join(" "),
                    if start == end { "unchanged" } else { "CHANGED" },
                    stderr.trim()
                ));
            }
            tally(index, held, &mut dev, &mut test);
            index += 1;
        }
    }
    println!(
        "inputs that are no regular file: dev {}/{}, test {}/{}",
        dev.0, dev.1, test.0, test.1
    );
    assert!(failures.is_empty(), "{} failed:\n{}", failures.len(), failures.join("\n"));
}

/// A sparse file of 2 GiB (it costs no disk) given to the commands that read an input whole
/// or line by line: each stops at its bound, names the file and exits 2 (`store import`
/// reports the file as not imported, exit 1) without reading it into memory.
#[test]
fn inputs_over_a_readers_bound_are_refused_naming_the_file() {
    let cases: [(&[&str], i32); 3] = [
        (&["store", "import", "big.jsonl", "--to", "sqlite:db.sqlite"], 1),
        (&["tokens", "big.jsonl"], 2),
        (&["import", "big.jsonl", "-o", "out.jsonl"], 2),
    ];
    for (args, expected) in cases {
        let root = tempfile::tempdir().unwrap();
        let work = root.path().join("work");
        std::fs::create_dir_all(&work).unwrap();
        std::fs::File::create(work.join("big.jsonl")).unwrap().set_len(2 << 30).unwrap();
        let args: Vec<String> = args.iter().map(|a| (*a).to_owned()).collect();
        let (code, stderr) = run_bounded(&args, &work);
        assert_eq!(code, expected, "{args:?}: {stderr}");
        assert!(stderr.contains("big.jsonl"), "{args:?}: {stderr}");
        assert!(!work.join("out.jsonl").exists(), "{args:?}");
    }
}
