//! The Goal section: the user's focus, the main goal, earlier requests (short) and the
//! latest request verbatim, merged with the goals an earlier summary carried.
//!
//! Invariant: the latest request appears once, word for word; a request a later one
//! replaced becomes an "Earlier request" (shortened), never a second latest one.

use super::super::OfflineKind;
use super::super::extract::is_correction;
use super::super::sections::*;
use super::super::text::*;
use super::Assembly;
use super::notes::current_sentences;

impl Assembly<'_> {
    /// Pushes the Goal bullets.
    pub(super) fn goal(&mut self, instructions: Option<&str>) {
        let digest = self.digest;
        if let Some(focus) = instructions.map(one_line).filter(|focus| !focus.is_empty()) {
            self.sections.push(
                Section::Goal,
                format!("Focus requested: {}", clip(&focus, 300)),
                PRIORITY_FOCUS,
            );
        }
        let mut have_main_goal = false;
        let mut earlier: Vec<(String, u32)> = Vec::new();
        if let Some(text) = self.previous.and_then(|previous| previous.unstructured.as_ref()) {
            self.sections.push(Section::Goal, format!("Earlier: {text}"), PRIORITY_ESSENTIAL);
            have_main_goal = true;
        }
        let carried_goals = self.carried_items(Section::Goal);
        // The reply the previous summary's turn ended on: the answer to its last request,
        // which that summary showed as an earlier one without it (the messages after it
        // made a newer request).
        let ended_on = self.carried_items(Section::Done).iter().find_map(|item| {
            let reply = item.strip_prefix(FINISHED_STEP)?;
            Some(reply.split_once(REPORTED_LIST).map_or(reply, |(reply, _)| reply).to_owned())
        });
        let mut carried_latest: Option<String> = None;
        for (at, goal) in carried_goals.iter().enumerate() {
            let (label, text) = goal_label(goal);
            let current;
            let text = match text.split_once(REPLY) {
                Some((request, reply)) => {
                    current = match current_sentences(reply, |s| digest.superseded_reply(s, None)) {
                        Some(reply) => format!("{request}{REPLY}{reply}"),
                        None => request.to_owned(),
                    };
                    current.as_str()
                }
                None => match &ended_on {
                    Some(reply) if label == GoalLabel::Earlier && at + 1 == carried_goals.len() => {
                        current = format!("{text}{REPLY}{reply}");
                        current.as_str()
                    }
                    _ => text,
                },
            };
            match label {
                GoalLabel::Main if !have_main_goal => {
                    self.sections.push(Section::Goal, text.to_owned(), PRIORITY_MAIN_GOAL);
                    have_main_goal = true;
                }
                GoalLabel::Latest => {
                    // A split turn's request follows the history's latest one.
                    if let Some(older) = carried_latest.replace(text.to_owned()) {
                        earlier.push((clip(&older, 200), PRIORITY_FOLLOW_UP));
                    }
                }
                GoalLabel::Main | GoalLabel::Earlier => {
                    earlier.push((text.to_owned(), PRIORITY_FOLLOW_UP))
                }
                GoalLabel::Focus => {}
            }
        }
        for summary in &digest.earlier_summaries {
            self.sections.push(Section::Goal, format!("Earlier: {summary}"), PRIORITY_ESSENTIAL);
        }
        let fresh_latest = digest.latest_request.clone();
        // The answer these messages open with belongs to the carried latest request (a cut
        // fell between the two); else the reply the previous summary's turn ended on does
        // (the cut fell after it). It goes with the request once a newer one replaces it.
        let answered = |request: String| {
            let reply =
                digest.carried_replies.as_ref().map(|(_, reply)| reply).or(ended_on.as_ref());
            match reply {
                Some(reply) if !request.contains(REPLY) => {
                    format!("{request}{REPLY}{reply}")
                }
                Some(_) | None => request,
            }
        };
        if !have_main_goal
            && fresh_latest.is_some()
            && let Some(old) = carried_latest.take()
        {
            // The request of an earlier split turn was the first one recorded: the goal.
            self.sections.push(Section::Goal, answered(old), PRIORITY_MAIN_GOAL);
            have_main_goal = true;
        }
        match (&fresh_latest, carried_latest) {
            (Some(_), Some(old)) => earlier.push((answered(clip(&old, 200)), PRIORITY_FOLLOW_UP)),
            (None, Some(old)) => {
                // Still the latest of this part: no newer request in it.
                self.sections.push_verbatim(
                    Section::Goal,
                    format!("{}{old}", self.latest_label()),
                    PRIORITY_CURRENT,
                );
            }
            (_, None) => {}
        }
        let request_count = digest.requests.len();
        let answered: Vec<String> = digest
            .requests
            .iter()
            .enumerate()
            .map(|(index, request)| {
                // What a later change of mind replaced is no longer the answer.
                let reply = request.reply.as_deref().and_then(|reply| {
                    current_sentences(reply, |s| digest.superseded_reply(s, Some(index)))
                });
                // An earlier turn that ended with no words saying what it did is answered by
                // the file it changed (its lines are on that file's Done item).
                let text = &request.text;
                match (reply, &request.edit) {
                    (Some(reply), _) => format!("{text}{REPLY}{reply}"),
                    (None, Some(edit)) => format!("{text} → {}", edit.named()),
                    (None, None) => text.clone(),
                }
            })
            .collect();
        for (index, request) in answered.iter().enumerate() {
            let last = index + 1 == request_count;
            if index == 0 && !have_main_goal && !(last && self.kind == OfflineKind::TurnPrefix) {
                let label = match self.kind {
                    OfflineKind::Branch => "Explored on this branch: ",
                    OfflineKind::History | OfflineKind::TurnPrefix => "",
                };
                if last {
                    // The only request is both the goal and the latest request.
                    break;
                }
                self.sections.push(Section::Goal, format!("{label}{request}"), PRIORITY_MAIN_GOAL);
                have_main_goal = true;
                continue;
            }
            if last {
                break;
            }
            earlier.push((request.clone(), PRIORITY_FOLLOW_UP));
        }
        // A correction redirected the request before it: the user's words are with the
        // constraints, the request it corrected stays the goal.
        if have_main_goal {
            earlier.retain(|(text, _)| !is_correction(text));
        }
        // One line per request: a copy carried without the request's outcome gives way to
        // one with it.
        let mut unique: Vec<(String, u32)> = Vec::new();
        for (text, priority) in earlier {
            match unique.iter_mut().find(|(known, _)| request_part(known) == request_part(&text)) {
                Some(known) if known.0.len() < text.len() => known.0 = text,
                Some(_) => {}
                None => unique.push((text, priority)),
            }
        }
        let earlier = unique;
        let count = earlier.len();
        for (index, (text, priority)) in earlier.into_iter().enumerate() {
            let priority = capped_priority(index, count, self.limits.requests, priority);
            self.sections.push(Section::Goal, format!("Earlier request: {text}"), priority);
        }
        if let Some(latest) = &fresh_latest {
            let label = match (self.kind, have_main_goal) {
                (OfflineKind::TurnPrefix, _) => "Request of this turn: ",
                (OfflineKind::Branch, false) => "Explored on this branch: ",
                (OfflineKind::History, false) => "",
                (OfflineKind::History | OfflineKind::Branch, true) => self.latest_label(),
            };
            let priority = if have_main_goal { PRIORITY_CURRENT } else { PRIORITY_MAIN_GOAL };
            // The turn of the part's last request, so far without words that say what it
            // did: what it changed, with the line it put in (the work a resuming agent takes
            // up).
            let edit = digest
                .requests
                .last()
                .filter(|request| request.reply.is_none())
                .and_then(|request| request.edit.as_ref())
                .map(|edit| format!(" → {}", edit.shown()))
                .unwrap_or_default();
            self.sections.push_verbatim(Section::Goal, format!("{label}{latest}{edit}"), priority);
        }
    }
}

impl Assembly<'_> {
    /// The label of the last request of these messages: the latest one, unless the
    /// messages after them make a newer request (then it is an earlier one).
    fn latest_label(&self) -> &'static str {
        if self.digest.request_after { "Earlier request: " } else { "Latest request: " }
    }
}

/// What joins a request to the assistant's reply on its line.
pub(in crate::offline) const REPLY: &str = " → reply: ";

/// A request line without the outcome after it ([`REPLY`] and the reply, or " → " and the
/// file its turn changed, a [`TurnEdit`](crate::offline::changes::TurnEdit)).
fn request_part(text: &str) -> &str {
    let outcome = |after: &str| {
        after.starts_with(REPLY.trim_start_matches(" → "))
            || super::super::changes::TurnEdit::VERBS
                .iter()
                .any(|verb| after.strip_prefix(verb).is_some_and(|rest| rest.starts_with(" `")))
    };
    text.match_indices(" → ")
        .map(|(at, arrow)| (at, &text[at + arrow.len()..]))
        .find(|(_, after)| outcome(after))
        .map_or(text, |(at, _)| &text[..at])
}

/// How a carried Goal bullet is labelled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum GoalLabel {
    Main,
    Earlier,
    Latest,
    Focus,
}

/// The label of a carried Goal bullet and its text without the label.
fn goal_label(goal: &str) -> (GoalLabel, &str) {
    const LABELS: [(&str, GoalLabel); 7] = [
        ("Latest request: ", GoalLabel::Latest),
        ("Request of this turn: ", GoalLabel::Latest),
        ("Earlier request: ", GoalLabel::Earlier),
        ("Follow-up: ", GoalLabel::Earlier),
        ("Explored on this branch: ", GoalLabel::Earlier),
        ("Focus requested: ", GoalLabel::Focus),
        ("Earlier: ", GoalLabel::Earlier),
    ];
    for (prefix, label) in LABELS {
        if let Some(text) = goal.strip_prefix(prefix) {
            return (label, text);
        }
    }
    (GoalLabel::Main, goal)
}
