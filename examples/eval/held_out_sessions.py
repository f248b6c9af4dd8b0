#!/usr/bin/env python3
"""Writes three more evaluation sessions (deterministic; run from this directory):
express-prisma.jsonl, docker-ci.jsonl and fastapi-notes.jsonl.

They were written, with their probes, before the summarizer was run on them, as a check on
shapes the other sessions do not have: tsc's pretty output (`file:line:col - error TS…`),
Jest's `●` report, Prisma errors, a provider error (`stopReason: "error"`, overloaded) the
user answers with "continue", user messages whose content is a plain string or carries an
image, a revert through `git checkout -- file`, a rule given as "btw, never …", a
Docker/CI session where most changes are configuration (BuildKit logs pasted by the user,
a container healthcheck, actionlint, a file deleted with `rm`), and a FastAPI session that
continues after the user came back from an abandoned branch (a `branch_summary` entry in
the path), with a question answered in prose, successive requests that narrow the first,
and a mypy failure still open at the end.
"""

from write_sessions import Session


def user_text(s, text):
    """A user message whose content is a plain string, as pi writes typed input."""
    s.add("message", message={"role": "user", "content": text, "timestamp": s.ms()})


def express_prisma():
    s = Session("express-prisma", "/home/dev/invoice-api", "claude-sonnet-4-5")
    user_text(s, "GET /invoices is slow for big customers. add cursor pagination: `limit` and "
                 "`cursor` query params, max limit 100. use prisma for it, no raw SQL. the response "
                 "must stay backwards compatible, `items` stays a top-level array.")
    s.tool("I'll find the route first.", "grep", {"pattern": "invoices", "path": "src"},
           "src/app.ts:14: app.use('/invoices', invoicesRouter);\n"
           "src/routes/invoices.ts:9: invoicesRouter.get('/', async (req, res) => {\n")
    s.tool(None, "read", {"path": "src/routes/invoices.ts"},
           "import { Router } from 'express';\nimport { prisma } from '../db';\n\n"
           "export const invoicesRouter = Router();\n\n"
           "invoicesRouter.get('/', async (req, res) => {\n"
           "  const items = await prisma.invoice.findMany({ where: { customerId: req.user.customerId }, orderBy: { id: 'asc' } });\n"
           "  res.json({ items });\n});\n")
    s.tool(None, "read", {"path": "src/routes/customers.ts"},
           "import { z } from 'zod';\n\nconst listQuery = z.object({ q: z.string().optional() });\n"
           "customersRouter.get('/', async (req, res) => {\n  const query = listQuery.parse(req.query);\n")
    s.tool("I'll put the cursor logic in a helper.", "write",
           {"path": "src/lib/pagination.ts",
            "content": "export function pageArgs(limit: number, cursor?: string) {\n"
                       "  return { take: limit, ...(cursor ? { cursor: { id: cursor } } : {}) };\n}\n"},
           "Successfully wrote 142 bytes to src/lib/pagination.ts")
    s.tool(None, "edit", {"path": "src/routes/invoices.ts",
                          "oldText": "  const items = await prisma.invoice.findMany({ where: { customerId: req.user.customerId }, orderBy: { id: 'asc' } });\n  res.json({ items });",
                          "newText": "  const limit = Math.min(req.query.limit ?? 50, 100);\n"
                                     "  const items = await prisma.invoice.findMany({ where: { customerId: req.user.customerId }, orderBy: { id: 'asc' }, ...pageArgs(limit, req.query.cursor) });\n"
                                     "  res.json({ items, nextCursor: items.length === limit ? items[items.length - 1].id : null });"},
           "Successfully replaced text in src/routes/invoices.ts.")
    s.tool(None, "bash", {"command": "pnpm tsc --noEmit"},
           "src/routes/invoices.ts:7:26 - error TS2365: Operator '??' cannot be applied to types "
           "'string | ParsedQs | string[] | ParsedQs[]' and 'number'.\n\n"
           "7   const limit = Math.min(req.query.limit ?? 50, 100);\n"
           "                           ~~~~~~~~~~~~~~~~~~~~~\n\n"
           "src/routes/invoices.ts:8:120 - error TS2345: Argument of type 'string | ParsedQs | "
           "string[] | ParsedQs[] | undefined' is not assignable to parameter of type 'string | undefined'.\n\n"
           "Found 2 errors in the same file, starting at: src/routes/invoices.ts:7\n\n"
           "Command exited with code 2", True)
    s.tool("The query values are untyped. I'll cast them: `Number(req.query.limit as any)` and "
           "`req.query.cursor as any`.", "edit",
           {"path": "src/routes/invoices.ts",
            "oldText": "Math.min(req.query.limit ?? 50, 100)",
            "newText": "Math.min(Number(req.query.limit as any) || 50, 100)"},
           "Successfully replaced text in src/routes/invoices.ts.")
    user_text(s, "wait, that's not right. no `as any` in this codebase. parse the query with zod "
                 "like customers.ts does.")
    s.tool("Understood, I'll undo the cast first.", "bash",
           {"command": "git checkout -- src/routes/invoices.ts"}, "")
    s.tool("Now the zod version.", "edit",
           {"path": "src/routes/invoices.ts",
            "oldText": "  const items = await prisma.invoice.findMany({ where: { customerId: req.user.customerId }, orderBy: { id: 'asc' } });\n  res.json({ items });",
            "newText": "  const { limit, cursor } = pageQuery.parse(req.query);\n"
                       "  const items = await prisma.invoice.findMany({ where: { customerId: req.user.customerId }, orderBy: { id: 'asc' }, ...pageArgs(limit, cursor) });\n"
                       "  res.json({ items, nextCursor: items.length === limit ? items[items.length - 1].id : null });"},
           "Successfully replaced text in src/routes/invoices.ts.")
    s.tool(None, "edit", {"path": "src/routes/invoices.ts",
                          "oldText": "export const invoicesRouter = Router();\n",
                          "newText": "export const invoicesRouter = Router();\n\n"
                                     "const pageQuery = z.object({ limit: z.coerce.number().int().min(1).max(100).default(50), cursor: z.string().optional() });\n"},
           "Successfully replaced text in src/routes/invoices.ts.")
    s.tool(None, "bash", {"command": "pnpm tsc --noEmit"}, "")
    s.tool("Types check. I'll add a test for the second page.", "write",
           {"path": "tests/invoices.test.ts",
            "content": "describe('GET /invoices', () => {\n  it('returns the first page', async () => { /* … */ });\n"
                       "  it('returns the next page from the cursor', async () => {\n"
                       "    const first = await request(app).get('/invoices?limit=50');\n"
                       "    const next = await request(app).get(`/invoices?limit=50&cursor=${first.body.nextCursor}`);\n"
                       "    expect(next.body.items[0].id).toEqual('inv_0051');\n  });\n});\n"},
           "Successfully wrote 688 bytes to tests/invoices.test.ts")
    s.tool(None, "bash", {"command": "pnpm jest tests/invoices.test.ts"},
           " FAIL  tests/invoices.test.ts\n  GET /invoices\n    ✓ returns the first page (45 ms)\n"
           "    ✕ returns the next page from the cursor (12 ms)\n\n"
           "  ● GET /invoices › returns the next page from the cursor\n\n"
           "    expect(received).toEqual(expected) // deep equality\n\n"
           "    Expected: \"inv_0051\"\n    Received: \"inv_0050\"\n\n"
           "      48 |     const next = await request(app).get(`/invoices?limit=50&cursor=${first.body.nextCursor}`);\n"
           "    > 49 |     expect(next.body.items[0].id).toEqual('inv_0051');\n"
           "         |                                   ^\n\n"
           "      at Object.<anonymous> (tests/invoices.test.ts:49:35)\n\n"
           "Test Suites: 1 failed, 1 total\nTests:       1 failed, 1 passed, 2 total\n"
           "Time:        2.113 s\n\nCommand exited with code 1", True)
    s.tool("Prisma's cursor includes the cursor row itself, so the next page starts with the last "
           "item of the previous one. The fix is `skip: 1` whenever a cursor is given.", "edit",
           {"path": "src/lib/pagination.ts",
            "oldText": "...(cursor ? { cursor: { id: cursor } } : {})",
            "newText": "...(cursor ? { cursor: { id: cursor }, skip: 1 } : {})"},
           "Successfully replaced text in src/lib/pagination.ts.")
    s.assistant(None, stop="error", error="529 {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}")
    user_text(s, "continue")
    s.tool(None, "bash", {"command": "pnpm jest tests/invoices.test.ts"},
           " PASS  tests/invoices.test.ts\n  GET /invoices\n    ✓ returns the first page (41 ms)\n"
           "    ✓ returns the next page from the cursor (15 ms)\n\n"
           "Test Suites: 1 passed, 1 total\nTests:       2 passed, 2 total\nTime:        1.984 s\n")
    s.assistant("Pagination works: `limit` (1–100, default 50) and `cursor`, parsed with zod; the "
                "response keeps `items` and adds `nextCursor`. Both tests pass.")

    user_text(s, "nice. the query still needs an index though, add @@index([customerId, id]) to "
                 "Invoice and make a migration. btw, never run `prisma migrate reset`, the dev db "
                 "has data I need.")
    s.tool(None, "edit", {"path": "prisma/schema.prisma",
                          "oldText": "  customerId String\n",
                          "newText": "  customerId String\n\n  @@index([customerId, id])\n"},
           "Successfully replaced text in prisma/schema.prisma.")
    s.tool(None, "bash", {"command": "pnpm prisma migrate dev --name invoice_customer_cursor"},
           "Environment variables loaded from .env\nPrisma schema loaded from prisma/schema.prisma\n"
           "Datasource \"db\": PostgreSQL database \"invoices\", schema \"public\" at \"localhost:5432\"\n\n"
           "Error: P1001: Can't reach database server at `localhost:5432`\n\n"
           "Please make sure your database server is running at `localhost:5432`.\n\n"
           "Command exited with code 1", True)
    s.assistant("The database isn't running. Is it started through docker compose here?")
    user_text(s, "yes, `docker compose up -d postgres`")
    s.tool(None, "bash", {"command": "docker compose up -d postgres && sleep 3 && pnpm prisma migrate dev --name invoice_customer_cursor"},
           " ✔ Container invoice-api-postgres-1  Started\n"
           "Environment variables loaded from .env\nPrisma schema loaded from prisma/schema.prisma\n\n"
           "Applying migration `20260504093512_invoice_customer_cursor`\n\n"
           "The following migration(s) have been created and applied from new schema changes:\n\n"
           "migrations/\n  └─ 20260504093512_invoice_customer_cursor/\n    └─ migration.sql\n\n"
           "Your database is now in sync with your schema.\n")
    s.assistant("The index is in migration `20260504093512_invoice_customer_cursor`, applied to the "
                "dev database.")

    user_text(s, "move src/helpers/money.ts into src/lib too, helpers/ should go away")
    s.tool(None, "bash", {"command": "git mv src/helpers/money.ts src/lib/money.ts && rmdir src/helpers && grep -rln \"helpers/money\" src tests"},
           "src/routes/invoices.ts\nsrc/routes/payments.ts\n")
    s.tool(None, "bash", {"command": "sed -i 's#helpers/money#lib/money#' src/routes/invoices.ts src/routes/payments.ts && pnpm tsc --noEmit && pnpm jest"},
           " PASS  tests/invoices.test.ts\n PASS  tests/money.test.ts\n\n"
           "Test Suites: 2 passed, 2 total\nTests:       9 passed, 9 total\n")
    s.assistant("`money.ts` now lives in `src/lib/`, `src/helpers/` is gone, imports are updated "
                "and all 9 tests pass.")

    user_text(s, "now do the same cursor pagination for GET /payments")
    s.tool(None, "read", {"path": "src/routes/payments.ts"},
           "import { Router } from 'express';\nimport { prisma } from '../db';\nimport { toCents } from '../lib/money';\n\n"
           "export const paymentsRouter = Router();\n\n"
           "paymentsRouter.get('/', async (req, res) => {\n"
           "  const items = await prisma.payment.findMany({ where: { customerId: req.user.customerId }, orderBy: { createdAt: 'desc' } });\n"
           "  res.json({ items });\n});\n")
    s.assistant("Payments are ordered by `createdAt` desc, not by id, so a cursor on `id` alone "
                "would skip rows with equal timestamps. Next, I'll order by `createdAt` then `id` "
                "and use the pair as the cursor.")
    return s


def docker_ci():
    s = Session("docker-ci", "/home/dev/metrics-stack", "claude-opus-4-1")
    s.user("CI has been red since yesterday, the docker build step fails:\n\n"
           "#12 [builder 5/8] RUN pip install --no-cache-dir -r requirements.txt\n"
           "#12 4.211 ERROR: Could not find a version that satisfies the requirement "
           "psycopg2-binary==2.9.3 (from versions: 2.9.6, 2.9.7, 2.9.9)\n"
           "#12 4.212 ERROR: No matching distribution found for psycopg2-binary==2.9.3\n"
           "#12 ERROR: process \"/bin/sh -c pip install --no-cache-dir -r requirements.txt\" did not "
           "complete successfully: exit code: 1\n\n"
           "don't change the base image, we pin python:3.12-slim on purpose.")
    s.tool("Let me look at the Dockerfile and the requirements.", "read", {"path": "Dockerfile"},
           "FROM python:3.12-slim AS builder\nWORKDIR /app\nCOPY requirements.txt .\n"
           "RUN pip install --no-cache-dir -r requirements.txt\nCOPY . .\n\n"
           "FROM python:3.12-slim\nCOPY --from=builder /usr/local /usr/local\nCOPY --from=builder /app /app\n"
           "CMD [\"gunicorn\", \"-b\", \"0.0.0.0:8000\", \"metrics.app:app\"]\n")
    s.tool(None, "read", {"path": "requirements.txt"},
           "flask==3.0.3\ngunicorn==22.0.0\npsycopg2-binary==2.9.3\nprometheus-client==0.20.0\n")
    s.tool("psycopg2-binary 2.9.3 has no wheels for Python 3.12; the first release with 3.12 "
           "wheels is 2.9.9. I'll pin 2.9.9 and keep the base image.", "edit",
           {"path": "requirements.txt", "oldText": "psycopg2-binary==2.9.3",
            "newText": "psycopg2-binary==2.9.9"},
           "Successfully replaced text in requirements.txt.")
    s.tool(None, "bash", {"command": "docker build -t metrics-api:dev ."},
           "#12 [builder 5/8] RUN pip install --no-cache-dir -r requirements.txt\n"
           "#12 6.902 Successfully installed Flask-3.0.3 gunicorn-22.0.0 psycopg2-binary-2.9.9 prometheus-client-0.20.0\n"
           "#12 DONE 7.4s\n#16 exporting to image\n#16 naming to docker.io/library/metrics-api:dev done\n#16 DONE 0.3s\n")
    s.assistant("The image builds again with psycopg2-binary 2.9.9 on python:3.12-slim.")

    s.user("great. the api container also keeps flapping between healthy and unhealthy in compose")
    s.tool(None, "read", {"path": "docker-compose.yml"},
           "services:\n  api:\n    build: .\n    ports: [\"8000:8000\"]\n    healthcheck:\n"
           "      test: [\"CMD\", \"curl\", \"-f\", \"http://localhost:8000/healthz\"]\n      interval: 10s\n"
           "  grafana:\n    image: grafana/grafana:10.4.2\n    volumes: [\"grafana-data:/var/lib/grafana\"]\n"
           "volumes:\n  grafana-data:\n")
    s.tool(None, "bash", {"command": "docker compose ps && docker inspect --format '{{json .State.Health.Log}}' metrics-stack-api-1 | head -c 400"},
           "NAME                     STATUS\nmetrics-stack-api-1      Up 3 minutes (unhealthy)\n"
           "metrics-stack-grafana-1  Up 3 minutes\n"
           "[{\"Start\":\"2026-05-04T09:41:10Z\",\"ExitCode\":1,\"Output\":\"OCI runtime exec failed: exec failed: "
           "unable to start container process: exec: \\\"curl\\\": executable file not found in $PATH: unknown\"}]")
    s.assistant("The healthcheck calls `curl`, which python:3.12-slim does not ship. I'll install "
                "curl in the final stage with `apt-get install -y --no-install-recommends curl`.",
                [("edit", {"path": "Dockerfile",
                           "oldText": "FROM python:3.12-slim\nCOPY --from=builder",
                           "newText": "FROM python:3.12-slim\nRUN apt-get update && apt-get install -y --no-install-recommends curl && rm -rf /var/lib/apt/lists/*\nCOPY --from=builder"})])
    s.assistant(None, stop="aborted", error="Request was aborted")
    s.user("no, don't add packages to the image just for a healthcheck, keep it small. do the check "
           "with python and urllib instead")
    s.tool("Right, the image already has Python. I'll run the check with `python -c` and urllib.",
           "edit", {"path": "docker-compose.yml",
                    "oldText": "      test: [\"CMD\", \"curl\", \"-f\", \"http://localhost:8000/healthz\"]",
                    "newText": "      test: [\"CMD\", \"python\", \"-c\", \"import urllib.request; urllib.request.urlopen('http://localhost:8000/healthz', timeout=2)\"]"},
           "Successfully replaced text in docker-compose.yml.")
    s.tool(None, "bash", {"command": "docker compose up -d --build --wait api"},
           " ✔ Container metrics-stack-api-1  Healthy\n")
    s.assistant("The api container is healthy now, with a Python healthcheck and no extra packages.")

    s.user("while you're at it, delete docker-compose.override.yml, nobody uses it anymore. and "
           "important: never run `docker system prune` or `docker compose down -v` on this box, "
           "the grafana dashboards live in that volume")
    s.tool(None, "bash", {"command": "rm docker-compose.override.yml && git status --short"},
           " M docker-compose.yml\n M requirements.txt\n D docker-compose.override.yml\n")
    s.assistant("Deleted `docker-compose.override.yml`. I won't prune or remove volumes.")

    s.user("last thing for CI: the workflow pushes the image on every push to main. it should only "
           "push on version tags (v*).")
    s.tool(None, "read", {"path": ".github/workflows/ci.yml"},
           "on:\n  push:\n    branches: [main]\n  pull_request:\njobs:\n  image:\n    runs-on: ubuntu-latest\n"
           "    steps:\n      - uses: actions/checkout@v4\n      - run: docker build -t $IMAGE:$GITHUB_SHA .\n"
           "      - run: docker push $IMAGE:$GITHUB_SHA\n")
    s.tool("I'll trigger on tags too and guard the push step.", "edit",
           {"path": ".github/workflows/ci.yml",
            "oldText": "    branches: [main]\n",
            "newText": "    branches: [main]\n    tags: ['v*']\n"},
           "Successfully replaced text in .github/workflows/ci.yml.")
    s.tool(None, "edit", {"path": ".github/workflows/ci.yml",
                          "oldText": "      - run: docker push $IMAGE:$GITHUB_SHA\n",
                          "newText": "      - if: startsWith(github.ref, 'refs/tags/v')\n        run: docker push $IMAGE:$GITHUB_REF_NAME\n"},
           "Successfully replaced text in .github/workflows/ci.yml.")
    s.tool(None, "bash", {"command": "actionlint .github/workflows/ci.yml"},
           ".github/workflows/ci.yml:12:9: shellcheck reported issue in this script: SC2086:info:1:18: "
           "Double quote to prevent globbing and word splitting [shellcheck]\n"
           "   |\n12 |       - run: docker build -t $IMAGE:$GITHUB_SHA .\n   |         ^~~~\n"
           ".github/workflows/ci.yml:14:14: shellcheck reported issue in this script: SC2086:info:1:13: "
           "Double quote to prevent globbing and word splitting [shellcheck]\n\n"
           "Command exited with code 1", True)
    s.tool("actionlint wants the variables quoted.", "bash",
           {"command": "sed -i 's#\\$IMAGE:\\$GITHUB_SHA#\"$IMAGE:$GITHUB_SHA\"#; s#\\$IMAGE:\\$GITHUB_REF_NAME#\"$IMAGE:$GITHUB_REF_NAME\"#' .github/workflows/ci.yml && actionlint .github/workflows/ci.yml"},
           "")
    s.assistant("The workflow builds on every push but pushes the image only for `v*` tags, tagged "
                "with the tag name; actionlint is clean.")

    s.user("write a short docs/deploy.md on how to cut a release, then we're done")
    s.tool(None, "write", {"path": "docs/deploy.md",
                           "content": "# Releasing\n\n1. Update CHANGELOG.md.\n2. `git tag v1.2.3 && git push origin v1.2.3`.\n"
                                      "3. CI builds and pushes `$IMAGE:v1.2.3`.\n"},
           "Successfully wrote 171 bytes to docs/deploy.md")
    s.assistant("docs/deploy.md describes the tag-based release. To check the workflow end to end, "
                "push a release candidate tag such as `v0.9.0-rc1` and watch the image job.")
    return s


BRANCH_SUMMARY = """## Goal
Soft-delete notes (archive instead of DELETE).

## Progress
### Done
- [x] Tried an `is_archived` boolean column with a SQLAlchemy event hook that filters archived rows from every query

### Blocked
- The global filter also hid archived notes from the admin export; abandoned

## Key Decisions
- **Global query filter abandoned**: too implicit, breaks the export job

## Next Steps
1. Go back and filter explicitly in the list query instead
"""


def fastapi_notes():
    s = Session("fastapi-notes", "/home/dev/notes-service", "claude-sonnet-4-5")
    s.add("thinking_level_change", thinkingLevel="medium")
    s.user("add archiving to notes: DELETE /notes/{id} should archive the note instead of deleting "
           "it. we use uv for everything here, never call pip directly. type hints everywhere, "
           "`mypy --strict` has to pass.")
    s.tool("Let me read the model and the routes.", "read", {"path": "src/notes_service/models.py"},
           "from sqlalchemy.orm import Mapped, mapped_column\n\nclass Note(Base):\n"
           "    __tablename__ = \"notes\"\n    id: Mapped[int] = mapped_column(primary_key=True)\n"
           "    body: Mapped[str]\n")
    target = s.parent
    # An abandoned branch: the user navigated back to `target` and pi summarized it.
    s.tool("I'll add an `is_archived` flag and a global filter.", "edit",
           {"path": "src/notes_service/models.py", "oldText": "    body: Mapped[str]\n",
            "newText": "    body: Mapped[str]\n    is_archived: Mapped[bool] = mapped_column(default=False)\n"},
           "Successfully replaced text in src/notes_service/models.py.")
    abandoned_leaf = s.parent
    s.parent = target
    s.add("branch_summary", fromId=abandoned_leaf, summary=BRANCH_SUMMARY, fromHook=False)

    s.tool("Back on the main line: a nullable `archived_at` timestamp, filtered explicitly in the "
           "list query.", "edit",
           {"path": "src/notes_service/models.py", "oldText": "    body: Mapped[str]\n",
            "newText": "    body: Mapped[str]\n    archived_at: Mapped[datetime | None] = mapped_column(default=None)\n"},
           "Successfully replaced text in src/notes_service/models.py.")
    s.tool(None, "bash", {"command": "uv run alembic revision --autogenerate -m \"note archived_at\""},
           "INFO  [alembic.autogenerate.compare] Detected added column 'notes.archived_at'\n"
           "  Generating /home/dev/notes-service/migrations/versions/3f2a9c1d7e55_note_archived_at.py ...  done\n")
    s.tool(None, "bash", {"command": "uv run pytest -q"},
           "ImportError while loading conftest '/home/dev/notes-service/tests/conftest.py'.\n"
           "tests/conftest.py:3: in <module>\n    from notes_service.app import app\n"
           "E   ModuleNotFoundError: No module named 'notes_service'\n\nCommand exited with code 4", True)
    s.tool("The package isn't importable from tests: the project uses a src layout and pytest "
           "has no pythonpath set. I'll set `pythonpath = [\"src\"]` in pyproject.toml.", "edit",
           {"path": "pyproject.toml", "oldText": "[tool.pytest.ini_options]\n",
            "newText": "[tool.pytest.ini_options]\npythonpath = [\"src\"]\n"},
           "Successfully replaced text in pyproject.toml.")
    s.tool(None, "bash", {"command": "uv run pytest -q"},
           "..F..\n=================================== FAILURES ===================================\n"
           "___________________________ test_delete_archives_note ___________________________\n\n"
           "client = <starlette.testclient.TestClient object at 0x7f1c2a3e4d10>\n\n"
           "    def test_delete_archives_note(client):\n        client.delete(\"/notes/1\")\n"
           ">       assert client.get(\"/notes\").json() == []\n"
           "E       AssertionError: assert [{'body': 'first', 'id': 1}] == []\n\n"
           "tests/test_notes.py:18: AssertionError\n"
           "=========================== short test summary info ============================\n"
           "FAILED tests/test_notes.py::test_delete_archives_note - AssertionError: assert [{'body': 'first', 'id': 1}] == []\n"
           "1 failed, 4 passed in 0.38s\n\nCommand exited with code 1", True)
    s.tool("DELETE still deletes nothing and the list doesn't filter. I'll set `archived_at` in "
           "the DELETE handler and filter `archived_at IS NULL` in the list.", "edit",
           {"path": "src/notes_service/routes.py",
            "oldText": "    session.delete(note)\n",
            "newText": "    note.archived_at = datetime.now(timezone.utc)\n"},
           "Successfully replaced text in src/notes_service/routes.py.")
    s.tool(None, "edit", {"path": "src/notes_service/routes.py",
                          "oldText": "    return session.scalars(select(Note)).all()\n",
                          "newText": "    return session.scalars(select(Note).where(Note.archived_at.is_(None))).all()\n"},
           "Successfully replaced text in src/notes_service/routes.py.")
    s.tool(None, "bash", {"command": "uv run pytest -q"}, ".....\n5 passed in 0.31s\n")
    s.assistant("DELETE /notes/{id} now sets `archived_at`, and the list hides archived notes. All 5 "
                "tests pass.")

    s.add("message", message={"role": "user", "content": [
        {"type": "text", "text": "the migration fails on my machine, screenshot attached. why does "
                                 "it need batch mode at all?"},
        {"type": "image", "mimeType": "image/png",
         "data": "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="}],
        "timestamp": s.ms()})
    s.tool(None, "bash", {"command": "uv run alembic upgrade head"},
           "INFO  [alembic.runtime.migration] Running upgrade 9b1e04c2aa10 -> 3f2a9c1d7e55, note archived_at\n"
           "Traceback (most recent call last):\n"
           "  File \"/home/dev/notes-service/migrations/versions/3f2a9c1d7e55_note_archived_at.py\", line 19, in upgrade\n"
           "    op.alter_column(\"notes\", \"body\", nullable=False)\n"
           "sqlalchemy.exc.OperationalError: (sqlite3.OperationalError) near \"ALTER\": syntax error\n\n"
           "Command exited with code 1", True)
    s.tool("SQLite cannot ALTER a column in place; Alembic's batch mode copies the table into a new "
           "one with the change and swaps it in. Autogenerate also picked up an unrelated "
           "`alter_column` on `body`. I'll drop that and wrap the add in `op.batch_alter_table`.",
           "edit", {"path": "migrations/versions/3f2a9c1d7e55_note_archived_at.py",
                    "oldText": "    op.add_column(\"notes\", sa.Column(\"archived_at\", sa.DateTime(), nullable=True))\n"
                               "    op.alter_column(\"notes\", \"body\", nullable=False)\n",
                    "newText": "    with op.batch_alter_table(\"notes\") as batch:\n"
                               "        batch.add_column(sa.Column(\"archived_at\", sa.DateTime(), nullable=True))\n"},
           "Successfully replaced text in migrations/versions/3f2a9c1d7e55_note_archived_at.py.")
    s.tool(None, "bash", {"command": "uv run alembic upgrade head"},
           "INFO  [alembic.runtime.migration] Running upgrade 9b1e04c2aa10 -> 3f2a9c1d7e55, note archived_at\n")
    s.assistant("The migration runs now. Batch mode is needed because SQLite has no ALTER COLUMN: "
                "Alembic recreates the table and copies the rows.")

    s.user("actually, archived notes should still be readable by id (GET /notes/{id}), only hide "
           "them from the list")
    s.tool(None, "read", {"path": "src/notes_service/routes.py"},
           "@router.get(\"/notes/{note_id}\")\ndef get_note(note_id: int, session: Session = Depends(get_session)) -> NoteOut:\n"
           "    note = session.get(Note, note_id)\n    if note is None or note.archived_at is not None:\n"
           "        raise HTTPException(status_code=404)\n    return NoteOut.model_validate(note)\n")
    s.tool("GET by id already 404s on archived notes; I'll drop that condition.", "edit",
           {"path": "src/notes_service/routes.py",
            "oldText": "    if note is None or note.archived_at is not None:\n",
            "newText": "    if note is None:\n"},
           "Successfully replaced text in src/notes_service/routes.py.")
    s.tool(None, "bash", {"command": "uv run pytest -q"}, "......\n6 passed in 0.34s\n")
    s.assistant("Archived notes are readable by id again and stay out of the list; 6 tests pass.")

    s.user("one more: admins need to see archived notes in the list too. add an "
           "include_archived=true query flag, only honoured for admins")
    s.tool(None, "edit", {"path": "src/notes_service/routes.py",
                          "oldText": "def list_notes(session: Session = Depends(get_session)):\n"
                                     "    return session.scalars(select(Note).where(Note.archived_at.is_(None))).all()\n",
                          "newText": "def list_notes(include_archived: bool = False, user: User = Depends(current_user), session: Session = Depends(get_session)):\n"
                                     "    query = select(Note)\n    if not (include_archived and user.is_admin):\n"
                                     "        query = query.where(Note.archived_at.is_(None))\n"
                                     "    return session.scalars(query).all()\n"},
           "Successfully replaced text in src/notes_service/routes.py.")
    s.tool(None, "bash", {"command": "uv run pytest -q && uv run mypy --strict src"},
           "......\n6 passed in 0.35s\n"
           "src/notes_service/routes.py:41: error: Function is missing a return type annotation  [no-untyped-def]\n"
           "Found 1 error in 1 file (checked 7 source files)\n\nCommand exited with code 1", True)
    s.assistant("The flag works for admins (6 tests pass), but `mypy --strict` fails: "
                "`list_notes` has no return type. Next, I'll annotate it as `-> Sequence[Note]` "
                "and add a test that a non-admin passing include_archived=true still gets no "
                "archived notes.")
    return s


if __name__ == "__main__":
    express_prisma().write("express-prisma.jsonl")
    docker_ci().write("docker-ci.jsonl")
    fastapi_notes().write("fastapi-notes.jsonl")
