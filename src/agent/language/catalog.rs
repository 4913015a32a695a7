//! What the user reads, in their language: one Project Fluent catalog per
//! language (`data/i18n/<code>.ftl`), embedded in the binary and parsed
//! once, the first time a text is asked for. Code names a message by its id
//! and passes its arguments, already formatted for the language where they
//! are numbers or dates ([`super::locale`]); the catalog has the words.
//!
//! English is complete and is where any message a catalog lacks comes
//! from. A language whose catalog has every message is answered in; one
//! that lacks some (none today) is answered in English, and
//! the user is told so once ([`answering`], `answers-in-english`).
//! Fluent's Unicode isolation marks around arguments are off: the texts go
//! to Joule and other agents as plain text.

use super::Language;
use fluent_bundle::concurrent::FluentBundle;
use fluent_bundle::{FluentArgs, FluentResource, FluentValue};
use std::sync::OnceLock;

/// The shipped catalogs, in the order of [`Language::ALL`].
const SOURCES: [(Language, &str); 4] = [
    (Language::En, include_str!("../../../data/i18n/en.ftl")),
    (Language::De, include_str!("../../../data/i18n/de.ftl")),
    (Language::Fr, include_str!("../../../data/i18n/fr.ftl")),
    (Language::Es, include_str!("../../../data/i18n/es.ftl")),
];

/// One parsed catalog per language, and whether it has every message of
/// English's.
struct Catalogs {
    bundles: Vec<FluentBundle<FluentResource>>,
    complete: Vec<bool>,
}

fn bundle(language: Language, source: &str) -> FluentBundle<FluentResource> {
    let resource = match FluentResource::try_new(source.to_string()) {
        Ok(resource) => resource,
        Err((resource, errors)) => {
            // The unit tests parse every shipped catalog; a broken entry
            // is skipped (its id then falls back to English), never fatal.
            tracing::error!(language = %language, ?errors, "a message catalog has syntax errors");
            resource
        }
    };
    let tag = language.code().parse().unwrap_or_default();
    let mut bundle = FluentBundle::new_concurrent(vec![tag]);
    bundle.set_use_isolating(false);
    if let Err(errors) = bundle.add_resource(resource) {
        tracing::error!(language = %language, ?errors, "a message catalog defines an id twice");
    }
    bundle
}

fn catalogs() -> &'static Catalogs {
    static CATALOGS: OnceLock<Catalogs> = OnceLock::new();
    CATALOGS.get_or_init(|| {
        let bundles: Vec<_> = SOURCES
            .iter()
            .map(|(language, source)| bundle(*language, source))
            .collect();
        let english = message_ids(SOURCES[0].1);
        let complete = bundles
            .iter()
            .map(|bundle| english.iter().all(|id| bundle.has_message(id)))
            .collect();
        Catalogs { bundles, complete }
    })
}

/// The message ids a catalog's source defines, in order.
fn message_ids(source: &str) -> Vec<String> {
    source
        .lines()
        .filter(|line| line.starts_with(|c: char| c.is_ascii_lowercase()))
        .filter_map(|line| line.split_once('=').map(|(id, _)| id.trim().to_string()))
        .collect()
}

/// Whether `language`'s catalog has every message.
pub fn complete(language: Language) -> bool {
    catalogs()
        .complete
        .get(language.index())
        .copied()
        .unwrap_or(false)
}

/// The language a user of `language` is answered in: theirs when its
/// catalog is complete, else English.
pub fn answering(language: Language) -> Language {
    if complete(language) {
        language
    } else {
        Language::En
    }
}

/// The text of message `id` in `language` (English where its catalog lacks
/// the id), with `args`. An id no catalog has is a bug: logged, and the id
/// is the text.
pub fn text(language: Language, id: &str, args: &[(&str, FluentValue<'_>)]) -> String {
    let catalogs = catalogs();
    let found = [language, Language::En].into_iter().find_map(|language| {
        let bundle = catalogs.bundles.get(language.index())?;
        let pattern = bundle.get_message(id)?.value()?;
        Some((bundle, pattern))
    });
    let Some((bundle, pattern)) = found else {
        tracing::error!(message.id = id, "no catalog has this message");
        return id.to_string();
    };
    let args: FluentArgs<'_> = args
        .iter()
        .map(|(name, value)| (*name, value.clone()))
        .collect();
    let mut errors = Vec::new();
    let text = bundle.format_pattern(pattern, Some(&args), &mut errors);
    if !errors.is_empty() {
        tracing::error!(
            message.id = id,
            ?errors,
            "a message was formatted with errors"
        );
    }
    text.into_owned()
}

/// What the user is told about a failed read of the order source, in
/// `language`, and whether it is a refusal or a failure (the source's own
/// [`crate::backend::BackendError::for_the_user`] says which, and is the
/// English). The technical details inside (what S/4HANA refused, a
/// setting's problem) stay as the source words them.
pub fn backend_error(
    error: &crate::backend::BackendError,
    language: Language,
) -> (crate::backend::Refusal, String) {
    use crate::backend::BackendError;
    let (refusal, english) = error.for_the_user();
    if language == Language::En {
        return (refusal, english);
    }
    let text = match error {
        BackendError::Forbidden(what) => text(
            language,
            "backend-forbidden",
            &[("what", subject(language, what).into())],
        ),
        BackendError::NoAnswer(_) => text(language, "backend-no-answer", &[]),
        BackendError::NoUser => text(language, "backend-no-user", &[]),
        BackendError::Identity(reason) => text(
            language,
            "backend-identity",
            &[("reason", reason.as_str().into())],
        ),
        BackendError::Settings(reason) => text(
            language,
            "backend-settings",
            &[("reason", reason.as_str().into())],
        ),
        BackendError::Unavailable(_) | BackendError::InvalidData { .. } => text(
            language,
            "backend-unavailable",
            &[("error", error.to_string().into())],
        ),
    };
    (refusal, text)
}

/// What an S/4HANA call was about ("sales order 4711"), named in
/// `language`; the English is the backend's own ([`crate::backend::Subject`]'s
/// `Display`, which the logs and errors keep).
pub fn subject(language: Language, subject: &crate::backend::Subject) -> String {
    match subject.message() {
        (id, Some(value)) => text(language, id, &[("id", value.into())]),
        (id, None) => text(language, id, &[]),
    }
}

/// "a, b or c" in `language`.
pub fn or_list(language: Language, items: &[&str]) -> String {
    list(language, "or-pair", items)
}

/// "a, b and c" in `language`.
pub fn and_list(language: Language, items: &[&str]) -> String {
    list(language, "and-pair", items)
}

fn list(language: Language, pair: &str, items: &[&str]) -> String {
    match items {
        [] => String::new(),
        [one] => one.to_string(),
        [init @ .., last] => text(
            language,
            pair,
            &[("left", init.join(", ").into()), ("right", (*last).into())],
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use fluent_syntax::ast;
    use std::collections::{BTreeMap, BTreeSet};

    /// Every variable a pattern names, selectors and variants included.
    fn variables(pattern: &ast::Pattern<&str>, into: &mut BTreeSet<String>) {
        for element in &pattern.elements {
            if let ast::PatternElement::Placeable { expression } = element {
                expression_variables(expression, into);
            }
        }
    }

    fn expression_variables(expression: &ast::Expression<&str>, into: &mut BTreeSet<String>) {
        match expression {
            ast::Expression::Inline(inline) => inline_variables(inline, into),
            ast::Expression::Select { selector, variants } => {
                inline_variables(selector, into);
                for variant in variants {
                    variables(&variant.value, into);
                }
            }
        }
    }

    fn inline_variables(inline: &ast::InlineExpression<&str>, into: &mut BTreeSet<String>) {
        match inline {
            ast::InlineExpression::VariableReference { id } => {
                into.insert(id.name.to_string());
            }
            ast::InlineExpression::Placeable { expression } => {
                expression_variables(expression, into)
            }
            ast::InlineExpression::FunctionReference { arguments, .. } => {
                for argument in &arguments.positional {
                    inline_variables(argument, into);
                }
            }
            // A message it names is formatted with the same arguments:
            // its variables count (resolved in `messages`).
            ast::InlineExpression::MessageReference { id, .. } => {
                into.insert(format!("@{}", id.name));
            }
            _ => {}
        }
    }

    /// Each message of a catalog with the variables it names.
    fn messages(source: &str) -> BTreeMap<String, BTreeSet<String>> {
        let resource = match fluent_syntax::parser::parse(source) {
            Ok(resource) => resource,
            Err((_, errors)) => panic!("a catalog does not parse: {errors:?}"),
        };
        let mut found = BTreeMap::new();
        for entry in resource.body {
            if let ast::Entry::Message(message) = entry {
                let mut names = BTreeSet::new();
                if let Some(value) = &message.value {
                    variables(value, &mut names);
                }
                let id = message.id.name.to_string();
                assert!(
                    found.insert(id.clone(), names).is_none(),
                    "{id} twice in one catalog"
                );
            }
        }
        // Replace each message reference by the variables of the message
        // it names, until none is left (references nest a few deep at most).
        for _ in 0..4 {
            let before = found.clone();
            for names in found.values_mut() {
                let references: Vec<String> = names
                    .iter()
                    .filter_map(|name| name.strip_prefix('@').map(str::to_string))
                    .collect();
                for reference in references {
                    names.remove(&format!("@{reference}"));
                    if let Some(theirs) = before.get(&reference) {
                        names.extend(theirs.iter().cloned());
                    }
                }
            }
        }
        found
    }

    #[test]
    fn every_catalog_parses_and_names_only_englishs_messages_and_variables() {
        let english = messages(SOURCES[0].1);
        assert!(english.len() > 50, "{}", english.len());
        assert_eq!(
            english.keys().cloned().collect::<Vec<_>>(),
            {
                let mut ids = message_ids(SOURCES[0].1);
                ids.sort();
                ids
            },
            "every message starts a line with its id"
        );
        for (language, source) in SOURCES {
            for (id, names) in messages(source) {
                // The one message only the fallback languages need.
                if id == "answers-in-english" {
                    continue;
                }
                let Some(english_names) = english.get(&id) else {
                    panic!("{language}: {id} is not an English message");
                };
                assert_eq!(&names, english_names, "{language}: the variables of {id}");
            }
        }
    }

    #[test]
    fn every_catalog_is_complete() {
        let english = messages(SOURCES[0].1);
        for (language, source) in &SOURCES[1..] {
            let catalog = messages(source);
            let missing: Vec<_> = english
                .keys()
                .filter(|id| *id != "answers-in-english" && !catalog.contains_key(*id))
                .collect();
            assert!(missing.is_empty(), "{language:?} lacks {missing:?}");
        }
        for language in Language::ALL {
            assert!(complete(language), "{language:?}");
            assert_eq!(answering(language), language, "{language:?}");
        }
    }

    #[test]
    fn arguments_go_in_without_isolation_marks() {
        let text = text(Language::De, "not-found", &[("order", "4799".into())]);
        assert!(text.contains("4799"), "{text}");
        assert!(!text.contains(['\u{2068}', '\u{2069}']), "{text:?}");
        assert_eq!(
            super::text(Language::En, "not-found", &[("order", "4799".into())]),
            "Sales order 4799 not found. Please check the number."
        );
    }

    /// The catalog's English of a failed read is the source's own, word
    /// for word; every other language has its own.
    #[test]
    fn failed_reads_in_every_language() {
        use crate::backend::BackendError;
        for error in [
            BackendError::Forbidden(crate::backend::Subject::SalesOrder("4711".into())),
            BackendError::NoAnswer("timeout".into()),
            BackendError::NoUser,
            BackendError::Identity("expired".into()),
            BackendError::Settings("no destination".into()),
            BackendError::Unavailable("down".into()),
        ] {
            let english = error.for_the_user();
            let ids = [
                "backend-forbidden",
                "backend-no-answer",
                "backend-no-user",
                "backend-identity",
                "backend-settings",
                "backend-unavailable",
            ];
            let args: [(&str, FluentValue<'_>); 3] = [
                ("what", "sales order 4711".into()),
                ("reason", error_reason(&error).into()),
                ("error", error.to_string().into()),
            ];
            assert!(
                ids.iter()
                    .any(|id| text(Language::En, id, &args) == english.1),
                "{error:?}: {}",
                english.1
            );
            assert_eq!(backend_error(&error, Language::En), english);
            for language in [Language::De, Language::Fr, Language::Es] {
                let (refusal, theirs) = backend_error(&error, language);
                assert_eq!(refusal, english.0, "{language:?}");
                assert_ne!(theirs, english.1, "{language:?}");
            }
        }
    }

    /// Every subject a refusal can name reads in English as the backend's
    /// errors and logs word it, and in every complete catalog in words of
    /// its own that keep the number.
    #[test]
    fn every_subject_is_named_in_each_complete_language() {
        for subject in crate::backend::Subject::examples() {
            assert_eq!(super::subject(Language::En, &subject), subject.to_string());
            for language in Language::ALL {
                if language == Language::En || !complete(language) {
                    continue;
                }
                let named = super::subject(language, &subject);
                assert_ne!(named, subject.to_string(), "{language:?}");
                if let (_, Some(id)) = subject.message() {
                    assert!(named.contains(id), "{language:?}: {named}");
                }
            }
        }
    }

    fn error_reason(error: &crate::backend::BackendError) -> String {
        match error {
            crate::backend::BackendError::Identity(reason)
            | crate::backend::BackendError::Settings(reason) => reason.clone(),
            _ => String::new(),
        }
    }

    #[test]
    fn an_unknown_id_is_its_own_text() {
        assert_eq!(
            text(Language::De, "no-such-message", &[]),
            "no-such-message"
        );
    }

    /// Each select of a pattern: its selector's variable and its variants'
    /// keys, the default marked `*`, nested selects included.
    fn selects(pattern: &ast::Pattern<&str>, into: &mut Vec<String>) {
        for element in &pattern.elements {
            if let ast::PatternElement::Placeable {
                expression: ast::Expression::Select { selector, variants },
            } = element
            {
                let mut names = BTreeSet::new();
                inline_variables(selector, &mut names);
                let keys: Vec<String> = variants
                    .iter()
                    .map(|variant| {
                        let key = match &variant.key {
                            ast::VariantKey::Identifier { name } => name.to_string(),
                            ast::VariantKey::NumberLiteral { value } => value.to_string(),
                        };
                        if variant.default {
                            format!("*{key}")
                        } else {
                            key
                        }
                    })
                    .collect();
                into.push(format!("{names:?} -> {keys:?}"));
                for variant in variants {
                    selects(&variant.value, into);
                }
            }
        }
    }

    /// Each message of a catalog with its selects.
    fn message_selects(source: &str) -> BTreeMap<String, Vec<String>> {
        let resource = match fluent_syntax::parser::parse(source) {
            Ok(resource) => resource,
            Err((_, errors)) => panic!("a catalog does not parse: {errors:?}"),
        };
        resource
            .body
            .iter()
            .filter_map(|entry| match entry {
                ast::Entry::Message(message) => {
                    let mut found = Vec::new();
                    if let Some(value) = &message.value {
                        selects(value, &mut found);
                    }
                    Some((message.id.name.to_string(), found))
                }
                _ => None,
            })
            .collect()
    }

    /// Spanish is complete like German: every message of English's, with
    /// its selects and plurals, and none of the fallback's sentence.
    #[test]
    fn spanish_is_complete_with_englishs_selects() {
        assert_eq!(SOURCES[3].0, Language::Es);
        let english = messages(SOURCES[0].1);
        let spanish = messages(SOURCES[3].1);
        let missing: Vec<_> = english
            .keys()
            .filter(|id| !spanish.contains_key(*id))
            .collect();
        assert!(missing.is_empty(), "Spanish lacks {missing:?}");
        assert!(
            !spanish.contains_key("answers-in-english"),
            "a complete catalog never says it answers in English"
        );
        let englishs_selects = message_selects(SOURCES[0].1);
        assert!(
            englishs_selects["caller-roles"]
                .first()
                .is_some_and(|select| select.contains("*other")),
            "{englishs_selects:?}"
        );
        assert_eq!(
            message_selects(SOURCES[3].1),
            englishs_selects,
            "Spanish selects on what English selects on, with its variants"
        );
        assert_eq!(
            text(Language::Es, "not-found", &[("order", "4799".into())]),
            "No se ha encontrado el pedido de cliente 4799. Compruebe el número."
        );
        assert_eq!(
            text(
                Language::Es,
                "batch-explained",
                &[("done", 1.into()), ("total", 1.into())]
            ),
            "1 de 1 pedido explicado"
        );
        assert_eq!(
            text(
                Language::Es,
                "caller-roles",
                &[("count", 2.into()), ("roles", "ar_clerk, viewer".into())]
            ),
            "los roles ar_clerk, viewer"
        );
    }
}
