//! The records of the corpus: papers, authors and sources (venues).

use super::topics::{Topic, TOPICS};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Language {
    En,
    Zh,
    Ja,
    Ko,
    Und,
}

impl Language {
    pub fn code(self) -> &'static str {
        match self {
            Language::En => "en",
            Language::Zh => "zh",
            Language::Ja => "ja",
            Language::Ko => "ko",
            Language::Und => "und",
        }
    }

    pub fn is_cjk(self) -> bool {
        matches!(self, Language::Zh | Language::Ja | Language::Ko)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MetadataType {
    Paper,
    Ebook,
}

impl MetadataType {
    pub fn as_str(self) -> &'static str {
        match self {
            MetadataType::Paper => "paper",
            MetadataType::Ebook => "ebook",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SourceType {
    Pdf,
    Web,
}

impl SourceType {
    pub fn as_str(self) -> &'static str {
        match self {
            SourceType::Pdf => "pdf",
            SourceType::Web => "web",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VenueType {
    Journal,
    Conference,
    Repository,
    BookSeries,
    EbookPlatform,
    Metadata,
    RaidRegistry,
    IgsnCatalog,
    Other,
}

impl VenueType {
    pub const ALL: [VenueType; 9] = [
        VenueType::Journal,
        VenueType::Conference,
        VenueType::Repository,
        VenueType::BookSeries,
        VenueType::EbookPlatform,
        VenueType::Metadata,
        VenueType::RaidRegistry,
        VenueType::IgsnCatalog,
        VenueType::Other,
    ];

    /// The spelling of the spec (`book series`, `raidRegistry`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            VenueType::Journal => "journal",
            VenueType::Conference => "conference",
            VenueType::Repository => "repository",
            VenueType::BookSeries => "book series",
            VenueType::EbookPlatform => "ebook platform",
            VenueType::Metadata => "metadata",
            VenueType::RaidRegistry => "raidRegistry",
            VenueType::IgsnCatalog => "igsnCatalog",
            VenueType::Other => "other",
        }
    }

    pub fn parse_case_insensitive(text: &str) -> Option<VenueType> {
        VenueType::ALL
            .into_iter()
            .find(|v| v.as_str().eq_ignore_ascii_case(text.trim()))
    }
}

/// A calendar date; `packed` (yyyymmdd) orders dates.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Date {
    pub year: u16,
    pub month: u8,
    pub day: u8,
}

impl Date {
    pub fn packed(self) -> u32 {
        self.year as u32 * 10_000 + self.month as u32 * 100 + self.day as u32
    }

    pub fn iso(self) -> String {
        format!("{:04}-{:02}-{:02}", self.year, self.month, self.day)
    }

    /// Days since 0000-03-01 (proleptic Gregorian); differences are day counts.
    pub fn day_number(self) -> i64 {
        let (y, m) = if self.month <= 2 {
            (self.year as i64 - 1, self.month as i64 + 9)
        } else {
            (self.year as i64, self.month as i64 - 3)
        };
        365 * y + y / 4 - y / 100 + y / 400 + (153 * m + 2) / 5 + self.day as i64 - 1
    }

    pub fn days_in_month(year: u16, month: u8) -> u8 {
        match month {
            2 if (year.is_multiple_of(4) && !year.is_multiple_of(100))
                || year.is_multiple_of(400) =>
            {
                29
            }
            2 => 28,
            4 | 6 | 9 | 11 => 30,
            _ => 31,
        }
    }
}

#[derive(Debug, Clone, Copy)]
pub struct TopicScore {
    pub topic: u8,
    pub score: f32,
}

impl TopicScore {
    pub fn topic(&self) -> &'static Topic {
        &TOPICS[self.topic as usize]
    }
}

#[derive(Debug, Clone)]
pub struct OpenAccess {
    pub is_oa: bool,
    /// `gold`, `green`, `hybrid`, `bronze`, `diamond` or `closed`.
    pub status: &'static str,
    pub url: Option<String>,
    pub license: Option<&'static str>,
}

#[derive(Debug, Clone, Copy, Default)]
pub struct CitationPercentile {
    pub value: f64,
    pub is_in_top_10_percent: bool,
    pub is_in_top_1_percent: bool,
}

#[derive(Debug, Clone, Copy, Default)]
pub struct PercentileRange {
    pub min: f64,
    pub max: f64,
}

/// What the paper is about, in the words of its topic: drives the title, abstract, full
/// text and structured data, so that all of them agree.
#[derive(Debug, Clone, Copy)]
pub struct Focus {
    pub method: u8,
    pub dataset: u8,
    pub metric: u8,
    pub problem: u8,
    pub term_a: u8,
    pub term_b: u8,
    /// Reported improvement in percent, e.g. 12.4.
    pub improvement: f32,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TextKind {
    None,
    Normal,
    /// Longer than the 524,288 code-point page limit of `/content`.
    Long,
}

#[derive(Debug, Clone)]
pub struct Paper {
    pub index: u32,
    pub unique_id: String,
    /// Present only when the paper has a full text.
    pub doc_id: Option<String>,
    /// Present for papers whose structured data exists (the `/paper-schema` key).
    pub schema_id: Option<String>,
    pub metadata_type: MetadataType,
    /// Work type such as `article`, `proceedings-article`, `preprint`, `book`.
    pub work_type: &'static str,
    pub title: String,
    pub abstract_text: String,
    pub language: Language,
    pub doi: Option<String>,
    pub isbn13: Option<String>,
    pub isbns: Vec<String>,
    pub authors: Vec<u32>,
    pub contributors: Vec<String>,
    pub open_access: OpenAccess,
    pub date: Date,
    pub places: Vec<&'static str>,
    pub countries: Vec<&'static str>,
    pub venue: u32,
    pub volume: Option<String>,
    pub issue: Option<String>,
    pub pages: Option<String>,
    pub page_count: u32,
    pub keywords: Vec<String>,
    /// Sorted by score, the first is the primary topic.
    pub topics: Vec<TopicScore>,
    pub subjects: Vec<String>,
    pub genre: Vec<&'static str>,
    /// Works of the corpus cited by this paper.
    pub references: Vec<u32>,
    /// Cited works outside the corpus (generated on demand from the seed).
    pub external_references: u16,
    /// Works of the corpus citing this paper.
    pub cited_by: Vec<u32>,
    pub related: Vec<u32>,
    pub influential_citation_count: u32,
    pub fwci: f64,
    pub citation_normalized_percentile: CitationPercentile,
    pub cited_by_percentile_year: PercentileRange,
    pub source_type: SourceType,
    /// Address usable as `source` of `/content` (papers with full text).
    pub source: String,
    pub text_kind: TextKind,
    pub figures: u8,
    pub focus: Focus,
}

impl Paper {
    pub fn primary_topic(&self) -> &'static Topic {
        self.topics[0].topic()
    }

    pub fn citation_count(&self) -> u32 {
        self.cited_by.len() as u32
    }

    pub fn reference_count(&self) -> u32 {
        self.references.len() as u32 + self.external_references as u32
    }

    pub fn has_full_text(&self) -> bool {
        self.text_kind != TextKind::None
    }
}

#[derive(Debug, Clone)]
pub struct Author {
    pub index: u32,
    pub orcid: String,
    pub name: String,
    pub affiliation: &'static str,
    pub country: &'static str,
    pub topic: u8,
    pub works: Vec<u32>,
    pub cited_by_count: u32,
    pub h_index: u32,
}

#[derive(Debug, Clone)]
pub struct Source {
    pub index: u32,
    pub name: String,
    pub venue_type: VenueType,
    /// ISSN-L first.
    pub issns: Vec<String>,
    pub publisher: &'static str,
    pub country: &'static str,
    pub is_oa: bool,
    pub homepage_url: String,
    /// None for venues of every topic.
    pub topic: Option<u8>,
    pub works_count: u32,
    pub cited_by_count: u32,
}
