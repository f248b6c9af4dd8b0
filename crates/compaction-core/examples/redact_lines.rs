//! Redacts each line of stdin with the built-in rules and prints the lines that changed,
//! before and after (for studying what the rules find; never run it on real secrets you do
//! not want on screen). A `⏎` in a line stands for a line break.
//!
//! `cargo run -p compaction-core --example redact_lines < lines.txt`

use std::io::BufRead as _;

use compaction_core::serialize::Redactor;

fn main() {
    let redactor = Redactor::default();
    let stdin = std::io::stdin();
    for line in stdin.lock().lines().map_while(Result::ok) {
        let line = line.replace('⏎', "\n");
        let out = redactor.redact(&line);
        if out != line {
            println!("- {line}\n+ {out}");
        } else {
            println!("= {line}");
        }
    }
}
