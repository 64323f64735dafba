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

crate::request_type::table! {
    "agentic_search" => AgenticSearch,
    "content" => Content,
    "resource" => Resource,
    "meta_catalog" => MetaCatalog,
    "meta_search" => MetaSearch,
    "paper_relations" => PaperRelations,
}
