//! Round 18 families of dumps and encodings: text dumps of captured traffic, access and audit
//! logs that carry a credential, hex and byte dumps, secrets written as arrays of character
//! codes, and labels with full-width punctuation.

use base64::Engine as _;

use super::super::families::{B64, Carrier, Family, Made, hex_of, pick_line, text};
use super::super::values::bare_token;
use super::{chosen_pw, host, user};

pub(super) const FAMILIES: &[Family] = &[
    ("captured-traffic-text-dumps", |rng| {
        let pw = chosen_pw(rng);
        let (name, at) = (user(rng), host(rng));
        let plain = B64.encode(format!("\0{name}\0{pw}"));
        let (needles, line) = match rng.below(7) {
            0 => (
                vec![pw.clone()],
                format!(
                    "T 10.0.3.7:51514 -> {at}:21 [AP] #14\n  USER {name}..\n#\nT 10.0.3.7:51514 -> {at}:21 [AP] #16\n  PASS {pw}.."
                ),
            ),
            1 => (
                vec![pw.clone()],
                format!("*2\\r\\n$4\\r\\nAUTH\\r\\n${}\\r\\n{pw}\\r\\n", pw.len()),
            ),
            2 => (
                vec![pw.clone()],
                format!(
                    "12:01:33.104 IP 10.0.3.7.49822 > {at}.80: Flags [P.], length 58: HTTP: POST /login HTTP/1.1\nE..b..@.@.....\nuser={name}&pass={pw}"
                ),
            ),
            3 => (
                vec![pw.clone()],
                format!("10.000.003.007.50122-{at}.00143: a001 LOGIN {name} \"{pw}\""),
            ),
            4 => (
                vec![pw.clone(), plain.clone()],
                format!(
                    "C: EHLO client\nS: 250-AUTH PLAIN LOGIN\nC: AUTH PLAIN {plain}\nS: 235 2.7.0 Authentication successful"
                ),
            ),
            5 => (
                vec![pw.clone()],
                format!(
                    "$ tshark -r cap.pcapng -Y pop -T fields -e pop.request\nUSER {name}\nPASS {pw}"
                ),
            ),
            _ => (
                vec![pw.clone()],
                format!(
                    "12/07/26 10:02:11 tcp 10.0.3.7.3313 -> {at}.5432 (postgresql)\n{name} {pw} app"
                ),
            ),
        };
        Made { needles, secret: pw, carrier: Carrier::Text(line) }
    }),
    ("access-and-audit-logs-carrying-credentials", |rng| {
        let pw = chosen_pw(rng);
        let tok = bare_token(rng);
        let name = user(rng);
        let command = format!("mysql\0-u{name}\0-p{pw}");
        let title = hex_of(command.as_bytes()).to_ascii_uppercase();
        let (secret, needles, line) = match rng.below(8) {
            0 => (
                tok.clone(),
                vec![tok.clone()],
                format!(
                    "10.0.3.7 - - [07/Dec/2026:10:02:11 +0000] \"GET /api/v2/export?format=csv&apikey={tok} HTTP/1.1\" 200 5120 \"-\" \"curl/8.5.0\""
                ),
            ),
            1 => (
                pw.clone(),
                vec![pw.clone()],
                format!(
                    "type=EXECVE msg=audit(1765101731.104:2231): argc=3 a0=\"mysql\" a1=\"-u{name}\" a2=\"-p{pw}\""
                ),
            ),
            2 => (
                pw.clone(),
                vec![pw.clone(), title.clone()],
                format!("type=PROCTITLE msg=audit(1765101731.104:2231): proctitle={title}"),
            ),
            3 => (
                pw.clone(),
                vec![pw.clone()],
                format!(
                    "Dec  7 10:02:11 web01 sudo:     jdoe : TTY=pts/0 ; PWD=/home/jdoe ; USER=root ; COMMAND=/usr/bin/mysqladmin -u root password {pw}"
                ),
            ),
            4 => (
                pw.clone(),
                vec![pw.clone()],
                format!(
                    "2026-12-07 10:02:11.104 UTC [2231] {name}@app LOG:  statement: ALTER USER {name} WITH PASSWORD '{pw}'"
                ),
            ),
            5 => (
                pw.clone(),
                vec![pw.clone()],
                format!(
                    "$ sudo systemctl restart app\n[sudo] password for jdoe:\n$ {pw}\n-bash: {pw}: command not found"
                ),
            ),
            6 => (
                pw.clone(),
                vec![pw.clone()],
                format!(
                    "An account was successfully created.\n...\nProcess Information:\n\tNew Process Name:\tC:\\Windows\\System32\\net.exe\n\tProcess Command Line:\tnet user {name} {pw} /add"
                ),
            ),
            _ => (
                tok.clone(),
                vec![tok.clone()],
                format!(
                    "Dec 07 10:02:11 app01 app[2231]: level=debug msg=\"outgoing request\" method=POST url=https://api.example.net/v1/send header.x-api-key={tok}"
                ),
            ),
        };
        Made { needles, secret, carrier: Carrier::Text(line) }
    }),
    ("hex-and-byte-dumps-of-credentials", |rng| {
        let pw = chosen_pw(rng);
        let name = user(rng);
        let hex = hex_of(pw.as_bytes());
        let upper = hex.to_ascii_uppercase();
        let spaced: String = pw.bytes().map(|b| format!(" {b:02x}")).collect();
        let (needles, line) = match rng.below(6) {
            0 => (
                vec![hex.clone()],
                format!(
                    "app=# SELECT config FROM settings WHERE id = 3;\n config\n--------\n \\x{}{hex}0a",
                    hex_of(b"DB_PASSWORD=")
                ),
            ),
            1 => (
                vec![hex.clone()],
                format!(
                    "$ xxd -p -c 256 .env\n{}{hex}0a",
                    hex_of(format!("DB_USER={name}\nDB_PASS=").as_bytes())
                ),
            ),
            2 => (
                vec![spaced.trim_start().to_owned()],
                format!("$ printf '%s' \"$PGPASSWORD\" | od -An -tx1\n{spaced}"),
            ),
            3 => (
                vec![upper.clone()],
                format!("INSERT INTO creds (name, secret) VALUES ('{name}', UNHEX('{upper}'));"),
            ),
            4 => (vec![hex.clone()], format!("password = bytes.fromhex('{hex}').decode()")),
            _ => (
                vec![hex.clone()],
                format!("Frame 12: tcp payload (hex stream): {}{hex}0d0a", hex_of(b"PASS ")),
            ),
        };
        Made { needles, secret: pw, carrier: Carrier::Text(line) }
    }),
    ("secrets-as-character-code-arrays", |rng| {
        let pw = chosen_pw(rng);
        let decimal: Vec<String> = pw.bytes().map(|b| b.to_string()).collect();
        let hexes: Vec<String> = pw.bytes().map(|b| format!("0x{b:02x}")).collect();
        let quoted: Vec<String> = pw.chars().map(|c| format!("'{c}'")).collect();
        let (needle, line) = match rng.below(7) {
            0 => {
                let list = decimal.join(", ");
                (list.clone(), format!("const dbPassword = String.fromCharCode({list});"))
            }
            1 => {
                let list = hexes.join(", ");
                (list.clone(), format!("API_SECRET = bytes([{list}]).decode()"))
            }
            2 => {
                let list = quoted.join(", ");
                (list.clone(), format!("private static final char[] KEYSTORE_PASS = {{{list}}};"))
            }
            3 => {
                let list = hexes.join(", ");
                (list.clone(), format!("static const unsigned char smtp_pw[] = {{{list}, 0x00}};"))
            }
            4 => {
                let list = decimal.join(", ");
                (list.clone(), format!("password := string([]byte{{{list}}})"))
            }
            5 => {
                let list = decimal.join(",");
                (list.clone(), format!("$pw = -join ([char[]]({list}))"))
            }
            _ => {
                let list = decimal.join(", ");
                (list.clone(), format!("secret = [{list}].pack('c*')"))
            }
        };
        Made { needles: vec![pw.clone(), needle], secret: pw, carrier: Carrier::Text(line) }
    }),
    ("labels-with-full-width-punctuation", |rng| {
        let pw = chosen_pw(rng);
        let name = user(rng);
        let line = pick_line(
            rng,
            vec![
                format!("服务器：10.0.3.7　账号：{name}　密码：{pw}"),
                format!("パスワード：{pw}（変更しないでください）"),
                format!("비밀번호：{pw}"),
                format!("数据库口令＝{pw}"),
                format!("管理员密码【{pw}】"),
                format!("ログイン情報\nユーザー名：{name}\nパスワード「{pw}」"),
                format!("Wi‑Fi 密碼：{pw}"),
                format!("初始密码为：{pw}，请首次登录后修改。"),
            ],
        );
        text(pw, line)
    }),
];
