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
    /// Whether record `index` is hidden from searches now (a growing corpus's papers).
    fn hidden(_service: &Service, _index: u32) -> bool {
        false
    }
}

/// A collection's records, index and record JSON are the members of its name in the
/// corpus, the indexes and the service's record JSON.
macro_rules! members_named {
    ($name:ident, $record:ty, $fields:expr) => {
        type Record = $record;
        const NAME: &'static str = stringify!($name);
        fn fields() -> &'static [FieldDef<$record>] {
            $fields
        }
        fn records(corpus: &Corpus) -> &[$record] {
            &corpus.$name
        }
        fn index(indexes: &Indexes) -> &Bm25 {
            &indexes.$name
        }
        fn record_json(service: &Service) -> &RecordJson<$record> {
            &service.record_json().$name
        }
    };
}

pub struct Papers;
pub struct Authors;
pub struct Sources;

impl Collection for Papers {
    members_named!(papers, Paper, PAPER_FIELDS);
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
    fn hidden(service: &Service, index: u32) -> bool {
        service.growth().hides(index)
    }
}

impl Collection for Authors {
    members_named!(authors, Author, AUTHOR_FIELDS);
    fn citations(record: &Author) -> u32 {
        record.cited_by_count
    }
}

impl Collection for Sources {
    members_named!(sources, Source, SOURCE_FIELDS);
    fn citations(record: &Source) -> u32 {
        record.cited_by_count
    }
}
