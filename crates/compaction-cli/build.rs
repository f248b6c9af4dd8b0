//! Stamps `compaction --version` with the git revision the binary is built from.
//!
//! `COMPACTION_VERSION` is the package version, followed by the short commit and its date
//! when the sources are a git checkout and `git` is on the PATH (`0.1.0 (65e2db6
//! 2026-12-03)`), with `-dirty` when tracked files differ from that commit. A build from a
//! source archive, or without git, gets the bare package version.

use std::path::Path;
use std::process::Command;

fn git(args: &[&str]) -> Option<String> {
    let output = Command::new("git").args(args).output().ok()?;
    if !output.status.success() {
        return None;
    }
    let text = String::from_utf8(output.stdout).ok()?;
    let text = text.trim();
    (!text.is_empty()).then(|| text.to_owned())
}

fn main() {
    let version = env!("CARGO_PKG_VERSION");
    let revision = git(&["log", "-1", "--format=%h %cs"]);
    let stamped = match revision {
        Some(revision) => {
            let dirty = git(&["status", "--porcelain", "--untracked-files=no"]).is_some();
            let mark = if dirty { "-dirty" } else { "" };
            format!("{version} ({revision}{mark})")
        }
        None => version.to_owned(),
    };
    println!("cargo:rustc-env=COMPACTION_VERSION={stamped}");

    // Rebuild when HEAD moves: HEAD itself (checkouts) and the branch it points at (commits).
    if let Some(head) = git(&["rev-parse", "--git-path", "HEAD"]) {
        println!("cargo:rerun-if-changed={head}");
    }
    if let Some(branch) = git(&["symbolic-ref", "-q", "HEAD"])
        && let Some(reference) = git(&["rev-parse", "--git-path", &branch])
        && Path::new(&reference).exists()
    {
        println!("cargo:rerun-if-changed={reference}");
    }
    if let Some(index) = git(&["rev-parse", "--git-path", "index"]) {
        println!("cargo:rerun-if-changed={index}");
    }
}
