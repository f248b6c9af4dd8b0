//! Redaction of a parsed JSON value (a tool call's arguments, an MCP tool's input): each key is
//! seen together with its value, so `{"password": "hunter2"}` is redacted as the assignment it
//! is even though neither string holds a secret alone; a random-looking key under a secret
//! name (`{"tokens": {"<token>": …}}`) and a key that is itself a secret are redacted; an
//! image's `data` that decodes to text is redacted as that text.
//!
//! Invariant: the value keeps its shape (the same keys, except secret ones, the same nesting,
//! numbers and booleans); only strings change.

use base64::Engine as _;
use serde_json::{Map, Value};

use super::checks::looks_random;
use super::{REDACTED, Redactor};

/// The longest text read as a JSON document (a longer one is redacted as text only).
const MAX_JSON_TEXT: usize = 1 << 20;

/// Whether a key names a secret (`password`, `api_key`, `clientSecret`, `tokens`, `auth`…).
/// The word for a password, a key or a token in other human languages (as in the rules'
/// names).
const FOREIGN_SECRET_WORDS: &[&str] = &[
    "passwort",
    "kennwort",
    "wachtwoord",
    "lösenord",
    "losenord",
    "passord",
    "adgangskode",
    "salasana",
    "contraseña",
    "contrasena",
    "senha",
    "motdepasse",
    "mot_de_passe",
    "mdp",
    "clave",
    "chave",
    "parola",
    "palavra",
    "contrasinal",
    "пароль",
    "лозинка",
    "hasło",
    "haslo",
    "heslo",
    "geslo",
    "lozinka",
    "jelszó",
    "jelszo",
    "şifre",
    "sifre",
    "parool",
    "salasõna",
    "slaptažodis",
    "κωδικός",
    "סיסמה",
    "مرور",
    "पासवर्ड",
    "密码",
    "密碼",
    "口令",
    "暗証番号",
    "パスワード",
    "비밀번호",
    "암호",
    "mật khẩu",
    "รหัสผ่าน",
    "sandi",
    "laluan",
    "schlüssel",
    "schluessel",
    "clé",
    "токен",
    "ключ",
    "令牌",
    "密钥",
    "秘钥",
    "秘密鍵",
    "トークン",
    "토큰",
    "secreto",
    "segreto",
    "geheimnis",
];

/// The key a member's value is judged under: its own, or, under an object named for secrets
/// (`{"credentials": {"prod": "…"}}`), the object's name, unless the member names something
/// that is not the secret (a user, a host, a type).
fn child_key<'a>(parent: Option<&'a str>, secret_parent: bool, name: &'a str) -> &'a str {
    const NOT_THE_SECRET: &[&str] = &[
        "user", "name", "login", "mail", "host", "url", "uri", "type", "id", "region", "port",
        "endpoint", "scope", "path", "file", "expir", "created", "updated", "date", "time",
    ];
    match parent {
        Some(parent) if secret_parent && !secret_name(name) => {
            let lower = name.to_lowercase();
            if NOT_THE_SECRET.iter().any(|word| lower.contains(word)) { name } else { parent }
        }
        _ => name,
    }
}

fn secret_name(key: &str) -> bool {
    let lower = key.to_lowercase();
    (["pass", "pwd", "secret", "token", "key", "auth", "credential", "cred", "session", "cookie"]
        .iter()
        .any(|word| lower.contains(word))
        && !["bypass", "compass"].iter().any(|word| lower.contains(word)))
        || FOREIGN_SECRET_WORDS.iter().any(|word| lower.contains(word))
        || lower == "pw"
        || lower == "pin"
}

impl Redactor {
    /// `value` with its secrets replaced: every string redacted, each scalar judged with
    /// its key (`"key": "value"` goes through the same rules as an assignment in a text),
    /// secret keys replaced, and an image's text-bearing `data` redacted as text.
    pub fn redact_value(&self, value: &Value) -> Value {
        self.value_under(value, None)
    }

    fn value_under(&self, value: &Value, key: Option<&str>) -> Value {
        match value {
            Value::String(text) => {
                if key == Some("data")
                    && let Some(redacted) = self.redact_base64_text(text)
                {
                    return Value::String(redacted);
                }
                let redacted = self.redact(text);
                match key {
                    Some(key) if redacted == *text => self.pair(key, text),
                    _ => Value::String(redacted.into_owned()),
                }
            }
            Value::Array(items) => {
                let argv = self.argv_redacted(items);
                Value::Array(
                    items
                        .iter()
                        .enumerate()
                        .map(|(index, item)| match (&argv, item) {
                            (Some(argv), Value::String(text)) if argv[index] != *text => {
                                Value::String(argv[index].clone())
                            }
                            _ => self.value_under(item, key),
                        })
                        .collect(),
                )
            }
            Value::Object(fields) => {
                let secret_parent = key.is_some_and(secret_name);
                let mut out = Map::new();
                for (name, item) in fields {
                    let redacted_name = self.redact(name);
                    let name_is_secret = redacted_name != *name
                        || secret_parent && name.len() >= 16 && looks_random(name);
                    let new_name = if name_is_secret {
                        let mut candidate = REDACTED.to_owned();
                        let mut index = 1;
                        while out.contains_key(&candidate) {
                            index += 1;
                            candidate = format!("{REDACTED}-{index}");
                        }
                        candidate
                    } else {
                        name.clone()
                    };
                    out.insert(
                        new_name,
                        self.value_under(item, Some(child_key(key, secret_parent, name))),
                    );
                }
                Value::Object(out)
            }
            Value::Null | Value::Bool(_) | Value::Number(_) => value.clone(),
        }
    }

    /// When `text` is a JSON document (a tool call's arguments or a JSON file as text), the
    /// text with what [`Redactor::redact_value`] finds in its strings (each judged with its
    /// key) replaced where it stands, escaped as the document escapes it; the rest of the
    /// text is unchanged. `None` when the text is not a JSON object or array, or nothing more
    /// is found.
    pub(super) fn redact_json_text(&self, text: &str) -> Option<String> {
        let trimmed = text.trim();
        let document = trimmed.starts_with('{') && trimmed.ends_with('}')
            || trimmed.starts_with('[') && trimmed.ends_with(']');
        if !document || text.len() > MAX_JSON_TEXT {
            return None;
        }
        let value: Value = serde_json::from_str(trimmed).ok()?;
        let mut changed = Vec::new();
        self.changed_strings(&value, None, &mut changed);
        let mut out = text.to_owned();
        for (original, redacted) in changed {
            let secrets: Vec<&str> = match super::views::replaced(&original, &redacted) {
                Some(spans) => spans.into_iter().filter_map(|span| original.get(span)).collect(),
                None => vec![original.as_str()],
            };
            for secret in secrets {
                let escaped = serde_json::to_string(secret).unwrap_or_default();
                let escaped = escaped.trim_matches('"');
                if escaped.len() >= 3 && out.contains(escaped) {
                    out = out.replace(escaped, REDACTED);
                }
            }
        }
        (out != text).then_some(out)
    }

    /// Every string of `value` (keys too) that [`Redactor::redact_value`] changes, with what it
    /// becomes.
    fn changed_strings(&self, value: &Value, key: Option<&str>, out: &mut Vec<(String, String)>) {
        match value {
            Value::String(text) => {
                if let Value::String(redacted) = self.value_under(value, key)
                    && redacted != *text
                {
                    out.push((text.clone(), redacted));
                }
            }
            Value::Array(items) => {
                let argv = self.argv_redacted(items);
                for (index, item) in items.iter().enumerate() {
                    match (&argv, item) {
                        (Some(argv), Value::String(text)) if argv[index] != *text => {
                            out.push((text.clone(), argv[index].clone()));
                        }
                        _ => self.changed_strings(item, key, out),
                    }
                }
            }
            Value::Object(fields) => {
                let secret_parent = key.is_some_and(secret_name);
                for (name, item) in fields {
                    if self.redact(name) != *name
                        || secret_parent && name.len() >= 16 && looks_random(name)
                    {
                        out.push((name.clone(), REDACTED.to_owned()));
                    }
                    self.changed_strings(item, Some(child_key(key, secret_parent, name)), out);
                }
            }
            Value::Null | Value::Bool(_) | Value::Number(_) => {}
        }
    }

    /// An array of strings holding a flag (`["-p", "…"]`, `["mysql", "-uroot", "-p…"]`) is a
    /// command's arguments: the strings joined by spaces are redacted as the command line
    /// they are, and each string gives up what was found in it. `None` when the array is not
    /// such a list or nothing is found.
    fn argv_redacted(&self, items: &[Value]) -> Option<Vec<String>> {
        let strings: Vec<&str> = items.iter().map(Value::as_str).collect::<Option<_>>()?;
        if strings.len() < 2 || !strings.iter().any(|item| item.starts_with('-')) {
            return None;
        }
        let line = strings.join(" ");
        let redacted = self.redact(&line);
        if redacted == line {
            return None;
        }
        let spans = super::views::replaced(&line, &redacted)?;
        let mut out = Vec::with_capacity(strings.len());
        let mut at = 0;
        for item in &strings {
            let range = at..at + item.len();
            at = range.end + 1;
            let mut text = String::new();
            let mut from = range.start;
            for span in spans.iter().filter(|span| span.start < range.end && span.end > range.start)
            {
                let start = span.start.max(range.start);
                text.push_str(line.get(from..start)?);
                text.push_str(REDACTED);
                from = span.end.min(range.end).max(start);
            }
            text.push_str(line.get(from..range.end)?);
            out.push(text);
        }
        Some(out)
    }

    /// A string value judged together with its key, as `"key": "value"`.
    fn pair(&self, key: &str, text: &str) -> Value {
        let keep = Value::String(text.to_owned());
        if !secret_name(key) || text.contains('\n') {
            return keep;
        }
        let quoted = |s: &str| serde_json::to_string(s).unwrap_or_default();
        let line = format!("{}: {}", quoted(key), quoted(text));
        let redacted = self.redact(&line);
        if redacted == line {
            return keep;
        }
        // The value part as the rules left it; a key the rules changed means the value went.
        let prefix = format!("{}: ", quoted(key));
        match redacted.strip_prefix(&prefix).and_then(|rest| serde_json::from_str(rest).ok()) {
            Some(Value::String(value)) => Value::String(value),
            _ => Value::String(REDACTED.to_owned()),
        }
    }

    /// When `data` is base64 of text (a text file carried as an image), the base64 of that
    /// text redacted; `None` for real image data or when nothing was redacted.
    fn redact_base64_text(&self, data: &str) -> Option<String> {
        let engine = base64::engine::general_purpose::STANDARD;
        let bytes = engine.decode(data.trim()).ok()?;
        let text = std::str::from_utf8(&bytes).ok()?;
        if text.chars().any(|c| c.is_control() && !c.is_whitespace()) {
            return None;
        }
        let redacted = self.redact(text);
        (redacted != text).then(|| engine.encode(redacted.as_bytes()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn keys_are_seen_with_their_values() {
        let redactor = Redactor::default();
        let value = json!({"host": "db", "user": "admin", "password": "Tulip!2231maple",
            "api_key": "k7Hq9ZpX2mR4vT8w", "max_tokens": 4096, "token_type": "bearer",
            "tokens": {"Xk9Qm2Lp7Rt4Vw8Zb3Nc6Fd1": {"scope": "read"}}});
        let out = redactor.redact_value(&value);
        assert_eq!(out["host"], "db");
        assert_eq!(out["user"], "admin");
        assert_eq!(out["password"], REDACTED);
        assert_eq!(out["api_key"], REDACTED);
        assert_eq!(out["max_tokens"], 4096);
        assert_eq!(out["token_type"], "bearer");
        assert!(out["tokens"].get("Xk9Qm2Lp7Rt4Vw8Zb3Nc6Fd1").is_none());
        assert_eq!(out["tokens"][REDACTED]["scope"], "read");
    }

    #[test]
    fn command_arguments_and_members_under_a_secret_name_are_redacted() {
        let redactor = Redactor::default();
        let value = json!({"args": ["-u", "root", "-p", "Falcon^2400orbit"],
            "cmd": ["mysql", "-uroot", "-porbit^362lantern"],
            "credentials": {"prod": "Granite^1407harbor", "user": "admin42"},
            "files": ["-r", "src", "dest"]});
        let out = redactor.redact_value(&value);
        assert_eq!(out["args"], json!(["-u", "root", "-p", "[REDACTED]"]));
        assert_eq!(out["cmd"], json!(["mysql", "-uroot", "-p[REDACTED]"]));
        assert_eq!(out["credentials"], json!({"prod": "[REDACTED]", "user": "admin42"}));
        assert_eq!(out["files"], value["files"]);
        let text = value.to_string();
        let redacted = redactor.redact(&text);
        assert!(!redacted.contains("Falcon^2400orbit") && !redacted.contains("Granite^1407"));
    }

    #[test]
    fn a_json_document_as_text_is_redacted_in_place() {
        let redactor = Redactor::default();
        let text = r#"{"command": "$pw = ConvertTo-SecureString \"TVnA6ycvMUoOf\" -AsPlainText", "db_pass": "Tulip!2231maple", "timeout": 60}"#;
        let out = redactor.redact(text).into_owned();
        assert!(!out.contains("TVnA6ycvMUoOf"), "{out}");
        assert!(!out.contains("Tulip!2231maple"), "{out}");
        assert!(
            out.starts_with("{\"command\": \"$pw = ") && out.contains("\"timeout\": 60"),
            "{out}"
        );
        let plain = r#"{"name": "shop", "port": 8080, "tags": ["a", "b"]}"#;
        assert_eq!(redactor.redact(plain), plain);
    }

    #[test]
    fn an_image_that_is_a_text_file_is_redacted_as_text() {
        let engine = base64::engine::general_purpose::STANDARD;
        let data = engine.encode("APP=shop\nDB_PASSWORD=Granite#4410ember\n");
        let out = Redactor::default().redact_value(&json!({"type": "image", "data": data}));
        let decoded = engine.decode(out["data"].as_str().unwrap()).unwrap();
        assert_eq!(String::from_utf8(decoded).unwrap(), "APP=shop\nDB_PASSWORD=[REDACTED]\n");
        let png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";
        let image = json!({"type": "image", "data": png});
        assert_eq!(Redactor::default().redact_value(&image), image);
    }
}
