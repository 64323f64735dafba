//! Paper discovery: keyword and metadata search, papers via similar entities, and the
//! related papers of a seed from term, entity and citation signals.

use std::cmp::Ordering;
use std::collections::{HashMap, HashSet};

use paperlens_core::contract::{self, lists};
use serde_json::{json, Map, Value};

use super::cursor::Paging;
use super::index::{normalize_name, type_code, EntityRow};
use super::params::{self, boolean, check_entity_subtypes, check_entity_types, query_text, strings};
use super::{entity_json, respond, round4, scored, Ctx, CONTRACT_VERSION};
use crate::service::corpus::structure::EntityType;
use crate::service::corpus::Paper;
use crate::service::error::{Result, STANDARD};
use crate::service::open_platform::params::Fields;
use crate::service::open_platform::permissions::field_visible;
use crate::service::search::tokens;
use crate::service::{ServiceRequest, ServiceResponse};

/// Weights of the related-paper signals in the combined score.
const WEIGHTS: [f64; 3] = [0.4, 0.35, 0.25];

fn query_tokens(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    tokens(text, &mut out);
    let mut seen = HashSet::new();
    out.retain(|t| seen.insert(t.clone()));
    out
}

// -- POST /paper-schema/search ---------------------------------------------------------------

#[derive(Default, PartialEq)]
struct PaperFilters {
    schema_ids: Option<HashSet<String>>,
    dois: Option<HashSet<String>>,
    authors: Option<HashSet<String>>,
    venues: Option<HashSet<String>>,
    year_gte: Option<i64>,
    year_lte: Option<i64>,
    has_code: Option<bool>,
    has_data: Option<bool>,
    is_oa: Option<bool>,
}

impl PaperFilters {
    fn parse(filters: Option<&Fields<'_>>) -> Result<PaperFilters> {
        let Some(f) = filters else {
            return Ok(PaperFilters::default());
        };
        f.allow_only(&[
            "schema_ids",
            "dois",
            "authors",
            "venues",
            "published_year_gte",
            "published_year_lte",
            "has_code",
            "has_data",
            "is_oa",
        ])?;
        let set = |list: Option<Vec<&str>>, normalize: fn(&str) -> String| {
            list.filter(|l| !l.is_empty()).map(|l| l.into_iter().map(normalize).collect::<HashSet<_>>())
        };
        let parsed = PaperFilters {
            schema_ids: set(strings(f, "schema_ids", lists::SCHEMA_IDS.max)?, str::to_string),
            dois: set(strings(f, "dois", lists::DOIS.max)?, |d| d.trim().to_lowercase()),
            authors: set(strings(f, "authors", lists::AUTHORS.max)?, normalize_name),
            venues: set(strings(f, "venues", lists::VENUES.max)?, normalize_name),
            year_gte: f.within("published_year_gte", contract::PUBLISHED_YEAR)?,
            year_lte: f.within("published_year_lte", contract::PUBLISHED_YEAR)?,
            has_code: boolean(f, "has_code")?,
            has_data: boolean(f, "has_data")?,
            is_oa: boolean(f, "is_oa")?,
        };
        if let (Some(gte), Some(lte)) = (parsed.year_gte, parsed.year_lte) {
            if gte > lte {
                return Err(
                    f.invalid("published_year_gte", format!("must not exceed published_year_lte ({gte} > {lte})"))
                );
            }
        }
        Ok(parsed)
    }

    /// At least one condition is given.
    fn narrows(&self) -> bool {
        *self != PaperFilters::default()
    }

    fn accepts(&self, ctx: &Ctx<'_>, paper: &Paper) -> bool {
        let facts = ctx.index().facts(paper.index);
        let year = paper.date.year as i64;
        self.schema_ids.as_ref().is_none_or(|s| paper.schema_id.as_ref().is_some_and(|id| s.contains(id)))
            && self.dois.as_ref().is_none_or(|s| paper.doi.as_ref().is_some_and(|d| s.contains(&d.to_lowercase())))
            && self.authors.as_ref().is_none_or(|s| {
                paper.authors.iter().any(|&a| s.contains(&normalize_name(&ctx.corpus.authors[a as usize].name)))
            })
            && self
                .venues
                .as_ref()
                .is_none_or(|s| s.contains(&normalize_name(&ctx.corpus.sources[paper.venue as usize].name)))
            && self.year_gte.is_none_or(|y| year >= y)
            && self.year_lte.is_none_or(|y| year <= y)
            && self.has_code.is_none_or(|b| facts.is_some_and(|f| f.has_code == b))
            && self.has_data.is_none_or(|b| facts.is_some_and(|f| f.has_data == b))
            && self.is_oa.is_none_or(|b| paper.open_access.is_oa == b)
    }
}

fn sort_value(paper: &Paper, field: &str) -> f64 {
    match field {
        "year" => paper.date.year as f64,
        "metrics.citation_count" => paper.citation_count() as f64,
        "metrics.reference_count" => paper.reference_count() as f64,
        _ => paper.fwci,
    }
}

/// The Open Platform field a sort field of a paper card stands for (`metrics.fwci`: `fwci`).
fn metric(field: &str) -> &str {
    field.strip_prefix("metrics.").unwrap_or(field)
}

fn parse_sort(body: &Fields<'_>) -> Result<Vec<(&'static str, bool)>> {
    let Some(items) = body.array("sort")? else {
        return Ok(Vec::new());
    };
    if !lists::SORT.contains(items.len()) {
        let (max, n) = (lists::SORT.max, items.len());
        return Err(body.invalid("sort", format!("must hold at most {max} items (got {n})")));
    }
    let mut sort = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let name = format!("sort[{i}]");
        let Value::Object(map) = item else {
            return Err(body.invalid(&name, "must be an object {\"field\": ..., \"order\": \"asc\" | \"desc\"}"));
        };
        let item = Fields::new(map, &name, body.dialect);
        item.allow_only(&["field", "order"])?;
        let field =
            item.one_of("field", &contract::PAPER_SORTABLE)?.ok_or_else(|| item.invalid("field", "is required"))?;
        let descending = item.one_of("order", &contract::PAPER_SORT_ORDERS)? != Some("asc");
        sort.push((field, descending));
    }
    Ok(sort)
}

pub fn search(ctx: &Ctx<'_>, request: &ServiceRequest, _: &[String]) -> Result<ServiceResponse> {
    let map = params::body(&request.body)?;
    let body = params::fields(&map);
    body.allow_only(&["query", "filters", "sort", "size", "cursor"])?;
    let query = query_text(&body, "query")?;
    let filters = PaperFilters::parse(body.object("filters")?.as_ref())?;
    if query.is_none() && !filters.narrows() {
        return Err(body.invalid("query", "or filters (with at least one condition) is required"));
    }
    let sort = parse_sort(&body)?;
    if let Some((field, _)) = sort.iter().find(|(field, _)| !field_visible(ctx.access, metric(field))) {
        return Err(STANDARD.forbidden(format!("the token has no permission for the field '{field}' (in 'sort')")));
    }
    let paging = Paging::of("search", &map, &body, contract::SEARCH_SIZE)?;

    let index = ctx.index();
    let corpus = ctx.corpus;
    let paper_of = |rank: u32| &corpus.papers[index.order[rank as usize] as usize];
    let accept = |rank: u32| filters.accepts(ctx, paper_of(rank));
    let mut hits: Vec<(u32, f32)> = match query {
        Some(q) => index.papers.search(&query_tokens(q), 1, accept).into_iter().map(|m| (m.doc, m.score)).collect(),
        None => (0..index.order.len() as u32).filter(|&r| accept(r)).map(|r| (r, 0.0)).collect(),
    };
    hits.sort_by(|a, b| {
        for (field, descending) in &sort {
            let (x, y) = (sort_value(paper_of(a.0), field), sort_value(paper_of(b.0), field));
            let order = x.partial_cmp(&y).unwrap_or(Ordering::Equal);
            let order = if *descending { order.reverse() } else { order };
            if order != Ordering::Equal {
                return order;
            }
        }
        b.1.partial_cmp(&a.1).unwrap_or(Ordering::Equal).then(a.0.cmp(&b.0))
    });
    let mut answer = paging.page(&hits, |&(rank, score)| scored(ctx.card(index.order[rank as usize]), query, score));
    answer["contract_version"] = json!(CONTRACT_VERSION);
    respond(answer)
}

// -- POST /paper-schema/entities/related-papers ----------------------------------------------

/// Entity type and subtype filters, checked against the taxonomy.
pub struct EntityKinds {
    pub types: Option<Vec<EntityType>>,
    pub subtypes: Option<Vec<String>>,
}

impl EntityKinds {
    pub fn new(types: Option<Vec<&str>>, subtypes: Option<Vec<&str>>, prefix: &str) -> Result<Self> {
        let types = types.filter(|t| !t.is_empty());
        let subtypes = subtypes.filter(|t| !t.is_empty());
        let kinds = match &types {
            Some(t) => Some(check_entity_types(&format!("{prefix}entity_types"), t)?),
            None => None,
        };
        if let Some(s) = &subtypes {
            check_entity_subtypes(&format!("{prefix}entity_subtypes"), s)?;
        }
        Ok(EntityKinds { types: kinds, subtypes: subtypes.map(|s| s.into_iter().map(str::to_string).collect()) })
    }

    pub fn accepts(&self, kind: EntityType, subtype: &str) -> bool {
        self.types.as_ref().is_none_or(|t| t.contains(&kind))
            && self.subtypes.as_ref().is_none_or(|s| s.iter().any(|x| x == subtype))
    }

    pub fn accepts_row(&self, row: &EntityRow) -> bool {
        self.accepts(row.kind, row.subtype)
    }
}

/// A paper, its score and its matching entities (entity document, score), best first.
type PaperMatches = (u32, f64, Vec<(u32, f32)>);

pub fn entity_related_papers(ctx: &Ctx<'_>, request: &ServiceRequest, _: &[String]) -> Result<ServiceResponse> {
    let map = params::body(&request.body)?;
    let body = params::fields(&map);
    body.allow_only(&["query", "entity_types", "entity_subtypes", "exclude_schema_ids", "size", "cursor"])?;
    let query = query_text(&body, "query")?.ok_or_else(|| body.invalid("query", "is required"))?;
    let kinds = EntityKinds::new(
        strings(&body, "entity_types", lists::ENTITY_KINDS.max)?,
        strings(&body, "entity_subtypes", lists::ENTITY_KINDS.max)?,
        "",
    )?;
    let exclude: HashSet<&str> =
        strings(&body, "exclude_schema_ids", lists::EXCLUDE_SCHEMA_IDS.max)?.unwrap_or_default().into_iter().collect();
    let paging = Paging::of("entity_related_papers", &map, &body, contract::SEARCH_SIZE)?;

    let index = ctx.index();
    let wanted = query_tokens(query);
    let matches = index.entity_terms.search(&wanted, 1, |doc| {
        let row = &index.entities[doc as usize];
        kinds.accepts_row(row) && !exclude.contains(ctx.schema_id(row.paper))
    });
    // Per paper: its matching entities, best first.
    let mut per_paper: HashMap<u32, Vec<(u32, f32)>> = HashMap::new();
    for m in matches {
        per_paper.entry(index.entities[m.doc as usize].paper).or_default().push((m.doc, m.score));
    }
    let mut papers: Vec<PaperMatches> = per_paper
        .into_iter()
        .map(|(paper, mut found)| {
            found.sort_by(|a, b| b.1.partial_cmp(&a.1).unwrap_or(Ordering::Equal).then(a.0.cmp(&b.0)));
            let score = found.iter().take(3).zip([1.0, 0.5, 0.25]).map(|((_, s), w)| *s as f64 * w).sum();
            (paper, score, found)
        })
        .collect();
    papers.sort_by(|a, b| {
        b.1.partial_cmp(&a.1).unwrap_or(Ordering::Equal).then(index.rank_of(a.0).cmp(&index.rank_of(b.0)))
    });
    respond(paging.page(&papers, |(paper, score, found)| {
        let structure = ctx.structure(*paper);
        let mut matched = Vec::new();
        let mut reasons = Vec::new();
        for &(doc, entity_score) in found.iter().take(3) {
            let row = &index.entities[doc as usize];
            let entity = &structure.entities[row.ordinal as usize];
            let mut own = Vec::new();
            tokens(&entity.name, &mut own);
            tokens(&entity.text, &mut own);
            let shared: Vec<&str> = wanted.iter().filter(|t| own.contains(t)).map(String::as_str).collect();
            reasons.push(format!(
                "{}/{} '{}' is similar to the query (shared terms: {})",
                entity.entity_type.as_str(),
                entity.entity_subtype,
                entity.name,
                shared.join(", ")
            ));
            let mut summary = entity_json(&structure.schema_id, entity);
            summary["score"] = json!(round4(entity_score as f64));
            matched.push(summary);
        }
        json!({
            "schema_id": structure.schema_id,
            "schema_paper": ctx.card(*paper),
            "score": round4(*score),
            "matched_entities": matched,
            "match_reasons": reasons,
        })
    }))
}

// -- POST /paper-schema/schemas/{schema_id}/related-papers -----------------------------------

#[derive(Default, Clone)]
struct Candidate {
    signals: [f64; 3],
    reasons: Vec<String>,
}

pub fn related_papers(ctx: &Ctx<'_>, request: &ServiceRequest, ids: &[String]) -> Result<ServiceResponse> {
    let map = params::body(&request.body)?;
    let body = params::fields(&map);
    body.allow_only(&["signals", "exclude_same_work", "size"])?;
    let signals: Vec<usize> = match strings(&body, "signals", lists::SIGNALS.max)? {
        None => vec![0, 1, 2],
        Some(list) if list.is_empty() => return Err(body.invalid("signals", "must hold 1-3 of term, entity, citation")),
        Some(list) => {
            let mut chosen = Vec::new();
            for (i, s) in list.iter().enumerate() {
                let k = contract::SIGNALS.iter().position(|x| x == s).ok_or_else(|| {
                    body.invalid(&format!("signals[{i}]"), format!("must be one of term, entity, citation (got '{s}')"))
                })?;
                if !chosen.contains(&k) {
                    chosen.push(k);
                }
            }
            chosen
        }
    };
    let exclude_same_work = boolean(&body, "exclude_same_work")?.unwrap_or(true);
    let size = body.bounded("size", contract::RELATED_PAPERS_SIZE)? as usize;
    let seed = ctx.paper(&ids[0])?;
    let index = ctx.index();
    let corpus = ctx.corpus;
    let seed_rank = index.rank_of(seed.index).unwrap_or(u32::MAX);
    let mut candidates: HashMap<u32, Candidate> = HashMap::new();

    if signals.contains(&0) {
        let facts = index.facts(seed.index);
        let mut text = seed.title.clone();
        if let Some(f) = facts {
            text.push(' ');
            text.push_str(&f.research_problem);
        }
        for keyword in &seed.keywords {
            text.push(' ');
            text.push_str(keyword);
        }
        let wanted = query_tokens(&text);
        let mut hits = index.papers.search(&wanted, 2, |r| r != seed_rank);
        hits.sort_by(|a, b| b.score.partial_cmp(&a.score).unwrap_or(Ordering::Equal).then(a.doc.cmp(&b.doc)));
        hits.truncate(200);
        let best = hits.first().map_or(1.0, |m| m.score.max(f32::EPSILON));
        for m in hits {
            let c = candidates.entry(m.doc).or_default();
            c.signals[0] = (m.score / best) as f64;
            c.reasons.push(format!("shares {} of {} key terms of the seed", m.matched, wanted.len()));
        }
    }
    if signals.contains(&1) {
        let structure = ctx.structure(seed.index);
        let own: Vec<(u8, String, &str, &str)> = structure
            .entities
            .iter()
            .filter(|e| !matches!(e.entity_type, EntityType::Finding | EntityType::Reference))
            .map(|e| (type_code(e.entity_type), normalize_name(&e.name), e.entity_type.as_str(), e.name.as_str()))
            .collect();
        let mut shared: HashMap<u32, Vec<String>> = HashMap::new();
        for (code, name, kind, display) in &own {
            for &r in index.entity_names.get(&(*code, name.clone())).into_iter().flatten() {
                if r != seed_rank {
                    shared.entry(r).or_default().push(format!("{kind} '{display}'"));
                }
            }
        }
        for (r, names) in shared {
            let c = candidates.entry(r).or_default();
            c.signals[1] = names.len() as f64 / own.len().max(1) as f64;
            c.reasons.push(format!("similar entities: {}", names.join(", ")));
        }
    }
    if signals.contains(&2) {
        // Resolved edges only: references and citers that are structured papers.
        let resolved: Vec<u32> = seed.references.iter().filter_map(|&r| index.rank_of(r)).collect();
        let citers = &index.cited_by[seed.index as usize];
        let mut score: HashMap<u32, (bool, bool, u32, u32)> = HashMap::new();
        for &r in &resolved {
            score.entry(r).or_default().0 = true;
            for &c in &index.cited_by[index.order[r as usize] as usize] {
                if c != seed_rank {
                    score.entry(c).or_default().2 += 1;
                }
            }
        }
        for &c in citers {
            score.entry(c).or_default().1 = true;
            for &r in &corpus.papers[index.order[c as usize] as usize].references {
                if let Some(r) = index.rank_of(r).filter(|&r| r != seed_rank) {
                    score.entry(r).or_default().3 += 1;
                }
            }
        }
        for (r, (cited, citing, coupled, cocited)) in score {
            let value =
                (if cited || citing { 0.6 } else { 0.0 }) + 0.1 * coupled.min(2) as f64 + 0.1 * cocited.min(2) as f64;
            let c = candidates.entry(r).or_default();
            c.signals[2] = value.min(1.0);
            let mut parts = Vec::new();
            if cited {
                parts.push("cited by the seed".to_string());
            }
            if citing {
                parts.push("cites the seed".to_string());
            }
            if coupled > 0 {
                parts.push(format!("{coupled} shared resolved references"));
            }
            if cocited > 0 {
                parts.push(format!("co-cited with the seed {cocited} times"));
            }
            c.reasons.push(format!("citation: {}", parts.join("; ")));
        }
    }

    let mut warnings = Vec::new();
    let mut ranked: Vec<(u32, f64, Candidate)> = candidates
        .into_iter()
        .filter_map(|(rank, c)| {
            let paper = index.order[rank as usize];
            if exclude_same_work && index.same_work(corpus, seed.index, paper) {
                return None;
            }
            let score: f64 = signals.iter().map(|&s| WEIGHTS[s] * c.signals[s]).sum();
            (score > 0.0).then_some((rank, score, c))
        })
        .collect();
    ranked.sort_by(|a, b| b.1.partial_cmp(&a.1).unwrap_or(Ordering::Equal).then(a.0.cmp(&b.0)));
    let truncated = ranked.len() > size;
    ranked.truncate(size);
    if ranked.is_empty() {
        warnings.push("no candidate shares a signal with the seed paper".to_string());
    }
    let items: Vec<Value> = ranked
        .into_iter()
        .map(|(rank, score, mut c)| {
            let paper = index.order[rank as usize];
            let components: Map<String, Value> = signals
                .iter()
                .map(|&s| (contract::SIGNALS[s].to_string(), json!(round4(WEIGHTS[s] * c.signals[s]))))
                .collect();
            if index.same_work(corpus, seed.index, paper) {
                c.reasons.push("another version of the same work".into());
            }
            json!({
                "schema_id": ctx.schema_id(paper),
                "schema_paper": ctx.card(paper),
                "score": round4(score),
                "score_components": components,
                "reasons": c.reasons,
            })
        })
        .collect();
    respond(json!({
        "seed": ctx.card(seed.index),
        "signals": signals.iter().map(|&s| contract::SIGNALS[s]).collect::<Vec<_>>(),
        "items": items,
        "truncated": truncated,
        "warnings": warnings,
    }))
}
