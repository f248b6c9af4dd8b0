//! The class "what a command made": a command that changes something outside the files
//! (a commit, a branch, a job, a container, a deployment, a release, a migration) prints
//! the name or id of what it made, the assistant goes on without repeating it, and a later
//! step needs it. Each family is one ecosystem, with three commands whose output buries
//! the line that names the result among other lines (hooks, progress, hints).

use super::super::*;
use super::Instance;

const CLASS: &str = "command result";

/// One instance: the command, its output, a subject the probe names, the text it expects.
type Case = (&'static str, &'static str, &'static str, &'static str);

/// The families, in order (a family's index decides its part).
const FAMILIES: [[Case; 3]; 12] = [
    // 0: git.
    [
        (
            "git commit -am 'Show pending bash runs in their own area'",
            "> lint-staged\n✔ Preparing lint-staged...\n✔ Running tasks for staged files...\n[refactor 803d4b6] Show pending bash runs in their own area\n 2 files changed, 33 insertions(+), 9 deletions(-)",
            "git commit",
            "803d4b6",
        ),
        (
            "git checkout -b fix/login-redirect",
            "Switched to a new branch 'fix/login-redirect'",
            "git checkout",
            "fix/login-redirect",
        ),
        (
            "git tag -a v2.4.0 -m 'Release 2.4.0' && git push origin v2.4.0",
            "Enumerating objects: 1, done.\nCounting objects: 100% (1/1), done.\nWriting objects: 100% (1/1), 172 bytes | 172.00 KiB/s, done.\nTotal 1 (delta 0), reused 0 (delta 0), pack-reused 0\nTo github.com:acme/shop.git\n * [new tag]         v2.4.0 -> v2.4.0",
            "git tag",
            "v2.4.0",
        ),
    ],
    // 1: GitHub CLI.
    [
        (
            "gh pr create --fill --base main",
            "Warning: 2 uncommitted changes\n\nCreating pull request for fix/login-redirect into main in acme/shop\n\nhttps://github.com/acme/shop/pull/1482",
            "gh pr create",
            "https://github.com/acme/shop/pull/1482",
        ),
        (
            "gh issue create --title 'Flaky checkout test' --body-file notes.md",
            "Creating issue in acme/shop\n\nhttps://github.com/acme/shop/issues/977",
            "gh issue create",
            "https://github.com/acme/shop/issues/977",
        ),
        (
            "gh workflow run deploy.yml --ref main && gh run list --workflow deploy.yml --limit 1",
            "✓ Created workflow_dispatch event for deploy.yml at main\n\nTo see runs for this workflow, try: gh run list --workflow=deploy.yml\nSTATUS  TITLE   WORKFLOW  BRANCH  EVENT              ID           ELAPSED  AGE\n*       Deploy  deploy    main    workflow_dispatch  9123456781   4s       now",
            "gh workflow run",
            "9123456781",
        ),
    ],
    // 2: containers.
    [
        (
            "docker run -d --name pg-test -p 5433:5432 postgres:16",
            "Unable to find image 'postgres:16' locally\n16: Pulling from library/postgres\nDigest: sha256:4aea012537edfad80f98d870a36e6b90b4c09b27be7f4b4759d72db863baeebb\nStatus: Downloaded newer image for postgres:16\n3f1c9e2a7b4d8e6f0a1b2c3d4e5f60718293a4b5c6d7e8f9a0b1c2d3e4f5a6b7",
            "docker run",
            "3f1c9e2a7b4d",
        ),
        (
            "docker build -t shop-api:dev .",
            "[+] Building 41.2s (12/12) FINISHED\n => [internal] load build definition from Dockerfile\n => exporting to image\n => => writing image sha256:9b2e7c41d0f3a8b6c5d4e3f2a1b0c9d8e7f6a5b4c3d2e1f0a9b8c7d6e5f4a3b2\n => => naming to docker.io/library/shop-api:dev",
            "docker build",
            "sha256:9b2e7c41d0f3",
        ),
        (
            "docker compose up -d",
            "[+] Running 3/3\n ✔ Network shop_default    Created\n ✔ Container shop-db-1   Started\n ✔ Container shop-api-1  Started",
            "docker compose",
            "shop-api-1",
        ),
    ],
    // 3: Kubernetes and Helm.
    [
        (
            "kubectl apply -f k8s/migrate-job.yaml",
            "configmap/migrate-env unchanged\njob.batch/migrate-20240611-7f9c2 created",
            "kubectl apply",
            "migrate-20240611-7f9c2",
        ),
        (
            "helm upgrade --install billing charts/billing -n billing",
            "Release \"billing\" has been upgraded. Happy Helming!\nNAME: billing\nLAST DEPLOYED: Tue Jun 11 10:02:11 2024\nNAMESPACE: billing\nSTATUS: deployed\nREVISION: 14\nTEST SUITE: None",
            "helm upgrade",
            "REVISION: 14",
        ),
        (
            "kubectl create namespace preview-4412",
            "namespace/preview-4412 created",
            "kubectl create",
            "preview-4412",
        ),
    ],
    // 4: batch jobs and background processes.
    [
        ("sbatch --gres=gpu:4 train.slurm", "Submitted batch job 4417209", "sbatch", "4417209"),
        (
            "nohup python serve.py --port 8090 > serve.log 2>&1 & echo $!",
            "[1] 28817\n28817",
            "serve.py",
            "28817",
        ),
        (
            "qsub -l walltime=04:00:00 align.pbs",
            "7713042.pbs-server01",
            "qsub",
            "7713042.pbs-server01",
        ),
    ],
    // 5: deployments.
    [
        (
            "fly deploy --remote-only",
            "==> Verifying app config\n--> Verified app config\n==> Building image\n--> Pushing image done\nimage: registry.fly.io/shop-api:deployment-01HZX3K9Q2\n\nWatch your deployment at https://fly.io/apps/shop-api/monitoring\n\nVisit your newly deployed app at https://shop-api.fly.dev/",
            "fly deploy",
            "deployment-01HZX3K9Q2",
        ),
        (
            "gcloud run deploy reports --source . --region europe-west1",
            "Building using Dockerfile and deploying container to Cloud Run service [reports]\nOK Building and deploying... Done.\nDone.\nService [reports] revision [reports-00027-vuz] has been deployed and is serving 100 percent of traffic.\nService URL: https://reports-7hq2kx3d4a-ew.a.run.app",
            "gcloud run deploy",
            "reports-00027-vuz",
        ),
        (
            "vercel --prod",
            "Vercel CLI 33.5.0\n🔍  Inspect: https://vercel.com/acme/web/8Xk2pQz [2s]\n✅  Production: https://web-k3j9x2ab1-acme.vercel.app [41s]",
            "vercel",
            "https://web-k3j9x2ab1-acme.vercel.app",
        ),
    ],
    // 6: packages and releases.
    [
        ("npm version minor -m 'Release %s'", "v1.14.0", "npm version", "v1.14.0"),
        (
            "cargo publish -p ledger-core",
            "    Updating crates.io index\n   Packaging ledger-core v0.7.3 (/work/ledger/core)\n   Verifying ledger-core v0.7.3 (/work/ledger/core)\n   Compiling ledger-core v0.7.3\n    Finished dev [unoptimized + debuginfo] target(s) in 9.81s\n   Uploading ledger-core v0.7.3 (/work/ledger/core)\n    Uploaded ledger-core v0.7.3 to registry `crates-io`",
            "cargo publish",
            "v0.7.3",
        ),
        (
            "gh release create v3.0.0-rc.2 dist/*.tar.gz --prerelease --notes-file CHANGES.md",
            "https://github.com/acme/cli/releases/tag/v3.0.0-rc.2",
            "gh release",
            "v3.0.0-rc.2",
        ),
    ],
    // 7: database migrations.
    [
        (
            "npx prisma migrate dev --name add_invoice_due_date",
            "Environment variables loaded from .env\nPrisma schema loaded from prisma/schema.prisma\nDatasource \"db\": PostgreSQL database \"shop\" at \"localhost:5432\"\n\nApplying migration `20240611093012_add_invoice_due_date`\n\nThe following migration(s) have been created and applied from new schema changes:\n\nmigrations/\n  └─ 20240611093012_add_invoice_due_date/\n    └─ migration.sql\n\nYour database is now in sync with your schema.",
            "prisma migrate",
            "20240611093012_add_invoice_due_date",
        ),
        (
            "alembic revision --autogenerate -m 'add audit table'",
            "INFO  [alembic.runtime.migration] Context impl PostgresqlImpl.\nINFO  [alembic.runtime.migration] Will assume transactional DDL.\nINFO  [alembic.autogenerate.compare] Detected added table 'audit_log'\n  Generating /srv/app/migrations/versions/4c8e1d2f9a7b_add_audit_table.py ...  done",
            "alembic revision",
            "4c8e1d2f9a7b",
        ),
        (
            "python manage.py makemigrations orders",
            "Migrations for 'orders':\n  orders/migrations/0042_order_refund_reason.py\n    - Add field refund_reason to order",
            "makemigrations",
            "0042_order_refund_reason",
        ),
    ],
    // 8: cloud storage and queues.
    [
        (
            "aws s3 cp build/report.pdf s3://acme-reports/2024/06/",
            "upload: build/report.pdf to s3://acme-reports/2024/06/report.pdf",
            "aws s3 cp",
            "s3://acme-reports/2024/06/report.pdf",
        ),
        (
            "aws sqs create-queue --queue-name invoice-events-dlq",
            "{\n    \"QueueUrl\": \"https://sqs.eu-west-1.amazonaws.com/123456789012/invoice-events-dlq\"\n}",
            "create-queue",
            "https://sqs.eu-west-1.amazonaws.com/123456789012/invoice-events-dlq",
        ),
        (
            "gsutil mb -l EU gs://acme-exports-2024",
            "Creating gs://acme-exports-2024/...",
            "gsutil mb",
            "gs://acme-exports-2024",
        ),
    ],
    // 9: project generators and keys.
    [
        (
            "npm create vite@latest admin-panel -- --template react-ts",
            "\nScaffolding project in /home/dev/work/admin-panel...\n\nDone. Now run:\n\n  cd admin-panel\n  npm install\n  npm run dev",
            "create vite",
            "/home/dev/work/admin-panel",
        ),
        (
            "ssh-keygen -t ed25519 -f ~/.ssh/deploy_shop -N '' -C deploy@shop",
            "Generating public/private ed25519 key pair.\nYour identification has been saved in /home/dev/.ssh/deploy_shop\nYour public key has been saved in /home/dev/.ssh/deploy_shop.pub\nThe key fingerprint is:\nSHA256:Qm3x8kP1vR7tY2uW9zA4bC6dE0fG5hJ8kL1mN3oP5qR deploy@shop",
            "ssh-keygen",
            "/home/dev/.ssh/deploy_shop.pub",
        ),
        (
            "cargo new --lib ledger-sync",
            "    Creating library `ledger-sync` package\nnote: see more `Cargo.toml` keys and their definitions at https://doc.rust-lang.org/cargo/reference/manifest.html",
            "cargo new",
            "ledger-sync",
        ),
    ],
    // 10: test runs that report their counts in their own words.
    [
        (
            "cargo test --workspace 2>&1 | tail -4",
            "test result: FAILED. 41 passed; 5 failed; 0 ignored; 0 measured; 0 filtered out; finished in 2.31s\n\nerror: test failed, to rerun pass `-p ledger-core --lib`\nerror: 5 test(s) failed",
            "cargo test",
            "5 failed",
        ),
        (
            "npx jest --silent",
            "Test Suites: 2 failed, 14 passed, 16 total\nTests:       3 failed, 212 passed, 215 total\nSnapshots:   0 total\nTime:        18.204 s\nRan all test suites.",
            "jest",
            "3 failed, 212 passed",
        ),
        (
            "go test ./... 2>&1 | tail -3",
            "ok  \tshop/internal/cart\t0.412s\n--- FAIL: TestCheckoutTotals (0.01s)\nFAIL\tshop/internal/checkout\t0.087s",
            "go test",
            "TestCheckoutTotals",
        ),
    ],
    // 11: remote machines and services.
    [
        (
            "terraform apply -auto-approve",
            "aws_instance.worker[0]: Creating...\naws_instance.worker[0]: Still creating... [10s elapsed]\naws_instance.worker[0]: Creation complete after 32s [id=i-0a7c3e9f12b4d5e68]\n\nApply complete! Resources: 1 added, 0 changed, 0 destroyed.\n\nOutputs:\n\nworker_ip = \"18.194.77.201\"",
            "terraform apply",
            "18.194.77.201",
        ),
        (
            "stripe products create --name 'Pro plan'",
            "{\n  \"id\": \"prod_QJx81Zb3nM2pLw\",\n  \"object\": \"product\",\n  \"active\": true,\n  \"name\": \"Pro plan\"\n}",
            "stripe products create",
            "prod_QJx81Zb3nM2pLw",
        ),
        (
            "ngrok http 3000 --log stdout | head -3",
            "t=2024-06-11T10:12:01+0000 lvl=info msg=\"starting web service\" obj=web addr=127.0.0.1:4040\nt=2024-06-11T10:12:02+0000 lvl=info msg=\"tunnel session started\" obj=tunnels.session\nt=2024-06-11T10:12:02+0000 lvl=info msg=\"started tunnel\" obj=tunnels name=command_line addr=http://localhost:3000 url=https://7c1e-81-2-69-160.ngrok-free.app",
            "ngrok",
            "https://7c1e-81-2-69-160.ngrok-free.app",
        ),
    ],
];

/// Every instance: the request, the command and its output, a reply that does not repeat
/// the result, then unrelated turns.
pub(super) fn command_results() -> Vec<Instance> {
    let mut out = Vec::new();
    for (family, cases) in FAMILIES.iter().enumerate() {
        for (index, (command, output, subject, expected)) in cases.iter().enumerate() {
            let id = format!("r{family}_{index}");
            let mut messages = vec![
                user("Go ahead with the next step of the plan."),
                assistant("", &[(&id, "Bash", json!({ "command": command }))]),
                result(&id, "Bash", output, false),
                assistant("That step is done; moving on.", &[]),
            ];
            messages.extend(super::families::filler(3, family));
            out.push(Instance::new(CLASS, family, messages).expect(&[subject], expected));
        }
    }
    out
}
