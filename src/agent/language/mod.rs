//! The languages the agent understands, and the language of a turn (the
//! types in `languages`, how it is decided here).
//!
//! Understanding does not depend on the language: the router reads every
//! word in all of them at once ([`lexicon`]). The language of a turn says
//! in which language the user is answered; it is decided once per turn, by
//! the first of: a `locale`/`language` in the message's metadata, in the
//! request's metadata, the `Accept-Language` header, the language detected
//! from the text, the conversation's language, English
//! (docs/routing.md#languages).

pub mod catalog;
mod compounds;
mod languages;
pub mod lexicon;
pub mod locale;
pub mod typos;
pub mod vocabulary;

pub use languages::{Language, LanguageSource, TurnLanguage};

/// What a turn says about its language, as the task engine finds it.
#[derive(Debug, Clone, Copy, Default)]
pub struct LanguageCues<'a> {
    /// `locale`/`language` of the message's metadata.
    pub message_hint: Option<&'a str>,
    /// `locale`/`language` of the request's metadata.
    pub request_hint: Option<&'a str>,
    /// The `Accept-Language` header.
    pub accept_language: Option<&'a str>,
    /// The new message's text.
    pub text: &'a str,
    /// The language the conversation's latest turn was answered in.
    pub conversation: Option<Language>,
}

/// A text of at least this many words is detected by the language model;
/// a shorter one ("4711", "approve", "Kreditsperre 4711") keeps the
/// conversation's language, or else goes by the vocabularies' words.
pub const SURE_WORDS: usize = 3;
/// Only the start of a text is read for its language (the cost of a
/// detection stays bounded whatever the text's size).
const DETECTION_BYTES: usize = 1024;
/// At most this many words of that start count.
const DETECTION_WORDS: usize = 64;

/// The language of a turn (module docs: the order of the cues).
pub fn decide(cues: &LanguageCues<'_>) -> TurnLanguage {
    let mut turn = decide_language(cues);
    turn.continues_conversation = cues.conversation == Some(turn.language);
    turn
}

fn decide_language(cues: &LanguageCues<'_>) -> TurnLanguage {
    let hinted = [
        (cues.message_hint, LanguageSource::MessageMetadata),
        (cues.request_hint, LanguageSource::RequestMetadata),
    ]
    .into_iter()
    .find_map(|(hint, source)| hint.and_then(Language::from_tag).map(|l| (l, source)))
    .or_else(|| {
        cues.accept_language
            .and_then(Language::from_accept_language)
            .map(|language| (language, LanguageSource::AcceptLanguage))
    });
    if let Some((language, source)) = hinted {
        return TurnLanguage {
            language,
            source,
            ..TurnLanguage::default()
        };
    }
    let read = Reading::of(cues.text);
    let sure = read.words >= SURE_WORDS;
    if !sure && let Some(language) = cues.conversation {
        // Too few words to switch a conversation's language.
        return TurnLanguage {
            language,
            source: LanguageSource::Conversation,
            ..TurnLanguage::default()
        };
    }
    let detected = match read.voted {
        // The model reads letters, the vocabularies words: a text whose
        // words are the conversation's language keeps it where the model
        // hears another ("18 de diciembre de 2026" sounds French to it).
        Some(voted) if sure && cues.conversation == Some(voted) => Some(voted),
        _ if sure => read.modelled.or(read.voted),
        _ => read.voted,
    };
    match (detected, cues.conversation) {
        (Some(language), _) => TurnLanguage {
            language,
            source: LanguageSource::Detected,
            ..TurnLanguage::default()
        },
        (None, Some(language)) => TurnLanguage {
            language,
            source: LanguageSource::Conversation,
            ..TurnLanguage::default()
        },
        (None, None) => TurnLanguage::default(),
    }
}

/// Whether `text` has words enough ([`SURE_WORDS`]) to switch a
/// conversation's language; a shorter one keeps it.
pub fn tells_its_language(text: &str) -> bool {
    Reading::words_of(text).len() >= SURE_WORDS
}

/// What the start of a text says about its language.
struct Reading {
    /// Words with letters (numbers do not count).
    words: usize,
    /// The language model's answer, for a text of [`SURE_WORDS`] or more.
    modelled: Option<Language>,
    /// The language whose vocabulary has more of the words than any other.
    voted: Option<Language>,
}

impl Reading {
    /// The words of the start of `text`, without numbers or overlong
    /// tokens: what the model reads and the vocabularies vote on.
    fn words_of(text: &str) -> Vec<String> {
        let mut end = text.len().min(DETECTION_BYTES);
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        crate::agent::text::tokens(&text[..end])
            .into_iter()
            .filter(|word| {
                word.len() <= crate::agent::text::LONGEST_WORD
                    && word.chars().any(char::is_alphabetic)
            })
            .take(DETECTION_WORDS)
            .collect()
    }

    fn of(text: &str) -> Reading {
        let words = Reading::words_of(text);
        let mut votes = [0usize; lexicon::LANGUAGE_COUNT];
        for word in &words {
            let known_in = lexicon::lexicon().analyse(word).known_in;
            for language in Language::ALL {
                if known_in & language.bit() != 0 {
                    votes[language.index()] += 1;
                }
            }
        }
        let most = votes.iter().copied().max().unwrap_or(0);
        let leaders: Vec<Language> = Language::ALL
            .into_iter()
            .filter(|language| most > 0 && votes[language.index()] == most)
            .collect();
        Reading {
            words: words.len(),
            modelled: (words.len() >= SURE_WORDS)
                .then(|| model(&words.join(" ")))
                .flatten(),
            voted: match leaders.as_slice() {
                [one] => Some(*one),
                _ => None,
            },
        }
    }
}

/// The language model's answer, if it is a language the agent speaks.
fn model(text: &str) -> Option<Language> {
    match whichlang::detect_language(text) {
        whichlang::Lang::Eng => Some(Language::En),
        whichlang::Lang::Deu => Some(Language::De),
        whichlang::Lang::Fra => Some(Language::Fr),
        whichlang::Lang::Spa => Some(Language::Es),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cues(text: &str) -> LanguageCues<'_> {
        LanguageCues {
            text,
            ..LanguageCues::default()
        }
    }

    /// The language of `text` alone, if it tells (no hint, no conversation).
    fn detect(text: &str) -> Option<Language> {
        let turn = decide(&cues(text));
        (turn.source == LanguageSource::Detected).then_some(turn.language)
    }

    #[test]
    fn tags_and_accept_language() {
        assert_eq!(Language::from_tag("de-DE"), Some(Language::De));
        assert_eq!(Language::from_tag(" FR_ca "), Some(Language::Fr));
        assert_eq!(Language::from_tag("es"), Some(Language::Es));
        assert_eq!(Language::from_tag("it-IT"), None);
        assert_eq!(Language::from_tag(""), None);
        let accept = Language::from_accept_language;
        assert_eq!(accept("de-DE,de;q=0.9,en;q=0.8"), Some(Language::De));
        assert_eq!(accept("it-IT, fr;q=0.5, en;q=0.7"), Some(Language::En));
        assert_eq!(accept("es;q=0, fr;q=0.1"), Some(Language::Fr));
        assert_eq!(accept("*"), None);
        assert_eq!(accept("de;q=abc"), None);
    }

    #[test]
    fn hints_win_in_their_order() {
        let text = "Warum ist der Auftrag wegen des Kreditlimits gesperrt?";
        let all = LanguageCues {
            message_hint: Some("fr-FR"),
            request_hint: Some("es"),
            accept_language: Some("en-US"),
            text,
            conversation: Some(Language::De),
        };
        let decided = |cues: LanguageCues<'_>| {
            let turn = decide(&cues);
            (turn.language, turn.source)
        };
        assert_eq!(
            decided(all),
            (Language::Fr, LanguageSource::MessageMetadata)
        );
        let request = LanguageCues {
            message_hint: None,
            ..all
        };
        assert_eq!(
            decided(request),
            (Language::Es, LanguageSource::RequestMetadata)
        );
        let header = LanguageCues {
            request_hint: Some("klingon"),
            ..request
        };
        assert_eq!(
            decided(header),
            (Language::En, LanguageSource::AcceptLanguage)
        );
        let text_only = LanguageCues {
            request_hint: None,
            accept_language: None,
            ..header
        };
        assert_eq!(decided(text_only), (Language::De, LanguageSource::Detected));
        assert_eq!(
            decided(LanguageCues {
                text: "4711",
                ..text_only
            }),
            (Language::De, LanguageSource::Conversation)
        );
        assert_eq!(
            decided(cues("4711")),
            (Language::En, LanguageSource::Default)
        );
    }

    #[test]
    fn sentences_are_detected() {
        for (text, language) in [
            (
                "Warum ist der Auftrag wegen des Kreditlimits gesperrt?",
                Language::De,
            ),
            (
                "Der Kunde reklamiert den Preis auf der Rechnung",
                Language::De,
            ),
            ("Beim Warenempfänger fehlt die Straße", Language::De),
            ("zeige alle gesperrten Aufträge", Language::De),
            ("Le client conteste le prix facturé", Language::Fr),
            ("Pourquoi la commande 4711 est-elle bloquée ?", Language::Fr),
            ("el cliente reclama el precio de la factura", Language::Es),
            ("¿Por qué está bloqueado el pedido 4711?", Language::Es),
            ("why is the order blockd by credt", Language::En),
            ("customer wants a later delivery date on 4740", Language::En),
        ] {
            assert_eq!(detect(text), Some(language), "{text}");
        }
    }

    #[test]
    fn short_texts_go_by_the_vocabularies_or_keep_the_conversation() {
        for (text, language) in [
            ("genehmigen", Some(Language::De)),
            ("Kreditsperre 4711", Some(Language::De)),
            ("Preisdifferenz bei 4725", Some(Language::De)),
            ("approve", Some(Language::En)),
            ("approuver", Some(Language::Fr)),
            ("rechazar", Some(Language::Es)),
            ("4711", None),
            ("ok", None),
        ] {
            assert_eq!(detect(text), language, "{text}");
        }
        // A follow-up keeps the conversation's language, in any words.
        for text in ["4711", "approve", "genehmigen", "ok"] {
            let turn = decide(&LanguageCues {
                conversation: Some(Language::De),
                ..cues(text)
            });
            assert_eq!(turn.language, Language::De, "{text}");
            assert_eq!(turn.source, LanguageSource::Conversation, "{text}");
        }
        // A sentence in another language switches it.
        let switched = decide(&LanguageCues {
            conversation: Some(Language::De),
            ..cues("why is order 4711 blocked by credit")
        });
        assert_eq!(switched.language, Language::En);
        assert_eq!(switched.source, LanguageSource::Detected);
    }

    #[test]
    fn a_date_in_the_conversations_language_keeps_it() {
        for (text, language) in [
            ("18 de diciembre de 2026", Language::Es),
            ("el 20 de diciembre de 2027", Language::Es),
            ("le 18 décembre 2026", Language::Fr),
            ("am 18. Dezember 2026", Language::De),
            ("on 18 December 2026", Language::En),
        ] {
            let turn = decide(&LanguageCues {
                conversation: Some(language),
                ..cues(text)
            });
            assert_eq!(turn.language, language, "{text}");
        }
        // Words of another language still switch it.
        let switched = decide(&LanguageCues {
            conversation: Some(Language::Es),
            ..cues("Pourquoi la commande 4711 est-elle bloquée ?")
        });
        assert_eq!(switched.language, Language::Fr);
    }

    #[test]
    fn a_turn_knows_whether_the_conversation_was_in_its_language() {
        let french = "Pourquoi la commande 4711 est-elle bloquée ?";
        assert!(!decide(&cues(french)).continues_conversation);
        let same = decide(&LanguageCues {
            conversation: Some(Language::Fr),
            ..cues(french)
        });
        assert!(same.continues_conversation);
        let switched = decide(&LanguageCues {
            conversation: Some(Language::En),
            ..cues(french)
        });
        assert_eq!(switched.language, Language::Fr);
        assert!(!switched.continues_conversation);
    }

    #[test]
    fn a_huge_text_is_read_only_at_its_start() {
        let text = "Warum ist der Auftrag gesperrt? ".to_string() + &"x".repeat(1 << 20);
        assert_eq!(detect(&text), Some(Language::De));
        let multibyte = "é".repeat(DETECTION_BYTES);
        let _ = detect(&multibyte);
    }
}
