//! Round 10 families that tools, logs and people write.

use serde_json::json;

use super::super::families::{Carrier, Family, Made, pick_line, text};
use super::super::values::{bytes, pem_body, token, token_between};
use super::{b64, b64_random, from_alphabet, plain_pw, with_forms};

const BASE32: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
const LOWER: &[u8] = b"abcdefghijklmnopqrstuvwxyz";
const LOWER_DIGITS: &[u8] = b"abcdefghijklmnopqrstuvwxyz0123456789";
const B64URL_CHARS: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

pub(super) const FAMILIES: &[Family] = &[
    ("nats-creds-and-nkeys", |rng| {
        let seed = format!("SU{}", from_alphabet(rng, BASE32, 56));
        let line = pick_line(
            rng,
            vec![
                format!(
                    "-----BEGIN NATS USER JWT-----\neyJ0eXAiOiJKV1QiLCJhbGciOiJlZDI1NTE5LW5rZXkifQ.e30.sig\n------END NATS USER JWT------\n\n-----BEGIN USER NKEY SEED-----\n{seed}\n------END USER NKEY SEED------"
                ),
                format!("nats pub orders.new '{{}}' --nkey-seed {seed}"),
                format!(
                    "authorization {{\n  users = [ {{ nkey: UDXU4RCSJNZOIQHZNWXHXORDPRTGNJAHAHFRGZNEEJCPQTT2M7NLCNF4, seed: \"{seed}\" }} ]\n}}"
                ),
                format!("NATS_NKEY_SEED={seed}"),
            ],
        );
        text(seed, line)
    }),
    ("kafka-sasl-jaas", |rng| {
        let pw = plain_pw(rng);
        let line = pick_line(
            rng,
            vec![
                format!(
                    "sasl.mechanism=SCRAM-SHA-512\nsasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required username=\"app\" password=\"{pw}\";"
                ),
                format!(
                    "KafkaClient {{\n  org.apache.kafka.common.security.plain.PlainLoginModule required\n  username=\"app\"\n  password=\"{pw}\";\n}};"
                ),
                format!(
                    "kafka-configs --bootstrap-server kafka:9092 --alter --add-config 'SCRAM-SHA-256=[iterations=8192,password={pw}]' --entity-type users --entity-name app"
                ),
                format!(
                    "KAFKA_SASL_PASSWORD={pw} kcat -b kafka:9093 -X security.protocol=SASL_SSL -X sasl.username=app -L"
                ),
                format!(
                    "kcat -b kafka:9093 -X sasl.mechanisms=PLAIN -X sasl.username=app -X sasl.password={pw} -L"
                ),
            ],
        );
        text(pw, line)
    }),
    ("secret-manager-service-tokens", |rng| {
        let (tok, prefix) = match rng.below(4) {
            0 => (from_alphabet(rng, B64URL_CHARS, 90), "hvs."),
            1 => (token(rng, 40), "dp.st.prd."),
            2 => (from_alphabet(rng, B64URL_CHARS, 120), "ops_eyJ"),
            _ => (token(rng, 24), "hvb."),
        };
        let secret = format!("{prefix}{tok}");
        let line = pick_line(
            rng,
            vec![
                format!("export VAULT_TOKEN={secret}"),
                format!("doppler run --token {secret} -- ./server"),
                format!("OP_SERVICE_ACCOUNT_TOKEN=\"{secret}\" op read op://prod/db/password"),
                format!("vault login -method=token token={secret}"),
                format!(
                    "{{\"auth\": {{\"client_token\": \"{secret}\", \"lease_duration\": 2764800}}}}"
                ),
            ],
        );
        text(secret, line)
    }),
    ("paas-deploy-tokens", |rng| {
        let secret = match rng.below(5) {
            0 => format!("FlyV1 fm2_{}", from_alphabet(rng, B64URL_CHARS, 80)),
            1 => format!("rnd_{}", token(rng, 32)),
            2 => format!("nfp_{}", token(rng, 36)),
            3 => token(rng, 24),
            _ => from_alphabet(rng, LOWER_DIGITS, 40),
        };
        let line = pick_line(
            rng,
            vec![
                format!("fly deploy --access-token \"{secret}\""),
                format!("RENDER_API_KEY={secret} render services list"),
                format!("netlify deploy --prod --auth {secret}"),
                format!("vercel --token {secret} --prod"),
                format!("railway up --service api # RAILWAY_TOKEN={secret}"),
                format!("CLOUDFLARE_API_TOKEN={secret} wrangler deploy"),
            ],
        );
        text(secret, line)
    }),
    ("error-tracker-dsns", |rng| {
        let key = from_alphabet(rng, b"0123456789abcdef", 32);
        let line = pick_line(
            rng,
            vec![
                format!(
                    "Sentry.init({{ dsn: \"https://{key}@o44721.ingest.us.sentry.io/4507812\" }});"
                ),
                format!("SENTRY_DSN=https://{key}@sentry.acme.dev/12"),
                format!(
                    "sentry_sdk.init(dsn=\"https://{key}@o1.ingest.sentry.io/5\", traces_sample_rate=0.2)"
                ),
                format!("DD_API_KEY={key} DD_SITE=datadoghq.eu ./agent run"),
                format!("honeycomb:\n  write_key: {key}\n  dataset: api"),
            ],
        );
        text(key, line)
    }),
    ("oauth-client-json", |rng| {
        let secret = format!("GOCSPX-{}", from_alphabet(rng, B64URL_CHARS, 28));
        let other = token_between(rng, 32, 44);
        let (secret, value) = match rng.below(3) {
            0 => (
                secret.clone(),
                json!({"installed": {"client_id": "1234-abc.apps.googleusercontent.com",
                    "project_id": "shop-prod", "auth_uri": "https://accounts.google.com/o/oauth2/auth",
                    "token_uri": "https://oauth2.googleapis.com/token", "client_secret": secret,
                    "redirect_uris": ["http://localhost"]}}),
            ),
            1 => (
                other.clone(),
                json!({"web": {"client_id": "shop-web", "clientSecret": other, "issuer": "https://id.acme.dev"}}),
            ),
            _ => (
                other.clone(),
                json!({"type": "authorized_user", "client_id": "764086051850-6qr4p6gpi6hn506pt8ejuq83di341hur.apps.googleusercontent.com",
                    "client_secret": "d-FL95Q19q7MQmFpd7hHD0Ty", "refresh_token": format!("1//0g{other}")}),
            ),
        };
        Made { needles: vec![secret.clone()], secret, carrier: Carrier::Json(value) }
    }),
    ("oauth-token-responses", |rng| {
        let tok = from_alphabet(rng, B64URL_CHARS, 64);
        let line = pick_line(
            rng,
            vec![
                format!(
                    "HTTP/1.1 200 OK\nContent-Type: application/json\n\n{{\"access_token\":\"{tok}\",\"token_type\":\"Bearer\",\"expires_in\":3599}}"
                ),
                format!(
                    "{{\"token_type\":\"bearer\",\"refresh_token\":\"{tok}\",\"scope\":\"read write\"}}"
                ),
                format!(
                    "curl -d grant_type=refresh_token -d refresh_token={tok} https://id.acme.dev/oauth/token"
                ),
                format!("access_token={tok}&token_type=bearer&expires_in=7200"),
            ],
        );
        text(tok, line)
    }),
    ("recovery-and-backup-codes", |rng| {
        let seed = from_alphabet(rng, BASE32, 32);
        let codes: Vec<String> = (0..8)
            .map(|_| {
                format!(
                    "{}-{}",
                    from_alphabet(rng, LOWER_DIGITS, 5),
                    from_alphabet(rng, LOWER_DIGITS, 5)
                )
            })
            .collect();
        match rng.below(3) {
            0 => text(seed.clone(), format!("Two-factor backup\nSecret key: {seed}\nIssuer: Acme")),
            1 => text(
                codes[0].clone(),
                format!("Your recovery codes (keep them safe):\n{}", codes.join("\n")),
            ),
            _ => text(
                seed.clone(),
                format!(
                    "{{\"services\":[{{\"name\":\"ops@acme.dev\",\"otp\":{{\"secret\":\"{seed}\",\"digits\":6}}}}]}}"
                ),
            ),
        }
    }),
    ("kerberos-and-dpapi-blobs", |rng| {
        let blob = b64_random(rng, 96);
        let hex: String = bytes(rng, 80).iter().map(|b| format!("{b:02X}")).collect();
        match rng.below(4) {
            0 => text(blob.clone(), format!("KRB5_KEYTAB_B64={blob}")),
            1 => text(blob.clone(), format!("echo '{blob}' | base64 -d > /etc/krb5.keytab")),
            2 => text(
                hex.clone(),
                format!(
                    "full address:s:rdp.acme.dev\nusername:s:ACME\\svc\npassword 51:b:01000000D08C9DDF0115D1118C7A00C04FC297EB{hex}"
                ),
            ),
            _ => text(blob.clone(), format!("$protected = \"AQAAANCMnd8BFdERjHoAwE/Cl+s{blob}\"")),
        }
    }),
    ("kubeconfig-users", |rng| {
        let tok = from_alphabet(rng, B64URL_CHARS, 60);
        let key_data = b64(&format!(
            "-----BEGIN EC PRIVATE KEY-----\n{}\n-----END EC PRIVATE KEY-----\n",
            pem_body(rng, 2).join("\n")
        ));
        match rng.below(3) {
            0 => text(
                tok.clone(),
                format!("users:\n- name: ci\n  user:\n    token: {tok}\ncontexts: []"),
            ),
            1 => with_forms(
                key_data.clone(),
                vec![],
                format!(
                    "users:\n- name: admin\n  user:\n    client-certificate-data: LS0tLS1CRUdJTg==\n    client-key-data: {key_data}"
                ),
            ),
            _ => text(
                tok.clone(),
                format!("kubectl --token={tok} --server=https://k8s.acme.dev get pods"),
            ),
        }
    }),
    ("ci-variable-syntaxes", |rng| {
        let pw = plain_pw(rng);
        let line = pick_line(
            rng,
            vec![
                format!("echo \"##vso[task.setvariable variable=dbPassword;issecret=true]{pw}\""),
                format!("echo \"::add-mask::{pw}\"\necho \"DB_PASS={pw}\" >> \"$GITHUB_ENV\""),
                format!(
                    "variables:\n  DEPLOY_PASSWORD:\n    value: \"{pw}\"\n    description: prod"
                ),
                format!("buildkite-agent secret set DB_PASSWORD \"{pw}\""),
                format!("circleci context store-secret org acme prod DB_PASSWORD <<< \"{pw}\""),
                format!("glab variable set REGISTRY_PASSWORD \"{pw}\" --masked"),
            ],
        );
        text(pw, line)
    }),
    ("heredoc-env-writes", |rng| {
        let pw = plain_pw(rng);
        let tok = token_between(rng, 30, 40);
        let (secret, line) = match rng.below(3) {
            0 => {
                (pw.clone(), format!("cat > .env <<'EOF'\nNODE_ENV=production\nDB_PASS={pw}\nEOF"))
            }
            1 => (
                tok.clone(),
                format!(
                    "tee /etc/app/secrets.ini >/dev/null <<EOF\n[upstream]\ntoken = {tok}\nEOF"
                ),
            ),
            _ => (
                pw.clone(),
                format!(
                    "kubectl apply -f - <<EOF\napiVersion: v1\nkind: ConfigMap\ndata:\n  SMTP_PASSWORD: \"{pw}\"\nEOF"
                ),
            ),
        };
        text(secret, line)
    }),
    ("diff-hunks", |rng| {
        let pw = plain_pw(rng);
        let tok = token_between(rng, 30, 40);
        let (secret, line) = match rng.below(3) {
            0 => (
                pw.clone(),
                format!(
                    "diff --git a/config/prod.yml b/config/prod.yml\n@@ -3,3 +3,3 @@ database:\n   user: app\n-  password: changeme\n+  password: {pw}\n   pool: 5"
                ),
            ),
            1 => (
                tok.clone(),
                format!(
                    "--- a/.env\n+++ b/.env\n@@ -1,2 +1,2 @@\n-API_TOKEN=\n+API_TOKEN={tok}\n LOG_LEVEL=info"
                ),
            ),
            _ => (
                tok.clone(),
                format!(
                    "@@ -10,7 +10,7 @@ const client = new Client({{\n-  apiKey: process.env.KEY,\n+  apiKey: \"{tok}\",\n   timeout: 5000,"
                ),
            ),
        };
        text(secret, line)
    }),
    ("structured-log-lines", |rng| {
        let pw = plain_pw(rng);
        let tok = token_between(rng, 30, 40);
        let (secret, line) = match rng.below(4) {
            0 => (
                tok.clone(),
                format!(
                    "2025-11-03T08:14:22.391Z INFO  http: request method=GET path=/v1/orders auth_token={tok} status=200 dur=12ms"
                ),
            ),
            1 => (
                pw.clone(),
                format!(
                    "{{\"ts\":\"2025-11-03T08:14:22Z\",\"level\":\"debug\",\"msg\":\"connecting\",\"user\":\"app\",\"pass\":\"{pw}\"}}"
                ),
            ),
            2 => (
                tok.clone(),
                format!(
                    "Nov 03 08:14:22 web1 api[2211]: DEBUG outgoing headers: {{'X-Auth-Token': '{tok}', 'Accept': '*/*'}}"
                ),
            ),
            _ => (
                pw.clone(),
                format!(
                    "[2025-11-03 08:14:22,391] WARN  db.pool - retrying with credentials app/{pw} (attempt 2)"
                ),
            ),
        };
        text(secret, line)
    }),
    ("stack-trace-locals", |rng| {
        let pw = plain_pw(rng);
        let line = pick_line(
            rng,
            vec![
                format!(
                    "Traceback (most recent call last):\n  File \"app.py\", line 12, in connect\n    conn = psycopg.connect(dsn)\n    dsn = 'postgresql://app:{pw}@db:5432/shop'\npsycopg.OperationalError: connection refused"
                ),
                format!(
                    "panic: dial failed\n\ngoroutine 1 [running]:\nmain.connect({{Host:\"db\", User:\"app\", Password:\"{pw}\"}})\n\t/src/main.go:41 +0x1d"
                ),
                format!(
                    "Exception in thread \"main\" java.sql.SQLException: Access denied\n\tat Db.open(Db.java:33) [user=app, password={pw}]"
                ),
                format!(
                    "Error: connect ECONNREFUSED\n    at Object.<anonymous> (/app/db.js:5:9) {{\n  config: {{ user: 'app', password: '{pw}' }}\n}}"
                ),
            ],
        );
        text(pw, line)
    }),
    ("yaml-block-scalars", |rng| {
        let pw = plain_pw(rng);
        let tok = token_between(rng, 40, 60);
        let (secret, line) = match rng.below(3) {
            0 => (pw.clone(), format!("database:\n  password: |\n    {pw}\n  host: db")),
            1 => (tok.clone(), format!("api:\n  secret: >-\n    {tok}\n  timeout: 30")),
            _ => (pw.clone(), format!("env:\n  - name: DB_PASSWORD\n    value: |-\n      {pw}")),
        };
        text(secret, line)
    }),
    ("url-fragment-tokens", |rng| {
        let tok = from_alphabet(rng, B64URL_CHARS, 48);
        let line = pick_line(
            rng,
            vec![
                format!(
                    "https://app.acme.dev/callback#access_token={tok}&token_type=Bearer&expires_in=3600"
                ),
                format!("Redirected to https://shop.acme.dev/#/login?id_token={tok}&state=xyz"),
                format!("window.location.hash = \"#token={tok}\""),
                format!("https://share.acme.dev/d/8841#key={tok}"),
            ],
        );
        text(tok, line)
    }),
    ("line-continuation-values", |rng| {
        let pw = plain_pw(rng);
        let line = pick_line(
            rng,
            vec![
                format!(
                    "docker run -d \\\n  -e POSTGRES_USER=app \\\n  -e POSTGRES_PASSWORD=\\\n{pw} \\\n  postgres:17"
                ),
                format!("mysql -h db -u root \\\n  --password \\\n  {pw} shop"),
                format!(
                    "az login --service-principal -u 2f1c-app \\\n    -p \\\n    {pw} --tenant acme"
                ),
                format!("DB_PASSWORD=\\\n{pw}"),
            ],
        );
        text(pw, line)
    }),
    ("mqtt-and-amqp-clients", |rng| {
        let pw = plain_pw(rng);
        let line = pick_line(
            rng,
            vec![
                format!("mosquitto_pub -h mqtt.acme.dev -u sensor -P {pw} -t home/temp -m 21"),
                format!("mqttx conn -h broker.acme.dev -u sensor -P '{pw}'"),
                format!("rabbitmqctl add_user app '{pw}'"),
                format!("rabbitmqadmin -u admin -p {pw} list queues"),
                format!("client = mqtt.Client()\nclient.username_pw_set(\"sensor\", \"{pw}\")"),
            ],
        );
        text(pw, line)
    }),
    ("har-captures", |rng| {
        let tok = token_between(rng, 32, 48);
        let cookie = from_alphabet(rng, LOWER_DIGITS, 32);
        let (secret, value) = if rng.chance(0.5) {
            (
                tok.clone(),
                json!({"log": {"entries": [{"request": {"method": "GET", "url": "https://api.acme.dev/me",
                    "headers": [{"name": "Accept", "value": "*/*"}, {"name": "authorization", "value": format!("Bearer {tok}")}]}}]}}),
            )
        } else {
            (
                cookie.clone(),
                json!({"log": {"entries": [{"response": {"status": 200,
                    "cookies": [{"name": "sid", "value": cookie, "httpOnly": true}]}}]}}),
            )
        };
        Made { needles: vec![secret.clone()], secret, carrier: Carrier::Json(value) }
    }),
    ("app-passwords-grouped", |rng| {
        let groups: Vec<String> = (0..4).map(|_| from_alphabet(rng, LOWER, 4)).collect();
        let spaced = groups.join(" ");
        let dashed = format!(
            "{}-{}-{}-{}",
            from_alphabet(rng, LOWER_DIGITS, 4),
            from_alphabet(rng, LOWER_DIGITS, 4),
            from_alphabet(rng, LOWER_DIGITS, 4),
            from_alphabet(rng, LOWER_DIGITS, 4)
        );
        match rng.below(3) {
            0 => text(spaced.clone(), format!("Gmail app password for the mailer: {spaced}")),
            1 => text(dashed.clone(), format!("SMTP_APP_PASSWORD=\"{dashed}\"")),
            _ => text(
                spaced.clone(),
                format!("smtp:\n  user: ops@acme.dev\n  app_password: \"{spaced}\""),
            ),
        }
    }),
    ("build-tool-remote-headers", |rng| {
        let tok = token_between(rng, 24, 40);
        let line = pick_line(
            rng,
            vec![
                format!("build --remote_header=x-buildbuddy-api-key={tok}"),
                format!(
                    "common --remote_cache=grpcs://cache.acme.dev --remote_header=Authorization=Bearer\\ {tok}"
                ),
                format!("TURBO_TOKEN={tok} TURBO_TEAM=acme turbo run build"),
                format!("nx connect --access-token {tok}"),
                format!(
                    "[net]\ngit-fetch-with-cli = true\n[http]\nheaders = [\"X-Cache-Key: {tok}\"]"
                ),
            ],
        );
        text(tok, line)
    }),
];
