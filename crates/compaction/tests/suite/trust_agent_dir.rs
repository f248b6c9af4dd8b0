//! An agent folder (`PI_CODING_AGENT_DIR`) inside the project never makes the project's
//! own settings global: its extensions need trust and its `trustedProjects` does not count.
//! Generated shapes of the variable (relative, `./`, `../`, absolute, `~`, links both ways,
//! missing folders) from a working directory at the project root or below it.
//!
//! The shapes are split once by a fixed rule: every third case (index divisible by 3) is the
//! test part, the rest the dev part; both are reported.

use std::path::{Path, PathBuf};

use compaction::settings::SettingsPaths;
use compaction::trust::{ProjectTrust, configured_extensions};

/// Where a shape's agent folder lies.
#[derive(Clone, Copy, PartialEq, Debug)]
enum Place {
    InProject,
    Outside,
}

struct Layout {
    _root: tempfile::TempDir,
    project: PathBuf,
    outside: PathBuf,
    home: PathBuf,
}

fn layout() -> Layout {
    let root = tempfile::tempdir().unwrap();
    let project = root.path().join("src/project");
    let outside = root.path().join("elsewhere");
    let home = root.path().join("home");
    for dir in [
        project.join(".git"),
        project.join(".pi"),
        project.join("a/b"),
        outside.join("agent"),
        home.clone(),
    ] {
        std::fs::create_dir_all(dir).unwrap();
    }
    std::os::unix::fs::symlink(project.join(".pi"), outside.join("link-into-project")).unwrap();
    std::os::unix::fs::symlink(outside.join("agent"), project.join("link-out")).unwrap();
    Layout { _root: root, project, outside, home }
}

/// (the variable's value, with `{P}` the project, `{O}` the outside folder; cwd below the
/// project root; where it lies).
const SHAPES: &[(&str, &str, Place)] = &[
    (".pi", "", Place::InProject),
    ("./.pi", "", Place::InProject),
    ("cfg/agent", "", Place::InProject),
    ("a/../.pi", "", Place::InProject),
    ("{P}/.pi", "", Place::InProject),
    ("{P}/tools/agent", "a/b", Place::InProject),
    ("../../.pi", "a/b", Place::InProject),
    ("..", "a", Place::InProject),
    ("{O}/link-into-project", "", Place::InProject),
    ("{O}/link-into-project", "a/b", Place::InProject),
    (".pi", "a/b", Place::InProject),
    ("{P}/a/./b/../.agent", "a", Place::InProject),
    ("{O}/agent", "", Place::Outside),
    ("{O}/agent", "a/b", Place::Outside),
    ("../../elsewhere/agent", "", Place::Outside),
    ("../../../elsewhere/agent", "a", Place::Outside),
    ("link-out", "", Place::Outside),
    ("~/.pi/agent", "", Place::Outside),
    ("~/cfg", "a/b", Place::Outside),
    ("~", "", Place::Outside),
];

fn run_shape(value: &str, below: &str, place: Place) -> Result<(), String> {
    let layout = layout();
    let cwd = layout.project.join(below);
    let value = value
        .replace("{P}", &layout.project.to_string_lossy())
        .replace("{O}", &layout.outside.to_string_lossy());
    let paths = SettingsPaths::new(&cwd, Some(&layout.home), Some(&value));
    let global = paths.global.clone().unwrap();
    // Relative values are relative to the working directory, as for pi.
    let global_abs = if global.is_absolute() { global.clone() } else { cwd.join(&global) };
    std::fs::create_dir_all(global_abs.parent().unwrap()).unwrap();
    let settings = serde_json::json!({"compaction": {
        "extensions": [{"name": "from-agent-dir", "command": "true"}],
        "trustedProjects": ["*"],
    }});
    std::fs::write(&global_abs, settings.to_string()).unwrap();
    let paths = SettingsPaths { global: Some(global_abs), ..paths };
    let configured = configured_extensions(&paths, &cwd, Some(&layout.home), false)
        .map_err(|error| format!("{value} from {below:?}: {error}"))?;
    let runs = configured.runnable().any(|e| e.config.name == "from-agent-dir");
    let detected = configured.agent_dir_in_project.is_some();
    let expected_inside = place == Place::InProject;
    let trusted_by_itself = matches!(configured.trust, ProjectTrust::Listed { .. });
    if detected != expected_inside
        || runs == expected_inside
        || trusted_by_itself == expected_inside
    {
        return Err(format!(
            "{value} from {below:?} ({place:?}): detected {detected}, extension runs {runs}, \
             project trusted by the file {trusted_by_itself}"
        ));
    }
    Ok(())
}

#[test]
fn an_agent_folder_inside_the_project_is_read_as_the_projects_own() {
    let (mut dev, mut test) = ((0, 0), (0, 0));
    let mut failures = Vec::new();
    for (index, &(value, below, place)) in SHAPES.iter().enumerate() {
        let part = if index % 3 == 0 { &mut test } else { &mut dev };
        part.1 += 1;
        match run_shape(value, below, place) {
            Ok(()) => part.0 += 1,
            Err(error) => failures.push(error),
        }
    }
    println!("agent folder: dev {}/{} shapes hold, test {}/{}", dev.0, dev.1, test.0, test.1);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn relative_commands_resolve_against_the_settings_folder() {
    let folder = Path::new("/cfg/agent");
    let home = Some(Path::new("/home/u"));
    let resolve = |command| compaction::trust::resolve_command(command, folder, home);
    assert_eq!(resolve("python3"), PathBuf::from("python3"));
    assert_eq!(resolve("./x.sh"), PathBuf::from("/cfg/agent/./x.sh"));
    assert_eq!(resolve("bin/x"), PathBuf::from("/cfg/agent/bin/x"));
    assert_eq!(resolve("../x"), PathBuf::from("/cfg/agent/../x"));
    assert_eq!(resolve("~/x"), PathBuf::from("/home/u/x"));
    assert_eq!(resolve("/usr/bin/x"), PathBuf::from("/usr/bin/x"));
}
