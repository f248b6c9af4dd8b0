//! The invariants on arbitrary messages, and the rules that the evaluation of real pi
//! sessions asked for, one file per kind: [`turns`] (interrupts, branch calls, rejected
//! proposals, real constraints, the goal), [`errors`] (runner counts, other ecosystems'
//! errors, moves and deletions, log levels, long commands), [`rounds`] (successive
//! summaries, pi-written and gate-written previous summaries, corrections across a
//! boundary, turns that ended, instruction files) and [`room`] (notes and items past a cap
//! under the budget). This file holds the invariants on arbitrary messages.

mod errors;
mod room;
mod rounds;
mod turns;

use super::*;
use pretty_assertions::assert_eq;

fn arbitrary_message() -> impl proptest::strategy::Strategy<Value = AgentMessage> {
    use proptest::prelude::*;
    let text: BoxedStrategy<String> =
        "([a-z]{1,8}|Always|Never|I'll|Next,|`[a-z_:]{1,12}`|error\\[E0[0-9]{3}\\]:|[.!?\\n ]|修复|不要|。|é){0,40}"
            .boxed();
    let name = prop_oneof![Just("edit"), Just("write"), Just("read"), Just("bash"), Just("grep")];
    prop_oneof![
        text.clone().prop_map(AgentMessage::user_text),
        text.clone().prop_map(|text| assistant(&text, &[])),
        (text.clone(), name.clone(), 0u8..4).prop_map(|(text, name, id)| {
            let id = format!("c{id}");
            assistant(&text, &[(id.as_str(), name, json!({"path": text, "command": text}))])
        }),
        (text.clone(), name, 0u8..4, any::<bool>())
            .prop_map(|(text, name, id, error)| { result(&format!("c{id}"), name, &text, error) }),
        (text.clone(), text, -1i64..3)
            .prop_map(|(command, output, code)| { bash_run(&command, &output, code) }),
    ]
}

proptest::proptest! {
    // Generating the transcripts dominates the cost; 64 cases keep the suite quick.
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]
    #[test]
    fn any_transcript_fits_the_budget_and_is_deterministic(
        messages in proptest::collection::vec(arbitrary_message(), 0..40),
        previous in proptest::option::of("(## Goal|### Blocked|- `cargo test` failed|[a-z ]{0,20}|\n){0,12}"),
        max_chars in 0usize..3_000,
        kind in proptest::sample::select(vec![OfflineKind::History, OfflineKind::TurnPrefix, OfflineKind::Branch]),
    ) {
        let input = OfflineInput {
            after: &[],
            kind,
            messages: &messages,
            previous_summary: previous.as_deref(),
            instructions: Some("error handling"),
            pins: &[],
            max_chars,
        };
        let summary = summarize_offline(&input);
        proptest::prop_assert!(char_len(&summary) <= max_chars);
        proptest::prop_assert_eq!(&summary, &summarize_offline(&input));
        if max_chars >= char_len(&render(&[])) {
            assert_structure(&summary);
        }
    }
}

#[test]
fn empty_input_gives_the_bare_structure() {
    let summary = summarize(&[]);
    assert_structure(&summary);
    assert_eq!(summary, "## Goal\n");
}
