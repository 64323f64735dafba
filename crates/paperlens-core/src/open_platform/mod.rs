//! The six Open Platform operations, one file each: request type, validation, wire form.

mod agentic_search;
mod content;
mod meta_catalog;
mod meta_search;
mod paper_relations;
mod resource;

pub use agentic_search::AgenticSearch;
pub use content::Content;
pub use meta_catalog::MetaCatalog;
pub use meta_search::{FacetItem, FilterItem, MetaSearch, SortItem};
pub use paper_relations::PaperRelations;
pub use resource::Resource;

use serde::Deserializer;

use crate::error::Error;
use crate::request::ApiRequest;
use crate::request_type::{build, unknown_operation};

/// Builds the request of operation `name` of this group (see [`crate::operation::prepare`]).
pub fn prepare<'de, D: Deserializer<'de>>(name: &str, params: D, validate: bool) -> Result<ApiRequest, Error> {
    match name {
        "agentic_search" => build::<AgenticSearch, D>(params, validate),
        "content" => build::<Content, D>(params, validate),
        "resource" => build::<Resource, D>(params, validate),
        "meta_catalog" => build::<MetaCatalog, D>(params, validate),
        "meta_search" => build::<MetaSearch, D>(params, validate),
        "paper_relations" => build::<PaperRelations, D>(params, validate),
        _ => Err(unknown_operation(name)),
    }
}
