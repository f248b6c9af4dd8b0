//! The class "an instruction file's sections": a project instruction file the work read
//! (`AGENTS.md`, `CLAUDE.md`, `CONTRIBUTING.md`, …) states under each heading something a
//! later step must respect, often not as an imperative bullet: a command line under
//! "Commands", a plain sentence under "Code style", a line inside a code fence, a table
//! row. One long section (the stack, the project's layout, recent changes) comes first and
//! holds more lines than a summary keeps of one file. A resuming agent needs the other
//! sections too, with the file they came from.
//!
//! Each family is one way the file reaches the session (Claude Code's `Read` with numbered
//! lines, Codex's injected "# AGENTS.md instructions for DIR", a shell `cat`) with one set
//! of three files (a language, an ecosystem). The way is `(family + family / 3) % 3`, so
//! each part holds every way.

use super::super::*;
use super::Instance;
use super::families::{call, filler, shell};

const CLASS: &str = "instruction file sections";

/// One file: its name, its text, and the facts a probe names (each with the line's text).
type File = (&'static str, &'static str, [&'static str; 2]);

/// The sets of files, in order; family `f` takes set `f / 3`.
const SETS: [[File; 3]; 3] = [
    // English, web and services.
    [
        (
            "AGENTS.md",
            "# shop-web Development Guidelines\n\n## Active Technologies\n- TypeScript 5.4 + React 18 (frontend)\n- Node 20 + Fastify 4 (backend)\n- PostgreSQL 15 through Prisma 5\n- Redis 7 for sessions\n- Zustand for client state\n- Vitest and Playwright\n- Tailwind CSS 3\n- pnpm workspaces\n- Docker Compose for local services\n- GitHub Actions CI\n- Sentry for errors\n- OpenTelemetry traces\n- MSW for API mocks\n- Storybook 8\n\n## Commands\n\npnpm test; pnpm run typecheck\n\n## Code Style\n\nTypeScript: strict mode, named exports only\n",
            ["pnpm run typecheck", "named exports only"],
        ),
        (
            "CLAUDE.md",
            "# Billing service\n\n## Layout\n- `cmd/billing/` the server\n- `internal/invoice/` invoice rules\n- `internal/ledger/` the ledger\n- `internal/tax/` tax tables\n- `internal/pdf/` rendering\n- `migrations/` SQL migrations\n- `deploy/` Helm charts\n- `scripts/` one-off scripts\n- `testdata/` golden files\n- `docs/` design notes\n- `api/` protobuf definitions\n- `web/` the admin UI\n- `tools/` linters\n- `vendor/` vendored modules\n\n## Testing\n\n```sh\ngo test -race ./internal/...\n```\n\n## Database\n\nMigrations are append-only; a released migration file is never edited\n",
            ["go test -race ./internal/...", "append-only"],
        ),
        (
            "CONTRIBUTING.md",
            "# Contributing to tiles\n\n## Recent changes\n- 2.4: vector tiles\n- 2.3: retina sprites\n- 2.2: offline cache\n- 2.1: WebGL renderer\n- 2.0: new style spec\n- 1.9: label collision\n- 1.8: terrain\n- 1.7: clustering\n- 1.6: heatmaps\n- 1.5: 3D buildings\n- 1.4: fonts\n- 1.3: sprites\n- 1.2: hillshade\n- 1.1: markers\n\n## Release\n\n| Step | Command |\n|---|---|\n| Bump the version | `npm version minor` |\n| Publish | `npm publish --tag next` |\n\n## Commit messages\n\nConventional Commits, scope required: feat(render): …\n",
            ["npm publish --tag next", "scope required"],
        ),
    ],
    // Japanese and Korean, spec-kit and mobile.
    [
        (
            "AGENTS.md",
            "# health_report_ocr 開発ガイドライン\n\n## 使用技術\n- TypeScript 5.x + React 18（フロントエンド）\n- Express 4（バックエンド）\n- exceljs（Excel 出力）\n- encoding-japanese（Shift_JIS CSV）\n- Zustand（状態管理）\n- Vite 5\n- Tesseract.js\n- sharp（画像処理）\n- Jest 29\n- ESLint 8\n- Prettier 3\n- multer（アップロード）\n- dotenv\n- Docker\n\n## コマンド\n\nnpm test; npm run lint:ci\n\n## コードスタイル\n\nTypeScript: 2 スペースインデント、セミコロンあり\n",
            ["npm run lint:ci", "2 スペースインデント"],
        ),
        (
            "CLAUDE.md",
            "# 로또 추천 앱\n\n## 구조\n- `app/` 화면\n- `components/` 공용 컴포넌트\n- `hooks/` 커스텀 훅\n- `lib/firebase.ts` 초기화\n- `lib/draw.ts` 번호 생성\n- `store/` 상태\n- `assets/` 이미지\n- `i18n/` 번역\n- `tests/` 테스트\n- `scripts/` 배포 스크립트\n- `android/` 네이티브\n- `ios/` 네이티브\n- `docs/` 문서\n- `types/` 타입\n\n## 빌드\n\n```bash\nnpx expo export --platform web\n```\n\n## 데이터\n\n추첨 결과는 Firestore `draws` 컬렉션에만 저장한다\n",
            ["npx expo export --platform web", "`draws` 컬렉션"],
        ),
        (
            ".cursor/rules/backend.mdc",
            "# バックエンド規約\n\n## 最近の変更\n- 2.6: 決済 API\n- 2.5: 通知キュー\n- 2.4: 監査ログ\n- 2.3: 多言語化\n- 2.2: CSV 取込\n- 2.1: 権限ロール\n- 2.0: 新スキーマ\n- 1.9: 検索\n- 1.8: 画像圧縮\n- 1.7: 予約機能\n- 1.6: メール\n- 1.5: 招待\n- 1.4: API キー\n- 1.3: 2FA\n\n## マイグレーション\n\n| 操作 | コマンド |\n|---|---|\n| 作成 | `bin/rails g migration` |\n| 適用 | `bin/rails db:migrate RAILS_ENV=staging` |\n\n## ログ\n\n個人情報はログに出力しない、マスク済みの ID のみ\n",
            ["db:migrate RAILS_ENV=staging", "マスク済みの ID のみ"],
        ),
    ],
    // Spanish and German, data and embedded.
    [
        (
            "AGENTS.md",
            "# Guía del proyecto de clasificación\n\n## Tecnologías\n- Python 3.11\n- spaCy 3.7 con es_core_news_md\n- pandas 2.2\n- scikit-learn 1.4\n- Jupyter Lab\n- matplotlib\n- seaborn\n- nltk\n- pytest\n- ruff\n- uv\n- DVC para los datos\n- MLflow\n- pre-commit\n\n## Comandos\n\nuv run pytest -q; uv run ruff check .\n\n## Datos\n\nSolo se usan las primeras 10.000 filas de 02Dataset.csv\n",
            ["uv run ruff check .", "primeras 10.000 filas"],
        ),
        (
            "CLAUDE.md",
            "# Firmware Heizungssteuerung\n\n## Aufbau\n- `src/main.c` Hauptschleife\n- `src/pid.c` Regler\n- `src/sensor.c` Temperaturfühler\n- `src/uart.c` Konsole\n- `src/flash.c` Einstellungen\n- `src/rtc.c` Uhr\n- `src/display.c` Anzeige\n- `src/buttons.c` Tasten\n- `hal/` Hardware-Schicht\n- `boards/` Platinen\n- `tests/` Unity-Tests\n- `tools/` Skripte\n- `docs/` Handbuch\n- `third_party/` Bibliotheken\n\n## Bauen\n\n```sh\ncmake --preset stm32-release && cmake --build --preset stm32-release\n```\n\n## Speicher\n\nKein malloc nach dem Start, alle Puffer statisch\n",
            ["cmake --preset stm32-release", "Kein malloc nach dem Start"],
        ),
        (
            "CONTRIBUTING.md",
            "# Contribuir a agenda-api\n\n## Cambios recientes\n- 3.2: recordatorios\n- 3.1: zonas horarias\n- 3.0: API v3\n- 2.9: exportar iCal\n- 2.8: invitados\n- 2.7: salas\n- 2.6: webhooks\n- 2.5: OAuth\n- 2.4: búsqueda\n- 2.3: etiquetas\n- 2.2: adjuntos\n- 2.1: colores\n- 2.0: nueva base\n- 1.9: repetición\n\n## Versiones\n\n| Paso | Orden |\n|---|---|\n| Etiquetar | `git tag -s v3.2.0` |\n| Publicar | `make release CHANNEL=estable` |\n\n## Ramas\n\nLas ramas se llaman tipo/descripcion, por ejemplo fix/zona-horaria\n",
            ["make release CHANNEL=estable", "tipo/descripcion"],
        ),
    ],
];

/// The messages of one instance: the file reaches the session by `way`, then the user asks
/// for work that follows it, and ordinary work follows.
fn messages(way: usize, name: &str, text: &str, seed: usize) -> Vec<AgentMessage> {
    let path = format!("/repo/{name}");
    let mut out = match way {
        0 => {
            let numbered: String = text
                .lines()
                .enumerate()
                .map(|(n, line)| format!("{:>6}→{line}\n", n + 1))
                .collect();
            vec![
                user("Read the project's instruction file first, then add the export button."),
                call("c1", "Read", json!({ "file_path": path })),
                result("c1", "Read", &numbered, false),
            ]
        }
        1 => vec![
            user(&format!(
                "# {name} instructions for /repo\n\n<INSTRUCTIONS>\n{text}\n</INSTRUCTIONS>"
            )),
            user("Add the export button."),
        ],
        _ => vec![
            user("Read the project's instruction file first, then add the export button."),
            shell("c1", &format!("cat {name}")),
            result("c1", "Bash", text, false),
        ],
    };
    out.push(assistant("I'll follow the file's rules and add the export button.", &[]));
    out.extend(filler(4, seed));
    out
}

pub(super) fn instruction_file_sections() -> Vec<Instance> {
    let mut out = Vec::new();
    for family in 0..9 {
        let way = (family + family / 3) % 3;
        for (index, (name, text, facts)) in SETS[family / 3].iter().enumerate() {
            let subject = crate::offline::calls::file_name(name);
            let mut instance =
                Instance::new(CLASS, family, messages(way, name, text, family * 3 + index));
            for fact in facts {
                instance = instance.expect(&[subject.as_str()], fact);
            }
            out.push(instance);
        }
    }
    out
}
