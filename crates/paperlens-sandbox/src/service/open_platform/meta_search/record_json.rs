//! The JSON of result records. The members of a record's default fields are written
//! once (escaped bytes, kept in a [`FragmentCache`]), so a page of the default
//! projection is a series of copies; other projected fields are written per request.

use std::borrow::Cow;

use serde::Serialize;

use super::fields::{FieldDef, AUTHOR_FIELDS, PAPER_FIELDS, SOURCE_FIELDS};
use crate::service::corpus::{Author, Corpus, Paper, Source};
use crate::service::fragments::{FragmentCache, HeapSize};

/// Bytes of record members kept in memory per collection; later records' members are
/// written on each use.
const BUDGET: usize = 64 << 20;

/// The members of a record's default fields.
#[derive(Clone)]
pub struct Members {
    /// The non-zero members, in table order, comma-separated.
    joined: Box<[u8]>,
    /// Per default field, the range of its member in `joined` (empty: left out).
    ranges: Box<[(u32, u32)]>,
}

impl HeapSize for Members {
    fn heap_size(&self) -> usize {
        self.joined.len() + self.ranges.len() * std::mem::size_of::<(u32, u32)>()
    }
}

pub struct RecordJson<R: 'static> {
    table: &'static [FieldDef<R>],
    /// The default fields, in table order.
    defaults: Vec<usize>,
    /// Per field of the table, its position in `defaults`.
    slots: Vec<Option<usize>>,
    cache: FragmentCache<Members>,
}

/// One [`RecordJson`] per collection.
pub struct RecordJsons {
    pub papers: RecordJson<Paper>,
    pub authors: RecordJson<Author>,
    pub sources: RecordJson<Source>,
}

impl RecordJsons {
    pub fn new(corpus: &Corpus) -> RecordJsons {
        RecordJsons {
            papers: RecordJson::new(PAPER_FIELDS, corpus.papers.len()),
            authors: RecordJson::new(AUTHOR_FIELDS, corpus.authors.len()),
            sources: RecordJson::new(SOURCE_FIELDS, corpus.sources.len()),
        }
    }
}

impl<R> RecordJson<R> {
    fn new(table: &'static [FieldDef<R>], records: usize) -> RecordJson<R> {
        let defaults: Vec<usize> = (0..table.len()).filter(|&f| table[f].caps.default).collect();
        let mut slots = vec![None; table.len()];
        for (slot, &field) in defaults.iter().enumerate() {
            slots[field] = Some(slot);
        }
        RecordJson { table, defaults, slots, cache: FragmentCache::new(records, BUDGET) }
    }

    /// Appends the JSON array of the records `hits` names, each with the fields of
    /// `projection` (in its order) that have a non-zero value.
    pub fn write_page(
        &self,
        out: &mut Vec<u8>,
        corpus: &Corpus,
        records: &[R],
        hits: &[(u32, f64)],
        projection: &[usize],
    ) {
        let members: Vec<Cow<'_, Members>> = hits
            .iter()
            .map(|&(i, _)| self.cache.get(i as usize, || self.members(corpus, &records[i as usize])))
            .collect();
        out.reserve(2 + members.iter().map(|m| m.joined.len() + 3).sum::<usize>());
        let whole_defaults = projection == self.defaults;
        out.push(b'[');
        for (k, (&(i, _), members)) in hits.iter().zip(&members).enumerate() {
            if k > 0 {
                out.push(b',');
            }
            out.push(b'{');
            if whole_defaults {
                out.extend_from_slice(&members.joined);
            } else {
                self.write_projected(out, corpus, &records[i as usize], members, projection);
            }
            out.push(b'}');
        }
        out.push(b']');
    }

    fn write_projected(&self, out: &mut Vec<u8>, corpus: &Corpus, record: &R, members: &Members, projection: &[usize]) {
        let mut first = true;
        for &field in projection {
            match self.slots[field] {
                Some(slot) => {
                    let (start, end) = members.ranges[slot];
                    if start == end {
                        continue;
                    }
                    separate(out, &mut first);
                    out.extend_from_slice(&members.joined[start as usize..end as usize]);
                }
                None => {
                    let def = &self.table[field];
                    let value = (def.get)(corpus, record);
                    if !value.is_zero() {
                        separate(out, &mut first);
                        write_member(out, def.name, &value);
                    }
                }
            }
        }
    }

    fn members(&self, corpus: &Corpus, record: &R) -> Members {
        let mut joined = Vec::new();
        let mut ranges = Vec::with_capacity(self.defaults.len());
        for &field in &self.defaults {
            let def = &self.table[field];
            let value = (def.get)(corpus, record);
            if value.is_zero() {
                ranges.push((joined.len() as u32, joined.len() as u32));
                continue;
            }
            if !joined.is_empty() {
                joined.push(b',');
            }
            let start = joined.len() as u32;
            write_member(&mut joined, def.name, &value);
            ranges.push((start, joined.len() as u32));
        }
        Members { joined: joined.into_boxed_slice(), ranges: ranges.into_boxed_slice() }
    }
}

fn separate(out: &mut Vec<u8>, first: &mut bool) {
    if !std::mem::replace(first, false) {
        out.push(b',');
    }
}

/// `"name":value`, as `serde_json` writes a map entry.
fn write_member(out: &mut Vec<u8>, name: &str, value: &impl Serialize) {
    // Writing into a Vec cannot fail.
    let _ = serde_json::to_writer(&mut *out, name);
    out.push(b':');
    let _ = serde_json::to_writer(&mut *out, value);
}
