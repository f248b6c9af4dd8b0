//! The parts of the corpus the secret suites report apart, besides dev and test: each
//! round's own families, the families before it, and the test part as it was drawn before it
//! (the held-out figure comparable across rounds). One list, so every suite reports the same
//! parts under the same names.

use super::*;

/// A part of the corpus reported apart.
pub struct ReportPart {
    /// The name the suites print.
    pub name: &'static str,
    /// Only samples of this part (`Some(true)`: test), or of both.
    test: Option<bool>,
    families: Vec<&'static str>,
    /// Whether the part holds the samples of `families` or those of every other family.
    inside: bool,
}

impl ReportPart {
    /// Whether `sample` belongs to the part.
    pub fn holds(&self, sample: &Sample) -> bool {
        self.test.is_none_or(|test| sample.test == test)
            && self.families.contains(&sample.family) == self.inside
    }
}

/// Every part reported apart, in the order the suites print them.
pub fn report_parts() -> Vec<ReportPart> {
    let part = |name, test, families: &Vec<&'static str>, inside| ReportPart {
        name,
        test,
        families: families.clone(),
        inside,
    };
    let (round4, round9) = (round4_family_names(), round9_family_names());
    let (round10, round11) = (round10_family_names(), round11_family_names());
    let (round12, round13) = (round12_family_names(), round13_family_names());
    let (round14, round15) = (round14_family_names(), round15_family_names());
    let (round16, round17) = (round16_family_names(), round17_family_names());
    let (round18, round19) = (round18_family_names(), round19_family_names());
    let (round20, round21) = (round20_family_names(), round21_family_names());
    let (round22, round23) = (round22_family_names(), round23_family_names());
    vec![
        part("test, earlier split", None, &earlier_test_families(), true),
        part("test, round 4 families", Some(true), &round4, true),
        part("test, round 4 split", None, &before_round9_test_families(), true),
        part("dev, round 9 families", Some(false), &round9, true),
        part("test, round 9 families", Some(true), &round9, true),
        part("dev, families before round 10", Some(false), &round10, false),
        part("test, families before round 10", Some(true), &round10, false),
        part("test, round 9 split", None, &before_round10_test_families(), true),
        part("dev, round 10 families", Some(false), &round10, true),
        part("test, round 10 families", Some(true), &round10, true),
        part("dev, families before round 11", Some(false), &round11, false),
        part("test, families before round 11", Some(true), &round11, false),
        part("test, round 10 split", None, &before_round11_test_families(), true),
        part("dev, round 11 families", Some(false), &round11, true),
        part("test, round 11 families", Some(true), &round11, true),
        part("dev, families before round 12", Some(false), &round12, false),
        part("test, families before round 12", Some(true), &round12, false),
        part("test, round 11 split", None, &before_round12_test_families(), true),
        part("dev, round 12 families", Some(false), &round12, true),
        part("test, round 12 families", Some(true), &round12, true),
        part("dev, families before round 13", Some(false), &round13, false),
        part("test, families before round 13", Some(true), &round13, false),
        part("test, round 12 split", None, &before_round13_test_families(), true),
        part("dev, round 13 families", Some(false), &round13, true),
        part("test, round 13 families", Some(true), &round13, true),
        part("dev, families before round 14", Some(false), &round14, false),
        part("test, families before round 14", Some(true), &round14, false),
        part("test, round 13 split", None, &before_round14_test_families(), true),
        part("dev, round 14 families", Some(false), &round14, true),
        part("test, round 14 families", Some(true), &round14, true),
        part("dev, families before round 15", Some(false), &round15, false),
        part("test, families before round 15", Some(true), &round15, false),
        part("test, round 14 split", None, &before_round15_test_families(), true),
        part("dev, round 15 families", Some(false), &round15, true),
        part("test, round 15 families", Some(true), &round15, true),
        part("dev, families before round 16", Some(false), &round16, false),
        part("test, families before round 16", Some(true), &round16, false),
        part("test, round 15 split", None, &before_round16_test_families(), true),
        part("dev, round 16 families", Some(false), &round16, true),
        part("test, round 16 families", Some(true), &round16, true),
        part("dev, families before round 17", Some(false), &round17, false),
        part("test, families before round 17", Some(true), &round17, false),
        part("test, round 16 split", None, &before_round17_test_families(), true),
        part("dev, round 17 families", Some(false), &round17, true),
        part("test, round 17 families", Some(true), &round17, true),
        part("dev, families before round 18", Some(false), &round18, false),
        part("test, families before round 18", Some(true), &round18, false),
        part("test, round 17 split", None, &before_round18_test_families(), true),
        part("dev, round 18 families", Some(false), &round18, true),
        part("test, round 18 families", Some(true), &round18, true),
        part("dev, families before round 19", Some(false), &round19, false),
        part("test, families before round 19", Some(true), &round19, false),
        part("test, round 18 split", None, &before_round19_test_families(), true),
        part("dev, round 19 families", Some(false), &round19, true),
        part("test, round 19 families", Some(true), &round19, true),
        part("dev, families before round 20", Some(false), &round20, false),
        part("test, families before round 20", Some(true), &round20, false),
        part("test, round 19 split", None, &before_round20_test_families(), true),
        part("dev, round 20 families", Some(false), &round20, true),
        part("test, round 20 families", Some(true), &round20, true),
        part("dev, families before round 21", Some(false), &round21, false),
        part("test, families before round 21", Some(true), &round21, false),
        part("test, round 20 split", None, &before_round21_test_families(), true),
        part("dev, round 21 families", Some(false), &round21, true),
        part("test, round 21 families", Some(true), &round21, true),
        part("dev, families before round 22", Some(false), &round22, false),
        part("test, families before round 22", Some(true), &round22, false),
        part("test, round 21 split", None, &before_round22_test_families(), true),
        part("dev, round 22 families", Some(false), &round22, true),
        part("test, round 22 families", Some(true), &round22, true),
        part("dev, families before round 23", Some(false), &round23, false),
        part("test, families before round 23", Some(true), &round23, false),
        part("test, round 22 split", None, &before_round23_test_families(), true),
        part("dev, round 23 families", Some(false), &round23, true),
        part("test, round 23 families", Some(true), &round23, true),
    ]
}
