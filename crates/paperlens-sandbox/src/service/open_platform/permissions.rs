//! What a restricted token may see.
//!
//! - Fields: the citation-impact fields `fwci`, `citations` and
//!   `citation_normalized_percentile` (with its dotted sub-fields) are hidden. The
//!   catalog does not list them, default results leave them out, and naming them in
//!   `filters`, `sort`, `fields` or `facets` of `/meta-search` answers 403
//!   `PERMISSION_DENIED`.
//! - Full texts: `/content` of a paper that is not open access answers 403 `FORBIDDEN`,
//!   and so does `/resource` for the figures and supplements of such a paper.
//!
//! A full-access token sees everything. `/agentic-search` hits, which carry none of
//! the hidden fields and only a passage of text, are the same for both.

use crate::service::corpus::Paper;
use crate::service::Access;

pub const RESTRICTED_FIELDS: [&str; 3] = ["fwci", "citations", "citation_normalized_percentile"];

/// Whether a field (or a dotted sub-field) is visible to the token.
pub fn field_visible(access: Access, field: &str) -> bool {
    let root = field.split('.').next().unwrap_or(field);
    access == Access::Full || !RESTRICTED_FIELDS.contains(&root)
}

pub fn full_text_visible(access: Access, paper: &Paper) -> bool {
    access == Access::Full || paper.open_access.is_oa
}
