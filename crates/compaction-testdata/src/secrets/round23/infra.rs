//! Round 23 families of infrastructure tools: VM image builders and provisioning, ops
//! platforms' secret commands, and backup tools' repository secrets.

use super::super::families::{Family, pick_line, text};
use super::{any_pw, any_secret, chosen_pw, host, user};

pub(super) const FAMILIES: &[Family] = &[
    ("vm-image-build-and-provisioning", |rng| {
        let secret = any_pw(rng);
        let (name, at) = (user(rng), host(rng));
        let line = pick_line(
            rng,
            vec![
                format!(
                    "$ virt-customize -a noble-server.qcow2 --root-password password:{secret} --hostname {at}\n[   0.0] Examining the guest ...\n[  12.4] Setting passwords\n[  14.1] Finishing off"
                ),
                format!(
                    "$ qm set 9001 --ciuser {name} --cipassword '{secret}' --ipconfig0 ip=dhcp\nupdate VM 9001: -ciuser {name} -cipassword <hidden> -ipconfig0 ip=dhcp"
                ),
                format!(
                    "# blueprint.toml (composer-cli blueprints push)\nname = \"edge-base\"\nversion = \"0.0.3\"\n\n[[customizations.user]]\nname = \"{name}\"\npassword = \"{secret}\"\ngroups = [\"wheel\"]"
                ),
                format!(
                    "source \"qemu\" \"base\" {{\n  iso_url      = \"https://{at}/isos/debian-12.iso\"\n  ssh_username = \"{name}\"\n  ssh_password = \"{secret}\"\n  ssh_timeout  = \"20m\"\n}}"
                ),
                format!(
                    "$ packer build -var 'ssh_password={secret}' -var 'vm_name=base' debian.pkr.hcl\nqemu.base: output will be in this color."
                ),
                format!(
                    "Vagrant.configure(\"2\") do |config|\n  config.vm.box = \"generic/alma9\"\n  config.ssh.username = \"{name}\"\n  config.ssh.password = \"{secret}\"\n  config.ssh.insert_key = false\nend"
                ),
                format!(
                    "$ virt-builder fedora-40 -o web.img --root-password password:{secret} --size 20G\n[   3.1] Downloading: http://builder.libguestfs.org/fedora-40.xz"
                ),
                format!(
                    "$ pvesh set /nodes/pve1/qemu/9001/config --cipassword {secret} --ciuser {name}\nupdate VM 9001: -cipassword <hidden> -ciuser {name}"
                ),
            ],
        );
        text(secret, line)
    }),
    ("ops-platform-secret-commands", |rng| {
        let secret = any_secret(rng);
        let (name, at) = (user(rng), host(rng));
        let line = pick_line(
            rng,
            vec![
                format!(
                    "$ juju config mysql-innodb-cluster root-password={secret}\n$ juju status mysql-innodb-cluster\nApp                   Version  Status"
                ),
                format!(
                    "$ bosh int creds.yml --path /admin_password\n{secret}\n$ bosh -e {at} login"
                ),
                format!(
                    "$ credhub set -n /concourse/main/{name}-db -t password -w '{secret}'\nid: 5b1c4e2a-0e7d-4a51-9a77-1f2e0d3c4b5a\nname: /concourse/main/{name}-db\ntype: password"
                ),
                format!(
                    "$ credhub get -n /prod/{name}/api\nid: 0a9f3c21-7d44-4c6b-8e1a-2b3c4d5e6f70\nname: /prod/{name}/api\ntype: value\nvalue: {secret}\nversion_created_at: \"2026-11-30T08:12:44Z\""
                ),
                format!(
                    "$ cf set-env orders-api DATABASE_PASSWORD '{secret}'\nSetting env variable DATABASE_PASSWORD for app orders-api in org acme / space prod as {name}..."
                ),
                format!(
                    "$ cf cups orders-db -p '{{\"uri\":\"mysql://{at}:3306/orders\",\"username\":\"{name}\",\"password\":\"{secret}\"}}'\nCreating user provided service orders-db in org acme / space prod as {name}..."
                ),
                format!(
                    "$ eyaml decrypt -f hieradata/common.eyaml\n---\nprofile::db::user: {name}\nprofile::db::password: DEC::PKCS7[{secret}]!\nprofile::db::host: {at}"
                ),
                format!(
                    "$ juju add-secret db-creds username={name} password={secret}\nsecret:csq7h3ie4vi0vr3ihbqg"
                ),
            ],
        );
        text(secret, line)
    }),
    ("backup-tool-repository-secrets", |rng| {
        let secret = chosen_pw(rng);
        let (name, at) = (user(rng), host(rng));
        let line = pick_line(
            rng,
            vec![
                format!(
                    "$ kopia repository connect s3 --bucket=acme-backups --endpoint={at} --password={secret}\nConnected to repository."
                ),
                format!(
                    "# /etc/cron.daily/offsite\nexport PASSPHRASE='{secret}'\nduplicity --full-if-older-than 1M /srv sftp://{name}@{at}//backups/srv\nunset PASSPHRASE"
                ),
                format!(
                    "# /etc/bacula/bacula-fd.conf\nDirector {{\n  Name = backup-dir\n  Password = \"{secret}\"\n}}\nFileDaemon {{\n  Name = {at}-fd\n  FDport = 9102\n}}"
                ),
                format!(
                    "# /etc/bareos/bconsole.conf\nDirector {{\n  Name = bareos-dir\n  Address = {at}\n  Password = \"{secret}\"\n  Description = \"Bareos Console credentials for local Director\"\n}}"
                ),
                format!(
                    "$ duplicati-cli backup \"s3://acme-backups/{name}?auth-username={name}\" /home --passphrase=\"{secret}\" --encryption-module=aes"
                ),
                format!(
                    "# .autorestic.yml\nversion: 2\nbackends:\n  nas:\n    type: rest\n    path: https://{at}:8000/{name}\n    key: {secret}\nlocations:\n  home:\n    from: /home\n    to: nas"
                ),
                format!(
                    "$ kopia repository create filesystem --path=/mnt/{name}/kopia\nEnter password to create new repository: {secret}\nRe-enter password for verification: {secret}\nInitializing repository with:"
                ),
            ],
        );
        text(secret, line)
    }),
];
