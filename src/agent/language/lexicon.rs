//! How the agent reads a word in every language it speaks at once: per
//! language its Snowball stem (accents folded, so "credit" and "crédit"
//! match), or that it is a stopword there; a compound the vocabulary does
//! not list split into the words it does ([`super::compounds`]); a word no
//! language knows taken for the known stem it is a typo of ([`super::typos`]).
//! Routing therefore never depends on guessing the language first: a
//! word counts in whichever language knows it.
//!
//! Reading a word costs thousands of instructions (four stemmers) and
//! requests keep using the same few hundred words, so each thread
//! remembers the words it has read ([`REMEMBERED_WORDS`]). The lexicon also
//! holds the word lists of every language for order numbers, batch asks
//! and approval answers ([`WordClass`]), compared as typed (lower case,
//! accents folded), never corrected.

use super::Language;
use super::compounds::Parts;
use super::typos::Corrections;
use super::vocabulary::{self, Vocabulary, stemmer_algorithm};
use rust_stemmers::{Algorithm, Stemmer};
use std::borrow::Cow;
use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::rc::Rc;
use std::sync::LazyLock;

/// How many languages the lexicon reads (the length of the per-language
/// arrays of an [`Analysis`]).
pub const LANGUAGE_COUNT: usize = Language::ALL.len();

/// At most this many words' readings are remembered per thread (a few
/// hundred kB at most); past it the memory starts over.
pub const REMEMBERED_WORDS: usize = 2048;

thread_local! {
    /// The readings of the words this thread has seen, by lower-case word.
    static READINGS: RefCell<HashMap<String, Rc<Analysis>>> = RefCell::new(HashMap::new());
}

static LEXICON: LazyLock<Lexicon> = LazyLock::new(|| {
    let skills: Vec<&'static crate::agent::Skill> = crate::agent::specialists::all()
        .iter()
        .map(|specialist| specialist.skill())
        .collect();
    Lexicon::new(vocabulary::shipped(), &skills)
});

/// The lexicon of the shipped vocabularies and the specialists' cards.
pub fn lexicon() -> &'static Lexicon {
    &LEXICON
}

/// `text` with the accents of Latin letters folded ("crédit" → "credit",
/// "Straße" → "strasse"); borrowed when there is nothing to fold.
pub fn fold(text: &str) -> Cow<'_, str> {
    if text.is_ascii() {
        return Cow::Borrowed(text);
    }
    let mut folded = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            'à' | 'á' | 'â' | 'ä' | 'ã' | 'å' => folded.push('a'),
            'ç' => folded.push('c'),
            'è' | 'é' | 'ê' | 'ë' => folded.push('e'),
            'ì' | 'í' | 'î' | 'ï' => folded.push('i'),
            'ñ' => folded.push('n'),
            'ò' | 'ó' | 'ô' | 'ö' | 'õ' => folded.push('o'),
            'ù' | 'ú' | 'û' | 'ü' => folded.push('u'),
            'ý' | 'ÿ' => folded.push('y'),
            'ß' => folded.push_str("ss"),
            'œ' => folded.push_str("oe"),
            'æ' => folded.push_str("ae"),
            other => folded.push(other),
        }
    }
    Cow::Owned(folded)
}

/// How one word reads in each language.
#[derive(Debug, PartialEq)]
pub struct Analysis {
    /// The distinct stems the word gives in any language, folded.
    pub stems: Box<[Box<str>]>,
    /// Per language (in [`Language::ALL`] order): the word's stems there,
    /// as indices into `stems`, in order (the parts of a compound); empty
    /// when the word is a stopword there.
    pub by_language: [Box<[u8]>; LANGUAGE_COUNT],
    /// One bit per language ([`Language::bit`]) whose vocabulary has the
    /// word as typed: evidence of the language of a short text.
    pub known_in: u8,
    /// Whether some language knows the word: a stopword, a word or stem of
    /// its vocabulary, a compound of them, or a typo of one. A word none
    /// knows may be a name ("Nordwind").
    pub known: bool,
}

impl Analysis {
    /// The word's stems in `language` (empty: a stopword there).
    pub fn stems_in(&self, language: Language) -> impl Iterator<Item = &str> {
        self.by_language[language.index()]
            .iter()
            .map(|index| self.stems[usize::from(*index)].as_ref())
    }
}

/// Classes of words in the word lists of the vocabularies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WordClass {
    /// Before a number: it is the sales order.
    OrderBefore,
    /// Before a number: it is not the sales order.
    NotOrderBefore,
    /// After a number: it is an amount.
    AmountAfter,
    CustomerBefore,
    OwnerBefore,
    BatchNotAnOrderBefore,
    ListJoiner,
    Plural,
    AsksForAny,
    AboutBlocks,
    ApproveVerb,
    RejectVerb,
    All,
    Joining,
    /// A company's legal form ("GmbH"): in a customer's name, ignored when
    /// it is looked for. Not a word of the language (it tells none).
    LegalForm,
}

impl WordClass {
    fn bit(self) -> u32 {
        1 << (self as u32)
    }
}

/// One language as the lexicon reads it.
struct Reader {
    stemmer: Stemmer,
    /// Folded.
    stopwords: HashSet<Box<str>>,
    /// The folded stems of the language's skill words (for English also
    /// of the cards): what a word may be known as.
    known: HashSet<Box<str>>,
    /// Every word of the vocabulary file as typed, folded.
    words: HashSet<Box<str>>,
    parts: Option<Parts>,
    corrections: Corrections,
}

impl Reader {
    fn stem(&self, word: &str) -> String {
        fold(&self.stemmer.stem(word)).into_owned()
    }
}

/// Every language's reading of words, and the word lists.
pub struct Lexicon {
    readers: Vec<Reader>,
    /// Folded word → its [`WordClass`] bits.
    classes: HashMap<Box<str>, u32>,
    /// Whole approval answers, folded, words joined by one space.
    approve_answers: HashSet<String>,
    reject_answers: HashSet<String>,
    /// The most words a whole answer has.
    longest_answer: usize,
    /// Per language, per skill id: the examples shown on the card.
    examples: Vec<(Language, SkillExamples)>,
    /// Per language, per skill id: the texts the router reads.
    skill_texts: Vec<(Language, SkillTexts)>,
    /// Per month (January first), its names in every language, folded.
    months: [Vec<Box<str>>; 12],
}

/// Per skill id, the examples the card shows.
type SkillExamples = Vec<(String, Vec<String>)>;
/// Per skill id, the texts the router reads, with whether each weighs as a
/// keyword.
type SkillTexts = Vec<(String, Vec<(String, bool)>)>;

/// Lower-case words of a vocabulary text (as `text::tokens` splits them).
fn words_of(text: &str) -> impl Iterator<Item = String> + '_ {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|word| !word.is_empty())
        .map(str::to_lowercase)
}

/// An answer as compared: its words, lower case and folded, one space apart.
pub fn answer_key(text: &str) -> String {
    text.split_whitespace()
        .map(|word| fold(&word.to_lowercase()).into_owned())
        .collect::<Vec<_>>()
        .join(" ")
}

impl Lexicon {
    pub fn new(vocabularies: Vec<(Language, Vocabulary)>, cards: &[&crate::agent::Skill]) -> Self {
        let mut readers = Vec::with_capacity(LANGUAGE_COUNT);
        let mut classes: HashMap<Box<str>, u32> = HashMap::new();
        let mut approve_answers = HashSet::new();
        let mut reject_answers = HashSet::new();
        let mut examples = Vec::new();
        let mut skill_texts = Vec::new();
        let mut months: [Vec<Box<str>>; 12] = Default::default();
        for language in Language::ALL {
            let vocabulary = vocabularies
                .iter()
                .find(|(of, _)| *of == language)
                .map(|(_, vocabulary)| vocabulary.clone())
                .unwrap_or_default();
            let algorithm = stemmer_algorithm(&vocabulary.stemmer).unwrap_or(Algorithm::English);
            let stemmer = Stemmer::create(algorithm);
            let stopwords: HashSet<Box<str>> = vocabulary
                .stopwords
                .iter()
                .map(|word| fold(&word.to_lowercase()).into())
                .collect();
            // The texts the router reads for each skill.
            let mut texts: SkillTexts = Vec::new();
            for (id, words) in &vocabulary.skills {
                let mut said: Vec<(String, bool)> = Vec::new();
                said.extend(vocabulary.neutral.iter().map(|text| (text.clone(), false)));
                said.extend(words.keywords.iter().map(|text| (text.clone(), true)));
                said.extend(words.phrases.iter().map(|text| (text.clone(), false)));
                said.extend(words.examples.iter().map(|text| (text.clone(), false)));
                texts.push((id.clone(), said));
            }
            if language == Language::En {
                for card in cards {
                    let mut said: Vec<(String, bool)> = vec![
                        (card.name.to_string(), false),
                        (card.description.to_string(), false),
                    ];
                    said.extend(card.examples.iter().map(|text| (text.to_string(), false)));
                    said.extend(card.tags.iter().map(|text| (text.to_string(), true)));
                    match texts.iter_mut().find(|(id, _)| id == card.id) {
                        Some((_, texts)) => texts.extend(said),
                        None => texts.push((card.id.to_string(), said)),
                    }
                }
            }
            // What a word may be known as: the stems of the skills' words.
            let mut surface: Vec<(String, String)> = Vec::new();
            for (_, said) in &texts {
                for (text, _) in said {
                    for word in words_of(text) {
                        let folded = fold(&word).into_owned();
                        if stopwords.contains(folded.as_str())
                            || word.chars().all(|c| c.is_ascii_digit())
                        {
                            continue;
                        }
                        let stem = fold(&stemmer.stem(&word)).into_owned();
                        surface.push((folded, stem));
                    }
                }
            }
            let known: HashSet<Box<str>> = surface
                .iter()
                .map(|(_, stem)| stem.as_str().into())
                .collect();
            let parts = vocabulary.split_compounds.then(|| {
                let extra: Vec<(String, String)> = vocabulary
                    .compound_parts
                    .iter()
                    .flat_map(|text| words_of(text))
                    .map(|word| {
                        (
                            fold(&word).into_owned(),
                            fold(&stemmer.stem(&word)).into_owned(),
                        )
                    })
                    .collect();
                Parts::new(
                    surface
                        .iter()
                        .chain(&extra)
                        .flat_map(|(word, stem)| [(word.as_str(), stem.as_str()), (stem, stem)]),
                    vocabulary.compound_links.iter().map(String::as_str),
                )
            });
            let corrections = Corrections::new(
                surface
                    .iter()
                    .flat_map(|(word, stem)| [(word.as_str(), stem.as_str()), (stem, stem)]),
            );
            let mut words: HashSet<Box<str>> = stopwords.clone();
            words.extend(surface.iter().map(|(word, _)| word.as_str().into()));
            // The word lists, each word once per class whatever its language.
            let lists: [(&Vec<String>, WordClass); 14] = [
                (&vocabulary.numbers.order_before, WordClass::OrderBefore),
                (
                    &vocabulary.numbers.not_order_before,
                    WordClass::NotOrderBefore,
                ),
                (&vocabulary.numbers.amount_after, WordClass::AmountAfter),
                (&vocabulary.batch.customer_before, WordClass::CustomerBefore),
                (&vocabulary.batch.owner_before, WordClass::OwnerBefore),
                (
                    &vocabulary.batch.not_an_order_before,
                    WordClass::BatchNotAnOrderBefore,
                ),
                (&vocabulary.batch.list_joiners, WordClass::ListJoiner),
                (&vocabulary.batch.plurals, WordClass::Plural),
                (&vocabulary.batch.asks_for_any, WordClass::AsksForAny),
                (&vocabulary.batch.about_blocks, WordClass::AboutBlocks),
                (&vocabulary.approval.approve_verbs, WordClass::ApproveVerb),
                (&vocabulary.approval.reject_verbs, WordClass::RejectVerb),
                (&vocabulary.approval.all, WordClass::All),
                (&vocabulary.approval.joining, WordClass::Joining),
            ];
            for (list, class) in lists {
                for word in list {
                    let folded: Box<str> = fold(&word.to_lowercase()).into();
                    words.insert(folded.clone());
                    *classes.entry(folded).or_insert(0) |= class.bit();
                }
            }
            for form in &vocabulary.batch.legal_forms {
                let folded: Box<str> = fold(&form.to_lowercase()).into();
                *classes.entry(folded).or_insert(0) |= WordClass::LegalForm.bit();
            }
            for (index, month) in vocabulary.months.iter().enumerate() {
                for name in month.split('|') {
                    let folded: Box<str> = fold(&name.trim().to_lowercase()).into();
                    words.insert(folded.clone());
                    if let Some(names) = months.get_mut(index) {
                        names.push(folded);
                    }
                }
            }
            for answer in &vocabulary.approval.approve {
                approve_answers.insert(answer_key(answer));
                words.extend(
                    answer
                        .split_whitespace()
                        .map(|w| fold(&w.to_lowercase()).into()),
                );
            }
            for answer in &vocabulary.approval.reject {
                reject_answers.insert(answer_key(answer));
                words.extend(
                    answer
                        .split_whitespace()
                        .map(|w| fold(&w.to_lowercase()).into()),
                );
            }
            examples.push((
                language,
                vocabulary
                    .skills
                    .iter()
                    .map(|(id, words)| (id.clone(), words.examples.clone()))
                    .collect(),
            ));
            skill_texts.push((language, texts));
            readers.push(Reader {
                stemmer,
                stopwords,
                known,
                words,
                parts,
                corrections,
            });
        }
        let longest_answer = approve_answers
            .iter()
            .chain(&reject_answers)
            .map(|answer| answer.split(' ').count())
            .max()
            .unwrap_or(0);
        Lexicon {
            readers,
            classes,
            approve_answers,
            reject_answers,
            longest_answer,
            examples,
            skill_texts,
            months,
        }
    }

    /// The month (1–12) `word` names in any language, folded: a word names
    /// a month when it starts one of its names (3 letters at least, a
    /// trailing dot dropped) and every name it starts is that month's
    /// ("jui" is June or July: none).
    pub fn month_named(&self, word: &str) -> Option<u8> {
        let word = fold(&word.trim_end_matches('.').to_lowercase()).into_owned();
        if word.chars().count() < 3 {
            return None;
        }
        let mut found = None;
        for (index, names) in self.months.iter().enumerate() {
            if names.iter().any(|name| name.starts_with(word.as_str())) {
                if found.is_some() {
                    return None;
                }
                found = Some(index as u8 + 1);
            }
        }
        found
    }

    /// How `word` (lower case, at most `text::LONGEST_WORD` bytes, not a
    /// number) reads, remembered per thread.
    pub fn analyse(&self, word: &str) -> Rc<Analysis> {
        READINGS.with(|remembered| {
            if let Some(analysis) = remembered.borrow().get(word) {
                return Rc::clone(analysis);
            }
            let analysis = Rc::new(self.read(word));
            let mut remembered = remembered.borrow_mut();
            if remembered.len() >= REMEMBERED_WORDS {
                remembered.clear();
            }
            remembered.insert(word.to_string(), Rc::clone(&analysis));
            analysis
        })
    }

    /// Read `word` in every language (not remembered).
    fn read(&self, word: &str) -> Analysis {
        let folded = fold(word);
        let mut known_in = 0u8;
        let mut known_anywhere = false;
        // Per language: None for a stopword, else its stems and whether
        // the language knows them.
        let mut readings: Vec<Option<(Vec<String>, bool)>> = Vec::with_capacity(LANGUAGE_COUNT);
        for (language, reader) in Language::ALL.into_iter().zip(&self.readers) {
            // A word the vocabulary lists is never taken for a typo.
            if reader.words.contains(folded.as_ref()) {
                known_in |= language.bit();
                known_anywhere = true;
            }
            if reader.stopwords.contains(folded.as_ref()) {
                known_anywhere = true;
                readings.push(None);
                continue;
            }
            let stem = reader.stem(word);
            if reader.known.contains(stem.as_str()) {
                known_anywhere = true;
                readings.push(Some((vec![stem], true)));
                continue;
            }
            // The stem first ("kreditsperren": Kredit + Sperre), then the
            // word as typed ("lieferadressdaten": Lieferadresse + Daten).
            let split = reader
                .parts
                .as_ref()
                .and_then(|parts| parts.split(&stem).or_else(|| parts.split(&folded)))
                .map(|parts| parts.into_iter().map(str::to_string).collect::<Vec<_>>());
            match split {
                Some(parts) => {
                    known_anywhere = true;
                    known_in |= language.bit();
                    readings.push(Some((parts, true)));
                }
                None => readings.push(Some((vec![stem], false))),
            }
        }
        // A word no language knows may be a typo of a known stem.
        let mut corrected_anywhere = false;
        if !known_anywhere && word.chars().all(char::is_alphabetic) {
            for (reading, reader) in readings.iter_mut().zip(&self.readers) {
                if let Some((stems, known)) = reading
                    && let [stem] = stems.as_slice()
                    && let Some(corrected) = reader.corrections.correct([folded.as_ref(), stem])
                {
                    *stems = vec![corrected.to_string()];
                    *known = true;
                    corrected_anywhere = true;
                }
            }
        }
        let mut stems: Vec<Box<str>> = Vec::new();
        let by_language: [Box<[u8]>; LANGUAGE_COUNT] = std::array::from_fn(|index| {
            let Some(Some((of_language, _))) = readings.get(index) else {
                return Box::default();
            };
            of_language
                .iter()
                .map(|stem| {
                    let at = stems
                        .iter()
                        .position(|known| known.as_ref() == stem)
                        .unwrap_or_else(|| {
                            stems.push(stem.as_str().into());
                            stems.len() - 1
                        });
                    u8::try_from(at).unwrap_or(u8::MAX)
                })
                .collect()
        });
        Analysis {
            stems: stems.into_boxed_slice(),
            by_language,
            known_in,
            known: known_anywhere
                || corrected_anywhere
                || self.classes.contains_key(folded.as_ref()),
        }
    }

    /// Whether `word` (lower case) is in any language's list of `class`.
    pub fn is(&self, word: &str, class: WordClass) -> bool {
        self.classes
            .get(fold(word).as_ref())
            .is_some_and(|bits| bits & class.bit() != 0)
    }

    /// Whether `answer` (as [`answer_key`] makes it) is a whole answer
    /// that approves, in any language.
    pub fn approves(&self, answer: &str) -> bool {
        self.approve_answers.contains(answer)
    }

    /// Whether `answer` is a whole answer that rejects, in any language.
    pub fn rejects(&self, answer: &str) -> bool {
        self.reject_answers.contains(answer)
    }

    /// The most words a whole approval answer has, in any language.
    pub fn longest_answer(&self) -> usize {
        self.longest_answer
    }

    /// The card's examples of skill `id` in each language that has some.
    pub fn examples(&self, id: &str) -> Vec<(Language, &[String])> {
        self.examples
            .iter()
            .filter_map(|(language, skills)| {
                skills
                    .iter()
                    .find(|(skill, _)| skill == id)
                    .map(|(_, examples)| (*language, examples.as_slice()))
            })
            .filter(|(_, examples)| !examples.is_empty())
            .collect()
    }

    /// The texts the router reads for each skill, per language, with
    /// whether each weighs as a keyword.
    pub fn skill_texts(&self) -> impl Iterator<Item = (Language, &str, &[(String, bool)])> {
        self.skill_texts.iter().flat_map(|(language, skills)| {
            skills
                .iter()
                .map(move |(id, texts)| (*language, id.as_str(), texts.as_slice()))
        })
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_month_is_named_in_any_language_by_a_long_enough_start() {
        let month = |word: &str| lexicon().month_named(word);
        assert_eq!(month("Jänner"), Some(1));
        assert_eq!(month("Maerz"), Some(3));
        assert_eq!(month("mars"), Some(3));
        assert_eq!(month("août"), Some(8));
        assert_eq!(month("setiembre"), Some(9));
        assert_eq!(month("Dec."), Some(12));
        assert_eq!(month("dic"), Some(12));
        // "jui" starts June and July; "ma" is too short.
        assert_eq!(month("jui"), None);
        assert_eq!(month("ma"), None);
        assert_eq!(month("Kredit"), None);
    }

    use super::*;

    fn stems(word: &str, language: Language) -> Vec<String> {
        lexicon()
            .analyse(word)
            .stems_in(language)
            .map(str::to_string)
            .collect()
    }

    #[test]
    fn inflected_forms_read_as_one_stem() {
        assert_eq!(stems("blocked", Language::En), ["block"]);
        assert_eq!(
            stems("gesperrten", Language::De),
            stems("gesperrt", Language::De)
        );
        assert_eq!(stems("kreditlimits", Language::De), ["kreditlimit"]);
        assert_eq!(
            stems("aufträge", Language::De),
            stems("auftrag", Language::De)
        );
        assert_eq!(
            stems("bloquées", Language::Fr),
            stems("bloqué", Language::Fr)
        );
        assert_eq!(
            stems("precios", Language::Es),
            stems("precio", Language::Es)
        );
    }

    #[test]
    fn accents_are_folded() {
        assert_eq!(fold("Crédit"), "Crédit".replace('é', "e"));
        assert_eq!(fold("straße"), "strasse");
        assert_eq!(stems("credit", Language::Fr), stems("crédit", Language::Fr));
        assert_eq!(
            stems("dirección", Language::Es),
            stems("direccion", Language::Es)
        );
        assert!(matches!(fold("plain"), Cow::Borrowed(_)));
    }

    #[test]
    fn a_stopword_reads_as_no_stem_in_its_language_only() {
        let the = lexicon().analyse("der");
        assert_eq!(the.stems_in(Language::De).count(), 0);
        assert_eq!(the.known_in & Language::De.bit(), Language::De.bit());
        assert!(
            lexicon()
                .analyse("the")
                .stems_in(Language::En)
                .next()
                .is_none()
        );
    }

    #[test]
    fn german_compounds_split_by_the_vocabulary() {
        // Listed compounds read as themselves.
        for listed in [
            "kreditsperre",
            "kreditlimit",
            "liefersperre",
            "lieferadresse",
            "preisdifferenz",
            "stammdaten",
            "wunschliefertermin",
            "warenempfänger",
        ] {
            let stems = stems(listed, Language::De);
            assert_eq!(stems.len(), 1, "{listed}: {stems:?}");
            assert!(
                lexicon().readers[Language::De.index()]
                    .known
                    .contains(stems[0].as_str())
            );
        }
        // Compounds the vocabulary does not list split into its words.
        assert_eq!(
            stems("kreditlimitsperre", Language::De),
            ["kreditlimit", "sperr"]
        );
        assert_eq!(
            stems("kreditrahmensperre", Language::De),
            ["kreditrahm", "sperr"]
        );
        assert_eq!(stems("limitsperre", Language::De), ["limit", "sperr"]);
        assert_eq!(
            stems("lieferadressdaten", Language::De),
            ["liefer", "adressdat"]
        );
        assert_eq!(
            stems("preislistenabweichung", Language::De),
            ["preislist", "abweich"]
        );
        // Nothing splits an unknown word into unknown parts.
        assert_eq!(stems("besprechungsraum", Language::De).len(), 1);
    }

    #[test]
    fn typos_are_forgiven_on_long_enough_words() {
        assert_eq!(stems("credt", Language::En), ["credit"]);
        assert_eq!(stems("blockd", Language::En), ["block"]);
        assert_eq!(stems("kredtlimit", Language::De), ["kreditlimit"]);
        assert_eq!(stems("preisdiferenz", Language::De), ["preisdifferenz"]);
        assert_eq!(stems("lieferadrese", Language::De), ["lieferadress"]);
        // Four letters are too few; numbers and words with digits are never
        // corrected.
        assert_eq!(stems("prce", Language::En), ["prce"]);
        assert!(
            lexicon()
                .analyse("credt4")
                .stems_in(Language::En)
                .all(|s| s != "credit")
        );
        // A word a language knows is not corrected in another.
        assert_eq!(stems("hello", Language::En), Vec::<String>::new());
    }

    #[test]
    fn word_lists_of_every_language() {
        let lexicon = lexicon();
        assert!(lexicon.is("order", WordClass::OrderBefore));
        assert!(lexicon.is("auftrag", WordClass::OrderBefore));
        assert!(lexicon.is("aufträge", WordClass::Plural));
        assert!(lexicon.is("auftrage", WordClass::Plural), "accents folded");
        assert!(lexicon.is("genehmigen", WordClass::ApproveVerb));
        assert!(!lexicon.is("genehmigen", WordClass::RejectVerb));
        assert!(lexicon.approves(&answer_key("Ja bitte")));
        assert!(lexicon.rejects(&answer_key("NEIN")));
        assert!(lexicon.longest_answer() >= 2);
    }

    /// A word's reading is remembered, also once the memory started over.
    #[test]
    fn remembered_readings_are_the_lexicons() {
        let first = lexicon().analyse("blocked");
        for i in 0..REMEMBERED_WORDS + 10 {
            let word = format!("word{}x", "y".repeat(i % 7)) + &i.to_string();
            assert_eq!(*lexicon().analyse(&word), lexicon().read(&word));
        }
        assert_eq!(*lexicon().analyse("blocked"), *first);
    }
}
