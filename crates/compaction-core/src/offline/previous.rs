//! The previous summary, parsed back into sections so a new summary can merge it.
//!
//! Invariant: every bullet of the previous summary lands in some section or in the
//! unstructured text; only empty placeholders are dropped.

use super::sections::Section;
use super::text::*;

#[derive(Debug, Clone, Default)]
pub(super) struct PreviousSummary {
    /// Bullets per section, in their order (index = `Section::index`).
    pub(super) items: [Vec<String>; 8],
    pub(super) read_files: Vec<String>,
    pub(super) modified_files: Vec<String>,
    /// The whole text, one line, when it has none of our headings.
    pub(super) unstructured: Option<String>,
}

impl PreviousSummary {
    pub(super) fn parse(text: &str) -> Self {
        // The pinned section is rewritten from the pins active now, never carried.
        let text = crate::pins::without_pinned_section(text);
        let text = text.as_ref();
        let mut parsed = PreviousSummary::default();
        let mut current: Option<(Section, Option<String>)> = None;
        let mut must_keep = false;
        let mut in_pin = false;
        let mut recognised = false;
        let mut file_list: Option<bool> = None; // Some(true) = modified, Some(false) = read.
        let mut loose = Vec::new();
        for line in text.lines() {
            let trimmed = line.trim();
            match trimmed {
                "<read-files>" => {
                    file_list = Some(false);
                    continue;
                }
                "<modified-files>" => {
                    file_list = Some(true);
                    continue;
                }
                "</read-files>" | "</modified-files>" => {
                    file_list = None;
                    continue;
                }
                _ => {}
            }
            if let Some(modified) = file_list {
                if !trimmed.is_empty() {
                    let list =
                        if modified { &mut parsed.modified_files } else { &mut parsed.read_files };
                    list.push(trimmed.to_owned());
                }
                continue;
            }
            // The quality gate's "Must Keep" section: its facts go back to their sections;
            // pinned instructions are not carried (the pins active now are written afresh).
            if trimmed == "<pinned-instruction>" {
                in_pin = true;
                continue;
            }
            if in_pin {
                in_pin = trimmed != "</pinned-instruction>";
                continue;
            }
            if let Some(title) = trimmed.strip_prefix('#') {
                let title = title.trim_start_matches('#').trim().trim_end_matches(':');
                must_keep = title.eq_ignore_ascii_case("must keep");
                if must_keep {
                    current = None;
                    recognised = true;
                    continue;
                }
            }
            if must_keep {
                let bullet = strip_bullet(trimmed);
                let unquote = |text: &str| text.trim().trim_matches('"').to_owned();
                if let Some(path) = bullet.strip_prefix("Modified: ") {
                    parsed.modified_files.extend(backticked(path).into_iter().map(str::to_owned));
                } else if let Some(text) = bullet.strip_prefix("Constraint (user's words): ") {
                    parsed.items[Section::Constraints.index()].push(unquote(text));
                } else if let Some(text) = bullet.strip_prefix("Latest request: ") {
                    parsed.items[Section::Goal.index()]
                        .push(format!("Latest request: {}", unquote(text)));
                } else if let Some(text) = bullet.strip_prefix("Unresolved failure: ") {
                    parsed.items[Section::Blocked.index()].push(text.to_owned());
                }
                continue;
            }
            if let Some(title) = trimmed.strip_prefix('#') {
                let title = title.trim_start_matches('#').trim().trim_end_matches(':');
                if title.eq_ignore_ascii_case("progress") {
                    current = Some((Section::Done, None));
                } else {
                    // A heading of another format (pi's "User Preferences", "Key Files", …)
                    // maps to the nearest section, or keeps its name in Critical Context.
                    current = Some(match Section::from_heading(title) {
                        Some(section) => (section, None),
                        None => match Section::from_foreign_heading(title) {
                            Some(section) => (section, None),
                            None => (Section::Critical, Some(title.to_owned())),
                        },
                    });
                }
                recognised = true;
                continue;
            }
            // The separator before a split turn's summary, horizontal rules, bold labels.
            if trimmed.is_empty()
                || trimmed.chars().all(|c| c == '-' || c == '*' || c == '_' || c == '=')
                || (trimmed.starts_with("**") && trimmed.ends_with("**"))
            {
                continue;
            }
            let bullet = strip_bullet(trimmed);
            if bullet.is_empty() || bullet == "(none)" || bullet.starts_with("(none") {
                continue;
            }
            match &current {
                Some((section, None)) => {
                    parsed.items[section.index()].push(bullet.to_owned());
                }
                Some((section, Some(heading))) => {
                    parsed.items[section.index()].push(format!("{heading}: {bullet}"));
                }
                None => loose.push(bullet),
            }
        }
        if recognised && !loose.is_empty() {
            // Text before the first heading is context too.
            let joined = one_line(&loose.join(" "));
            parsed.items[Section::Critical.index()].insert(0, clip(&joined, 800));
        }
        if !recognised {
            let joined = one_line(&loose.join(" "));
            if !joined.is_empty() {
                parsed.unstructured = Some(clip(&joined, 800));
            }
        }
        parsed
    }

    pub(super) fn section(&self, section: Section) -> &[String] {
        &self.items[section.index()]
    }
}
