//! The class "a no that rejects nothing": a user message opens like a correction ("nope",
//! "no,", "non", "不是") but rejects no proposal. Two kinds, seen in real sessions:
//! - *the problem persists*: the assistant made a fix and said it should work; the user says
//!   the symptom is still there ("nope, still cannot drag"). The fix did not work, and the
//!   problem stays open; the approach was not refused;
//! - *the user restates a question*: the user asked something, the assistant answered
//!   another reading of it, and the user says which one they meant ("no, talking about
//!   expire at"). The answer was not refused either: it answered another question.
//!
//! A summary that records either as "Rejected by the user: …" states a refusal the
//! transcript never shows, and a later reader drops the answer or the fix from what was
//! decided. Control families hold real refusals ("no, don't use Redis, use Postgres"),
//! which must stay recorded as rejected, in seven languages (families 12 to 17 were added
//! after the first measurement, to give the dev part refusals in languages other than
//! English). Each family is one kind in one language with three
//! cases; the split is the classes' (family index 2 modulo 3 is test).

use super::super::*;
use super::Instance;

const CLASS: &str = "no that rejects nothing";

/// What a family's user message does.
#[derive(Clone, Copy)]
enum Kind {
    /// The symptom is still there after a fix.
    Persists,
    /// The user says which question they meant.
    Restates,
    /// A real refusal of the proposal (control).
    Refuses,
}

/// One case: the user's first message, the assistant's reply to it (a fix announced, an
/// answer, or a proposal), the user's "no" message, the assistant's reply to that; then the
/// check: a subject and the text a line naming it must hold, and the term of the first
/// reply that no line may state as rejected (`Refuses`: that must be stated as rejected).
struct Case {
    ask: &'static str,
    reply: &'static str,
    no: &'static str,
    answer: &'static str,
    subject: &'static str,
    expected: &'static str,
    term: &'static str,
}

struct Family {
    kind: Kind,
    cases: [Case; 3],
}

/// The families, in order (a family's index decides its part).
const FAMILIES: [Family; 18] = [
    // 0: the problem persists, English.
    Family {
        kind: Kind::Persists,
        cases: [
            Case {
                ask: "The cards on the board can't be dragged, clicking one starts a text selection. Fix it.",
                reply: "I set `draggable: true` on the card nodes in `Board.tsx`; dragging should work now.",
                no: "nope, still cannot drag the cards",
                answer: "Then the overlay is catching the pointer: I gave `.card-overlay` `pointer-events: none`.",
                subject: "drag",
                expected: "still cannot drag the cards",
                term: "draggable: true",
            },
            Case {
                ask: "Uploading a 20 MB file times out. Please fix.",
                reply: "I raised `client_max_body_size` to 50m in `nginx.conf`, so large uploads should go through.",
                no: "no, still times out at exactly 60 seconds",
                answer: "That is the proxy timeout: I set `proxy_read_timeout 300s` as well.",
                subject: "times out",
                expected: "still times out at exactly 60 seconds",
                term: "client_max_body_size",
            },
            Case {
                ask: "The dark mode toggle doesn't persist after reload.",
                reply: "I now write the choice to `localStorage` under `theme` in `useTheme.ts`, which should keep it.",
                no: "nope. still resets to light on every reload",
                answer: "The server render overwrote it: the initial theme is read before hydration now.",
                subject: "reload",
                expected: "still resets to light on every reload",
                term: "localStorage",
            },
        ],
    },
    // 1: the user restates a question, English.
    Family {
        kind: Kind::Restates,
        cases: [
            Case {
                ask: "so do we already store it?",
                reply: "Yes, `signed_at` is already on the `Contract` model and is written when the contract is approved.",
                no: "no, I mean expires_at",
                answer: "`expires_at` exists in the proto `Contract` message (field 4) but is never populated.",
                subject: "expires_at",
                expected: "field 4",
                term: "signed_at",
            },
            Case {
                ask: "where is the limit configured?",
                reply: "The rate limit is set in `config/ratelimit.yaml`: 100 requests per minute per key.",
                no: "no, I meant the upload size limit",
                answer: "The upload size limit is `MAX_UPLOAD_MB = 25` in `settings/base.py`.",
                subject: "upload",
                expected: "MAX_UPLOAD_MB = 25",
                term: "config/ratelimit.yaml",
            },
            Case {
                ask: "which version are we on?",
                reply: "The app is at version 2.4.1 according to `package.json`.",
                no: "no, I mean which Node version",
                answer: "Node 20.11.1, pinned in `.nvmrc`.",
                subject: "node",
                expected: "20.11.1",
                term: "2.4.1",
            },
        ],
    },
    // 2: the problem persists, English, the same error again (test).
    Family {
        kind: Kind::Persists,
        cases: [
            Case {
                ask: "The build fails with `Cannot find module 'zod'`.",
                reply: "I added `zod` to the dependencies in `package.json`; the build should pass now.",
                no: "no luck, same error: Cannot find module 'zod' in packages/api",
                answer: "The api package has its own manifest: I added `zod` to `packages/api/package.json` too.",
                subject: "zod",
                expected: "same error: cannot find module 'zod' in packages/api",
                term: "to the dependencies in `package.json`",
            },
            Case {
                ask: "The worker crashes on start with a segfault.",
                reply: "I bumped `libvips` to 8.15 in the Dockerfile, which fixes the known crash.",
                no: "nah, it still segfaults right after 'loading models'",
                answer: "Then it is the model loader: I set `OMP_NUM_THREADS=1` for the worker.",
                subject: "segfault",
                expected: "still segfaults right after 'loading models'",
                term: "libvips",
            },
            Case {
                ask: "Emails from the contact form never arrive.",
                reply: "I switched the mailer port from 25 to 587 with STARTTLS; mail should be delivered now.",
                no: "no, nothing arrives still, not even in spam",
                answer: "The sender domain had no SPF record: I added the `include:` for the mail provider.",
                subject: "arrive",
                expected: "nothing arrives still, not even in spam",
                term: "587",
            },
        ],
    },
    // 3: the user restates a question, Spanish.
    Family {
        kind: Kind::Restates,
        cases: [
            Case {
                ask: "¿dónde se define el puerto?",
                reply: "El puerto de la API es 8080 y se define en `config/server.toml`.",
                no: "no, me refiero al puerto de la base de datos",
                answer: "La base de datos escucha en el 5433, según `docker-compose.yml`.",
                subject: "base de datos",
                expected: "5433",
                term: "config/server.toml",
            },
            Case {
                ask: "¿cuántos usuarios hay?",
                reply: "Hay 1.250 usuarios registrados en la tabla `users`.",
                no: "no, me refiero a los usuarios activos este mes",
                answer: "Los usuarios activos este mes son 312, según `last_login`.",
                subject: "activos",
                expected: "312",
                term: "1.250",
            },
            Case {
                ask: "¿qué versión usamos?",
                reply: "Usamos Django 4.2 según `requirements.txt`.",
                no: "no, hablo de la versión de Python",
                answer: "Python 3.11.8, fijada en `.python-version`.",
                subject: "python",
                expected: "3.11.8",
                term: "django 4.2",
            },
        ],
    },
    // 4: the problem persists, Spanish.
    Family {
        kind: Kind::Persists,
        cases: [
            Case {
                ask: "El botón de guardar no hace nada.",
                reply: "Conecté `onSubmit` al formulario en `Editor.vue`; ya debería guardar.",
                no: "no, sigue sin guardar nada",
                answer: "El botón era de tipo `button`: lo cambié a `submit`.",
                subject: "guardar",
                expected: "sigue sin guardar nada",
                term: "onsubmit",
            },
            Case {
                ask: "La página de informes tarda 30 segundos en cargar.",
                reply: "Añadí un índice sobre `orders.created_at`, lo que debería acelerar la consulta.",
                no: "no, sigue tardando lo mismo",
                answer: "La lentitud venía del N+1 de clientes: ahora se cargan con `select_related`.",
                subject: "tardando",
                expected: "sigue tardando lo mismo",
                term: "orders.created_at",
            },
            Case {
                ask: "Las fechas salen en inglés en el PDF.",
                reply: "Configuré `LANGUAGE_CODE = 'es'` en los ajustes, así que las fechas saldrán en español.",
                no: "nop, siguen saliendo en inglés",
                answer: "El PDF usa su propio locale: lo fijé con `locale.setlocale` antes de generarlo.",
                subject: "inglés",
                expected: "siguen saliendo en inglés",
                term: "language_code",
            },
        ],
    },
    // 5: the user restates a question, English, "talking about" (test).
    Family {
        kind: Kind::Restates,
        cases: [
            Case {
                ask: "is it cached?",
                reply: "Yes, product pages are cached by the CDN for 10 minutes.",
                no: "no, talking about the search results",
                answer: "Search results are not cached at all; every query hits Elasticsearch.",
                subject: "search results",
                expected: "not cached at all",
                term: "10 minutes",
            },
            Case {
                ask: "what timeout do we use?",
                reply: "HTTP requests to the payment provider time out after 15 seconds.",
                no: "no, talking about the database connection timeout",
                answer: "The database connection timeout is 5 seconds (`connect_timeout=5` in the DSN).",
                subject: "database connection timeout",
                expected: "connect_timeout=5",
                term: "15 seconds",
            },
            Case {
                ask: "who owns that service?",
                reply: "The billing service is owned by the payments team.",
                no: "no, talking about the notifications service",
                answer: "The notifications service is owned by the platform team (see `CODEOWNERS`).",
                subject: "notifications service",
                expected: "platform team",
                term: "payments team",
            },
        ],
    },
    // 6: control, a real refusal, English.
    Family {
        kind: Kind::Refuses,
        cases: [
            Case {
                ask: "We need somewhere to keep the job queue.",
                reply: "I'd put the job queue in Redis with a list per priority.",
                no: "no, don't add Redis, use a Postgres table with SKIP LOCKED",
                answer: "OK, the queue is a `jobs` table read with `FOR UPDATE SKIP LOCKED`.",
                subject: "rejected",
                expected: "redis",
                term: "redis",
            },
            Case {
                ask: "How should we store the uploaded avatars?",
                reply: "I'll store the avatars as base64 blobs in the `users` table.",
                no: "no, that's wrong, put them in the S3 bucket and keep only the key",
                answer: "Avatars now go to S3; the `users` table keeps `avatar_key`.",
                subject: "rejected",
                expected: "base64 blobs",
                term: "base64 blobs",
            },
            Case {
                ask: "Pick a date library for the frontend.",
                reply: "I'll add Moment.js for the date formatting.",
                no: "nope, not moment, it's too heavy. use date-fns",
                answer: "Switched to `date-fns`.",
                subject: "rejected",
                expected: "moment.js",
                term: "moment.js",
            },
        ],
    },
    // 7: the problem persists, Chinese.
    Family {
        kind: Kind::Persists,
        cases: [
            Case {
                ask: "登录以后页面一直转圈。",
                reply: "我在 `auth.ts` 里把 token 刷新改成了 await，现在应该能正常进入了。",
                no: "不行，还是一直转圈",
                answer: "原因是路由守卫死循环：已在 `router.ts` 里跳过登录页。",
                subject: "转圈",
                expected: "还是一直转圈",
                term: "auth.ts",
            },
            Case {
                ask: "导出的 CSV 中文是乱码。",
                reply: "我把导出编码改成了 UTF-8，应该不会乱码了。",
                no: "没用，还是乱码",
                answer: "Excel 需要 BOM：已在文件开头写入 UTF-8 BOM。",
                subject: "乱码",
                expected: "还是乱码",
                term: "utf-8，应该",
            },
            Case {
                ask: "推送通知收不到。",
                reply: "我更新了 FCM 的服务器密钥配置，通知应该能收到了。",
                no: "不对，仍然收不到通知",
                answer: "设备 token 没有上报：已在启动时调用 `registerToken`。",
                subject: "收不到",
                expected: "仍然收不到通知",
                term: "fcm",
            },
        ],
    },
    // 8: control, a real refusal, French (test).
    Family {
        kind: Kind::Refuses,
        cases: [
            Case {
                ask: "Il faut stocker les sessions quelque part.",
                reply: "Je propose de garder les sessions dans Memcached.",
                no: "non, pas Memcached, utilise des cookies signés",
                answer: "D'accord, les sessions sont dans des cookies signés.",
                subject: "rejected",
                expected: "memcached",
                term: "memcached",
            },
            Case {
                ask: "Comment planifier l'envoi des rapports ?",
                reply: "Je vais ajouter Celery beat pour planifier les rapports.",
                no: "non, c'est trop lourd, un cron système suffit",
                answer: "Les rapports partent d'un cron système à 6 h.",
                subject: "rejected",
                expected: "celery beat",
                term: "celery beat",
            },
            Case {
                ask: "Quel format pour les logs ?",
                reply: "Je vais écrire les logs en XML dans `logs/app.xml`.",
                no: "non, surtout pas du XML, mets du JSON lines",
                answer: "Les logs sont en JSON lines dans `logs/app.jsonl`.",
                subject: "rejected",
                expected: "xml",
                term: "logs/app.xml",
            },
        ],
    },
    // 9: the user restates a question, Chinese.
    Family {
        kind: Kind::Restates,
        cases: [
            Case {
                ask: "这个超时是多少？",
                reply: "接口网关的超时是 30 秒，在 `gateway.yaml` 里配置。",
                no: "不是，我是说数据库的超时",
                answer: "数据库连接超时是 8 秒（`DB_TIMEOUT=8`）。",
                subject: "数据库",
                expected: "DB_TIMEOUT=8",
                term: "gateway.yaml",
            },
            Case {
                ask: "用的是哪个分支？",
                reply: "当前部署的是 `main` 分支。",
                no: "不是，我指的是测试环境",
                answer: "测试环境部署的是 `release/3.2` 分支。",
                subject: "测试环境",
                expected: "release/3.2",
                term: "`main` 分支",
            },
            Case {
                ask: "日志保存多久？",
                reply: "应用日志保留 7 天。",
                no: "不是，我是问审计日志",
                answer: "审计日志保留 180 天，存放在 `audit_logs` 表。",
                subject: "审计日志",
                expected: "180 天",
                term: "7 天",
            },
        ],
    },
    // 10: the problem persists, German.
    Family {
        kind: Kind::Persists,
        cases: [
            Case {
                ask: "Der Export bricht bei großen Dateien ab.",
                reply: "Ich habe das Speicherlimit des Workers auf 2 GB erhöht, damit sollte der Export durchlaufen.",
                no: "nein, bricht immer noch ab",
                answer: "Der Export lief in einen Timeout: er läuft jetzt in Blöcken zu 10.000 Zeilen.",
                subject: "bricht",
                expected: "bricht immer noch ab",
                term: "2 gb",
            },
            Case {
                ask: "Die Umlaute im Betreff sind kaputt.",
                reply: "Ich habe den Betreff mit `encode_header` kodiert; die Umlaute sollten jetzt stimmen.",
                no: "nö, immer noch kaputt im Outlook",
                answer: "Outlook braucht RFC 2047 mit UTF-8: der Betreff wird jetzt so kodiert.",
                subject: "outlook",
                expected: "immer noch kaputt im outlook",
                term: "encode_header",
            },
            Case {
                ask: "Die Seite lädt auf dem iPhone nicht.",
                reply: "Ich habe das Polyfill für `structuredClone` eingebunden, damit sollte Safari laden.",
                no: "nein, geht immer noch nicht auf dem iPhone",
                answer: "Safari scheiterte am Lookbehind im Regex: ich habe ihn ersetzt.",
                subject: "iphone",
                expected: "geht immer noch nicht auf dem iphone",
                term: "structuredclone",
            },
        ],
    },
    // 11: the problem persists, French (test).
    Family {
        kind: Kind::Persists,
        cases: [
            Case {
                ask: "Le formulaire d'inscription renvoie une erreur 500.",
                reply: "J'ai ajouté la colonne manquante `phone` à la migration ; l'inscription devrait marcher.",
                no: "non, toujours une erreur 500 à l'inscription",
                answer: "Le 500 venait de l'envoi du mail de bienvenue : il est maintenant mis en file.",
                subject: "500",
                expected: "toujours une erreur 500 à l'inscription",
                term: "phone",
            },
            Case {
                ask: "Les images ne s'affichent pas en production.",
                reply: "J'ai corrigé `STATIC_URL` dans les réglages ; les images devraient s'afficher.",
                no: "non, elles ne s'affichent toujours pas",
                answer: "Le bucket n'était pas public : j'ai ajouté la politique de lecture.",
                subject: "affichent",
                expected: "ne s'affichent toujours pas",
                term: "static_url",
            },
            Case {
                ask: "Le test `test_checkout` échoue au hasard.",
                reply: "J'ai figé l'horloge avec `freezegun` dans le test ; il ne devrait plus échouer.",
                no: "non, il échoue encore une fois sur trois",
                answer: "Le test dépendait de l'ordre des paniers : il trie maintenant par id.",
                subject: "échoue",
                expected: "échoue encore une fois sur trois",
                term: "freezegun",
            },
        ],
    },
    // 12: control, a real refusal, German.
    Family {
        kind: Kind::Refuses,
        cases: [
            Case {
                ask: "Wir brauchen einen Cache für die Preise.",
                reply: "Ich würde die Preise in Memcached mit 5 Minuten Ablaufzeit cachen.",
                no: "nein, kein Memcached, nimm den vorhandenen Redis",
                answer: "Die Preise liegen jetzt im vorhandenen Redis.",
                subject: "rejected",
                expected: "memcached",
                term: "memcached",
            },
            Case {
                ask: "Wie sollen wir die Berichte erzeugen?",
                reply: "Ich erzeuge die Berichte mit LaTeX im Build-Container.",
                no: "nein, das ist zu schwer, HTML mit weasyprint reicht",
                answer: "Die Berichte entstehen jetzt als HTML und werden mit weasyprint gedruckt.",
                subject: "rejected",
                expected: "latex",
                term: "latex",
            },
            Case {
                ask: "Welche ID sollen die Bestellungen bekommen?",
                reply: "Ich nehme fortlaufende Integer-IDs für die Bestellungen.",
                no: "nein, keine fortlaufenden IDs, die verraten das Volumen",
                answer: "Die Bestellungen bekommen jetzt ULIDs.",
                subject: "rejected",
                expected: "integer-ids",
                term: "integer-ids",
            },
        ],
    },
    // 13: control, a real refusal, Chinese.
    Family {
        kind: Kind::Refuses,
        cases: [
            Case {
                ask: "任务队列放在哪里？",
                reply: "我打算用 RabbitMQ 做任务队列。",
                no: "不要 RabbitMQ，直接用 Postgres 表",
                answer: "好的，任务队列改成 Postgres 的 `jobs` 表。",
                subject: "rejected",
                expected: "rabbitmq",
                term: "rabbitmq",
            },
            Case {
                ask: "头像怎么存？",
                reply: "我把头像以 base64 存进 `users` 表。",
                no: "不对，头像放到对象存储，表里只存 key",
                answer: "头像已改为上传到对象存储，`users` 表只保存 `avatar_key`。",
                subject: "rejected",
                expected: "base64",
                term: "base64",
            },
            Case {
                ask: "前端的日期库用哪个？",
                reply: "我准备引入 Moment.js 处理日期。",
                no: "不行，Moment.js 太大了，用 dayjs",
                answer: "已改用 dayjs。",
                subject: "rejected",
                expected: "moment.js",
                term: "moment.js",
            },
        ],
    },
    // 14: control, a real refusal, Korean (test).
    Family {
        kind: Kind::Refuses,
        cases: [
            Case {
                ask: "세션은 어디에 저장할까요?",
                reply: "세션을 Redis에 저장하겠습니다.",
                no: "아니요, Redis는 쓰지 말고 서명된 쿠키로 해주세요",
                answer: "세션을 서명된 쿠키로 바꿨습니다.",
                subject: "rejected",
                expected: "redis",
                term: "redis",
            },
            Case {
                ask: "로그 형식은 어떻게 할까요?",
                reply: "로그를 XML 파일로 남기겠습니다.",
                no: "아니, XML 말고 JSON lines로 해",
                answer: "로그를 JSON lines로 바꿨습니다.",
                subject: "rejected",
                expected: "xml",
                term: "xml 파일",
            },
            Case {
                ask: "이미지는 어떻게 리사이즈하죠?",
                reply: "ImageMagick을 컨테이너에 설치해서 리사이즈하겠습니다.",
                no: "아뇨, ImageMagick 말고 sharp를 써요",
                answer: "sharp로 리사이즈하도록 바꿨습니다.",
                subject: "rejected",
                expected: "imagemagick",
                term: "imagemagick을",
            },
        ],
    },
    // 15: control, a real refusal, Japanese.
    Family {
        kind: Kind::Refuses,
        cases: [
            Case {
                ask: "通知はどう送りますか？",
                reply: "通知は SendGrid でメール送信します。",
                no: "いや、SendGrid じゃなくて Amazon SES にして",
                answer: "通知を Amazon SES に切り替えました。",
                subject: "rejected",
                expected: "sendgrid",
                term: "sendgrid で",
            },
            Case {
                ask: "設定はどこに置きますか？",
                reply: "設定を `config.xml` にまとめます。",
                no: "違う、XML は使わないで TOML にして",
                answer: "設定を `config.toml` に移しました。",
                subject: "rejected",
                expected: "config.xml",
                term: "config.xml",
            },
            Case {
                ask: "テストはどう並列化しますか？",
                reply: "テストを Docker コンテナごとに分けて並列実行します。",
                no: "いいえ、コンテナは重いので `pytest -n 4` で",
                answer: "`pytest -n 4` で並列実行するようにしました。",
                subject: "rejected",
                expected: "docker",
                term: "docker コンテナ",
            },
        ],
    },
    // 16: control, a real refusal, Portuguese.
    Family {
        kind: Kind::Refuses,
        cases: [
            Case {
                ask: "Onde guardamos os arquivos enviados?",
                reply: "Vou guardar os arquivos enviados no disco local em `/var/uploads`.",
                no: "não, nada de disco local, coloca no bucket S3",
                answer: "Os arquivos agora vão para o bucket S3.",
                subject: "rejected",
                expected: "/var/uploads",
                term: "/var/uploads",
            },
            Case {
                ask: "Como agendar os relatórios?",
                reply: "Vou usar o Celery beat para agendar os relatórios.",
                no: "não, é pesado demais, um cron basta",
                answer: "Os relatórios saem de um cron às 6h.",
                subject: "rejected",
                expected: "celery beat",
                term: "celery beat",
            },
            Case {
                ask: "Qual biblioteca de gráficos?",
                reply: "Vou adicionar o Highcharts para os gráficos.",
                no: "não, Highcharts é pago, usa o Chart.js",
                answer: "Os gráficos agora usam Chart.js.",
                subject: "rejected",
                expected: "highcharts",
                term: "highcharts para",
            },
        ],
    },
    // 17: control, a real refusal, Italian (test).
    Family {
        kind: Kind::Refuses,
        cases: [
            Case {
                ask: "Dove teniamo le sessioni?",
                reply: "Terrei le sessioni in Memcached.",
                no: "no, niente Memcached, usa i cookie firmati",
                answer: "Le sessioni ora sono nei cookie firmati.",
                subject: "rejected",
                expected: "memcached",
                term: "memcached",
            },
            Case {
                ask: "Come generiamo le fatture?",
                reply: "Genero le fatture con un servizio Java separato.",
                no: "no, troppo pesante, basta weasyprint",
                answer: "Le fatture ora si generano con weasyprint.",
                subject: "rejected",
                expected: "servizio java",
                term: "servizio java",
            },
            Case {
                ask: "Che formato per i log?",
                reply: "Scrivo i log in XML in `logs/app.xml`.",
                no: "macché, niente XML, metti JSON lines",
                answer: "I log ora sono in JSON lines.",
                subject: "rejected",
                expected: "xml",
                term: "logs/app.xml",
            },
        ],
    },
];

/// Every instance: the user's first message, the assistant's reply (after an edit when it
/// announces a fix), the "no" message, the reply to it (after an edit when it fixes), then
/// unrelated turns.
pub(super) fn noes_that_reject_nothing() -> Vec<Instance> {
    let mut out = Vec::new();
    for (family, spec) in FAMILIES.iter().enumerate() {
        for (index, case) in spec.cases.iter().enumerate() {
            let fixes = matches!(spec.kind, Kind::Persists);
            let mut messages = vec![user(case.ask)];
            if fixes {
                messages.extend(super::families::edit(
                    &format!("n{family}_{index}a"),
                    "src/app.ts",
                    "a",
                    "b",
                ));
            }
            messages.push(assistant(case.reply, &[]));
            messages.push(user(case.no));
            if fixes {
                messages.extend(super::families::edit(
                    &format!("n{family}_{index}b"),
                    "src/app.ts",
                    "b",
                    "c",
                ));
            }
            messages.push(assistant(case.answer, &[]));
            messages.extend(super::families::filler(3, family));
            let instance = Instance::new(CLASS, family, messages);
            let instance = match spec.kind {
                Kind::Refuses => instance.expect(&[case.subject], case.expected),
                Kind::Persists | Kind::Restates => instance
                    .expect(&[case.subject], case.expected)
                    .never_current(&["rejected", case.term], &[]),
            };
            out.push(instance);
        }
    }
    out
}
