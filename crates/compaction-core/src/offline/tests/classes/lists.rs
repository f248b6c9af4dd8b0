//! The class "a list that reports, not a plan": a reply that ends the turn sums up the work
//! in a numbered list ("Summary of the changes: 1. **Fixed …** 2. Added …"). What it lists
//! is done; shown under Next Steps it tells a resuming agent to do the work again, and it
//! takes the room of what is next. A list the reply gives as the work still to do ("Next
//! steps: 1. … 2. …") is the plan and stays. Each family is one language and one way of
//! writing the report (bold labels, a heading, ticks, plain sentences), with two reports and
//! one list of next steps.

use super::super::*;
use super::Instance;
use super::families::{NEXT, edit, filler};

const CLASS: &str = "a list that reports, not a plan";

/// One family: the files the work edits, the report's lead-in, three reports of three items
/// each (`{}` is where the item's number goes: `1.` or `1)`), the lead-in of the list of
/// next steps and its items with the subject word each must keep.
struct Family {
    files: [&'static str; 2],
    requests: [&'static str; 3],
    report_lead: &'static str,
    reports: [[&'static str; 3]; 2],
    next_lead: &'static str,
    next: [(&'static str, &'static str); 2],
    marker: &'static str,
}

fn numbered(lead: &str, items: &[&str], marker: &str) -> String {
    let mut text = format!("{lead}\n\n");
    for (n, item) in items.iter().enumerate() {
        text.push_str(&format!("{}{marker} {item}\n", n + 1));
    }
    text
}

fn instances(index: usize, family: Family) -> Vec<Instance> {
    let mut out = Vec::new();
    for n in 0..3 {
        let mut messages = filler(2, index * 3 + n);
        messages.push(user(family.requests[n]));
        let id = format!("l{index}{n}");
        messages.extend(edit(&format!("{id}a"), family.files[0], "old()", "new()"));
        messages.extend(edit(&format!("{id}b"), family.files[1], "before", "after"));
        let instance = if n < 2 {
            let items = &family.reports[n];
            messages.push(assistant(&numbered(family.report_lead, items, family.marker), &[]));
            let mut instance = Instance::new(CLASS, index, messages);
            for item in items {
                // The item's words without its markup: no Next Steps bullet may hold them.
                let words: String = item.replace("**", "");
                let words = words.split(':').next().unwrap_or(&words).trim().to_owned();
                instance = instance.absent(&words, &[NEXT]);
            }
            instance
        } else {
            let items: Vec<&str> = family.next.iter().map(|(item, _)| *item).collect();
            let text = format!(
                "{}\n\n{}",
                family.reports[0][0].replace("**", ""),
                numbered(family.next_lead, &items, family.marker)
            );
            messages.push(assistant(&text, &[]));
            let mut instance = Instance::new(CLASS, index, messages);
            for (item, subject) in &family.next {
                instance = instance.expect(&[subject], item);
            }
            instance
        };
        out.push(instance);
    }
    out
}

pub(super) fn lists_that_report() -> Vec<Instance> {
    let families = [
        Family {
            files: ["src/auth/session.ts", "src/auth/refresh.ts"],
            requests: [
                "The token refresh loops forever on a 401, fix it.",
                "Make the session cookie secure and same-site strict.",
                "Log out the user when the refresh token is revoked.",
            ],
            report_lead: "Done. Summary of the changes:",
            reports: [
                [
                    "**Fixed the refresh loop**: `refresh()` retries once on a 401",
                    "**Added a retry counter**: kept in `SessionState`",
                    "**Updated the tests**: `refresh.test.ts` covers the revoked token",
                ],
                [
                    "**Secured the cookie**: `secure` and `httpOnly` are set",
                    "**Set SameSite**: the cookie is `SameSite=Strict` now",
                    "**Removed the legacy cookie**: `sid_old` is no longer written",
                ],
            ],
            next_lead: "Next steps:",
            next: [
                ("Add a logout endpoint that clears the refresh token", "logout endpoint"),
                ("Show a toast when the session expires", "toast"),
            ],
            marker: ".",
        },
        Family {
            files: ["app/models/invoice.rb", "app/services/billing.rb"],
            requests: [
                "Invoices should round totals to two decimals.",
                "Skip tax for customers outside the EU.",
                "Send the invoice by mail once it is paid.",
            ],
            report_lead: "## What I changed",
            reports: [
                [
                    "Rounded `Invoice#total` to two decimals with `round(2)`",
                    "Moved the rounding into `Billing.finalize`",
                    "Deleted the old `format_total` helper",
                ],
                [
                    "Checked the customer country against `EU_COUNTRIES`",
                    "Returned a zero tax line for customers outside the EU",
                    "Wrote a spec for a customer in Norway",
                ],
            ],
            next_lead: "What remains to be done:",
            next: [
                ("Queue the paid-invoice mail in `InvoiceMailer`", "InvoiceMailer"),
                ("Attach the PDF rendered by `InvoicePdf`", "InvoicePdf"),
            ],
            marker: ")",
        },
        Family {
            files: ["cmd/server/main.go", "internal/http/router.go"],
            requests: [
                "Add a /healthz endpoint to the server.",
                "Shut the server down gracefully on SIGTERM.",
                "Serve metrics on a separate port.",
            ],
            report_lead: "All set! Here's a recap:",
            reports: [
                [
                    "✅ /healthz returns 200 with the build version",
                    "✅ the router registers it before the auth middleware",
                    "✅ a table test checks the response body",
                ],
                [
                    "✅ SIGTERM cancels the root context",
                    "✅ `srv.Shutdown` waits up to 10 seconds for open requests",
                    "✅ the worker pool drains before exit",
                ],
            ],
            next_lead: "Still to do:",
            next: [
                ("Expose `/metrics` on port 9102 with promhttp", "promhttp"),
                ("Document the new port in the Helm chart values", "Helm chart"),
            ],
            marker: ".",
        },
        Family {
            files: ["src/utils/date.py", "tests/test_date.py"],
            requests: [
                "日期解析不支持 ISO 周格式，帮我修一下。",
                "把时区统一成 UTC。",
                "导出报表的时候加上周数。",
            ],
            report_lead: "已完成以下修改：",
            reports: [
                [
                    "添加了 `parse_iso_week()` 函数，支持 2024-W05 格式",
                    "修改了 `parse_date()` 的分支顺序",
                    "补充了三个测试用例",
                ],
                [
                    "**统一时区**：所有时间戳都转换成 UTC",
                    "**删除了本地时区配置**：不再读取 `TZ`",
                    "**更新了测试**：固定了测试中的时钟",
                ],
            ],
            next_lead: "接下来还需要：",
            next: [
                ("在 `export_report()` 里加一列周数", "export_report"),
                ("更新 README 里的日期格式说明", "README"),
            ],
            marker: ".",
        },
        Family {
            files: ["src/components/Form.tsx", "src/lib/validate.ts"],
            requests: [
                "フォームで空のメールアドレスが送信できてしまう。直して。",
                "エラーメッセージを日本語にしてください。",
                "送信ボタンを二重押しできないようにして。",
            ],
            report_lead: "以下の変更を行いました：",
            reports: [
                [
                    "`validate()` に空文字のチェックを追加しました",
                    "`Form.tsx` で送信前に検証するようにしました",
                    "テストを2件追加しました",
                ],
                [
                    "**メッセージの翻訳**：`messages.ja.ts` を作成しました",
                    "**言語の切り替え**：`useLocale()` で選ぶようにしました",
                    "**英語の文言**：`messages.en.ts` に移しました",
                ],
            ],
            next_lead: "次にやること：",
            next: [
                ("送信中は `disabled` にしてボタンを無効化する", "disabled"),
                ("`useSubmit()` フックに処理をまとめる", "useSubmit"),
            ],
            marker: ".",
        },
        Family {
            files: ["api/handlers/pedidos.js", "api/db/pedidos.sql"],
            requests: [
                "Los pedidos duplicados se guardan dos veces, arréglalo.",
                "Añade paginación a la lista de pedidos.",
                "Quiero poder cancelar un pedido pendiente.",
            ],
            report_lead: "Listo. Estos son los cambios realizados:",
            reports: [
                [
                    "Añadí un índice único sobre `pedido_ref`",
                    "Cambié el `INSERT` por `INSERT … ON CONFLICT DO NOTHING`",
                    "Eliminé la comprobación manual en `crearPedido()`",
                ],
                [
                    "**Paginación**: `listarPedidos()` acepta `limite` y `cursor`",
                    "**Orden estable**: se ordena por `creado_en` y `id`",
                    "**Pruebas**: se añadieron casos para la última página",
                ],
            ],
            next_lead: "Próximos pasos:",
            next: [
                ("Crear el endpoint `POST /pedidos/:id/cancelar`", "cancelar"),
                ("Devolver 409 si el pedido ya se envió", "409"),
            ],
            marker: ".",
        },
        Family {
            files: ["src/lecteur/csv.rs", "src/lecteur/mod.rs"],
            requests: [
                "Le lecteur CSV plante sur les lignes vides, corrige ça.",
                "Accepte le point-virgule comme séparateur.",
                "Je veux un rapport des lignes rejetées.",
            ],
            report_lead: "C'est fait. Voici ce que j'ai modifié :",
            reports: [
                [
                    "Ignoré les lignes vides dans `lire_lignes()`",
                    "Ajouté un test avec un fichier qui finit par deux sauts de ligne",
                    "Corrigé le message d'erreur de `LecteurErreur::Ligne`",
                ],
                [
                    "**Séparateur** : `detecter_separateur()` choisit entre `,` et `;`",
                    "**Option** : `--separateur` force le choix",
                    "**Tests** : deux fichiers d'exemple ajoutés dans `tests/donnees/`",
                ],
            ],
            next_lead: "Prochaines étapes :",
            next: [
                ("Écrire les lignes rejetées dans `rejets.csv`", "rejets.csv"),
                ("Afficher le nombre de rejets à la fin", "nombre de rejets"),
            ],
            marker: ".",
        },
        Family {
            files: ["src/main/java/de/shop/Lager.java", "src/main/resources/application.yml"],
            requests: [
                "Die Lagerabfrage ist zu langsam, bitte beschleunigen.",
                "Setz das Timeout der Datenbank auf 30 Sekunden.",
                "Der Bestand soll nie negativ werden.",
            ],
            report_lead: "Erledigt. Zusammenfassung der Änderungen:",
            reports: [
                [
                    "Einen Index auf `artikel_nr` angelegt",
                    "Die Abfrage in `Lager.bestand()` auf einen Join umgestellt",
                    "Das Caching der Preise entfernt",
                ],
                [
                    "**Timeout**: `spring.datasource.hikari.connection-timeout` steht auf 30000",
                    "**Wiederholung**: `Lager.reservieren()` versucht es zweimal",
                    "**Protokoll**: Zeitüberschreitungen werden als WARN geloggt",
                ],
            ],
            next_lead: "Nächste Schritte:",
            next: [
                ("Eine Prüfung `bestand >= 0` in `Lager.abbuchen()` einbauen", "abbuchen"),
                ("Einen Test für gleichzeitige Buchungen schreiben", "gleichzeitige"),
            ],
            marker: ".",
        },
        Family {
            files: ["lib/auth/login.dart", "lib/auth/token_store.dart"],
            requests: [
                "로그인이 가끔 실패해요. 재시도를 넣어 주세요.",
                "토큰을 안전한 저장소에 보관해 주세요.",
                "자동 로그인 옵션을 추가해 주세요.",
            ],
            report_lead: "다음과 같이 수정했습니다:",
            reports: [
                [
                    "`login()`에 최대 3번 재시도 로직 추가",
                    "네트워크 오류일 때만 재시도하도록 변경",
                    "재시도 간격을 500ms로 설정",
                ],
                [
                    "**저장소 변경**: `flutter_secure_storage`로 토큰 저장",
                    "**기존 데이터 이전**: `SharedPreferences`의 토큰을 옮긴 뒤 삭제",
                    "**테스트 추가**: `token_store_test.dart` 작성",
                ],
            ],
            next_lead: "남은 작업:",
            next: [
                ("설정 화면에 자동 로그인 스위치 추가", "자동 로그인"),
                ("`autoLogin` 값을 `TokenStore`에 저장", "autoLogin"),
            ],
            marker: ".",
        },
    ];
    let mut out = Vec::new();
    for (index, family) in families.into_iter().enumerate() {
        out.extend(instances(index, family));
    }
    out
}
