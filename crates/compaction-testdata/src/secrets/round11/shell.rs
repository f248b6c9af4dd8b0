//! Round 11 families that people type and tools print.

use serde_json::json;

use super::super::families::{Carrier, Family, Made, pick_line, text};
use super::super::values::{token, token_between, uuid};
use super::{B64URL_CHARS, HEX, b64, from_alphabet, plain_pw, with_forms};

pub(super) const FAMILIES: &[Family] = &[
    ("shell-history-listings", |rng| {
        let tok = token_between(rng, 28, 40);
        let n = rng.range(100, 9999);
        let line = pick_line(
            rng,
            vec![
                format!(
                    "$ history | tail -3\n {n}  cd ~/src/api\n {}  SYNC_TOKEN={tok} ./bin/sync --all\n {}  history | tail -3",
                    n + 1,
                    n + 2
                ),
                format!(
                    ": 1733412{n:03}:0;export DEPLOY_TOKEN='{tok}'\n: 1733412{n:03}:0;make deploy"
                ),
                format!(
                    "- cmd: set -gx REGISTRY_TOKEN {tok}\n  when: 17334{n}\n- cmd: docker push ghcr.io/acme/api\n  when: 17334{n}"
                ),
                format!(
                    "PS> Get-Content (Get-PSReadLineOption).HistorySavePath | Select -Last 2\n$env:BACKEND_API_KEY = \"{tok}\"\nnpm run start"
                ),
                format!("#1733412{n:03}\nMAPS_TOKEN={tok} npm run build\n#1733412{n:03}\ngit push"),
            ],
        );
        text(tok, line)
    }),
    ("kubectl-env-and-patch", |rng| {
        let pw = plain_pw(rng);
        let line = pick_line(
            rng,
            vec![
                format!("kubectl set env deployment/api DB_PASSWORD={pw} LOG_LEVEL=info"),
                format!("oc set env dc/shop SMTP_PASS='{pw}'"),
                format!(
                    "kubectl run psql --rm -it --image=postgres:16 --env=\"PGPASSWORD={pw}\" -- psql -h db -U app"
                ),
                format!("kubectl exec -it db-0 -- env MYSQL_PWD={pw} mysql -uroot shop"),
                format!(
                    "kubectl patch secret db -n prod -p '{{\"stringData\":{{\"password\":\"{pw}\"}}}}'"
                ),
            ],
        );
        text(pw, line)
    }),
    ("forge-cli-auth-login", |rng| {
        let (secret, line) = match rng.below(5) {
            0 => {
                let t = format!("ghp_{}", token(rng, 36));
                (
                    t.clone(),
                    format!("echo {t} | gh auth login --hostname github.acme.dev --with-token"),
                )
            }
            1 => {
                let t = format!("glpat-{}", from_alphabet(rng, B64URL_CHARS, 20));
                (t.clone(), format!("glab auth login --hostname gitlab.acme.dev --token {t}"))
            }
            2 => {
                let t = from_alphabet(rng, HEX, 40);
                (
                    t.clone(),
                    format!("tea login add --name acme --url https://gitea.acme.dev --token {t}"),
                )
            }
            3 => {
                let t = token(rng, 32);
                (t.clone(), format!("gh secret set DEPLOY_KEY --repo acme/api --body \"{t}\""))
            }
            _ => {
                let t = from_alphabet(rng, HEX, 40);
                (t.clone(), format!("berg auth login --token {t} # codeberg"))
            }
        };
        text(secret, line)
    }),
    ("interactive-prompt-automation", |rng| {
        let pw = plain_pw(rng);
        let line = pick_line(
            rng,
            vec![
                format!(
                    "spawn ssh admin@10.0.4.7\nexpect \"assword:\"\nsend \"{pw}\\r\"\ninteract"
                ),
                format!(
                    "child = pexpect.spawn('ftp files.acme.dev')\nchild.expect('Password:')\nchild.sendline('{pw}')"
                ),
                format!(
                    "- ansible.builtin.expect:\n    command: passwd app\n    responses:\n      (?i)new password: \"{pw}\"\n      (?i)retype: \"{pw}\""
                ),
                format!("printf 'app\\n{pw}\\n' | ./install.sh --interactive"),
                format!(
                    "expect -c 'spawn su - deploy; expect \"Password:\"; send \"{pw}\\n\"; interact'"
                ),
            ],
        );
        text(pw, line)
    }),
    ("password-manager-cli-output", |rng| {
        let pw = plain_pw(rng);
        let line = pick_line(
            rng,
            vec![
                format!("$ pass show acme/db-prod\n{pw}\nuser: app\nurl: db.acme.internal"),
                format!(
                    "$ keepassxc-cli show -s vault.kdbx Servers/db\nTitle: db\nUserName: app\nPassword: {pw}\nURL: \nNotes: "
                ),
                format!(
                    "$ bw get item db-prod | jq .login\n{{\n  \"username\": \"app\",\n  \"password\": \"{pw}\",\n  \"totp\": null\n}}"
                ),
                format!("$ op item get db-prod --fields label=password --reveal\n{pw}"),
                format!("$ gopass show -o infra/db\n{pw}"),
            ],
        );
        text(pw, line)
    }),
    ("bootstrap-password-outputs", |rng| {
        let pw = plain_pw(rng);
        let hex = from_alphabet(rng, HEX, 32);
        let (secret, line) = match rng.below(5) {
            0 => (
                pw.clone(),
                format!(
                    "2025-11-02T10:01:22.118Z 6 [Note] [MY-010454] [Server] A temporary password is generated for root@localhost: {pw}"
                ),
            ),
            1 => (
                pw.clone(),
                format!(
                    "$ bin/elasticsearch-reset-password -u elastic\nThis tool will reset the password of the [elastic] user.\nPassword for the [elastic] user successfully reset.\nNew value: {pw}"
                ),
            ),
            2 => (
                hex.clone(),
                format!(
                    "$ docker exec jenkins cat /var/jenkins_home/secrets/initialAdminPassword\n{hex}"
                ),
            ),
            3 => (
                pw.clone(),
                format!(
                    "$ sudo cat /etc/gitlab/initial_root_password\n# WARNING: This value is valid only in the following conditions\nPassword: {pw}"
                ),
            ),
            _ => (
                pw.clone(),
                format!(
                    "$ kubectl -n argocd get secret argocd-initial-admin-secret -o jsonpath='{{.data.password}}' | base64 -d\n{pw}"
                ),
            ),
        };
        text(secret, line)
    }),
    ("process-and-container-env-dumps", |rng| {
        let pw = plain_pw(rng);
        let line = pick_line(
            rng,
            vec![
                format!(
                    "$ docker inspect --format '{{{{json .Config.Env}}}}' api\n[\"PATH=/usr/local/sbin:/usr/bin\",\"DB_PASSWORD={pw}\",\"NODE_ENV=production\"]"
                ),
                format!(
                    "Containers:\n  api:\n    Environment:\n      LOG_LEVEL:    info\n      DB_PASSWORD:  {pw}\n    Mounts:       <none>"
                ),
                format!(
                    "$ sudo cat /proc/2211/environ | tr '\\0' '\\n'\nHOME=/srv/app\nSMTP_PASSWORD={pw}\nLANG=C.UTF-8"
                ),
                format!(
                    "$ systemctl show api -p Environment\nEnvironment=LANG=C.UTF-8 API_SECRET={pw} PORT=8080"
                ),
                format!(
                    "$ ps eww 2211\n  PID TTY      STAT   TIME COMMAND\n 2211 ?        Ssl    0:02 node server.js PATH=/usr/bin APP_SECRET={pw} HOME=/srv"
                ),
            ],
        );
        text(pw, line)
    }),
    ("runtime-env-dumps", |rng| {
        let pw = plain_pw(rng);
        let line = pick_line(
            rng,
            vec![
                format!(
                    ">>> os.environ\nenviron({{'PATH': '/usr/bin', 'DB_PASSWORD': '{pw}', 'HOME': '/root'}})"
                ),
                format!(
                    "irb> ENV.to_h.slice(\"RAILS_ENV\", \"SMTP_PASSWORD\")\n=> {{\"RAILS_ENV\"=>\"production\", \"SMTP_PASSWORD\"=>\"{pw}\"}}"
                ),
                format!(
                    "> process.env\n{{\n  NODE_ENV: 'production',\n  API_SECRET: '{pw}',\n  PORT: '3000'\n}}"
                ),
                format!(
                    "Array\n(\n    [APP_ENV] => prod\n    [DB_PASSWORD] => {pw}\n    [DB_HOST] => db\n)"
                ),
                format!(
                    "jshell> System.getenv()\n$1 ==> {{PATH=/usr/bin, DB_PASSWORD={pw}, LANG=C.UTF-8}}"
                ),
            ],
        );
        text(pw, line)
    }),
    ("debug-print-of-structs", |rng| {
        let pw = plain_pw(rng);
        let line = pick_line(
            rng,
            vec![
                format!(
                    "[src/main.rs:41] &config = Config {{\n    host: \"db.internal\",\n    password: \"{pw}\",\n    pool: 8,\n}}"
                ),
                format!("cfg: {{Host:db.internal Port:5432 Password:{pw} Timeout:30s}}"),
                format!(
                    "DEBUG settings=Settings(database_url='postgres://db/shop', db_password='{pw}', debug=False)"
                ),
                format!(
                    "array(2) {{\n  [\"user\"]=>\n  string(3) \"app\"\n  [\"password\"]=>\n  string({}) \"{pw}\"\n}}",
                    pw.len()
                ),
                format!("%MyApp.Config{{api_secret: \"{pw}\", region: \"eu-west-1\"}}"),
                format!("Creds(user=app, password={pw}, host=db.internal)"),
            ],
        );
        text(pw, line)
    }),
    ("http-wire-debug-dumps", |rng| {
        let pw = plain_pw(rng);
        let tok = token_between(rng, 32, 48);
        let basic = b64(&format!("app:{pw}"));
        match rng.below(4) {
            0 => text(
                tok.clone(),
                format!(
                    "*   Trying 10.0.0.5:443...\n> GET /v2/items HTTP/2\n> Host: api.acme.dev\n> user-agent: curl/8.5.0\n> authorization: Bearer {tok}\n> accept: */*\n>\n< HTTP/2 200"
                ),
            ),
            1 => with_forms(
                pw.clone(),
                vec![basic.clone()],
                format!(
                    "send: b'GET /v1/status HTTP/1.1\\r\\nHost: api.acme.dev\\r\\nAuthorization: Basic {basic}\\r\\nAccept: */*\\r\\n\\r\\n'\nreply: 'HTTP/1.1 200 OK\\r\\n'"
                ),
            ),
            2 => text(
                tok.clone(),
                format!(
                    "---request begin---\nGET /export HTTP/1.1\nHost: files.acme.dev\nX-Api-Key: {tok}\nConnection: Keep-Alive\n\n---request end---"
                ),
            ),
            _ => text(
                tok.clone(),
                format!(
                    "2025/11/02 10:01:22 POST /v1/send HTTP/1.1\r\nHost: mail.acme.dev\r\nX-Auth-Token: {tok}\r\nContent-Type: application/json\r\n\r\n{{\"to\":\"ops@acme.dev\"}}"
                ),
            ),
        }
    }),
    ("websocket-and-graphql-auth", |rng| {
        let tok = from_alphabet(rng, B64URL_CHARS, 43);
        let line = pick_line(
            rng,
            vec![
                format!(
                    "const client = createClient({{\n  url: 'wss://api.acme.dev/graphql',\n  connectionParams: {{ authToken: '{tok}' }},\n}});"
                ),
                format!(
                    "ws.send(JSON.stringify({{ type: 'connection_init', payload: {{ token: '{tok}' }} }}));"
                ),
                format!(
                    "websocat -H 'Sec-WebSocket-Protocol: graphql-transport-ws, {tok}' wss://rt.acme.dev/v1"
                ),
                format!("wscat -c \"wss://stream.acme.dev/socket?vsn=2.0.0&access_token={tok}\""),
                format!("new WebSocket(\"wss://push.acme.dev/ws\", [\"bearer\", \"{tok}\"])"),
            ],
        );
        text(tok, line)
    }),
    ("kv-store-writes", |rng| {
        let pw = plain_pw(rng);
        let line = pick_line(
            rng,
            vec![
                format!("consul kv put config/api/db_password '{pw}'"),
                format!("etcdctl put /services/billing/smtp-pass {pw}"),
                format!("zkCli.sh -server zk:2181 create /app/secrets/api_key \"{pw}\""),
                format!("redis-cli -h cache HSET creds:smtp password {pw}"),
                format!(
                    "curl -X PUT --data '{pw}' http://consul:8500/v1/kv/prod/payments/secret_key"
                ),
            ],
        );
        text(pw, line)
    }),
    ("cloud-cli-creation-outputs", |rng| {
        let key = super::super::values::secret_key40(rng);
        let pw = from_alphabet(rng, B64URL_CHARS, 40);
        let id = uuid(rng);
        match rng.below(4) {
            0 => Made {
                needles: vec![key.clone()],
                secret: key.clone(),
                carrier: Carrier::Json(
                    json!({"AccessKey": {"UserName": "ci", "AccessKeyId": "AKIAIOSFODNN7EXAMPLE", "Status": "Active", "SecretAccessKey": key}}),
                ),
            },
            1 => text(
                key.clone(),
                format!(
                    "-----------------------------------------------------------\n|                     CreateAccessKey                     |\n+---------------------------------------------------------+\n||                       AccessKey                       ||\n|+-------------------+-----------------------------------+|\n||  AccessKeyId      |  AKIAIOSFODNN7EXAMPLE             ||\n||  SecretAccessKey  |  {key}  ||\n|+-------------------+-----------------------------------+|"
                ),
            ),
            2 => text(
                pw.clone(),
                format!(
                    "$ az ad sp create-for-rbac --name ci\n{{\n  \"appId\": \"{id}\",\n  \"displayName\": \"ci\",\n  \"password\": \"{pw}\",\n  \"tenant\": \"72f988bf-86f1-41af-91ab-2d7cd011db47\"\n}}"
                ),
            ),
            _ => text(
                pw.clone(),
                format!(
                    "$ terraform output -json\n{{\"db_endpoint\":{{\"sensitive\":false,\"value\":\"db.internal\"}},\"db_admin\":{{\"sensitive\":true,\"type\":\"string\",\"value\":\"{pw}\"}}}}"
                ),
            ),
        }
    }),
];
