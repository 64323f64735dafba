//! Back to the source paragraphs: locators resolved with a window, keyword search inside
//! one paper, and batch hydration of structure items (exact locators first, a search in
//! the paper only without them).

use std::cmp::Ordering;
use std::collections::HashSet;
use std::time::Instant;

use paperlens_core::contract::{self as c, lists, Bound};
use serde_json::{json, Map, Value};

use super::index::section_key;
use super::params::{self, boolean, integers, query_text, strings};
use super::{respond, round4, segment_json, Ctx};
use crate::service::corpus::PaperStructure;
use crate::service::error::{Result, STANDARD};
use crate::service::open_platform::params::Fields;
use crate::service::search::{tokens, Bm25Builder};
use crate::service::{ServiceRequest, ServiceResponse};

/// The paper key and position of a global paragraph id (`<schema_id>:p<n>`).
pub fn split_paragraph_id(id: &str) -> Option<(&str, u32)> {
    let (schema_id, n) = id.rsplit_once(":p")?;
    let position: u32 = n.parse().ok()?;
    (n == position.to_string()).then_some((schema_id, position))
}

/// Segments around located paragraphs: each hit with `window` neighbours on each side,
/// without duplicates, at most `cap` in all. Returns whether the cap cut something.
struct Segments {
    seen: HashSet<(u32, u32)>,
    out: Vec<Value>,
    cap: usize,
    truncated: bool,
}

impl Segments {
    fn new(cap: usize) -> Segments {
        Segments { seen: HashSet::new(), out: Vec::new(), cap, truncated: false }
    }

    fn add(&mut self, structure: &PaperStructure, hit: u32, window: u32, score: Option<f64>) {
        let last = structure.paragraphs.len().saturating_sub(1) as u32;
        let from = hit.saturating_sub(window);
        let to = hit.saturating_add(window).min(last);
        for position in from..=to {
            if !self.seen.insert((structure.paper, position)) {
                continue;
            }
            if self.out.len() == self.cap {
                self.truncated = true;
                return;
            }
            let paragraph = &structure.paragraphs[position as usize];
            let mut segment = segment_json(&structure.schema_id, paragraph, hit);
            if let Some(score) = score {
                let own = if position == hit { score } else { 0.0 };
                segment["score"] = json!(round4(own));
                segment["hit"] = json!(position == hit);
            }
            self.out.push(segment);
        }
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
    let mode = if let (Some(schema_id), Some(markers)) = (schema_id, markers) {
        let paper = ctx.paper(schema_id)?;
        let structure = ctx.structure(paper.index);
        for marker in markers {
            match structure.paragraphs.iter().find(|p| p.marker as i64 == marker) {
                Some(p) => segments.add(&structure, p.position, window, None),
                None => missing.push(json!(marker)),
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
            match located {
                Some((structure, position)) => segments.add(&structure, position, window, None),
                None => missing.push(json!(id)),
            }
        }
        "paragraph_id"
    };
    let mut warnings = Vec::new();
    if !missing.is_empty() {
        warnings.push(format!("{} locator(s) could not be resolved: see missing", missing.len()));
    }
    if segments.truncated {
        warnings.push(format!("segments were cut at max_segments={cap}"));
    }
    respond(json!({
        "segments": segments.out,
        "trace": {"mode": mode, "method": "exact", "elapsed_ms": elapsed_ms(started)},
        "missing": missing,
        "truncated": segments.truncated,
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

/// Paragraphs of one paper matching `q`, best first: (position, score). Scores are BM25
/// inside this paper, raised for the hinted section and the preferred resources.
fn local_search(structure: &PaperStructure, q: &LocalQuery<'_>, top_k: usize) -> Vec<(u32, f64)> {
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
    hits.truncate(top_k);
    hits
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
    let hits = local_search(&structure, &local, top_k);
    let mut segments = Segments::new(usize::MAX);
    for &(position, score) in &hits {
        segments.add(&structure, position, window, Some(score));
    }
    let mut warnings = Vec::new();
    if hits.is_empty() {
        warnings.push("no paragraph of this paper matched the query".to_string());
    }
    respond(json!({
        "schema_id": structure.schema_id,
        "segments": segments.out,
        "trace": {
            "mode": "schema_local_search",
            "method": "bm25",
            "elapsed_ms": elapsed_ms(started),
            "hits": hits.len(),
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
        return none(answer, format!("no paper with schema_id '{}'", item.schema_id), Vec::new());
    };
    let structure = ctx.structure(paper.index);
    let mut segments = Segments::new(cap);
    let mut missing = Vec::new();
    let method = if !item.paragraph_ids.is_empty() {
        for id in &item.paragraph_ids {
            match split_paragraph_id(id) {
                Some((owner, position))
                    if owner == item.schema_id && (position as usize) < structure.paragraphs.len() =>
                {
                    segments.add(&structure, position, window, None)
                }
                _ => missing.push(json!(id)),
            }
        }
        "paragraph_id"
    } else if !item.markers.is_empty() {
        for &marker in &item.markers {
            match structure.paragraphs.iter().find(|p| p.marker as i64 == marker) {
                Some(p) => segments.add(&structure, p.position, window, None),
                None => missing.push(json!(marker)),
            }
        }
        "marker"
    } else {
        let local = LocalQuery {
            query: item.query.unwrap_or_default(),
            section_hint: None,
            prefer_url: prefer,
            prefer_code: prefer,
        };
        for (position, score) in local_search(&structure, &local, cap) {
            segments.add(&structure, position, window, Some(score));
        }
        "schema_local_search"
    };
    if segments.out.is_empty() {
        let reason = match method {
            "schema_local_search" => "no paragraph of the paper matched hydration_query".into(),
            "marker" => "none of the marker_nums locates a paragraph of this paper".into(),
            _ => "none of the paragraph_ids locates a paragraph of this paper".into(),
        };
        return none(answer, reason, missing);
    }
    answer.insert("hydration_method".into(), json!(method));
    answer.insert("segments".into(), Value::Array(segments.out));
    answer.insert("reason".into(), Value::Null);
    answer.insert("missing".into(), Value::Array(missing));
    answer.insert("truncated".into(), json!(segments.truncated));
    Value::Object(answer)
}
