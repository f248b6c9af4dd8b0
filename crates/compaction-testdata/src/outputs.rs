//! Tool and shell outputs of a requested size: source code, `cargo test` runs, compiler
//! errors and search listings.

use crate::random::Rng;
use crate::vocabulary::{MODULES, TYPES, VERBS, WORDS};

/// Rust-like source text of about `bytes` bytes.
pub(crate) fn code(rng: &mut Rng, bytes: usize) -> String {
    let mut out = String::with_capacity(bytes + 80);
    while out.len() < bytes {
        let word = *rng.pick(WORDS);
        let verb = *rng.pick(VERBS);
        let ty = *rng.pick(TYPES);
        let line = match rng.below(9) {
            0 => format!("pub fn {verb}_{word}(input: &{ty}) -> Result<{ty}, Error> {{\n"),
            1 => format!("    let {word} = input.{verb}_{word}()?;\n"),
            2 => format!(
                "    if {word}.is_empty() {{\n        return Err(Error::Empty{ty});\n    }}\n"
            ),
            3 => format!(
                "    for {word} in &self.{word}s {{\n        total += {word}.len();\n    }}\n"
            ),
            4 => format!("    Ok({ty}::new({word}))\n}}\n\n"),
            5 => format!("/// {} the {word} of a {ty}.\n", capitalize(verb)),
            6 => format!("    self.{word} = self.{word}.saturating_add({});\n", rng.below(64)),
            7 => format!("#[derive(Debug, Clone)]\npub struct {ty} {{\n    {word}: usize,\n}}\n\n"),
            _ => format!("    debug_assert!(self.{word} <= self.limit, \"{word} over limit\");\n"),
        };
        out.push_str(&line);
    }
    out
}

fn capitalize(word: &str) -> String {
    let mut chars = word.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

/// `cargo test` output of about `bytes` bytes; failing when `failed` > 0.
pub(crate) fn test_output(rng: &mut Rng, bytes: usize, failed: usize) -> String {
    let mut out = String::from(
        "   Compiling compaction-core v0.1.0 (/home/dev/project/crates/compaction-core)\n    \
         Finished `test` profile [unoptimized + debuginfo] target(s) in 4.21s\n     \
         Running unittests src/lib.rs (target/debug/deps/compaction_core-3f9a1c2b7d4e5f60)\n\n",
    );
    let mut names = Vec::new();
    while out.len() < bytes.saturating_sub(300) || names.len() < 3 {
        let name = format!("{}::tests::{}_{}", rng.pick(MODULES), rng.pick(VERBS), rng.pick(WORDS));
        out.push_str(&format!("test {name} ... ok\n"));
        names.push(name);
    }
    let failures: Vec<&String> = names.iter().take(failed).collect();
    for name in &failures {
        out.push_str(&format!("test {name} ... FAILED\n"));
    }
    if failed > 0 {
        out.push_str("\nfailures:\n\n");
        for name in &failures {
            out.push_str(&format!(
                "---- {name} stdout ----\nthread '{name}' panicked at src/{}.rs:{}:{}:\nassertion `left == right` failed\n  left: {}\n right: {}\n\n",
                rng.pick(MODULES),
                rng.range(10, 900),
                rng.range(5, 40),
                rng.below(50),
                rng.below(50) + 50,
            ));
        }
        out.push_str(&format!(
            "\ntest result: FAILED. {} passed; {failed} failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.{:02}s\n",
            names.len(),
            rng.below(99)
        ));
    } else {
        out.push_str(&format!(
            "\ntest result: ok. {} passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.{:02}s\n",
            names.len(),
            rng.below(99)
        ));
    }
    out
}

/// `cargo build` errors of about `bytes` bytes.
pub(crate) fn compiler_errors(rng: &mut Rng, bytes: usize, file: &str) -> String {
    let mut out = String::new();
    let mut count = 0;
    while out.len() < bytes || count == 0 {
        let line = rng.range(10, 700);
        let word = *rng.pick(WORDS);
        let ty = *rng.pick(TYPES);
        out.push_str(&format!(
            "error[E0308]: mismatched types\n  --> {file}:{line}:{col}\n   |\n{line:>3} |     let {word}: usize = self.{word}.clone();\n   |                  -----   ^^^^^^^^^^^^^^^^^^ expected `usize`, found `{ty}`\n   |                  |\n   |                  expected due to this\n\n",
            col = rng.range(5, 40),
        ));
        count += 1;
    }
    out.push_str(&format!(
        "error: could not compile `compaction-core` (lib) due to {count} previous error{}\n",
        if count == 1 { "" } else { "s" }
    ));
    out
}

/// Any other shell output of about `bytes` bytes.
pub(crate) fn listing(rng: &mut Rng, bytes: usize) -> String {
    let mut out = String::new();
    while out.len() < bytes || out.is_empty() {
        out.push_str(&format!(
            "src/{}/{}_{}.rs:{}:    let {} = {}_{}(&{});\n",
            rng.pick(MODULES),
            rng.pick(VERBS),
            rng.pick(WORDS),
            rng.range(1, 900),
            rng.pick(WORDS),
            rng.pick(VERBS),
            rng.pick(WORDS),
            rng.pick(WORDS),
        ));
    }
    out
}
