//! Moves, renames and deletions by PowerShell and cmd.exe (`Move-Item`, `Rename-Item`
//! (`rni`), `Remove-Item`; `move`, `ren`, `del`, `erase`): agents on Windows use
//! them where others use `mv` and `rm`. Backslashes in their paths read as `/`.
//!
//! Invariant: a command whose paths are not all known (globs, variables) has no effect.

use super::FileEffect;
use super::shell::known_path;

/// What a PowerShell or cmd.exe file command does.
enum Kind {
    Move,
    Rename,
    Remove,
}

/// The effects of `words` (program first) when the program is one of the commands above;
/// `None` for any other program. `resolve` joins a path to the directory of the command.
pub(super) fn windows_effects(
    words: &[&str],
    resolve: &dyn Fn(&str) -> Option<String>,
) -> Option<Vec<FileEffect>> {
    let (program, rest) = words.split_first()?;
    let kind = match program.to_lowercase().as_str() {
        // Not the short aliases other systems use for other programs (`ri` is Ruby's
        // documentation, `rename` Perl's regex rename).
        "move-item" | "move" => Kind::Move,
        "rename-item" | "rni" | "ren" => Kind::Rename,
        "remove-item" | "del" | "erase" => Kind::Remove,
        _ => return None,
    };
    let mut path: Vec<String> = Vec::new();
    let mut destination: Option<String> = None;
    let mut positional: Vec<String> = Vec::new();
    let mut words = rest.iter();
    while let Some(word) = words.next() {
        let lower = word.to_lowercase();
        if lower.starts_with('-') || (lower.starts_with('/') && lower.len() == 2) {
            let value = || words.clone().next().map(|value| value.replace('\\', "/"));
            match lower.as_str() {
                "-path" | "-literalpath" => {
                    path.extend(value());
                    words.next();
                }
                "-destination" | "-newname" => {
                    destination = value();
                    words.next();
                }
                // Other switches (`-Force`, `-Recurse`, cmd's `/Q`) take no path.
                _ => {}
            }
            continue;
        }
        positional.push(word.replace('\\', "/"));
    }
    let mut paths = path;
    paths.extend(positional);
    if let Some(destination) = destination {
        paths.push(destination);
    }
    if paths.is_empty() || paths.iter().any(|path| !known_path(path)) {
        return Some(Vec::new());
    }
    let effects = match kind {
        Kind::Remove => paths
            .iter()
            .filter_map(|path| resolve(path))
            .map(|path| FileEffect::Deleted { path })
            .collect(),
        Kind::Move | Kind::Rename => {
            let [from, to] = paths.as_slice() else { return Some(Vec::new()) };
            let to = match kind {
                // A new name stays in the folder of the old one.
                Kind::Rename if !to.contains('/') => match from.rsplit_once('/') {
                    Some((folder, _)) => format!("{folder}/{to}"),
                    None => to.clone(),
                },
                Kind::Rename | Kind::Move | Kind::Remove => to.clone(),
            };
            match (resolve(from), resolve(&to)) {
                (Some(from), Some(to)) => vec![FileEffect::Moved { from, to }],
                (None, _) | (_, None) => Vec::new(),
            }
        }
    };
    Some(effects)
}

#[cfg(test)]
mod tests {
    use super::super::shell_file_effects;
    use super::*;

    fn effects(command: &str) -> Vec<String> {
        shell_file_effects(command)
            .into_iter()
            .map(|effect| match effect {
                FileEffect::Moved { from, to } => format!("moved {from} {to}"),
                FileEffect::Deleted { path } => format!("deleted {path}"),
                FileEffect::Written { path } => format!("written {path}"),
            })
            .collect()
    }

    #[test]
    fn powershell_and_cmd_move_rename_and_remove() {
        assert_eq!(
            effects("Move-Item -Path scripts/report.ps1 -Destination tools/report.ps1"),
            ["moved scripts/report.ps1 tools/report.ps1"]
        );
        assert_eq!(effects("Remove-Item -Force config/temp.json"), ["deleted config/temp.json"]);
        assert_eq!(
            effects("Rename-Item -Path docs/README-old.md -NewName HISTORY.md"),
            ["moved docs/README-old.md docs/HISTORY.md"]
        );
        assert_eq!(effects("del build\\output.log"), ["deleted build/output.log"]);
        assert_eq!(
            effects("move icons/old.svg icons/legacy/old.svg"),
            ["moved icons/old.svg icons/legacy/old.svg"]
        );
        assert_eq!(effects("Remove-Item -Recurse $env:TEMP/x"), Vec::<String>::new());
        assert_eq!(effects("cd app; Remove-Item old.txt"), ["deleted app/old.txt"]);
        assert_eq!(effects("ri Array"), Vec::<String>::new(), "Ruby's ri reads documentation");
    }
}
