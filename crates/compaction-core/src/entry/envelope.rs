//! What a line must hold to be an entry ([`EntryError`] when it does not), and the part of
//! it parsed eagerly: the envelope fields and a message's role; the rest is skipped.

use std::borrow::Cow;

use serde::Deserialize;
use serde_json::Value;

/// Why a line is not a usable entry.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum EntryError {
    /// The line is not valid JSON (or not an object).
    #[error("invalid JSON: {0}")]
    Json(String),
    /// The JSON nests deeper than the parser allows.
    #[error("JSON nesting is too deep")]
    TooDeep,
    /// A required field is absent.
    #[error("missing field `{0}`")]
    Missing(&'static str),
    /// A field has the wrong type or value.
    #[error("{0}")]
    Invalid(String),
}

impl EntryError {
    pub(super) fn from_json(error: serde_json::Error) -> Self {
        // Each line is parsed on its own, so serde_json's "line 1" says nothing useful.
        let text = error.to_string().replace(" at line 1 column ", " at column ");
        if text.contains("recursion limit exceeded") {
            EntryError::TooDeep
        } else if error.is_data() {
            EntryError::Invalid(text)
        } else {
            EntryError::Json(text)
        }
    }
}

/// The eagerly parsed part of an entry line. Unknown fields and message bodies are skipped.
#[derive(Deserialize)]
pub(super) struct Envelope<'a> {
    #[serde(rename = "type", borrow, default)]
    pub(super) entry_type: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    pub(super) id: Option<Cow<'a, str>>,
    #[serde(rename = "parentId", borrow, default)]
    pub(super) parent_id: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    pub(super) timestamp: Option<TextOrOther<'a>>,
    #[serde(borrow, default)]
    pub(super) message: Option<MessageHead<'a>>,
    #[serde(rename = "thinkingLevel", borrow, default)]
    pub(super) thinking_level: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    pub(super) provider: Option<Cow<'a, str>>,
    #[serde(rename = "modelId", borrow, default)]
    pub(super) model_id: Option<Cow<'a, str>>,
    #[serde(default)]
    pub(super) summary: Option<String>,
    #[serde(rename = "firstKeptEntryId", borrow, default)]
    pub(super) first_kept_entry_id: Option<Cow<'a, str>>,
    #[serde(rename = "tokensBefore", default)]
    pub(super) tokens_before: Option<f64>,
    #[serde(default)]
    pub(super) details: Option<Value>,
    #[serde(rename = "fromHook", default)]
    pub(super) from_hook: Option<bool>,
    #[serde(rename = "fromId", borrow, default)]
    pub(super) from_id: Option<Cow<'a, str>>,
    #[serde(rename = "customType", borrow, default)]
    pub(super) custom_type: Option<Cow<'a, str>>,
    #[serde(default)]
    pub(super) display: Option<bool>,
    #[serde(rename = "targetId", borrow, default)]
    pub(super) target_id: Option<Cow<'a, str>>,
    #[serde(default)]
    pub(super) label: Option<String>,
    #[serde(default)]
    pub(super) name: Option<String>,
    /// A `context_edit`'s replacement: `Some(true)` when it is `null` (the target is omitted).
    #[serde(default, deserialize_with = "present_null_flag")]
    pub(super) replacement: Option<bool>,
    /// A compaction's system checkpoint (pi 1.6); only whether it is there is read eagerly.
    #[serde(rename = "systemMessage", default, deserialize_with = "present_null_flag")]
    pub(super) system_message: Option<bool>,
    /// A `usage` entry's kind (`cache_warm`, …).
    #[serde(borrow, default)]
    pub(super) kind: Option<TextOrOther<'a>>,
}

/// For a field that is present: whether its value is JSON `null` (the value is skipped).
fn present_null_flag<'de, D: serde::Deserializer<'de>>(
    deserializer: D,
) -> Result<Option<bool>, D::Error> {
    struct Visit;
    impl<'de> serde::de::Visitor<'de> for Visit {
        type Value = bool;

        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("any JSON value")
        }
        fn visit_unit<E>(self) -> Result<bool, E> {
            Ok(true)
        }
        fn visit_none<E>(self) -> Result<bool, E> {
            Ok(true)
        }
        fn visit_bool<E>(self, _: bool) -> Result<bool, E> {
            Ok(false)
        }
        fn visit_i64<E>(self, _: i64) -> Result<bool, E> {
            Ok(false)
        }
        fn visit_u64<E>(self, _: u64) -> Result<bool, E> {
            Ok(false)
        }
        fn visit_f64<E>(self, _: f64) -> Result<bool, E> {
            Ok(false)
        }
        fn visit_str<E>(self, _: &str) -> Result<bool, E> {
            Ok(false)
        }
        fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<bool, A::Error> {
            while seq.next_element::<serde::de::IgnoredAny>()?.is_some() {}
            Ok(false)
        }
        fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<bool, A::Error> {
            while map.next_entry::<serde::de::IgnoredAny, serde::de::IgnoredAny>()?.is_some() {}
            Ok(false)
        }
    }
    deserializer.deserialize_any(Visit).map(Some)
}

/// A field kept when it is a string and ignored (without building a [`Value`]) otherwise.
pub(super) struct TextOrOther<'a>(pub(super) Option<Cow<'a, str>>);

impl<'de: 'a, 'a> Deserialize<'de> for TextOrOther<'a> {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visit;
        impl<'de> serde::de::Visitor<'de> for Visit {
            type Value = TextOrOther<'de>;

            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_borrowed_str<E>(self, text: &'de str) -> Result<Self::Value, E> {
                Ok(TextOrOther(Some(Cow::Borrowed(text))))
            }
            fn visit_str<E>(self, text: &str) -> Result<Self::Value, E> {
                Ok(TextOrOther(Some(Cow::Owned(text.to_owned()))))
            }
            fn visit_bool<E>(self, _: bool) -> Result<Self::Value, E> {
                Ok(TextOrOther(None))
            }
            fn visit_i64<E>(self, _: i64) -> Result<Self::Value, E> {
                Ok(TextOrOther(None))
            }
            fn visit_u64<E>(self, _: u64) -> Result<Self::Value, E> {
                Ok(TextOrOther(None))
            }
            fn visit_f64<E>(self, _: f64) -> Result<Self::Value, E> {
                Ok(TextOrOther(None))
            }
            fn visit_unit<E>(self) -> Result<Self::Value, E> {
                Ok(TextOrOther(None))
            }
            fn visit_none<E>(self) -> Result<Self::Value, E> {
                Ok(TextOrOther(None))
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> Result<Self::Value, A::Error> {
                while seq.next_element::<serde::de::IgnoredAny>()?.is_some() {}
                Ok(TextOrOther(None))
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut map: A,
            ) -> Result<Self::Value, A::Error> {
                while map.next_entry::<serde::de::IgnoredAny, serde::de::IgnoredAny>()?.is_some() {}
                Ok(TextOrOther(None))
            }
        }
        deserializer.deserialize_any(Visit)
    }
}

#[derive(Deserialize)]
pub(super) struct MessageHead<'a> {
    #[serde(borrow)]
    pub(super) role: Cow<'a, str>,
}
