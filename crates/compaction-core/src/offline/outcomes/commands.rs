//! Shell commands: a run read from its evidence (exit code, error lines, a test runner's
//! counts), and the failures it opens and resolves.

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
        self.command_outcome(command, !failed, exit_code, scan, cancelled);
    }

    pub(in super::super) fn command_outcome(
        &mut self,
        command: &str,
        passed: bool,
        exit_code: Option<i64>,
        scan: &OutputScan,
        cancelled: bool,
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
            let detail = scan
                .passed
                .as_deref()
                .map(|counts| format!(" (tests passed: {counts})"))
                .unwrap_or_default();
            let text = format!("Ran {}{detail}", code(&command_shown(command, COMMAND_CHARS)));
            self.passing.retain(|(known, _)| known != command);
            if shell_file_effects(command).is_empty() {
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
                let counts = scan.passed.clone();
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
                self.fixed.push(Fixed {
                    command: command.to_owned(),
                    error,
                    counts,
                    diagnosis,
                    edited,
                });
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
            if !scan.errors.is_empty() {
                let shown: Vec<String> = scan.errors.iter().take(2).cloned().collect();
                text.push_str(": ");
                text.push_str(&shown.join("; "));
            }
            self.passing.retain(|(known, _)| known != command);
            self.fail(format!("cmd:{command}"), shown_command, text, error);
        }
    }
}

/// Whether a passing run of `wider` covers the failed run `narrower`: the same command, or
/// the same program and words with no target, or targets that contain the narrower run's
/// (`tests/` contains `tests/a.py::t`; `./...` contains `./internal/store`).
pub(in super::super) fn covers(wider: &str, narrower: &str) -> bool {
    if wider == narrower {
        return true;
    }
    // Runs that differ only in their environment, wrappers or redirections ran the same.
    let (wider, narrower) = (invocation(wider), invocation(narrower));
    let (wider, narrower) = (wider.as_str(), narrower.as_str());
    if wider.is_empty() || narrower.is_empty() {
        return false;
    }
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
