//! The six Open Platform operations, one module each.

pub mod agentic_search;
pub mod content;
pub mod meta_catalog;
pub mod meta_search;
pub mod paper_relations;
pub mod params;
pub mod permissions;
pub mod resource;
