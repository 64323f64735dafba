//! The `filters` object of `/agentic-search`: validated strictly, then applied per paper.

use paperlens_core::contract::{AGENTIC_FILTER_KEYS, RANGE_PAIR, TOPIC_DOMAINS, TOPIC_LOGIC};
use serde_json::Value;

use super::super::meta_search::filters::parse_partial_date;
use super::super::params::Fields;
use crate::service::corpus::{Corpus, Domain, Paper, VenueType};
use crate::service::error::Result;

/// Inclusive or exclusive bounds on a number (dates as yyyymmdd).
#[derive(Debug, Clone, Copy, Default)]
pub struct Bounds {
    lower: Option<(f64, bool)>,
    upper: Option<(f64, bool)>,
}

impl Bounds {
    fn contains(&self, x: f64) -> bool {
        let above = self.lower.is_none_or(|(v, inclusive)| if inclusive { x >= v } else { x > v });
        let below = self.upper.is_none_or(|(v, inclusive)| if inclusive { x <= v } else { x < v });
        above && below
    }
}

#[derive(Debug, Clone, Default)]
pub struct TopicFilter {
    all: bool,
    topic: Option<String>,
    domain: Option<Domain>,
}

#[derive(Debug, Clone, Default)]
pub struct AgenticFilters {
    languages: Vec<String>,
    title: Option<String>,
    authors: Vec<String>,
    venue: Option<String>,
    venue_type: Option<VenueType>,
    date: Option<Bounds>,
    year: Option<Bounds>,
    citations: Option<Bounds>,
    influential: Option<Bounds>,
    topics: Option<TopicFilter>,
}

/// One bound value of a date filter: the period a partial date covers.
fn date_period(fields: &Fields<'_>, name: &str, value: &Value) -> Result<(f64, f64)> {
    let text = value.as_str().ok_or_else(|| {
        fields.invalid(name, format!("must be a date string yyyy, yyyy-MM or yyyy-MM-dd (got {value})"))
    })?;
    let (lo, hi) = parse_partial_date(text)
        .ok_or_else(|| fields.invalid(name, format!("must match ^\\d{{4}}(-\\d{{2}})?(-\\d{{2}})?$ (got '{text}')")))?;
    Ok((lo as f64, hi as f64))
}

fn number(fields: &Fields<'_>, name: &str, value: &Value, strings_allowed: bool) -> Result<f64> {
    let parsed = match value {
        Value::Number(n) => n.as_f64(),
        Value::String(s) if strings_allowed => s.trim().parse::<f64>().ok(),
        _ => None,
    };
    parsed.filter(|n| n.is_finite()).ok_or_else(|| fields.invalid(name, format!("must be a number (got {value})")))
}

/// A date or number filter value: a single value, a range object or a 2-array.
fn bounds(fields: &Fields<'_>, name: &str, dates: bool) -> Result<Option<Bounds>> {
    let Some(value) = fields.get(name) else {
        return Ok(None);
    };
    let period = |field: &str, v: &Value, strings: bool| -> Result<(f64, f64)> {
        if dates {
            date_period(fields, field, v)
        } else {
            number(fields, field, v, strings).map(|n| (n, n))
        }
    };
    let result = match value {
        Value::Object(map) => {
            let range = Fields::new(map, &fields.name(name), fields.dialect);
            range.allow_only(&["gt", "gte", "lt", "lte"])?;
            let mut b = Bounds::default();
            for (key, v) in map.iter().filter(|(_, v)| !v.is_null()) {
                let (lo, hi) = if dates { date_period(&range, key, v)? } else { period(&range.name(key), v, true)? };
                match key.as_str() {
                    "gt" => b.lower = Some((hi, false)),
                    "gte" => b.lower = Some((lo, true)),
                    "lt" => b.upper = Some((lo, false)),
                    _ => b.upper = Some((hi, true)),
                }
            }
            b
        }
        Value::Array(items) => {
            if !RANGE_PAIR.contains(items.len()) {
                let (n, got) = (RANGE_PAIR.max, items.len());
                return Err(
                    fields.invalid(name, format!("as an array must have exactly {n} items [from, to] (got {got})"))
                );
            }
            let mut b = Bounds::default();
            if !items[0].is_null() {
                b.lower = Some((period(name, &items[0], false)?.0, true));
            }
            if !items[1].is_null() {
                b.upper = Some((period(name, &items[1], false)?.1, true));
            }
            b
        }
        single => {
            let (lo, hi) = period(name, single, false)?;
            Bounds { lower: Some((lo, true)), upper: Some((hi, true)) }
        }
    };
    Ok(Some(result))
}

impl AgenticFilters {
    pub fn parse(fields: &Fields<'_>) -> Result<AgenticFilters> {
        fields.allow_only(&AGENTIC_FILTER_KEYS)?;
        let mut filters = AgenticFilters::default();
        for name in ["lang", "language"] {
            if let Some(code) = fields.string(name)? {
                filters.languages.push(code.trim().to_ascii_lowercase());
            }
        }
        filters.title = fields.string("title")?.map(|t| t.trim().to_lowercase());
        filters.authors = match fields.get("author") {
            None => Vec::new(),
            Some(Value::String(s)) => vec![s.trim().to_lowercase()],
            Some(Value::Array(items)) => items
                .iter()
                .map(|v| v.as_str().map(|s| s.trim().to_lowercase()))
                .collect::<Option<Vec<_>>>()
                .ok_or_else(|| fields.invalid("author", "must be a string or an array of strings"))?,
            Some(_) => return Err(fields.invalid("author", "must be a string or an array of strings")),
        };
        filters.venue = fields.string("publication_venue_name_unified")?.map(|v| v.trim().to_lowercase());
        if let Some(kind) = fields.string("publication_venue_type")? {
            let names: Vec<&str> = VenueType::ALL.iter().map(|v| v.as_str()).collect();
            filters.venue_type = Some(VenueType::parse_case_insensitive(kind).ok_or_else(|| {
                fields.invalid(
                    "publication_venue_type",
                    format!("must be one of {} (case-insensitive; got '{kind}')", names.join(", ")),
                )
            })?);
        }
        filters.date = bounds(fields, "publication_published_date", true)?;
        filters.year = bounds(fields, "publication_published_year", false)?;
        filters.citations = bounds(fields, "citation_count", false)?;
        filters.influential = bounds(fields, "influential_citation_count", false)?;
        if let Some(topics) = fields.object("topics")? {
            topics.allow_only(&["logic", "dimensions"])?;
            let all = topics.one_of("logic", &TOPIC_LOGIC)? == Some("and");
            let mut filter = TopicFilter { all, ..TopicFilter::default() };
            if let Some(dimensions) = topics.object("dimensions")? {
                dimensions.allow_only(&["primary_topic", "primary_topic_domain"])?;
                filter.topic = dimensions.string("primary_topic")?.map(|t| t.trim().to_lowercase());
                filter.domain =
                    dimensions.one_of("primary_topic_domain", &TOPIC_DOMAINS)?.and_then(Domain::from_display_name);
            }
            filters.topics = Some(filter);
        }
        Ok(filters)
    }

    pub fn accepts(&self, corpus: &Corpus, paper: &Paper) -> bool {
        let language = paper.language.code();
        if !self.languages.iter().all(|l| l == language) {
            return false;
        }
        if self.title.as_ref().is_some_and(|t| paper.title.trim().to_lowercase() != *t) {
            return false;
        }
        if !self.authors.is_empty()
            && !paper.authors.iter().any(|&a| self.authors.contains(&corpus.authors[a as usize].name.to_lowercase()))
        {
            return false;
        }
        let source = &corpus.sources[paper.venue as usize];
        if self.venue.as_ref().is_some_and(|v| source.name.to_lowercase() != *v) {
            return false;
        }
        if self.venue_type.is_some_and(|t| t != source.venue_type) {
            return false;
        }
        let checks = [
            (self.date, paper.date.packed() as f64),
            (self.year, paper.date.year as f64),
            (self.citations, paper.citation_count() as f64),
            (self.influential, paper.influential_citation_count as f64),
        ];
        if checks.iter().any(|(b, x)| b.is_some_and(|b| !b.contains(*x))) {
            return false;
        }
        self.topics.as_ref().is_none_or(|t| t.accepts(paper))
    }

    pub fn is_empty(&self) -> bool {
        self.languages.is_empty()
            && self.title.is_none()
            && self.authors.is_empty()
            && self.venue.is_none()
            && self.venue_type.is_none()
            && self.date.is_none()
            && self.year.is_none()
            && self.citations.is_none()
            && self.influential.is_none()
            && self.topics.is_none()
    }
}

impl TopicFilter {
    fn accepts(&self, paper: &Paper) -> bool {
        let topic = paper.primary_topic();
        let mut results = Vec::new();
        if let Some(name) = &self.topic {
            results.push(topic.display_name.to_lowercase() == *name || topic.id.to_lowercase() == *name);
        }
        if let Some(domain) = self.domain {
            results.push(topic.domain == domain);
        }
        if results.is_empty() {
            return true;
        }
        if self.all {
            results.iter().all(|r| *r)
        } else {
            results.iter().any(|r| *r)
        }
    }
}
