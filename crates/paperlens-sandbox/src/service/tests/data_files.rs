//! The corpus vocabulary files (`data/topics.json`, `data/phrases.json`) parse and hold
//! what the generator needs: a malformed or incomplete file fails here, not in a sandbox.

use std::collections::HashSet;

use crate::service::corpus::phrases::{phrases, Phrases, Slots};
use crate::service::corpus::{Language, Topic, TOPICS};

/// The placeholders of a paper's focus, filled in titles, abstracts and anchor sentences.
const FOCUS: [&str; 9] = ["a", "b", "m", "m2", "d", "k", "p", "x", "f"];

#[test]
fn topics_have_unique_ids_and_names() {
    for key in [|t: &Topic| t.id, |t: &Topic| t.display_name, |t: &Topic| t.venue_stem] {
        let values: HashSet<&str> = TOPICS.iter().map(key).collect();
        assert_eq!(values.len(), TOPICS.len());
    }
    for topic in TOPICS.iter() {
        assert!(topic.id.starts_with("https://sandbox.paperlens.dev/topics/T"), "{}", topic.id);
        assert!(![topic.display_name, topic.subfield, topic.field, topic.venue_stem].contains(&""), "{}", topic.id);
    }
}

#[test]
fn topics_have_every_list_the_generator_draws_from() {
    for topic in TOPICS.iter() {
        let lists = [
            (&topic.terms, 2),
            (&topic.zh, 2),
            (&topic.ja, 2),
            (&topic.ko, 2),
            (&topic.methods, 1),
            (&topic.datasets, 1),
            (&topic.metrics, 1),
            (&topic.problems, 1),
        ];
        for (list, least) in lists {
            // Two distinct terms make a pair; a paper's focus keeps each index in a u8.
            assert!((least..=usize::from(u8::MAX)).contains(&list.len()), "{}: {list:?}", topic.id);
            assert_eq!(list.iter().collect::<HashSet<_>>().len(), list.len(), "{}: {list:?}", topic.id);
            assert!(!list.contains(&""), "{}: {list:?}", topic.id);
        }
    }
}

#[test]
fn phrases_fill_only_known_placeholders() {
    let filler = [&FOCUS[..], &["n", "who"]].concat();
    let figure = [&FOCUS[..], &["i"]].concat();
    for language in [Language::En, Language::Zh, Language::Ja, Language::Ko] {
        let words: &Phrases = phrases(language);
        for fixed in words.sections.iter().chain([&words.abstract_heading, &words.appendix]) {
            assert_placeholders(fixed, &[]);
        }
        for template in [words.problem, words.method, words.dataset, words.finding].iter().chain(&words.titles) {
            assert_placeholders(template, &FOCUS);
        }
        for template in &words.abstract_opening {
            assert_placeholders(template, &FOCUS);
        }
        assert_placeholders(words.figure, &figure);
        assert_placeholders(words.supplement, &["path"]);
        assert_eq!(placeholders(words.supplement), ["path"]);
        assert!(!words.titles.is_empty() && !words.abstract_opening.is_empty() && !words.filler.is_empty());
        for section in &words.filler {
            assert!(!section.is_empty(), "{language:?}");
            for template in section {
                assert_placeholders(template, &filler);
            }
        }
    }
}

/// The placeholder names of `template`, lowercase (`{P}` is `{p}` capitalised).
fn placeholders(template: &str) -> Vec<String> {
    let closed = |rest: &str| rest.split_once('}').map(|(name, _)| name.to_ascii_lowercase());
    template
        .split('{')
        .skip(1)
        .map(|rest| closed(rest).unwrap_or_else(|| panic!("unclosed {{ in {template:?}")))
        .collect()
}

fn assert_placeholders(template: &str, allowed: &[&str]) {
    assert!(!template.is_empty());
    for name in placeholders(template) {
        assert!(Slots::default().value(&name).is_some(), "unknown placeholder {{{name}}} in {template:?}");
        assert!(allowed.contains(&name.as_str()), "{{{name}}} is not filled where {template:?} is used");
    }
}
