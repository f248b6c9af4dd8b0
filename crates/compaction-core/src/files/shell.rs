//! Shell command lines: the files their moves, deletions and writes touch.

use super::{FileEffect, windows};

/// The moves, deletions and writes a shell command line makes, in order. Reads simple
/// commands joined by `&&`, `||`, `;`, `|` or newlines; the bodies of here-documents are
/// text, not commands; arguments with globs, variables or command substitutions are
/// skipped, since their paths are not known, and so are writes to `/dev` and `/tmp`.
/// `mv` of several sources (or `-t DIR`) moves each into the directory; PowerShell's and
/// cmd.exe's moves, renames and deletions count too (see `windows`).
pub fn shell_file_effects(command: &str) -> Vec<FileEffect> {
    let mut effects = Vec::new();
    let command = without_heredoc_bodies(command);
    // The directory a `cd DIR` earlier on the line moved to: relative paths after it are
    // joined to it. After a `cd` to a place not known (`cd $DIR`, `cd -`), relative paths are
    // not known either and are skipped.
    let mut directory = Directory::Start;
    for segment in shell_segments(&command) {
        let (words, targets) = split_redirects(shell_words(segment));
        if let [cd, rest @ ..] = words.as_slice()
            && cd == "cd"
        {
            directory = match rest {
                [target] if known_path(target) && !target.starts_with('~') && target != "-" => {
                    match directory.join(target) {
                        Some(path) => Directory::At(path),
                        None => Directory::Unknown,
                    }
                }
                [..] => Directory::Unknown,
            };
            continue;
        }
        let resolve = |path: &str| directory.join(path).map(|joined| clean_path(&joined));
        effects.extend(
            targets
                .iter()
                .filter(|target| writable(target))
                .filter_map(|target| resolve(target))
                .map(|path| FileEffect::Written { path }),
        );
        let mut words: Vec<&str> =
            words.iter().map(String::as_str).filter(|word| !word.is_empty()).collect();
        if words.first() == Some(&"sudo") {
            words.remove(0);
        }
        if words.first() == Some(&"git") {
            words.remove(0);
            if !matches!(words.first(), Some(&"mv") | Some(&"rm")) {
                continue;
            }
        }
        if let Some(found) = windows::windows_effects(&words, &resolve) {
            effects.extend(found);
            continue;
        }
        let Some((&program, rest)) = words.split_first() else { continue };
        // `mv -t DIR SOURCE…` (`--target-directory=DIR`) names the directory first.
        let target_directory = rest.iter().enumerate().find_map(|(at, word)| match *word {
            "-t" => rest.get(at + 1).copied(),
            _ => word.strip_prefix("--target-directory="),
        });
        let mut only_paths = false;
        let arguments: Vec<&str> = rest
            .iter()
            .copied()
            .filter(|word| {
                if *word == "--" {
                    only_paths = true;
                    return false;
                }
                only_paths || !word.starts_with('-')
            })
            .filter(|word| Some(*word) != target_directory)
            .collect();
        match program {
            "mv" | "rm" | "unlink" | "cp" | "tee"
                if arguments.iter().any(|word| !known_path(word)) => {}
            // Several sources (or `-t`): each goes into the directory, keeping its name.
            "mv" if arguments.len() > 2
                || (target_directory.is_some() && !arguments.is_empty()) =>
            {
                let (sources, directory) = match target_directory {
                    Some(directory) => (arguments.as_slice(), directory),
                    None => (&arguments[..arguments.len() - 1], arguments[arguments.len() - 1]),
                };
                if !known_path(directory) {
                    continue;
                }
                let directory = format!("{}/", directory.trim_end_matches('/'));
                for source in sources {
                    let (Some(from), Some(to)) =
                        (resolve(source), target_of(&[source, &directory], &resolve))
                    else {
                        continue;
                    };
                    effects.push(FileEffect::Moved { from, to });
                }
            }
            "mv" | "cp" if arguments.len() == 2 => {
                let (Some(from), Some(to)) =
                    (resolve(arguments[0]), target_of(&arguments, &resolve))
                else {
                    continue;
                };
                if program == "mv" {
                    effects.push(FileEffect::Moved { from, to });
                } else if writable(&to) {
                    effects.push(FileEffect::Written { path: to });
                }
            }
            "rm" | "unlink" => effects.extend(
                arguments
                    .iter()
                    .filter_map(|path| resolve(path))
                    .map(|path| FileEffect::Deleted { path }),
            ),
            "tee" => effects.extend(
                arguments
                    .iter()
                    .filter(|path| writable(path))
                    .filter_map(|path| resolve(path))
                    .map(|path| FileEffect::Written { path }),
            ),
            "sed" | "perl" => effects.extend(
                edited_in_place(program, rest)
                    .into_iter()
                    .filter_map(resolve)
                    .map(|path| FileEffect::Written { path }),
            ),
            _ => {}
        }
    }
    effects
}

/// Where relative paths of a command line are.
enum Directory {
    /// Where the command started: relative paths stay relative.
    Start,
    /// After `cd DIR`.
    At(String),
    /// After a `cd` whose target is not known.
    Unknown,
}

impl Directory {
    /// `path` as seen from here: absolute paths as they are, relative ones joined (with `.`
    /// and `..` folded); `None` when the directory is not known.
    fn join(&self, path: &str) -> Option<String> {
        if path.starts_with('/') || path.starts_with('~') {
            return Some(path.to_owned());
        }
        let base = match self {
            Directory::Start => return Some(path.to_owned()),
            Directory::At(base) => base,
            Directory::Unknown => return None,
        };
        let mut parts: Vec<&str> = base.split('/').collect();
        for part in path.split('/') {
            match part {
                "" | "." => {}
                ".." if parts.last().is_some_and(|last| !last.is_empty() && *last != "..") => {
                    parts.pop();
                }
                _ => parts.push(part),
            }
        }
        let joined = parts.join("/");
        Some(if joined.is_empty() { ".".to_owned() } else { joined })
    }
}

/// The path a `mv` or `cp` of two operands writes: into a directory named as one (`.`,
/// `..`, a trailing `/`) the source keeps its name.
fn target_of(arguments: &[&str], resolve: &dyn Fn(&str) -> Option<String>) -> Option<String> {
    let (from, to) = (arguments[0], arguments[1]);
    let into_directory = to.ends_with('/') || matches!(to, "." | ".." | "./" | "../");
    if !into_directory {
        return resolve(to);
    }
    let name = from.trim_end_matches('/').rsplit('/').next().filter(|name| !name.is_empty())?;
    let directory = resolve(to.trim_end_matches('/'))?;
    Some(clean_path(&match directory.as_str() {
        "" | "." => name.to_owned(),
        _ => format!("{directory}/{name}"),
    }))
}

/// Whether a word names a path as written: no glob, variable, substitution or redirection.
pub(super) fn known_path(word: &str) -> bool {
    // A path names something: not a lone number or punctuation (`15`, `\\`, `5:`), not a word
    // of the shell left by a line continuation (`echo`).
    let here = word.chars().all(|c| c == '.' || c == '/');
    let named = (here || word.chars().any(|c| c.is_alphabetic()))
        && !word.ends_with([':', '\\'])
        && !matches!(word, "echo" | "printf" | "cat" | "grep" | "true" | "false");
    named && !word.contains(['*', '?', '$', '`', '(', '{', '>', '<'])
}

/// The simple commands of a command line: the parts between `&&`, `||`, `;`, `|`, `&` and
/// line ends that are outside quotes (a `|` inside `grep "a\\|b"` or `awk '$1 > 2'` is text).
pub(crate) fn shell_segments(command: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut quote: Option<char> = None;
    let mut escaped = false;
    let mut start = 0;
    for (at, c) in command.char_indices() {
        if escaped {
            escaped = false;
            continue;
        }
        match (quote, c) {
            (Some('\''), '\'') => quote = None,
            (Some('\''), _) => {}
            (_, '\\') => escaped = true,
            (Some(open), c) if c == open => quote = None,
            (Some(_), _) => {}
            (None, '\'' | '"') => quote = Some(c),
            (None, '\n' | ';' | '|' | '&') => {
                out.push(&command[start..at]);
                start = at + c.len_utf8();
            }
            (None, _) => {}
        }
    }
    out.push(&command[start..]);
    out.retain(|segment| !segment.trim().is_empty());
    out
}

/// Whether a written path is worth following: a known path outside `/dev` and `/tmp`.
fn writable(path: &str) -> bool {
    known_path(path) && !path.starts_with("/dev/") && !path.starts_with("/tmp/")
}

fn clean_path(word: &str) -> String {
    word.trim_end_matches('/').trim_start_matches("./").to_owned()
}

/// The files a `sed` or `perl` command edits in place (`-i`, `-i.bak`, `--in-place`,
/// `-pi`): the operands after the script, which is the first operand unless `-e` or `-f`
/// gave it.
fn edited_in_place<'a>(program: &str, arguments: &[&'a str]) -> Vec<&'a str> {
    let mut in_place = false;
    let mut script_given = false;
    let mut operands = Vec::new();
    let mut words = arguments.iter().copied();
    while let Some(word) = words.next() {
        if word == "--in-place" || word.starts_with("--in-place=") {
            in_place = true;
        } else if matches!(word, "-e" | "-f" | "--expression" | "--file") {
            script_given = true;
            words.next();
        } else if word.starts_with("--expression=") || word.starts_with("--file=") {
            script_given = true;
        } else if let Some(flags) = word.strip_prefix('-').filter(|flags| !flags.is_empty()) {
            // `sed -i.bak` takes a suffix; perl's `-pi -e`, `-pie` cluster single letters.
            let letters: &str = match program {
                "sed" => flags.split('.').next().unwrap_or(flags),
                _ => flags,
            };
            if program == "sed" && flags.starts_with('i') || letters.contains('i') {
                in_place = true;
            }
            if program == "perl" && letters.ends_with('e') {
                script_given = true;
                words.next();
            }
        } else if !word.is_empty() {
            operands.push(word);
        }
    }
    if !in_place {
        return Vec::new();
    }
    let files = if script_given { &operands[..] } else { operands.get(1..).unwrap_or_default() };
    files.iter().copied().filter(|path| writable(path)).collect()
}

/// Separates a simple command's words from the files its standard output is redirected to
/// (`> path`, `>>path`, `1> path`, `>| path`). Other redirections and their operands
/// (`2> log`, `2>&1`, `< input`, `<<EOF`) are dropped.
fn split_redirects(words: Vec<String>) -> (Vec<String>, Vec<String>) {
    let mut kept = Vec::new();
    let mut targets = Vec::new();
    let mut words = words.into_iter();
    while let Some(word) = words.next() {
        let digits = word.chars().take_while(char::is_ascii_digit).count();
        let (descriptor, operator) = word.split_at(digits);
        if operator.starts_with('<') {
            let operand_follows = matches!(operator, "<" | "<<" | "<<-" | "<<<");
            if operand_follows {
                words.next();
            }
            continue;
        }
        let Some(rest) = operator.strip_prefix(">>").or_else(|| operator.strip_prefix('>')) else {
            kept.push(word);
            continue;
        };
        let rest = rest.strip_prefix('|').unwrap_or(rest);
        if rest.starts_with('&') {
            continue;
        }
        let target = if rest.is_empty() { words.next() } else { Some(rest.to_owned()) };
        if let Some(target) = target
            && matches!(descriptor, "" | "1")
        {
            targets.push(target);
        }
    }
    (kept, targets)
}

/// The command line without the bodies of its here-documents (`<<EOF` … `EOF`).
fn without_heredoc_bodies(command: &str) -> String {
    let mut out = String::with_capacity(command.len());
    let mut delimiters: Vec<String> = Vec::new();
    for line in command.lines() {
        if let Some(delimiter) = delimiters.first() {
            if line.trim() == delimiter {
                delimiters.remove(0);
            }
            continue;
        }
        let mut rest = line;
        while let Some(at) = rest.find("<<") {
            let after = &rest[at + 2..];
            if let Some(here_string) = after.strip_prefix('<') {
                rest = here_string;
                continue;
            }
            let after = after.trim_start_matches('-').trim_start();
            let after = after.trim_start_matches(['\'', '"', '\\']);
            let delimiter: String = after
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == '-')
                .collect();
            if !delimiter.is_empty() {
                delimiters.push(delimiter);
            }
            rest = after;
        }
        out.push_str(line);
        out.push('\n');
    }
    out
}

/// Splits a simple command into words, honouring single and double quotes.
fn shell_words(segment: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut current = String::new();
    let mut quote: Option<char> = None;
    let mut in_word = false;
    for c in segment.chars() {
        match (quote, c) {
            (Some(open), c) if c == open => quote = None,
            (Some(_), c) => current.push(c),
            (None, '\'' | '"') => {
                quote = Some(c);
                in_word = true;
            }
            (None, c) if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut current));
                    in_word = false;
                }
            }
            (None, c) => {
                current.push(c);
                in_word = true;
            }
        }
    }
    if in_word {
        words.push(current);
    }
    words
}

/// The shells that are given a command to run by a flag, by how they spell it.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Shell {
    Posix,
    Pwsh,
    Cmd,
}

impl Shell {
    /// The shell `program` is (a path or a name, `.exe` or not), if it is one.
    fn of(program: &str) -> Option<Shell> {
        let name = program.rsplit(['/', '\\']).next().unwrap_or(program).to_lowercase();
        match name.trim_end_matches(".exe") {
            "bash" | "sh" | "zsh" | "dash" | "ksh" | "fish" => Some(Shell::Posix),
            "pwsh" | "powershell" => Some(Shell::Pwsh),
            "cmd" => Some(Shell::Cmd),
            _ => None,
        }
    }

    /// Whether `word` is the flag that gives this shell a command to run: a POSIX shell's
    /// short option cluster ending in `c` (`-c`, `-lc`, `-ec`), PowerShell's `-Command` (or
    /// `-c`), cmd's `/c` (or `/k`).
    fn is_command_flag(self, word: &str) -> bool {
        let lower = word.to_lowercase();
        match self {
            Shell::Posix => {
                word.len() >= 2
                    && word.starts_with('-')
                    && !word.starts_with("--")
                    && word.ends_with('c')
                    && word[1..].chars().all(|c| c.is_ascii_alphabetic())
            }
            Shell::Pwsh => lower == "-command" || lower == "-c",
            Shell::Cmd => matches!(lower.as_str(), "/c" | "/k"),
        }
    }

    /// Whether `word` can stand among the shell's own options before its command flag: an
    /// option (`-o`, cmd's `/d`) or an option's argument (`pipefail`, `Bypass`).
    fn is_option(self, word: &str) -> bool {
        word.starts_with('-')
            || (self == Shell::Cmd && word.starts_with('/'))
            || word.chars().all(|c| c.is_ascii_alphanumeric())
    }
}

/// The place of the command flag among a shell's words after the program, `None` when
/// `program` is no shell or no flag comes: the shell's own options, with their arguments
/// (`-o pipefail`, `-ExecutionPolicy Bypass`), come first; a script's path or anything else
/// ends them (`bash build.sh -c` runs `build.sh`).
pub(crate) fn command_flag_at(program: &str, rest: &[&str]) -> Option<usize> {
    let shell = Shell::of(program)?;
    rest.iter()
        .take_while(|word| shell.is_option(word))
        .position(|word| shell.is_command_flag(word))
}
