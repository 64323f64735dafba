//! Every operation in one table: parameters in, a validated [`ApiRequest`] out.

use serde::de::DeserializeOwned;
use serde::Deserializer;

use crate::error::Error;
use crate::open_platform as op;
use crate::paper_schema as ps;
use crate::request::ApiRequest;

/// A request type of one operation: deserialized from the caller's parameters (unknown
/// names rejected), checked against the spec's bounds, then put on the wire.
pub trait Operation: DeserializeOwned + Rules {
    /// The spec's bounds and narrowing rules: by default, the rules of the fields.
    fn validate(&self) -> Result<(), Error> {
        self.rules("")
    }

    fn request(&self) -> ApiRequest;
}

/// The contract's rules on the fields of a request type, as [`request!`] declares them;
/// `prefix` goes before each field's name in an error (`filters.`).
pub trait Rules {
    fn rules(&self, prefix: &str) -> Result<(), Error>;
}

/// Declares a request type, or a part of one: its fields, each with the rules of the contract
/// on it, checked in order by [`Rules::rules`]. A rule is a function called as
/// `rule(param, &field, args...)` ([`crate::validate::rule`] has the common ones).
///
/// `body` types are sent as JSON without their absent fields; `query` types are only read
/// (their operation builds the query string). Both refuse unknown names. `=> send(path)`
/// also makes it an [`Operation`] whose request is `send(path, &self)`.
///
/// ```ignore
/// request! {
///     /// `POST /paper-schema/materials`: ...
///     body Materials => post(format!("{BASE}/materials")) {
///         schema_ids: Vec<String> [items(lists::MATERIALS_PAPERS)],
///         goal: Option<String> [one_of(&c::GOALS)],
///         include_relation_context: Option<bool>,
///     }
/// }
/// ```
macro_rules! request {
    ($(#[$meta:meta])* body $name:ident $(=> $send:ident($path:expr))? { $($fields:tt)* }) => {
        request!(@declare [
            $(#[$meta])*
            #[serde_with::skip_serializing_none]
            #[derive(Debug, serde::Deserialize, serde::Serialize)]
        ] $name $(=> $send($path))? { $($fields)* });
    };
    ($(#[$meta:meta])* query $name:ident $(=> $send:ident($path:expr))? { $($fields:tt)* }) => {
        request!(@declare [$(#[$meta])* #[derive(Debug, serde::Deserialize)]] $name $(=> $send($path))? { $($fields)* });
    };
    (@declare [$($attr:tt)*] $name:ident $(=> $send:ident($path:expr))? {
        $($(#[$field_meta:meta])* $field:ident: $ty:ty $([$($rule:ident($($arg:expr),*)),+])?),* $(,)?
    }) => {
        $($attr)*
        #[serde(deny_unknown_fields)]
        pub struct $name {
            $($(#[$field_meta])* pub $field: $ty,)*
        }

        impl $crate::operation::Rules for $name {
            #[allow(unused_variables)]
            fn rules(&self, prefix: &str) -> $crate::validate::Check {
                $($($($rule(&format!("{prefix}{}", stringify!($field)), &self.$field $(, $arg)*)?;)+)?)*
                Ok(())
            }
        }

        $(impl $crate::operation::Operation for $name {
            fn request(&self) -> $crate::request::ApiRequest {
                $send($path, self)
            }
        })?
    };
}

pub(crate) use request;

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
