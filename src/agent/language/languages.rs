//! The languages the agent understands ([`Language`]), and the language a
//! turn is answered in with where it came from ([`TurnLanguage`],
//! [`LanguageSource`]): plain types that the lexicon, the vocabularies, the
//! catalog and the turn itself use, in a leaf below the detection in
//! `mod.rs`, which uses the lexicon.

use serde::{Deserialize, Serialize};

/// A language the agent understands.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum Language {
    #[default]
    En,
    De,
    Fr,
    Es,
}

impl Language {
    /// Every language, in the order of the lexicon's per-language arrays.
    pub const ALL: [Language; 4] = [Language::En, Language::De, Language::Fr, Language::Es];

    /// The ISO 639-1 code, as in a language tag and the vocabulary's file name.
    pub fn code(self) -> &'static str {
        match self {
            Language::En => "en",
            Language::De => "de",
            Language::Fr => "fr",
            Language::Es => "es",
        }
    }

    /// The place of the language in [`Language::ALL`].
    pub fn index(self) -> usize {
        self as usize
    }

    /// The language's bit in a mask of languages.
    pub fn bit(self) -> u8 {
        1 << self.index()
    }

    /// The language a tag names ("de", "de-DE", "de_CH", "DE"), if the
    /// agent speaks it.
    pub fn from_tag(tag: &str) -> Option<Language> {
        let primary = tag.trim().split(['-', '_']).next()?;
        Language::ALL
            .into_iter()
            .find(|language| language.code().eq_ignore_ascii_case(primary))
    }

    /// The spoken language an `Accept-Language` header prefers most (the
    /// highest `q`, the first of equals; `q=0` refuses a language).
    pub fn from_accept_language(header: &str) -> Option<Language> {
        let mut best: Option<(f32, Language)> = None;
        // A header names a few languages; the rest is not read.
        for range in header.split(',').take(32) {
            let mut pieces = range.split(';');
            let Some(language) = pieces.next().and_then(Language::from_tag) else {
                continue;
            };
            let quality = pieces
                .find_map(|piece| piece.trim().strip_prefix("q="))
                .map_or(Some(1.0), |q| q.trim().parse::<f32>().ok())
                .filter(|q| q.is_finite() && *q > 0.0);
            if let Some(quality) = quality
                && best.is_none_or(|(top, _)| quality > top)
            {
                best = Some((quality, language));
            }
        }
        best.map(|(_, language)| language)
    }
}

impl std::fmt::Display for Language {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.code())
    }
}

/// Where the language of a turn came from; on the wire (the `routing`
/// metadata) in kebab case.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum LanguageSource {
    /// `locale` or `language` in the message's metadata.
    MessageMetadata,
    /// `locale` or `language` in the request's metadata.
    RequestMetadata,
    /// The HTTP `Accept-Language` header.
    AcceptLanguage,
    /// Detected from the message's text.
    Detected,
    /// The text said too little; the conversation's language goes on.
    Conversation,
    /// Nothing said which: English.
    #[default]
    Default,
}

/// The language a turn is answered in, and why.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TurnLanguage {
    pub language: Language,
    pub source: LanguageSource,
    /// The conversation's turn before this one was in the same language
    /// (so a user answered in English instead was told so already).
    pub continues_conversation: bool,
}
