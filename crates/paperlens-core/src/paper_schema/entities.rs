//! Entities: search across papers, the paged entity set of one paper, one entity.

use super::{get, given_list, path_id, post, schema_path, segment, Query, BASE};
use crate::contract::{self as c, lists};
use crate::error::Error;
use crate::request::ApiRequest;
use crate::request_type::{request, Operation};
use crate::validate::rule::{items, nested, text, within};
use crate::validate::Check;

request! {
    /// `POST /paper-schema/entities/search`: entities by keyword, within papers or across them.
    body SearchEntities => post(format!("{BASE}/entities/search")) requires(SearchEntities::scoped) {
        query: Option<String> [text(c::QUERY_CHARS)],
        filters: Option<EntityFilters> [nested()],
        hydrate_schema_papers: Option<bool>,
        size: Option<i64> [within(c::SEARCH_SIZE)],
        cursor: Option<String>,
    }
}

impl SearchEntities {
    /// A query, or papers to list the entities of.
    fn scoped(&self) -> Check {
        let scoped = self.filters.as_ref().is_some_and(|f| given_list(&f.schema_ids));
        if self.query.is_none() && !scoped {
            return Err(Error::rule("query", "is required unless filters.schema_ids is given"));
        }
        Ok(())
    }
}

request! {
    body EntityFilters {
        schema_ids: Option<Vec<String>> [items(lists::SCHEMA_IDS)],
        entity_types: Option<Vec<String>> [items(lists::ENTITY_KINDS)],
        entity_subtypes: Option<Vec<String>> [items(lists::ENTITY_KINDS)],
        sections: Option<Vec<String>> [items(lists::SECTIONS)],
    }
}

request! {
    /// `GET /paper-schema/schemas/{schema_id}/entities`: the paged entity set of one paper.
    query Entities {
        schema_id: String [path_id()],
        entity_types: Option<Vec<String>> [items(lists::ENTITY_KINDS)],
        entity_subtypes: Option<Vec<String>> [items(lists::ENTITY_KINDS)],
        sections: Option<Vec<String>> [items(lists::SECTIONS)],
        size: Option<i64> [within(c::LIST_SIZE)],
        cursor: Option<String>,
    }
}

impl Operation for Entities {
    fn request(&self) -> ApiRequest {
        let query = Query::default()
            .list("entity_types", self.entity_types.as_deref())
            .list("entity_subtypes", self.entity_subtypes.as_deref())
            .list("sections", self.sections.as_deref())
            .value("size", self.size)
            .value("cursor", self.cursor.as_ref());
        get(schema_path(&self.schema_id, &["entities"]), query)
    }
}

request! {
    /// `GET /paper-schema/schemas/{schema_id}/entities/{entity_id}`: one entity of one paper.
    query Entity {
        schema_id: String [path_id()],
        entity_id: String [path_id()],
        include_relations: Option<bool>,
        relation_limit: Option<i64> [within(c::RELATION_LIMIT)],
    }
}

impl Operation for Entity {
    fn request(&self) -> ApiRequest {
        let query = Query::default()
            .value("include_relations", self.include_relations)
            .value("relation_limit", self.relation_limit);
        get(schema_path(&self.schema_id, &["entities", &segment(&self.entity_id)]), query)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use crate::paper_schema::testing::{assert_get, assert_post, assert_rules, many, prepare};

    #[test]
    fn search_entities() {
        assert_post(
            "schema.search_entities",
            json!({"filters": {"schema_ids": ["s1"], "sections": ["Method"]}, "hydrate_schema_papers": true}),
            "/paper-schema/entities/search",
        );
        prepare("schema.search_entities", json!({"query": "dataset"}));
        assert_rules(
            "schema.search_entities",
            &[
                (json!({}), "query"),
                (json!({"filters": {"entity_types": ["Problem"]}}), "query"),
                (json!({"filters": {"schema_ids": []}}), "query"),
                (json!({"query": ""}), "query"),
                (json!({"query": "x".repeat(501)}), "query"),
                (json!({"filters": {"schema_ids": many(101)}}), "filters.schema_ids"),
                (json!({"query": "q", "filters": {"sections": many(51)}}), "filters.sections"),
                (json!({"query": "q", "size": 0}), "size"),
                (json!({"query": "q", "size": 101}), "size"),
            ],
        );
    }

    #[test]
    fn entity_list_repeats_array_parameters() {
        assert_get(
            "schema.entities",
            json!({"schema_id": "s 1", "entity_types": ["Problem", "Component"], "sections": ["Intro"], "size": 100, "cursor": "c/2"}),
            "/paper-schema/schemas/s%201/entities",
            &[
                ("entity_types", "Problem"),
                ("entity_types", "Component"),
                ("sections", "Intro"),
                ("size", "100"),
                ("cursor", "c/2"),
            ],
        );
        assert_rules(
            "schema.entities",
            &[
                (json!({"schema_id": ""}), "schema_id"),
                (json!({"schema_id": "s", "sections": many(51)}), "sections"),
                (json!({"schema_id": "s", "size": 0}), "size"),
                (json!({"schema_id": "s", "size": 101}), "size"),
            ],
        );
    }

    #[test]
    fn one_entity() {
        assert!(prepare("schema.entity", json!({"schema_id": "s1", "entity_id": "e1"})).query.is_empty());
        assert_get(
            "schema.entity",
            json!({"schema_id": "s1", "entity_id": "e/7", "include_relations": true, "relation_limit": 100}),
            "/paper-schema/schemas/s1/entities/e%2F7",
            &[("include_relations", "true"), ("relation_limit", "100")],
        );
        assert_rules(
            "schema.entity",
            &[
                (json!({"schema_id": "", "entity_id": "e"}), "schema_id"),
                (json!({"schema_id": "s", "entity_id": ""}), "entity_id"),
                (json!({"schema_id": "s", "entity_id": "."}), "entity_id"),
                (json!({"schema_id": "s", "entity_id": "e", "relation_limit": 0}), "relation_limit"),
                (json!({"schema_id": "s", "entity_id": "e", "relation_limit": 101}), "relation_limit"),
            ],
        );
    }
}
