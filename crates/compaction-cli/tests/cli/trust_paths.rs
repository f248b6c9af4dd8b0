//! Relative paths in a settings file's extension resolve against that file's own folder,
//! never against the repository the command runs in; an agent folder inside the project
//! does not make the project's settings global. Generated path shapes, each run through the
//! binary in a project that holds a decoy script at the same relative place.
//!
//! The shapes are split once by a fixed rule: every third shape (index divisible by 3) is
//! the test part, the rest the dev part; both are reported.

use std::os::unix::fs::PermissionsExt;
use std::process::Command;

use super::*;

/// One way to name the extension script from the global settings file.
struct Shape {
    name: &'static str,
    /// `command` and `args`; `{A}` is replaced by the agent folder, `{H}` by the home.
    command: &'static str,
    args: &'static [&'static str],
    /// Whether `PI_CODING_AGENT_DIR` is a symbolic link to the agent folder.
    linked_agent_dir: bool,
}

const SHAPES: &[Shape] = &[
    Shape { name: "bare script arg", command: "sh", args: &["ext.sh"], linked_agent_dir: false },
    Shape { name: "./ arg", command: "sh", args: &["./ext.sh"], linked_agent_dir: false },
    Shape { name: "sub/ arg", command: "sh", args: &["sub/ext.sh"], linked_agent_dir: false },
    Shape {
        name: "./sub/./ arg",
        command: "sh",
        args: &["./sub/./ext.sh"],
        linked_agent_dir: false,
    },
    Shape { name: "sub/../ arg", command: "sh", args: &["sub/../ext.sh"], linked_agent_dir: false },
    Shape { name: "absolute arg", command: "sh", args: &["{A}/ext.sh"], linked_agent_dir: false },
    Shape { name: "./ command", command: "./ext.sh", args: &[], linked_agent_dir: false },
    Shape { name: "sub/ command", command: "sub/ext.sh", args: &[], linked_agent_dir: false },
    Shape { name: "../ command", command: "../side/ext.sh", args: &[], linked_agent_dir: false },
    Shape { name: "~/ command", command: "~/ext.sh", args: &[], linked_agent_dir: false },
    Shape {
        name: "absolute command",
        command: "{A}/sub/ext.sh",
        args: &[],
        linked_agent_dir: false,
    },
    Shape {
        name: "linked folder, ./ command",
        command: "./ext.sh",
        args: &[],
        linked_agent_dir: true,
    },
    Shape {
        name: "linked folder, sub/ arg",
        command: "sh",
        args: &["sub/ext.sh"],
        linked_agent_dir: true,
    },
    Shape {
        name: "sh -c reading a relative file",
        command: "sh",
        args: &["-c", ". ./ext.sh"],
        linked_agent_dir: false,
    },
    Shape {
        name: "bare arg under a -x flag",
        command: "sh",
        args: &["-e", "ext.sh"],
        linked_agent_dir: false,
    },
];

fn script(path: &Path, marker: &Path) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(
        path,
        format!("#!/bin/sh\ncat >/dev/null; touch '{}'; echo '{{}}'\n", marker.display()),
    )
    .unwrap();
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

/// How `PI_CODING_AGENT_DIR` names the agent folder (`root/agent`), seen from the project
/// (`root/work/project`).
#[derive(Clone, Copy, Debug)]
enum Naming {
    /// Its absolute path (or a link's, with `linked_agent_dir`).
    Absolute,
    /// Relative to the project: `../../agent`.
    Relative,
    /// Relative, with a `./` and a trailing slash: `./../../agent/`.
    RelativeDotted,
    /// Relative, through a folder of its own: `../side/../../agent`.
    RelativeAround,
}

/// Runs one shape; `Err` says which script ran.
fn run_shape(shape: &Shape) -> Result<(), String> {
    run_shape_named(shape, Naming::Absolute)
}

fn run_shape_named(shape: &Shape, naming: Naming) -> Result<(), String> {
    let root = tempfile::tempdir().unwrap();
    let agent = root.path().join("agent");
    let home = root.path().join("home");
    // The project sits one level deeper, so `../` names different folders from each.
    let project = root.path().join("work/project");
    let markers = root.path().join("markers");
    for dir in [&agent, &home, &project, &markers, &project.join(".git")] {
        std::fs::create_dir_all(dir).unwrap();
    }
    let ours = markers.join("ours");
    let decoy = markers.join("decoy");
    for folder in ["", "sub"] {
        script(&agent.join(folder).join("ext.sh"), &ours);
        script(&project.join(folder).join("ext.sh"), &decoy);
    }
    script(&home.join("ext.sh"), &ours);
    script(&root.path().join("side/ext.sh"), &ours);
    script(&root.path().join("work/side/ext.sh"), &decoy);
    let fill = |text: &str| {
        text.replace("{A}", &agent.to_string_lossy()).replace("{H}", &home.to_string_lossy())
    };
    let settings = serde_json::json!({"compaction": {"extensions": [{
        "name": "mine", "command": fill(shape.command),
        "args": shape.args.iter().map(|arg| fill(arg)).collect::<Vec<_>>(),
        "events": ["before_compact"],
    }]}});
    std::fs::write(agent.join("settings.json"), settings.to_string()).unwrap();
    let agent_env = if shape.linked_agent_dir {
        let link = root.path().join("agent-link");
        std::os::unix::fs::symlink(&agent, &link).unwrap();
        link
    } else {
        agent.clone()
    };
    let leaf = agent_env.file_name().unwrap().to_string_lossy().into_owned();
    let agent_env = match naming {
        Naming::Absolute => agent_env,
        Naming::Relative => PathBuf::from(format!("../../{leaf}")),
        Naming::RelativeDotted => PathBuf::from(format!("./../../{leaf}/")),
        Naming::RelativeAround => PathBuf::from(format!("../side/../../{leaf}")),
    };
    std::fs::copy(fixture("offline-coding.jsonl"), project.join("s.jsonl")).unwrap();
    let output = Command::new(env!("CARGO_BIN_EXE_compaction"))
        .args(super::setup::RUN_ARGS)
        .current_dir(&project)
        .env("HOME", &home)
        .env("PI_CODING_AGENT_DIR", &agent_env)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&output.stderr).into_owned();
    match (ours.exists(), decoy.exists()) {
        (_, true) => Err(format!("{} ({naming:?}): ran the project's script\n{text}", shape.name)),
        (false, false) => Err(format!("{} ({naming:?}): ran no script\n{text}", shape.name)),
        (true, false) => Ok(()),
    }
}

#[test]
fn a_global_extension_never_runs_a_script_of_the_current_repository() {
    let (mut dev, mut test) = ((0, 0), (0, 0));
    let mut failures = Vec::new();
    for (index, shape) in SHAPES.iter().enumerate() {
        let part = if index % 3 == 0 { &mut test } else { &mut dev };
        part.1 += 1;
        match run_shape(shape) {
            Ok(()) => part.0 += 1,
            Err(error) => failures.push(error),
        }
    }
    println!("extension paths: dev {}/{} shapes hold, test {}/{}", dev.0, dev.1, test.0, test.1);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The same shapes with the agent folder named by a relative path (as a user may export
/// `PI_CODING_AGENT_DIR=../agent`): the settings file's folder is then relative too, and an
/// extension must still run beside it, whichever folder it is started in.
#[test]
fn a_global_extension_runs_beside_its_settings_file_when_the_agent_folder_is_relative() {
    let (mut dev, mut test) = ((0, 0), (0, 0));
    let mut failures = Vec::new();
    let mut index = 0;
    for naming in [Naming::Relative, Naming::RelativeDotted, Naming::RelativeAround] {
        for shape in SHAPES {
            let part = if index % 3 == 0 { &mut test } else { &mut dev };
            part.1 += 1;
            match run_shape_named(shape, naming) {
                Ok(()) => part.0 += 1,
                // Only the dev part's misses are shown.
                Err(error) if index % 3 != 0 => failures.push(format!("#{index} {error}")),
                Err(_) => failures.push(format!("#{index} (test part)")),
            }
            index += 1;
        }
    }
    println!(
        "extension paths, relative agent folder: dev {}/{} hold, test {}/{}",
        dev.0, dev.1, test.0, test.1
    );
    assert!(failures.is_empty(), "{} failed:\n{}", failures.len(), failures.join("\n"));
}
