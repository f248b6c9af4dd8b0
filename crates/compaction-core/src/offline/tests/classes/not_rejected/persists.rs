//! Families where the problem persists after a fix.

use super::{Case, Family, Kind};

/// 0: the problem persists, English.
pub(super) const ENGLISH: Family = Family {
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
};

/// 2: the problem persists, English, the same error again (test).
pub(super) const ENGLISH_SAME_ERROR: Family = Family {
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
};

/// 4: the problem persists, Spanish.
pub(super) const SPANISH: Family = Family {
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
};

/// 7: the problem persists, Chinese.
pub(super) const CHINESE: Family = Family {
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
};

/// 10: the problem persists, German.
pub(super) const GERMAN: Family = Family {
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
};

/// 11: the problem persists, French (test).
pub(super) const FRENCH: Family = Family {
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
};
