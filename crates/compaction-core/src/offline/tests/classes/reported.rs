//! The class "an error the user reported": the user pastes an error or describes what goes
//! wrong, and the assistant finds the cause some steps later, after a first remark that is
//! not the cause (and, in some families, after a first guess the user answers with "still
//! the same"). A resuming agent needs the report, its cause and the file the fix went into
//! in one place: the report alone says nothing of what was done, and a cause or a Done
//! line alone does not say which report it answers. Each family is one shape (a pasted
//! error, a symptom in words, a second attempt after "still the same") in one language,
//! with three instances.

use super::super::*;
use super::Instance;
use super::families::{call, edit, filler, shell};

const CLASS: &str = "error the user reported";

/// One report: (what the user writes, the words of it a line must name, the assistant's
/// sentence stating the cause, the words of the cause a probe checks, the file the fix edits).
type Report = (&'static str, &'static str, &'static str, &'static str, &'static str);

/// How a family's reports are written.
#[derive(Clone, Copy)]
enum Shape {
    /// The error pasted into the message, under a lead-in in the family's language.
    Pasted(&'static str),
    /// The symptom told in words.
    Symptom,
    /// A first guess that does not hold, the user's "still the same" (the family's
    /// words), then the cause.
    Again(&'static str, &'static str),
}

fn read(id: &str, path: &str) -> [AgentMessage; 2] {
    [
        call(id, "Read", json!({ "file_path": path })),
        result(id, "Read", "     1\tconst value = load();\n     2\texport default value;", false),
    ]
}

fn family(
    index: usize,
    shape: Shape,
    remark: &str,
    done: &str,
    reports: [Report; 3],
) -> Vec<Instance> {
    let mut out = Vec::new();
    for (n, (report, subject, cause, words, file)) in reports.into_iter().enumerate() {
        let id = format!("u{index}{n}");
        let said = match shape {
            Shape::Pasted(lead) => format!("{lead}\n\n```\n{report}\n```"),
            Shape::Symptom | Shape::Again(..) => report.to_owned(),
        };
        let mut messages =
            vec![user("Add a health check endpoint at /healthz that returns the build version.")];
        messages.extend(edit(
            &format!("{id}h"),
            "src/health.ts",
            "// routes",
            "router.get('/healthz', health);",
        ));
        messages.push(assistant("The endpoint returns `{ version }` from the build info.", &[]));
        messages.push(user(&said));
        if let Shape::Again(guess, again) = shape {
            messages.push(assistant(guess, &[]));
            messages.push(shell(&format!("{id}g"), "rm -rf node_modules/.cache && npm run build"));
            messages.push(result(&format!("{id}g"), "Bash", "build finished in 4.2s", false));
            messages.push(assistant("Cleared the cache and rebuilt; try again.", &[]));
            messages.push(user(again));
        }
        messages.push(assistant(remark, &[]));
        messages.extend(read(&format!("{id}r"), file));
        messages.push(assistant(cause, &[]));
        messages.extend(edit(
            &format!("{id}e"),
            file,
            "const value = load();",
            "const value = loadChecked();",
        ));
        messages.push(assistant(done, &[]));
        messages.extend(filler(2 + n, index));
        out.push(
            Instance::new(CLASS, index, messages)
                .expect(&[subject], words)
                .expect(&[subject], file),
        );
    }
    out
}

pub(super) fn errors_the_user_reported() -> Vec<Instance> {
    let mut out = Vec::new();
    // Family index / 3 is the shape, so each part has every shape.
    // 0: pasted, English, web.
    out.extend(family(
        0,
        Shape::Pasted("I get this when I open the app:"),
        "The `vite.config.ts` file already sets `define` for `process.env` on line 12.",
        "Done; reload the page.",
        [
            (
                "Uncaught ReferenceError: global is not defined\n    at node_modules/@iarna/toml/lib/parser.js:12:3",
                "global is not defined",
                "The problem is that `@iarna/toml` expects Node's `global` object, which the browser does not have.",
                "expects Node's",
                "ui/index.html",
            ),
            (
                "TypeError: Cannot read properties of undefined (reading 'map')\n    at List (src/List.tsx:14:22)",
                "reading 'map'",
                "It happens because `items` is undefined until the first fetch resolves.",
                "undefined until the first fetch",
                "src/List.tsx",
            ),
            (
                "Error: listen EADDRINUSE: address already in use :::8080",
                "EADDRINUSE",
                "The cause is a Docker container from the old stack that still binds port 8080.",
                "still binds port 8080",
                "docker-compose.yml",
            ),
        ],
    ));
    // 1: pasted, Spanish, Python and Go.
    out.extend(family(
        1,
        Shape::Pasted("Me sale este error al correr el script:"),
        "El archivo `settings.py` ya define `DEBUG = False` en la línea 8.",
        "Listo, vuelve a correrlo.",
        [
            (
                "UnicodeDecodeError: 'utf-8' codec can't decode byte 0xe9 in position 41",
                "UnicodeDecodeError",
                "El problema es que el CSV viene en `latin-1` y no en UTF-8.",
                "viene en `latin-1`",
                "src/load.py",
            ),
            (
                "panic: assignment to entry in nil map\n\ngoroutine 1 [running]:\nmain.main()\n\t/app/main.go:21 +0x3c",
                "nil map",
                "El error ocurre porque `cache` nunca se inicializa con `make` antes de escribir.",
                "nunca se inicializa",
                "internal/cache/cache.go",
            ),
            (
                "sqlalchemy.exc.OperationalError: (sqlite3.OperationalError) database is locked",
                "database is locked",
                "La causa es que dos workers escriben a la vez en el mismo archivo SQLite.",
                "dos workers escriben",
                "app/db.py",
            ),
        ],
    ));
    // 2: pasted, Chinese, builds.
    out.extend(family(
        2,
        Shape::Pasted("运行的时候报这个错："),
        "`Makefile` 第 3 行已经设置了 `PYTHON ?= python3`。",
        "改好了，再跑一次。",
        [
            (
                "ModuleNotFoundError: No module named 'yaml'",
                "No module named",
                "原因是虚拟环境里没有安装 `pyyaml`，只装在了系统 Python 里。",
                "没有安装 `pyyaml`",
                "requirements.txt",
            ),
            (
                "error: linker `cc` not found\n  = note: No such file or directory (os error 2)",
                "linker `cc` not found",
                "这是因为构建镜像里缺少 `build-essential`。",
                "缺少 `build-essential`",
                "Dockerfile",
            ),
            (
                "Exception in thread \"main\" java.lang.OutOfMemoryError: Java heap space",
                "OutOfMemoryError",
                "问题在于 `org.gradle.jvmargs` 里 `-Xmx` 只设了 256m。",
                "只设了 256m",
                "gradle.properties",
            ),
        ],
    ));
    // 3: a symptom, English.
    out.extend(family(
        3,
        Shape::Symptom,
        "The `App.tsx` component already wraps the routes in `<Suspense>` at line 30.",
        "Fixed; please try it again.",
        [
            (
                "The dashboard is blank after I log in, no error in the console.",
                "dashboard is blank",
                "This is caused by the auth redirect dropping the `session` cookie on the way back.",
                "auth redirect dropping",
                "src/auth/redirect.ts",
            ),
            (
                "The Excel import shows all zeros for every project.",
                "all zeros",
                "The reason is that `PROJECT_HEADER_ROW` points at row 3 while the headers are on row 5.",
                "points at row 3",
                "wizard/import_excel.py",
            ),
            (
                "Search results come back in the wrong order since yesterday.",
                "wrong order",
                "It turned out the query sorts by `id` instead of by `score`.",
                "sorts by `id`",
                "search/query.go",
            ),
        ],
    ));
    // 4: a symptom, Japanese.
    out.extend(family(
        4,
        Shape::Symptom,
        "`main.tsx` の 5 行目で `StrictMode` はすでに有効です。",
        "修正しました。もう一度試してください。",
        [
            (
                "ログインした後、画面が真っ白になります。",
                "真っ白",
                "原因は `.env.development` の `VITE_API_URL` が空になっていることです。",
                "が空になっている",
                ".env.development",
            ),
            (
                "ファイルをアップロードすると 403 になります。",
                "403",
                "原因は CORS の許可リストに `localhost:5173` が入っていなかったことでした。",
                "入っていなかった",
                "server/cors.ts",
            ),
            (
                "通知が毎回二回届きます。",
                "二回届きます",
                "ハンドラが二重に登録されていたのが原因です。",
                "二重に登録",
                "src/notify.ts",
            ),
        ],
    ));
    // 5: a symptom, French and German.
    out.extend(family(
        5,
        Shape::Symptom,
        "Le fichier `urls.py` déclare déjà la route `/factures/` à la ligne 14.",
        "C'est corrigé, tu peux réessayer.",
        [
            (
                "La page des factures reste vide depuis la mise à jour.",
                "reste vide",
                "Le problème venait du filtre `status = 'paid'`, qui exclut les brouillons.",
                "exclut les brouillons",
                "billing/views.py",
            ),
            (
                "Der CSV-Export bricht immer nach 1000 Zeilen ab.",
                "1000 Zeilen",
                "Die Ursache ist das Limit `MAX_ROWS = 1000` in der Export-Konfiguration.",
                "das Limit `MAX_ROWS = 1000`",
                "config/export.toml",
            ),
            (
                "Les images ne s'affichent plus en production.",
                "ne s'affichent plus",
                "C'est dû au chemin `/static` codé en dur dans le gabarit au lieu de `STATIC_URL`.",
                "codé en dur",
                "templates/base.html",
            ),
        ],
    ));
    // 6: a first guess, then "still the same", English.
    out.extend(family(
        6,
        Shape::Again(
            "This looks like a stale build cache; clearing it should help.",
            "Same error as before.",
        ),
        "The `next.config.js` file already sets `reactStrictMode: true` on line 4.",
        "That should do it; reload and check.",
        [
            (
                "Error: Hydration failed because the initial UI does not match what was rendered on the server.",
                "Hydration failed",
                "The actual problem is that `Date.now()` renders differently on the server than in the browser.",
                "renders differently on the server",
                "components/Clock.tsx",
            ),
            (
                "Access to fetch at 'http://localhost:8000/api' has been blocked by CORS policy: No 'Access-Control-Allow-Origin' header is present.",
                "blocked by CORS policy",
                "The real cause is that the preflight `OPTIONS` request hits the auth middleware before the CORS one.",
                "preflight `OPTIONS` request hits the auth middleware",
                "server/middleware.ts",
            ),
            (
                "Segmentation fault (core dumped) when running ./bin/tensor_tests",
                "Segmentation fault",
                "The crash comes from the buffer being freed twice in `tensor_free`.",
                "freed twice",
                "src/tensor.c",
            ),
        ],
    ));
    // 7: a first guess, then "still the same", Korean.
    out.extend(family(
        7,
        Shape::Again(
            "캐시 문제인 것 같아서 캐시를 지우고 다시 빌드하겠습니다.",
            "여전히 같은 에러가 나요.",
        ),
        "`package.json` 의 `build` 스크립트는 이미 `next build` 입니다.",
        "수정했습니다. 다시 확인해 주세요.",
        [
            (
                "빌드하면 Module not found: Can't resolve 'fs' 에러가 나요.",
                "Can't resolve 'fs'",
                "원인은 클라이언트 컴포넌트에서 `fs` 를 import 하고 있기 때문입니다.",
                "클라이언트 컴포넌트에서",
                "app/page.tsx",
            ),
            (
                "로그인하면 401 에러가 계속 나요.",
                "401",
                "문제는 토큰을 `Bearer` 접두사 없이 보내고 있다는 점입니다.",
                "접두사 없이 보내고",
                "src/api/client.ts",
            ),
            (
                "차트가 항상 비어 있어요.",
                "비어 있어요",
                "데이터의 날짜 형식이 달라서 파싱에 실패했기 때문입니다.",
                "날짜 형식이 달라서",
                "src/chart/parse.ts",
            ),
        ],
    ));
    // 8: a first guess, then "still the same", Chinese and Spanish.
    out.extend(family(
        8,
        Shape::Again("可能是缓存的问题，我先清一下缓存再构建。", "还是一样的错误。"),
        "`tsconfig.json` 里已经设置了 `\"strict\": true`。",
        "已经修好了，请再试一下。",
        [
            (
                "页面一打开就报 Maximum update depth exceeded。",
                "Maximum update depth exceeded",
                "根本原因是 `useEffect` 没有依赖数组，每次渲染都会调用 `setState`。",
                "没有依赖数组",
                "src/hooks/useFilters.ts",
            ),
            (
                "导出的 PDF 中文全是乱码。",
                "乱码",
                "原因是 PDF 里没有嵌入中文字体，默认字体不含这些字符。",
                "没有嵌入中文字体",
                "src/export/pdf.ts",
            ),
            (
                "El correo de bienvenida nunca llega a los usuarios nuevos.",
                "nunca llega",
                "El problema real es que la cola `emails` no tiene ningún worker escuchando.",
                "no tiene ningún worker",
                "worker/main.py",
            ),
        ],
    ));
    out
}
