//! Credentials given to a tool: SQL and Oracle logins, database shells, Windows and RDP
//! tools, `net use`, cloud CLIs, server directives, network devices, Wi-Fi, connection
//! strings, URLs and command-line flags.

use super::*;

pub(super) const FAMILIES: &[Family] = &[
    ("sql-identified-by", |rng| {
        let pw = password(rng);
        let line = pick_line(
            rng,
            vec![
                format!("CREATE USER report_ro IDENTIFIED BY \"{pw}\";"),
                format!("ALTER USER app_owner IDENTIFIED BY {pw};"),
                format!("GRANT ALL PRIVILEGES ON shop.* TO 'shop'@'%' IDENTIFIED BY '{pw}';"),
                format!("SQL> create user etl identified by {pw} default tablespace users;"),
            ],
        );
        text(pw, line)
    }),
    ("oracle-user-slash-password", |rng| {
        let pw = password(rng).replace(['@', '/'], "x");
        let line = pick_line(
            rng,
            vec![
                format!("sqlplus system/{pw}@//db01.corp:1521/ORCLPDB1"),
                format!("expdp hr/{pw}@prod schemas=HR directory=DUMP_DIR"),
                format!("rman target sys/{pw}@cdb1 catalog rco/x@rcat"),
                format!("CONNECT scott/{pw}@orcl AS SYSDBA"),
            ],
        );
        text(pw, line)
    }),
    ("cassandra-cqlsh", |rng| {
        let pw = password(rng);
        let line = pick_line(
            rng,
            vec![
                format!("cqlsh 10.1.2.3 9042 -u cassandra -p {pw}"),
                format!("cqlsh -u admin --password {pw} cass01.internal"),
                format!("nodetool -u jmx -pw {pw} status"),
            ],
        );
        text(pw, line)
    }),
    ("windows-remote-tools", |rng| {
        let pw = password(rng);
        let line = pick_line(
            rng,
            vec![
                format!("psexec \\\\srv01 -u CORP\\admin -p {pw} cmd.exe"),
                format!("PsExec64.exe \\\\10.0.0.9 -s -u Administrator -p {pw} ipconfig"),
                format!("schtasks /create /s srv02 /u CORP\\ops /p {pw} /tn backup /tr c:\\b.bat"),
                format!("wmic /node:srv03 /user:admin /password:{pw} process list"),
            ],
        );
        text(pw, line)
    }),
    ("rdp-slash-flags", |rng| {
        let pw = password(rng);
        let line = pick_line(
            rng,
            vec![
                format!("xfreerdp /v:10.0.0.4 /u:Administrator /p:{pw} /cert:ignore"),
                format!("wlfreerdp /u:bob /p:'{pw}' /v:desk01"),
                format!("rdesktop -u admin -p {pw} terminal.corp:3389"),
                format!("cmdkey /generic:TERMSRV/host01 /user:admin /pass:{pw}"),
            ],
        );
        text(pw, line)
    }),
    ("net-use-password", |rng| {
        let pw = password(rng);
        let line = pick_line(
            rng,
            vec![
                format!("net use Z: \\\\files\\share {pw} /user:CORP\\bob"),
                format!("net use \\\\srv\\IPC$ /user:admin {pw}"),
                format!(
                    "C:\\> net use P: \\\\nas01\\projects /user:nas\\alice {pw} /persistent:yes"
                ),
            ],
        );
        text(pw, line)
    }),
    ("user-comma-password-flag", |rng| {
        let pw = password(rng).replace(',', "x");
        let line = pick_line(
            rng,
            vec![
                format!("lftp -u deploy,{pw} sftp://files.example.net"),
                format!("lftp -e 'mirror -R dist /www' -u 'ftpuser,{pw}' ftp.example.org"),
                format!("ncftpput -u web -p {pw} ftp.example.com /htdocs index.html"),
            ],
        );
        text(pw, line)
    }),
    ("cloud-cli-secret-set", |rng| {
        let secret = secret_key40(rng);
        let line = pick_line(
            rng,
            vec![
                format!("aws configure set aws_secret_access_key {secret}"),
                format!("aws configure set aws_secret_access_key {secret} --profile prod"),
                format!("mc alias set myminio https://minio.local:9000 minioadmin {secret}"),
                format!(
                    "mc config host add s3 https://s3.amazonaws.com AKIAZZZZZ0000EXAMPLE {secret}"
                ),
                format!(
                    "rclone config create r2 s3 provider=Cloudflare access_key_id=abc secret_access_key={secret}"
                ),
            ],
        );
        text(secret, line)
    }),
    ("rclone-and-s3-config", |rng| {
        let secret = secret_key40(rng);
        let line = pick_line(
            rng,
            vec![
                format!(
                    "[remote]\ntype = s3\nprovider = Minio\naccess_key_id = minio\nsecret_access_key = {secret}\nendpoint = http://minio:9000"
                ),
                format!(
                    "[default]\naws_access_key_id = AKIAZZZZZ0000EXAMPLE\naws_secret_access_key = {secret}"
                ),
                format!("s3:\n  accessKey: minio\n  secretKey: {secret}\n  bucket: backups"),
            ],
        );
        text(secret, line)
    }),
    ("redis-directives", |rng| {
        let pw = password(rng);
        let line = pick_line(
            rng,
            vec![
                format!("# redis.conf\nbind 0.0.0.0\nrequirepass {pw}\nmaxmemory 2gb"),
                format!("replicaof 10.0.0.5 6379\nmasterauth {pw}"),
                format!("redis-cli CONFIG SET requirepass \"{pw}\""),
                format!("sentinel auth-pass mymaster {pw}"),
            ],
        );
        text(pw, line)
    }),
    ("ldap-bind-password", |rng| {
        let pw = password(rng);
        let line = pick_line(
            rng,
            vec![
                format!(
                    "# /etc/nslcd.conf\nuri ldap://ldap.corp/\nbinddn cn=reader,dc=corp\nbindpw {pw}"
                ),
                format!("rootdn \"cn=admin,dc=corp\"\nrootpw {pw}"),
                format!("ldap_default_authtok = {pw}"),
                format!("olcRootPW: {pw}"),
            ],
        );
        text(pw, line)
    }),
    ("postfix-sasl-passwd", |rng| {
        let pw = password(rng);
        let line = pick_line(
            rng,
            vec![
                format!(
                    "echo '[smtp.mailhost.net]:587 postmaster@mg.example.com:{pw}' > /etc/postfix/sasl_passwd"
                ),
                format!(
                    "# /etc/postfix/sasl_passwd\n[smtp.relay.example]:465 alerts@example.com:{pw}"
                ),
                format!(
                    "smtp_sasl_password_maps = hash:/etc/postfix/sasl_passwd\n# relay creds: [mail.isp.net] user@isp.net:{pw}"
                ),
            ],
        );
        text(pw, line)
    }),
    ("network-device-secrets", |rng| {
        let pw = password(rng).replace(' ', "");
        let line = pick_line(
            rng,
            vec![
                format!("enable secret {pw}"),
                format!("username admin privilege 15 secret {pw}"),
                format!("line vty 0 4\n password {pw}\n login"),
                format!("snmp-server community {pw} RW"),
                format!("set system root-authentication plain-text-password-value {pw}"),
            ],
        );
        text(pw, line)
    }),
    ("ipsec-pre-shared-key", |rng| {
        let pw = password(rng);
        let line = pick_line(
            rng,
            vec![
                format!("crypto isakmp key {pw} address 203.0.113.5"),
                format!("tunnel-group 198.51.100.7 ipsec-attributes\n pre-shared-key {pw}"),
                format!("# /etc/ipsec.secrets\n%any 203.0.113.9 : PSK \"{pw}\""),
                format!(
                    "config vpn ipsec phase1-interface\n    edit \"to-hq\"\n        set psksecret {pw}"
                ),
            ],
        );
        text(pw, line)
    }),
    ("wifi-credentials", |rng| {
        let pw = password(rng).replace([';', ':'], "x");
        let line = pick_line(
            rng,
            vec![
                format!("WIFI:T:WPA;S:HomeNet-5G;P:{pw};H:false;;"),
                format!("qrencode -o wifi.png 'WIFI:S:Office;T:WPA2;P:{pw};;'"),
                format!("network={{\n    ssid=\"Lab\"\n    psk=\"{pw}\"\n}}"),
                format!("nmcli dev wifi connect Cafe password {pw}"),
            ],
        );
        text(pw, line)
    }),
    ("connection-string-keywords", |rng| {
        let pw = password(rng).replace(';', "x");
        let line = pick_line(
            rng,
            vec![
                format!(
                    "Server=tcp:sql01,1433;Database=shop;User ID=sa;Password={pw};Encrypt=true"
                ),
                format!("Host=pg;Username=app;Pwd={pw};Database=orders"),
                format!("DRIVER={{ODBC Driver 18}};SERVER=db;UID=report;PWD={pw}"),
                format!("psql \"host=db port=5432 user=app password={pw} dbname=orders\""),
                format!("Data Source=ora;User Id=scott;Password=\"{pw}\";"),
            ],
        );
        text(pw, line)
    }),
    ("url-userinfo", |rng| {
        let pw = password(rng).replace(['@', '/', ':', '#', '?', '%'], "q");
        let line = pick_line(
            rng,
            vec![
                format!("BROKER_URL=amqp://guest:{pw}@rabbit:5672/"),
                format!("redis://:{pw}@cache.internal:6379/0"),
                format!("smtp://alerts:{pw}@mail.example.com:587"),
                format!("git clone https://deploy:{pw}@git.example.org/team/app.git"),
                format!("mongodb+srv://svc:{pw}@cluster0.abcde.mongodb.net/prod"),
            ],
        );
        text(pw, line)
    }),
    ("url-query-credentials", |rng| {
        let tok = token_between(rng, 24, 40);
        let line = pick_line(
            rng,
            vec![
                format!("curl 'https://api.example.io/v1/export?apikey={tok}&format=csv'"),
                format!("GET /feed?access_token={tok} HTTP/1.1"),
                format!("https://maps.example.com/api/js?key={tok}&callback=init"),
                format!("wss://stream.example.net/socket?auth={tok}&v=2"),
                format!(
                    "https://files.example.com/dl/report.pdf?expires=1700000000&signature={tok}"
                ),
            ],
        );
        text(tok, line)
    }),
    ("long-cli-flags", |rng| {
        let tok = token_between(rng, 20, 36);
        let line = pick_line(
            rng,
            vec![
                format!("./deploy.sh --db-password {tok} --env prod"),
                format!("terraform apply -var admin_password={tok}"),
                format!("helm upgrade app ./chart --set auth.rootPassword={tok}"),
                format!("mytool sync --auth {tok} --verbose"),
                format!("cli login --client-secret={tok}"),
            ],
        );
        text(tok, line)
    }),
    ("short-flag-tools", |rng| {
        let pw = password(rng);
        let line = pick_line(
            rng,
            vec![
                format!("mosquitto_pub -h broker -u iot -P {pw} -t sensors/x -m 1"),
                format!("rabbitmqadmin -u admin -p {pw} list queues"),
                format!("influx -username admin -password {pw} -execute 'SHOW DATABASES'"),
                format!("sqlcmd -S db -U sa -P {pw} -Q \"SELECT 1\""),
                format!("mysqldump -u root -p{pw} shop > shop.sql"),
            ],
        );
        text(pw, line)
    }),
];
