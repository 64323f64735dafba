//! `POST /meta-search`: metadata search over papers, authors or sources with filters,
//! full-text query, sort, projection, facets, boosts, and page or cursor paging.
//!
//! Decisions where the spec is open: sort together with a non-empty query is accepted
//! (the query then only filters); unknown body properties are ignored (the spec forbids
//! them only for the other POST operations); while a boost is active `next_cursor` is
//! empty (only page numbers, up to the 10000 window, reach further results).

pub mod collection;
pub mod cursor;
pub mod facets;
pub mod fields;
pub mod filters;
pub mod ranking;
pub mod record_json;
pub mod value;

use std::time::Instant;

use paperlens_core::contract::{self as c, BOOST_LEVELS, NO_BOOST};
use serde::ser::SerializeMap;
use serde::{Serialize, Serializer};

use super::params::{parse_object, Fields};
use super::permissions::field_visible;
use collection::{Authors, Collection, Papers, Sources};
use facets::{Count, FacetResult, FacetSpec};
use fields::FieldDef;
use filters::{Filter, Op};
use ranking::{Boosts, Strength};
use value::Scalar;

use crate::service::corpus::Corpus;
use crate::service::error::{json_response, Result, META_SEARCH};
use crate::service::search::tokens;
use crate::service::{Access, Service, ServiceRequest, ServiceResponse};

/// The window of shallow paging and the cap of `total_count`.
pub const MAX_WINDOW: usize = c::PAGE_DEPTH_CAP as usize;

pub fn handle(service: &Service, request: &ServiceRequest) -> Result<ServiceResponse> {
    let started = Instant::now();
    let map = parse_object(&request.body, META_SEARCH)?;
    let body = Fields::new(&map, "", META_SEARCH);
    body.no_nulls()?;
    match body.one_of("collection", &c::COLLECTIONS)? {
        Some("authors") => run::<Authors>(service, request, &body, started),
        Some("sources") => run::<Sources>(service, request, &body, started),
        _ => run::<Papers>(service, request, &body, started),
    }
}

struct Plan {
    query: String,
    filters: Vec<Filter>,
    /// Field index and descending order.
    sort: Vec<(usize, bool)>,
    projection: Vec<usize>,
    page: usize,
    page_size: usize,
    cursor: Option<String>,
    facets: Vec<FacetSpec>,
    boosts: Boosts,
    signature: u64,
}

impl Plan {
    fn boosts_active(&self) -> bool {
        !self.query.is_empty() && self.sort.is_empty() && self.boosts.any()
    }
}

fn resolve<C: Collection>(name: &str, parameter: &str, access: Access) -> Result<usize> {
    let index = fields::find(C::fields(), name).ok_or_else(|| {
        META_SEARCH
            .invalid_param(parameter, format!("unknown field '{name}' in '{parameter}' for collection {}", C::NAME))
    })?;
    if !field_visible(access, name) {
        return Err(META_SEARCH.forbidden(format!("the token has no permission for field '{name}' (in '{parameter}')")));
    }
    Ok(index)
}

fn item_fields<'a>(item: &'a serde_json::Value, parameter: &str, k: usize) -> Result<Fields<'a>> {
    match item {
        serde_json::Value::Object(map) => {
            let fields = Fields::new(map, &format!("{parameter}[{k}]"), META_SEARCH);
            fields.no_nulls()?;
            Ok(fields)
        }
        _ => Err(META_SEARCH.invalid_param(parameter, format!("'{parameter}[{k}]' must be an object"))),
    }
}

fn plan<C: Collection>(body: &Fields<'_>, access: Access) -> Result<Plan> {
    let table = C::fields();
    let query = body.string("query")?.unwrap_or("").trim().to_string();

    let mut filters = Vec::new();
    for (k, item) in body.array("filters")?.into_iter().flatten().enumerate() {
        let item = item_fields(item, "filters", k)?;
        let name = item.required_string("field")?;
        let field = resolve::<C>(name, "filters", access)?;
        let def = &table[field];
        if !def.caps.filter {
            return Err(item.invalid("field", format!("names '{name}', which cannot be used in filters")));
        }
        let op = match item.string("operator")? {
            None => Op::Eq,
            Some(wire) => Op::parse(wire).ok_or_else(|| {
                item.invalid("operator", format!("must be one of {} (got '{wire}')", c::FILTER_OPERATORS.join(", ")))
            })?,
        };
        let value = item.get("value").ok_or_else(|| item.invalid("value", "is required"))?;
        filters.push(filters::compile(field, def, op, value)?);
    }

    let mut sort = Vec::new();
    for (k, item) in body.array("sort")?.into_iter().flatten().enumerate() {
        let item = item_fields(item, "sort", k)?;
        let name = item.required_string("field")?;
        let field = resolve::<C>(name, "sort", access)?;
        if !table[field].caps.sort {
            let sortable: Vec<&str> = table.iter().filter(|f| f.caps.sort).map(|f| f.name).collect();
            return Err(item.invalid(
                "field",
                format!("names '{name}', which is not sortable; sortable fields: {}", sortable.join(", ")),
            ));
        }
        let descending = item.one_of("order", &c::SORT_ORDERS)?.unwrap_or(c::SORT_ORDERS[0]) == c::SORT_ORDERS[0];
        sort.push((field, descending));
    }

    let mut projection = Vec::new();
    for (k, item) in body.array("fields")?.into_iter().flatten().enumerate() {
        let name = item
            .as_str()
            .ok_or_else(|| META_SEARCH.invalid_param("fields", format!("'fields[{k}]' must be a string")))?;
        if name.contains('.') {
            return Err(META_SEARCH.invalid_param(
                "fields",
                format!("'fields[{k}]': dotted sub-field '{name}' cannot be projected; project its parent field"),
            ));
        }
        let field = resolve::<C>(name, "fields", access)?;
        if !table[field].caps.project {
            return Err(
                META_SEARCH.invalid_param("fields", format!("'fields[{k}]': field '{name}' cannot be projected"))
            );
        }
        if !projection.contains(&field) {
            projection.push(field);
        }
    }
    if projection.is_empty() {
        projection =
            (0..table.len()).filter(|&i| table[i].caps.default && field_visible(access, table[i].name)).collect();
    }
    if let Some(always) = C::always_returned().and_then(|name| fields::find(table, name)) {
        if !projection.contains(&always) {
            projection.insert(0, always);
        }
    }

    let page = body.bounded("page", c::PAGE)? as usize;
    let page_size = body.bounded("page_size", c::PAGE_SIZE)? as usize;
    let cursor = body.string("cursor")?.filter(|c| !c.is_empty()).map(str::to_string);

    let facet_items = body.array("facets")?.map_or(&[][..], |v| v.as_slice());
    if !c::FACETS.contains(facet_items.len()) {
        let (max, n) = (c::FACETS.max, facet_items.len());
        return Err(body.invalid("facets", format!("must have at most {max} items (got {n})")));
    }
    let mut facet_specs = Vec::new();
    for (k, item) in facet_items.iter().enumerate() {
        let item = item_fields(item, "facets", k)?;
        let name = item.required_string("field")?;
        let field = resolve::<C>(name, "facets", access)?;
        if !table[field].caps.filter {
            return Err(item.invalid("field", format!("names '{name}', which is not filterable and cannot be faceted")));
        }
        let size = item.bounded("size", c::FACET_SIZE)? as usize;
        facet_specs.push(FacetSpec { field, size });
    }

    let [freshness, impact, language] = c::BOOSTS
        .map(|name| -> Result<Strength> { Ok(Strength::parse(body.one_of(name, &BOOST_LEVELS)?.unwrap_or(NO_BOOST))) });
    let boosts = Boosts { freshness: freshness?, impact: impact?, language: language? };

    let canonical = |name: &str| body.get(name).map_or(String::new(), |v| v.to_string());
    let signature = cursor::CODEC.signature(&[C::NAME, &query, &canonical("filters"), &canonical("sort")]);
    let plan =
        Plan { query, filters, sort, projection, page, page_size, cursor, facets: facet_specs, boosts, signature };

    if plan.cursor.is_some() && page > 1 {
        return Err(
            META_SEARCH.invalid_param("cursor", "'cursor' cannot be combined with 'page' > 1; pass one or the other")
        );
    }
    if plan.cursor.is_some() && plan.boosts_active() {
        return Err(META_SEARCH.invalid_param("cursor", "'cursor' deep paging is not available while a boost (freshness_boost, impact_boost, language_affinity) is active; use page numbers"));
    }
    if page.saturating_mul(page_size) > MAX_WINDOW {
        return Err(META_SEARCH.invalid_param("page", format!("page * page_size must not exceed {MAX_WINDOW} (got {page} * {page_size}); use 'cursor' with the returned 'next_cursor' to go deeper")));
    }
    Ok(plan)
}

/// Sort keys of a hit (None: missing value) and the hit.
type SortableHit = (Vec<Option<f64>>, (u32, f64));

/// Matching records in result order, with their relevance score.
fn execute<C: Collection>(corpus: &Corpus, service: &Service, plan: &Plan) -> Vec<(u32, f64)> {
    let records = C::records(corpus);
    let table = C::fields();
    let accept = |i: u32| {
        !C::hidden(service, i) && plan.filters.iter().all(|f| filters::matches(f, table, corpus, &records[i as usize]))
    };
    let mut words = Vec::new();
    tokens(&plan.query, &mut words);
    words.sort();
    words.dedup();
    let mut hits: Vec<(u32, f64)> = if words.is_empty() {
        (0..records.len() as u32).filter(|&i| accept(i)).map(|i| (i, 0.0)).collect()
    } else {
        let n = words.len();
        let needed = if n <= 2 { n } else { (n * 7).div_ceil(10) };
        C::index(service.indexes())
            .search(&words, needed, accept)
            .into_iter()
            .map(|m| (m.doc, m.score as f64))
            .collect()
    };
    if !plan.sort.is_empty() {
        let mut keyed: Vec<SortableHit> = hits
            .into_iter()
            .map(|hit| {
                let record = &records[hit.0 as usize];
                let keys = plan
                    .sort
                    .iter()
                    .map(|&(field, descending)| sort_key(&table[field], corpus, record, descending))
                    .collect();
                (keys, hit)
            })
            .collect();
        keyed.sort_by(|(ka, a), (kb, b)| {
            for (k, &(_, descending)) in plan.sort.iter().enumerate() {
                let ordering = match (ka[k], kb[k]) {
                    (Some(x), Some(y)) if descending => y.total_cmp(&x),
                    (Some(x), Some(y)) => x.total_cmp(&y),
                    (Some(_), None) => std::cmp::Ordering::Less,
                    (None, Some(_)) => std::cmp::Ordering::Greater,
                    (None, None) => std::cmp::Ordering::Equal,
                };
                if ordering.is_ne() {
                    return ordering;
                }
            }
            b.1.total_cmp(&a.1).then(a.0.cmp(&b.0))
        });
        return keyed.into_iter().map(|(_, hit)| hit).collect();
    }
    if !words.is_empty() {
        let target = ranking::query_language(&plan.query);
        for (i, score) in hits.iter_mut() {
            let record = &records[*i as usize];
            let mut factor = ranking::impact_factor(plan.boosts.impact, C::citations(record));
            if let Some(date) = C::date(record) {
                factor *= ranking::freshness_factor(plan.boosts.freshness, date, corpus.today);
            }
            factor *= ranking::language_factor(plan.boosts.language, target, C::language(record));
            *score *= factor;
        }
        hits.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    }
    hits
}

/// The sort value of a record: the largest of its values for a descending sort, the
/// smallest for an ascending one (nested lists such as `topics.score`).
fn sort_key<R>(def: &FieldDef<R>, corpus: &Corpus, record: &R, descending: bool) -> Option<f64> {
    let mut best: Option<f64> = None;
    (def.get)(corpus, record).any(|s| {
        if let Some(x) = s.number() {
            best = Some(match best {
                Some(b) if descending => b.max(x),
                Some(b) => b.min(x),
                None => x,
            });
        }
        false
    });
    best
}

fn run<C: Collection>(
    service: &Service,
    request: &ServiceRequest,
    body: &Fields<'_>,
    started: Instant,
) -> Result<ServiceResponse> {
    let plan = plan::<C>(body, request.access)?;
    let corpus = service.corpus();
    let offset = match &plan.cursor {
        Some(token) => cursor::CODEC.decode(token, plan.signature).ok_or_else(|| {
            META_SEARCH.invalid_param("cursor", "'cursor' is not a cursor issued for this query (collection, query, filters and sort must stay the same)")
        })?,
        None => (plan.page - 1) * plan.page_size,
    };
    let hits = execute::<C>(corpus, service, &plan);
    let total = hits.len();
    let start = offset.min(total);
    let end = (start + plan.page_size).min(total);
    let next_cursor =
        if plan.boosts_active() || end >= total { String::new() } else { cursor::CODEC.encode(plan.signature, end) };
    let records = C::records(corpus);
    let matched: Vec<u32> = if plan.facets.is_empty() { Vec::new() } else { hits.iter().map(|h| h.0).collect() };
    let facet_results: Vec<FacetResult<'_>> =
        plan.facets.iter().map(|spec| facets::compute(C::fields(), corpus, records, &matched, spec)).collect();
    let as_string = service.config().int64_as_string;
    let capped = total.min(MAX_WINDOW);
    let summary = Summary {
        total_count: Count { value: capped as u64, as_string },
        page: if plan.cursor.is_some() { offset / plan.page_size + 1 } else { plan.page },
        page_size: plan.page_size,
        total_pages: capped.div_ceil(plan.page_size),
        search_time_ms: (started.elapsed().as_secs_f64() * 1000.0 * 1000.0).round() / 1000.0,
        next_cursor,
        facets: facet_results.iter().map(|f| FacetOut { result: f, as_string }).collect(),
    };
    // {"results":[...], then the summary's members.
    let summary = serde_json::to_vec(&summary).unwrap_or_default();
    let mut out = Vec::with_capacity(16 + summary.len());
    out.extend_from_slice(b"{\"results\":");
    C::record_json(service).write_page(&mut out, corpus, records, &hits[start..end], &plan.projection);
    out.push(b',');
    out.extend_from_slice(summary.get(1..).unwrap_or_default());
    Ok(json_response(200, out))
}

/// The members of an answer after `results`.
#[derive(Serialize)]
struct Summary<'a> {
    total_count: Count,
    page: usize,
    page_size: usize,
    total_pages: usize,
    search_time_ms: f64,
    next_cursor: String,
    facets: Vec<FacetOut<'a>>,
}

struct FacetOut<'a> {
    result: &'a FacetResult<'a>,
    as_string: bool,
}

impl Serialize for FacetOut<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        #[derive(Serialize)]
        struct BucketOut<'a> {
            key: Scalar<'a>,
            doc_count: Count,
        }
        let buckets: Vec<BucketOut<'_>> = self
            .result
            .buckets
            .iter()
            .map(|b| BucketOut { key: b.key, doc_count: Count { value: b.doc_count, as_string: self.as_string } })
            .collect();
        let mut map = s.serialize_map(Some(2))?;
        map.serialize_entry("field", self.result.field)?;
        map.serialize_entry("buckets", &buckets)?;
        map.end()
    }
}
