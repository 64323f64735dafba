//! The corpus vocabulary files (`data/topics.json`, `data/phrases.json`) parse and hold
//! what the generator needs: a malformed or incomplete file fails here, not in a sandbox.

use std::collections::{HashMap, HashSet};

use crate::service::corpus::phrases::{phrases, Phrases, Slots};
use crate::service::corpus::topics::parse_topics;
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

/// `data/topics.json` with `edit` applied to its list of topics, parsed as the sandbox does.
fn topics_edited(edit: impl FnOnce(&mut Vec<serde_json::Value>)) -> Result<Vec<Topic>, String> {
    let mut topics: Vec<serde_json::Value> = serde_json::from_str(include_str!("../../../data/topics.json")).unwrap();
    edit(&mut topics);
    parse_topics(serde_json::to_string(&topics).unwrap().leak())
}

/// Each topic's neighbours, by id.
fn neighbour_ids(topics: &[Topic]) -> HashMap<&str, Vec<&str>> {
    let ids = |t: &Topic| t.neighbours.iter().map(|&n| topics[usize::from(n)].id).collect();
    topics.iter().map(|t| (t.id, ids(t))).collect()
}

#[test]
fn neighbours_follow_ids_not_positions() {
    let reordered = topics_edited(|topics| topics.rotate_left(3)).unwrap();
    assert_eq!(reordered[0].id, TOPICS[3].id);
    assert_eq!(neighbour_ids(&reordered), neighbour_ids(&TOPICS));
}

#[test]
fn a_neighbour_that_names_no_topic_fails_naming_it() {
    let missing = "https://sandbox.paperlens.dev/topics/T99999";
    let err = topics_edited(|topics| topics[2]["neighbours"][0] = missing.into()).err();
    let named = format!("topic {} names the neighbour {missing}, which is no topic", TOPICS[2].id);
    assert_eq!(err, Some(named));
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
