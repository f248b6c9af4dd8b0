//! What stands at the name of a file a command writes, attacked by class: every command that
//! writes a file the user names (`run -o`, `import -o`, `export -o`, `store export -o`,
//! `man --dir`, the database of `store import --to sqlite:`) × what is there first (a file, a
//! link to a file, a link to nothing, a folder, a FIFO, a folder the user cannot write, the
//! input under another name) × with and without `--force`; and the same commands racing a
//! file (or a FIFO) that appears while they run.
//!
//! The rules every instance is held to: an existing name is never replaced without `--force`
//! (a database is written into only when it is one); nothing that is no regular file is ever
//! replaced or written through, with or without `--force`; the input is never the output; a
//! refused or failed command leaves every file byte-identical; a name that appears while the
//! command runs is never replaced without `--force`, and a FIFO never.
//!
//! Instances are numbered in the order generated; instance `i` is in the test part when
//! `i % 3 == 0`, else in the dev part.

use std::process::Stdio;
use std::time::{Duration, Instant};

use super::{Folder, database, strings, tally};

/// A command that writes a file the user names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Writer {
    RunCopy,
    Import,
    Export,
    StoreExport,
    Man,
    /// `store import --to sqlite:OUT`: writes into an existing database; has no `--force`.
    StoreImport,
}

const WRITERS: [Writer; 6] = [
    Writer::RunCopy,
    Writer::Import,
    Writer::Export,
    Writer::StoreExport,
    Writer::Man,
    Writer::StoreImport,
];

impl Writer {
    /// The arguments that write to `out` (a path relative to the work folder).
    fn args(self, out: &str, id: &str, force: bool) -> Vec<String> {
        let mut args = match self {
            Writer::RunCopy => strings(&[
                "run",
                "s.jsonl",
                "--offline",
                "--keep-recent",
                "500",
                "--min-turns",
                "0",
                "-o",
                out,
            ]),
            Writer::Import => strings(&["import", "t.jsonl", "-o", out]),
            Writer::Export => strings(&["export", "s.jsonl", "--format", "codex", "-o", out]),
            Writer::StoreExport => {
                strings(&["store", "export", &format!("sqlite:db.sqlite#{id}"), "-o", out])
            }
            Writer::Man => {
                // The page is `DIR/compaction-run.1`.
                let dir = out.strip_suffix("/compaction-run.1").unwrap_or(out);
                strings(&["man", "run", "--dir", dir])
            }
            Writer::StoreImport => {
                strings(&["store", "import", "s.jsonl", "--to", &format!("sqlite:{out}")])
            }
        };
        if force {
            args.push("--force".into());
        }
        args
    }

    fn has_force(self) -> bool {
        self != Writer::StoreImport
    }

    /// The input file, to be named again as the output.
    fn input(self) -> Option<&'static str> {
        match self {
            Writer::RunCopy | Writer::Export | Writer::StoreImport => Some("s.jsonl"),
            Writer::Import => Some("t.jsonl"),
            Writer::StoreExport => Some("db.sqlite"),
            Writer::Man => None,
        }
    }

    /// Where the output goes in a folder `dir` (`.` for the work folder).
    fn output_in(self, dir: &str) -> String {
        let name = if self == Writer::Man { "compaction-run.1" } else { "out.jsonl" };
        if dir == "." { name.to_owned() } else { format!("{dir}/{name}") }
    }
}

/// What stands at the output's name first.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Target {
    File,
    LinkToFile,
    DanglingLink,
    Directory,
    Fifo,
    ReadOnlyFolder,
    InputByAnotherName,
}

const TARGETS: [Target; 7] = [
    Target::File,
    Target::LinkToFile,
    Target::DanglingLink,
    Target::Directory,
    Target::Fifo,
    Target::ReadOnlyFolder,
    Target::InputByAnotherName,
];

const USERS_OWN: &str = "the user's own file\n";

/// A folder holding every input the writers read: `s.jsonl`, `t.jsonl`, `db.sqlite` (with
/// the session of `s.jsonl`), and `pages/` for the manual page. Returns it and the id.
fn inputs() -> (Folder, String) {
    let folder = Folder::new();
    let id = database(&folder);
    let work = folder.work();
    std::fs::copy(super::super::fixture("offline-coding.jsonl"), work.join("s.jsonl")).unwrap();
    std::fs::write(
        work.join("t.jsonl"),
        include_str!("../../../../compaction-core/tests/fixtures/import/claude-code.jsonl"),
    )
    .unwrap();
    std::fs::create_dir(work.join("pages")).unwrap();
    (folder, id)
}

fn mkfifo(path: &std::path::Path) {
    assert!(std::process::Command::new("mkfifo").arg(path).status().unwrap().success());
}

/// Whether this process can create a file in `dir` (a read-only folder is writable for root).
fn writable(dir: &std::path::Path) -> bool {
    let probe = dir.join(".probe");
    let made = std::fs::write(&probe, "").is_ok();
    let _ = std::fs::remove_file(&probe);
    made
}

/// Whether `path` (followed) is a regular file whose bytes are not the user's own.
fn written(path: &std::path::Path) -> bool {
    std::fs::metadata(path).is_ok_and(|m| m.is_file())
        && std::fs::read(path).is_ok_and(|bytes| bytes != USERS_OWN.as_bytes() && !bytes.is_empty())
}

#[test]
fn no_writing_command_replaces_or_writes_through_what_stands_at_its_output() {
    let (mut dev, mut test) = ((0, 0), (0, 0));
    let mut failures = Vec::new();
    let mut index = 0;
    for writer in WRITERS {
        for target in TARGETS {
            for force in [false, true] {
                if force && !writer.has_force() {
                    continue;
                }
                let input = writer.input();
                if target == Target::InputByAnotherName && input.is_none() {
                    continue;
                }
                let (folder, id) = inputs();
                let work = folder.work();
                let dir = if writer == Writer::Man { "pages" } else { "." };
                let mut out = writer.output_in(dir);
                let path = work.join(&out);
                let mut can_write = true;
                match target {
                    Target::File => std::fs::write(&path, USERS_OWN).unwrap(),
                    Target::LinkToFile => {
                        std::fs::write(work.join("real.txt"), USERS_OWN).unwrap();
                        let up = if dir == "." { "real.txt" } else { "../real.txt" };
                        std::os::unix::fs::symlink(up, &path).unwrap();
                    }
                    Target::DanglingLink => {
                        std::os::unix::fs::symlink("nowhere", &path).unwrap();
                    }
                    Target::Directory => std::fs::create_dir(&path).unwrap(),
                    Target::Fifo => mkfifo(&path),
                    Target::ReadOnlyFolder => {
                        let ro = if writer == Writer::Man { "pages" } else { "ro" };
                        let ro_path = work.join(ro);
                        if !ro_path.exists() {
                            std::fs::create_dir(&ro_path).unwrap();
                        }
                        out = writer.output_in(ro);
                        use std::os::unix::fs::PermissionsExt as _;
                        std::fs::set_permissions(&ro_path, std::fs::Permissions::from_mode(0o555))
                            .unwrap();
                        can_write = writable(&ro_path);
                    }
                    Target::InputByAnotherName => {
                        // A hard link: another name, the same file.
                        out = "again.jsonl".into();
                        std::fs::hard_link(work.join(input.unwrap_or_default()), work.join(&out))
                            .unwrap();
                    }
                }
                let path = work.join(&out);
                let args = writer.args(&out, &id, force);
                let start = folder.snapshot();
                let (code, stderr) = folder.run(&args);
                let end = folder.snapshot();
                let unchanged = start == end;
                let refused = code != 0 && code != -2 && !stderr.contains("panicked") && unchanged;
                // Only the output's own name may change.
                let only_output = {
                    let name = format!("work/{out}");
                    let others = |items: &[(String, String)]| -> Vec<(String, String)> {
                        items.iter().filter(|(n, _)| *n != name).cloned().collect()
                    };
                    others(&start) == others(&end)
                };
                let (held, expected) = match (target, force) {
                    (Target::File, false) => (refused, "refused, every file unchanged"),
                    (Target::LinkToFile, false) | (Target::DanglingLink, false) => {
                        (refused, "refused, the link and every file unchanged")
                    }
                    (Target::File, true) => (
                        code == 0 && written(&path) && only_output,
                        "the file replaced, nothing else changed",
                    ),
                    (Target::LinkToFile, true) | (Target::DanglingLink, true) => (
                        code == 0 && written(&path) && only_output,
                        "the link replaced by the output, what it names untouched",
                    ),
                    (Target::Directory | Target::Fifo | Target::InputByAnotherName, _) => {
                        (refused, "refused, every file unchanged")
                    }
                    (Target::ReadOnlyFolder, _) => {
                        if can_write {
                            (code == 0 && written(&path), "written (this user may write there)")
                        } else {
                            (refused, "refused, nothing left in the folder")
                        }
                    }
                };
                if !held {
                    let changed: Vec<_> = end.iter().filter(|item| !start.contains(item)).collect();
                    failures.push(format!(
                        "#{index} {writer:?} onto {target:?}{}: expected {expected}; exit {code}, \
                         {changed:?}: {}",
                        if force { " with --force" } else { "" },
                        stderr.trim()
                    ));
                }
                tally(index, held, &mut dev, &mut test);
                index += 1;
                // Let the temporary folder go (a read-only folder could not be emptied).
                use std::os::unix::fs::PermissionsExt as _;
                for ro in ["ro", "pages"] {
                    let _ = std::fs::set_permissions(
                        work.join(ro),
                        std::fs::Permissions::from_mode(0o755),
                    );
                }
            }
        }
    }
    super::report("what stands at an output", dev, test, &failures);
}

/// What appears at the output's name while the command runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Appearing {
    /// A file of another program's, the command without `--force`: never replaced.
    File,
    /// A FIFO, the command with `--force`: never replaced.
    Fifo,
}

#[test]
fn a_name_that_appears_while_a_command_writes_is_never_replaced() {
    // The writers whose runs last long enough to be raced, each timed once on a clean run;
    // the instances are points spread over that time.
    let writers =
        [Writer::RunCopy, Writer::Import, Writer::Export, Writer::Man, Writer::StoreExport];
    let points = 8u32;
    let (mut dev, mut test) = ((0, 0), (0, 0));
    let mut failures = Vec::new();
    let mut index = 0;
    for writer in writers {
        let duration = {
            let (folder, id) = inputs();
            let started = Instant::now();
            let (code, stderr) = folder.run(&writer.args(&writer.output_in("pages"), &id, false));
            assert_eq!(code, 0, "{stderr}");
            started.elapsed()
        };
        for appearing in [Appearing::File, Appearing::Fifo] {
            for point in 0..points {
                let (folder, id) = inputs();
                let work = folder.work();
                let out = writer.output_in("pages");
                let path = work.join(&out);
                let force = appearing == Appearing::Fifo;
                let args = writer.args(&out, &id, force);
                let mut child = folder.command(&args).stderr(Stdio::null()).spawn().unwrap();
                std::thread::sleep(duration * point / points);
                let planted = match appearing {
                    Appearing::File => std::fs::OpenOptions::new()
                        .write(true)
                        .create_new(true)
                        .open(&path)
                        .and_then(|mut file| {
                            std::io::Write::write_all(&mut file, USERS_OWN.as_bytes())
                        })
                        .is_ok(),
                    Appearing::Fifo => std::process::Command::new("mkfifo")
                        .arg(&path)
                        .stderr(Stdio::null())
                        .status()
                        .unwrap()
                        .success(),
                };
                let started = Instant::now();
                let status = loop {
                    if let Some(status) = child.try_wait().unwrap() {
                        break status.code().unwrap_or(-1);
                    }
                    if started.elapsed() > Duration::from_secs(30) {
                        child.kill().unwrap();
                        let _ = child.wait();
                        break -2;
                    }
                    std::thread::sleep(Duration::from_millis(5));
                };
                let meta = std::fs::symlink_metadata(&path);
                let (held, what) = if planted {
                    let kept = match appearing {
                        Appearing::File => {
                            std::fs::read(&path).is_ok_and(|b| b == USERS_OWN.as_bytes())
                        }
                        Appearing::Fifo => {
                            use std::os::unix::fs::FileTypeExt as _;
                            meta.as_ref().is_ok_and(|m| m.file_type().is_fifo())
                        }
                    };
                    (
                        kept && status != 0 && status != -2,
                        "the planted one kept, the command refused",
                    )
                } else {
                    (status == 0 && written(&path), "published first, the plant refused")
                };
                // No scratch file of the command is left beside the output.
                let left: Vec<String> = std::fs::read_dir(work.join("pages"))
                    .unwrap()
                    .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                    .filter(|name| name.starts_with('.'))
                    .collect();
                let held = held && left.is_empty();
                if !held {
                    failures.push(format!(
                        "#{index} {writer:?}, a {appearing:?} appearing at {point}/{points} of \
                         {duration:?}: expected {what}; exit {status}, planted {planted}, left \
                         {left:?}"
                    ));
                }
                tally(index, held, &mut dev, &mut test);
                index += 1;
            }
        }
    }
    super::report("names appearing meanwhile", dev, test, &failures);
}
