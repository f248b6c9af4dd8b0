//! Round 22 families of what programs print: object dumps of language runtimes, debug pages
//! and tracebacks with their locals, and the output of secret managers' commands.

use super::super::families::{Family, pick_line, text};
use super::{any_pw, any_secret, host, user};

pub(super) const FAMILIES: &[Family] = &[
    ("runtime-object-dumps-and-debug-prints", |rng| {
        let secret = any_secret(rng);
        let (name, at) = (user(rng), host(rng));
        let line = pick_line(
            rng,
            vec![
                format!(
                    "2026/12/07 10:14:22 loaded config: {{Host:{at} Port:5432 User:{name} Password:{secret} SSLMode:require}}"
                ),
                format!(
                    "DEBUG cfg = &config.Upstream{{URL:\"https://{at}/v2\", Timeout:30000000000, APIKey:\"{secret}\", Retries:3}}"
                ),
                format!(
                    ">>> settings.database\nDatabaseSettings(host='{at}', port=5432, user='{name}', password='{secret}', pool_size=10)"
                ),
                format!(
                    "2026-12-07 10:14:22.114  INFO 4127 --- [main] c.a.o.OrdersApplication : datasource: DataSourceProperties(url=jdbc:postgresql://{at}:5432/orders, username={name}, password={secret}, driverClassName=org.postgresql.Driver)"
                ),
                format!(
                    "irb(main):004> Account.last\n=> #<Account id: 42, login: \"{name}\", api_secret: \"{secret}\", created_at: \"2026-12-01 09:12:44\">"
                ),
                format!(
                    "array(3) {{\n  [\"host\"]=>\n  string({})\n  \"{at}\"\n  [\"user\"]=>\n  string({})\n  \"{name}\"\n  [\"pass\"]=>\n  string({})\n  \"{secret}\"\n}}",
                    at.len(),
                    name.len(),
                    secret.len()
                ),
                format!(
                    "$VAR1 = {{\n          'dsn' => 'dbi:Pg:dbname=orders;host={at}',\n          'user' => '{name}',\n          'pass' => '{secret}'\n        }};"
                ),
                format!(
                    "info: Orders.Startup[0]\n      Options bound: SmtpOptions {{ Host = {at}, Port = 587, UserName = {name}, Password = {secret}, EnableSsl = True }}"
                ),
                format!(
                    "iex(3)> Application.get_env(:orders, Orders.Repo)\n[\n  username: \"{name}\",\n  password: \"{secret}\",\n  hostname: \"{at}\",\n  pool_size: 10\n]"
                ),
            ],
        );
        text(secret, line)
    }),
    ("debug-pages-and-tracebacks-with-locals", |rng| {
        let secret = any_pw(rng);
        let (name, at) = (user(rng), host(rng));
        let line = pick_line(
            rng,
            vec![
                format!(
                    "    def test_login_as_admin(client):\n        creds = load_creds()\n>       assert client.login(creds.user, creds.secret)\nE       AssertionError: assert False\n\nclient     = <FlaskClient <Flask 'orders'>>\ncreds      = Creds(user='{name}', secret='{secret}')\n\ntests/test_auth.py:18: AssertionError"
                ),
                format!(
                    "│ /srv/orders/db.py:22 in connect                                       │\n│                                                                        │\n│ ╭──────────── locals ────────────╮                                     │\n│ │   host = '{at}'                                                        │\n│ │ passwd = '{secret}'                                                  │\n│ │   user = '{name}'                                                    │\n│ ╰────────────────────────────────╯                                     │"
                ),
                format!(
                    "OperationalError at /reports/\nFATAL:  password authentication failed for user \"{name}\"\n\nLocal vars\nVariable\tValue\nconn_params\t{{'database': 'orders', 'host': '{at}', 'password': '{secret}', 'user': '{name}'}}\nself\t<DatabaseWrapper vendor='postgresql' alias='default'>"
                ),
                format!(
                    "Started POST \"/session\" for 10.0.0.8 at 2026-12-07 10:14:22 +0000\nProcessing by SessionsController#create as HTML\n  Parameters: {{\"authenticity_token\"=>\"[FILTERED]\", \"session\"=>{{\"login\"=>\"{name}\", \"passphrase\"=>\"{secret}\"}}}}"
                ),
                format!(
                    "$ curl -s localhost:8081/actuator/env/spring.datasource.password\n{{\n  \"property\": {{\n    \"source\": \"systemEnvironment\",\n    \"value\": \"{secret}\"\n  }},\n  \"activeProfiles\": [\"prod\"]\n}}"
                ),
                format!(
                    "Traceback (most recent call last):\n  File \"/srv/orders/sync.py\", line 41, in <module>\n    client.login(\"{name}\", \"{secret}\")\n  File \"/usr/lib/python3.12/imaplib.py\", line 612, in login\n    raise self.error(dat[-1])\nimaplib.IMAP4.error: b'[AUTHENTICATIONFAILED] Invalid credentials (Failure)'"
                ),
                format!(
                    "Exception in thread \"main\" java.lang.IllegalStateException: cannot connect to {at} with Credentials[user={name}, secret={secret}]\n\tat com.acme.orders.Db.open(Db.java:57)\n\tat com.acme.orders.Main.main(Main.java:12)"
                ),
                format!(
                    "AxiosError: Request failed with status code 401\n    at settle (/app/node_modules/axios/lib/core/settle.js:19:12) {{\n  code: 'ERR_BAD_REQUEST',\n  config: {{\n    auth: {{ username: '{name}', password: '{secret}' }},\n    url: 'https://{at}/api/v1/orders',\n    method: 'get'\n  }}\n}}"
                ),
            ],
        );
        text(secret, line)
    }),
    ("secret-manager-command-output", |rng| {
        let secret = any_secret(rng);
        let (name, at) = (user(rng), host(rng));
        let line = pick_line(
            rng,
            vec![
                format!(
                    "$ sops -d secrets/prod.enc.yaml\ndatabase:\n    host: {at}\n    user: {name}\n    password: {secret}\nsops:\n    kms: []\n    lastmodified: \"2026-12-01T09:12:44Z\"\n    version: 3.9.1"
                ),
                format!(
                    "$ infisical export --env=prod --format=dotenv\nDB_HOST='{at}'\nDB_USER='{name}'\nDB_PASS='{secret}'"
                ),
                format!(
                    "$ chamber export orders --format dotenv\nDB_HOST=\"{at}\"\nDB_PASSWORD=\"{secret}\"\nDB_USER=\"{name}\""
                ),
                format!("$ security find-generic-password -a {name} -s \"orders-db\" -w\n{secret}"),
                format!(
                    "$ gcloud secrets versions access latest --secret=orders-db-password\n{secret}"
                ),
                format!(
                    "$ conjur variable get -i prod/orders/db/password\n{secret}\n$ conjur variable get -i prod/orders/db/username\n{name}"
                ),
                format!("$ berglas access sm://acme-prod/orders-api-key\n{secret}"),
                format!("$ akeyless get-secret-value --name /prod/orders/db\n{secret}"),
                format!(
                    "$ kubectl view-secret orders-db -a\npassword='{secret}'\nusername='{name}'"
                ),
            ],
        );
        text(secret, line)
    }),
];
