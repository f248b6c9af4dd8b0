//! Control families: real refusals, which must stay recorded as rejected.

use super::{Case, Family, Kind};

/// 6: control, a real refusal, English.
pub(super) const ENGLISH: Family = Family {
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
};

/// 8: control, a real refusal, French (test).
pub(super) const FRENCH: Family = Family {
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
};

/// 12: control, a real refusal, German.
pub(super) const GERMAN: Family = Family {
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
};

/// 13: control, a real refusal, Chinese.
pub(super) const CHINESE: Family = Family {
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
};

/// 14: control, a real refusal, Korean (test).
pub(super) const KOREAN: Family = Family {
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
};

/// 15: control, a real refusal, Japanese.
pub(super) const JAPANESE: Family = Family {
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
};

/// 16: control, a real refusal, Portuguese.
pub(super) const PORTUGUESE: Family = Family {
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
};

/// 17: control, a real refusal, Italian (test).
pub(super) const ITALIAN: Family = Family {
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
};
