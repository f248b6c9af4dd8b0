//! Secrets in carriers and encodings: webhook URLs, JSON keys and values, a text file as
//! image data, base64, base64url, hex, URL and JSON escaping, PowerShell, VPN keys, package
//! registries, monitoring, form posts, chat and hex key literals.

use super::*;

pub(super) const FAMILIES: &[Family] = &[
    ("chat-webhook-urls", |rng| {
        let tok = token_between(rng, 24, 40);
        let url = match rng.below(5) {
            0 => format!(
                "https://chat.googleapis.com/v1/spaces/AAAA{}/messages?key={}&token={tok}",
                token(rng, 7),
                token(rng, 39)
            ),
            1 => format!(
                "https://corp.webhook.office.com/webhookb2/{}@{}/IncomingWebhook/{tok}/{}",
                uuid(rng),
                uuid(rng),
                uuid(rng)
            ),
            2 => format!("https://mattermost.example.com/hooks/{tok}"),
            3 => format!(
                "https://hooks.zapier.com/hooks/catch/{}/{tok}/",
                rng.range(100_000, 999_999)
            ),
            _ => format!("https://rocket.example.org/hooks/{}/{tok}", token(rng, 17)),
        };
        let line = pick_line(
            rng,
            vec![
                format!("curl -X POST -d '{{\"text\":\"deploy done\"}}' {url}"),
                format!("WEBHOOK={url}"),
                format!("notify: {url}"),
            ],
        );
        text(tok, line)
    }),
    ("json-secret-named-keys", |rng| {
        let pw = password(rng);
        let key = rng.pick(&[
            "password",
            "api_key",
            "apiKey",
            "secret",
            "db_pass",
            "accessToken",
            "credentials",
        ]);
        let args = match rng.below(3) {
            0 => json!({"host": "db.internal", "user": "admin", key.to_string(): pw}),
            1 => {
                json!({"connection": {"url": "postgres://db/app", key.to_string(): pw}, "query": "select 1"})
            }
            _ => json!({"name": "login", "input": {key.to_string(): pw, "remember": true}}),
        };
        Made { secret: pw.clone(), needles: vec![pw], carrier: Carrier::Json(args) }
    }),
    ("json-secret-as-key", |rng| {
        let tok = format!("{}{}", token(rng, 8), token_between(rng, 24, 32));
        let args = match rng.below(3) {
            0 => json!({"tokens": {tok.clone(): {"scope": "read", "owner": "ci"}}}),
            1 => json!({"apiKeys": {tok.clone(): "admin"}}),
            _ => json!({"action": "revoke", "sessions": {tok.clone(): true}}),
        };
        Made { secret: tok.clone(), needles: vec![tok], carrier: Carrier::Json(args) }
    }),
    ("text-file-as-image-data", |rng| {
        let pw = password(rng);
        let file = env_file(rng, &pw);
        let blob = B64.encode(&file);
        Made { secret: pw.clone(), needles: vec![pw, blob.clone()], carrier: Carrier::Image(blob) }
    }),
    ("env-file-base64", |rng| {
        let pw = password(rng);
        let blob = B64.encode(env_file(rng, &pw));
        let line = pick_line(
            rng,
            vec![
                format!("echo {blob} | base64 -d > .env"),
                format!("data:\n  .env: {blob}"),
                format!("ENV_B64={blob}"),
            ],
        );
        Made { secret: pw.clone(), needles: vec![pw, blob], carrier: Carrier::Text(line) }
    }),
    ("env-file-base64url", |rng| {
        let pw = password(rng);
        let blob = B64URL.encode(env_file(rng, &pw));
        let line = pick_line(
            rng,
            vec![
                format!("config blob: {blob}"),
                format!("https://deploy.example.com/apply?cfg={blob}"),
                format!("\"settings\": \"{blob}\""),
            ],
        );
        Made { secret: pw.clone(), needles: vec![pw, blob], carrier: Carrier::Text(line) }
    }),
    ("hex-encoded-config", |rng| {
        let pw = password(rng);
        let file = env_file(rng, &pw);
        let inner = pick_line(
            rng,
            vec![format!("password={pw}"), format!("{{\"api_key\":\"{pw}\"}}"), file],
        );
        let hex = hex_of(inner.as_bytes());
        let line = pick_line(
            rng,
            vec![
                format!("payload (hex): {hex}"),
                format!("xxd -r -p <<< {hex}"),
                format!("blob=0x{hex}"),
            ],
        );
        Made { secret: pw.clone(), needles: vec![pw, hex], carrier: Carrier::Text(line) }
    }),
    ("url-encoded-form", |rng| {
        let pw = password(rng);
        let form = pick_line(
            rng,
            vec![
                format!("username=bob&password={}", url_encode(&pw)),
                format!("grant_type=client_credentials&client_secret={}", url_encode(&pw)),
            ],
        );
        let line = pick_line(
            rng,
            vec![
                format!("POST /oauth/token body={}", url_encode(&form)),
                format!("next=%2Flogin%3F{}", url_encode(&form)),
                format!(
                    "redirect=https%3A%2F%2Fapp%2Fcb%3Ftoken%3D{}",
                    url_encode(&url_encode(&pw))
                ),
            ],
        );
        Made {
            secret: pw.clone(),
            needles: vec![pw.clone(), url_encode(&pw)],
            carrier: Carrier::Text(line),
        }
    }),
    ("php-escaped-json", |rng| {
        let pw = password(rng).replace(['/', '\\', '"', '@', ':'], "z");
        let line = pick_line(
            rng,
            vec![
                format!("{{\"dsn\":\"mysql:\\/\\/app:{pw}@db.internal\\/shop\"}}"),
                format!("{{\"callback\":\"https:\\/\\/api.example.com\\/v1\\/cb?token={pw}\"}}"),
                format!("{{\"smtp\":\"smtp:\\/\\/mailer:{pw}@mail.example.com:587\"}}"),
            ],
        );
        text(pw, line)
    }),
    ("double-escaped-json", |rng| {
        let pw = password(rng).replace(['\\', '"'], "");
        let inner = json!({"user": "svc", "password": pw}).to_string();
        let once = serde_json::to_string(&inner).unwrap_or_default();
        let twice = serde_json::to_string(&once).unwrap_or_default();
        let line = pick_line(
            rng,
            vec![
                format!("{{\"body\": {once}}}"),
                format!("{{\"event\": {twice}}}"),
                format!("log: request={once}"),
            ],
        );
        text(pw, line)
    }),
    ("powershell-credentials", |rng| {
        let pw = password(rng).replace(['"', '\'', '$', '`'], "");
        let line = pick_line(
            rng,
            vec![
                format!("$pw = ConvertTo-SecureString \"{pw}\" -AsPlainText -Force"),
                format!(
                    "New-LocalUser -Name svc -Password (ConvertTo-SecureString '{pw}' -AsPlainText -Force)"
                ),
                format!(
                    "Invoke-Sqlcmd -ServerInstance db -Username sa -Password '{pw}' -Query 'SELECT 1'"
                ),
                format!(
                    "$cred = New-Object PSCredential('CORP\\svc', (ConvertTo-SecureString -String \"{pw}\" -AsPlainText -Force))"
                ),
            ],
        );
        text(pw, line)
    }),
    ("vpn-private-keys", |rng| {
        let key = base64_bytes(rng, 32);
        let public = base64_bytes(rng, 32);
        let line = pick_line(
            rng,
            vec![
                format!("[Interface]\nAddress = 10.8.0.2/24\nPrivateKey = {key}\nDNS = 1.1.1.1"),
                format!("[Peer]\nPublicKey = {public}\nPresharedKey = {key}"),
                format!("wg set wg0 private-key <(echo {key})"),
            ],
        );
        text(key, line)
    }),
    ("package-registry-auth", |rng| {
        let tok = token_between(rng, 30, 44);
        let line = pick_line(
            rng,
            vec![
                format!("//registry.npmjs.org/:_authToken={tok}"),
                format!("[pypi]\nusername = __token__\npassword = {tok}"),
                format!("//npm.pkg.example.com/:_password={}", B64.encode(&tok)),
                format!("cargo login {tok}"),
                format!("gem push pkg.gem --key {tok}"),
            ],
        );
        let mut needles = vec![tok.clone()];
        needles.push(B64.encode(&tok));
        Made { secret: tok, needles, carrier: Carrier::Text(line) }
    }),
    ("snmp-and-monitoring", |rng| {
        let pw = password(rng).replace(' ', "");
        let line = pick_line(
            rng,
            vec![
                format!("snmpwalk -v2c -c {pw} 10.0.0.1 system"),
                format!("snmpget -v3 -u monitor -l authPriv -a SHA -A {pw} -x AES -X {pw} host"),
                format!("zabbix_sender -z zbx --tls-psk-identity x --tls-psk {pw}"),
            ],
        );
        text(pw, line)
    }),
    ("form-posts", |rng| {
        let pw = password(rng).replace(['&', '\'', '"'], "");
        let line = pick_line(
            rng,
            vec![
                format!("curl -d \"username=bob&password={pw}\" https://app/login"),
                format!("curl --data-urlencode 'client_secret={pw}' https://idp/token"),
                format!("http POST :8000/login user=bob pass={pw}"),
                format!("requests.post(url, data={{\"user\": \"bob\", \"pwd\": \"{pw}\"}})"),
            ],
        );
        text(pw, line)
    }),
    ("passwords-in-chat", |rng| {
        let pw = password(rng);
        let line = pick_line(
            rng,
            vec![
                format!("my password for the staging box is {pw}"),
                format!("use {pw} as the admin password"),
                format!("the passphrase: {pw}"),
                format!("creds are bob / {pw}"),
                format!("login: admin, pass: {pw}"),
            ],
        );
        text(pw, line)
    }),
    ("private-key-hex-literals", |rng| {
        let key = rng.hex(64);
        let line = pick_line(
            rng,
            vec![
                format!("PRIVATE_KEY=0x{key}"),
                format!("const wallet = new Wallet(\"0x{key}\");"),
                format!("cast send --private-key 0x{key} 0xdead 'f()'"),
                format!("signer_key: \"{key}\""),
            ],
        );
        text(key, line)
    }),
];
