//! Sources (venues) of every venue type of the spec: per topic, per domain and global.

use super::ids::issn;
use super::model::{Language, Source, VenueType};
use super::names::{PLACES, PUBLISHERS};
use super::topics::{Domain, TOPICS};
use crate::service::rng::Rng;

/// The sources and, per purpose, which of them a paper may appear in.
pub struct Venues {
    pub sources: Vec<Source>,
    pub journals: Vec<[u32; 2]>,
    pub conferences: Vec<u32>,
    pub book_series: Vec<u32>,
    pub repositories: Vec<u32>,
    pub ebook_platforms: Vec<u32>,
    /// Venues of the rare types: metadata, raidRegistry, igsnCatalog, other.
    pub rare: Vec<u32>,
    pub cjk_journals: Vec<(Language, u32)>,
}

impl Venues {
    pub fn generate(seed: u64) -> Venues {
        let mut rng = Rng::new(&[seed, 0x7665_6e75]);
        let mut venues = Venues {
            sources: Vec::new(),
            journals: Vec::new(),
            conferences: Vec::new(),
            book_series: Vec::new(),
            repositories: Vec::new(),
            ebook_platforms: Vec::new(),
            rare: Vec::new(),
            cjk_journals: Vec::new(),
        };
        for (t, topic) in TOPICS.iter().enumerate() {
            let stem = topic.venue_stem;
            let topic = Some(t as u8);
            let a = venues.add(
                &mut rng,
                format!("Journal of {stem}"),
                VenueType::Journal,
                topic,
            );
            let b = venues.add(
                &mut rng,
                format!("{stem} Letters"),
                VenueType::Journal,
                topic,
            );
            venues.journals.push([a, b]);
            let c = venues.add(
                &mut rng,
                format!("International Conference on {stem}"),
                VenueType::Conference,
                topic,
            );
            venues.conferences.push(c);
            let s = venues.add(
                &mut rng,
                format!("Lecture Notes in {stem}"),
                VenueType::BookSeries,
                topic,
            );
            venues.book_series.push(s);
        }
        for (domain, name) in [
            (Domain::Physical, "arXiv"),
            (Domain::Social, "SSRN Electronic Journal"),
            (Domain::Health, "medRxiv"),
            (Domain::Life, "bioRxiv"),
        ] {
            debug_assert_eq!(venues.repositories.len(), domain as usize);
            let r = venues.add(&mut rng, name.to_string(), VenueType::Repository, None);
            venues.repositories.push(r);
        }
        for name in ["SpringerLink eBooks", "De Gruyter eBook Collection"] {
            let e = venues.add(&mut rng, name.to_string(), VenueType::EbookPlatform, None);
            venues.ebook_platforms.push(e);
        }
        for (name, kind) in [
            ("Crossref Metadata Records", VenueType::Metadata),
            ("RAiD Research Activity Registry", VenueType::RaidRegistry),
            ("SESAR IGSN Sample Catalog", VenueType::IgsnCatalog),
            ("Institutional Technical Reports", VenueType::Other),
        ] {
            let v = venues.add(&mut rng, name.to_string(), kind, None);
            venues.rare.push(v);
        }
        for (language, name) in [
            (Language::Zh, "中国科学学报"),
            (Language::Ja, "日本学術論文誌"),
            (Language::Ko, "한국과학기술학회지"),
        ] {
            let v = venues.add(&mut rng, name.to_string(), VenueType::Journal, None);
            venues.cjk_journals.push((language, v));
        }
        venues
    }

    fn add(
        &mut self,
        rng: &mut Rng,
        name: String,
        venue_type: VenueType,
        topic: Option<u8>,
    ) -> u32 {
        let index = self.sources.len() as u32;
        let mut issns = vec![issn(1_000_000 + rng.below(8_999_999) as u64)];
        if rng.chance(0.6) {
            issns.push(issn(1_000_000 + rng.below(8_999_999) as u64));
        }
        let slug: String = name
            .chars()
            .filter(|c| c.is_ascii_alphanumeric())
            .collect::<String>()
            .to_ascii_lowercase();
        let slug = if slug.is_empty() {
            format!("source{index}")
        } else {
            slug
        };
        self.sources.push(Source {
            index,
            homepage_url: format!("https://venues.sandbox.paperlens.dev/{slug}"),
            name,
            venue_type,
            issns,
            publisher: rng.pick(PUBLISHERS),
            country: rng.pick(PLACES).1,
            is_oa: matches!(venue_type, VenueType::Repository) || rng.chance(0.3),
            topic,
            works_count: 0,
            cited_by_count: 0,
        });
        index
    }
}
