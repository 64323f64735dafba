//! The 18 Structured Paper operations (`/paper-schema`), one file per operation group of the
//! spec: request types, validation of every bound and narrowing rule, wire form.
//!
//! Wire conventions shared by the group: every request counts against [`Quota::PaperSchema`];
//! path parameters are percent-encoded as single path segments (a `/` in an id stays inside
//! its segment); GET array parameters are repeated pairs (`entity_types=A&entity_types=B`);
//! booleans are `true` / `false`.

mod capability;
mod citations;
mod discovery;
mod entities;
mod evidence;
mod materials;
mod provenance;
mod relations;

use percent_encoding::{utf8_percent_encode, AsciiSet, NON_ALPHANUMERIC};

pub use capability::Capabilities;
pub use citations::{CitationGraph, CitationSummary, Citations};
pub use discovery::{EntityRelatedPapers, RelatedPapers, Search, SearchFilters};
pub use entities::{Entities, Entity, EntityFilters, SearchEntities};
pub use evidence::{Evidence, SearchEvidence};
pub use materials::Materials;
pub use provenance::{HydrateItem, HydrateItems, ResolveProvenance, SearchInPaper};
pub use relations::{Relation, RelationFilters, SearchRelations};

use crate::error::Error;
use crate::request::{ApiRequest, Quota};
use crate::validate::{self as v, Check};

pub const BASE: &str = "/paper-schema";

crate::request_type::table! {
    "schema.capabilities" => Capabilities,
    "schema.search" => Search,
    "schema.entity_related_papers" => EntityRelatedPapers,
    "schema.related_papers" => RelatedPapers,
    "schema.search_entities" => SearchEntities,
    "schema.entities" => Entities,
    "schema.entity" => Entity,
    "schema.search_relations" => SearchRelations,
    "schema.relation" => Relation,
    "schema.citation_summary" => CitationSummary,
    "schema.citations" => Citations,
    "schema.citation_graph" => CitationGraph,
    "schema.search_evidence" => SearchEvidence,
    "schema.evidence" => Evidence,
    "schema.resolve_provenance" => ResolveProvenance,
    "schema.search_in_paper" => SearchInPaper,
    "schema.hydrate_items" => HydrateItems,
    "schema.materials" => Materials,
}

/// Everything but the unreserved characters of RFC 3986, so an id is always one path segment.
const SEGMENT: &AsciiSet = &NON_ALPHANUMERIC.remove(b'-').remove(b'.').remove(b'_').remove(b'~');

/// `id` percent-encoded as one path segment.
pub fn segment(id: &str) -> String {
    utf8_percent_encode(id, SEGMENT).to_string()
}

/// `/paper-schema/schemas/{schema_id}` followed by `rest` (segments already encoded).
fn schema_path(schema_id: &str, rest: &[&str]) -> String {
    let mut path = format!("{BASE}/schemas/{}", segment(schema_id));
    for part in rest {
        path.push('/');
        path.push_str(part);
    }
    path
}

/// A path parameter: non-empty, and not `.` or `..` (URLs resolve those away, even encoded).
fn path_id(param: &str, value: &str) -> Check {
    v::chars(param, value, 1, usize::MAX)?;
    if value == "." || value == ".." {
        return Err(Error::validation(param, "must not be '.' or '..' (a URL would drop that path segment)", value));
    }
    Ok(())
}

/// A condition counts only when it narrows something: a non-empty text or list.
fn given_text(value: &Option<String>) -> bool {
    value.as_deref().is_some_and(|s| !s.is_empty())
}

fn given_list<T>(value: &Option<Vec<T>>) -> bool {
    value.as_ref().is_some_and(|l| !l.is_empty())
}

fn get(path: String, query: Query) -> ApiRequest {
    ApiRequest::get(path, query.0, Some(Quota::PaperSchema))
}

fn post(path: String, body: &impl serde::Serialize) -> ApiRequest {
    ApiRequest::post_json(path, body, Some(Quota::PaperSchema))
}

/// The query string of a GET operation: only given values, arrays as repeated pairs.
#[derive(Default)]
struct Query(Vec<(String, String)>);

impl Query {
    fn value(mut self, key: &str, value: Option<impl ToString>) -> Query {
        if let Some(value) = value {
            self.0.push((key.to_string(), value.to_string()));
        }
        self
    }

    fn list(mut self, key: &str, values: Option<&[String]>) -> Query {
        for value in values.unwrap_or_default() {
            self.0.push((key.to_string(), value.clone()));
        }
        self
    }
}

#[cfg(test)]
mod testing {
    use serde_json::Value;

    use crate::error::Error;
    use crate::request::{ApiRequest, Quota};

    pub fn prepare(op: &str, params: Value) -> ApiRequest {
        let request = super::prepare(op, params.clone(), true).unwrap_or_else(|e| panic!("{op} {params}: {e}"));
        assert_eq!(request.quota, Some(Quota::PaperSchema), "{op}");
        request
    }

    pub fn body(request: &ApiRequest) -> Value {
        serde_json::from_slice(request.body.as_ref().expect("a POST body")).unwrap()
    }

    /// A POST to `path` whose body is `params` as given.
    pub fn assert_post(op: &str, params: Value, path: &str) {
        let request = prepare(op, params.clone());
        assert_eq!((request.method.as_str(), request.path.as_str()), ("POST", path), "{op}");
        assert_eq!(body(&request), params, "{op}");
    }

    pub fn pairs(request: &ApiRequest) -> Vec<(&str, &str)> {
        request.query.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect()
    }

    /// A GET of `path` with the query `expected`.
    pub fn assert_get(op: &str, params: Value, path: &str, expected: &[(&str, &str)]) {
        let request = prepare(op, params);
        assert_eq!((request.method.as_str(), request.path.as_str()), ("GET", path), "{op}");
        assert_eq!(pairs(&request), expected, "{op}");
    }

    /// `n` distinct ids, for lists over their bound.
    pub fn many(n: usize) -> Vec<String> {
        (0..n).map(|i| format!("x{i}")).collect()
    }

    /// The parameter a rejected request names.
    pub fn rejected(op: &str, params: Value) -> String {
        match super::prepare(op, params.clone(), true) {
            Err(Error::Validation { param, .. }) => param,
            other => panic!("{op} {params}: expected a validation error, got {other:?}"),
        }
    }

    /// Each case is rejected naming its parameter, and still sent as is without validation.
    pub fn assert_rules(op: &str, cases: &[(Value, &str)]) {
        for (params, param) in cases {
            assert_eq!(rejected(op, params.clone()), *param, "{op} {params}");
            assert!(super::prepare(op, params.clone(), false).is_ok(), "{op} {params} with validate=false");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_stay_one_segment() {
        assert_eq!(
            ["abc-1.2_x~", "10.1000/xyz 1", "a?b#c%d", "文"].map(segment),
            ["abc-1.2_x~", "10.1000%2Fxyz%201", "a%3Fb%23c%25d", "%E6%96%87"]
        );
        assert_eq!(schema_path("a/b", &["entities", &segment("e/1")]), "/paper-schema/schemas/a%2Fb/entities/e%2F1");
    }

    #[test]
    fn path_ids_are_non_empty_and_not_dot_segments() {
        assert!(path_id("schema_id", "s1").is_ok());
        for bad in ["", ".", ".."] {
            assert!(path_id("schema_id", bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn query_keeps_only_given_values_and_repeats_lists() {
        let lists = vec!["A".to_string(), "B".to_string()];
        let query = Query::default().list("t", Some(&lists)).value("size", Some(3)).value("b", None::<bool>).0;
        let expected: Vec<(String, String)> =
            [("t", "A"), ("t", "B"), ("size", "3")].iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        assert_eq!(query, expected);
    }
}
