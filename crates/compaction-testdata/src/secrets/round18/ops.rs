//! Round 18 families of operations: admin commands of queues, caches and stores, CI pipeline
//! files of other vendors, infrastructure-as-code parameter files, cloud CLIs' password flags,
//! and Windows service and task commands.

use super::super::families::{Family, pick_line, text};
use super::super::values::bare_token;
use super::{chosen_pw, host, user};

pub(super) const FAMILIES: &[Family] = &[
    ("queue-cache-and-store-admin-commands", |rng| {
        let pw = chosen_pw(rng);
        let (name, at) = (user(rng), host(rng));
        let line = pick_line(
            rng,
            vec![
                format!(
                    "rabbitmqctl add_user {name} '{pw}' && rabbitmqctl set_user_tags {name} administrator"
                ),
                format!("rabbitmqadmin -H {at} -u {name} -p '{pw}' list queues"),
                format!("etcdctl --endpoints=https://{at}:2379 --user root:'{pw}' get /config"),
                format!(
                    "kcat -b {at}:9093 -X security.protocol=SASL_SSL -X sasl.mechanisms=PLAIN -X sasl.username={name} -X sasl.password='{pw}' -L"
                ),
                format!("valkey-cli -h {at} --user {name} --pass '{pw}' --no-auth-warning PING"),
                format!(
                    "influx setup --username {name} --password '{pw}' --org acme --bucket metrics --force"
                ),
                format!(
                    "clickhouse-client --host {at} --user {name} --password '{pw}' --query 'SELECT 1'"
                ),
                format!("vault login -method=userpass username={name} password='{pw}'"),
                format!("nats --server nats://{at}:4222 --user {name} --password '{pw}' stream ls"),
            ],
        );
        text(pw, line)
    }),
    ("ci-pipeline-files-of-other-vendors", |rng| {
        let pw = chosen_pw(rng);
        let line = pick_line(
            rng,
            vec![
                format!(
                    "# .gitlab-ci.yml\nvariables:\n  DOCKER_DRIVER: overlay2\n  NEXUS_PASSWORD: \"{pw}\"\ndeploy:\n  script: ./deploy.sh"
                ),
                format!(
                    "# bitbucket-pipelines.yml\n- pipe: atlassian/sftp-deploy:0.5.11\n  variables:\n    USER: deploy\n    PASSWORD: '{pw}'\n    SERVER: files.example.net"
                ),
                format!(
                    "# azure-pipelines.yml\nvariables:\n- name: sqlAdminPassword\n  value: '{pw}'\n- name: buildConfiguration\n  value: Release"
                ),
                format!(
                    "pipeline {{\n  agent any\n  environment {{\n    REGISTRY_PASS = '{pw}'\n  }}\n}}"
                ),
                format!(
                    "# .drone.yml\nsteps:\n- name: publish\n  image: plugins/docker\n  settings:\n    username: ci\n    password: {pw}"
                ),
                format!(
                    "# .circleci/config.yml\n    environment:\n      PGPASSWORD: {pw}\n      PGUSER: circle"
                ),
                format!(
                    "<param name=\"env.DB_PASSWORD\" value=\"{pw}\" spec=\"password display='hidden'\" />"
                ),
                format!("# .woodpecker.yml\n    environment:\n      SFTP_PASS: \"{pw}\""),
            ],
        );
        text(pw, line)
    }),
    ("iac-parameter-files-other-tools", |rng| {
        let pw = chosen_pw(rng);
        let line = pick_line(
            rng,
            vec![
                format!(
                    "# Pulumi.prod.yaml\nconfig:\n  aws:region: eu-west-1\n  shop:dbPassword: {pw}"
                ),
                format!("// main.bicepparam\nusing './main.bicep'\nparam adminPassword = '{pw}'"),
                format!(
                    "{{\n  \"parameters\": {{\n    \"adminPassword\": {{ \"value\": \"{pw}\" }},\n    \"vmSize\": {{ \"value\": \"Standard_B2s\" }}\n  }}\n}}"
                ),
                format!("masterUserPassword: SecretValue.unsafePlainText('{pw}'),"),
                format!(
                    "# windows.pkrvars.hcl\nwinrm_username = \"Administrator\"\nwinrm_password = \"{pw}\""
                ),
                format!("config.winrm.password = \"{pw}\""),
                format!("#cloud-config\nchpasswd:\n  expire: false\n  list: |\n    ubuntu:{pw}"),
                format!("# pillar/mysql.sls\nmysql:\n  server:\n    root_pass: '{pw}'"),
            ],
        );
        text(pw, line)
    }),
    ("cloud-cli-password-flags-other-providers", |rng| {
        let pw = chosen_pw(rng);
        let key = bare_token(rng);
        let (secret, line) = match rng.below(8) {
            0 => (
                pw.clone(),
                format!(
                    "az vm create -g rg-app -n vm01 --image Win2022Datacenter --admin-username azureuser --admin-password '{pw}'"
                ),
            ),
            1 => (
                pw.clone(),
                format!(
                    "gcloud sql users set-password postgres --instance=prod-db --password='{pw}'"
                ),
            ),
            2 => (
                pw.clone(),
                format!(
                    "linode-cli linodes create --type g6-standard-2 --region eu-central --root_pass '{pw}'"
                ),
            ),
            3 => (
                pw.clone(),
                format!(
                    "aws rds create-db-instance --db-instance-identifier app --master-username admin --master-user-password '{pw}'"
                ),
            ),
            4 => (key.clone(), format!("ibmcloud login --apikey {key} -r eu-de")),
            5 => (
                key.clone(),
                format!(
                    "aliyun configure set --profile prod --mode AK --access-key-id LTAI5tQ8x2 --access-key-secret {key}"
                ),
            ),
            6 => (
                pw.clone(),
                format!("az sql server create -n sql-east -g rg-data -u sqladmin -p '{pw}'"),
            ),
            _ => {
                (key.clone(), format!("tccli configure set secretId AKIDz8krbsJ5 secretKey {key}"))
            }
        };
        text(secret, line)
    }),
    ("windows-service-and-task-commands", |rng| {
        let pw = chosen_pw(rng);
        let name = user(rng);
        let line = pick_line(
            rng,
            vec![
                format!("sc.exe config AppPool obj= \".\\{name}\" password= \"{pw}\""),
                format!(
                    "schtasks /create /tn \"Nightly Backup\" /tr C:\\ops\\backup.cmd /sc daily /ru CORP\\{name} /rp {pw}"
                ),
                format!("cmdkey /add:fs01.corp.local /user:CORP\\{name} /pass:{pw}"),
                format!("net user {name} {pw} /add /expires:never"),
                format!("netdom join WS042 /domain:corp.local /userd:CORP\\{name} /passwordd:{pw}"),
                format!("winrs -r:https://app01:5986 -u:{name} -p:{pw} ipconfig /all"),
                format!(
                    "C:\\> runas /user:CORP\\{name} cmd\nEnter the password for CORP\\{name}: {pw}"
                ),
            ],
        );
        text(pw, line)
    }),
];
