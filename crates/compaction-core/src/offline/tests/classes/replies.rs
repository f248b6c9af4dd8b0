//! The class "a reply shown with the wrong request": an earlier request is kept with the
//! assistant's answer to it ("Earlier request: … → reply: …"). The answer a resuming agent
//! needs is the sentence that speaks of what was asked; a summary that shows, as that reply,
//! a sentence about something else (a test count said in passing, the answer to an error the
//! user pasted afterwards, the small talk after the user's thanks) pairs the question with
//! an answer it never got. Each family is one project in one language, with three requests:
//! one answered beside an unrelated sentence that carries numbers and code, one followed by a
//! bare pasted error and its answer, one followed by the user's thanks and a chatty reply.

use super::super::*;
use super::Instance;
use super::families::{call, filler};

const CLASS: &str = "a reply shown with the wrong request";

/// One family: three requests, each with the sentence that answers it, a subject word the
/// request and the answer share, and the words of the answer the request's line must keep;
/// then what surrounds them.
struct Family {
    asked: [(&'static str, &'static str, &'static str, &'static str); 3],
    /// A sentence of the same reply about something else, with numbers and code.
    aside: &'static str,
    /// An error the user pastes with no words of their own, and the answer to it.
    paste: &'static str,
    paste_answer: &'static str,
    /// The user's thanks, and the chatty reply after it.
    thanks: &'static str,
    thanks_answer: &'static str,
    /// The request after, which makes the one under test an earlier one.
    next: &'static str,
}

/// A distinctive piece of a wrong answer: the first four words of its longest stretch
/// outside code marks.
fn piece_of(text: &str) -> String {
    let stretch = text.split('`').max_by_key(|piece| piece.trim().len()).unwrap_or(text);
    stretch.split_whitespace().take(4).collect::<Vec<_>>().join(" ")
}

fn instances(index: usize, family: Family) -> Vec<Instance> {
    let mut out = Vec::new();
    for (n, (request, answer, subject, key)) in family.asked.into_iter().enumerate() {
        let id = format!("r{index}{n}");
        let mut messages = filler(2, 40 + index * 3 + n);
        messages.push(user(request));
        messages.push(call(&id, "Read", json!({ "file_path": "README.md" })));
        messages.push(result(&id, "Read", "# Project\n\nSee docs/ for the design.", false));
        let wrong = match n {
            0 => {
                messages.push(assistant(&format!("{}\n\n{answer}", family.aside), &[]));
                None
            }
            1 => {
                messages.push(assistant(answer, &[]));
                messages.push(user(family.paste));
                messages.push(assistant(family.paste_answer, &[]));
                Some(family.paste_answer)
            }
            _ => {
                messages.push(assistant(answer, &[]));
                messages.push(user(family.thanks));
                messages.push(assistant(family.thanks_answer, &[]));
                Some(family.thanks_answer)
            }
        };
        messages.push(user(family.next));
        messages.push(assistant("On it.", &[]));
        let instance = Instance::new(CLASS, index, messages).expect(&[subject], key);
        // An aside of the same reply may stand beside the answer; the answer to a later
        // message of the user may not.
        out.push(match wrong {
            Some(wrong) => instance.never_current(&[subject, &piece_of(wrong)], &["goal"]),
            None => instance,
        });
    }
    out
}

pub(super) fn replies_shown_with_their_requests() -> Vec<Instance> {
    let families = [
        Family {
            asked: [
                (
                    "Should the retry loop live in the worker or in the API handler?",
                    "Keep the retry loop in the worker, so the API handler stays fast.",
                    "retry loop",
                    "keep the retry loop in the worker",
                ),
                (
                    "Which session store do we use for the admin pages?",
                    "The admin pages use the Redis session store, like the public site.",
                    "session store",
                    "redis session store",
                ),
                (
                    "Is the image resizing done on upload or on request?",
                    "Image resizing happens on upload, in the thumbnail worker.",
                    "resizing",
                    "resizing happens on upload",
                ),
            ],
            aside: "I ran `npm run lint` as well: 0 errors and 3 warnings in 212 files.",
            paste: "TypeError: Cannot read properties of undefined (reading 'map')\n    at renderList (src/list.tsx:41:18)\n    at App (src/App.tsx:12:5)",
            paste_answer: "That comes from `renderList` when `items` is undefined; I added a default of `[]` in src/list.tsx:41.",
            thanks: "Thanks, that works.",
            thanks_answer: "Glad it works; the cache in `dist/` was also 14 MB, so I cleared it.",
            next: "Now update the changelog.",
        },
        Family {
            asked: [
                (
                    "¿El filtro de duplicados va antes o después de la normalización?",
                    "El filtro de duplicados va después de la normalización, para comparar textos limpios.",
                    "duplicados",
                    "duplicados va después de la normalización",
                ),
                (
                    "¿Qué separador usa el archivo de salida?",
                    "El archivo de salida usa punto y coma como separador, porque los textos llevan comas.",
                    "separador",
                    "punto y coma",
                ),
                (
                    "¿Dónde se guardan los modelos entrenados?",
                    "Los modelos entrenados se guardan en la carpeta de artefactos del proyecto.",
                    "modelos",
                    "carpeta de artefactos",
                ),
            ],
            aside: "También ejecuté `pytest -q`: 37 pruebas pasaron en 4.2 s.",
            paste: "Traceback (most recent call last):\n  File \"limpieza.py\", line 88, in <module>\n    df = pd.read_csv(ruta, sep=';')\nUnicodeDecodeError: 'utf-8' codec can't decode byte 0xf3 in position 1042",
            paste_answer: "El archivo viene en `latin-1`; cambié la lectura a `encoding='latin-1'` en limpieza.py:88.",
            thanks: "Gracias, ya funciona.",
            thanks_answer: "¡Perfecto! De paso borré `__pycache__/`, que ocupaba 3 MB.",
            next: "Ahora actualiza el README.",
        },
        Family {
            asked: [
                (
                    "Do we index the orders table by customer or by created date?",
                    "Index the orders table by customer first, since every report filters on the customer.",
                    "orders table",
                    "by customer first",
                ),
                (
                    "How are deleted accounts handled in the export?",
                    "Deleted accounts are left out of the export, as the privacy policy asks.",
                    "deleted accounts",
                    "left out of the export",
                ),
                (
                    "Which isolation level does the billing job run with?",
                    "The billing job runs with serializable isolation, so two runs never charge twice.",
                    "billing job",
                    "serializable isolation",
                ),
            ],
            aside: "The migration `0042_add_index.sql` took 3.4 s on the staging copy of 1.2 GB.",
            paste: "ERROR:  duplicate key value violates unique constraint \"orders_pkey\"\nDETAIL:  Key (id)=(1187) already exists.\nCONTEXT:  COPY orders, line 1188",
            paste_answer: "The dump restarts the sequence at 1; I reset it with `SELECT setval('orders_id_seq', 5000)`.",
            thanks: "Great, thanks!",
            thanks_answer: "You're welcome; the restore of 48,000 rows now takes 9 s.",
            next: "Now write the release notes.",
        },
        Family {
            asked: [
                (
                    "缓存的过期时间应该放在配置文件里还是写死在代码里？",
                    "缓存的过期时间放在配置文件里，这样运维可以直接调整。",
                    "过期时间",
                    "放在配置文件里",
                ),
                (
                    "登录失败的提示要不要区分用户名错误和密码错误？",
                    "登录失败的提示不区分用户名和密码，避免泄露账号是否存在。",
                    "登录失败",
                    "不区分用户名和密码",
                ),
                (
                    "日志是按天切分还是按大小切分？",
                    "日志按天切分，保留最近两周的文件。",
                    "日志",
                    "按天切分",
                ),
            ],
            aside: "另外我运行了 `go test ./...`，共 56 个测试全部通过。",
            paste: "panic: runtime error: invalid memory address or nil pointer dereference\n[signal SIGSEGV: segmentation violation code=0x1 addr=0x18 pc=0x4a2f1c]\ngoroutine 1 [running]:\nmain.loadConfig(0x0)\n\t/app/main.go:27 +0x3c",
            paste_answer: "配置对象在 `main.go:27` 还没初始化就被使用了，我加了 `nil` 检查。",
            thanks: "好的，谢谢！",
            thanks_answer: "不客气！顺便清理了 `tmp/` 目录，释放了 120 MB。",
            next: "现在更新一下 README。",
        },
        Family {
            asked: [
                (
                    "La validation des formulaires se fait côté client ou côté serveur ?",
                    "La validation des formulaires se fait des deux côtés, mais le serveur a le dernier mot.",
                    "validation",
                    "des deux côtés",
                ),
                (
                    "Quel format de date affiche le tableau de bord ?",
                    "Le tableau de bord affiche les dates au format jour, mois, année, comme le reste du site.",
                    "tableau de bord",
                    "jour, mois, année",
                ),
                (
                    "Les pièces jointes sont stockées où ?",
                    "Les pièces jointes sont stockées dans le bucket privé, jamais sur le disque du serveur.",
                    "pièces jointes",
                    "bucket privé",
                ),
            ],
            aside: "J'ai aussi lancé `npm test` : 64 tests passent en 8 s.",
            paste: "Uncaught ReferenceError: moment is not defined\n    at formatDate (dashboard.js:112:9)\n    at render (dashboard.js:40:3)",
            paste_answer: "La page n'importe plus `moment` ; j'ai remplacé l'appel par `Intl.DateTimeFormat` dans dashboard.js:112.",
            thanks: "Merci, c'est bon.",
            thanks_answer: "Parfait ! J'ai aussi vidé le dossier `.cache/`, qui faisait 230 Mo.",
            next: "Maintenant mets à jour la documentation.",
        },
        Family {
            asked: [
                (
                    "通知メールは即時送信にしますか、それともまとめて送りますか？",
                    "通知メールは一時間ごとにまとめて送ります。ユーザーが大量のメールを受け取らないようにするためです。",
                    "通知メール",
                    "まとめて送ります",
                ),
                (
                    "画像のアップロード上限はどこで設定しますか？",
                    "画像のアップロード上限は環境変数で設定します。",
                    "アップロード上限",
                    "環境変数で設定します",
                ),
                (
                    "テストデータは本番データのコピーを使いますか？",
                    "テストデータは本番データを使わず、生成したダミーデータを使います。",
                    "テストデータ",
                    "ダミーデータを使います",
                ),
            ],
            aside: "ついでに `npm run build` を実行し、ビルドは 12 秒で終わりました。",
            paste: "Error: connect ECONNREFUSED 127.0.0.1:5432\n    at TCPConnectWrap.afterConnect [as oncomplete] (node:net:1555:16)",
            paste_answer: "PostgreSQL が起動していませんでした。`docker compose up -d db` で起動しました。",
            thanks: "ありがとう、動きました。",
            thanks_answer: "よかったです。ついでに `logs/` の古いファイルを 40 個削除しました。",
            next: "次に README を更新してください。",
        },
        Family {
            asked: [
                (
                    "Soll die Sitzungsdauer im Admin-Bereich kürzer sein als auf der Webseite?",
                    "Ja, die Sitzungsdauer im Admin-Bereich ist kürzer, weil dort Konten verwaltet werden.",
                    "sitzungsdauer",
                    "admin-bereich ist kürzer",
                ),
                (
                    "Wo werden die Übersetzungen gepflegt?",
                    "Die Übersetzungen werden in einer Datei pro Sprache im Ordner für Ressourcen gepflegt.",
                    "übersetzungen",
                    "datei pro sprache",
                ),
                (
                    "Wie werden gelöschte Benutzer in der Statistik gezählt?",
                    "Gelöschte Benutzer zählen in der Statistik nicht mehr mit, auch nicht rückwirkend.",
                    "gelöschte benutzer",
                    "zählen in der statistik nicht mehr mit",
                ),
            ],
            aside: "Außerdem lief `mvn verify` durch: 118 Tests in 41 s.",
            paste: "Exception in thread \"main\" java.lang.NullPointerException: Cannot invoke \"String.length()\" because \"name\" is null\n\tat de.shop.Users.format(Users.java:57)\n\tat de.shop.Main.main(Main.java:12)",
            paste_answer: "Der Name kommt aus dem Import leer an; `Users.format` prüft ihn jetzt in Zeile 57.",
            thanks: "Danke, passt.",
            thanks_answer: "Gern! Nebenbei habe ich `target/` aufgeräumt, das waren 310 MB.",
            next: "Jetzt bitte das Changelog aktualisieren.",
        },
        Family {
            asked: [
                (
                    "Should the staging cluster share the production VPC?",
                    "No, the staging cluster gets its own VPC, peered only for the shared registry.",
                    "staging cluster",
                    "its own vpc",
                ),
                (
                    "How do the nightly backups get to the archive bucket?",
                    "The nightly backups are copied by the backup job with a restricted role, not by the hosts.",
                    "nightly backups",
                    "copied by the backup job",
                ),
                (
                    "Which team gets paged for disk alerts?",
                    "Disk alerts page the platform team, and the service owner is only notified.",
                    "disk alerts",
                    "page the platform team",
                ),
            ],
            aside: "`terraform plan` reports 7 to add, 2 to change and 0 to destroy.",
            paste: "Error: creating EC2 Instance: UnauthorizedOperation: You are not authorized to perform this operation.\n  with aws_instance.bastion,\n  on main.tf line 31, in resource \"aws_instance\" \"bastion\":",
            paste_answer: "The deploy role lacks `ec2:RunInstances`; I added it to iam.tf line 14.",
            thanks: "Perfect, thanks.",
            thanks_answer: "Anytime; the state file is now 2.1 MB after the cleanup of 12 old resources.",
            next: "Now tag the release.",
        },
        Family {
            asked: [
                (
                    "결제 실패 시 재시도는 몇 번까지 하나요?",
                    "결제 실패 시 재시도는 세 번까지 하고, 그 후에는 사용자에게 알립니다.",
                    "재시도",
                    "세 번까지",
                ),
                (
                    "회원 탈퇴하면 주문 기록은 어떻게 되나요?",
                    "회원 탈퇴 후에도 주문 기록은 세금 신고 때문에 보관합니다.",
                    "주문 기록",
                    "세금 신고 때문에 보관합니다",
                ),
                (
                    "관리자 화면은 어떤 권한이 있어야 들어갈 수 있나요?",
                    "관리자 화면은 운영자 권한이 있는 계정만 들어갈 수 있습니다.",
                    "관리자 화면",
                    "운영자 권한",
                ),
            ],
            aside: "참고로 `./gradlew test` 를 실행했고 테스트 83개가 모두 통과했습니다.",
            paste: "java.lang.IllegalStateException: Failed to load ApplicationContext\nCaused by: org.springframework.beans.factory.BeanCreationException: Error creating bean with name 'paymentService'",
            paste_answer: "`paymentService` 가 `PG_BASE_URL` 환경 변수를 찾지 못했습니다. `.env.example` 에 추가했습니다.",
            thanks: "감사합니다, 잘 되네요.",
            thanks_answer: "다행입니다! 겸사겸사 `build/` 폴더도 정리해서 95 MB를 비웠습니다.",
            next: "이제 README를 업데이트해 주세요.",
        },
    ];
    families.into_iter().enumerate().flat_map(|(index, family)| instances(index, family)).collect()
}
