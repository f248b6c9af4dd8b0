//! Round 22 families of client code: values decoded from a literal, requests of load tests
//! and HTTP clients, and credentials handed to a library's constructor by position.

use base64::Engine as _;

use super::super::families::{B64, Family, Made, hex_of, pick_line, text};
use super::super::values::bare_token;
use super::{any_pw, any_secret, chosen_pw, host, user};
use crate::secrets::families::Carrier;

pub(super) const FAMILIES: &[Family] = &[
    ("encoded-literals-decoded-in-code", |rng| {
        let secret = any_secret(rng);
        let name = user(rng);
        let b64 = B64.encode(&secret);
        let hex = hex_of(secret.as_bytes());
        let (form, line) = match rng.below(9) {
            0 => (b64.clone(), format!("const dbPass = atob(\"{b64}\");")),
            1 => (
                b64.clone(),
                format!("const secret = Buffer.from('{b64}', 'base64').toString('utf8');"),
            ),
            2 => (
                b64.clone(),
                format!(
                    "$pw = [System.Text.Encoding]::UTF8.GetString([Convert]::FromBase64String(\"{b64}\"))\n$cred = New-Object PSCredential(\"{name}\", (ConvertTo-SecureString $pw -AsPlainText -Force))"
                ),
            ),
            3 => (hex.clone(), format!("KEY = binascii.unhexlify(\"{hex}\").decode()")),
            4 => (
                b64.clone(),
                format!(
                    "String pass = new String(Base64.getDecoder().decode(\"{b64}\"), StandardCharsets.UTF_8);"
                ),
            ),
            5 => (
                b64.clone(),
                format!(
                    "raw, _ := base64.StdEncoding.DecodeString(\"{b64}\")\nclient := NewClient(\"{name}\", string(raw))"
                ),
            ),
            6 => (b64.clone(), format!("SMTP_SECRET = Base64.decode64(\"{b64}\")")),
            7 => (
                b64.clone(),
                format!("$token = base64_decode('{b64}');\n$api->authenticate($token);"),
            ),
            _ => (hex.clone(), format!("let key = String::from_utf8(hex::decode(\"{hex}\")?)?;")),
        };
        Made { needles: vec![secret.clone(), form], secret, carrier: Carrier::Text(line) }
    }),
    ("load-test-and-http-client-requests", |rng| {
        let secret = bare_token(rng);
        let at = host(rng);
        let line = pick_line(
            rng,
            vec![
                format!(
                    "import http from 'k6/http';\n\nexport default function () {{\n  const params = {{ headers: {{ 'X-Orders-Key': '{secret}' }} }};\n  http.get('https://{at}/api/orders', params);\n}}"
                ),
                format!(
                    "class OrdersUser(HttpUser):\n    wait_time = between(1, 3)\n\n    def on_start(self):\n        self.client.headers.update({{\"Authorization\": \"Token {secret}\"}})"
                ),
                format!(
                    "  val httpProtocol = http\n    .baseUrl(\"https://{at}\")\n    .header(\"X-Api-Token\", \"{secret}\")\n    .acceptHeader(\"application/json\")"
                ),
                format!(
                    "<HeaderManager guiclass=\"HeaderPanel\" testclass=\"HeaderManager\" testname=\"HTTP Header Manager\">\n  <collectionProp name=\"HeaderManager.headers\">\n    <elementProp name=\"\" elementType=\"Header\">\n      <stringProp name=\"Header.name\">X-Access-Token</stringProp>\n      <stringProp name=\"Header.value\">{secret}</stringProp>\n    </elementProp>\n  </collectionProp>\n</HeaderManager>"
                ),
                format!(
                    "req, _ := http.NewRequest(\"GET\", \"https://{at}/v1/orders\", nil)\nreq.Header.Set(\"X-Service-Key\", \"{secret}\")"
                ),
                format!(
                    "HttpRequest request = HttpRequest.newBuilder(URI.create(\"https://{at}/v1/orders\"))\n    .header(\"X-Gateway-Secret\", \"{secret}\")\n    .GET()\n    .build();"
                ),
                format!(
                    "config:\n  target: \"https://{at}\"\n  phases:\n    - duration: 60\n      arrivalRate: 5\n  defaults:\n    headers:\n      x-tenant-key: \"{secret}\""
                ),
                format!(
                    "$ mitmdump -r orders.flow --flow-detail 2\n10.0.0.8:52144: GET https://{at}/v1/orders\n    Host: {at}\n    X-Orders-Key: {secret}\n    Accept: */*\n << 200 OK 1.2k"
                ),
            ],
        );
        text(secret, line)
    }),
    ("credentials-handed-to-client-constructors", |rng| {
        let secret = if rng.chance(0.75) { any_pw(rng) } else { chosen_pw(rng) };
        let (name, at) = (user(rng), host(rng));
        let line = pick_line(
            rng,
            vec![
                format!(
                    "resp = requests.get(\"https://{at}/api\", auth=HTTPBasicAuth(\"{name}\", \"{secret}\"))"
                ),
                format!(
                    "r = requests.post(url, json=payload, auth=(\"{name}\", \"{secret}\"), timeout=10)"
                ),
                format!(
                    "async with aiohttp.ClientSession(auth=aiohttp.BasicAuth(\"{name}\", \"{secret}\")) as session:"
                ),
                format!(
                    "credsProvider.setCredentials(new AuthScope(\"{at}\", 443),\n    new UsernamePasswordCredentials(\"{name}\", \"{secret}\".toCharArray()));"
                ),
                format!("req.SetBasicAuth(\"{name}\", \"{secret}\")"),
                format!(
                    "var credential = new ClientSecretCredential(tenantId, \"{name}\", \"{secret}\");"
                ),
                format!(
                    "with smtplib.SMTP_SSL(\"{at}\", 465) as s:\n    s.login(\"{name}\", \"{secret}\")"
                ),
                format!(
                    "box = imaplib.IMAP4_SSL(\"{at}\")\nbox.login(\"{name}\", \"{secret}\")\nbox.select(\"INBOX\")"
                ),
                format!(
                    "let auth = reqwest::Client::new().get(url).basic_auth(\"{name}\", Some(\"{secret}\"));"
                ),
            ],
        );
        text(secret, line)
    }),
];
