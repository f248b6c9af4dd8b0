//! Dev and test tallies of a generated hostile suite: instance `i` (in the order generated)
//! is in the test part when `i % 3` is the suite's test residue (0 unless the suite fixed
//! another before its fixes), else in the dev part. A miss of the dev part is printed and
//! kept in full; one of the test part only by its number, unless the suite's variable for
//! showing them is set.

/// Dev and test tallies of one class; misses of the dev part kept in full.
#[derive(Default)]
pub struct Tally {
    dev: (usize, usize),
    test: (usize, usize),
    dev_misses: Vec<String>,
    dev_miss_indices: Vec<usize>,
    test_misses: Vec<usize>,
    /// `i % 3` of the test part's instances.
    test_residue: usize,
    /// An environment variable that, when set, prints the test part's misses in full.
    show_test: Option<&'static str>,
}

impl Tally {
    /// A tally whose test part is the instances with `i % 3 == residue`, whose misses
    /// `show_test` (an environment variable) prints in full when set.
    pub fn split(residue: usize, show_test: &'static str) -> Self {
        Tally { test_residue: residue, show_test: Some(show_test), ..Tally::default() }
    }

    pub fn count(&mut self, index: usize, miss: Option<String>) {
        let test = index % 3 == self.test_residue;
        let part = if test { &mut self.test } else { &mut self.dev };
        part.1 += 1;
        match miss {
            None => part.0 += 1,
            Some(miss) if test => {
                if self.show_test.is_some_and(|name| std::env::var_os(name).is_some()) {
                    println!("#{index} (test): {miss}");
                } else {
                    println!("#{index}: a miss of the test part");
                }
                self.test_misses.push(index);
            }
            Some(miss) => {
                println!("#{index}: {miss}");
                self.dev_misses.push(format!("#{index}: {miss}"));
                self.dev_miss_indices.push(index);
            }
        }
    }

    /// Prints the counts and fails with every miss.
    pub fn report(&self, class: &str) {
        println!(
            "{class}: dev {}/{}, test {}/{}",
            self.dev.0, self.dev.1, self.test.0, self.test.1
        );
        assert!(
            self.dev_misses.is_empty() && self.test_misses.is_empty(),
            "{class}: {} dev misses, test misses at {:?}:\n{}",
            self.dev_misses.len(),
            self.test_misses,
            self.dev_misses.join("\n")
        );
    }

    /// Prints the counts and fails with every miss that is not in `known` (the instances, by
    /// index, that a round recorded as out of reach), and with every instance of `known`
    /// that now holds: the list stays exact, so a fix or a new miss shows.
    pub fn report_known(&self, class: &str, known: &[usize]) {
        println!(
            "{class}: dev {}/{}, test {}/{} ({} known misses: {known:?})",
            self.dev.0,
            self.dev.1,
            self.test.0,
            self.test.1,
            known.len()
        );
        let misses: Vec<usize> =
            self.dev_miss_indices.iter().chain(&self.test_misses).copied().collect();
        let new: Vec<String> = self
            .dev_misses
            .iter()
            .zip(&self.dev_miss_indices)
            .filter(|(_, index)| !known.contains(index))
            .map(|(miss, _)| miss.clone())
            .collect();
        let new_test: Vec<&usize> =
            self.test_misses.iter().filter(|index| !known.contains(index)).collect();
        let now_holding: Vec<&usize> =
            known.iter().filter(|index| !misses.contains(index)).collect();
        assert!(
            new.is_empty() && new_test.is_empty() && now_holding.is_empty(),
            "{class}: {} new dev misses, new test misses at {new_test:?}, known misses that now \
             hold at {now_holding:?} (update the list):\n{}",
            new.len(),
            new.join("\n")
        );
    }
}
