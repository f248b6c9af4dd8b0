//! Round 12 families in configs and code: installer answer files, VoIP accounts, YAML anchors,
//! HCL heredocs, mobile and less common languages, positional arguments, pipelines, consoles.

use super::super::families::{Family, pick_line, text};
use super::super::values::{token, token_between};
use super::plain_pw;

pub(super) const FAMILIES: &[Family] = &[
    ("os-installer-answer-files", |rng| {
        let pw = plain_pw(rng);
        let line = pick_line(
            rng,
            vec![
                format!(
                    "lang en_US.UTF-8\nkeyboard us\nrootpw --plaintext {pw}\nuser --name=ops --password={pw} --plaintext"
                ),
                format!(
                    "d-i passwd/root-login boolean true\nd-i passwd/root-password password {pw}\nd-i passwd/root-password-again password {pw}"
                ),
                format!(
                    "<UserAccounts>\n  <AdministratorPassword>\n    <Value>{pw}</Value>\n    <PlainText>true</PlainText>\n  </AdministratorPassword>\n</UserAccounts>"
                ),
                format!(
                    "#cloud-config\nusers:\n  - name: ops\n    lock_passwd: false\n    plain_text_passwd: {pw}"
                ),
                format!(
                    "<AutoLogon>\n  <Password>\n    <Value>{pw}</Value>\n  </Password>\n  <Enabled>true</Enabled>\n  <Username>Administrator</Username>\n</AutoLogon>"
                ),
            ],
        );
        text(pw, line)
    }),
    ("voip-sip-accounts", |rng| {
        let pw = plain_pw(rng);
        let ext = rng.range(100, 9999);
        let line = pick_line(
            rng,
            vec![
                format!("[{ext}]\ntype=friend\nhost=dynamic\nsecret={pw}\ncontext=internal"),
                format!(
                    "[{ext}-auth]\ntype=auth\nauth_type=userpass\nusername={ext}\npassword={pw}"
                ),
                format!(
                    "<user id=\"{ext}\">\n  <params>\n    <param name=\"password\" value=\"{pw}\"/>\n  </params>\n</user>"
                ),
                format!("<sip:{ext}@pbx.acme.dev>;auth_user={ext};auth_pass={pw};regint=600"),
                format!("[auth_info_0]\nusername={ext}\npasswd={pw}\nrealm=pbx.acme.dev"),
            ],
        );
        text(pw, line)
    }),
    ("yaml-anchors-and-complex-keys", |rng| {
        let pw = plain_pw(rng);
        let line = pick_line(
            rng,
            vec![
                format!(
                    "x-db-pass: &dbpass \"{pw}\"\nservices:\n  api:\n    environment:\n      DB_PASS: *dbpass"
                ),
                format!("? password\n: {pw}\n? user\n: app"),
                format!(
                    "---\nkind: A\n...\n---\nsmtp: {{host: mail.acme.dev, user: bot, pass: {pw}}}"
                ),
                format!("defaults: &creds\n  login: ops\n  secret: {pw}\nprod:\n  <<: *creds"),
                format!("auth:\n  - [user, ops]\n  - [password, {pw}]"),
            ],
        );
        text(pw, line)
    }),
    ("hcl-heredocs-and-functions", |rng| {
        let tok = token_between(rng, 28, 40);
        let line = pick_line(
            rng,
            vec![
                format!(
                    "resource \"aws_secretsmanager_secret_version\" \"api\" {{\n  secret_string = <<EOT\n{tok}\nEOT\n}}"
                ),
                format!(
                    "variable \"api_token\" {{\n  type      = string\n  sensitive = true\n  default   = sensitive(\"{tok}\")\n}}"
                ),
                format!("locals {{\n  creds = jsonencode({{ token = \"{tok}\" }})\n}}"),
                format!("env = tomap({{\n  SERVICE_KEY = \"{tok}\"\n}})"),
                format!(
                    "job \"api\" {{\n  group \"web\" {{\n    task \"app\" {{\n      template {{\n        data = <<-EOF\n          ACCESS_TOKEN={tok}\n        EOF\n      }}\n    }}\n  }}\n}}"
                ),
            ],
        );
        text(tok, line)
    }),
    ("swift-objc-dart-literals", |rng| {
        let tok = token_between(rng, 28, 40);
        let line = pick_line(
            rng,
            vec![
                format!("enum Keys {{\n    static let clientSecret = \"{tok}\"\n}}"),
                format!("static NSString * const kAPISecret = @\"{tok}\";"),
                format!("class Env {{\n  static const String apiKey = '{tok}';\n}}"),
                format!("[Analytics setupWithWriteKey:@\"{tok}\"];"),
                format!("private let authToken: String = \"{tok}\""),
            ],
        );
        text(tok, line)
    }),
    ("less-common-language-constants", |rng| {
        let tok = token_between(rng, 24, 36);
        let line = pick_line(
            rng,
            vec![
                format!("let apiSecret* = \"{tok}\"  # nim"),
                format!("API_TOKEN :: \"{tok}\""),
                format!("const access_token = '{tok}'"),
                format!("enum secretKey = \"{tok}\";"),
                format!("character(len=*), parameter :: api_key = '{tok}'"),
                format!("       01 WS-API-KEY       PIC X(32) VALUE '{tok}'."),
                format!("pub const auth_token = \"{tok}\""),
            ],
        );
        text(tok, line)
    }),
    ("positional-credential-arguments", |rng| {
        let pw = plain_pw(rng);
        let line = pick_line(
            rng,
            vec![
                format!(
                    "credentials += Credentials(\"Sonatype Nexus\", \"nexus.acme.dev\", \"deploy\", \"{pw}\")"
                ),
                format!("var cred = new NetworkCredential(\"svc-report\", \"{pw}\", \"CORP\");"),
                format!("$link = mysqli_connect(\"localhost\", \"shop\", \"{pw}\", \"shop\");"),
                format!("server.login(\"alerts@acme.dev\", \"{pw}\")"),
                format!("ftp = FTP('ftp.acme.dev')\nftp.login('deploy', '{pw}')"),
                format!("return new PasswordAuthentication(\"mailer\", \"{pw}\".toCharArray());"),
                format!("conn = DriverManager.getConnection(url, \"app\", \"{pw}\");"),
            ],
        );
        text(pw, line)
    }),
    ("jenkins-and-groovy-pipelines", |rng| {
        let tok = token_between(rng, 28, 40);
        let line = pick_line(
            rng,
            vec![
                format!(
                    "withEnv([\"DEPLOY_TOKEN={tok}\", \"STAGE=prod\"]) {{\n  sh './deploy.sh'\n}}"
                ),
                format!("pipeline {{\n  environment {{\n    SONAR_LOGIN = '{tok}'\n  }}\n}}"),
                format!("def slackToken = '{tok}'\nslackSend(token: slackToken, channel: '#ci')"),
                format!(
                    "build job: 'release', parameters: [string(name: 'API_TOKEN', value: '{tok}')]"
                ),
                format!("node {{\n  env.REGISTRY_SECRET = \"{tok}\"\n}}"),
            ],
        );
        text(tok, line)
    }),
    ("android-and-firebase-resources", |rng| {
        let key = format!("AIza{}", token(rng, 35));
        let tok = token_between(rng, 28, 40);
        let (secret, line) = match rng.below(5) {
            0 => (
                tok.clone(),
                format!(
                    "<resources>\n    <string name=\"facebook_client_token\">{tok}</string>\n</resources>"
                ),
            ),
            1 => (
                tok.clone(),
                format!(
                    "<meta-data\n    android:name=\"com.acme.sdk.ApiSecret\"\n    android:value=\"{tok}\" />"
                ),
            ),
            2 => (
                key.clone(),
                format!("\"api_key\": [\n  {{\n    \"current_key\": \"{key}\"\n  }}\n]"),
            ),
            3 => (
                tok.clone(),
                format!(
                    "<string name=\"mapbox_access_token\" translatable=\"false\">{tok}</string>"
                ),
            ),
            _ => (tok.clone(), format!("manifestPlaceholders = [sdkSecret: \"{tok}\"]")),
        };
        text(secret, line)
    }),
    ("bmc-and-vnc-consoles", |rng| {
        let pw = plain_pw(rng);
        let line = pick_line(
            rng,
            vec![
                format!("racadm -r 10.0.4.21 -u root -p {pw} serveraction powercycle"),
                format!("x11vnc -display :0 -forever -passwd {pw}"),
                format!("redfishtool -r bmc01.acme.dev -u admin -p '{pw}' Systems reset"),
                format!(
                    "https://kvm.acme.dev/vnc.html?host=kvm&port=6080&password={pw}&autoconnect=true"
                ),
                format!("echo '{pw}' | vncpasswd -f > ~/.vnc/passwd"),
                format!("smcipmitool 10.0.4.30 ADMIN {pw} shell"),
            ],
        );
        text(pw, line)
    }),
];
