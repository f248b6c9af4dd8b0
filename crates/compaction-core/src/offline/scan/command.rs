//! What a command line runs: which commands only read or check, the command a shell is
//! given to run, and the reader a pipeline ends in. Split from the reading of outputs
//! (the module above), which the summarizer applies to what these commands print.

/// Whether a shell command only reads or checks (lists, searches, shows, asks a program
/// for its version, looks for a process or a package): its outcome is not progress, and a
/// check that finds nothing (exit 1) is an answer, not a failure.
pub(in crate::offline) fn is_read_only_command(command: &str) -> bool {
    if !crate::files::shell_file_effects(command).is_empty() {
        return false;
    }
    crate::files::shell_segments(command).into_iter().all(read_only_segment)
}

/// Whether one simple command only reads or checks.
fn read_only_segment(segment: &str) -> bool {
    const READERS: [&str; 55] = [
        "ls",
        "ll",
        "cat",
        "grep",
        "rg",
        "ag",
        "find",
        "fd",
        "head",
        "tail",
        "wc",
        "pwd",
        "echo",
        "tree",
        "which",
        "file",
        "stat",
        "du",
        "df",
        "less",
        "type",
        "whereis",
        "sort",
        "uniq",
        "nl",
        "cut",
        "printenv",
        "env",
        "realpath",
        "readlink",
        "pgrep",
        "ps",
        "uname",
        "whoami",
        "id",
        "hostname",
        "nproc",
        "free",
        "lspci",
        "lsusb",
        "lsblk",
        "nvidia-smi",
        "test",
        "[",
        "jq",
        "diff",
        "Get-Content",
        "Get-ChildItem",
        "Select-String",
        "Test-Path",
        "Get-Item",
        "Resolve-Path",
        "findstr",
        "where",
        "dir",
    ];
    const GIT_READERS: [&str; 10] = [
        "status",
        "diff",
        "log",
        "show",
        "blame",
        "grep",
        "branch",
        "rev-parse",
        "ls-files",
        "remote",
    ];
    // Programs asked what they have (`pip show`, `npm ls`, `docker ps`): a "not found" answers.
    const QUERIES: [(&str, &[&str]); 14] = [
        ("pip", &["show", "list", "freeze"]),
        ("pip3", &["show", "list", "freeze"]),
        ("npm", &["ls", "list", "view", "info", "outdated", "why", "explain"]),
        ("pnpm", &["ls", "list", "why", "outdated"]),
        ("yarn", &["why", "list", "info"]),
        ("go", &["env", "list", "version"]),
        ("cargo", &["tree", "metadata"]),
        ("apt", &["list", "show", "search", "policy"]),
        ("dpkg", &["-l", "-L", "-s", "--list"]),
        ("brew", &["list", "info", "--prefix"]),
        ("docker", &["ps", "images", "logs", "inspect", "version", "info"]),
        ("kubectl", &["get", "describe", "logs", "version"]),
        ("systemctl", &["status", "is-active", "list-units"]),
        ("conda", &["list", "info"]),
    ];
    let segment = segment.trim();
    let words: Vec<&str> = segment.split_whitespace().collect();
    // `python -m pip show x`, `uv pip list`: the package manager's own words.
    let start = match words.as_slice() {
        [python, "-m", "pip", ..] if python.starts_with("python") => 2,
        ["uv", "pip", ..] => 1,
        ["sudo", ..] => 1,
        _ => 0,
    };
    let words = &words[start..];
    // A shell given a command to run reads when that command does.
    if let Some(inner) = wrapped_command(segment) {
        return is_read_only_command(&inner);
    }
    match words {
        [] => true,
        ["cd" | "set" | "export", ..] => true,
        [_, "--version" | "-V" | "version" | "-v"] => true,
        ["command", "-v", ..] => true,
        ["git", sub, ..] => GIT_READERS.contains(sub),
        ["sed", "-n", ..] => true,
        // `xargs CMD` runs CMD over the words it reads: it reads when CMD does.
        ["xargs", rest @ ..] => {
            let command: Vec<&str> =
                rest.iter().copied().skip_while(|word| word.starts_with('-')).collect();
            !command.is_empty() && read_only_segment(&command.join(" "))
        }
        [cmdlet, ..] if powershell_reads(cmdlet) => true,
        [python, "-c", ..] if python.starts_with("python") => {
            let code = segment.split_once("-c").map_or("", |(_, code)| code);
            let code = code.trim().trim_matches(['"', '\'']);
            code.split([';', '\n']).map(str::trim).filter(|line| !line.is_empty()).all(|line| {
                line.starts_with("import ")
                    || line.starts_with("from ")
                    || line.starts_with("print(")
            })
        }
        [program, sub, ..]
            if QUERIES
                .iter()
                .any(|(manager, queries)| manager == program && queries.contains(sub)) =>
        {
            true
        }
        [program, ..] => READERS.iter().any(|reader| reader.eq_ignore_ascii_case(program)),
    }
}

/// Whether a PowerShell cmdlet only reads, by its verb: PowerShell names every cmdlet
/// `Verb-Noun` from a fixed set of verbs, and these get, select, test, measure, compare or
/// format what they are given without changing anything (`Get-ChildItem`, `Select-Object`,
/// `Where-Object`, `Measure-Object`, `Format-Table`, `ConvertTo-Json`); `Out-String` and
/// `Out-Host` only show. `Set-`, `New-`, `Remove-`, `Out-File` and the rest change things.
fn powershell_reads(cmdlet: &str) -> bool {
    const VERBS: [&str; 16] = [
        "get",
        "select",
        "where",
        "sort",
        "measure",
        "test",
        "find",
        "search",
        "compare",
        "resolve",
        "show",
        "read",
        "format",
        "group",
        "convertto",
        "convertfrom",
    ];
    let Some((verb, noun)) = cmdlet.split_once('-') else { return false };
    let noun = noun.to_lowercase();
    !noun.is_empty()
        && noun.chars().all(|c| c.is_ascii_alphabetic())
        && (VERBS.contains(&verb.to_lowercase().as_str())
            || (verb.eq_ignore_ascii_case("out") && matches!(noun.as_str(), "string" | "host")))
}

/// The command a shell runs for another, unquoted: the script after the shell's command
/// flag, whatever options of its own the shell is given before it (`bash -lc '…'`, `bash
/// --noprofile --norc -c '…'`, `sh -e -c '…'`, `pwsh.exe -NoLogo -NoProfile -Command "…"`,
/// `cmd.exe /d /s /c "…"`). A POSIX shell's command flag is a short option cluster ending in
/// `c` (`-c`, `-lc`, `-ec`); PowerShell's is `-Command` (or `-c`); cmd's is `/c` (or `/k`).
pub(in crate::offline) fn wrapped_command(segment: &str) -> Option<String> {
    let words: Vec<&str> = segment.split_whitespace().collect();
    let flag = crate::files::command_flag_at(words.first()?, &words[1..])? + 1;
    // The flag's own place in the line: after the words before it.
    let mut at = 0;
    for word in &words[..=flag] {
        at = segment[at..].find(word)? + at + word.len();
    }
    let inner = segment[at..].trim();
    let inner = match inner.chars().next() {
        Some(quote @ ('\'' | '"')) if inner.ends_with(quote) && inner.len() >= 2 => {
            inner[1..inner.len() - 1].replace("'\\''", "'")
        }
        _ => inner.to_owned(),
    };
    (!inner.trim().is_empty()).then_some(inner)
}

/// The program of the last stage of a pipeline (`script | tail -30` → `tail`) when the
/// line's last command is one: its exit code is that stage's, not the script's.
pub(in crate::offline) fn piped_into(command: &str) -> Option<&str> {
    let segments = crate::files::shell_segments(command);
    let last = segments.last()?;
    let before = &command[..command.rfind(last)?];
    let joined_by_pipe = before.trim_end().ends_with('|') && !before.trim_end().ends_with("||");
    let program = last.split_whitespace().next()?;
    joined_by_pipe.then_some(program)
}

/// The one file a command prints whole or in part, when printing it is all the command
/// does (`cat AGENTS.md`, `Get-Content -Path .\CLAUDE.md`, `sed -n '1,200p' README.md`,
/// `head -n 80 CONTRIBUTING.md`, `cat docs/rules.md | less`): what it prints is that
/// file's text, as a read tool's result is.
pub(in crate::offline) fn printed_file(command: &str) -> Option<String> {
    const PRINTERS: [&str; 12] = [
        "cat",
        "type",
        "get-content",
        "gc",
        "bat",
        "batcat",
        "nl",
        "more",
        "less",
        "head",
        "tail",
        "sed",
    ];
    const PAGERS: [&str; 4] = ["less", "more", "head", "tail"];
    let segments = crate::files::shell_segments(command);
    let (first, rest) = segments.split_first()?;
    let words: Vec<&str> = first.split_whitespace().collect();
    let (program, arguments) = words.split_first()?;
    let program = program.rsplit(['/', '\\']).next().unwrap_or(program).to_lowercase();
    if !PRINTERS.contains(&program.as_str()) {
        return None;
    }
    // Whatever follows may only page or cut the output, and name no file of its own.
    let paged = rest.iter().all(|segment| {
        let mut words = segment.split_whitespace();
        words.next().is_some_and(|pager| PAGERS.contains(&pager))
            && words.all(|word| word.starts_with('-') || word.parse::<u64>().is_ok())
    });
    if !paged {
        return None;
    }
    let mut files = Vec::new();
    let mut words = arguments.iter().map(|word| word.trim_matches(['\'', '"']));
    let mut script_seen = program != "sed";
    while let Some(word) = words.next() {
        if word.starts_with('-') {
            // A count given to `head`, `tail` or `Get-Content` (`-n 80`, `-TotalCount 80`)
            // takes the word after it; `-Path` and `-LiteralPath` name the file that follows;
            // other flags stand alone (`cat -n`, `bat -p`).
            let lower = word.to_lowercase();
            if matches!(lower.as_str(), "-path" | "-literalpath") {
                continue;
            }
            let counted = match program.as_str() {
                "head" | "tail" => matches!(lower.as_str(), "-n" | "-c"),
                "get-content" | "gc" => matches!(lower.as_str(), "-totalcount" | "-tail" | "-head"),
                _ => false,
            };
            if counted {
                words.next();
            }
            continue;
        }
        if !script_seen {
            // `sed -n '1,200p' FILE`: the script before the file, a print of lines only.
            script_seen = true;
            if word.chars().all(|c| c.is_ascii_digit() || matches!(c, ',' | 'p' | '$')) {
                continue;
            }
            return None;
        }
        if word.contains(['*', '?', '$', '`', '(', '{', '>', '<']) || word.is_empty() {
            return None;
        }
        files.push(word);
    }
    match files.as_slice() {
        [file] => Some((*file).to_owned()),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::printed_file;

    #[test]
    fn a_command_that_only_prints_one_file_names_it() {
        for (command, file) in [
            ("cat AGENTS.md", "AGENTS.md"),
            ("cat -n AGENTS.md", "AGENTS.md"),
            ("Get-Content -TotalCount 40 AGENTS.md", "AGENTS.md"),
            ("Get-Content -Path .\\CLAUDE.md", ".\\CLAUDE.md"),
            ("sed -n '1,200p' CONTRIBUTING.md", "CONTRIBUTING.md"),
            ("head -n 80 /repo/AGENTS.md", "/repo/AGENTS.md"),
            ("cat docs/rules.md | less", "docs/rules.md"),
            ("/bin/cat AGENTS.md | head -50", "AGENTS.md"),
        ] {
            assert_eq!(printed_file(command).as_deref(), Some(file), "{command}");
        }
    }

    #[test]
    fn a_command_that_does_more_than_print_one_file_names_none() {
        for command in [
            "cat a.md b.md",
            "cat *.md",
            "cat AGENTS.md | grep lint",
            "cat AGENTS.md > copy.md",
            "sed -i 's/a/b/' AGENTS.md",
            "sed -n '/lint/p' AGENTS.md",
            "grep -n lint AGENTS.md",
            "cat $FILE",
            "cat",
            "npm test",
        ] {
            assert_eq!(printed_file(command), None, "{command}");
        }
    }
}
