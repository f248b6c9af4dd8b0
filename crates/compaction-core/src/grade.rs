//! How a summary is read when it is graded: its lines with the sections they lie in, and
//! whether a line states a value as current. `compaction eval` grades real transcripts with
//! it, and the offline summarizer's generated class instances are graded the same way, so
//! the two cannot drift apart.

/// One non-heading line of a summary, normalized ([`normalize`]), with the sections it lies
/// in (outermost first): its Markdown headings and the `<tag>` block around it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SummaryLine {
    /// The line, normalized.
    pub line: String,
    /// The headings (normalized) and the tag name (lowercase) the line lies under.
    pub sections: Vec<String>,
}

/// The summary's non-heading lines, each with the Markdown headings (up to the next heading
/// of the same or a higher level) and `<tag>`…`</tag>` blocks it lies in.
pub fn summary_lines(summary: &str) -> Vec<SummaryLine> {
    let mut headings: Vec<(usize, String)> = Vec::new();
    let mut tag: Option<String> = None;
    let mut out = Vec::new();
    for line in summary.lines() {
        let trimmed = line.trim();
        let level = trimmed.chars().take_while(|&c| c == '#').count();
        if level > 0 && trimmed[level..].starts_with(' ') {
            headings.retain(|(open, _)| *open < level);
            headings.push((level, normalize(&trimmed[level..])));
            continue;
        }
        if let Some(name) = trimmed.strip_prefix('<').and_then(|rest| rest.strip_suffix('>')) {
            if let Some(closed) = name.strip_prefix('/') {
                if tag.as_deref() == Some(closed) {
                    tag = None;
                }
            } else if !name.contains(' ') {
                tag = Some(name.to_owned());
            }
            continue;
        }
        if trimmed.is_empty() {
            continue;
        }
        let mut sections: Vec<String> = headings.iter().map(|(_, title)| title.clone()).collect();
        sections.extend(tag.iter().map(|name| name.to_lowercase()));
        out.push(SummaryLine { line: normalize(trimmed), sections });
    }
    out
}

/// The lines that state every one of `texts` (normalized) as current, within one of
/// `sections` (normalized; any section when empty). A line that names one of the texts only
/// as what was replaced (`A → B`: each time it occurs, an arrow follows it) does not.
pub fn stated_as_current<'a>(
    lines: &'a [SummaryLine],
    texts: &[String],
    sections: &[String],
) -> impl Iterator<Item = &'a SummaryLine> {
    lines
        .iter()
        .filter(|line| sections.is_empty() || line.sections.iter().any(|s| sections.contains(s)))
        .filter(|line| texts.iter().all(|text| line.line.contains(text.as_str())))
        .filter(|line| !texts.iter().any(|text| only_as_replaced(&line.line, text)))
}

/// Whether every occurrence of `text` in `line` is followed by an arrow (`→`, `->`, `=>`,
/// `⇒`), past closing quotes, code marks and emphasis: the line says what it became.
pub fn only_as_replaced(line: &str, text: &str) -> bool {
    const ARROWS: [&str; 4] = ["→", "->", "=>", "⇒"];
    let mut found = false;
    for (at, _) in line.match_indices(text) {
        found = true;
        let rest = line[at + text.len()..]
            .trim_start_matches(|c: char| c.is_whitespace() || "`'\"*)]”’".contains(c));
        if !ARROWS.iter().any(|arrow| rest.starts_with(arrow)) {
            return false;
        }
    }
    found
}

/// Lowercase with whitespace runs collapsed to one space.
pub fn normalize(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ").to_lowercase()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_carry_their_headings_and_tag() {
        let lines = summary_lines(
            "## Goal\n- Ship  It\n### Done\n- x\n## Files\n<modified-files>\nsrc/A.rs\n</modified-files>\n",
        );
        let shown: Vec<(&str, Vec<&str>)> = lines
            .iter()
            .map(|l| (l.line.as_str(), l.sections.iter().map(String::as_str).collect()))
            .collect();
        assert_eq!(
            shown,
            [
                ("- ship it", vec!["goal"]),
                ("- x", vec!["goal", "done"]),
                ("src/a.rs", vec!["files", "modified-files"]),
            ]
        );
    }

    #[test]
    fn a_value_followed_by_an_arrow_is_not_stated_as_current() {
        let lines = summary_lines("## Decisions\n- port 8080 → 3001\n- port `8080` is used\n");
        let texts = vec!["8080".to_owned()];
        let stated: Vec<&str> =
            stated_as_current(&lines, &texts, &[]).map(|l| l.line.as_str()).collect();
        assert_eq!(stated, ["- port `8080` is used"]);
        assert!(stated_as_current(&lines, &texts, &["goal".to_owned()]).next().is_none());
        assert!(only_as_replaced("x9 -> b and x9 => c", "x9"));
        assert!(!only_as_replaced("x9 -> b and x9", "x9"));
        assert!(!only_as_replaced("nothing", "x9"));
    }
}
