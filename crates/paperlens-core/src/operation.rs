//! Every operation in one table: parameters in, a validated [`ApiRequest`] out.

use serde::de::DeserializeOwned;
use serde::Deserializer;

use crate::error::Error;
use crate::open_platform as op;
use crate::paper_schema as ps;
use crate::request::ApiRequest;

/// A request type of one operation: deserialized from the caller's parameters (unknown
/// names rejected), checked against the spec's bounds, then put on the wire.
pub trait Operation: DeserializeOwned {
    fn validate(&self) -> Result<(), Error>;
    fn request(&self) -> ApiRequest;
}

/// Builds the request of operation `name` (the Python method name) from `params`.
/// With `validate` false the bounds are not checked and the request is sent as given.
pub fn prepare<'de, D: Deserializer<'de>>(name: &str, params: D, validate: bool) -> Result<ApiRequest, Error> {
    match name {
        "agentic_search" => build::<op::AgenticSearch, D>(params, validate),
        "content" => build::<op::Content, D>(params, validate),
        "resource" => build::<op::Resource, D>(params, validate),
        "meta_catalog" => build::<op::MetaCatalog, D>(params, validate),
        "meta_search" => build::<op::MetaSearch, D>(params, validate),
        "paper_relations" => build::<op::PaperRelations, D>(params, validate),
        "schema.capabilities" => build::<ps::Capabilities, D>(params, validate),
        "schema.search" => build::<ps::Search, D>(params, validate),
        "schema.entity_related_papers" => build::<ps::EntityRelatedPapers, D>(params, validate),
        "schema.related_papers" => build::<ps::RelatedPapers, D>(params, validate),
        "schema.search_entities" => build::<ps::SearchEntities, D>(params, validate),
        "schema.entities" => build::<ps::Entities, D>(params, validate),
        "schema.entity" => build::<ps::Entity, D>(params, validate),
        "schema.search_relations" => build::<ps::SearchRelations, D>(params, validate),
        "schema.relation" => build::<ps::Relation, D>(params, validate),
        "schema.citation_summary" => build::<ps::CitationSummary, D>(params, validate),
        "schema.citations" => build::<ps::Citations, D>(params, validate),
        "schema.citation_graph" => build::<ps::CitationGraph, D>(params, validate),
        "schema.search_evidence" => build::<ps::SearchEvidence, D>(params, validate),
        "schema.evidence" => build::<ps::Evidence, D>(params, validate),
        "schema.resolve_provenance" => build::<ps::ResolveProvenance, D>(params, validate),
        "schema.search_in_paper" => build::<ps::SearchInPaper, D>(params, validate),
        "schema.hydrate_items" => build::<ps::HydrateItems, D>(params, validate),
        "schema.materials" => build::<ps::Materials, D>(params, validate),
        _ => Err(Error::Configuration(format!("unknown operation {name:?}"))),
    }
}

fn build<'de, O: Operation, D: Deserializer<'de>>(params: D, validate: bool) -> Result<ApiRequest, Error> {
    let operation: O = serde_path_to_error::deserialize(params).map_err(|e| Error::Validation {
        param: e.path().to_string(),
        rule: e.inner().to_string(),
        value: String::new(),
    })?;
    if validate {
        operation.validate()?;
    }
    Ok(operation.request())
}
