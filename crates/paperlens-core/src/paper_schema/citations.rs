//! External citations of one paper: counts, the complete list, the resolved graph.

use super::{get, path_id, schema_path, Query};
use crate::contract as c;
use crate::request::ApiRequest;
use crate::request_type::{request, Operation};
use crate::validate::rule::{one_of, within};

request! {
    /// `GET /paper-schema/schemas/{schema_id}/citation-summary`.
    query CitationSummary {
        schema_id: String [path_id()],
    }
}

impl Operation for CitationSummary {
    fn request(&self) -> ApiRequest {
        get(schema_path(&self.schema_id, &["citation-summary"]), Query::default())
    }
}

request! {
    /// `GET /paper-schema/schemas/{schema_id}/citations`: every reference, resolved or not.
    query Citations {
        schema_id: String [path_id()],
        size: Option<i64> [within(c::LIST_SIZE)],
        cursor: Option<String>,
    }
}

impl Operation for Citations {
    fn request(&self) -> ApiRequest {
        let query = Query::default().value("size", self.size).value("cursor", self.cursor.as_ref());
        get(schema_path(&self.schema_id, &["citations"]), query)
    }
}

request! {
    /// `GET /paper-schema/schemas/{schema_id}/citation-graph`: resolved edges expanded from a root.
    query CitationGraph {
        schema_id: String [path_id()],
        direction: Option<String> [one_of(&c::DIRECTIONS)],
        depth: Option<i64> [within(c::DEPTH)],
        max_nodes: Option<i64> [within(c::MAX_NODES)],
        max_edges: Option<i64> [within(c::MAX_EDGES)],
    }
}

impl Operation for CitationGraph {
    fn request(&self) -> ApiRequest {
        let query = Query::default()
            .value("direction", self.direction.as_ref())
            .value("depth", self.depth)
            .value("max_nodes", self.max_nodes)
            .value("max_edges", self.max_edges);
        get(schema_path(&self.schema_id, &["citation-graph"]), query)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use crate::paper_schema::testing::{assert_get, assert_rules};

    #[test]
    fn list_and_summary() {
        assert_get(
            "schema.citations",
            json!({"schema_id": "s1", "size": 100, "cursor": "abc=="}),
            "/paper-schema/schemas/s1/citations",
            &[("size", "100"), ("cursor", "abc==")],
        );
        assert_rules(
            "schema.citations",
            &[
                (json!({"schema_id": ""}), "schema_id"),
                (json!({"schema_id": "s", "size": 0}), "size"),
                (json!({"schema_id": "s", "size": 101}), "size"),
            ],
        );
        assert_get(
            "schema.citation_summary",
            json!({"schema_id": "s1"}),
            "/paper-schema/schemas/s1/citation-summary",
            &[],
        );
        assert_rules("schema.citation_summary", &[(json!({"schema_id": ""}), "schema_id")]);
    }

    #[test]
    fn graph() {
        assert_get(
            "schema.citation_graph",
            json!({"schema_id": "s1", "direction": "inbound", "depth": 3, "max_nodes": 2, "max_edges": 500}),
            "/paper-schema/schemas/s1/citation-graph",
            &[("direction", "inbound"), ("depth", "3"), ("max_nodes", "2"), ("max_edges", "500")],
        );
        assert_rules(
            "schema.citation_graph",
            &[
                (json!({"schema_id": ""}), "schema_id"),
                (json!({"schema_id": "s", "direction": "both"}), "direction"),
                (json!({"schema_id": "s", "depth": 0}), "depth"),
                (json!({"schema_id": "s", "depth": 4}), "depth"),
                (json!({"schema_id": "s", "max_nodes": 1}), "max_nodes"),
                (json!({"schema_id": "s", "max_nodes": 501}), "max_nodes"),
                (json!({"schema_id": "s", "max_edges": 0}), "max_edges"),
                (json!({"schema_id": "s", "max_edges": 501}), "max_edges"),
            ],
        );
    }
}
