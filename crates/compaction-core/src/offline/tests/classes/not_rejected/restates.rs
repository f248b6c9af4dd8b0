//! Families where the user restates the question they asked.

use super::{Case, Family, Kind};

/// 1: the user restates a question, English.
pub(super) const ENGLISH: Family = Family {
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
};

/// 3: the user restates a question, Spanish.
pub(super) const SPANISH: Family = Family {
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
};

/// 5: the user restates a question, English, "talking about" (test).
pub(super) const ENGLISH_TALKING_ABOUT: Family = Family {
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
};

/// 9: the user restates a question, Chinese.
pub(super) const CHINESE: Family = Family {
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
};
