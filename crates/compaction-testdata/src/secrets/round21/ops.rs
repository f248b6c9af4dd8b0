//! Round 21 families of operations output: infrastructure plans, configuration management's
//! verbose output, Kubernetes, Helm and container dumps, and environment and process
//! listings.

use super::super::families::{Family, pick_line, text};
use super::{any_pw, any_secret, host, user};

pub(super) const FAMILIES: &[Family] = &[
    ("terraform-pulumi-and-cdk-plan-output", |rng| {
        let secret = any_secret(rng);
        let (name, at) = (user(rng), host(rng));
        let line = pick_line(
            rng,
            vec![
                format!(
                    "  # aws_db_instance.ledger will be updated in-place\n  ~ resource \"aws_db_instance\" \"ledger\" {{\n        id                = \"ledger\"\n      ~ password          = (sensitive value)\n      + master_user_secret = \"{secret}\"\n        # (41 unchanged attributes hidden)\n    }}"
                ),
                format!(
                    "$ terraform output -json\n{{\n  \"db_admin\": {{\n    \"sensitive\": true,\n    \"type\": \"string\",\n    \"value\": \"{secret}\"\n  }}\n}}"
                ),
                format!(
                    "$ terraform console\n> nonsensitive(random_password.admin.result)\n\"{secret}\""
                ),
                format!(
                    "$ terraform state show random_password.admin\n# random_password.admin:\nresource \"random_password\" \"admin\" {{\n    id      = \"none\"\n    length  = 20\n    result  = \"{secret}\"\n    special = true\n}}"
                ),
                format!(
                    "$ pulumi stack output --show-secrets\nCurrent stack outputs (3):\n    OUTPUT          VALUE\n    dbEndpoint      {at}\n    dbUser          {name}\n    dbPassword      {secret}"
                ),
                format!(
                    "Previewing update (prod):\n     Type                 Name       Plan       Info\n ~   aws:rds:Instance     ledger     update     [diff: ~password]\n\n    ~ aws:rds/instance:Instance: (update)\n        [urn=urn:pulumi:prod::ledger::aws:rds/instance:Instance::ledger]\n      ~ password: \"[secret]\" => \"{secret}\""
                ),
                format!(
                    "Resources\n[~] AWS::RDS::DBInstance Ledger LedgerDb1A2B3C\n └─ [~] MasterUserPassword\n     ├─ [-] old-value-hidden\n     └─ [+] {secret}"
                ),
                format!(
                    "module.db.aws_db_instance.this[0]: Modifying... [id={name}]\n  ~ admin_credentials = {{\n      ~ \"user\"     = \"{name}\"\n      + \"password\" = \"{secret}\"\n    }}"
                ),
            ],
        );
        text(secret, line)
    }),
    ("configuration-management-verbose-output", |rng| {
        let secret = any_pw(rng);
        let (name, at) = (user(rng), host(rng));
        let line = pick_line(
            rng,
            vec![
                format!(
                    "<{at}> ESTABLISH SSH CONNECTION FOR USER: ansible\nok: [{at}] => {{\n    \"changed\": false,\n    \"invocation\": {{\n        \"module_args\": {{\n            \"login_host\": \"localhost\",\n            \"login_password\": \"{secret}\",\n            \"login_user\": \"{name}\"\n        }}\n    }}\n}}"
                ),
                format!(
                    "TASK [debug] *******************************************************************\nok: [{at}] => {{\n    \"vault_{name}_pass\": \"{secret}\"\n}}"
                ),
                format!("changed: [{at}] => (item={{'name': '{name}', 'pass': '{secret}'}})"),
                format!(
                    "$ puppet lookup --explain profile::db::{name}_password\nSearching for \"profile::db::{name}_password\"\n  Global Data Provider (hiera configuration version 5)\n    Hierarchy entry \"common\"\n      Path \"/etc/puppetlabs/code/data/common.yaml\"\n        Found key: \"profile::db::{name}_password\" value: \"{secret}\""
                ),
                format!(
                    "Debug: Exec[create-{name}](provider=posix): Executing 'mysql -u root -e \"CREATE USER {name} IDENTIFIED BY \\'{secret}\\'\"'"
                ),
                format!(
                    "          ID: {name}_db_user\n    Function: mysql_user.present\n      Result: True\n     Comment: The user {name}@localhost has been added\n     Changes:\n              ----------\n              {name}@localhost:\n                  ----------\n                  password:\n                      {secret}"
                ),
                format!(
                    "2026-12-07 09:14:02,118 - cc_set_passwords.py[DEBUG]: Changing password for ['{name}']:\n2026-12-07 09:14:02,119 - subp.py[DEBUG]: Running command ['chpasswd'] with input '{name}:{secret}'"
                ),
                format!(
                    "[2026-12-07T09:14:02+00:00] DEBUG: Resource user[{name}] attributes: {{\"username\"=>\"{name}\", \"password\"=>\"{secret}\", \"home\"=>\"/home/{name}\"}}"
                ),
            ],
        );
        text(secret, line)
    }),
    ("kubernetes-helm-and-container-inspect-dumps", |rng| {
        let secret = any_secret(rng);
        let (name, at) = (user(rng), host(rng));
        let line = pick_line(
            rng,
            vec![
                format!(
                    "Containers:\n  ledger:\n    Image:          ghcr.io/acme/ledger:1.4.2\n    Port:           8080/TCP\n    Environment:\n      DB_HOST:      {at}\n      DB_USER:      {name}\n      DB_PASSWORD:  {secret}\n    Mounts:\n      /var/run/secrets/kubernetes.io/serviceaccount from kube-api-access-7x2bq (ro)"
                ),
                format!(
                    "Name:         ledger-config\nNamespace:    prod\n\nData\n====\nDB_HOST:\n----\n{at}\nDB_PASS:\n----\n{secret}\n\nBinaryData\n===="
                ),
                format!(
                    "$ helm get values ledger -n prod\nUSER-SUPPLIED VALUES:\nauth:\n  username: {name}\n  rootPassword: {secret}\nprimary:\n  persistence:\n    size: 20Gi"
                ),
                format!(
                    "NAME: ledger\nLAST DEPLOYED: Mon Dec  7 09:14:02 2026\nNAMESPACE: prod\nSTATUS: pending-install\nREVISION: 1\nUSER-SUPPLIED VALUES:\n{{}}\n\nCOMPUTED VALUES:\nglobal:\n  postgresql:\n    auth:\n      postgresPassword: {secret}\n      username: {name}"
                ),
                format!(
                    "$ docker inspect ledger --format '{{{{json .Config.Env}}}}'\n[\"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin\",\"DB_HOST={at}\",\"DB_PASSWORD={secret}\",\"LANG=C.UTF-8\"]"
                ),
                format!(
                    "$ docker compose config\nservices:\n  ledger:\n    environment:\n      DB_HOST: {at}\n      DB_PASSWORD: {secret}\n    image: ghcr.io/acme/ledger:1.4.2"
                ),
                format!(
                    "$ nomad job inspect ledger | jq '.Job.TaskGroups[0].Tasks[0].Env'\n{{\n  \"DB_HOST\": \"{at}\",\n  \"DB_SECRET\": \"{secret}\"\n}}"
                ),
                format!(
                    "$ kubectl exec deploy/ledger -- printenv\nPATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin\nHOSTNAME=ledger-5d8f7c9b6-x2k4q\nLEDGER_DB_USER={name}\nLEDGER_DB_PASS={secret}\nKUBERNETES_PORT=tcp://10.96.0.1:443"
                ),
            ],
        );
        text(secret, line)
    }),
    ("environment-and-process-listings", |rng| {
        let secret = any_secret(rng);
        let (name, at) = (user(rng), host(rng));
        let line = pick_line(
            rng,
            vec![
                format!(
                    "$ env | sort\nHOME=/home/{name}\nLANG=en_US.UTF-8\nLEDGER_API_SECRET={secret}\nLOGNAME={name}\nPATH=/usr/local/bin:/usr/bin:/bin\nSHELL=/bin/bash"
                ),
                format!(
                    "$ declare -p | grep -i -e pass -e secret\ndeclare -x PGHOST=\"{at}\"\ndeclare -x PGPASSWORD=\"{secret}\""
                ),
                format!(
                    "$ ps auxww | grep ledger\n{name}     4121  2.1  1.3 812344 52112 ?  Ssl  09:14   0:03 /opt/ledger/bin/ledger --db-host={at} --db-user={name} --db-password={secret} --port=8080"
                ),
                format!(
                    "$ sudo cat -v /proc/4121/environ\nHOME=/home/{name}^@LANG=C.UTF-8^@DB_HOST={at}^@DB_PASSWORD={secret}^@PATH=/usr/bin:/bin^@"
                ),
                format!(
                    "$ pgrep -af sync\n4121 /usr/bin/python3 /opt/sync/run.py --user {name} --password {secret} --host {at}"
                ),
                format!(
                    "$ systemctl show ledger.service -p Environment\nEnvironment=DB_HOST={at} DB_USER={name} DB_PASSWORD={secret}"
                ),
                format!(
                    "PS C:\\> Get-ChildItem Env: | Where-Object Name -like '*LEDGER*'\n\nName                           Value\n----                           -----\nLEDGER_HOST                    {at}\nLEDGER_SECRET                  {secret}"
                ),
                format!(
                    "$ top -b -c -n1 | head -8 | tail -1\n 4121 {name}  20   0  812344  52112  10240 S   2.0   1.3   0:03.11 /usr/bin/java -jar ledger.jar -Dspring.datasource.password={secret}"
                ),
            ],
        );
        text(secret, line)
    }),
];
