//! What follows a rejection: the retry's instructions, then the deterministic Must Keep
//! section appended when the retry fails too.

use crate::must_keep::UnresolvedError;

use super::matching::*;
use super::*;

/// The instructions for the one retry: what the rejected summary got wrong, with the exact
/// text to include.
pub fn retry_instructions(problems: &[Problem]) -> String {
    let mut text = String::from(
        "A previous attempt at this summary was rejected. Write the whole summary again and fix \
         every point below.\n",
    );
    for problem in problems {
        let line = match problem {
            Problem::Empty => "- It was empty: write the full checkpoint.".to_owned(),
            Problem::Refusal { .. } => {
                "- It was a refusal. Summarizing this conversation is the task; \
                 write the checkpoint."
                    .to_owned()
            }
            Problem::Truncated => "- It was cut off at the output limit: write a shorter summary \
                 that ends properly."
                .to_owned(),
            Problem::Echo { .. } => "- It repeated the request (the prompt or the conversation's \
                 tags) instead of summarizing it. Write the checkpoint in your own words, \
                 without tags."
                .to_owned(),
            Problem::MissingSections { headings } => format!(
                "- It lacked the checkpoint structure. Use these headings: {}.",
                headings.iter().map(|h| format!("`## {h}`")).collect::<Vec<_>>().join(", ")
            ),
            Problem::TooShort { words, minimum } => format!(
                "- It was far too short ({words} words, at least {minimum} needed): summarize \
                 the whole conversation under every heading."
            ),
            Problem::MissingFile { path } => {
                format!("- It did not name the modified file `{path}`; name it exactly.")
            }
            Problem::MissingConstraint { text } => format!(
                "- It left out the user's constraint; quote it word for word under Constraints & \
                 Preferences: \"{}\"",
                quoted_opening(text)
            ),
            Problem::MissingLatestRequest { text } => format!(
                "- It left out the user's latest request; end the Goal with it verbatim: \
                 Latest request: \"{}\"",
                quoted_opening(text)
            ),
            Problem::MissingError { command, error_line } => format!(
                "- It left out the unresolved failure of `{}`; quote its error line under \
                 Blocked: {}",
                collapse_whitespace(command),
                collapse_whitespace(error_line)
            ),
            Problem::MissingPin { text, .. } => format!(
                "- It left out an instruction the user pinned; copy it word for word into the \
                 `## Pinned Instructions` section at the top: \"{}\"",
                collapse_whitespace(text)
            ),
        };
        text.push_str(&line);
        text.push('\n');
    }
    text
}

/// The summary with a deterministic "Must Keep" section appended, built from the facts the
/// problems name (every fact when the structure is missing or the text is short). Returns
/// `None` when the text is no summary at all ([`Problem::is_unreadable`]). The caller
/// decides whether a model's text without the structure may be repaired (it may not:
/// [`Problem::is_unusable`]); a deterministic summarizer's may.
pub fn repair(summary: &str, problems: &[Problem], facts: &GateFacts<'_>) -> Option<String> {
    if problems.iter().any(Problem::is_unreadable) {
        return None;
    }
    let whole = problems.iter().any(|problem| {
        matches!(problem, Problem::MissingSections { .. } | Problem::TooShort { .. })
    });
    let mut section = String::from(MUST_KEEP_HEADING);
    section.push('\n');
    let wanted = |problem: &Problem| whole || problems.contains(problem);
    for path in &facts.must_keep.modified_files {
        if wanted(&Problem::MissingFile { path: path.clone() }) {
            section.push_str(&format!("- Modified: `{path}`\n"));
        }
    }
    for text in &facts.must_keep.constraints {
        if wanted(&Problem::MissingConstraint { text: text.clone() }) {
            section
                .push_str(&format!("- Constraint (user's words): \"{}\"\n", quoted_opening(text)));
        }
    }
    if let Some(text) = &facts.must_keep.latest_request
        && wanted(&Problem::MissingLatestRequest { text: text.clone() })
    {
        section.push_str(&format!("- Latest request: \"{}\"\n", quoted_opening(text)));
    }
    if let Some(UnresolvedError { command, error_line }) = &facts.must_keep.unresolved_error
        && wanted(&Problem::MissingError {
            command: command.clone(),
            error_line: error_line.clone(),
        })
    {
        section.push_str(&format!(
            "- Unresolved failure: `{}` failed with: {}\n",
            collapse_whitespace(command),
            collapse_whitespace(error_line)
        ));
    }
    // A pin is copied only when the summary lacks it, even when every fact is restated: a
    // summary carries its pins whole (the pinned section), and a second copy of a long pin
    // could make the context after the compaction larger than before.
    let normalized = normalize(summary);
    for pin in facts.pins {
        let problem = Problem::MissingPin { id: pin.id.clone(), text: pin.text.clone() };
        if problems.contains(&problem) || whole && !super::check::holds_pin(&normalized, pin) {
            section.push_str("- Pinned instruction:\n\n");
            crate::pins::push_pinned_element(&mut section, &pin.text);
            section.push('\n');
        }
    }
    Some(format!("{}\n\n{}", summary.trim_end(), section.trim_end()))
}
