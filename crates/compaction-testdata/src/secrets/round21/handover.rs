//! Round 21 families of credentials handed from one person to another: in tickets (Jira
//! comments, ServiceNow work notes, Zendesk and Freshdesk replies, GitHub issue comments) and
//! in chat exports and transcripts (Slack and Discord exports, WhatsApp text, Matrix events,
//! WebVTT and SRT captions).

use super::super::families::{Family, pick_line, text};
use super::{any_pw, chosen_pw, host, user};

pub(super) const FAMILIES: &[Family] = &[
    ("credentials-handed-over-in-tickets", |rng| {
        let secret = any_pw(rng);
        let (name, at) = (user(rng), host(rng));
        let line = pick_line(
            rng,
            vec![
                format!(
                    "[~mkovacs] access is set up, creds below:\n{{noformat}}\nhost: {at}\nlogin: {name}\ntemp pw: {secret}\n{{noformat}}\nPlease change it on first login."
                ),
                format!(
                    "2026-12-07 10:14:02 - Priya Nair (Work notes)\nReset completed for {name}. Temporary password is {secret} - user must change at next logon."
                ),
                format!(
                    "Hi Dana,\n\nThanks for your patience. We've reset the account {name} on {at}.\nYour new one-time password: {secret}\n\nKind regards,\nSupport Team\n\n##- Please type your reply above this line -##"
                ),
                format!(
                    "**@rlindqvist** commented on Dec 7, 2026\n> can someone share the staging login?\n\nsure - `{name}` / `{secret}` (staging only, rotate after the demo)"
                ),
                format!(
                    "Status changed: Open -> Resolved\nResolution note: Created service account {name} for the nightly export. Credentials: {name} / {secret}"
                ),
                format!(
                    "--- Private note by Ahmed K. ---\nvpn account unlocked. new passphrase {secret}, told the user by phone."
                ),
                format!(
                    "Reply from: helpdesk@example.org\nSubject: RE: [#48213] cannot log in to {at}\n\nWe've issued a new temporary password for you: {secret}\nIt expires in 24 hours."
                ),
                format!(
                    "Comment by tmorel (internal):\nthe {at} admin pass is {secret} until the rotation job runs tonight"
                ),
            ],
        );
        text(secret, line)
    }),
    ("handover-in-chat-exports-and-captions", |rng| {
        let secret = chosen_pw(rng);
        let (name, at) = (user(rng), host(rng));
        let line = pick_line(
            rng,
            vec![
                format!(
                    "{{\"type\": \"message\", \"user\": \"U02K7QF3L\", \"ts\": \"1733562842.118900\", \"text\": \"<@U01ABCD> here's the {at} login: {name} / {secret}\", \"thread_ts\": \"1733562801.004200\"}}"
                ),
                format!(
                    "AuthorID,Author,Date,Content,Attachments,Reactions\n\"318274112\",\"nadia#0412\",\"12/07/2026 10:42 AM\",\"pw for the staging db is {secret}\",\"\",\"\""
                ),
                format!("07/12/2026, 10:42 - Tom Berg: new wifi password {secret}"),
                format!(
                    "{{\"type\": \"m.room.message\", \"sender\": \"@olga:example.org\", \"content\": {{\"msgtype\": \"m.text\", \"body\": \"creds for {at}: {name} {secret}\"}}}}"
                ),
                format!(
                    "WEBVTT\n\n00:03:14.200 --> 00:03:18.900\n<v Sam Ortiz>OK so the admin password is {secret}\n\n00:03:19.000 --> 00:03:21.400\n<v Lee Park>got it, thanks"
                ),
                format!(
                    "41\n00:03:14,200 --> 00:03:18,900\nand the password for {name} is {secret}\n\n42\n00:03:19,000 --> 00:03:21,400\nthanks"
                ),
                format!(
                    "[10:42:17] <kmiller> anyone have the {at} creds?\n[10:42:55] <jdoe> {name} / {secret}"
                ),
                format!(
                    "From: Mia Chen <mia@example.org>\nSent: Monday, December 7, 2026 10:42 AM\nSubject: access\n\nLogin is {name}, password {secret}. Delete this mail after use."
                ),
            ],
        );
        text(secret, line)
    }),
];
