//! Choices the user replaces in words: in English ("switch to", "replace X with Y",
//! "scrap that"), in other languages, and in terse answers.

use super::*;

/// The messages of a choice the assistant makes (`decided`), works on, and the user later
/// replaces with `change`; `ack` is the assistant's reply to the change.
pub(super) fn replaced_choice(
    seed: usize,
    request: &str,
    decided: &str,
    change: &str,
    ack: &str,
) -> Vec<AgentMessage> {
    let mut messages = vec![user(request), assistant(decided, &[])];
    messages.extend(edit("c1", "src/app.ts", "// setup", "// setup done"));
    messages.push(assistant("Done with the first version of the setup.", &[]));
    messages.extend(filler(2, seed));
    messages.push(user(change));
    messages.push(assistant(ack, &[]));
    messages.extend(edit("c2", "src/app.ts", "// setup done", "// setup replaced"));
    messages.extend(filler(1, seed + 1));
    messages
}

/// 3, 4, 5: the user replaces a choice in English: "switch to", "replace X with Y", "scrap
/// that, let's not".
pub(super) fn user_replaces() -> Vec<Instance> {
    let mut out = Vec::new();
    // 3: "switch to".
    for (subject, old, new) in [
        ("HTTP client", "axios", "ky"),
        ("state store", "Redux", "Zustand"),
        ("test runner", "Jest", "Vitest"),
    ] {
        let messages = replaced_choice(
            3,
            &format!("Set up the {subject} for the web app."),
            &format!("I'll use {old} for the {subject} since the team already knows it."),
            &format!("Let's switch the {subject} to {new}, it is lighter."),
            &format!("Switching the {subject} to {new}."),
        );
        out.push(
            Instance::new(CLASS, 3, messages)
                .expect(&[subject], new)
                .never_current(&[&format!("use {old} for the {subject}")], &CURRENT),
        );
    }
    // 4: "replace X with Y".
    for (subject, old, new) in [
        ("logger", "winston", "pino"),
        ("date library", "moment", "date-fns"),
        ("ORM", "Sequelize", "Prisma"),
    ] {
        let messages = replaced_choice(
            4,
            &format!("Add a {subject} to the API service."),
            &format!("Going with {old} for the {subject} because it has the most plugins."),
            &format!("Replace {old} with {new} in the {subject} setup please."),
            &format!("Replaced {old} with {new}."),
        );
        out.push(
            Instance::new(CLASS, 4, messages)
                .expect(&[subject, "Replace"], new)
                .never_current(&[&format!("going with {old} for the {subject}")], &CURRENT),
        );
    }
    // 5: "scrap that" / "let's not": a planned addition the user drops.
    for (plan, dropped, keep) in [
        (
            "I'll add a Redis cache in front of the catalog API, then add request metrics.",
            "Redis cache",
            "Scrap that, let's not add a Redis cache; the catalog is small. Just add the request metrics.",
        ),
        (
            "I'll add a retry queue for failed webhooks, then write the webhook docs.",
            "retry queue",
            "Let's not do the retry queue, the provider already retries. Only write the webhook docs.",
        ),
        (
            "I'll add a GraphQL gateway over the REST endpoints, then update the client SDK.",
            "GraphQL gateway",
            "Forget the GraphQL gateway, we stay on REST. Just update the client SDK.",
        ),
    ] {
        let mut messages = vec![
            user("Make the API faster and easier to use."),
            assistant(plan, &[]),
            user(keep),
            assistant("Understood, doing only that.", &[]),
        ];
        messages.extend(edit("s1", "src/api.ts", "// api", "// api v2"));
        messages.extend(filler(2, 5));
        let first: String = plan.split(',').next().unwrap_or(plan).to_owned();
        out.push(
            Instance::new(CLASS, 5, messages)
                .never_current(&[dropped], &[NEXT_STEPS, IN_PROGRESS])
                .never_current(&[&first], &[KEY_DECISIONS]),
        );
    }
    out
}

/// A subject, its old and new choice, and the user's words that replace the old one.
type Choice = (&'static str, &'static str, &'static str, &'static str);

/// 6, 7, 8, 9, 10: the user replaces a choice in French, German, Chinese, Korean and
/// Spanish.
pub(super) fn other_languages() -> Vec<Instance> {
    let mut out = Vec::new();
    let families: [(usize, [Choice; 3]); 5] = [
        (
            6,
            [
                (
                    "HTTP client",
                    "axios",
                    "fetch",
                    "Finalement, utilise fetch au lieu de axios pour le client HTTP.",
                ),
                (
                    "build tool",
                    "webpack",
                    "Vite",
                    "Non, on passe à Vite pour le build tool, plus de webpack.",
                ),
                (
                    "database",
                    "MySQL",
                    "PostgreSQL",
                    "Change d'avis : prends PostgreSQL plutôt que MySQL pour la database.",
                ),
            ],
        ),
        (
            7,
            [
                (
                    "package manager",
                    "npm",
                    "pnpm",
                    "Nimm doch lieber pnpm statt npm als package manager.",
                ),
                (
                    "CSS framework",
                    "Bootstrap",
                    "Tailwind",
                    "Bitte wechsle zum CSS framework Tailwind, kein Bootstrap mehr.",
                ),
                ("queue", "RabbitMQ", "NATS", "Ersetze RabbitMQ durch NATS für die queue."),
            ],
        ),
        (
            8,
            [
                (
                    "state store",
                    "MobX",
                    "Zustand",
                    "还是用 Zustand 做 state store 吧，不用 MobX 了。",
                ),
                (
                    "chart library",
                    "ECharts",
                    "Recharts",
                    "chart library 换成 Recharts，别用 ECharts 了。",
                ),
                ("logger", "log4js", "pino", "logger 改用 pino，log4js 不要了。"),
            ],
        ),
        (
            9,
            [
                ("ORM", "TypeORM", "Drizzle", "ORM은 TypeORM 말고 Drizzle로 바꿔 주세요."),
                (
                    "form library",
                    "Formik",
                    "React Hook Form",
                    "form library는 Formik 대신 React Hook Form으로 가죠.",
                ),
                (
                    "test runner",
                    "Mocha",
                    "Vitest",
                    "test runner를 Vitest로 교체해 주세요. Mocha는 이제 안 써요.",
                ),
            ],
        ),
        (
            10,
            [
                (
                    "router",
                    "React Router",
                    "TanStack Router",
                    "Mejor cambia el router a TanStack Router; ya no uses React Router.",
                ),
                ("linter", "ESLint", "Biome", "Usa Biome como linter en lugar de ESLint."),
                (
                    "cache",
                    "Memcached",
                    "Redis",
                    "Al final vamos con Redis para el cache, nada de Memcached.",
                ),
            ],
        ),
    ];
    for (family, cases) in families {
        for (subject, old, new, change) in cases {
            let messages = replaced_choice(
                family,
                &format!("Set up the {subject}."),
                &format!("I'll use {old} for the {subject} because it is the usual choice."),
                change,
                &format!("OK: the {subject} is now {new}."),
            );
            out.push(
                Instance::new(CLASS, family, messages)
                    .expect(&[subject], new)
                    .never_current(&[&format!("use {old} for the {subject}")], &CURRENT),
            );
        }
    }
    out
}

/// 11: a terse "no, Y" answer to a choice the assistant proposed as a question.
pub(super) fn terse_answers() -> Vec<Instance> {
    let mut out = Vec::new();
    for (subject, old, new) in [
        ("deploy target", "Vercel", "Fly.io"),
        ("auth provider", "Auth0", "Clerk"),
        ("image host", "Cloudinary", "S3"),
    ] {
        let mut messages = vec![
            user(&format!("Wire up the {subject}.")),
            assistant(
                &format!("I'll use {old} for the {subject}. Shall I go ahead with {old}?"),
                &[],
            ),
            user(&format!("no, {new}")),
            assistant(&format!("Got it, {new} then."), &[]),
        ];
        messages.extend(edit(
            "t1",
            "deploy/config.yml",
            "provider: none",
            &format!("provider: {new}"),
        ));
        messages.extend(filler(2, 11));
        out.push(
            Instance::new(CLASS, 11, messages)
                .expect(&[subject, "answered", "provider"], new)
                .never_current(&[&format!("use {old} for the {subject}")], &CURRENT),
        );
    }
    out
}
