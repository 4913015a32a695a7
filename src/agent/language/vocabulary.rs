//! The vocabulary files, one per language (`data/lang/*.toml`, built into
//! the binary): the skills' words, the words that carry no meaning, the
//! words of batch asks and approval answers. A language is data: adding
//! one is a file here and a line in [`SHIPPED`] (docs/routing.md#languages).

use super::Language;
use rust_stemmers::Algorithm;
use serde::Deserialize;
use std::collections::BTreeMap;

/// The shipped files, in [`Language::ALL`] order.
const SHIPPED: [(Language, &str); 4] = [
    (Language::En, include_str!("../../../data/lang/en.toml")),
    (Language::De, include_str!("../../../data/lang/de.toml")),
    (Language::Fr, include_str!("../../../data/lang/fr.toml")),
    (Language::Es, include_str!("../../../data/lang/es.toml")),
];

/// One language's file.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Vocabulary {
    /// The language's code, as in [`Language::code`].
    pub language: String,
    /// The Snowball stemmer: `english`, `german`, `french`, `spanish`, …
    pub stemmer: String,
    /// Whether words the vocabulary does not know are split into words it
    /// does (German compounds).
    #[serde(default)]
    pub split_compounds: bool,
    /// Letters that may join the parts of a compound ("Liefer-s-adresse").
    #[serde(default)]
    pub compound_links: Vec<String>,
    /// Words compounds may be made of besides the skills' words ("Sperre"
    /// in "Kreditlimitsperre"); they weigh nothing on their own.
    #[serde(default)]
    pub compound_parts: Vec<String>,
    #[serde(default)]
    pub stopwords: Vec<String>,
    /// Words requests of every kind use ("gesperrt", "Auftrag"): every
    /// skill has them, so they decide nothing (but they make pairs).
    #[serde(default)]
    pub neutral: Vec<String>,
    /// The twelve months, January first, a month's other names after `|`
    /// ("Januar|Jänner"): the dates the user types are read by them
    /// (`execution::date`), and a date tells its language by them ("18 de
    /// diciembre de 2026") where the language model may hear another. They
    /// route nothing.
    #[serde(default)]
    pub months: Vec<String>,
    /// By skill id.
    #[serde(default)]
    pub skills: BTreeMap<String, SkillWords>,
    #[serde(default)]
    pub numbers: NumberWords,
    #[serde(default)]
    pub batch: BatchWords,
    #[serde(default)]
    pub approval: ApprovalWords,
    /// The buttons an approval question offers (`approval::quick_replies`).
    #[serde(default)]
    pub quick_replies: QuickReplyWords,
}

/// What a language says about one skill.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SkillWords {
    /// Weigh like the card's tags.
    #[serde(default)]
    pub keywords: Vec<String>,
    /// Weigh like the card's prose.
    #[serde(default)]
    pub phrases: Vec<String>,
    /// Weigh like prose, and are shown on the card.
    #[serde(default)]
    pub examples: Vec<String>,
}

/// Which number of a text is the sales order (`text::find_sales_order`).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NumberWords {
    #[serde(default)]
    pub order_before: Vec<String>,
    #[serde(default)]
    pub not_order_before: Vec<String>,
    #[serde(default)]
    pub amount_after: Vec<String>,
}

/// The words of an ask for several orders (`batch::request`).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BatchWords {
    #[serde(default)]
    pub customer_before: Vec<String>,
    #[serde(default)]
    pub owner_before: Vec<String>,
    #[serde(default)]
    pub not_an_order_before: Vec<String>,
    #[serde(default)]
    pub list_joiners: Vec<String>,
    #[serde(default)]
    pub plurals: Vec<String>,
    #[serde(default)]
    pub asks_for_any: Vec<String>,
    #[serde(default)]
    pub about_blocks: Vec<String>,
    /// Legal forms of companies ("GmbH", "Ltd"): part of a customer's
    /// name, never needed to find it.
    #[serde(default)]
    pub legal_forms: Vec<String>,
}

/// The words of an answer to an approval question (`approval::reply_parse`).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ApprovalWords {
    /// Whole answers that approve.
    #[serde(default)]
    pub approve: Vec<String>,
    /// Whole answers that reject.
    #[serde(default)]
    pub reject: Vec<String>,
    #[serde(default)]
    pub approve_verbs: Vec<String>,
    #[serde(default)]
    pub reject_verbs: Vec<String>,
    /// "all" in a batch answer.
    #[serde(default)]
    pub all: Vec<String>,
    #[serde(default)]
    pub joining: Vec<String>,
}

/// The buttons of an approval question, where the client shows buttons
/// (Joule's quick replies). A button sends its own text, so every one is
/// also an answer of [`ApprovalWords`] (a unit test holds each to it).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct QuickReplyWords {
    /// Above the buttons: "Approve or reject?".
    #[serde(default)]
    pub title: String,
    #[serde(default)]
    pub approve: String,
    #[serde(default)]
    pub reject: String,
    /// A batch: every order still offered.
    #[serde(default)]
    pub approve_all: String,
    #[serde(default)]
    pub reject_all: String,
}

/// Why a vocabulary file is not used.
#[derive(Debug, thiserror::Error)]
pub enum VocabularyError {
    #[error("data/lang/{code}.toml: {reason}")]
    Unreadable { code: &'static str, reason: String },
    #[error("data/lang/{code}.toml says it is `{said}`")]
    WrongLanguage { code: &'static str, said: String },
    #[error("data/lang/{code}.toml: no Snowball stemmer is called `{stemmer}`")]
    UnknownStemmer { code: &'static str, stemmer: String },
    #[error("data/lang/{code}.toml: `months` lists {count} months, not 12")]
    Months { code: &'static str, count: usize },
}

/// One shipped file, read and checked.
fn read(language: Language, text: &str) -> Result<Vocabulary, VocabularyError> {
    let code = language.code();
    let vocabulary: Vocabulary =
        toml::from_str(text).map_err(|error| VocabularyError::Unreadable {
            code,
            reason: error.to_string().trim().replace('\n', " "),
        })?;
    if vocabulary.language != code {
        return Err(VocabularyError::WrongLanguage {
            code,
            said: vocabulary.language,
        });
    }
    if stemmer_algorithm(&vocabulary.stemmer).is_none() {
        return Err(VocabularyError::UnknownStemmer {
            code,
            stemmer: vocabulary.stemmer,
        });
    }
    if !vocabulary.months.is_empty() && vocabulary.months.len() != 12 {
        return Err(VocabularyError::Months {
            code,
            count: vocabulary.months.len(),
        });
    }
    Ok(vocabulary)
}

/// Every shipped vocabulary, in [`Language::ALL`] order; a file that does
/// not read is logged and left empty (the unit tests read them all), so
/// the agent still understands the others.
pub fn shipped() -> Vec<(Language, Vocabulary)> {
    SHIPPED
        .iter()
        .map(|(language, text)| {
            let vocabulary = read(*language, text).unwrap_or_else(|error| {
                tracing::error!(%error, "a vocabulary file is not used");
                Vocabulary {
                    language: language.code().into(),
                    ..Vocabulary::default()
                }
            });
            (*language, vocabulary)
        })
        .collect()
}

/// The Snowball stemmer called `name` in a vocabulary file.
pub fn stemmer_algorithm(name: &str) -> Option<Algorithm> {
    Some(match name {
        "arabic" => Algorithm::Arabic,
        "danish" => Algorithm::Danish,
        "dutch" => Algorithm::Dutch,
        "english" => Algorithm::English,
        "finnish" => Algorithm::Finnish,
        "french" => Algorithm::French,
        "german" => Algorithm::German,
        "greek" => Algorithm::Greek,
        "hungarian" => Algorithm::Hungarian,
        "italian" => Algorithm::Italian,
        "norwegian" => Algorithm::Norwegian,
        "portuguese" => Algorithm::Portuguese,
        "romanian" => Algorithm::Romanian,
        "russian" => Algorithm::Russian,
        "spanish" => Algorithm::Spanish,
        "swedish" => Algorithm::Swedish,
        "tamil" => Algorithm::Tamil,
        "turkish" => Algorithm::Turkish,
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_shipped_file_reads() {
        for (language, text) in SHIPPED {
            let vocabulary = read(language, text).unwrap_or_else(|error| panic!("{error}"));
            assert!(!vocabulary.stopwords.is_empty(), "{language:?}");
            assert!(!vocabulary.approval.approve.is_empty(), "{language:?}");
            assert!(!vocabulary.approval.reject.is_empty(), "{language:?}");
            let buttons = &vocabulary.quick_replies;
            for text in [
                &buttons.title,
                &buttons.approve,
                &buttons.reject,
                &buttons.approve_all,
                &buttons.reject_all,
            ] {
                assert!(!text.is_empty(), "{language:?}: a quick reply is missing");
            }
        }
        let order: Vec<Language> = SHIPPED.iter().map(|(language, _)| *language).collect();
        assert_eq!(order, Language::ALL);
    }

    #[test]
    fn a_bad_file_is_refused_with_its_reason() {
        let wrong = read(Language::De, "language = \"fr\"\nstemmer = \"german\"");
        assert_eq!(
            wrong.unwrap_err().to_string(),
            "data/lang/de.toml says it is `fr`"
        );
        let stemmer = read(Language::De, "language = \"de\"\nstemmer = \"klingon\"");
        assert!(stemmer.unwrap_err().to_string().contains("`klingon`"));
        let unknown = read(
            Language::De,
            "language = \"de\"\nstemmer = \"german\"\nsynonyms = []",
        );
        assert!(unknown.unwrap_err().to_string().contains("synonyms"));
        let months = read(
            Language::De,
            "language = \"de\"\nstemmer = \"german\"\nmonths = [\"Januar\"]",
        );
        assert_eq!(
            months.unwrap_err().to_string(),
            "data/lang/de.toml: `months` lists 1 months, not 12"
        );
    }
}
