//! The three searchable collections behind one interface.

use super::fields::{FieldDef, AUTHOR_FIELDS, PAPER_FIELDS, SOURCE_FIELDS};
use super::record_json::RecordJson;
use crate::service::corpus::{Author, Corpus, Date, Language, Paper, Source};
use crate::service::indexes::Indexes;
use crate::service::search::Bm25;
use crate::service::Service;

pub trait Collection: 'static {
    type Record: 'static;
    const NAME: &'static str;
    fn fields() -> &'static [FieldDef<Self::Record>];
    fn records(corpus: &Corpus) -> &[Self::Record];
    fn index(indexes: &Indexes) -> &Bm25;
    fn record_json(service: &Service) -> &RecordJson<Self::Record>;
    /// Field returned whatever the projection (`doc_id` for papers).
    fn always_returned() -> Option<&'static str> {
        None
    }
    fn language(_record: &Self::Record) -> Option<Language> {
        None
    }
    fn date(_record: &Self::Record) -> Option<Date> {
        None
    }
    fn citations(record: &Self::Record) -> u32;
}

pub struct Papers;
pub struct Authors;
pub struct Sources;

impl Collection for Papers {
    type Record = Paper;
    const NAME: &'static str = "papers";
    fn fields() -> &'static [FieldDef<Paper>] {
        PAPER_FIELDS
    }
    fn records(corpus: &Corpus) -> &[Paper] {
        &corpus.papers
    }
    fn index(indexes: &Indexes) -> &Bm25 {
        &indexes.papers
    }
    fn record_json(service: &Service) -> &RecordJson<Paper> {
        &service.record_json().papers
    }
    fn always_returned() -> Option<&'static str> {
        Some("doc_id")
    }
    fn language(record: &Paper) -> Option<Language> {
        Some(record.language)
    }
    fn date(record: &Paper) -> Option<Date> {
        Some(record.date)
    }
    fn citations(record: &Paper) -> u32 {
        record.citation_count()
    }
}

impl Collection for Authors {
    type Record = Author;
    const NAME: &'static str = "authors";
    fn fields() -> &'static [FieldDef<Author>] {
        AUTHOR_FIELDS
    }
    fn records(corpus: &Corpus) -> &[Author] {
        &corpus.authors
    }
    fn index(indexes: &Indexes) -> &Bm25 {
        &indexes.authors
    }
    fn record_json(service: &Service) -> &RecordJson<Author> {
        &service.record_json().authors
    }
    fn citations(record: &Author) -> u32 {
        record.cited_by_count
    }
}

impl Collection for Sources {
    type Record = Source;
    const NAME: &'static str = "sources";
    fn fields() -> &'static [FieldDef<Source>] {
        SOURCE_FIELDS
    }
    fn records(corpus: &Corpus) -> &[Source] {
        &corpus.sources
    }
    fn index(indexes: &Indexes) -> &Bm25 {
        &indexes.sources
    }
    fn record_json(service: &Service) -> &RecordJson<Source> {
        &service.record_json().sources
    }
    fn citations(record: &Source) -> u32 {
        record.cited_by_count
    }
}
