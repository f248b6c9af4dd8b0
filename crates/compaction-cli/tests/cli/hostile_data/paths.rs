//! A path named by the data: a session names its folder (`cwd`) and the files its tool calls
//! edited, and `run --restore-files` reads them back into the session; `export` derives the
//! agent's project folder from that `cwd`. A session from someone else names private files
//! of the user (`~/.ssh/id_rsa`, `~/.aws/credentials`), system files (`/etc/passwd`,
//! `/proc/self/environ`), the whole file system (`cwd: "/"`), the home folder, a link out of
//! the project, a FIFO, `/dev/zero`, a sparse 5 GB file; and folder names with `..`, NUL,
//! very long or absolute paths.
//!
//! Held: no text of a file outside the session's own project folder reaches the session or
//! the output, each refused path is named in the report (never silently dropped), no run
//! hangs; files of a real project (the control instances) are still restored; `export`
//! writes only inside the agent's own folder, one folder level below `projects`.

use std::path::Path;

use super::{Tally, changes, instance_root, run_in, session_naming, snapshot, strings};

/// Private files planted under the instance's home folder: (path below home, text).
const PRIVATE: [(&str, &str); 6] = [
    (".ssh/id_rsa", "canary ssh identity walrus meadow"),
    (".aws/credentials", "canary aws profile heron quarry"),
    (".config/gh/hosts.yml", "canary gh hosts lantern orchid"),
    (".netrc", "canary netrc machine otter violet"),
    ("notes.txt", "canary private notes bramble falcon"),
    (".gnupg/private-keys-v1.d/key.key", "canary gpg key thistle copper"),
];

/// What a restore instance expects.
enum Expect {
    /// The text must not reach the session or the output, and the path must be named as
    /// skipped.
    Refused { canary: String },
    /// The file must be restored with this text.
    Restored { text: String },
}

/// One restore instance: the session's `cwd`, the path its tool calls name, what to expect.
struct Case {
    label: String,
    cwd: String,
    path: String,
    expect: Expect,
}

/// Makes the instance's files: the private files in `home`, a project `work/proj` with
/// `src/a.rs`, `.github/workflows/ci.yml`, a link out (`leak` → the private file named by
/// `target`), a folder link out (`keys` → `home/.ssh`), a FIFO, a link to `/dev/zero`, a
/// sparse 5 GB log; `work/homelink` → home; `work/plink` → the project; a project inside
/// home (`home/code/proj`).
fn plant(root: &Path, target: &str) {
    let home = root.join("home");
    for (path, text) in PRIVATE {
        let file = home.join(path);
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(&file, format!("{text}\n")).unwrap();
    }
    for project in [root.join("work/proj"), home.join("code/proj")] {
        std::fs::create_dir_all(project.join("src")).unwrap();
        std::fs::create_dir_all(project.join(".github/workflows")).unwrap();
        std::fs::write(project.join("src/a.rs"), "// control source kestrel\n").unwrap();
        std::fs::write(project.join(".github/workflows/ci.yml"), "# control ci kestrel\n").unwrap();
    }
    let proj = root.join("work/proj");
    std::os::unix::fs::symlink(home.join(target), proj.join("leak")).unwrap();
    std::os::unix::fs::symlink(home.join(".ssh"), proj.join("keys")).unwrap();
    std::os::unix::fs::symlink("/dev/zero", proj.join("zero")).unwrap();
    assert!(
        std::process::Command::new("mkfifo").arg(proj.join("pipe")).status().unwrap().success()
    );
    let big = std::fs::File::create(proj.join("big.log")).unwrap();
    big.set_len(5 << 30).unwrap();
    std::os::unix::fs::symlink(&home, root.join("work/homelink")).unwrap();
    std::os::unix::fs::symlink(&proj, root.join("work/plink")).unwrap();
}

/// The restore instances for one planted root (paths depend on it), in a fixed order.
fn cases(root: &Path) -> Vec<Case> {
    let root_text = root.to_str().unwrap();
    let home = format!("{root_text}/home");
    let proj = format!("{root_text}/work/proj");
    let mut cases = Vec::new();
    let refused = |label: &str, cwd: String, path: String, canary: &str| Case {
        label: label.to_owned(),
        cwd,
        path,
        expect: Expect::Refused { canary: canary.to_owned() },
    };
    for (index, (target, text)) in PRIVATE.iter().enumerate() {
        let absolute = format!("{home}/{target}");
        let (dir, name) = absolute.rsplit_once('/').unwrap();
        let ways: Vec<(&str, String, String)> = vec![
            ("cwd / and a relative path", "/".into(), absolute[1..].to_owned()),
            ("cwd / and an absolute path", "/".into(), absolute.clone()),
            ("cwd // and a relative path", "//".into(), absolute[1..].to_owned()),
            ("cwd the home folder", home.clone(), (*target).to_owned()),
            ("cwd the home folder/", format!("{home}/"), format!("./{target}")),
            ("cwd the file's own folder", dir.to_owned(), name.to_owned()),
            ("cwd above the home folder", root_text.to_owned(), format!("home/{target}")),
            (
                "cwd a link to the home folder",
                format!("{root_text}/work/homelink"),
                (*target).to_owned(),
            ),
            (
                "cwd climbing into home textually",
                format!("{proj}/../../home"),
                (*target).to_owned(),
            ),
            ("a path climbing out of the project", proj.clone(), format!("../../home/{target}")),
            ("a link in the project to the file", proj.clone(), "leak".to_owned()),
            ("an absolute path out of the project", proj.clone(), absolute.clone()),
        ];
        for (label, cwd, path) in ways {
            cases.push(refused(&format!("{target}: {label}"), cwd, path, text));
        }
        // Controls, spread over the order so both parts hold some.
        let source = "// control source kestrel";
        let (cwd, path, text) = match index {
            0 => (proj.clone(), "src/a.rs".to_owned(), source),
            1 => (format!("{home}/code/proj"), "src/a.rs".to_owned(), source),
            2 => (proj.clone(), ".github/workflows/ci.yml".to_owned(), "# control ci kestrel"),
            3 => (format!("{proj}/"), "./src/../src/a.rs".to_owned(), source),
            4 => (format!("{root_text}/work/plink"), "src/a.rs".to_owned(), source),
            _ => (proj.clone(), format!("{proj}/src/a.rs"), source),
        };
        cases.push(Case {
            label: format!("control: {path} in {cwd}"),
            cwd,
            path,
            expect: Expect::Restored { text: text.to_owned() },
        });
    }
    let passwd = std::fs::read_to_string("/etc/passwd").unwrap_or_default();
    let first = passwd.lines().next().unwrap_or("root:x:0:0").to_owned();
    cases.push(refused("system: cwd /etc", "/etc".into(), "passwd".into(), &first));
    cases.push(refused("system: cwd / naming etc/passwd", "/".into(), "etc/passwd".into(), &first));
    cases.push(refused(
        "system: cwd /proc/self/root/etc",
        "/proc/self/root/etc".into(),
        "passwd".into(),
        &first,
    ));
    cases.push(refused(
        "system: cwd /proc/self",
        "/proc/self".into(),
        "environ".into(),
        "canary-environment-parsnip",
    ));
    cases.push(refused(
        "system: cwd /proc/self naming status",
        "/proc/self".into(),
        "status".into(),
        "canary-environment-parsnip",
    ));
    cases.push(refused("system: cwd /dev", "/dev".into(), "zero".into(), "\u{0}\u{0}\u{0}"));
    for (label, path) in [
        ("a FIFO in the project", "pipe"),
        ("a link to /dev/zero in the project", "zero"),
        ("a sparse 5 GB file in the project", "big.log"),
        ("a folder link out of the project", "keys/id_rsa"),
        ("a NUL in the path", "src/a.rs\u{0}/../../../home/.ssh/id_rsa"),
    ] {
        cases.push(refused(
            &format!("project: {label}"),
            proj.clone(),
            path.into(),
            "canary ssh identity walrus meadow",
        ));
    }
    cases
}

/// Checks one restore run against what it expects; `None` when it held.
fn judge(case: &Case, session: &str, ran: &super::Ran) -> Option<String> {
    let what = format!("{} (cwd {:?}, path {:?})", case.label, case.cwd, case.path);
    if ran.code != 0 {
        return Some(format!("{what}: exit {}: {}", ran.code, ran.stderr.trim()));
    }
    let json: serde_json::Value = match serde_json::from_str(&ran.stdout) {
        Ok(json) => json,
        Err(_) => return Some(format!("{what}: stdout is no JSON: {}", ran.stdout)),
    };
    let listed = |key: &str| -> Vec<String> {
        json["restoredFiles"][key]
            .as_array()
            .map(|items| {
                items.iter().filter_map(|item| item["path"].as_str().map(str::to_owned)).collect()
            })
            .unwrap_or_default()
    };
    match &case.expect {
        Expect::Refused { canary } => {
            if session.contains(canary.as_str()) || ran.stdout.contains(canary.as_str()) {
                return Some(format!("{what}: the file's text reached the session"));
            }
            if listed("restored").contains(&case.path) {
                return Some(format!("{what}: restored"));
            }
            if !listed("skipped").contains(&case.path) {
                return Some(format!("{what}: not named as skipped: {}", json["restoredFiles"]));
            }
            None
        }
        Expect::Restored { text } => {
            if !listed("restored").contains(&case.path) || !session.contains(text.as_str()) {
                return Some(format!("{what}: not restored: {}", json["restoredFiles"]));
            }
            None
        }
    }
}

#[test]
fn files_named_by_a_session_are_read_only_inside_its_own_project_folder() {
    let mut tally = Tally::default();
    let mut index = 0;
    // One planted root per private target (its `leak` link names that target).
    for (target, _) in PRIVATE {
        let (root, work, tmp, home) = instance_root();
        plant(root.path(), target);
        for case in cases(root.path()) {
            // The cases of other targets than this root's are run under their own root.
            if !case.label.starts_with(target)
                && PRIVATE.iter().any(|(t, _)| case.label.starts_with(t))
            {
                continue;
            }
            if case.label.starts_with("control")
                || case.label.starts_with("system")
                || case.label.starts_with("project")
            {
                // Controls and system cases run once, under the first root.
                if target != PRIVATE[0].0 {
                    continue;
                }
            }
            let session = work.join(format!("s{index}.jsonl"));
            std::fs::write(&session, session_naming(&case.cwd, &case.path)).unwrap();
            let args = strings(&[
                "run",
                session.to_str().unwrap(),
                "--keep-recent",
                "500",
                "--min-turns",
                "0",
                "--restore-files",
                "--json",
            ]);
            let ran = run_in(
                &work,
                &home,
                &tmp,
                &args,
                &[("HOSTILE_CANARY", "canary-environment-parsnip")],
            );
            let written = std::fs::read_to_string(&session).unwrap_or_default();
            tally.count(index, judge(&case, &written, &ran));
            index += 1;
        }
        let _ = std::fs::remove_file(root.path().join("work/proj/big.log"));
    }
    tally.report("restored files named by the session");
}

/// `cwd` values a session from someone else may give, for the folder `export` derives.
fn hostile_cwds() -> Vec<String> {
    let mut cwds: Vec<String> = [
        "../../../../escaped",
        "/a/../../../../escaped",
        "..",
        ".",
        "/",
        "//",
        "a\u{0}b/../../escaped",
        "/home/dev/\u{0}/..",
        "..\\..\\escaped",
        "%2e%2e/%2e%2e/escaped",
        "C:\\Users\\dev\\proj",
        "~/../../escaped",
        "/proj/\u{202e}gnp.exe",
        "/dev/null",
        "/tmp/proj\n../../escaped",
        "proj/./../..",
    ]
    .iter()
    .map(|s| (*s).to_owned())
    .collect();
    cwds.push(format!("/{}", "a/".repeat(99)));
    cwds.push(format!("/{}", "..".repeat(100)));
    cwds.push(format!("/{}", "x".repeat(199)));
    cwds.push(format!("/{}", "x".repeat(4096)));
    cwds.push(format!("/{}", "é".repeat(60)));
    cwds.push(format!("/{}", "😀/..".repeat(40)));
    cwds
}

#[test]
fn export_writes_only_one_folder_below_the_agents_own_whatever_cwd_the_session_names() {
    let mut tally = Tally::default();
    let mut index = 0;
    for cwd in hostile_cwds() {
        for format in ["claude-code", "codex"] {
            let (root, work, tmp, home) = instance_root();
            let agent = root.path().join("agent");
            let session = work.join("s.jsonl");
            std::fs::write(&session, session_naming(&cwd, "src/parser.rs")).unwrap();
            let before = snapshot(root.path());
            let args = strings(&["export", "s.jsonl", "--format", format, "--json"]);
            let env_name = if format == "codex" { "CODEX_HOME" } else { "CLAUDE_CONFIG_DIR" };
            let ran = run_in(&work, &home, &tmp, &args, &[(env_name, agent.to_str().unwrap())]);
            let after = snapshot(root.path());
            let changed = changes(&before, &after);
            let what = format!("{format} with cwd {cwd:?}");
            let miss = if ran.code == 2 {
                // Refused: nothing written.
                (!changed.is_empty()).then(|| format!("{what}: refused but changed {changed:?}"))
            } else if ran.code != 0 {
                Some(format!("{what}: exit {}: {}", ran.code, ran.stderr.trim()))
            } else {
                let outside: Vec<&String> =
                    changed.iter().filter(|line| !line.starts_with("+ /agent")).collect();
                let files: Vec<&String> =
                    changed.iter().filter(|line| line.contains("(file of")).collect();
                let expected_depth = if format == "codex" { 7 } else { 5 };
                let depth_ok = files.len() == 1
                    && files[0]
                        .trim_start_matches("+ ")
                        .split(' ')
                        .next()
                        .unwrap()
                        .split('/')
                        .count()
                        == expected_depth;
                if !outside.is_empty() || !depth_ok {
                    Some(format!("{what}: wrote {changed:?}"))
                } else {
                    None
                }
            };
            tally.count(index, miss);
            index += 1;
        }
    }
    tally.report("export folders derived from a session's cwd");
}
