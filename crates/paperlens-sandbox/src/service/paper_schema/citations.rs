//! External citations of one paper: the summary, the complete list (resolved, unresolved,
//! target_unavailable) and the breadth-first graph of resolved paper-level edges.

use std::collections::HashSet;

use paperlens_core::contract as c;
use serde_json::{json, Value};

use super::cursor;
use super::params::{allow_query, query_bounded};
use super::{find_entity, provenance_json, respond, Ctx};
use crate::service::corpus::structure::Resolution;
use crate::service::corpus::PaperStructure;
use crate::service::error::{Result, STANDARD};
use crate::service::open_platform::params::query_param;
use crate::service::{ServiceRequest, ServiceResponse};

pub fn summary(ctx: &Ctx<'_>, request: &ServiceRequest, ids: &[String]) -> Result<ServiceResponse> {
    allow_query(&request.query, &[])?;
    let paper = ctx.paper(&ids[0])?;
    let structure = ctx.structure(paper.index);
    let total = structure.citations.len();
    let resolved: Vec<u32> = structure
        .citations
        .iter()
        .filter_map(|c| match c.resolution {
            Resolution::Resolved { target } => Some(target),
            _ => None,
        })
        .collect();
    let unavailable =
        structure.citations.iter().filter(|c| matches!(c.resolution, Resolution::TargetUnavailable { .. })).count();
    let distinct: HashSet<u32> = resolved.iter().copied().collect();
    let coverage = if total == 0 { 0.0 } else { (resolved.len() as f64 / total as f64 * 10_000.0).round() / 10_000.0 };
    respond(json!({
        "schema_id": structure.schema_id,
        "outbound": {
            "reference_count_total": total,
            "resolved_reference_count": resolved.len(),
            "unresolved_reference_count": total - resolved.len(),
            "target_unavailable_count": unavailable,
            "resolution_coverage": coverage,
            "resolved_target_schema_count": distinct.len(),
        },
        "inbound": {
            "external_citation_count": paper.citation_count(),
            "resolved_corpus_edge_count": ctx.index().cited_by[paper.index as usize].len(),
        },
    }))
}

fn citation_json(ctx: &Ctx<'_>, structure: &PaperStructure, k: usize) -> Value {
    let citation = &structure.citations[k];
    let provenance = find_entity(structure, &citation.reference_entity_id)
        .map_or(Value::Array(Vec::new()), |e| provenance_json(&e.provenance));
    let target = match citation.resolution {
        Resolution::Resolved { target } => Some(target),
        _ => None,
    };
    json!({
        "relation": {
            "relation_id": format!("c{}", k + 1),
            "relation_type": citation.relation,
            "schema_id": structure.schema_id,
            "target_entity_id": citation.reference_entity_id,
            "provenance": provenance,
        },
        "reference": {
            "entity_id": citation.reference_entity_id,
            "entity_type": "Reference",
            "title": citation.title,
            "authors": citation.authors,
            "year": citation.year,
        },
        "resolution": {
            "status": citation.resolution.status(),
            "target_schema_id": target.map(|t| ctx.schema_id(t)),
        },
        "target_schema": target.map_or(Value::Null, |t| ctx.card(t)),
    })
}

pub fn list(ctx: &Ctx<'_>, request: &ServiceRequest, ids: &[String]) -> Result<ServiceResponse> {
    let query = &request.query;
    allow_query(query, &["size", "cursor"])?;
    let size = query_bounded(query, "size", c::LIST_SIZE, STANDARD)? as usize;
    let paper = ctx.paper(&ids[0])?;
    let signature = cursor::signature(&["citations", &ids[0]]);
    let start = cursor::start(query_param(query, "cursor"), signature)?;
    let structure = ctx.structure(paper.index);
    let total = structure.citations.len();
    let (range, next_cursor) = cursor::page(total, start, size, signature);
    let items: Vec<Value> = range.map(|k| citation_json(ctx, &structure, k)).collect();
    respond(json!({
        "schema_id": structure.schema_id,
        "total": total,
        "items": items,
        "next_cursor": next_cursor,
    }))
}

pub fn graph(ctx: &Ctx<'_>, request: &ServiceRequest, ids: &[String]) -> Result<ServiceResponse> {
    let query = &request.query;
    allow_query(query, &["direction", "depth", "max_nodes", "max_edges"])?;
    let given = query_param(query, "direction").unwrap_or(c::DIRECTIONS[0]);
    let direction = c::DIRECTIONS.into_iter().find(|d| *d == given).ok_or_else(|| {
        let allowed = c::DIRECTIONS.join(" or ");
        STANDARD.invalid_param("direction", format!("'direction' must be {allowed} (got '{given}')"))
    })?;
    let depth = query_bounded(query, "depth", c::DEPTH, STANDARD)? as u32;
    let max_nodes = query_bounded(query, "max_nodes", c::MAX_NODES, STANDARD)? as usize;
    let max_edges = query_bounded(query, "max_edges", c::MAX_EDGES, STANDARD)? as usize;
    let root = ctx.paper(&ids[0])?;
    let expansion = expand(ctx, root.index, direction == "outbound", depth, max_nodes, max_edges);

    let nodes: Vec<Value> = expansion
        .nodes
        .iter()
        .map(|&(paper, d)| {
            let mut node = ctx.card(paper);
            node["availability"] = json!("available");
            node["depth"] = json!(d);
            node
        })
        .collect();
    let edges: Vec<Value> = expansion
        .edges
        .iter()
        .map(|&(source, target, d)| {
            json!({
                "source_schema_id": ctx.schema_id(source),
                "target_schema_id": ctx.schema_id(target),
                "citation_count": 1,
                "relation_type": "cites",
                "resolution_status": "resolved",
                "depth": d,
            })
        })
        .collect();
    let mut warnings = Vec::new();
    if expansion.truncated {
        warnings.push(format!(
            "the graph reached its cap (max_nodes={max_nodes}, max_edges={max_edges}): narrow \
             the depth or expand in batches around chosen nodes"
        ));
    }
    respond(json!({
        "root_schema_id": root.schema_id,
        "direction": direction,
        "depth": depth,
        "nodes": nodes,
        "edges": edges,
        "levels": expansion.levels,
        "truncated": expansion.truncated,
        "warnings": warnings,
    }))
}

pub struct Expansion {
    /// (corpus index, depth at which the node was reached).
    pub nodes: Vec<(u32, u32)>,
    /// (citing paper, cited paper, depth of the expansion that found the edge).
    pub edges: Vec<(u32, u32, u32)>,
    pub levels: Vec<Value>,
    pub truncated: bool,
}

/// Breadth-first expansion over resolved edges: each node of depth `d < depth` is expanded
/// once; a new neighbour joins while fewer than `max_nodes` nodes are held, an edge while
/// fewer than `max_edges` edges are; the first refusal marks the graph truncated.
pub fn expand(ctx: &Ctx<'_>, root: u32, outbound: bool, depth: u32, max_nodes: usize, max_edges: usize) -> Expansion {
    let index = ctx.index();
    let neighbours = |paper: u32| -> Vec<u32> {
        if outbound {
            ctx.corpus.papers[paper as usize]
                .references
                .iter()
                .copied()
                .filter(|&r| index.rank_of(r).is_some())
                .collect()
        } else {
            index.cited_by[paper as usize].iter().map(|&r| index.order[r as usize]).collect()
        }
    };
    let mut nodes = vec![(root, 0u32)];
    let mut held: HashSet<u32> = HashSet::from([root]);
    let mut edges = Vec::new();
    let mut levels = Vec::new();
    let mut truncated = false;
    let mut frontier = vec![root];
    'levels: for d in 1..=depth {
        let (mut new_nodes, mut new_edges, mut next) = (0usize, 0usize, Vec::new());
        let mut stop = false;
        'expand: for &u in &frontier {
            for v in neighbours(u) {
                if !held.contains(&v) {
                    if nodes.len() >= max_nodes {
                        truncated = true;
                        continue;
                    }
                    if edges.len() >= max_edges {
                        truncated = true;
                        stop = true;
                        break 'expand;
                    }
                    held.insert(v);
                    nodes.push((v, d));
                    next.push(v);
                    new_nodes += 1;
                }
                if edges.len() >= max_edges {
                    truncated = true;
                    stop = true;
                    break 'expand;
                }
                let (source, target) = if outbound { (u, v) } else { (v, u) };
                edges.push((source, target, d));
                new_edges += 1;
            }
        }
        levels.push(json!({
            "depth": d,
            "frontier": frontier.len(),
            "new_nodes": new_nodes,
            "new_edges": new_edges,
        }));
        frontier = next;
        if stop || frontier.is_empty() {
            break 'levels;
        }
    }
    Expansion { nodes, edges, levels, truncated }
}
