//! The token-estimator corpus: short messages by language/kind, shared by the benchmark and
//! the calibration example. Each `corpus/<kind>.txt` holds messages separated by lines of
//! `----`. Sources: English, European languages in Latin script (German, French, Spanish,
//! Italian, Portuguese, Polish, Czech, Turkish), other alphabets (Russian, Ukrainian, Greek,
//! Arabic, Hebrew), Chinese, Japanese, Korean, emoji, symbols (box drawing, arrows, math,
//! rare ideographs outside the BMP), Python and TypeScript texts written for this corpus;
//! Rust chunks of this crate's own source; JSON from `corpus/make_json.py`; the code with
//! line numbers as grep and `cat -n` show it (`*-lines`) from `corpus/make_numbered.py`.
#![allow(clippy::unwrap_used, clippy::expect_used, dead_code)]

/// (kind, file contents) for every corpus file.
pub const CORPUS_FILES: &[(&str, &str)] = &[
    ("english", include_str!("corpus/english.txt")),
    ("european", include_str!("corpus/european.txt")),
    ("alphabets", include_str!("corpus/alphabets.txt")),
    ("rust", include_str!("corpus/rust.txt")),
    ("typescript", include_str!("corpus/typescript.txt")),
    ("python", include_str!("corpus/python.txt")),
    ("json", include_str!("corpus/json.txt")),
    ("rust-lines", include_str!("corpus/numbered_rust.txt")),
    ("ts-lines", include_str!("corpus/numbered_typescript.txt")),
    ("py-lines", include_str!("corpus/numbered_python.txt")),
    ("chinese", include_str!("corpus/chinese.txt")),
    ("japanese", include_str!("corpus/japanese.txt")),
    ("korean", include_str!("corpus/korean.txt")),
    ("emoji", include_str!("corpus/emoji.txt")),
    ("symbols", include_str!("corpus/symbols.txt")),
];

/// Every message of the corpus with its kind.
pub fn messages() -> Vec<(&'static str, &'static str)> {
    let mut out = Vec::new();
    for &(kind, text) in CORPUS_FILES {
        for message in text.split("\n----\n") {
            let message = message.trim_end_matches('\n');
            if !message.is_empty() {
                out.push((kind, message));
            }
        }
    }
    out
}

/// The messages of `kind` (every message when `None`), joined by line feeds.
pub fn joined(kind: Option<&str>) -> String {
    let texts: Vec<&str> = messages()
        .into_iter()
        .filter(|(k, _)| kind.is_none_or(|kind| *k == kind))
        .map(|(_, text)| text)
        .collect();
    texts.join("\n")
}
