//! Key material and tokens by their shape: JWK private members, BIP39 mnemonics, Nostr and
//! Bitcoin keys, Solana keypairs, PEM escaped in state, and prefixed provider tokens.

use super::*;

pub(super) const FAMILIES: &[Family] = &[
    ("jwk-private-members", |rng| {
        let d = base64url_bytes(rng, 32);
        let jwk = match rng.below(3) {
            0 => json!({"kty": "EC", "crv": "P-256", "x": base64url_bytes(rng, 32),
                "y": base64url_bytes(rng, 32), "d": d}),
            1 => json!({"kty": "OKP", "crv": "Ed25519", "x": base64url_bytes(rng, 32), "d": d}),
            _ => json!({"kty": "RSA", "n": base64url_bytes(rng, 128), "e": "AQAB", "d": d,
                "p": base64url_bytes(rng, 64), "q": base64url_bytes(rng, 64),
                "dp": base64url_bytes(rng, 64), "dq": base64url_bytes(rng, 64),
                "qi": base64url_bytes(rng, 64)}),
        };
        let mut needles = vec![d.clone()];
        for member in ["p", "q", "dp", "dq", "qi"] {
            if let Some(value) = jwk.get(member).and_then(Value::as_str) {
                needles.push(value.to_owned());
            }
        }
        let line = if rng.chance(0.5) {
            serde_json::to_string_pretty(&jwk).unwrap_or_default()
        } else {
            format!("{{\"keys\":[{}]}}", jwk)
        };
        Made { secret: d, needles, carrier: Carrier::Text(line) }
    }),
    ("bip39-mnemonic", |rng| {
        let words = if rng.chance(0.5) { 12 } else { 24 };
        let phrase = mnemonic(rng, words);
        let line = pick_line(
            rng,
            vec![
                format!("seed phrase: {phrase}"),
                format!("MNEMONIC=\"{phrase}\""),
                phrase.clone(),
                format!("wallet.restore(\"{phrase}\")"),
            ],
        );
        text(phrase, line)
    }),
    ("nostr-private-key", |rng| {
        let key = nsec(rng);
        let line = pick_line(
            rng,
            vec![
                format!("my nostr key {key}"),
                format!("{{\"relays\":[\"wss://relay.damus.io\"],\"key\":\"{key}\"}}"),
                format!("nak event --sec {key} -c hello"),
                key.clone(),
            ],
        );
        text(key, line)
    }),
    ("bitcoin-wif", |rng| {
        let key = wif(rng);
        let line = pick_line(
            rng,
            vec![
                format!("bitcoin-cli importprivkey {key} \"cold\" false"),
                format!("WIF: {key}"),
                format!("restored wallet from {key}"),
                key.clone(),
            ],
        );
        text(key, line)
    }),
    ("solana-keypair-array", |rng| {
        let array = solana_keypair(rng);
        let line = pick_line(
            rng,
            vec![
                format!("$ cat ~/.config/solana/id.json\n{array}"),
                format!("const secret = Uint8Array.from({array});"),
                format!("{{\"wallet\": {array}}}"),
                array.clone(),
            ],
        );
        let inner = array.trim_start_matches('[').trim_end_matches(']').to_owned();
        Made { secret: inner.clone(), needles: vec![inner], carrier: Carrier::Text(line) }
    }),
    ("pem-escaped-in-state", |rng| {
        let body = pem_body(rng, 6);
        let kind = rng.pick(&["RSA PRIVATE KEY", "PRIVATE KEY", "EC PRIVATE KEY"]);
        let pem = format!("-----BEGIN {kind}-----\n{}\n-----END {kind}-----\n", body.join("\n"));
        let once = serde_json::to_string(&pem).unwrap_or_default();
        let line = match rng.below(3) {
            0 => format!("{{\"attributes\": {{\"private_key_pem\": {once}}}}}"),
            1 => {
                let twice = serde_json::to_string(&once).unwrap_or_default();
                format!("\"instances\": [{{\"attributes_flat\": {twice}}}]")
            }
            _ => format!("TLS_KEY=\"{}\"", pem.replace('\n', " ")),
        };
        Made { secret: body[1].clone(), needles: body, carrier: Carrier::Text(line) }
    }),
    ("prefixed-tokens-underscore", |rng| {
        let tok = format!(
            "{}_{}{}",
            prefix(rng),
            rng.pick(&["", "live_", "v2_", "secret_", "prod_"]),
            token_between(rng, 28, 48)
        );
        let line = pick_line(
            rng,
            vec![
                format!("use {tok} for the staging account"),
                format!("client = Vendor(\"{tok}\")"),
                format!("-H 'x-key: {tok}'"),
                tok.clone(),
            ],
        );
        text(tok, line)
    }),
    ("prefixed-tokens-dash", |rng| {
        let tok = format!("{}-{}", prefix(rng), token_between(rng, 32, 56));
        let line = pick_line(
            rng,
            vec![
                format!("the key is {tok}"),
                format!("export VENDOR_KEY={tok}"),
                format!("{{\"model\": \"m1\", \"key\": \"{tok}\"}}"),
                format!("Found credentials: {tok}"),
            ],
        );
        text(tok, line)
    }),
    ("prefixed-tokens-upper", |rng| {
        let tok = format!(
            "{}{}{}",
            prefix(rng).to_ascii_uppercase(),
            rng.pick(&["_", "-", "."]),
            token_between(rng, 32, 48)
        );
        let line = pick_line(
            rng,
            vec![format!("token: {tok}"), format!("login with {tok}"), format!("[ci] using {tok}")],
        );
        text(tok, line)
    }),
];
