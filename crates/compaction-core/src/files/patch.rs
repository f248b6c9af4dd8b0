//! Codex's `apply_patch` format: the files a patch adds, updates, moves and deletes.

use super::FileEffect;

/// The files a patch in Codex's `apply_patch` format adds, updates, moves and deletes, in
/// order: `*** Add File: P` and `*** Update File: P` write P, a `*** Move to: Q` after an
/// update moves P to Q, `*** Delete File: P` deletes P. The patch may be the whole argument
/// of an `apply_patch` call or sit inside a shell command (`apply_patch <<'EOF' …`).
pub fn patch_file_effects(patch: &str) -> Vec<FileEffect> {
    let mut effects = Vec::new();
    if !patch.contains("*** Begin Patch") {
        return effects;
    }
    let mut updated: Option<String> = None;
    for line in patch.lines() {
        let line = line.trim_end_matches('\r');
        let header =
            |prefix: &str| line.strip_prefix(prefix).map(str::trim).filter(|path| !path.is_empty());
        if let Some(path) = header("*** Add File:") {
            effects.push(FileEffect::Written { path: path.to_owned() });
            updated = None;
        } else if let Some(path) = header("*** Update File:") {
            effects.push(FileEffect::Written { path: path.to_owned() });
            updated = Some(path.to_owned());
        } else if let Some(path) = header("*** Delete File:") {
            effects.push(FileEffect::Deleted { path: path.to_owned() });
            updated = None;
        } else if let Some(to) = header("*** Move to:") {
            if let Some(from) = updated.take() {
                effects.push(FileEffect::Moved { from, to: to.to_owned() });
            }
        } else if line.starts_with("*** ") {
            updated = None;
        }
    }
    effects
}
