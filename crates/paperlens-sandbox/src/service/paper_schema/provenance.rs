//! Back to the source paragraphs: locators resolved with a window, keyword search inside
//! one paper, and batch hydration of structure items (exact locators first, a search in
//! the paper only without them).

use std::cmp::Ordering;
use std::collections::HashMap;
use std::rc::Rc;
use std::time::Instant;

use paperlens_core::contract::{self as c, lists, Bound};
use serde_json::{json, Map, Value};

use super::index::section_key;
use super::params::{self, boolean, integers, query_text, strings};
use super::{respond, round4, segment_json, Ctx};
use crate::service::corpus::PaperStructure;
use crate::service::error::{Result, STANDARD};
use crate::service::open_platform::params::Fields;
use crate::service::search::{stop_words, tokens, Bm25Builder};
use crate::service::{ServiceRequest, ServiceResponse};

/// The paper key and position of a global paragraph id (`<schema_id>:p<n>`).
pub fn split_paragraph_id(id: &str) -> Option<(&str, u32)> {
    let (schema_id, n) = id.rsplit_once(":p")?;
    let position: u32 = n.parse().ok()?;
    (n == position.to_string()).then_some((schema_id, position))
}

/// The segments of located paragraphs, each with up to `window` neighbours on each side,
/// at most `cap` in all, checked against the contract: `max_segments` is the "total returned
/// paragraphs", `window` the "neighbouring paragraphs before and after each hit" and
/// `missing` the "locators that could not be resolved". So the located paragraphs are chosen
/// first (in request order), neighbours fill the room left (nearest first, hit by hit), and a
/// located paragraph the cap leaves out is one its caller lists as missing. Each segment
/// carries its neighbour position (`relative_position`, 0 for a located paragraph, also when
/// it is a neighbour of another) and, with `relevance`, its own in-paper `score`.
struct Segments {
    /// The chosen paragraphs (`(paper, position)`) and the located one each belongs to.
    owner: HashMap<(u32, u32), u32>,
    /// The located paragraphs kept: paper structure and position, in request order.
    hits: Vec<(Rc<PaperStructure>, u32)>,
    cap: usize,
    truncated: bool,
}

impl Segments {
    fn new(cap: usize) -> Segments {
        Segments { owner: HashMap::new(), hits: Vec::new(), cap, truncated: false }
    }

    /// Locates `position` of `structure`; false when the cap leaves no room for it.
    fn locate(&mut self, structure: &Rc<PaperStructure>, position: u32) -> bool {
        let key = (structure.paper, position);
        if self.owner.get(&key) == Some(&position) {
            return true;
        }
        if self.owner.len() == self.cap {
            self.truncated = true;
            return false;
        }
        self.owner.insert(key, position);
        self.hits.push((structure.clone(), position));
        true
    }

    /// The segments: neighbours added while there is room, then each located paragraph's
    /// window in paper order.
    fn finish(mut self, window: u32, relevance: Option<&HashMap<u32, f64>>) -> (Vec<Value>, bool) {
        for distance in 1..=window {
            for (structure, hit) in &self.hits {
                let last = structure.paragraphs.len().saturating_sub(1) as u32;
                let around = [hit.checked_sub(distance), Some(hit + distance).filter(|&p| p <= last)];
                for position in around.into_iter().flatten() {
                    let key = (structure.paper, position);
                    if self.owner.contains_key(&key) {
                        continue;
                    }
                    if self.owner.len() == self.cap {
                        self.truncated = true;
                        continue;
                    }
                    self.owner.insert(key, *hit);
                }
            }
        }
        let mut out = Vec::with_capacity(self.owner.len());
        for (structure, hit) in &self.hits {
            let last = structure.paragraphs.len().saturating_sub(1) as u32;
            for position in hit.saturating_sub(window)..=hit.saturating_add(window).min(last) {
                if self.owner.get(&(structure.paper, position)) != Some(hit) {
                    continue;
                }
                let paragraph = &structure.paragraphs[position as usize];
                let mut segment = segment_json(&structure.schema_id, paragraph, *hit);
                if let Some(relevance) = relevance {
                    segment["score"] = json!(round4(relevance.get(&position).copied().unwrap_or(0.0)));
                    segment["hit"] = json!(position == *hit);
                }
                out.push(segment);
            }
        }
        (out, self.truncated)
    }
}

fn window(body: &Fields<'_>, bound: Bound) -> Result<u32> {
    Ok(body.bounded("window", bound)? as u32)
}

// -- POST /paper-schema/resolve-provenance ---------------------------------------------------

pub fn resolve(ctx: &Ctx<'_>, request: &ServiceRequest, _: &[String]) -> Result<ServiceResponse> {
    let started = Instant::now();
    let map = params::body(&request.body)?;
    let body = params::fields(&map);
    body.allow_only(&["schema_id", "marker_nums", "paragraph_ids", "window", "max_segments"])?;
    let schema_id = body.string("schema_id")?;
    let markers = integers(&body, "marker_nums", lists::LOCATORS.max)?;
    let paragraph_ids = strings(&body, "paragraph_ids", lists::LOCATORS.max)?;
    let marker_mode = schema_id.is_some() || markers.is_some();
    match (marker_mode, &paragraph_ids) {
        (true, Some(_)) => {
            return Err(body.invalid(
                "paragraph_ids",
                "cannot be combined with schema_id/marker_nums: use exactly one locator mode",
            ))
        }
        (false, None) => {
            return Err(
                body.invalid("paragraph_ids", "or schema_id with marker_nums is required (exactly one locator mode)")
            )
        }
        _ => {}
    }
    if marker_mode && schema_id.is_none_or(str::is_empty) {
        return Err(body.invalid("schema_id", "is required with marker_nums"));
    }
    if marker_mode && markers.is_none() {
        return Err(body.invalid("marker_nums", "is required with schema_id"));
    }
    if paragraph_ids.as_ref().is_some_and(|ids| !lists::LOCATORS.contains(ids.len())) {
        let (min, max) = (lists::LOCATORS.min, lists::LOCATORS.max);
        return Err(body.invalid("paragraph_ids", format!("must hold {min}-{max} paragraph ids")));
    }
    let window = window(&body, c::PROVENANCE_WINDOW)?;
    let cap = body.bounded("max_segments", c::MAX_SEGMENTS)? as usize;

    let mut segments = Segments::new(cap);
    let mut missing: Vec<Value> = Vec::new();
    let mut cut = 0;
    let mode = if let (Some(schema_id), Some(markers)) = (schema_id, markers) {
        let paper = ctx.paper(schema_id)?;
        let structure = ctx.structure(paper.index);
        for marker in markers {
            let found = structure.paragraphs.iter().find(|p| p.marker as i64 == marker);
            if !found.is_some_and(|p| segments.locate(&structure, p.position)) {
                cut += usize::from(found.is_some());
                missing.push(json!(marker));
            }
        }
        "marker"
    } else {
        for id in paragraph_ids.unwrap_or_default() {
            let located = split_paragraph_id(id).and_then(|(schema_id, position)| {
                let paper = ctx.corpus.by_schema_id(schema_id)?;
                let structure = ctx.structure(paper.index);
                ((position as usize) < structure.paragraphs.len()).then_some((structure, position))
            });
            if !located.as_ref().is_some_and(|(structure, position)| segments.locate(structure, *position)) {
                cut += usize::from(located.is_some());
                missing.push(json!(id));
            }
        }
        "paragraph_id"
    };
    let (segments, truncated) = segments.finish(window, None);
    let mut warnings = Vec::new();
    if missing.len() > cut {
        warnings.push(format!("{} locator(s) could not be resolved: see missing", missing.len() - cut));
    }
    if cut > 0 {
        warnings.push(format!("{cut} located paragraph(s) did not fit in max_segments={cap}: see missing"));
    } else if truncated {
        warnings.push(format!("neighbouring paragraphs were cut at max_segments={cap}"));
    }
    respond(json!({
        "segments": segments,
        "trace": {"mode": mode, "method": "exact", "elapsed_ms": elapsed_ms(started)},
        "missing": missing,
        "truncated": truncated,
        "warnings": warnings,
    }))
}

fn elapsed_ms(started: Instant) -> f64 {
    (started.elapsed().as_secs_f64() * 1_000_000.0).round() / 1_000.0
}

// -- POST /paper-schema/search-in-schema -----------------------------------------------------

struct LocalQuery<'a> {
    query: &'a str,
    section_hint: Option<&'a str>,
    prefer_url: bool,
    prefer_code: bool,
}

fn mentions_url(text: &str) -> bool {
    ["http://", "https://", "www.", "doi.org", "]("].iter().any(|m| text.contains(m))
}

fn mentions_code(text: &str) -> bool {
    let lower = text.to_lowercase();
    ["code", "github", "implementation", "reproducib", "open-source", "`"].iter().any(|m| lower.contains(m))
}

/// Every paragraph of one paper matching `q`, best first: (position, score). Scores are BM25
/// inside this paper, raised for the hinted section and the preferred resources.
fn local_search(structure: &PaperStructure, q: &LocalQuery<'_>) -> Vec<(u32, f64)> {
    let mut builder = Bm25Builder::default();
    let mut scratch = Vec::new();
    for paragraph in &structure.paragraphs {
        scratch.clear();
        tokens(&paragraph.text, &mut scratch);
        builder.add(&scratch);
    }
    let index = builder.build();
    let mut wanted = Vec::new();
    tokens(q.query, &mut wanted);
    let hint: Option<String> = q.section_hint.map(section_key).filter(|h| !h.is_empty());
    let mut hits: Vec<(u32, f64)> = index
        .search(&wanted, 1, |_| true)
        .into_iter()
        .map(|m| {
            let paragraph = &structure.paragraphs[m.doc as usize];
            let mut score = m.score as f64;
            if let Some(hint) = &hint {
                let section = section_key(&paragraph.section);
                if section.contains(hint.as_str()) || hint.contains(section.as_str()) {
                    score *= 1.5;
                }
            }
            if q.prefer_url && mentions_url(&paragraph.text) {
                score *= 1.3;
            }
            if q.prefer_code && mentions_code(&paragraph.text) {
                score *= 1.3;
            }
            (m.doc, score)
        })
        .collect();
    hits.sort_by(|a, b| b.1.partial_cmp(&a.1).unwrap_or(Ordering::Equal).then(a.0.cmp(&b.0)));
    hits
}

/// The segments of the `top_k` best matches of `q` with their windows (at most `cap`), each
/// scored with its own relevance (0.0 for a neighbour that does not match: the contract
/// answers "`segments` (each with `score`)", the relevance inside the paper); the number of
/// hits; whether the cap cut neighbours.
fn searched_segments(
    structure: &Rc<PaperStructure>,
    q: &LocalQuery<'_>,
    (top_k, window, cap): (usize, u32, usize),
) -> (Vec<Value>, usize, bool) {
    let ranked = local_search(structure, q);
    let relevance: HashMap<u32, f64> = ranked.iter().copied().collect();
    let mut segments = Segments::new(cap);
    let hits = ranked.len().min(top_k).min(cap);
    for &(position, _) in &ranked[..hits] {
        segments.locate(structure, position);
    }
    let (found, truncated) = segments.finish(window, Some(&relevance));
    (found, hits, truncated)
}

/// Why a query found no paragraph: its words all stop words (the ignored ones named), or no match.
fn no_match(query: &str, nothing: &str) -> String {
    let ignored = stop_words(query);
    let mut wanted = Vec::new();
    tokens(query, &mut wanted);
    match (wanted.is_empty(), ignored.is_empty()) {
        (true, false) => format!(
            "every word of the query is a stop word and was ignored ({}), so nothing can match: use content words",
            ignored.join(", ")
        ),
        (false, false) => format!("{nothing} (stop words ignored: {})", ignored.join(", ")),
        _ => nothing.to_string(),
    }
}

pub fn search_in_schema(ctx: &Ctx<'_>, request: &ServiceRequest, _: &[String]) -> Result<ServiceResponse> {
    let started = Instant::now();
    let map = params::body(&request.body)?;
    let body = params::fields(&map);
    body.allow_only(&["schema_id", "query", "section_hint", "prefer_url", "prefer_code", "top_k", "window"])?;
    let schema_id = body.required_string("schema_id")?;
    if schema_id.is_empty() {
        return Err(body.invalid("schema_id", "must not be empty"));
    }
    let query = query_text(&body, "query")?.ok_or_else(|| body.invalid("query", "is required"))?;
    let section_hint = body.string("section_hint")?;
    if let Some(hint) = section_hint {
        if !c::SECTION_HINT_CHARS.contains(hint.chars().count()) {
            let max = c::SECTION_HINT_CHARS.max;
            return Err(body.invalid("section_hint", format!("must be at most {max} characters long")));
        }
    }
    let local = LocalQuery {
        query,
        section_hint,
        prefer_url: boolean(&body, "prefer_url")?.unwrap_or(false),
        prefer_code: boolean(&body, "prefer_code")?.unwrap_or(false),
    };
    let top_k = body.bounded("top_k", c::IN_PAPER_TOP_K)? as usize;
    let window = window(&body, c::WINDOW)?;
    let paper = ctx.paper(schema_id)?;
    let structure = ctx.structure(paper.index);
    let (segments, hits, _) = searched_segments(&structure, &local, (top_k, window, usize::MAX));
    let mut warnings = Vec::new();
    if hits == 0 {
        warnings.push(no_match(query, "no paragraph of this paper matched the query"));
    }
    respond(json!({
        "schema_id": structure.schema_id,
        "segments": segments,
        "trace": {
            "mode": "schema_local_search",
            "method": "bm25",
            "elapsed_ms": elapsed_ms(started),
            "hits": hits,
            "section_hint": section_hint,
        },
        "warnings": warnings,
    }))
}

// -- POST /paper-schema/hydrate-items --------------------------------------------------------

struct Item<'a> {
    schema_id: &'a str,
    paragraph_ids: Vec<&'a str>,
    markers: Vec<i64>,
    query: Option<&'a str>,
}

fn parse_item<'a>(body: &Fields<'a>, k: usize, value: &'a Value) -> Result<Item<'a>> {
    let name = format!("items[{k}]");
    let Value::Object(map) = value else {
        return Err(body.invalid(&name, "must be an object"));
    };
    let item = Fields::new(map, &name, STANDARD);
    item.allow_only(&["schema_id", "paragraph_ids", "marker_nums", "hydration_query"])?;
    let schema_id = item.string("schema_id")?.filter(|s| !s.is_empty());
    let schema_id = schema_id.ok_or_else(|| item.invalid("schema_id", "is required"))?;
    let paragraph_ids = strings(&item, "paragraph_ids", lists::ITEM_LOCATORS.max)?.unwrap_or_default();
    let markers = match item.array("marker_nums")? {
        Some(list) if list.is_empty() => Vec::new(),
        Some(_) => integers(&item, "marker_nums", lists::ITEM_LOCATORS.max)?.unwrap_or_default(),
        None => Vec::new(),
    };
    let query = item.string("hydration_query")?.filter(|q| !q.is_empty());
    if paragraph_ids.is_empty() && markers.is_empty() && query.is_none() {
        return Err(body.invalid(&name, "needs paragraph_ids, marker_nums or hydration_query"));
    }
    Ok(Item { schema_id, paragraph_ids, markers, query })
}

pub fn hydrate(ctx: &Ctx<'_>, request: &ServiceRequest, _: &[String]) -> Result<ServiceResponse> {
    let map = params::body(&request.body)?;
    let body = params::fields(&map);
    body.allow_only(&["items", "window", "max_segments_per_item", "prefer_url_or_code"])?;
    let (min, max) = (lists::HYDRATE_ITEMS.min, lists::HYDRATE_ITEMS.max);
    let raw = body.array("items")?.ok_or_else(|| body.invalid("items", format!("is required: {min}-{max} items")))?;
    if !lists::HYDRATE_ITEMS.contains(raw.len()) {
        return Err(body.invalid("items", format!("must hold {min}-{max} items (got {})", raw.len())));
    }
    let items: Vec<Item<'_>> = raw.iter().enumerate().map(|(k, v)| parse_item(&body, k, v)).collect::<Result<_>>()?;
    let window = window(&body, c::WINDOW)?;
    let cap = body.bounded("max_segments_per_item", c::MAX_SEGMENTS_PER_ITEM)? as usize;
    let prefer = boolean(&body, "prefer_url_or_code")?.unwrap_or(false);

    let mut failed = 0;
    let out: Vec<Value> = items
        .iter()
        .enumerate()
        .map(|(k, item)| {
            let answer = hydrate_one(ctx, item, window, cap, prefer);
            if answer["hydration_method"] == "none" {
                failed += 1;
            }
            let mut answer = answer;
            answer["index"] = json!(k);
            answer
        })
        .collect();
    let mut warnings = Vec::new();
    if failed > 0 {
        warnings.push(format!("{failed} of {} items could not be hydrated: see items[].reason", out.len()));
    }
    respond(json!({"items": out, "warnings": warnings}))
}

fn hydrate_one(ctx: &Ctx<'_>, item: &Item<'_>, window: u32, cap: usize, prefer: bool) -> Value {
    let mut answer = Map::new();
    answer.insert("schema_id".into(), json!(item.schema_id));
    let none = |mut answer: Map<String, Value>, reason: String, missing: Vec<Value>| {
        answer.insert("hydration_method".into(), json!("none"));
        answer.insert("segments".into(), json!([]));
        answer.insert("reason".into(), json!(reason));
        answer.insert("missing".into(), Value::Array(missing));
        Value::Object(answer)
    };
    let Some(paper) = ctx.corpus.by_schema_id(item.schema_id) else {
        let mut missing: Vec<Value> = item.paragraph_ids.iter().map(|id| json!(id)).collect();
        missing.extend(item.markers.iter().map(|marker| json!(marker)));
        return none(answer, format!("no paper with schema_id '{}'", item.schema_id), missing);
    };
    let structure = ctx.structure(paper.index);
    let mut segments = Segments::new(cap);
    let mut missing = Vec::new();
    let (method, (segments, truncated)) = if !item.paragraph_ids.is_empty() {
        for id in &item.paragraph_ids {
            let position = split_paragraph_id(id)
                .filter(|&(owner, position)| {
                    owner == item.schema_id && (position as usize) < structure.paragraphs.len()
                })
                .map(|(_, position)| position);
            if !position.is_some_and(|position| segments.locate(&structure, position)) {
                missing.push(json!(id));
            }
        }
        ("paragraph_id", segments.finish(window, None))
    } else if !item.markers.is_empty() {
        for &marker in &item.markers {
            let found = structure.paragraphs.iter().find(|p| p.marker as i64 == marker);
            if !found.is_some_and(|p| segments.locate(&structure, p.position)) {
                missing.push(json!(marker));
            }
        }
        ("marker", segments.finish(window, None))
    } else {
        let local = LocalQuery {
            query: item.query.unwrap_or_default(),
            section_hint: None,
            prefer_url: prefer,
            prefer_code: prefer,
        };
        let (found, _, truncated) = searched_segments(&structure, &local, (cap, window, cap));
        ("schema_local_search", (found, truncated))
    };
    if segments.is_empty() {
        let reason = match method {
            "schema_local_search" => {
                no_match(item.query.unwrap_or_default(), "no paragraph of the paper matched hydration_query")
            }
            "marker" => "none of the marker_nums locates a paragraph of this paper".into(),
            _ => "none of the paragraph_ids locates a paragraph of this paper".into(),
        };
        return none(answer, reason, missing);
    }
    answer.insert("hydration_method".into(), json!(method));
    answer.insert("segments".into(), Value::Array(segments));
    answer.insert("reason".into(), Value::Null);
    answer.insert("missing".into(), Value::Array(missing));
    answer.insert("truncated".into(), json!(truncated));
    Value::Object(answer)
}
