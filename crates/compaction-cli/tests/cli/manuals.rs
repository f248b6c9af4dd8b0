//! `compaction man` writes one page per command and `completions` complete enumerated
//! values, checked through the binary and real bash.

use super::*;

#[test]
fn man_dir_writes_one_page_per_command_and_man_command_prints_one() {
    let dir = tempfile::tempdir().unwrap();
    let out = run(&["man", "--dir", &dir.path().to_string_lossy()], dir.path());
    assert!(out.starts_with("exit: 0\n"), "{out}");
    let help = run(&["--help"], dir.path());
    let commands: Vec<&str> = help
        .lines()
        .skip_while(|line| !line.starts_with("Commands:"))
        .skip(1)
        .take_while(|line| !line.is_empty())
        .filter(|line| line.starts_with("  ") && !line.starts_with("   "))
        .filter_map(|line| line.split_whitespace().next())
        .filter(|name| *name != "help")
        .collect();
    assert!(commands.len() > 20, "{help}");
    for name in &commands {
        let page = std::fs::read_to_string(dir.path().join(format!("compaction-{name}.1")))
            .unwrap_or_else(|e| panic!("no page for {name}: {e}"));
        for section in [".SH OPTIONS", ".SH \"EXIT STATUS\"", ".SH EXAMPLES"] {
            assert!(page.contains(section), "compaction-{name}(1) lacks {section}");
        }
    }
    assert!(dir.path().join("compaction.1").exists());
    let printed = run(&["man", "run"], dir.path());
    let written = std::fs::read_to_string(dir.path().join("compaction-run.1")).unwrap();
    assert_eq!(stdout_of(&printed), written);
    let unknown = run(&["man", "nope"], dir.path());
    assert!(unknown.starts_with("exit: 2\n") && unknown.contains("run"), "{unknown}");
}

#[test]
fn bash_completes_provider_and_estimator_values() {
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("compaction.bash");
    let out = Command::new(env!("CARGO_BIN_EXE_compaction"))
        .args(["completions", "bash"])
        .output()
        .unwrap();
    std::fs::write(&script, &out.stdout).unwrap();
    for (flag, expected) in [
        ("--provider", vec!["openai", "anthropic"]),
        ("--estimator", compaction_core::tokens::ESTIMATOR_NAMES.to_vec()),
        ("--strategy", vec!["summarize", "prune", "hybrid"]),
    ] {
        let line = format!("compaction run s.jsonl {flag} ");
        let probe = format!(
            "source {}; COMP_WORDS=(compaction run s.jsonl {flag} ''); COMP_CWORD=4; \
             COMP_LINE='{line}'; COMP_POINT={}; _compaction compaction '' {flag}; \
             printf '%s\\n' \"${{COMPREPLY[@]}}\"",
            script.display(),
            line.len()
        );
        let Ok(bash) = Command::new("bash").args(["--norc", "--noprofile", "-c", &probe]).output()
        else {
            eprintln!("skipped: bash is not installed");
            return;
        };
        let words = String::from_utf8_lossy(&bash.stdout);
        let mut got: Vec<&str> = words.lines().collect();
        got.sort_unstable();
        let mut want = expected.clone();
        want.sort_unstable();
        assert_eq!(got, want, "{flag}: {}", String::from_utf8_lossy(&bash.stderr));
    }
}
