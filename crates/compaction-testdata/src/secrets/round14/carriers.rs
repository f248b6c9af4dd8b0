//! Round 14 families of carriers nobody wrote yet: service manager environments, colon-separated
//! credential files, build DSLs, struct dumps in log lines, request dumps of web frameworks,
//! JSON outputs of infrastructure tools, DSNs with no scheme, defaults of environment lookups,
//! SOAP envelopes, and user-admin statements of more databases.

use super::super::families::{Family, pick_line, text};
use super::super::values::token_between;
use super::plain_pw;

pub(super) const FAMILIES: &[Family] = &[
    ("service-environment-pairs", |rng| {
        let pw = plain_pw(rng);
        let line = pick_line(
            rng,
            vec![
                format!(
                    "[Service]\nEnvironment=\"NODE_ENV=production\" \"SESSION_SECRET={pw}\"\nExecStart=/usr/bin/node app.js"
                ),
                format!(
                    "[program:worker]\nenvironment=QUEUE=\"jobs\",BROKER_PASS=\"{pw}\"\ncommand=/srv/worker"
                ),
                format!(
                    "<key>EnvironmentVariables</key>\n<dict>\n  <key>DB_PASS</key>\n  <string>{pw}</string>\n</dict>"
                ),
                format!("sc.exe config BackupSvc obj= CORP\\svc_backup password= {pw}"),
                format!("pm2 start app.js --env production -- --db-pass {pw}"),
                format!("nssm set ApiSvc AppEnvironmentExtra API_SECRET={pw}"),
            ],
        );
        text(pw, line)
    }),
    ("colon-separated-credential-lines", |rng| {
        let pw = plain_pw(rng);
        let line = pick_line(
            rng,
            vec![
                format!("$ cat ~/.pgpass\ndb.internal:5432:*:report:{pw}"),
                format!("# /etc/ppp/chap-secrets\n\"isp-user\" * \"{pw}\" *"),
                format!("# rsyncd.secrets\nbackup:{pw}"),
                format!("/etc/ppp/pap-secrets:  dsl-user  *  {pw}"),
                format!("# /etc/davfs2/secrets\nhttps://dav.corp/remote.php/webdav  ops  {pw}"),
                format!("echo 'smtp.corp:587 relay:{pw}' > /etc/postfix/relay_creds"),
            ],
        );
        text(pw, line)
    }),
    ("build-and-policy-dsls", |rng| {
        let tok = token_between(rng, 26, 40);
        let line = pick_line(
            rng,
            vec![
                format!("set(SIGNING_KEY \"{tok}\" CACHE STRING \"release signing\")"),
                format!("DEPLOY_TOKEN ?= {tok}\nall: build"),
                format!("http_archive(\n    name = \"corp_sdk\",\n    auth_token = \"{tok}\",\n)"),
                format!("export REGISTRY_PASSWORD := \"{tok}\""),
                format!("ARG NPM_AUTH_TOKEN={tok}\nRUN npm ci"),
                format!("option('api_secret', type : 'string', value : '{tok}')"),
                format!("local_resource('seed', cmd='seed --key {tok}')"),
            ],
        );
        text(tok, line)
    }),
    ("struct-dumps-in-log-lines", |rng| {
        let pw = plain_pw(rng);
        let line = pick_line(
            rng,
            vec![
                format!(
                    "2026-03-02T10:14:07Z INFO loaded config: {{Host:db.internal Port:5432 User:app Pass:{pw} SSL:true}}"
                ),
                format!(
                    "DEBUG DataSourceConfig[url=jdbc:postgresql://db/app, user=app, password={pw}, pool=10]"
                ),
                format!(
                    "[info] settings=Settings(debug=False, secret_key='{pw}', region='eu-west-1')"
                ),
                format!("I0302 10:14:07 main.go:88] opts=&{{Addr::6379 Password:{pw} DB:0}}"),
                format!("config = Creds(user=svc, secret={pw}, ttl=3600)"),
                format!("level=debug msg=\"smtp config\" host=mail.corp user=relay pass={pw}"),
            ],
        );
        text(pw, line)
    }),
    ("framework-request-param-dumps", |rng| {
        let pw = plain_pw(rng);
        let line = pick_line(
            rng,
            vec![
                format!(
                    "Started POST \"/users/sign_in\"\n  Parameters: {{\"user\"=>{{\"email\"=>\"a@corp.example\", \"password\"=>\"{pw}\"}}}}"
                ),
                format!("ImmutableMultiDict([('client_id', 'web'), ('client_secret', '{pw}')])"),
                format!(
                    "#0 /var/www/db.php(12): PDO->__construct('mysql:host=db;dbname=shop', 'shop', '{pw}')"
                ),
                format!("POST\nVariable\tValue\nusername\t'admin'\npassword\t'{pw}'"),
                format!("request.body = {{ login: 'ops', passphrase: '{pw}' }}"),
                format!(
                    "at LoginController.authenticate(user=ops, pwd={pw}) LoginController.java:57"
                ),
            ],
        );
        text(pw, line)
    }),
    ("infra-tool-json-outputs", |rng| {
        let tok = token_between(rng, 28, 44);
        let line = pick_line(
            rng,
            vec![
                format!(
                    "$ terraform output -json\n{{\n  \"db_password\": {{\n    \"sensitive\": true,\n    \"type\": \"string\",\n    \"value\": \"{tok}\"\n  }}\n}}"
                ),
                format!(
                    "{{\"ARN\": \"arn:aws:secretsmanager:eu-west-1:1:secret:prod/api\", \"Name\": \"prod/api\", \"SecretString\": \"{tok}\"}}"
                ),
                format!(
                    "$ pulumi stack output --show-secrets\nCurrent stack outputs (2):\n    OUTPUT          VALUE\n    adminPassword   {tok}\n    url             https://app"
                ),
                format!(
                    "{{\"data\": {{\"data\": {{\"token\": \"{tok}\"}}, \"metadata\": {{\"version\": 4}}}}}}"
                ),
                format!(
                    "$ az keyvault secret show --vault-name kv --name sql-admin --query value -o tsv\n{tok}"
                ),
                format!("$ doppler secrets get STRIPE_KEY --plain\n{tok}"),
            ],
        );
        text(tok, line)
    }),
    ("scheme-less-userinfo-dsns", |rng| {
        let pw = plain_pw(rng);
        let line = pick_line(
            rng,
            vec![
                format!("dsn := \"shop:{pw}@tcp(db.internal:3306)/shop?parseTime=true\""),
                format!("DATABASE_DSN=app:{pw}@unix(/run/mysqld/mysqld.sock)/app"),
                format!("sshpass -p {pw} ssh deploy@10.0.4.12"),
                format!("ncftpput -u uploader -p {pw} ftp.corp /incoming build.zip"),
                format!("hydra_target: admin:{pw}@10.0.0.1"),
                format!("mount -t cifs //nas/share /mnt -o username=ops,password={pw}"),
            ],
        );
        text(pw, line)
    }),
    ("env-lookup-default-values", |rng| {
        let tok = token_between(rng, 24, 40);
        let line = pick_line(
            rng,
            vec![
                format!("SECRET_KEY = os.getenv(\"DJANGO_SECRET_KEY\", \"{tok}\")"),
                format!("const secret = process.env.JWT_SECRET || '{tok}';"),
                format!("@Value(\"${{app.api.key:{tok}}}\")\nprivate String apiKey;"),
                format!("POSTGRES_PASSWORD: ${{PG_PASSWORD:-{tok}}}"),
                format!("token := getenv(\"GITHUB_TOKEN\", \"{tok}\")"),
                format!("api_key = ENV.fetch(\"MAILGUN_API_KEY\") {{ \"{tok}\" }}"),
                format!("let key = env::var(\"SIGNING_KEY\").unwrap_or(\"{tok}\".into());"),
            ],
        );
        text(tok, line)
    }),
    ("soap-and-ws-security-envelopes", |rng| {
        let pw = plain_pw(rng);
        let line = pick_line(
            rng,
            vec![
                format!(
                    "<wsse:UsernameToken>\n  <wsse:Username>svc_erp</wsse:Username>\n  <wsse:Password Type=\"http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-username-token-profile-1.0#PasswordText\">{pw}</wsse:Password>\n</wsse:UsernameToken>"
                ),
                format!(
                    "<soap:Header><AuthHeader><User>api</User><Pwd>{pw}</Pwd></AuthHeader></soap:Header>"
                ),
                format!(
                    "<ns1:login><ns1:userName>ops</ns1:userName><ns1:secretKey>{pw}</ns1:secretKey></ns1:login>"
                ),
                format!(
                    "<methodCall><methodName>login</methodName><params><param><value>admin</value></param><param><value><string>{pw}</string></value></param></params></methodCall>"
                ),
                format!(
                    "<saml:Attribute Name=\"initialPassword\"><saml:AttributeValue>{pw}</saml:AttributeValue></saml:Attribute>"
                ),
            ],
        );
        text(pw, line)
    }),
    ("database-user-admin-statements", |rng| {
        let pw = plain_pw(rng);
        let line = pick_line(
            rng,
            vec![
                format!("CREATE USER reporter SET PASSWORD '{pw}' CHANGE NOT REQUIRED;"),
                format!("CREATE USER etl IDENTIFIED WITH sha256_password BY '{pw}';"),
                format!("CREATE USER app WITH LOGIN PASSWORD '{pw}';"),
                format!("rabbitmqctl add_user app {pw}"),
                format!("bin/elasticsearch-users useradd kibana_admin -p {pw} -r superuser"),
                format!("EXEC sp_addlogin 'legacy_app', '{pw}';"),
                format!("influx user password -n admin --password {pw}"),
                format!(
                    "couchbase-cli user-manage -c localhost -u Administrator -p admin --set --rbac-username app --rbac-password {pw}"
                ),
            ],
        );
        text(pw, line)
    }),
];
