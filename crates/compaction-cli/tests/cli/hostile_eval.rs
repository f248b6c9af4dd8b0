//! Hardening round 14, the class "a file `eval` is given or led to is hostile": a probe file
//! named on the command line or found in a folder, the session a probe file names, the
//! transcripts root's `SOURCES.json` and the transcripts it lists, each one of: a FIFO with
//! no writer, a socket, a link to `/dev/zero`, a link to a FIFO, a folder, a sparse 5 GB file;
//! a transcript named `../outside` or by an absolute path, or a link out of the root to a
//! private file; a folder of probe files holding a link to itself or to `/`.
//!
//! An instance holds when `eval` ends within the deadline, refuses with exit 2 naming the
//! file at fault (or, for the folder links, evaluates the real probe file and ends), and
//! prints nothing of the private file. Two controls (a probe file with its session, one with
//! its transcript) must evaluate (exit 0).
//!
//! The split, fixed before the fix: instance `i` (in the order generated) is in the test part
//! when `i % 3 == 2`, else in the dev part.
//!
//! `cargo test -p compaction-cli --test cli hostile_eval -- --nocapture`; another binary with
//! `ROUND14_COMPACTION_BIN=/path/to/compaction`.

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use serde_json::json;

/// What stands where a file is expected.
#[derive(Clone, Copy, Debug)]
enum Node {
    Fifo,
    Socket,
    LinkToZero,
    LinkToFifo,
    Folder,
    Sparse,
}

const NODES: [Node; 6] =
    [Node::Fifo, Node::Socket, Node::LinkToZero, Node::LinkToFifo, Node::Folder, Node::Sparse];

fn plant(node: Node, at: &Path) {
    let _ = std::fs::remove_file(at);
    match node {
        Node::Fifo => assert!(Command::new("mkfifo").arg(at).status().unwrap().success()),
        Node::Socket => {
            std::mem::forget(std::os::unix::net::UnixListener::bind(at).unwrap());
        }
        Node::LinkToZero => std::os::unix::fs::symlink("/dev/zero", at).unwrap(),
        Node::LinkToFifo => {
            let fifo = at.with_extension("fifo-target");
            assert!(Command::new("mkfifo").arg(&fifo).status().unwrap().success());
            std::os::unix::fs::symlink(&fifo, at).unwrap();
        }
        Node::Folder => std::fs::create_dir(at).unwrap(),
        Node::Sparse => std::fs::File::create(at).unwrap().set_len(5 << 30).unwrap(),
    }
}

const PRIVATE: &str = "PRIVATE-ROUND14-a8f3";

/// A work folder: `s.jsonl` and its probe file `p.probes.json`, a transcripts root `tr/`
/// (`SOURCES.json`, `t.jsonl`) and its probe file `tp.probes.json`, and a private file
/// outside both, `outside/private.jsonl`.
fn work() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let examples = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/eval");
    std::fs::copy(examples.join("docker-ci.jsonl"), root.join("s.jsonl")).unwrap();
    let probe = json!({"category": "artifact", "question": "Which file changed?",
        "subject": ["file"], "expect": ["requirements.txt"]});
    let write = |name: &str, value: serde_json::Value| {
        std::fs::write(root.join(name), value.to_string()).unwrap();
    };
    write("p.probes.json", json!({"session": "s.jsonl", "probes": [probe]}));
    std::fs::create_dir(root.join("tr")).unwrap();
    std::fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../compaction-core/tests/fixtures/import/claude-code.jsonl"),
        root.join("tr/t.jsonl"),
    )
    .unwrap();
    std::fs::create_dir(root.join("outside")).unwrap();
    let private = json!({"type": "user", "sessionId": "x", "parentUuid": null, "uuid": "u",
        "message": {"role": "user", "content": PRIVATE}});
    std::fs::write(root.join("outside/private.jsonl"), format!("{private}\n")).unwrap();
    let rows: Vec<_> = ["t.jsonl", "../outside/private.jsonl", "/ABS", "out.jsonl"]
        .iter()
        .map(|file| {
            let file = file.replace("/ABS", &root.join("outside/private.jsonl").to_string_lossy());
            json!({"file": file, "repository": "r", "path": "p"})
        })
        .collect();
    write("tr/SOURCES.json", json!({ "files": rows }));
    write("tp.probes.json", json!({"transcript": "t.jsonl", "probes": [probe]}));
    dir
}

fn eval(args: &[&str], cwd: &Path) -> super::child::Ran {
    let binary = std::env::var_os("ROUND14_COMPACTION_BIN")
        .unwrap_or_else(|| env!("CARGO_BIN_EXE_compaction").into());
    let home = tempfile::tempdir().unwrap();
    let mut command = Command::new(binary);
    command
        .arg("eval")
        .args(args)
        .args(["--offline", "--compactions", "1"])
        .current_dir(cwd)
        .env("HOME", home.path())
        .env("TMPDIR", home.path())
        .env_remove("COMPACTION_TRANSCRIPTS")
        .env_remove("PI_CODING_AGENT_DIR");
    super::child::run_until(&mut command, Duration::from_secs(30))
}

/// One instance: how to spoil the work folder, the arguments, and the name the error must
/// hold (`None`: the run must succeed).
struct Case {
    name: String,
    spoil: Box<dyn Fn(&Path)>,
    args: Vec<&'static str>,
    names: Option<&'static str>,
}

/// Makes `tp.probes.json` name `transcript` (`/ABS`: the private file by its absolute path).
fn named(transcript: &'static str) -> Box<dyn Fn(&Path)> {
    Box::new(move |w: &Path| {
        let transcript =
            transcript.replace("/ABS", &w.join("outside/private.jsonl").to_string_lossy());
        let probe = json!({"category": "artifact", "question": "q", "subject": ["x"],
            "expect": ["y"]});
        let file = json!({"transcript": transcript, "probes": [probe]});
        std::fs::write(w.join("tp.probes.json"), file.to_string()).unwrap();
    })
}

fn cases() -> Vec<Case> {
    let mut cases = Vec::new();
    let mut add = |name: String, spoil: Box<dyn Fn(&Path)>, args: Vec<&'static str>, names| {
        cases.push(Case { name, spoil, args, names });
    };
    add("control: a session".into(), Box::new(|_| {}), vec!["p.probes.json"], None);
    add(
        "control: a transcript".into(),
        Box::new(|_| {}),
        vec!["tp.probes.json", "--transcripts", "tr"],
        None,
    );
    for node in NODES {
        add(
            format!("probe file given: {node:?}"),
            Box::new(move |w| plant(node, &w.join("x.probes.json"))),
            vec!["x.probes.json"],
            Some("x.probes.json"),
        );
        if !matches!(node, Node::Folder) {
            add(
                format!("probe file in a folder: {node:?}"),
                Box::new(move |w| {
                    std::fs::create_dir(w.join("set")).unwrap();
                    plant(node, &w.join("set/x.probes.json"));
                }),
                vec!["set"],
                Some("x.probes.json"),
            );
        }
        add(
            format!("session a probe names: {node:?}"),
            Box::new(move |w| plant(node, &w.join("s.jsonl"))),
            vec!["p.probes.json"],
            Some("s.jsonl"),
        );
        add(
            format!("transcript a probe names: {node:?}"),
            Box::new(move |w| plant(node, &w.join("tr/t.jsonl"))),
            vec!["tp.probes.json", "--transcripts", "tr"],
            Some("t.jsonl"),
        );
        add(
            format!("SOURCES.json: {node:?}"),
            Box::new(move |w| plant(node, &w.join("tr/SOURCES.json"))),
            vec!["tp.probes.json", "--transcripts", "tr"],
            Some("SOURCES.json"),
        );
    }
    add(
        "transcript named ../outside".into(),
        named("../outside/private.jsonl"),
        vec!["tp.probes.json", "--transcripts", "tr"],
        Some("../outside/private.jsonl"),
    );
    add(
        "transcript named by an absolute path".into(),
        named("/ABS"),
        vec!["tp.probes.json", "--transcripts", "tr"],
        Some("private.jsonl"),
    );
    add(
        "transcript: a link out of the root".into(),
        Box::new(|w: &Path| {
            std::os::unix::fs::symlink(w.join("outside/private.jsonl"), w.join("tr/out.jsonl"))
                .unwrap();
            named("out.jsonl")(w);
        }),
        vec!["tp.probes.json", "--transcripts", "tr"],
        Some("out.jsonl"),
    );
    for (link, target) in [("loop", "."), ("up", ".."), ("root", "/")] {
        add(
            format!("a folder of probe files with a link `{link}` to `{target}`"),
            Box::new(move |w: &Path| {
                std::fs::create_dir(w.join("set")).unwrap();
                std::fs::copy(w.join("p.probes.json"), w.join("set/p.probes.json")).unwrap();
                std::fs::copy(w.join("s.jsonl"), w.join("set/s.jsonl")).unwrap();
                std::os::unix::fs::symlink(target, w.join("set").join(link)).unwrap();
            }),
            vec!["set"],
            None,
        );
    }
    cases
}

#[test]
fn eval_refuses_what_it_is_given_or_led_to_unless_it_is_a_bounded_regular_file_in_place() {
    let mut tally = [[0usize; 2]; 2]; // [dev, test] × [held, missed]
    let mut dev_misses = Vec::new();
    let mut test_misses = Vec::new();
    for (instance, case) in cases().into_iter().enumerate() {
        let dir = work();
        (case.spoil)(dir.path());
        let ran = eval(&case.args, dir.path());
        let shown = format!("{}\n{}", ran.stdout, ran.stderr);
        let problem = if ran.code == -2 {
            Some(format!("still running after {:?}", ran.elapsed))
        } else if shown.contains(PRIVATE) {
            Some("printed the private file".to_owned())
        } else {
            match case.names {
                None if ran.code != 0 => Some(format!("exit {}: {}", ran.code, ran.stderr.trim())),
                Some(name) if ran.code != 2 || !ran.stderr.contains(name) => Some(format!(
                    "exit {} (expected 2 naming {name}): {}",
                    ran.code,
                    ran.stderr.trim().chars().take(300).collect::<String>()
                )),
                _ => None,
            }
        };
        let part = usize::from(instance % 3 == 2);
        tally[part][usize::from(problem.is_some())] += 1;
        if let Some(problem) = problem {
            if part == 0 {
                dev_misses.push(format!("#{instance} {}: {problem}", case.name));
            } else {
                test_misses.push(instance);
            }
        }
    }
    for miss in &dev_misses {
        eprintln!("dev miss {miss}");
    }
    eprintln!("test misses (by number): {test_misses:?}");
    let [[dev_held, dev_missed], [test_held, test_missed]] = tally;
    eprintln!(
        "hostile eval inputs: dev {dev_held}/{} held, test {test_held}/{} held",
        dev_held + dev_missed,
        test_held + test_missed
    );
    assert!(dev_misses.is_empty() && test_misses.is_empty());
}
