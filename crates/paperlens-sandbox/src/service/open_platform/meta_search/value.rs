//! Field values of records, borrowed from the corpus: serialized straight into the
//! response (no intermediate JSON tree) and iterated as scalars by filters and facets.

use serde::ser::{SerializeMap, SerializeSeq};
use serde::{Serialize, Serializer};

use crate::service::corpus::{CitationPercentile, Corpus, Date, Paper, PercentileRange, TopicScore};

/// Items of relation arrays returned inside a record (the rest via `/meta-paper-relations`).
pub const RELATION_ARRAY_LIMIT: usize = 25;

#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Scalar<'a> {
    Str(&'a str),
    Int(i64),
    Float(f64),
    Bool(bool),
    Date(Date),
}

impl Scalar<'_> {
    /// Numeric view used by ranges and sorting (dates as yyyymmdd).
    pub fn number(&self) -> Option<f64> {
        match self {
            Scalar::Int(i) => Some(*i as f64),
            Scalar::Float(f) => Some(*f),
            Scalar::Date(d) => Some(d.packed() as f64),
            _ => None,
        }
    }
}

impl Serialize for Scalar<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Scalar::Str(v) => s.serialize_str(v),
            Scalar::Int(v) => s.serialize_i64(*v),
            Scalar::Float(v) => s.serialize_f64(*v),
            Scalar::Bool(v) => s.serialize_bool(*v),
            Scalar::Date(d) => s.serialize_str(&d.iso()),
        }
    }
}

pub enum Value<'a> {
    Absent,
    One(Scalar<'a>),
    Strs(&'a [String]),
    StaticStrs(&'a [&'static str]),
    Scalars(Vec<Scalar<'a>>),
    Authors(&'a Corpus, &'a [u32]),
    /// Paper indexes, written as their unique ids.
    PaperIds(&'a Corpus, &'a [u32]),
    /// Corpus references as unique ids, then external ones as DOIs.
    References(&'a Corpus, &'a Paper),
    Citations(&'a Corpus, &'a [u32]),
    Locations(&'a Corpus, &'a Paper),
    Topic(&'a TopicScore),
    Topics(&'a [TopicScore]),
    Percentile(&'a CitationPercentile),
    Range(&'a PercentileRange),
}

impl<'a> Value<'a> {
    pub fn str(value: &'a str) -> Value<'a> {
        Value::One(Scalar::Str(value))
    }

    pub fn opt(value: &'a Option<String>) -> Value<'a> {
        value.as_deref().map_or(Value::Absent, Value::str)
    }

    pub fn int(value: impl Into<i64>) -> Value<'a> {
        Value::One(Scalar::Int(value.into()))
    }

    /// Zero values (`""`, 0, false, empty arrays, absent) are left out of records.
    pub fn is_zero(&self) -> bool {
        match self {
            Value::Absent => true,
            Value::One(Scalar::Str(s)) => s.is_empty(),
            Value::One(Scalar::Int(i)) => *i == 0,
            Value::One(Scalar::Float(f)) => *f == 0.0,
            Value::One(Scalar::Bool(b)) => !b,
            Value::One(Scalar::Date(_)) => false,
            Value::Strs(v) => v.is_empty(),
            Value::StaticStrs(v) => v.is_empty(),
            Value::Scalars(v) => v.is_empty(),
            Value::Authors(_, v) | Value::PaperIds(_, v) | Value::Citations(_, v) => v.is_empty(),
            Value::References(_, p) => p.reference_count() == 0,
            Value::Topics(v) => v.is_empty(),
            Value::Locations(..) | Value::Topic(_) | Value::Percentile(_) | Value::Range(_) => false,
        }
    }

    /// Calls `f` on each scalar until it returns true; tells whether one did.
    pub fn any(&self, mut f: impl FnMut(Scalar<'a>) -> bool) -> bool {
        match self {
            Value::One(s) => f(*s),
            Value::Strs(v) => v.iter().any(|s| f(Scalar::Str(s))),
            Value::StaticStrs(v) => v.iter().any(|s| f(Scalar::Str(s))),
            Value::Scalars(v) => v.iter().any(|s| f(*s)),
            Value::Authors(corpus, ids) => ids.iter().any(|&a| f(Scalar::Str(&corpus.authors[a as usize].name))),
            Value::PaperIds(corpus, ids) => ids.iter().any(|&p| f(Scalar::Str(&corpus.papers[p as usize].unique_id))),
            _ => false,
        }
    }
}

impl Serialize for Value<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Value::Absent => s.serialize_none(),
            Value::One(v) => v.serialize(s),
            Value::Strs(v) => v.serialize(s),
            Value::StaticStrs(v) => v.serialize(s),
            Value::Scalars(v) => v.serialize(s),
            Value::Authors(corpus, ids) => s.collect_seq(ids.iter().map(|&a| {
                let author = &corpus.authors[a as usize];
                AuthorRef { name: &author.name, orcid: &author.orcid }
            })),
            Value::PaperIds(corpus, ids) => s.collect_seq(
                ids.iter().take(RELATION_ARRAY_LIMIT).map(|&p| corpus.papers[p as usize].unique_id.as_str()),
            ),
            Value::References(corpus, paper) => {
                let total = (paper.reference_count() as usize).min(RELATION_ARRAY_LIMIT);
                let mut seq = s.serialize_seq(Some(total))?;
                for &r in paper.references.iter().take(total) {
                    seq.serialize_element(&corpus.papers[r as usize].unique_id)?;
                }
                for doi in corpus.external_dois(paper).iter().take(total.saturating_sub(paper.references.len())) {
                    seq.serialize_element(doi)?;
                }
                seq.end()
            }
            Value::Citations(corpus, ids) => s.collect_seq(ids.iter().take(RELATION_ARRAY_LIMIT).map(|&p| {
                let citing = &corpus.papers[p as usize];
                CitationRef {
                    unique_id: &citing.unique_id,
                    title: &citing.title,
                    doi: citing.doi.as_deref(),
                    publication_published_year: citing.date.year,
                }
            })),
            Value::Locations(corpus, paper) => {
                let source = &corpus.sources[paper.venue as usize];
                let access = &paper.open_access;
                let mut seq = s.serialize_seq(None)?;
                seq.serialize_element(&Location {
                    source_name: &source.name,
                    landing_page_url: format!("https://sandbox.paperlens.dev/works/{}", paper.unique_id),
                    pdf_url: access.url.as_deref(),
                    is_oa: access.is_oa,
                    license: access.license,
                    version: if access.is_oa { "publishedVersion" } else { "" },
                })?;
                seq.end()
            }
            Value::Topic(t) => TopicOut(t).serialize(s),
            Value::Topics(v) => s.collect_seq(v.iter().map(TopicOut)),
            Value::Percentile(p) => {
                let mut map = s.serialize_map(Some(3))?;
                map.serialize_entry("value", &p.value)?;
                map.serialize_entry("is_in_top_10_percent", &p.is_in_top_10_percent)?;
                map.serialize_entry("is_in_top_1_percent", &p.is_in_top_1_percent)?;
                map.end()
            }
            Value::Range(r) => {
                let mut map = s.serialize_map(Some(2))?;
                map.serialize_entry("min", &r.min)?;
                map.serialize_entry("max", &r.max)?;
                map.end()
            }
        }
    }
}

#[derive(Serialize)]
struct AuthorRef<'a> {
    name: &'a str,
    orcid: &'a str,
}

#[derive(Serialize)]
struct CitationRef<'a> {
    unique_id: &'a str,
    title: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    doi: Option<&'a str>,
    publication_published_year: u16,
}

#[derive(Serialize)]
struct Location<'a> {
    source_name: &'a str,
    landing_page_url: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pdf_url: Option<&'a str>,
    is_oa: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    license: Option<&'static str>,
    #[serde(skip_serializing_if = "str::is_empty")]
    version: &'static str,
}

struct TopicOut<'a>(&'a TopicScore);

impl Serialize for TopicOut<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let topic = self.0.topic();
        let mut map = s.serialize_map(Some(6))?;
        map.serialize_entry("id", topic.id)?;
        map.serialize_entry("display_name", topic.display_name)?;
        map.serialize_entry("score", &topic_score(self.0))?;
        map.serialize_entry("subfield", &Named { display_name: topic.subfield })?;
        map.serialize_entry("field", &Named { display_name: topic.field })?;
        map.serialize_entry("domain", &Domain { id: topic.domain.id(), display_name: topic.domain.display_name() })?;
        map.end()
    }
}

#[derive(Serialize)]
struct Named {
    display_name: &'static str,
}

#[derive(Serialize)]
struct Domain {
    id: &'static str,
    display_name: &'static str,
}

/// A topic score as records show it (4 decimals), also the value filters compare.
pub fn topic_score(topic: &TopicScore) -> f64 {
    (topic.score as f64 * 10_000.0).round() / 10_000.0
}
