//! Shell commands: a run read from its evidence (exit code, error lines, a test runner's
//! counts), the failures it opens and resolves, and the line that names what it made.

use super::*;

impl Digest {
    /// Reads a shell command's outcome from its evidence: a check that fails answers; a
    /// line whose errors all come from its last, checking part (`rm a && ls dir`) did its
    /// work; a pipe into `tail` hides the exit code, so an output that shows an error leaves
    /// the outcome unknown (the command and its last lines are kept instead).
    #[allow(clippy::too_many_arguments)]
    pub(in super::super) fn shell_outcome<'l>(
        &mut self,
        command: &str,
        script: &str,
        failed: bool,
        exit_code: Option<i64>,
        scan: &OutputScan,
        cancelled: bool,
        lines: impl Iterator<Item = &'l str> + Clone,
    ) {
        self.note_output_words(command, lines.clone());
        if is_read_only_command(command) {
            if !cancelled && let Some(error) = scan.errors.first() {
                let command = code(&command_shown(command, COMMAND_CHARS));
                // A failed check tells its error; one that worked and printed error lines (a
                // log it read, a search for a message) found them: what it found is the
                // evidence the next step works from.
                let check = if failed {
                    format!("Checked {command}: {error}")
                } else {
                    let found: Vec<&str> = scan.errors.iter().take(2).map(String::as_str).collect();
                    format!("Checked {command}, found: {}", found.join("; "))
                };
                self.note_check(check);
            }
            return;
        }
        let segments = crate::files::shell_segments(command);
        let checking_tail = segments.len() > 1
            && segments.last().is_some_and(|last| is_read_only_command(last))
            && !scan.errors.is_empty()
            && scan.errors.iter().all(|error| {
                let error = plain_error(error);
                segments.iter().filter(|s| is_read_only_command(s)).any(|segment| {
                    segment
                        .split_whitespace()
                        .next()
                        .is_some_and(|program| error.starts_with(&format!("{program}:")))
                })
            });
        if failed && !cancelled && checking_tail {
            self.apply_tree_effects(script);
            if let Some(error) = scan.errors.first() {
                self.note_check(format!(
                    "Checked {}: {error}",
                    code(&command_shown(command, COMMAND_CHARS))
                ));
            }
            return;
        }
        let hidden = exit_code.is_none()
            && !failed
            && piped_into(command).is_some_and(is_read_only_command)
            && !scan.errors.is_empty();
        if hidden {
            let tail: Vec<String> = lines
                .map(str::trim)
                .filter(|line| !line.is_empty())
                .collect::<Vec<_>>()
                .iter()
                .rev()
                .take(2)
                .rev()
                .map(|line| code(&clip(line, 160)))
                .collect();
            let shown_command = code(&command_shown(command, COMMAND_CHARS));
            let text = format!(
                "{shown_command} (the pipe hides its exit code): its output shows {}; it ends: {}",
                scan.errors.first().cloned().unwrap_or_default(),
                tail.join(" / ")
            );
            self.unclear.retain(|known| !known.starts_with(&shown_command));
            self.unclear.push(text);
            return;
        }
        if !failed {
            self.apply_tree_effects(script);
        }
        // What a passing run made is kept with it.
        let made = if failed { None } else { result_line(command, lines) };
        self.command_outcome(command, !failed, exit_code, scan, cancelled, made);
    }

    /// The fix of a failure of `command` that a run of it resolved: what the assistant
    /// found and the files edited since it failed (the decisions and edits the digest held
    /// then are `decisions_at` and `edits_at`), with the passing run's counts.
    pub(super) fn fixed_by(
        &self,
        command: &str,
        error: String,
        counts: Option<String>,
        decisions_at: usize,
        edits_at: usize,
    ) -> Fixed {
        let diagnosis = self.decisions.get(decisions_at..).and_then(|found| {
            found.iter().find(|d| !d.starts_with("The user ")).map(|d| clip(d, 240))
        });
        let mut edited: Vec<String> = Vec::new();
        for path in self.edit_log.get(edits_at..).unwrap_or_default() {
            if !edited.contains(path) {
                edited.push(path.clone());
            }
        }
        let skip = edited.len().saturating_sub(3);
        let edited = edited.split_off(skip);
        Fixed { command: command.to_owned(), error, counts, diagnosis, edited }
    }

    pub(in super::super) fn command_outcome(
        &mut self,
        command: &str,
        passed: bool,
        exit_code: Option<i64>,
        scan: &OutputScan,
        cancelled: bool,
        made: Option<String>,
    ) {
        if command.is_empty() {
            return;
        }
        let runs = match self.commands.iter().position(|runs| runs.command == command) {
            Some(position) => &mut self.commands[position],
            None => {
                self.commands.push(CommandRuns {
                    command: command.to_owned(),
                    passes: 0,
                    failures: 0,
                    last_passed: None,
                });
                let last = self.commands.len() - 1;
                &mut self.commands[last]
            }
        };
        runs.last_passed = Some(passed);
        if passed {
            runs.passes += 1;
            // The evidence of what it did: a test runner's counts, else what it made.
            let printed = made.is_some();
            let detail = match (scan.passed.as_deref(), made) {
                (Some(counts), _) => format!(" (tests passed: {counts})"),
                (None, Some(made)) => format!("; it printed: {made}"),
                (None, None) => String::new(),
            };
            let text = format!("Ran {}{detail}", code(&command_shown(command, COMMAND_CHARS)));
            self.passing.retain(|(known, _)| known != command);
            // A command that wrote files is told by the files it wrote, unless it also
            // printed what it made (`nohup server > log & echo $!`: the process id).
            if printed || shell_file_effects(command).is_empty() {
                self.passing.push((command.to_owned(), text));
            }
            let mut resolved = self.resolve(&format!("cmd:{command}"));
            // Each command of `a && b` passed too; the whole suite passing (`pytest`,
            // `npm test`) resolves narrower runs of it.
            // The command's own failure names the error; others only when it had none.
            // A line whose output shows no error worked as a whole: each of its commands
            // (`a; b`, `a & b` too) did.
            let parts = match scan.errors.is_empty() {
                true => command_segments(command),
                false => command_parts(command),
            };
            for part in parts {
                if part != command {
                    let part_error = self.resolve(&format!("cmd:{part}"));
                    resolved = resolved.or(part_error);
                }
                {
                    // A run of the same program over a wider target (`pytest tests/` after
                    // `pytest tests/test_a.py::t`, `go test ./...`) covers the narrower runs.
                    let keys: Vec<String> = self
                        .failures
                        .iter()
                        .filter(|f| !f.resolved)
                        .filter_map(|f| f.key.strip_prefix("cmd:"))
                        .filter(|failed| covers(part, failed))
                        .map(|failed| format!("cmd:{failed}"))
                        .collect();
                    for key in keys {
                        let narrower_error = self.resolve(&key);
                        resolved = resolved.or(narrower_error);
                    }
                }
            }
            if let Some((error, decisions_at, edits_at)) = resolved {
                let fixed =
                    self.fixed_by(command, error, scan.passed.clone(), decisions_at, edits_at);
                self.fixed.push(fixed);
            } else if let Some(counts) = &scan.passed {
                // A later run's counts are the current ones.
                for fixed in self.fixed.iter_mut().filter(|fixed| fixed.command == command) {
                    fixed.counts = Some(counts.clone());
                }
            }
            self.last_was_failure = false;
        } else {
            runs.failures += 1;
            let status = if cancelled {
                " was cancelled".to_owned()
            } else {
                match exit_code {
                    Some(code) => format!(" failed (exit {code})"),
                    None => " failed".to_owned(),
                }
            };
            let error = scan.errors.first().cloned();
            let shown_command = code(&command_shown(command, COMMAND_CHARS));
            let mut text = format!("{shown_command}{status}");
            let shown: Vec<String> = scan.errors.iter().take(2).cloned().collect();
            if !shown.is_empty() {
                text.push_str(": ");
                text.push_str(&shown.join("; "));
            }
            // The runner's own count of what failed, when no error line shown says it.
            let counts: Vec<&str> = scan
                .failure_counts
                .iter()
                .filter(|counts| !shown.contains(counts))
                .map(String::as_str)
                .collect();
            if !counts.is_empty() {
                text.push_str(if shown.is_empty() { ": " } else { "; the run counted " });
                text.push_str(&counts.join("; "));
            }
            self.passing.retain(|(known, _)| known != command);
            self.fail(format!("cmd:{command}"), shown_command, text, error);
        }
    }
}

/// The lines that name what a command that changed something made: the last two output
/// lines holding a new name, in their order. A new name is one the command itself does
/// not name, in inline code: an id (a word of six or more characters mixing letters and
/// digits, or a number of five or more digits: a commit, a job, a container, a process), an
/// absolute path, a URL, or the number a line labels (`REVISION: 14`, `Job ID: 311`). Tools
/// print what they made at the end, or just before their closing hints; a tool that made
/// two things (a key and its public half) prints both.
fn result_line<'l>(command: &str, lines: impl Iterator<Item = &'l str>) -> Option<String> {
    let new_name = |word: &str| {
        let word = word.trim_matches(|c: char| ".,:;!?".contains(c));
        let digits = word.chars().filter(char::is_ascii_digit).count();
        let id = char_len(word) >= 6 && digits > 0 && word.chars().any(|c| c.is_ascii_alphabetic());
        let number = digits >= 5 && digits == char_len(word);
        let path = word.starts_with('/') && word.matches('/').count() >= 3;
        (id || number || path || word.contains("://")) && !command.contains(word)
    };
    let names_new = |line: &&str| {
        line.split(|c: char| c.is_whitespace() || "\"'`()[]{}<>,;=".contains(c)).any(new_name)
            || labelled_number(line).is_some_and(|number| !command.contains(number))
    };
    let found: Vec<&str> = own_lines(lines).into_iter().rev().filter(names_new).take(2).collect();
    let shown: Vec<String> = found.iter().rev().map(|line| code(&clip(line, LINE_CHARS))).collect();
    (!shown.is_empty()).then(|| shown.join("; "))
}

/// The number a `Label: 14` line gives (a label of one to three words of letters, then one
/// number, not zero): a revision, a job, a process. Not an exit code, nor a count of none
/// (`Warnings: 0`).
fn labelled_number(line: &str) -> Option<&str> {
    let (label, value) = line.split_once(':')?;
    let value = value.trim();
    let words: Vec<&str> = label.split([' ', '_', '-']).filter(|w| !w.is_empty()).collect();
    let label_ok = (1..=3).contains(&words.len())
        && words.iter().all(|word| word.chars().all(char::is_alphabetic))
        && !label.to_lowercase().contains("exit");
    let number = !value.is_empty() && value.chars().all(|c| c.is_ascii_digit());
    (label_ok && number && value.chars().any(|c| c != '0')).then_some(value)
}

/// The widest line of output kept, in characters.
const LINE_CHARS: usize = 160;

/// The lines a command itself printed, trimmed, that say something. A harness's header
/// before the output (`Chunk ID: …`, `Wall time: …`, `Output:`) is not what it printed;
/// nor is a script runner's echo of the command it runs (`> tsc -b`); a line that closes
/// more brackets than it opens is the tail of something larger (a JSON document, a call),
/// not a line of its own.
fn own_lines<'l>(lines: impl Iterator<Item = &'l str>) -> Vec<&'l str> {
    let all: Vec<&str> = lines.map(str::trim).collect();
    let start = all.iter().take(8).position(|line| *line == "Output:").map_or(0, |at| at + 1);
    all[start..]
        .iter()
        .copied()
        .filter(|line| {
            let count = |set: &str| line.chars().filter(|c| set.contains(*c)).count();
            line.chars().any(char::is_alphanumeric)
                && count(")]}") <= count("([{")
                && !line.starts_with("> ")
        })
        .collect()
}

/// Whether a passing run of `wider` covers the failed run `narrower`: the same command, or
/// the same program and words with no target, or targets that contain the narrower run's
/// (`tests/` contains `tests/a.py::t`; `./...` contains `./internal/store`); of a failed
/// `a && b`, its last command.
pub(in super::super) fn covers(wider: &str, narrower: &str) -> bool {
    if wider == narrower {
        return true;
    }
    // Runs that differ only in their environment, wrappers or redirections ran the same.
    let (wider, narrower) = (invocation(wider), invocation(narrower));
    if wider.is_empty() || narrower.is_empty() {
        return false;
    }
    if wider == narrower {
        return true;
    }
    // A failed `a && b` is settled by a pass of its last command: the steps before it are
    // what it needs (`cmake .. && make` is settled by `make`, `npm ci && npm test` by `npm
    // test`). A chain of independent checks (`npm test && npm run lint`) is where this
    // reading is wrong, when only its last check is run again and passes.
    let narrower = match command_parts(&narrower).as_slice() {
        [_, .., last] => invocation(last),
        _ => narrower,
    };
    let (wider, narrower) = (wider.as_str(), narrower.as_str());
    if wider == narrower {
        return true;
    }
    let (family, targeted) = command_family(wider);
    if family.is_empty() || command_family(narrower).0 != family {
        return false;
    }
    if !targeted {
        return true;
    }
    let targets = |command: &str| -> Vec<String> {
        command
            .split_whitespace()
            .filter(|word| !word.starts_with('-') && word.contains(['/', '.', ':']))
            .map(|word| word.trim_end_matches("...").trim_start_matches("./").to_owned())
            .collect()
    };
    let wide = targets(wider);
    let narrow = targets(narrower);
    !narrow.is_empty()
        && narrow.iter().all(|target| {
            wide.iter().any(|base| {
                base.is_empty()
                    || target == base
                    || (base.ends_with('/') && target.starts_with(base.as_str()))
                    || target
                        .strip_prefix(base.as_str())
                        .is_some_and(|rest| rest.starts_with(['/', ':']))
            })
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn the_result_line_names_what_the_command_made() {
        let commit = "> lint-staged\n✔ Running tasks\n[main 803d4b6] Fix the retry\n 2 files changed, 9 insertions(+)";
        assert_eq!(
            result_line("git commit -am 'Fix the retry'", commit.lines()).as_deref(),
            Some("`[main 803d4b6] Fix the retry`")
        );
        let job = "Submitted batch job 4417209";
        assert_eq!(
            result_line("sbatch train.slurm", job.lines()).as_deref(),
            Some("`Submitted batch job 4417209`")
        );
        // A harness's header is not the output; what the command names is nothing new.
        let wrapped = "Chunk ID: fcc71a\nWall time: 0.05 seconds\nOutput:\nDone.";
        assert_eq!(result_line("python fix.py", wrapped.lines()), None);
        let echoed = "Pushing to https://github.com/acme/shop.git\nEverything up-to-date";
        assert_eq!(
            result_line("git push https://github.com/acme/shop.git main", echoed.lines()),
            None
        );
        // Small numbers, times and words are no name; the tail of a JSON document is no line.
        let tail = "{\"id\": 1,\n\"ts\": 1765200000000}";
        assert_eq!(result_line("npm run check", tail.lines()), None);
        let plain = "Compiled in 2.31s\nDone at 10:02:11, 12 files";
        assert_eq!(result_line("make", plain.lines()), None);
    }

    #[test]
    fn a_labelled_number_and_a_second_made_thing_are_kept() {
        // The number a line labels is a name: Helm's revision, among lines the command named.
        let helm = "Release \"billing\" has been upgraded. Happy Helming!\nNAME: billing\nNAMESPACE: billing\nSTATUS: deployed\nREVISION: 14\nTEST SUITE: None";
        assert_eq!(
            result_line("helm upgrade --install billing charts/billing -n billing", helm.lines())
                .as_deref(),
            Some("`REVISION: 14`")
        );
        // Two things made, both kept in their order: the key's public half and its print.
        let keygen = "Generating public/private ed25519 key pair.\nYour identification has been saved in /home/dev/.ssh/deploy\nYour public key has been saved in /home/dev/.ssh/deploy.pub\nThe key fingerprint is:\nSHA256:Qm3x8kP1vR7tY2uW9zA4 deploy@shop";
        assert_eq!(
            result_line("ssh-keygen -t ed25519 -f ~/.ssh/deploy -N ''", keygen.lines()).as_deref(),
            Some(
                "`Your public key has been saved in /home/dev/.ssh/deploy.pub`; `SHA256:Qm3x8kP1vR7tY2uW9zA4 deploy@shop`"
            )
        );
        // A count of none, an exit code, a label of many words or a number the command
        // named is no name.
        let counts = "Warnings: 0\nExit code: 3\nNumber of files copied this time: 12\nPort: 8080";
        assert_eq!(result_line("./deploy.sh --port 8080", counts.lines()), None);
    }
}
