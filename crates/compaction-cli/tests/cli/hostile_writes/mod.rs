//! What every writing command leaves behind, attacked by class: scratch copies a killed
//! compaction leaves in the temporary folder (reclaimed by the next writer, never one a live
//! writer holds), manual pages written over what stands at their names, and commands that
//! fail after they could have created their output, database or folder (a failed command
//! leaves every file byte-identical).
//!
//! Instances are numbered in the order generated; instance `i` is in the test part when
//! `i % 3 == 0`, else in the dev part (a rule fixed before the instances were run). Both parts
//! must hold; each test prints its counts. Every command runs with `TMPDIR` inside the
//! instance's own folder, so the temporary folder is looked at too.

use std::io::Read as _;
use std::os::unix::fs::FileTypeExt as _;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

mod failed;
mod killed;
mod leftovers;
mod targets;

/// An instance's folder: `work` (the current directory), `tmp` (its `TMPDIR`), `home`.
struct Folder {
    root: tempfile::TempDir,
}

impl Folder {
    fn new() -> Folder {
        let root = tempfile::tempdir().unwrap();
        for name in ["work", "tmp", "home"] {
            std::fs::create_dir(root.path().join(name)).unwrap();
        }
        Folder { root }
    }

    fn work(&self) -> PathBuf {
        self.root.path().join("work")
    }

    fn tmp(&self) -> PathBuf {
        self.root.path().join("tmp")
    }

    fn command(&self, args: &[String]) -> Command {
        self.command_through(&[], args)
    }

    /// The binary started through `wrapper` (a program and its arguments, which end by
    /// starting the binary given as the next argument), or directly when it is empty.
    fn command_through(&self, wrapper: &[&str], args: &[String]) -> Command {
        let binary = env!("CARGO_BIN_EXE_compaction");
        let mut command = match wrapper.split_first() {
            Some((program, rest)) => {
                let mut command = Command::new(program);
                command.args(rest).arg(binary);
                command
            }
            None => Command::new(binary),
        };
        command
            .args(args)
            .current_dir(self.work())
            .env("HOME", self.root.path().join("home"))
            .env("TMPDIR", self.tmp())
            .env_remove("PI_CODING_AGENT_DIR")
            .env_remove("ANTHROPIC_API_KEY")
            .env("OPENAI_API_KEY", "sk-test-key-for-a-local-server")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped());
        command
    }

    /// Runs the binary with a deadline; returns the exit code and stderr.
    fn run(&self, args: &[String]) -> (i32, String) {
        self.run_through(&[], args)
    }

    /// [`Folder::run`] through a wrapper (see [`Folder::command_through`]).
    fn run_through(&self, wrapper: &[&str], args: &[String]) -> (i32, String) {
        let mut child = self.command_through(wrapper, args).spawn().unwrap();
        let started = Instant::now();
        loop {
            if let Some(status) = child.try_wait().unwrap() {
                let mut stderr = String::new();
                child.stderr.take().unwrap().read_to_string(&mut stderr).unwrap();
                return (status.code().unwrap_or(-1), stderr);
            }
            if started.elapsed() > Duration::from_secs(30) {
                child.kill().unwrap();
                let _ = child.wait();
                return (-2, format!("`compaction {}` hung", args.join(" ")));
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    /// Every path under the root (but `home`) with what it is: a file's bytes, a link's
    /// target, a node's type.
    fn snapshot(&self) -> Vec<(String, String)> {
        let mut items = Vec::new();
        for part in ["work", "tmp"] {
            walk(&self.root.path().join(part), part, &mut items);
        }
        items.sort();
        items
    }
}

/// Every entry under `dir` as (path, what it is): a link's target, a file's size and hash
/// (a file over 64 MiB, such as a sparse one, by its size alone), a FIFO, a folder.
pub(crate) fn walk(dir: &Path, prefix: &str, items: &mut Vec<(String, String)>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let entry = entry.unwrap();
        let kind = entry.file_type().unwrap();
        let name = format!("{prefix}/{}", entry.file_name().to_string_lossy());
        let what = if kind.is_symlink() {
            format!("link to {}", std::fs::read_link(entry.path()).unwrap().display())
        } else if kind.is_file() {
            let metadata = entry.metadata().unwrap();
            if metadata.len() > 64 << 20 {
                format!("file of {} bytes", metadata.len())
            } else {
                let bytes = std::fs::read(entry.path()).unwrap();
                format!("file of {} bytes, {:x}", bytes.len(), fnv(&bytes))
            }
        } else if kind.is_fifo() {
            "fifo".to_owned()
        } else if kind.is_dir() {
            walk(&entry.path(), &name, items);
            "directory".to_owned()
        } else {
            "other".to_owned()
        };
        items.push((name, what));
    }
}

fn fnv(bytes: &[u8]) -> u64 {
    bytes
        .iter()
        .fold(0xcbf2_9ce4_8422_2325, |hash, &b| (hash ^ u64::from(b)).wrapping_mul(0x100_0000_01b3))
}

pub(crate) fn strings(args: &[&str]) -> Vec<String> {
    args.iter().map(|a| (*a).to_owned()).collect()
}

/// Counts one instance in its part.
fn tally(index: usize, held: bool, dev: &mut (usize, usize), test: &mut (usize, usize)) {
    let part = if index.is_multiple_of(3) { test } else { dev };
    part.1 += 1;
    part.0 += usize::from(held);
}

/// Prints a class's dev and test tallies and fails with every failure of the dev part (a
/// test-part failure is named by its number only).
fn report(class: &str, dev: (usize, usize), test: (usize, usize), failures: &[String]) {
    println!("{class}: dev {}/{}, test {}/{}", dev.0, dev.1, test.0, test.1);
    assert!(failures.is_empty(), "{} failed:\n{}", failures.len(), leftovers::dev_only(failures));
}

/// A process id no process has now: that of a child that has exited.
fn dead_pid() -> u32 {
    let mut child = Command::new("true").spawn().unwrap();
    let pid = child.id();
    child.wait().unwrap();
    pid
}

/// Puts the offline fixture into `sqlite:db.sqlite` in the folder; returns the session id.
fn database(folder: &Folder) -> String {
    std::fs::copy(super::fixture("offline-coding.jsonl"), folder.work().join("s.jsonl")).unwrap();
    let (code, stderr) =
        folder.run(&strings(&["store", "import", "s.jsonl", "--to", "sqlite:db.sqlite"]));
    assert_eq!(code, 0, "{stderr}");
    std::fs::remove_file(folder.work().join("s.jsonl")).unwrap();
    let text = std::fs::read_to_string(super::fixture("offline-coding.jsonl")).unwrap();
    let header: serde_json::Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    header["id"].as_str().unwrap().to_owned()
}

/// A local server that accepts connections and never answers (a summarizer that hangs).
fn silent_server() -> (std::net::TcpListener, String) {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/v1", listener.local_addr().unwrap());
    (listener, url)
}

/// The writers that compact a stored session through a scratch copy in the temporary
/// folder, as arguments (`ID`: the session id).
const COMPACTORS: [&[&str]; 2] = [
    &["run", "sqlite:db.sqlite#ID", "--keep-recent", "500", "--min-turns", "0"],
    &[
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
];

fn compactor(command: &[&str], id: &str, extra: &[&str]) -> Vec<String> {
    let mut args: Vec<String> = command.iter().map(|a| a.replace("ID", id)).collect();
    args.extend(extra.iter().map(|a| (*a).to_owned()));
    args
}

/// The scratch names in `tmp`.
fn scratch_names(tmp: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(tmp)
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.starts_with("compaction-scratch-"))
        .collect();
    names.sort();
    names
}

/// Starts `args`, waits until a scratch copy appears in `tmp`, then kills the process
/// (SIGKILL). Returns the scratch names it left.
fn kill_while_compacting(folder: &Folder, args: &[String]) -> Vec<String> {
    let mut child: Child = folder.command(args).spawn().unwrap();
    let started = Instant::now();
    while scratch_names(&folder.tmp()).is_empty() && started.elapsed() < Duration::from_secs(30) {
        std::thread::sleep(Duration::from_millis(20));
    }
    // Let it reach the summarizer request (the server never answers).
    std::thread::sleep(Duration::from_millis(200));
    child.kill().unwrap();
    child.wait().unwrap();
    scratch_names(&folder.tmp())
}

/// What a scratch name in the temporary folder is made to stand for.
#[derive(Debug, Clone, Copy)]
enum Leftover {
    /// A compaction's copy, its process killed (really, by SIGKILL).
    Killed,
    /// A copy of a process id that no process has.
    DeadFile,
    /// An evaluation's scratch folder of a dead process id.
    DeadFolder,
    /// A copy whose process lives and holds its lock: kept.
    Held,
    /// A copy named with a live process id (this test's): kept.
    LivePid,
    /// A link with a dead process id's scratch name, to a file elsewhere: neither removed
    /// nor followed.
    Link,
}

#[test]
fn scratch_copies_a_killed_compaction_left_are_reclaimed_by_every_compacting_writer() {
    let leftovers = [
        Leftover::Killed,
        Leftover::DeadFile,
        Leftover::DeadFolder,
        Leftover::Held,
        Leftover::LivePid,
        Leftover::Link,
    ];
    let (mut dev, mut test) = ((0, 0), (0, 0));
    let mut failures = Vec::new();
    let mut index = 0;
    for (killer, killing) in COMPACTORS.iter().enumerate() {
        for (reclaimer, reclaiming) in COMPACTORS.iter().enumerate() {
            for leftover in leftovers {
                if !matches!(leftover, Leftover::Killed) && killer != reclaimer {
                    // A planted leftover has no killer: one instance per reclaimer.
                    continue;
                }
                let folder = Folder::new();
                let id = database(&folder);
                let tmp = folder.tmp();
                let mut _lock = None;
                let outside = folder.work().join("precious.txt");
                let (planted, keep): (Vec<String>, bool) = match leftover {
                    Leftover::Killed => {
                        let (_server, url) = silent_server();
                        let args = compactor(
                            killing,
                            &id,
                            &["--provider", "openai", "--base-url", &url, "--model", "m"],
                        );
                        (kill_while_compacting(&folder, &args), false)
                    }
                    Leftover::DeadFile | Leftover::Held | Leftover::LivePid | Leftover::Link => {
                        let pid = match leftover {
                            Leftover::LivePid => std::process::id(),
                            Leftover::Killed
                            | Leftover::DeadFile
                            | Leftover::DeadFolder
                            | Leftover::Held
                            | Leftover::Link => dead_pid(),
                        };
                        let name = format!("compaction-scratch-{pid}-0a1b2c3d.jsonl");
                        let path = tmp.join(&name);
                        if matches!(leftover, Leftover::Link) {
                            std::fs::write(&outside, "not a scratch copy\n").unwrap();
                            std::os::unix::fs::symlink(&outside, &path).unwrap();
                        } else {
                            std::fs::write(&path, "{\"type\":\"session\"}\n").unwrap();
                        }
                        if matches!(leftover, Leftover::Held) {
                            let file = std::fs::File::open(&path).unwrap();
                            file.try_lock().unwrap();
                            _lock = Some(file);
                        }
                        (vec![name], !matches!(leftover, Leftover::DeadFile))
                    }
                    Leftover::DeadFolder => {
                        let name = format!("compaction-scratch-{}-0e0f1a2b", dead_pid());
                        std::fs::create_dir(tmp.join(&name)).unwrap();
                        std::fs::write(tmp.join(&name).join("session.jsonl"), "{}\n").unwrap();
                        (vec![name], false)
                    }
                };
                let args = compactor(reclaiming, &id, &["--offline"]);
                let (code, stderr) = folder.run(&args);
                let left = scratch_names(&tmp);
                let held = !planted.is_empty()
                    && code == 0
                    && if keep { left == planted } else { left.is_empty() }
                    && (!matches!(leftover, Leftover::Link)
                        || std::fs::read_to_string(&outside).is_ok());
                if !held {
                    failures.push(format!(
                        "#{index} {leftover:?} by `{}`, then `{}`: planted {planted:?}, left \
                         {left:?} (expected {}), exit {code}: {}",
                        killing.join(" "),
                        args.join(" "),
                        if keep { "kept" } else { "removed" },
                        stderr.trim()
                    ));
                }
                tally(index, held, &mut dev, &mut test);
                index += 1;
            }
        }
    }
    report("scratch copies reclaimed", dev, test, &failures);
}

/// What stands at a manual page's name before `man --dir` runs.
#[derive(Debug, Clone, Copy)]
enum AtPage {
    /// A file of the user's, and no `--force`: refused, no page written.
    File,
    /// A file of the user's, with `--force`: replaced.
    FileForced,
    /// A FIFO, with `--force`: refused without blocking.
    Fifo,
    /// A directory, with `--force`: refused.
    Directory,
    /// A link to a FIFO, with `--force`: refused.
    LinkToFifo,
    /// A link to a device (`/dev/null`), with `--force`: refused.
    LinkToDevice,
    /// A scratch file a killed `man` left: removed, the pages written.
    StaleScratch,
    /// A scratch file a live `man` holds: kept, the pages written.
    HeldScratch,
}

#[test]
fn man_pages_publish_through_the_one_path_and_never_replace_without_force() {
    let befores = [
        AtPage::File,
        AtPage::FileForced,
        AtPage::Fifo,
        AtPage::Directory,
        AtPage::LinkToFifo,
        AtPage::LinkToDevice,
        AtPage::StaleScratch,
        AtPage::HeldScratch,
    ];
    // Every page, or one command's page.
    let sets: [(&[&str], &str); 2] = [
        (&["man", "--dir", "pages"], "compaction.1"),
        (&["man", "run", "--dir", "pages"], "compaction-run.1"),
    ];
    let (mut dev, mut test) = ((0, 0), (0, 0));
    let mut failures = Vec::new();
    let mut index = 0;
    for (set, page) in sets {
        for before in befores {
            let folder = Folder::new();
            let pages = folder.work().join("pages");
            std::fs::create_dir(&pages).unwrap();
            let target = pages.join(page);
            let scratch = pages.join(format!(".{page}.man-{}", dead_pid()));
            let mut _held = None;
            let force = match before {
                AtPage::File | AtPage::FileForced => {
                    std::fs::write(&target, "the user's own page\n").unwrap();
                    matches!(before, AtPage::FileForced)
                }
                AtPage::Fifo => {
                    assert!(Command::new("mkfifo").arg(&target).status().unwrap().success());
                    true
                }
                AtPage::Directory => {
                    std::fs::create_dir(&target).unwrap();
                    true
                }
                AtPage::LinkToFifo => {
                    let fifo = folder.work().join("pipe");
                    assert!(Command::new("mkfifo").arg(&fifo).status().unwrap().success());
                    std::os::unix::fs::symlink(&fifo, &target).unwrap();
                    true
                }
                AtPage::LinkToDevice => {
                    std::os::unix::fs::symlink("/dev/null", &target).unwrap();
                    true
                }
                AtPage::StaleScratch => {
                    std::fs::write(&scratch, "left by a killed man\n").unwrap();
                    false
                }
                AtPage::HeldScratch => {
                    std::fs::write(&scratch, "being written\n").unwrap();
                    let file = std::fs::File::open(&scratch).unwrap();
                    file.try_lock().unwrap();
                    _held = Some(file);
                    false
                }
            };
            let mut args = strings(set);
            if force {
                args.push("--force".into());
            }
            let start = folder.snapshot();
            let (code, stderr) = folder.run(&args);
            let end = folder.snapshot();
            // Read only a regular file (a FIFO would block the test).
            let written = std::fs::symlink_metadata(&target).is_ok_and(|m| m.is_file())
                && std::fs::read_to_string(&target).is_ok_and(|t| t.contains("\n.TH "));
            let (held, why) = match before {
                AtPage::File
                | AtPage::Fifo
                | AtPage::Directory
                | AtPage::LinkToFifo
                | AtPage::LinkToDevice => {
                    (code == 2 && start == end, "refused with every file unchanged")
                }
                AtPage::FileForced => (code == 0 && written, "the page replaced"),
                AtPage::StaleScratch => (
                    code == 0 && written && !scratch.exists(),
                    "written, the stale scratch removed",
                ),
                AtPage::HeldScratch => {
                    (code == 0 && written && scratch.exists(), "written, the held scratch kept")
                }
            };
            // No scratch file of this run is left.
            let leftovers: Vec<&String> = end
                .iter()
                .map(|(name, _)| name)
                .filter(|name| name.contains(".man-"))
                .filter(|name| !start.iter().any(|(old, _)| old == *name))
                .collect();
            let held = held && leftovers.is_empty();
            if !held {
                failures.push(format!(
                    "#{index} `{}` with {before:?}: expected {why}; exit {code}, leftovers \
                     {leftovers:?}: {}",
                    args.join(" "),
                    stderr.trim()
                ));
            }
            tally(index, held, &mut dev, &mut test);
            index += 1;
        }
    }
    println!("manual pages published: dev {}/{}, test {}/{}", dev.0, dev.1, test.0, test.1);
    assert!(failures.is_empty(), "{} failed:\n{}", failures.len(), failures.join("\n"));
}

/// Lines no reader takes for a session: what the failing commands below are given.
const BAD_FILES: [(&str, &[u8]); 4] = [
    ("garbage.jsonl", b"this is not JSON\n"),
    ("headless.jsonl", b"{\"type\":\"message\",\"id\":\"a\",\"parentId\":null}\n"),
    ("empty.jsonl", b""),
    ("binary.jsonl", b"\x00\xff\xfe{\x01\n"),
];

#[test]
fn a_failed_command_leaves_every_file_byte_identical() {
    // Each: the arguments, and what the folder holds first (`bad`: the bad files in `in/`,
    // `one`: only the first as `bad.jsonl`, `session`: the offline fixture as `s.jsonl`).
    let cases: [(&[&str], &str); 20] = [
        (&["store", "import", "in", "--to", "sqlite:new.sqlite"], "bad"),
        (&["store", "import", "bad.jsonl", "--to", "sqlite:new.sqlite"], "one"),
        (&["store", "import", "in", "--to", "sqlite:sub/new.sqlite"], "bad"),
        (&["store", "import", "missing", "--to", "sqlite:new.sqlite"], "bad"),
        (&["store", "list", "sqlite:missing.sqlite"], "bad"),
        (&["store", "migrate", "sqlite:missing.sqlite"], "bad"),
        (&["store", "export", "sqlite:missing.sqlite#x", "-o", "out.jsonl"], "bad"),
        (&["stats", "sqlite:missing.sqlite#x"], "bad"),
        (&["context", "sqlite:missing.sqlite#x"], "bad"),
        (&["run", "sqlite:missing.sqlite#x", "--offline"], "bad"),
        (&["worker", "--store", "sqlite:missing.sqlite", "--once", "--offline"], "bad"),
        (&["worker", "--store", "missing-folder", "--once", "--offline"], "bad"),
        (&["export", "bad.jsonl", "--format", "codex", "-o", "new/out.jsonl"], "one"),
        (&["import", "in", "-o", "new/out.jsonl"], "bad"),
        (&["import", "bad.jsonl", "-o", "new/out.jsonl"], "one"),
        (&["run", "bad.jsonl", "-o", "new/out.jsonl", "--offline"], "one"),
        (
            &[
                "run",
                "s.jsonl",
                "-o",
                "out.jsonl",
                "--keep-recent",
                "500",
                "--min-turns",
                "0",
                "--provider",
                "openai",
                "--base-url",
                "http://127.0.0.1:9/v1",
                "--model",
                "m",
            ],
            "session",
        ),
        (&["migrate", "bad.jsonl"], "one"),
        (&["man", "--dir", "missing"], "bad"),
        (&["prune", "bad.jsonl"], "one"),
    ];
    let (mut dev, mut test) = ((0, 0), (0, 0));
    let mut failures = Vec::new();
    for (index, (args, holds)) in cases.iter().enumerate() {
        let folder = Folder::new();
        let work = folder.work();
        match *holds {
            "bad" => {
                std::fs::create_dir(work.join("in")).unwrap();
                for (name, bytes) in BAD_FILES {
                    std::fs::write(work.join("in").join(name), bytes).unwrap();
                }
            }
            "one" => std::fs::write(work.join("bad.jsonl"), BAD_FILES[0].1).unwrap(),
            _ => {
                std::fs::copy(super::fixture("offline-coding.jsonl"), work.join("s.jsonl"))
                    .unwrap();
            }
        }
        let args = strings(args);
        let start = folder.snapshot();
        let (code, stderr) = folder.run(&args);
        let end = folder.snapshot();
        let held = code != 0 && code != -2 && start == end;
        if !held {
            let changed: Vec<_> = end.iter().filter(|item| !start.contains(item)).collect();
            failures.push(format!(
                "#{index} `{}`: exit {code}, {} {changed:?}: {}",
                args.join(" "),
                if start == end { "unchanged" } else { "CHANGED" },
                stderr.trim()
            ));
        }
        tally(index, held, &mut dev, &mut test);
    }
    println!("failed commands leave nothing: dev {}/{}, test {}/{}", dev.0, dev.1, test.0, test.1);
    assert!(failures.is_empty(), "{} failed:\n{}", failures.len(), failures.join("\n"));
}
