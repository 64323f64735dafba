//! Terms aggregations over the whole match set.

use std::collections::HashMap;

use serde::{Serialize, Serializer};

use super::fields::FieldDef;
use super::value::Scalar;
use crate::service::corpus::Corpus;

pub struct FacetSpec {
    pub field: usize,
    pub size: usize,
}

pub struct Bucket<'a> {
    pub key: Scalar<'a>,
    pub doc_count: u64,
}

pub struct FacetResult<'a> {
    pub field: &'static str,
    pub buckets: Vec<Bucket<'a>>,
}

fn canonical(s: &Scalar<'_>) -> String {
    match s {
        Scalar::Str(v) => format!("s{v}"),
        Scalar::Int(v) => format!("i{v}"),
        Scalar::Float(v) => format!("f{v}"),
        Scalar::Bool(v) => format!("b{v}"),
        Scalar::Date(d) => format!("d{}", d.packed()),
    }
}

fn order(a: &Scalar<'_>, b: &Scalar<'_>) -> std::cmp::Ordering {
    match (a.number(), b.number()) {
        (Some(x), Some(y)) => x.total_cmp(&y),
        _ => canonical(a).cmp(&canonical(b)),
    }
}

/// Buckets by descending count, ties by ascending key; each record counts once per key.
pub fn compute<'a, R>(
    table: &'static [FieldDef<R>],
    corpus: &'a Corpus,
    records: &'a [R],
    matches: &[u32],
    spec: &FacetSpec,
) -> FacetResult<'a> {
    let def = &table[spec.field];
    let mut counts: HashMap<String, (Scalar<'a>, u64)> = HashMap::new();
    let mut seen: Vec<String> = Vec::new();
    for &m in matches {
        seen.clear();
        (def.get)(corpus, &records[m as usize]).any(|s| {
            let key = canonical(&s);
            if !seen.contains(&key) {
                counts.entry(key.clone()).or_insert((s, 0)).1 += 1;
                seen.push(key);
            }
            false
        });
    }
    let mut buckets: Vec<Bucket<'a>> = counts
        .into_values()
        .map(|(key, doc_count)| Bucket { key, doc_count })
        .collect();
    buckets.sort_by(|a, b| {
        b.doc_count
            .cmp(&a.doc_count)
            .then_with(|| order(&a.key, &b.key))
    });
    buckets.truncate(spec.size);
    FacetResult {
        field: def.name,
        buckets,
    }
}

/// An int64 count, written as a JSON string when the service is configured so.
pub struct Count {
    pub value: u64,
    pub as_string: bool,
}

impl Serialize for Count {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        if self.as_string {
            s.serialize_str(&self.value.to_string())
        } else {
            s.serialize_u64(self.value)
        }
    }
}
