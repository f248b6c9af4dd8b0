//! Parsing our own rendered summary is lossless: every bullet of every section comes back
//! as the same text in the same section, so render -> parse -> render is a fixed point
//! (issue 27, "decay across rounds": a fact carried from the previous summary keeps its
//! wording and its subject).

use super::*;
use pretty_assertions::assert_eq;
use proptest::prelude::*;

/// Bullet texts, with the openings and shapes that mean something to the parser: list
/// markers, task boxes, placeholders, bold labels, rules, fences, headings and tags.
fn item_text() -> BoxedStrategy<String> {
    let opening = prop_oneof![
        Just(""),
        Just("- "),
        Just("* "),
        Just("1. "),
        Just("[x] "),
        Just("[ ] "),
        Just("(none) "),
        Just("(none yet: "),
        Just("**"),
        Just("---"),
        Just("```"),
        Just("## "),
        Just("# "),
        Just("<read-files>"),
        Just("Commands run: "),
        Just("Last error (unresolved): "),
    ];
    let word = "([a-z]{1,8}|`[a-z_./]{1,12}`|→|«|»|:|\\(|\\)|\\*\\*|修复|é)";
    (opening, proptest::collection::vec(word, 0..8), any::<bool>())
        .prop_map(|(opening, words, bold_end)| {
            let mut text = format!("{opening}{}", words.join(" "));
            if bold_end {
                text.push_str("**");
            }
            one_line(&text)
        })
        .boxed()
}

fn rendered(items: &[(Section, String)]) -> (Sections, String) {
    let mut sections = Sections::default();
    for (section, text) in items {
        sections.push(*section, text.clone(), PRIORITY_DONE_EDIT);
    }
    let text = render(&sections.items);
    (sections, text)
}

proptest::proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]
    #[test]
    fn render_parse_render_is_a_fixed_point_for_every_section(
        items in proptest::collection::vec(
            (proptest::sample::select(SECTIONS.to_vec()), item_text()),
            0..24,
        ),
    ) {
        let (sections, first) = rendered(&items);
        let parsed = PreviousSummary::parse(&first);
        for section in SECTIONS {
            let expected: Vec<&str> = sections
                .items
                .iter()
                .filter(|item| item.section == section)
                .map(|item| item.text.as_str())
                .collect();
            prop_assert_eq!(parsed.section(section), expected.as_slice(), "{}", first);
        }
        let again: Vec<(Section, String)> = SECTIONS
            .iter()
            .flat_map(|&section| parsed.section(section).iter().map(move |text| (section, text.clone())))
            .collect();
        prop_assert_eq!(rendered(&again).1, first);
    }
}

#[test]
fn bullets_that_look_like_markup_come_back_as_written() {
    let items = [
        (Section::Done, "[x] ticked in the user's own words".to_owned()),
        (Section::NextSteps, "(none of the tests are flaky) rerun `cargo test`".to_owned()),
        (Section::Critical, "**bold label**".to_owned()),
        (Section::Decisions, "---".to_owned()),
    ];
    let (_, text) = rendered(&items);
    let parsed = PreviousSummary::parse(&text);
    for (section, item) in &items {
        assert_eq!(parsed.section(*section), std::slice::from_ref(item), "{text}");
    }
}
