//! Round 22 families of dot-files and configs: package and artifact repositories, mail
//! fetchers and relays, database clients' rc files, and wireless, VPN and dial-up secrets.

use super::super::families::{Family, pick_line, text};
use super::{any_pw, any_secret, chosen_pw, host, user};

pub(super) const FAMILIES: &[Family] = &[
    ("package-and-artifact-repository-credential-files", |rng| {
        let secret = any_secret(rng);
        let (name, at) = (user(rng), host(rng));
        let line = pick_line(
            rng,
            vec![
                format!(
                    "# ~/.pypirc\n[distutils]\nindex-servers =\n    internal\n\n[internal]\nrepository = https://{at}/repository/pypi-hosted/\nusername = {name}\npassword = {secret}"
                ),
                format!(
                    "# ~/.gradle/gradle.properties\norg.gradle.jvmargs=-Xmx2g\nartifactoryUser={name}\nartifactoryPassword={secret}\nsigning.keyId=24875D73"
                ),
                format!(
                    "# ~/.condarc\nchannel_alias: https://{at}/conda\nchannels:\n  - https://conda.anaconda.org/t/{secret}/acme-internal\n  - defaults"
                ),
                format!(
                    "# ~/.config/helm/repositories.yaml\napiVersion: \"\"\ngenerated: \"2026-12-01T10:22:03Z\"\nrepositories:\n- caFile: \"\"\n  name: internal\n  pass_credentials_all: false\n  password: {secret}\n  url: https://{at}/chartrepo/platform\n  username: {name}"
                ),
                format!("export DENO_AUTH_TOKENS={secret}@{at};a1b2c3@deno.land"),
                format!(
                    "$ conan remote login artifactory {name} -p '{secret}'\nChanged user of remote 'artifactory' from 'None' (anonymous) to '{name}' (authenticated)"
                ),
                format!(
                    "# ~/.sbt/.credentials\nrealm=Artifactory Realm\nhost={at}\nuser={name}\npassword={secret}"
                ),
                format!(
                    "# .bundle/config\n---\nBUNDLE_PATH: \"vendor/bundle\"\nBUNDLE_GEMS__{}: \"{name}:{secret}\"",
                    at.to_ascii_uppercase().replace(['.', '-'], "__")
                ),
            ],
        );
        text(secret, line)
    }),
    ("mail-fetch-and-relay-configs", |rng| {
        let secret = any_pw(rng);
        let (name, at) = (user(rng), host(rng));
        let line = pick_line(
            rng,
            vec![
                format!(
                    "# ~/.msmtprc\ndefaults\nauth           on\ntls            on\n\naccount        work\nhost           {at}\nport           587\nfrom           {name}@example.org\nuser           {name}\npassword       {secret}"
                ),
                format!(
                    "# ~/.fetchmailrc\nset daemon 300\npoll {at} with proto IMAP\n  user '{name}' there with password '{secret}' is '{name}' here options ssl keep"
                ),
                format!(
                    "# ~/.offlineimaprc\n[Repository Remote]\ntype = IMAP\nremotehost = {at}\nremoteuser = {name}\nremotepass = {secret}\nsslcacertfile = /etc/ssl/certs/ca-certificates.crt"
                ),
                format!(
                    "# ~/.mbsyncrc\nIMAPAccount work\nHost {at}\nUser {name}\nPass {secret}\nSSLType IMAPS\n\nIMAPStore work-remote\nAccount work"
                ),
                format!(
                    "# /etc/mail/authinfo\nAuthInfo:{at} \"U:{name}\" \"P:{secret}\" \"M:PLAIN\""
                ),
                format!("# /etc/exim4/passwd.client\n*.example.org:{name}:{secret}"),
                format!(
                    "# ~/.getmail/getmailrc\n[retriever]\ntype = SimpleIMAPSSLRetriever\nserver = {at}\nusername = {name}\npassword = {secret}\n\n[destination]\ntype = Maildir\npath = ~/Mail/"
                ),
                format!(
                    "# ~/.mailrc (s-nail)\nset v15-compat\nset mta=smtps://{name}@{at}:465\nset password-{name}@{at}=\"{secret}\"\nset from=\"{name}@example.org\""
                ),
            ],
        );
        text(secret, line)
    }),
    ("database-client-rc-files", |rng| {
        let secret = any_secret(rng);
        let (name, at) = (user(rng), host(rng));
        let line = pick_line(
            rng,
            vec![
                format!(
                    "# ~/.my.cnf\n[client]\nuser={name}\npassword=\"{secret}\"\nhost={at}\n\n[mysqldump]\nsingle-transaction"
                ),
                format!(
                    "# ~/.cassandra/cqlshrc\n[connection]\nhostname = {at}\nport = 9042\n\n[authentication]\nusername = {name}\npassword = {secret}"
                ),
                format!(
                    "# /etc/odbc.ini\n[OrdersDSN]\nDriver = PostgreSQL Unicode\nServername = {at}\nDatabase = orders\nUserName = {name}\nPassword = {secret}\nPort = 5432"
                ),
                format!(
                    "# ~/.snowsql/config\n[connections.prod]\naccountname = acme-eu1\nusername = {name}\npassword = {secret}\nwarehousename = ANALYTICS_WH"
                ),
                format!(
                    "# ~/.databrickscfg\n[DEFAULT]\nhost = https://adb-4417.azuredatabricks.net\ntoken = {secret}\n\n[staging]\nhost = https://adb-9921.azuredatabricks.net"
                ),
                format!(
                    "<!-- ~/.clickhouse-client/config.xml -->\n<config>\n    <host>{at}</host>\n    <user>{name}</user>\n    <password>{secret}</password>\n    <secure>true</secure>\n</config>"
                ),
                format!(
                    "// ~/.mongoshrc.js\nconst orders = connect(\"mongodb://{at}:27017/orders\");\norders.auth(\"{name}\", \"{secret}\");\nprint(\"connected as {name}\");"
                ),
                format!(
                    "# ~/.config/pgcli/config\n[main]\nmulti_line = True\n\n[alias_dsn]\norders = postgresql://{name}:{secret}@{at}:5432/orders"
                ),
            ],
        );
        text(secret, line)
    }),
    ("wifi-vpn-and-dial-up-secrets", |rng| {
        let secret = chosen_pw(rng);
        let (name, at) = (user(rng), host(rng));
        let ssid = *rng.pick(&["ACME-Office", "Guest-5G", "warehouse-iot", "HQ_Staff"]);
        let line = pick_line(
            rng,
            vec![
                format!(
                    "C:\\> netsh wlan show profile name=\"{ssid}\" key=clear\n\nSecurity settings\n-----------------\n    Authentication         : WPA2-Personal\n    Cipher                 : CCMP\n    Security key           : Present\n    Key Content            : {secret}"
                ),
                format!(
                    "<WLANProfile xmlns=\"http://www.microsoft.com/networking/WLAN/profile/v1\">\n  <name>{ssid}</name>\n  <MSM>\n    <security>\n      <sharedKey>\n        <keyType>passPhrase</keyType>\n        <protected>false</protected>\n        <keyMaterial>{secret}</keyMaterial>\n      </sharedKey>\n    </security>\n  </MSM>\n</WLANProfile>"
                ),
                format!(
                    "# /etc/openvpn/client/office.conf\nremote {at} 1194\nauth-user-pass /etc/openvpn/client/office.pass\n\n$ cat /etc/openvpn/client/office.pass\n{name}\n{secret}"
                ),
                format!(
                    "C:\\> rasdial \"Office VPN\" {name} {secret}\nConnecting to Office VPN...\nCommand completed successfully."
                ),
                format!("$ sudo networksetup -setairportnetwork en0 \"{ssid}\" '{secret}'"),
                format!(
                    "# /etc/netplan/01-wifi.yaml\nnetwork:\n  version: 2\n  wifis:\n    wlan0:\n      dhcp4: true\n      access-points:\n        \"{ssid}\":\n          password: \"{secret}\""
                ),
                format!(
                    "<!-- /data/misc/apexdata/com.android.wifi/WifiConfigStore.xml -->\n<Network>\n<WifiConfiguration>\n<string name=\"ConfigKey\">&quot;{ssid}&quot;WPA_PSK</string>\n<string name=\"SSID\">&quot;{ssid}&quot;</string>\n<string name=\"PreSharedKey\">&quot;{secret}&quot;</string>\n</WifiConfiguration>\n</Network>"
                ),
                format!(
                    "[admin@MikroTik] > /interface wireless security-profiles set [ find default=yes ] authentication-types=wpa2-psk mode=dynamic-keys wpa2-pre-shared-key=\"{secret}\""
                ),
            ],
        );
        text(secret, line)
    }),
];
