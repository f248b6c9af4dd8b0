//! The class "a request answered by an edit": the user asks for a change, the assistant
//! reads a file, edits it and ends its turn with no words that say what it did ("Done.",
//! "完成。现在提交吗？", or nothing at all). A summary that keeps the request ("Earlier
//! request: …") and the edit (under Done) on separate lines leaves a resuming agent unable
//! to tell which request the edit answered, or whether it was answered at all. The request's
//! line must name what the turn changed: the file and the line the edit put in it.
//!
//! Each family is one project in one language, with three requests, one per shape of the
//! closing: a bare "done" in the family's language, a "done" followed by a question
//! ("commit now?"), and no text at all. The request's subject (a word of the request) is
//! neither in the file's path nor in the line the edit added, so only a line that joins the
//! request to its edit passes.

use super::super::*;
use super::Instance;
use super::families::{call, filler};

const CLASS: &str = "a request answered by an edit";

/// One request: its words, a subject word of them, the file, the edit's old and new text,
/// and a piece of the line the edit added that the request's line must hold.
type Asked = (&'static str, &'static str, &'static str, &'static str, &'static str, &'static str);

/// One family: three requests, the family's "done", the question after it, and the request
/// that comes next (which makes the one under test an earlier one).
struct Family {
    asked: [Asked; 3],
    done: &'static str,
    question: &'static str,
    next: &'static str,
}

fn file_name(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

fn instances(index: usize, family: Family) -> Vec<Instance> {
    let mut out = Vec::new();
    for (n, (request, subject, path, old, new, key)) in family.asked.into_iter().enumerate() {
        let id = format!("d{index}{n}");
        let mut messages = filler(2, 70 + index * 3 + n);
        messages.push(user(request));
        messages.push(call(&format!("{id}r"), "Read", json!({ "file_path": path })));
        messages.push(result(&format!("{id}r"), "Read", old, false));
        messages.push(call(
            &format!("{id}e"),
            "Edit",
            json!({ "file_path": path, "old_string": old, "new_string": new }),
        ));
        messages.push(result(
            &format!("{id}e"),
            "Edit",
            &format!("The file {path} has been updated successfully."),
            false,
        ));
        match n {
            0 => messages.push(assistant(family.done, &[])),
            1 => messages.push(assistant(&format!("{} {}", family.done, family.question), &[])),
            _ => {}
        }
        messages.push(user(family.next));
        messages.push(assistant("On it.", &[]));
        out.push(
            Instance::new(CLASS, index, messages)
                .expect(&[subject], key)
                .expect(&[subject], file_name(path)),
        );
    }
    out
}

pub(super) fn requests_answered_by_edits() -> Vec<Instance> {
    let families = [
        Family {
            asked: [
                (
                    "Wrap the tooltip calculation in a memo again, it re-renders on every hover.",
                    "re-renders",
                    "web/src/components/OptionButton/index.tsx",
                    "  const tip = buildTip(props)\n  return <Button tip={tip} />",
                    "  const tip = useMemo(() => buildTip(props), [props])\n  return <Button tip={tip} />",
                    "useMemo(() => buildTip(props), [props])",
                ),
                (
                    "The session cookie should expire after two hours of inactivity.",
                    "inactivity",
                    "server/config/session.js",
                    "module.exports = {\n  name: 'sid',\n}",
                    "module.exports = {\n  name: 'sid',\n  maxAge: 2 * 60 * 60 * 1000,\n}",
                    "maxAge: 2 * 60 * 60 * 1000",
                ),
                (
                    "Log the request id with every failed payment so support can find it.",
                    "support",
                    "services/billing/charge.py",
                    "    except CardError as err:\n        raise",
                    "    except CardError as err:\n        log.error(\"charge failed\", request_id=req.id)\n        raise",
                    "log.error(\"charge failed\", request_id=req.id)",
                ),
            ],
            done: "Done.",
            question: "Should I commit it?",
            next: "Now update the changelog.",
        },
        Family {
            asked: [
                (
                    "El CSV exportado tiene que usar punto y coma, Excel en español no abre las comas.",
                    "Excel",
                    "exportar/salida.py",
                    "writer = csv.writer(f)",
                    "writer = csv.writer(f, delimiter=\";\")",
                    "delimiter=\";\"",
                ),
                (
                    "Sube el límite de filas del informe a cinco mil, los clientes grandes se quedan cortos.",
                    "clientes grandes",
                    "informes/config.toml",
                    "[informe]\ntitulo = \"Ventas\"",
                    "[informe]\ntitulo = \"Ventas\"\nmax_filas = 5000",
                    "max_filas = 5000",
                ),
                (
                    "Ordena la tabla de pedidos por fecha descendente.",
                    "pedidos",
                    "web/tabla.js",
                    "const filas = datos.slice()",
                    "const filas = datos.slice().sort((a, b) => b.fecha - a.fecha)",
                    "sort((a, b) => b.fecha - a.fecha)",
                ),
            ],
            done: "Listo.",
            question: "¿Hago el commit?",
            next: "Ahora revisa los tests.",
        },
        Family {
            asked: [
                (
                    "上传失败的时候要重试三次，网络不稳定。",
                    "网络不稳定",
                    "src/upload/client.ts",
                    "export const client = createClient({ baseURL })",
                    "export const client = createClient({ baseURL, retries: 3 })",
                    "createClient({ baseURL, retries: 3 })",
                ),
                (
                    "还是用memo包一下吧，列表太长了。",
                    "列表太长",
                    "src/pages/list/Table.tsx",
                    "export default Table",
                    "export default React.memo(Table)",
                    "React.memo(Table)",
                ),
                (
                    "金额显示保留两位小数。",
                    "金额",
                    "src/utils/format.ts",
                    "return String(value)",
                    "return value.toFixed(2)",
                    "value.toFixed(2)",
                ),
            ],
            done: "完成。",
            question: "现在提交吗？",
            next: "接下来看一下登录页。",
        },
        Family {
            asked: [
                (
                    "The health check hits the database too often; cache its result for ten seconds.",
                    "health check",
                    "internal/probe/probe.go",
                    "func (p *Probe) Ready() bool {\n\treturn p.db.Ping() == nil\n}",
                    "func (p *Probe) Ready() bool {\n\treturn p.cached(10*time.Second, p.db.Ping) == nil\n}",
                    "p.cached(10*time.Second, p.db.Ping)",
                ),
                (
                    "Build the release binary with LTO, it is too slow to start.",
                    "too slow to start",
                    "Cargo.toml",
                    "[profile.release]\nopt-level = 3",
                    "[profile.release]\nopt-level = 3\nlto = \"fat\"",
                    "lto = \"fat\"",
                ),
                (
                    "Run the migrations before the app starts in the container.",
                    "container",
                    "deploy/entrypoint.sh",
                    "exec ./server",
                    "./migrate up\nexec ./server",
                    "./migrate up",
                ),
            ],
            done: "All set.",
            question: "Want me to push?",
            next: "Next, look at the flaky login test.",
        },
        Family {
            asked: [
                (
                    "ログイン画面のエラーメッセージを赤で表示してください。",
                    "ログイン画面",
                    "src/auth/SignIn.vue",
                    "<p class=\"msg\">{{ error }}</p>",
                    "<p class=\"msg text-red-600\">{{ error }}</p>",
                    "text-red-600",
                ),
                (
                    "一覧の件数を1ページ50件にしてください。",
                    "一覧",
                    "src/api/pagination.ts",
                    "export const PAGE_SIZE = 20",
                    "export const PAGE_SIZE = 50",
                    "PAGE_SIZE = 50",
                ),
                (
                    "日付は日本時間で表示するようにしてください。",
                    "日本時間",
                    "src/utils/date.ts",
                    "return format(d, 'yyyy/MM/dd HH:mm')",
                    "return formatInTimeZone(d, 'Asia/Tokyo', 'yyyy/MM/dd HH:mm')",
                    "formatInTimeZone(d, 'Asia/Tokyo'",
                ),
            ],
            done: "完了しました。",
            question: "コミットしますか？",
            next: "次はテストを追加してください。",
        },
        Family {
            asked: [
                (
                    "Die Suche soll Groß- und Kleinschreibung ignorieren.",
                    "Kleinschreibung",
                    "app/search/query.rb",
                    "scope.where(\"name LIKE ?\", term)",
                    "scope.where(\"name ILIKE ?\", term)",
                    "ILIKE",
                ),
                (
                    "Der Export-Job läuft nachts um drei, nicht mehr stündlich.",
                    "nachts",
                    "config/schedule.yml",
                    "export:\n  cron: \"0 * * * *\"",
                    "export:\n  cron: \"0 3 * * *\"",
                    "cron: \"0 3 * * *\"",
                ),
                (
                    "Zeig im Warenkorb die Versandkosten getrennt an.",
                    "Warenkorb",
                    "app/views/cart/show.html.erb",
                    "<%= cart.total %>",
                    "<%= cart.subtotal %>\n<%= cart.shipping_cost %>\n<%= cart.total %>",
                    "cart.shipping_cost",
                ),
            ],
            done: "Erledigt.",
            question: "Soll ich committen?",
            next: "Jetzt bitte die Tests laufen lassen.",
        },
        Family {
            asked: [
                (
                    "검색 결과가 너무 느려요, 인덱스를 추가해 주세요.",
                    "느려요",
                    "db/migrations/0042_search.sql",
                    "-- search",
                    "-- search\nCREATE INDEX idx_posts_title ON posts (title);",
                    "CREATE INDEX idx_posts_title ON posts (title);",
                ),
                (
                    "로그인 세션을 7일 동안 유지해 주세요.",
                    "로그인 세션",
                    "backend/settings.py",
                    "SESSION_COOKIE_AGE = 86400",
                    "SESSION_COOKIE_AGE = 604800",
                    "SESSION_COOKIE_AGE = 604800",
                ),
                (
                    "이미지 업로드 크기를 10MB로 제한해 주세요.",
                    "업로드 크기",
                    "backend/upload/views.py",
                    "def upload(request):\n    file = request.FILES['file']",
                    "def upload(request):\n    file = request.FILES['file']\n    if file.size > 10 * 1024 * 1024: return too_large()",
                    "if file.size > 10 * 1024 * 1024: return too_large()",
                ),
            ],
            done: "완료했습니다.",
            question: "커밋할까요?",
            next: "이제 테스트를 돌려 주세요.",
        },
        Family {
            asked: [
                (
                    "Les montants doivent s'afficher avec l'espace insécable comme séparateur de milliers.",
                    "séparateur de milliers",
                    "src/format/montant.ts",
                    "return n.toString()",
                    "return new Intl.NumberFormat('fr-FR').format(n)",
                    "Intl.NumberFormat('fr-FR')",
                ),
                (
                    "Coupe le délai d'attente de l'API à cinq secondes.",
                    "délai d'attente",
                    "src/api/client.ts",
                    "const http = axios.create({ baseURL })",
                    "const http = axios.create({ baseURL, timeout: 5000 })",
                    "timeout: 5000",
                ),
                (
                    "Ajoute le nom du projet dans le titre de la page.",
                    "titre de la page",
                    "public/index.html",
                    "<title></title>",
                    "<title>Atelier Planning</title>",
                    "<title>Atelier Planning</title>",
                ),
            ],
            done: "C'est fait.",
            question: "Je fais le commit ?",
            next: "Maintenant, regarde la page d'accueil.",
        },
        Family {
            asked: [
                (
                    "Make the worker pool size configurable from the environment.",
                    "configurable",
                    "cmd/worker/main.go",
                    "pool := NewPool(4)",
                    "pool := NewPool(envInt(\"POOL_SIZE\", 4))",
                    "envInt(\"POOL_SIZE\", 4)",
                ),
                (
                    "Skip the slow integration tests unless CI asks for them.",
                    "integration tests",
                    "tests/conftest.py",
                    "import pytest",
                    "import pytest\n\npytestmark = pytest.mark.skipif(not os.getenv(\"CI\"), reason=\"slow\")",
                    "pytest.mark.skipif(not os.getenv(\"CI\")",
                ),
                (
                    "Pin the Node version the project builds with.",
                    "builds with",
                    "package.json",
                    "  \"private\": true,",
                    "  \"private\": true,\n  \"engines\": { \"node\": \"22.19.0\" },",
                    "\"engines\": { \"node\": \"22.19.0\" },",
                ),
            ],
            done: "Done!",
            question: "Shall I open a PR?",
            next: "Now bump the version.",
        },
    ];
    families.into_iter().enumerate().flat_map(|(index, family)| instances(index, family)).collect()
}
