//! Dev and test tallies of a generated hostile suite: instance `i` (in the order generated)
//! is in the test part when `i % 3 == 0`, else in the dev part. A miss of the dev part is
//! printed and kept in full; one of the test part only by its number.

/// Dev and test tallies of one class; misses of the dev part kept in full.
#[derive(Default)]
pub struct Tally {
    dev: (usize, usize),
    test: (usize, usize),
    dev_misses: Vec<String>,
    test_misses: Vec<usize>,
}

impl Tally {
    pub fn count(&mut self, index: usize, miss: Option<String>) {
        let test = index.is_multiple_of(3);
        let part = if test { &mut self.test } else { &mut self.dev };
        part.1 += 1;
        match miss {
            None => part.0 += 1,
            Some(_) if test => {
                println!("#{index}: a miss of the test part");
                self.test_misses.push(index);
            }
            Some(miss) => {
                println!("#{index}: {miss}");
                self.dev_misses.push(format!("#{index}: {miss}"));
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
}
