//! The class "a proposal confirmed": the assistant sets out what it will do, ends with a
//! question that names nothing ("Shall I go ahead?", "¿Lo hago?", "진행할까요?"), the user
//! says yes, and the work follows with a reply that does not repeat the proposal ("Done.").
//! What was agreed is only in the sentences before the question. Each family is one
//! language or one way of proposing (a sentence, a numbered list, a sentence then a
//! filler), with three proposals whose facts are names, numbers and choices.

use super::super::*;
use super::Instance;

const CLASS: &str = "proposal confirmed";

/// One instance: the proposal (before the question), a subject the probe names, the text
/// it expects.
type Case = (&'static str, &'static str, &'static str);

/// A family: its cases, the question that closes the proposal, the user's yes.
struct Family {
    cases: [Case; 3],
    question: &'static str,
    yes: &'static str,
}

/// The families, in order (a family's index decides its part).
const FAMILIES: [Family; 9] = [
    // 0: English, one sentence.
    Family {
        cases: [
            (
                "I'd cache the exchange rates in Redis with a 15 minute expiry instead of calling the API on every quote.",
                "exchange rates",
                "15 minute expiry",
            ),
            (
                "The cleanest fix is to move the retry loop into `SyncWorker.run` and give up after 5 attempts.",
                "retry",
                "5 attempts",
            ),
            (
                "I suggest we rename the `legacy_users` table to `accounts` and keep a view under the old name.",
                "legacy_users",
                "keep a view under the old name",
            ),
        ],
        question: "Shall I go ahead?",
        yes: "yes",
    },
    // 1: English, a numbered list after a lead.
    Family {
        cases: [
            (
                "Here's the scope:\n\n1. `models.go`: add `ArchivedAt *time.Time` to `Project`\n2. `store.go`: add `ArchiveProject(ctx, id)`\n3. Hide archived projects from `ListProjects`",
                "ArchiveProject",
                "ArchiveProject(ctx, id)",
            ),
            (
                "Plan for the import:\n\n1. Stream the CSV with `csv.reader` instead of loading it whole\n2. Commit every 500 rows",
                "CSV",
                "every 500 rows",
            ),
            (
                "The migration would be:\n\n1. Add the nullable column `tenant_id`\n2. Backfill it from `orgs.owner_id`",
                "tenant_id",
                "orgs.owner_id",
            ),
        ],
        question: "Sound good?",
        yes: "sure",
    },
    // 2: Spanish.
    Family {
        cases: [
            (
                "Propongo guardar las sesiones en cookies firmadas en lugar de la tabla `sessions`.",
                "sesiones",
                "cookies firmadas",
            ),
            (
                "Mi idea es limitar la subida de imágenes a 8 MB y convertirlas a WebP en el servidor.",
                "imágenes",
                "8 MB",
            ),
            (
                "Lo mejor es programar el informe diario a las 06:00 con un cron en el contenedor `worker`.",
                "informe diario",
                "06:00",
            ),
        ],
        question: "¿Lo hago?",
        yes: "sí",
    },
    // 3: French.
    Family {
        cases: [
            (
                "Je propose de remplacer `moment` par `date-fns` dans tout le front.",
                "moment",
                "date-fns",
            ),
            (
                "On pourrait paginer l'API des commandes par curseur, 50 éléments par page.",
                "commandes",
                "50 éléments par page",
            ),
            (
                "Je vais déplacer les secrets du dépôt vers `vault kv` sous le chemin `shop/prod`.",
                "secrets",
                "shop/prod",
            ),
        ],
        question: "On y va ?",
        yes: "oui vas-y",
    },
    // 4: Chinese.
    Family {
        cases: [
            (
                "我打算把订单状态的轮询改成 WebSocket 推送，间隔从 5 秒去掉。",
                "订单状态",
                "WebSocket 推送",
            ),
            (
                "建议把日志级别默认设为 `warn`，只在 `DEBUG=1` 时输出调试信息。",
                "日志级别",
                "`warn`",
            ),
            ("我准备把图片存储从本地磁盘迁到 S3 的 `media-prod` 桶。", "图片存储", "media-prod"),
        ],
        question: "要我继续吗？",
        yes: "好",
    },
    // 5: German.
    Family {
        cases: [
            (
                "Ich würde die Suche auf Meilisearch umstellen und den Index nachts um 03:00 neu aufbauen.",
                "Suche",
                "Meilisearch",
            ),
            (
                "Mein Vorschlag: Passwörter künftig mit Argon2id hashen und alte Hashes beim Login ersetzen.",
                "Passwörter",
                "Argon2id",
            ),
            (
                "Wir sollten die Rechnungen als PDF mit `weasyprint` erzeugen statt mit dem alten Java-Dienst.",
                "Rechnungen",
                "weasyprint",
            ),
        ],
        question: "Soll ich loslegen?",
        yes: "ja, mach",
    },
    // 6: Japanese.
    Family {
        cases: [
            (
                "認証トークンの有効期限を 30 分にして、リフレッシュトークンを追加する方針です。",
                "有効期限",
                "30 分",
            ),
            (
                "CI のテストを `pytest -n 4` で並列実行するように変更します。",
                "テスト",
                "pytest -n 4",
            ),
            (
                "通知メールの送信は SendGrid から Amazon SES に切り替える予定です。",
                "通知メール",
                "Amazon SES",
            ),
        ],
        question: "進めてもいいですか？",
        yes: "はい",
    },
    // 7: English, the proposal then a filler sentence before the question.
    Family {
        cases: [
            (
                "The port clash goes away if the admin UI moves to 8443 and the API keeps 8080. That's all it takes.",
                "admin UI",
                "8443",
            ),
            (
                "We can drop the nightly full backup and keep hourly WAL archiving to `s3://db-wal`. Nothing else changes.",
                "backup",
                "s3://db-wal",
            ),
            (
                "I'd pin `openssl` to 3.0.13 in the base image to match production. That's it.",
                "openssl",
                "3.0.13",
            ),
        ],
        question: "Want me to proceed?",
        yes: "ok",
    },
    // 8: Korean.
    Family {
        cases: [
            (
                "회원 탈퇴 시 데이터를 30일 동안 보관한 뒤 삭제하도록 바꾸겠습니다.",
                "회원 탈퇴",
                "30일",
            ),
            (
                "결제 모듈은 토스페이먼츠 SDK v2로 교체하는 게 좋겠습니다.",
                "결제 모듈",
                "토스페이먼츠 SDK v2",
            ),
            ("이미지 업로드 한도를 10MB로 올리고 `sharp`로 리사이즈하겠습니다.", "업로드", "10MB"),
        ],
        question: "진행할까요?",
        yes: "네",
    },
];

/// Every instance: a request, the proposal with its question, the user's yes, the work and
/// a reply that does not repeat it, then unrelated turns.
pub(super) fn proposals_confirmed() -> Vec<Instance> {
    let mut out = Vec::new();
    for (family, spec) in FAMILIES.iter().enumerate() {
        for (index, (proposal, subject, expected)) in spec.cases.iter().enumerate() {
            let id = format!("p{family}_{index}");
            let mut messages = vec![
                user("Look into it and tell me what you would change."),
                assistant(&format!("{proposal}\n\n{}", spec.question), &[]),
                user(spec.yes),
                assistant(
                    "",
                    &[(
                        id.as_str(),
                        "Edit",
                        json!({ "file_path": "src/app.py", "old_string": "a", "new_string": "b" }),
                    )],
                ),
                result(&id, "Edit", "The file src/app.py has been updated.", false),
                assistant("Done.", &[]),
            ];
            messages.extend(super::families::filler(3, family));
            out.push(Instance::new(CLASS, family, messages).expect(&[subject], expected));
        }
    }
    out
}
