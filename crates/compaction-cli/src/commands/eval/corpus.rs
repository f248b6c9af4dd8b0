//! The real-transcript corpus: where the transcripts are, which part (dev or test) each
//! belongs to, and how a transcript becomes the pi session the replay reads.
//!
//! Transcripts root: `--transcripts DIR`, else the environment variable
//! `COMPACTION_TRANSCRIPTS`, else `../shared/transcripts` beside the repository that holds
//! the current directory (the nearest folder above it with a `.git`), or beside one of that
//! repository's parent folders (so a worktree nested below the repository's folder finds
//! it too).
//!
//! Split: a transcript is in the test part when the first byte of
//! sha256("<repository>:<path>") of its row in the root's `SOURCES.json` is below 0x60,
//! else in the dev part. The rule is fixed; it does not depend on the probes or the scores.
//!
//! Conversion: a pi session of the current version is read as it is; an older pi session
//! is migrated as `compaction migrate` would; anything else goes through
//! `compaction import` (format detected, every text redacted). A transcript neither
//! reads is "not importable", with the importer's reason. `turns` then keeps the user turns
//! `[first, end)` in file order, each with everything up to the next user message.
//!
//! Invariant: the transcripts are only read; conversions and cuts are written to a
//! temporary directory that the caller owns.

use std::fmt;
use std::path::{Path, PathBuf};

use compaction::store::{LockWait, RewriteOptions};
use compaction_core::import;
use compaction_core::redact::Redactor;
use serde_json::Value;

use super::super::{CommandError, ErrorKind};

/// The environment variable that names the transcripts root.
pub(super) const TRANSCRIPTS_ENV: &str = "COMPACTION_TRANSCRIPTS";

/// Transcripts and sessions larger than this are refused (the largest real ones are a few
/// MB).
pub(super) const MAX_TRANSCRIPT_BYTES: u64 = 256 << 20;

/// The part of the corpus a probe file belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum Part {
    Dev,
    Test,
    /// A probe file in the `session` form: outside the split.
    Unsplit,
}

impl fmt::Display for Part {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Part::Dev => "dev",
            Part::Test => "test",
            Part::Unsplit => "unsplit",
        })
    }
}

/// The part of `repository:path`: test when the first byte of its SHA-256 is below 0x60.
pub(super) fn part_of(repository: &str, path: &str) -> Part {
    let digest =
        ring::digest::digest(&ring::digest::SHA256, format!("{repository}:{path}").as_bytes());
    if digest.as_ref()[0] < 0x60 { Part::Test } else { Part::Dev }
}

/// The transcripts root (see the module docs), or the places looked at.
/// `env` is the value of [`TRANSCRIPTS_ENV`].
pub(super) fn transcripts_root(
    flag: Option<&Path>,
    env: Option<std::ffi::OsString>,
    cwd: &Path,
) -> Result<PathBuf, String> {
    if let Some(dir) = flag {
        return Ok(dir.to_path_buf());
    }
    if let Some(dir) = env.filter(|dir| !dir.is_empty()) {
        return Ok(PathBuf::from(dir));
    }
    let repository = cwd.ancestors().find(|dir| dir.join(".git").exists()).unwrap_or(cwd);
    let mut looked = Vec::new();
    for dir in repository.ancestors() {
        let Some(parent) = dir.parent() else { break };
        let candidate = parent.join("shared").join("transcripts");
        if candidate.is_dir() {
            return Ok(candidate);
        }
        looked.push(candidate.display().to_string());
    }
    Err(format!(
        "no transcripts folder: give --transcripts DIR or set {TRANSCRIPTS_ENV} (looked at {})",
        looked.join(", ")
    ))
}

/// The rows of the root's `SOURCES.json`: transcript (relative path) → part.
pub(super) struct Sources {
    root: PathBuf,
    rows: Vec<(String, Part)>,
}

impl Sources {
    pub(super) fn read(root: &Path) -> anyhow::Result<Sources> {
        let path = root.join("SOURCES.json");
        let text = read_bounded(&path, MAX_TRANSCRIPT_BYTES)?;
        let value: Value = serde_json::from_str(&text).map_err(|e| {
            CommandError::with_kind(
                ErrorKind::Input,
                format!("{}:{}: not JSON: {e}", path.display(), e.line()),
            )
        })?;
        let mut rows = Vec::new();
        for (index, row) in value["files"].as_array().into_iter().flatten().enumerate() {
            let field = |name: &str| row[name].as_str().map(str::to_owned);
            let (Some(file), Some(repository), Some(source)) =
                (field("file"), field("repository"), field("path"))
            else {
                return Err(CommandError::with_kind(
                    ErrorKind::Input,
                    format!(
                        "{}: files[{index}] lacks `file`, `repository` or `path`",
                        path.display()
                    ),
                ));
            };
            rows.push((file, part_of(&repository, &source)));
        }
        Ok(Sources { root: root.to_path_buf(), rows })
    }

    /// The part of `transcript` (relative to the root).
    pub(super) fn part(&self, transcript: &str) -> anyhow::Result<Part> {
        self.rows.iter().find(|(file, _)| file == transcript).map(|(_, part)| *part).ok_or_else(
            || {
                CommandError::with_kind(
                    ErrorKind::Input,
                    format!(
                        "{transcript}: no row in {} names it, so its part is unknown",
                        self.root.join("SOURCES.json").display()
                    ),
                )
            },
        )
    }
}

/// Reads a regular file of at most `limit` bytes as UTF-8: anything else (a FIFO, a
/// socket, a device, a folder, through links too) is refused before it could block, and a
/// larger file before it is read (`compaction::disk::read_regular`, the rule every input
/// shares).
pub(super) fn read_bounded(path: &Path, limit: u64) -> anyhow::Result<String> {
    let bytes = compaction::disk::read_regular(path, limit).map_err(CommandError::disk)?;
    String::from_utf8(bytes).map_err(|e| {
        CommandError::with_kind(
            ErrorKind::Input,
            format!("{}: not UTF-8 text (byte {})", path.display(), e.utf8_error().valid_up_to()),
        )
    })
}

/// Where the transcript a probe file names is: a relative path of plain names (no `..`, not
/// absolute), which stays inside the root once links are followed. A name that leaves the
/// root (`../x`, `/x`, a link out of it) is refused, naming it: a probe file names a
/// transcript of the corpus, nothing else.
pub(super) fn transcript_path(root: &Path, transcript: &str) -> anyhow::Result<PathBuf> {
    let refused = |why: &str| {
        CommandError::with_kind(
            ErrorKind::Input,
            format!(
                "{transcript}: {why}; a probe file names a transcript inside {}",
                root.display()
            ),
        )
    };
    let plain = Path::new(transcript)
        .components()
        .all(|part| matches!(part, std::path::Component::Normal(_)));
    if transcript.is_empty() || !plain {
        return Err(refused("not a plain path relative to the transcripts root"));
    }
    let path = root.join(transcript);
    // A name that does not exist is left to the reader, which names it.
    if let (Ok(real_root), Ok(real)) = (root.canonicalize(), path.canonicalize())
        && !real.starts_with(&real_root)
    {
        return Err(refused(&format!(
            "a link out of the transcripts root (to {})",
            real.display()
        )));
    }
    Ok(path)
}

/// A session ready to replay, or why there is none.
pub(super) enum Converted {
    /// A pi session of the current version at this path.
    Session(PathBuf),
    /// The importer and the migration cannot read the transcript.
    NotImportable(String),
}

/// Makes `source` a pi session cut to `turns`, writing into `scratch` when it has to change
/// anything. `transcript`: `source` is a raw transcript (migrate it when it is an older pi
/// session, import it otherwise); else it is a pi session, used as it is.
pub(super) fn convert(
    source: &Path,
    transcript: bool,
    turns: Option<[usize; 2]>,
    scratch: &Path,
) -> anyhow::Result<Converted> {
    let target = scratch.join("session.jsonl");
    let write = |text: &str| {
        std::fs::write(&target, text)
            .map_err(|e| CommandError::io(format!("cannot write {}", target.display()), e))
    };
    if !transcript {
        // A pi session beside the probe file is read as it is (an older one is an error
        // the replay names), only cut when asked.
        let Some(turns) = turns else { return Ok(Converted::Session(source.to_path_buf())) };
        write(&cut(&read_bounded(source, MAX_TRANSCRIPT_BYTES)?, turns))?;
        return Ok(Converted::Session(target));
    }
    let text = read_bounded(source, MAX_TRANSCRIPT_BYTES)?;
    let is_pi = text
        .lines()
        .next()
        .and_then(|line| serde_json::from_str::<Value>(line).ok())
        .is_some_and(|header| header["type"] == "session");
    if is_pi {
        write(&text)?;
        compaction::store::migrate_with(&target, LockWait::NoWait, &RewriteOptions::default())
            .map_err(|e| CommandError::store(&e))
            .map_err(|e| e.context(format!("{}", source.display())))?;
    } else {
        match import::import(&text, None, &Redactor::default()) {
            Ok(imported) => write(&imported.session)?,
            Err(error) => {
                return Ok(Converted::NotImportable(format!("compaction import: {error}")));
            }
        }
    }
    if let Some(turns) = turns {
        let converted = read_bounded(&target, MAX_TRANSCRIPT_BYTES)?;
        write(&cut(&converted, turns))?;
    }
    Ok(Converted::Session(target))
}

/// The header and the entries of user turns `[first, end)` in file order (a turn: a user
/// message and everything up to the next one). An entry whose parent was cut away hangs
/// from the previous entry kept (the first from none), so the kept entries form one path.
pub(super) fn cut(session: &str, [first, end]: [usize; 2]) -> String {
    let mut lines = session.lines();
    let mut out = String::new();
    if let Some(header) = lines.next() {
        out.push_str(header);
        out.push('\n');
    }
    let mut user: Option<usize> = None;
    let mut kept_ids: std::collections::HashSet<String> = std::collections::HashSet::new();
    let mut previous: Option<String> = None;
    for line in lines {
        let Ok(mut entry) = serde_json::from_str::<Value>(line) else {
            // An unreadable line stays with its turn, as the session's reader reports it.
            if user.is_some_and(|u| first <= u && u < end) {
                out.push_str(line);
                out.push('\n');
            }
            continue;
        };
        if entry["type"] == "message" && entry["message"]["role"] == "user" {
            user = Some(user.map_or(0, |u| u + 1));
        }
        if !user.is_some_and(|u| first <= u && u < end) {
            continue;
        }
        let parent_kept = entry["parentId"].as_str().is_some_and(|id| kept_ids.contains(id));
        if !parent_kept && let Some(object) = entry.as_object_mut() {
            object.insert("parentId".into(), previous.clone().map_or(Value::Null, Value::String));
        }
        if let Some(id) = entry["id"].as_str() {
            kept_ids.insert(id.to_owned());
            previous = Some(id.to_owned());
        }
        out.push_str(&entry.to_string());
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_split_is_the_first_byte_of_the_sha256_of_repository_and_path() {
        // sha256("a:b") starts with 0x67, sha256("a:d") with 0x22 (as sha256sum prints).
        assert_eq!(part_of("a", "b"), Part::Dev);
        assert_eq!(part_of("a", "d"), Part::Test);
    }

    #[test]
    fn the_root_is_shared_transcripts_beside_the_repository_or_a_parent_of_it() {
        let dir = tempfile::tempdir().unwrap();
        let repository = dir.path().join("work/wt/project");
        std::fs::create_dir_all(repository.join(".git")).unwrap();
        std::fs::create_dir_all(repository.join("crates/cli")).unwrap();
        let cwd = repository.join("crates/cli");
        let error = transcripts_root(None, None, &cwd).unwrap_err();
        assert!(error.contains("work/wt/shared/transcripts"), "{error}");
        let shared = dir.path().join("work/shared/transcripts");
        std::fs::create_dir_all(&shared).unwrap();
        assert_eq!(transcripts_root(None, None, &cwd).unwrap(), shared);
        let beside = dir.path().join("work/wt/shared/transcripts");
        std::fs::create_dir_all(&beside).unwrap();
        assert_eq!(transcripts_root(None, None, &cwd).unwrap(), beside);
        // The environment variable, then the flag, come first.
        let env = dir.path().join("env");
        assert_eq!(transcripts_root(None, Some(env.clone().into()), &cwd).unwrap(), env);
        let flag = dir.path().join("elsewhere");
        assert_eq!(transcripts_root(Some(&flag), Some(env.into()), &cwd).unwrap(), flag);
    }

    #[test]
    fn a_cut_keeps_whole_user_turns_on_one_path() {
        let session = [
            r#"{"type":"session","version":3,"id":"s"}"#,
            r#"{"type":"model_change","id":"m","parentId":null}"#,
            r#"{"type":"message","id":"u0","parentId":"m","message":{"role":"user"}}"#,
            r#"{"type":"message","id":"a0","parentId":"u0","message":{"role":"assistant"}}"#,
            r#"{"type":"message","id":"u1","parentId":"a0","message":{"role":"user"}}"#,
            r#"{"type":"message","id":"a1","parentId":"u1","message":{"role":"assistant"}}"#,
            r#"{"type":"message","id":"u2","parentId":"a1","message":{"role":"user"}}"#,
        ]
        .join("\n");
        let out = cut(&session, [1, 2]);
        let ids: Vec<(String, Value)> = out
            .lines()
            .skip(1)
            .map(|line| serde_json::from_str::<Value>(line).unwrap())
            .map(|v| (v["id"].as_str().unwrap().to_owned(), v["parentId"].clone()))
            .collect();
        assert_eq!(out.lines().next(), Some(r#"{"type":"session","version":3,"id":"s"}"#));
        assert_eq!(ids, vec![("u1".to_owned(), Value::Null), ("a1".to_owned(), Value::from("u1"))]);
    }
}
