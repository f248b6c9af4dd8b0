//! The corpus's own tests: its size, its split, and what counts as a leak.

use super::*;

#[test]
fn the_corpus_is_large_and_split_by_family() {
    let samples = corpus();
    let families: std::collections::BTreeSet<&str> = samples.iter().map(|s| s.family).collect();
    let secrets: std::collections::BTreeSet<(&str, &str)> =
        samples.iter().map(|s| (s.family, s.secret.as_str())).collect();
    assert!(families.len() >= 100, "{} families", families.len());
    assert!(secrets.len() >= 600, "{} secrets", secrets.len());
    let test = test_families();
    assert!(test.len() * 3 >= families.len());
    // Adding the round 4 families moved no held-out family into dev (whose misses are
    // listed).
    let earlier = earlier_test_families();
    assert!(earlier.iter().all(|name| test.contains(name)), "a test family became dev");
    assert!(round4_family_names().len() >= 20);
    // Nor did adding round 9's.
    let before_round9 = before_round9_test_families();
    assert!(before_round9.iter().all(|name| test.contains(name)), "a test family became dev");
    assert!(round9_family_names().len() >= 30);
    // Nor did adding round 10's.
    let before_round10 = before_round10_test_families();
    assert!(before_round10.iter().all(|name| test.contains(name)), "a test family became dev");
    assert!(round10_family_names().len() >= 30);
    // Nor did adding round 11's.
    let before_round11 = before_round11_test_families();
    assert!(before_round11.iter().all(|name| test.contains(name)), "a test family became dev");
    assert!(round11_family_names().len() >= 30);
    // Nor did adding round 12's.
    let before_round12 = before_round12_test_families();
    assert!(before_round12.iter().all(|name| test.contains(name)), "a test family became dev");
    assert!(round12_family_names().len() >= 30);
    // Nor did adding round 13's.
    let before_round13 = before_round13_test_families();
    assert!(before_round13.iter().all(|name| test.contains(name)), "a test family became dev");
    assert!(round13_family_names().len() >= 24);
    // Nor did adding round 14's.
    let before_round14 = before_round14_test_families();
    assert!(before_round14.iter().all(|name| test.contains(name)), "a test family became dev");
    assert!(round14_family_names().len() >= 24);
    // Nor did adding round 15's.
    let before_round15 = before_round15_test_families();
    assert!(before_round15.iter().all(|name| test.contains(name)), "a test family became dev");
    assert!(round15_family_names().len() >= 20);
    // Nor did adding round 16's.
    let before_round16 = before_round16_test_families();
    assert!(before_round16.iter().all(|name| test.contains(name)), "a test family became dev");
    assert!(round16_family_names().len() >= 14);
    // Nor did adding round 17's.
    let before_round17 = before_round17_test_families();
    assert!(before_round17.iter().all(|name| test.contains(name)), "a test family became dev");
    assert!(round17_family_names().len() >= 12);
    // Nor did adding round 18's.
    let before_round18 = before_round18_test_families();
    assert!(before_round18.iter().all(|name| test.contains(name)), "a test family became dev");
    assert!(round18_family_names().len() >= 12);
    // Nor did adding round 19's: every family held out before round 19 is still test.
    let before_round19 = before_round19_test_families();
    assert!(before_round19.iter().all(|name| test.contains(name)), "a test family became dev");
    assert!(before_round18.iter().all(|name| before_round19.contains(name)));
    assert!(round19_family_names().len() >= 15);
    // Nor did adding round 20's: every family held out before round 20 is still test.
    let before_round20 = before_round20_test_families();
    assert!(before_round20.iter().all(|name| test.contains(name)), "a test family became dev");
    assert!(before_round19.iter().all(|name| before_round20.contains(name)));
    assert!(round20_family_names().len() >= 13);
    // Nor did adding round 21's: every family held out before round 21 is still test.
    let before_round21 = before_round21_test_families();
    assert!(before_round21.iter().all(|name| test.contains(name)), "a test family became dev");
    assert!(before_round20.iter().all(|name| before_round21.contains(name)));
    assert!(round21_family_names().len() >= 12);
    // Nor did adding round 22's: every family held out before round 22 is still test.
    let before_round22 = before_round22_test_families();
    assert!(before_round22.iter().all(|name| test.contains(name)), "a test family became dev");
    assert!(before_round21.iter().all(|name| before_round22.contains(name)));
    assert!(round22_family_names().len() >= 13);
    // Nor did adding round 23's: every family held out before round 23 is still test.
    let before_round23 = before_round23_test_families();
    assert!(before_round23.iter().all(|name| test.contains(name)), "a test family became dev");
    assert!(before_round22.iter().all(|name| before_round23.contains(name)));
    assert!(round23_family_names().len() >= 12);
    let names = family_names();
    let distinct: std::collections::BTreeSet<&str> = names.iter().copied().collect();
    assert_eq!(distinct.len(), names.len(), "two families share a name");
    for sample in &samples {
        assert_eq!(sample.test, test.contains(&sample.family));
        assert!(
            sample.leaks_into(&sample.text()) || matches!(sample.plant, Plant::Image(_)),
            "{} {} does not hold its secret",
            sample.family,
            sample.shape
        );
    }
}

#[test]
fn leaks_finds_parts_of_a_secret() {
    assert!(leaks("x Abcdef12345 y", "Abcdef123456789"));
    assert!(!leaks("x [REDACTED] y", "Abcdef123456789"));
    assert!(leaks("one two three four", "zero one two three four five"));
    assert!(!leaks("one two three", "zero one two three four five"));
    let samples = corpus();
    let first = samples[0].text();
    let found = leaked(&samples[..3], &first);
    assert!(found[0]);
    // A part two secrets share (`password=` in two hex dumps) charges neither.
    let sample = |secret: &str, needle: &str| Sample {
        family: "f",
        test: false,
        shape: "encoded-hex".into(),
        secret: secret.into(),
        needles: vec![needle.into()],
        plant: Plant::Text(String::new()),
    };
    let two = [sample("A1", "70617373776f72643d4131"), sample("B2", "70617373776f72643d4232")];
    assert_eq!(leaked(&two, "70617373776f72643d4232"), [false, true]);
    assert_eq!(leaked(&two, "x 70617373776f72 y"), [false, false]);
}
