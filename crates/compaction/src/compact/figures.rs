//! How a before/after token figure reads in a report: both sides are estimates of the
//! context (the same measure), and a rise is said to be one, never shown as a saving.

/// `"{before} → {after} tokens (estimated context; saves N)"`, or `"… grew by N: {why}"`
/// when `after` is larger.
pub fn token_change(before: u64, after: u64, grew_because: &str) -> String {
    if after <= before {
        format!("{before} → {after} tokens (estimated context; saves {})", before - after)
    } else {
        format!(
            "{before} → {after} tokens (estimated context; grew by {}: {grew_because})",
            after - before
        )
    }
}

/// `"; the last reply's recorded usage was N tokens"` when there is one (a different
/// measure, so it stands apart from the estimates).
pub fn recorded_usage_note(recorded: Option<u64>) -> String {
    recorded.map_or_else(String::new, |tokens| {
        format!("; the last reply's recorded usage was {tokens} tokens")
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_saving_reads_as_one_and_a_rise_says_it_grew() {
        assert_eq!(
            token_change(1000, 400, "x"),
            "1000 → 400 tokens (estimated context; saves 600)"
        );
        assert_eq!(
            token_change(400, 1000, "the summary is longer"),
            "400 → 1000 tokens (estimated context; grew by 600: the summary is longer)"
        );
        assert_eq!(recorded_usage_note(None), "");
        assert_eq!(recorded_usage_note(Some(7)), "; the last reply's recorded usage was 7 tokens");
    }
}
