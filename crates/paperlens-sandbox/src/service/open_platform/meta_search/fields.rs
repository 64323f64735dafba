//! The field tables of the three collections (`papers`, `authors`, `sources`): types,
//! abilities (filter, search, sort, default, projection) and how to read each field.

use super::value::{topic_score, Scalar, Value};
use crate::service::corpus::{Author, Corpus, Paper, Source};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FieldType {
    String,
    Integer,
    Boolean,
    Float,
    Date,
    ListString,
    ListObject,
    Object,
}

impl FieldType {
    pub fn as_str(self) -> &'static str {
        match self {
            FieldType::String => "String",
            FieldType::Integer => "Integer",
            FieldType::Boolean => "Boolean",
            FieldType::Float => "Float",
            FieldType::Date => "Date",
            FieldType::ListString => "List[string]",
            FieldType::ListObject => "List[object]",
            FieldType::Object => "Object",
        }
    }

    /// Catalog operator short names usable on this type.
    pub fn operators(self) -> &'static [&'static str] {
        match self {
            FieldType::Integer | FieldType::Float | FieldType::Date => {
                &["EQ", "NE", "GT", "GTE", "LT", "LTE", "IN", "NIN"]
            }
            FieldType::Boolean => &["EQ", "NE"],
            FieldType::String | FieldType::ListString | FieldType::ListObject => {
                &["EQ", "NE", "IN", "NIN", "CONTAINS", "MATCH", "MATCH_PHRASE"]
            }
            FieldType::Object => &[],
        }
    }
}

/// Abilities, as the columns F, S, O, D, P of the spec's table.
#[derive(Debug, Clone, Copy)]
pub struct Caps {
    pub filter: bool,
    pub search: bool,
    pub sort: bool,
    pub default: bool,
    pub project: bool,
}

const fn caps(code: &str) -> Caps {
    let b = code.as_bytes();
    Caps {
        filter: b[0] == b'F',
        search: b[1] == b'S',
        sort: b[2] == b'O',
        default: b[3] == b'D',
        project: b[4] == b'P',
    }
}

pub type Getter<R> = for<'a> fn(&'a Corpus, &'a R) -> Value<'a>;

pub struct FieldDef<R: 'static> {
    pub name: &'static str,
    pub ty: FieldType,
    pub caps: Caps,
    pub description: &'static str,
    /// Worth listing `sample_values` for (few distinct values).
    pub enumerable: bool,
    pub get: Getter<R>,
}

impl<R> FieldDef<R> {
    pub fn is_sub_field(&self) -> bool {
        self.name.contains('.')
    }
}

macro_rules! field {
    ($name:literal, $ty:ident, $caps:literal, $enumerable:literal, $desc:literal, $get:expr) => {
        FieldDef {
            name: $name,
            ty: FieldType::$ty,
            caps: caps($caps),
            description: $desc,
            enumerable: $enumerable,
            get: $get,
        }
    };
}

fn str_value<'a>(s: &'a str) -> Value<'a> {
    Value::One(Scalar::Str(s))
}

pub static PAPER_FIELDS: &[FieldDef<Paper>] = &[
    field!("doc_id", String, "F--DP", false, "Content hash (sha256) of the full-text artifact; present only when the document has full text. Required for /content.", |_, p| Value::opt(&p.doc_id)),
    field!("unique_id", String, "F--DP", false, "Global unique id of the metadata record; use it for citing, de-duplication and /meta-paper-relations.", |_, p| str_value(&p.unique_id)),
    field!("metadata_type", String, "F--DP", true, "paper for papers, ebook for books.", |_, p| str_value(p.metadata_type.as_str())),
    field!("title", String, "FS-DP", false, "Title.", |_, p| str_value(&p.title)),
    field!("abstract", String, "FS-DP", false, "Abstract or summary.", |_, p| str_value(&p.abstract_text)),
    field!("language", String, "F--DP", true, "Language code (en, zh, ja, ko, und).", |_, p| str_value(p.language.code())),
    field!("doi", String, "F--DP", false, "DOI.", |_, p| Value::opt(&p.doi)),
    field!("isbns", ListString, "F--DP", false, "ISBN list.", |_, p| Value::Strs(&p.isbns)),
    field!("isbn13", String, "F--DP", false, "13-digit ISBN.", |_, p| Value::opt(&p.isbn13)),
    field!("type", String, "F--DP", true, "Resource or document type.", |_, p| str_value(p.work_type)),
    field!("author", ListObject, "F--DP", false, "Author list (name, orcid). Filters match author names: exact with EQ, analysed with MATCH.", |c, p| Value::Authors(c, &p.authors)),
    field!("contributors", ListString, "F---P", false, "Editors, translators and similar.", |_, p| Value::Strs(&p.contributors)),
    field!("locations", ListObject, "---DP", false, "Access locations, links and open-access locations.", |c, p| Value::Locations(c, p)),
    field!("access_is_oa", String, "F--DP", true, "Open access or not (\"true\" / \"false\").", |_, p| str_value(if p.open_access.is_oa { "true" } else { "false" })),
    field!("access_oa_status", String, "F--DP", true, "Open access status.", |_, p| str_value(p.open_access.status)),
    field!("access_oa_url", String, "F--DP", false, "Open access URL.", |_, p| Value::opt(&p.open_access.url)),
    field!("access_license", String, "F--DP", true, "License.", |_, p| p.open_access.license.map_or(Value::Absent, str_value)),
    field!("publication_published_date", Date, "F-O-P", false, "Publication date (yyyy-MM-dd). About 19.6% of records carry January 1st as a year-only placeholder.", |_, p| Value::One(Scalar::Date(p.date))),
    field!("publication_published_year", Integer, "F-ODP", true, "Publication year.", |_, p| Value::int(p.date.year)),
    field!("publication_published_place", ListString, "F---P", true, "Place of publication.", |_, p| Value::StaticStrs(&p.places)),
    field!("publication_published_country", ListString, "F---P", true, "Country or region of publication.", |_, p| Value::StaticStrs(&p.countries)),
    field!("publication_venue_name_unified", String, "FS-DP", true, "Normalised venue name; preferred for exact matching and grouping.", |c, p| str_value(&c.sources[p.venue as usize].name)),
    field!("publication_venue_type", String, "F--DP", true, "Venue type.", |c, p| str_value(c.sources[p.venue as usize].venue_type.as_str())),
    field!("publication_venue_issn", ListString, "F--DP", false, "ISSN list.", |c, p| Value::Strs(&c.sources[p.venue as usize].issns)),
    field!("publication_publisher", ListString, "F--DP", true, "Publisher.", |c, p| Value::StaticStrs(std::slice::from_ref(&c.sources[p.venue as usize].publisher))),
    field!("publication_venue_biblio_volume", String, "F---P", false, "Volume.", |_, p| Value::opt(&p.volume)),
    field!("publication_venue_biblio_issue", String, "F---P", false, "Issue.", |_, p| Value::opt(&p.issue)),
    field!("publication_venue_biblio_pages", String, "F---P", false, "Page range.", |_, p| Value::opt(&p.pages)),
    field!("publication_pages", Integer, "F---P", false, "Total pages.", |_, p| Value::int(p.page_count)),
    field!("keywords", ListString, "FS-DP", false, "Keywords.", |_, p| Value::Strs(&p.keywords)),
    field!("primary_topic", Object, "----P", false, "Main topic (id, display_name, score, subfield, field, domain).", |_, p| Value::Topic(&p.topics[0])),
    field!("topics", ListObject, "----P", false, "Topic list.", |_, p| Value::Topics(&p.topics)),
    field!("subjects", ListString, "F---P", true, "Subject terms (books).", |_, p| Value::Strs(&p.subjects)),
    field!("genre", ListString, "F---P", true, "Carrier/type list (books).", |_, p| Value::StaticStrs(&p.genre)),
    field!("reference_count", Integer, "F-ODP", false, "Number of works this paper cites.", |_, p| Value::int(p.reference_count())),
    field!("citation_count", Integer, "F-ODP", false, "Number of times this paper is cited.", |_, p| Value::int(p.citation_count())),
    field!("influential_citation_count", Integer, "F-ODP", false, "Influential citations.", |_, p| Value::int(p.influential_citation_count)),
    field!("fwci", Float, "F-ODP", false, "Field-weighted citation impact.", |_, p| Value::One(Scalar::Float(p.fwci))),
    field!("references", ListString, "---DP", false, "Works cited by this paper (truncated to 25; all via /meta-paper-relations).", |c, p| Value::References(c, p)),
    field!("related_works", ListString, "---DP", false, "Related works (truncated to 25).", |c, p| Value::PaperIds(c, &p.related)),
    field!("citation_normalized_percentile", Object, "---DP", false, "Citation percentile within works of the same type, year and sub-field.", |_, p| Value::Percentile(&p.citation_normalized_percentile)),
    field!("cited_by_percentile_year", Object, "---DP", false, "Citation percentile within the same year; min/max range 0-100.", |_, p| Value::Range(&p.cited_by_percentile_year)),
    field!("citations", ListObject, "----P", false, "Works citing this paper, newest first (truncated to 25).", |c, p| Value::Citations(c, &p.cited_by)),
    field!("primary_topic.id", String, "F----", true, "Topic id (external URL form).", |_, p| str_value(p.topics[0].topic().id)),
    field!("primary_topic.display_name", String, "F----", true, "Exact match of topic name.", |_, p| str_value(p.topics[0].topic().display_name)),
    field!("primary_topic.score", Float, "F-O--", false, "Confidence 0-1.", |_, p| Value::One(Scalar::Float(topic_score(&p.topics[0])))),
    field!("primary_topic.domain.id", String, "F----", true, "Domain id.", |_, p| str_value(p.topics[0].topic().domain.id())),
    field!("primary_topic.domain.display_name", String, "F----", true, "Exact match of domain name.", |_, p| str_value(p.topics[0].topic().domain.display_name())),
    field!("topics.id", String, "F----", true, "Topic id (nested).", |_, p| Value::Scalars(p.topics.iter().map(|t| Scalar::Str(t.topic().id)).collect())),
    field!("topics.display_name", String, "F----", true, "Exact match (nested).", |_, p| Value::Scalars(p.topics.iter().map(|t| Scalar::Str(t.topic().display_name)).collect())),
    field!("topics.score", Float, "F-O--", false, "Confidence (nested).", |_, p| Value::Scalars(p.topics.iter().map(|t| Scalar::Float(topic_score(t))).collect())),
    field!("citation_normalized_percentile.value", Float, "F-O--", false, "0-1; 0.99 means top 1%.", |_, p| Value::One(Scalar::Float(p.citation_normalized_percentile.value))),
    field!("citation_normalized_percentile.is_in_top_10_percent", Boolean, "F----", true, "In the top 10%.", |_, p| Value::One(Scalar::Bool(p.citation_normalized_percentile.is_in_top_10_percent))),
    field!("citation_normalized_percentile.is_in_top_1_percent", Boolean, "F----", true, "In the top 1%.", |_, p| Value::One(Scalar::Bool(p.citation_normalized_percentile.is_in_top_1_percent))),
    field!("cited_by_percentile_year.min", Float, "F-O--", false, "Lower bound 0-100.", |_, p| Value::One(Scalar::Float(p.cited_by_percentile_year.min))),
    field!("cited_by_percentile_year.max", Float, "F-O--", false, "Upper bound 0-100.", |_, p| Value::One(Scalar::Float(p.cited_by_percentile_year.max))),
];

pub static AUTHOR_FIELDS: &[FieldDef<Author>] = &[
    field!("orcid", String, "F--DP", false, "ORCID iD; links the author to the `author` field of papers.", |_, a| {
        str_value(&a.orcid)
    }),
    field!("display_name", String, "FS-DP", false, "Author name.", |_, a| str_value(&a.name)),
    field!("affiliation", String, "FS-DP", true, "Last known institution.", |_, a| str_value(a.affiliation)),
    field!("country", String, "F--DP", true, "Country code of the institution.", |_, a| str_value(a.country)),
    field!("topic_names", ListString, "F--DP", true, "Names of the author's main research topics.", |_, a| {
        Value::Scalars(vec![Scalar::Str(crate::service::corpus::TOPICS[a.topic as usize].display_name)])
    }),
    field!("works_count", Integer, "F-ODP", false, "Number of papers in the corpus.", |_, a| Value::int(
        a.works.len() as i64
    )),
    field!("cited_by_count", Integer, "F-ODP", false, "Citations of the author's papers.", |_, a| Value::int(
        a.cited_by_count
    )),
    field!("h_index", Integer, "F-ODP", false, "h-index over the corpus.", |_, a| Value::int(a.h_index)),
    field!("works", ListString, "----P", false, "Unique ids of the author's papers (truncated to 25).", |c, a| {
        Value::PaperIds(c, &a.works)
    }),
];

pub static SOURCE_FIELDS: &[FieldDef<Source>] = &[
    field!("issn_l", String, "F--DP", false, "Linking ISSN; the first of `issn`.", |_, s| s
        .issns
        .first()
        .map_or(Value::Absent, |i| str_value(i))),
    field!(
        "issn",
        ListString,
        "F--DP",
        false,
        "ISSN list; links the source to `publication_venue_issn` of papers.",
        |_, s| Value::Strs(&s.issns)
    ),
    field!(
        "display_name",
        String,
        "FS-DP",
        true,
        "Venue name, as `publication_venue_name_unified` of papers.",
        |_, s| str_value(&s.name)
    ),
    field!("venue_type", String, "F--DP", true, "Venue type, as `publication_venue_type` of papers.", |_, s| {
        str_value(s.venue_type.as_str())
    }),
    field!("publisher", String, "FS-DP", true, "Publisher.", |_, s| { str_value(s.publisher) }),
    field!("country", String, "F--DP", true, "Country code.", |_, s| { str_value(s.country) }),
    field!("is_oa", Boolean, "F--DP", true, "Fully open-access venue.", |_, s| Value::One(Scalar::Bool(s.is_oa))),
    field!("homepage_url", String, "---DP", false, "Homepage.", |_, s| str_value(&s.homepage_url)),
    field!("works_count", Integer, "F-ODP", false, "Number of papers in the corpus.", |_, s| Value::int(s.works_count)),
    field!("cited_by_count", Integer, "F-ODP", false, "Citations of the venue's papers.", |_, s| Value::int(
        s.cited_by_count
    )),
];

pub fn find<R>(table: &'static [FieldDef<R>], name: &str) -> Option<usize> {
    table.iter().position(|f| f.name == name)
}
