//! The contract facts of `paperlens_core::contract` (what the client validates and the sandbox
//! serves) against the OpenAPI document the sandbox publishes, and the sandbox's answers at
//! those bounds. A fact that differs between the core, the sandbox and the document fails here:
//! - every fact is compared with the document, including the lists the contract leaves
//!   uncapped (no `maxItems` there);
//! - every bound and enumeration a request may meet in the document must be one of these
//!   facts, so the document cannot grow a rule the core does not know;
//! - the sandbox accepts each bound's edge and refuses one past it, and accepts long lists
//!   and texts where the contract caps none.

use std::collections::BTreeSet;
use std::sync::OnceLock;

use paperlens_core::contract::{self as c, lists, Bound, Count};
use paperlens_sandbox::service::open_platform::meta_search::collection::{Collection, Papers};
use paperlens_sandbox::service::open_platform::meta_search::filters::Op;
use paperlens_sandbox::{Access, Service, ServiceConfig, ServiceRequest};
use serde_json::{json, Value};

const DOCUMENT: &str = include_str!("../openapi.json");

fn document() -> &'static Value {
    static DOC: OnceLock<Value> = OnceLock::new();
    DOC.get_or_init(|| serde_json::from_str(DOCUMENT).expect("openapi.json is JSON"))
}

fn escape(segment: &str) -> String {
    segment.replace('~', "~0").replace('/', "~1")
}

/// The pointer of a schema's property, `filters.schema_ids`; `name[]` steps into the items.
fn body(schema: &str, property: &str) -> String {
    let mut pointer = format!("/components/schemas/{schema}");
    for part in property.split('.').filter(|p| !p.is_empty()) {
        let (name, items) = part.strip_suffix("[]").map_or((part, false), |name| (name, true));
        pointer.push_str(&format!("/properties/{}", escape(name)));
        if items {
            pointer.push_str("/items");
        }
    }
    pointer
}

/// The pointer of the schema of a query parameter.
fn param(method: &str, path: &str, name: &str) -> String {
    let parameters = document()["paths"][path][method]["parameters"].as_array().expect("parameters");
    let i = parameters.iter().position(|p| p["name"] == name).unwrap_or_else(|| panic!("{method} {path} ?{name}"));
    format!("/paths/{}/{method}/parameters/{i}/schema", escape(path))
}

/// What the document must say: (schema pointer, keyword, value; None: the keyword is absent).
#[derive(Default)]
struct Facts(Vec<(String, &'static str, Option<Value>)>);

impl Facts {
    fn fact(&mut self, pointer: &str, keyword: &'static str, value: Option<Value>) {
        self.0.push((pointer.to_string(), keyword, value));
    }

    fn bound(&mut self, pointer: &str, bound: Bound) {
        self.fact(pointer, "minimum", Some(json!(bound.min)));
        self.fact(pointer, "maximum", (bound.max != i64::MAX).then(|| json!(bound.max)));
        self.fact(pointer, "default", bound.default.map(|d| json!(d)));
    }

    fn items(&mut self, pointer: &str, count: Count) {
        self.fact(pointer, "minItems", (count.min > 0).then(|| json!(count.min)));
        self.fact(pointer, "maxItems", (count.max != usize::MAX).then(|| json!(count.max)));
    }

    fn chars(&mut self, pointer: &str, count: Count) {
        self.fact(pointer, "minLength", (count.min > 0).then(|| json!(count.min)));
        self.fact(pointer, "maxLength", (count.max != usize::MAX).then(|| json!(count.max)));
    }

    fn one_of(&mut self, pointer: &str, values: &[&str]) {
        self.fact(pointer, "enum", Some(json!(values)));
    }

    /// An enumeration whose default is `default`.
    fn one_of_default(&mut self, pointer: &str, values: &[&str], default: &str) {
        self.one_of(pointer, values);
        self.fact(pointer, "default", Some(json!(default)));
    }
}

fn facts() -> Facts {
    let mut f = Facts::default();
    // /agentic-search
    let s = "AgenticSearchRequest";
    f.chars(&body(s, "query"), c::AGENTIC_QUERY_CHARS);
    f.bound(&body(s, "top_k"), c::TOP_K);
    f.one_of_default(&body(s, "retrieval"), &c::RETRIEVAL_MODES, c::RETRIEVAL_MODES[0]);
    f.bound(&body(s, "sub_queries"), c::SUB_QUERIES);
    f.one_of(&body(s, "source_types[]"), &c::SOURCE_TYPES);
    let s = "AgenticSearchFilters";
    f.one_of_default(&body(s, "topics.logic"), &c::TOPIC_LOGIC, c::TOPIC_LOGIC[1]);
    f.one_of(&body(s, "topics.dimensions.primary_topic_domain"), &c::TOPIC_DOMAINS);
    f.fact(&body(s, "publication_venue_type"), "pattern", Some(json!(any_case_pattern(&c::VENUE_TYPES))));
    f.items("/components/schemas/DateFilterValue/oneOf/2", c::RANGE_PAIR);
    f.items("/components/schemas/NumberFilterValue/oneOf/2", c::RANGE_PAIR);
    // /content, /meta-catalog
    f.bound(&param("get", "/content", "limit"), c::CONTENT_LIMIT);
    f.bound(&param("get", "/content", "offset"), c::CONTENT_OFFSET);
    f.fact(&param("get", "/meta-catalog", "collection"), "default", Some(json!(c::COLLECTIONS[0])));
    f.one_of("/components/schemas/OperatorShortName", c::FILTER_OPERATOR_NAMES);
    // /meta-search
    let s = "MetaSearchRequest";
    f.one_of_default(&body(s, "collection"), &c::COLLECTIONS, c::COLLECTIONS[0]);
    f.bound(&body(s, "page"), c::PAGE);
    f.bound(&body(s, "page_size"), c::PAGE_SIZE);
    f.items(&body(s, "facets"), c::FACETS);
    for boost in c::BOOSTS {
        f.one_of_default(&body(s, boost), &c::BOOST_LEVELS, c::NO_BOOST);
    }
    f.one_of_default(&body("FilterItem", "operator"), c::FILTER_OPERATORS, c::FILTER_OPERATORS[0]);
    f.one_of_default(&body("SortItem", "order"), &c::SORT_ORDERS, c::SORT_ORDERS[0]);
    f.bound(&body("FacetItem", "size"), c::FACET_SIZE);
    let total = "/components/schemas/MetaSearchResponse/properties/total_count/oneOf/0";
    f.fact(total, "maximum", Some(json!(c::PAGE_DEPTH_CAP)));
    // /meta-paper-relations
    let s = "MetaPaperRelationsRequest";
    f.one_of(&body(s, "relation"), &c::PAPER_RELATIONS);
    f.bound(&body(s, "page"), c::PAGE);
    f.bound(&body(s, "page_size"), c::PAGE_SIZE);
    for response in ["MetaSearchResponse", "MetaPaperRelationsResponse"] {
        f.fact(&body(response, "page_size"), "minimum", Some(json!(c::PAGE_SIZE.min)));
        f.fact(&body(response, "page_size"), "maximum", Some(json!(c::PAGE_SIZE.max)));
    }

    // /paper-schema: discovery
    let s = "PaperSearchRequest";
    f.chars(&body(s, "query"), c::QUERY_CHARS);
    f.items(&body(s, "filters.schema_ids"), lists::SCHEMA_IDS);
    f.items(&body(s, "filters.dois"), lists::DOIS);
    f.items(&body(s, "filters.authors"), lists::AUTHORS);
    f.items(&body(s, "filters.venues"), lists::VENUES);
    f.bound(&body(s, "filters.published_year_gte"), c::PUBLISHED_YEAR);
    f.bound(&body(s, "filters.published_year_lte"), c::PUBLISHED_YEAR);
    f.items(&body(s, "sort"), lists::SORT);
    f.one_of(&body(s, "sort[].field"), &c::PAPER_SORTABLE);
    f.one_of(&body(s, "sort[].order"), &c::PAPER_SORT_ORDERS);
    f.bound(&body(s, "size"), c::SEARCH_SIZE);
    let s = "EntityRelatedPapersRequest";
    f.chars(&body(s, "query"), c::QUERY_CHARS);
    f.items(&body(s, "entity_types"), lists::ENTITY_KINDS);
    f.items(&body(s, "entity_subtypes"), lists::ENTITY_KINDS);
    f.items(&body(s, "exclude_schema_ids"), lists::EXCLUDE_SCHEMA_IDS);
    f.bound(&body(s, "size"), c::SEARCH_SIZE);
    let s = "SchemaRelatedPapersRequest";
    f.items(&body(s, "signals"), lists::SIGNALS);
    f.one_of(&body(s, "signals[]"), &c::SIGNALS);
    f.bound(&body(s, "size"), c::RELATED_PAPERS_SIZE);
    // entities
    let s = "EntitySearchRequest";
    f.chars(&body(s, "query"), c::QUERY_CHARS);
    f.items(&body(s, "filters.schema_ids"), lists::SCHEMA_IDS);
    f.items(&body(s, "filters.entity_types"), lists::ENTITY_KINDS);
    f.items(&body(s, "filters.entity_subtypes"), lists::ENTITY_KINDS);
    f.items(&body(s, "filters.sections"), lists::SECTIONS);
    f.bound(&body(s, "size"), c::SEARCH_SIZE);
    let list = "/paper-schema/schemas/{schema_id}/entities";
    f.items(&param("get", list, "entity_types"), lists::ENTITY_KINDS);
    f.items(&param("get", list, "entity_subtypes"), lists::ENTITY_KINDS);
    f.items(&param("get", list, "sections"), lists::SECTIONS);
    f.bound(&param("get", list, "size"), c::LIST_SIZE);
    let entity = "/paper-schema/schemas/{schema_id}/entities/{entity_id}";
    f.bound(&param("get", entity, "relation_limit"), c::RELATION_LIMIT);
    // relations
    let s = "RelationSearchRequest";
    f.items(&body(s, "filters.schema_ids"), lists::SCHEMA_IDS);
    f.items(&body(s, "filters.source_entity_ids"), lists::ENTITY_IDS);
    f.items(&body(s, "filters.target_entity_ids"), lists::ENTITY_IDS);
    f.items(&body(s, "filters.relation_types"), lists::RELATION_TYPES);
    f.chars(&body(s, "evidence_query"), c::QUERY_CHARS);
    f.one_of_default(&body(s, "include_context"), &c::INCLUDE_CONTEXT, c::INCLUDE_CONTEXT[0]);
    f.bound(&body(s, "size"), c::SEARCH_SIZE);
    // citations
    f.bound(&param("get", "/paper-schema/schemas/{schema_id}/citations", "size"), c::LIST_SIZE);
    let graph = "/paper-schema/schemas/{schema_id}/citation-graph";
    f.one_of_default(&param("get", graph, "direction"), &c::DIRECTIONS, c::DIRECTIONS[0]);
    f.bound(&param("get", graph, "depth"), c::DEPTH);
    f.bound(&param("get", graph, "max_nodes"), c::MAX_NODES);
    f.bound(&param("get", graph, "max_edges"), c::MAX_EDGES);
    f.one_of(&body("CitationGraphResponse", "direction"), &c::DIRECTIONS);
    // evidence
    let s = "EvidenceSearchRequest";
    f.items(&body(s, "groups"), lists::EVIDENCE_GROUPS);
    f.one_of(&body(s, "groups[]"), &c::EVIDENCE_GROUPS);
    f.one_of_default(&body(s, "group_operator"), &c::GROUP_OPERATORS, c::GROUP_OPERATORS[0]);
    f.items(&body(s, "schema_ids"), lists::SCHEMA_IDS);
    f.chars(&body(s, "query"), Count::UNBOUNDED);
    f.bound(&body(s, "size"), c::SEARCH_SIZE);
    f.one_of(&body("Evidence", "groups[]"), &c::EVIDENCE_GROUPS);
    // provenance, in-paper search, hydration
    let s = "ResolveProvenanceRequest";
    f.items(&body(s, "marker_nums"), lists::LOCATORS);
    f.items(&body(s, "paragraph_ids"), lists::LOCATORS);
    f.bound(&body(s, "window"), c::PROVENANCE_WINDOW);
    f.bound(&body(s, "max_segments"), c::MAX_SEGMENTS);
    let s = "SearchInSchemaRequest";
    f.chars(&body(s, "query"), c::QUERY_CHARS);
    f.chars(&body(s, "section_hint"), c::SECTION_HINT_CHARS);
    f.bound(&body(s, "top_k"), c::IN_PAPER_TOP_K);
    f.bound(&body(s, "window"), c::WINDOW);
    let s = "HydrateItemsRequest";
    f.items(&body(s, "items"), lists::HYDRATE_ITEMS);
    f.bound(&body(s, "window"), c::WINDOW);
    f.bound(&body(s, "max_segments_per_item"), c::MAX_SEGMENTS_PER_ITEM);
    f.items(&body("HydrateItem", "paragraph_ids"), lists::ITEM_LOCATORS);
    f.items(&body("HydrateItem", "marker_nums"), lists::ITEM_LOCATORS);
    f.chars(&body("HydrateItem", "hydration_query"), Count::UNBOUNDED);
    // materials
    let s = "MaterialsRequest";
    f.items(&body(s, "schema_ids"), lists::MATERIALS_PAPERS);
    f.one_of_default(&body(s, "goal"), &c::GOALS, c::GOALS[0]);
    f.bound(&body(s, "per_schema_entity_limit"), c::PER_SCHEMA_ENTITY_LIMIT);
    f.bound(&body(s, "per_schema_relation_limit"), c::PER_SCHEMA_RELATION_LIMIT);
    f.bound(&body(s, "per_schema_attribute_limit"), c::PER_SCHEMA_ATTRIBUTE_LIMIT);
    f.bound(&body(s, "per_schema_term_limit"), c::PER_SCHEMA_TERM_LIMIT);
    f
}

/// `^(a|b)$` with each letter as `[xX]`: the document's case-insensitive enumeration.
fn any_case_pattern(values: &[&str]) -> String {
    let any_case = |v: &str| -> String {
        v.chars()
            .map(|ch| {
                if ch.is_alphabetic() {
                    format!("[{}{}]", ch.to_lowercase(), ch.to_uppercase())
                } else {
                    ch.to_string()
                }
            })
            .collect()
    };
    format!("^({})$", values.iter().map(|v| any_case(v)).collect::<Vec<_>>().join("|"))
}

#[test]
fn every_fact_is_what_the_document_says() {
    let doc = document();
    let mut wrong = Vec::new();
    for (pointer, keyword, want) in &facts().0 {
        let Some(schema) = doc.pointer(pointer) else {
            wrong.push(format!("{pointer}: not in the document"));
            continue;
        };
        let got = schema.get(*keyword);
        if got != want.as_ref() {
            wrong.push(format!("{pointer} {keyword}: the contract says {want:?}, the document {got:?}"));
        }
    }
    assert!(wrong.is_empty(), "core contract and OpenAPI document differ:\n{}", wrong.join("\n"));
}

#[test]
fn the_page_depth_cap_is_the_documents() {
    let page = &document()["components"]["schemas"]["MetaSearchRequest"]["properties"]["page"];
    let text = page["description"].as_str().unwrap_or_default();
    assert!(text.contains(&format!("must not exceed {}", c::PAGE_DEPTH_CAP)), "{text}");
}

#[test]
fn agentic_filter_keys_are_the_documents() {
    let filters = &document()["components"]["schemas"]["AgenticSearchFilters"];
    let keys: BTreeSet<&str> = filters["properties"].as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(keys, c::AGENTIC_FILTER_KEYS.into_iter().collect());
    assert_eq!(filters["additionalProperties"], false);
}

/// The bounds and enumerations a request meets: (schema pointer, keyword), everywhere under
/// the operations' parameters and bodies, following references.
fn request_rules() -> BTreeSet<(String, &'static str)> {
    const KEYWORDS: [&str; 6] = ["enum", "minItems", "maxItems", "maxLength", "minimum", "maximum"];
    fn schema(value: &Value, pointer: String, found: &mut BTreeSet<(String, &'static str)>, refs: &mut Vec<String>) {
        let Some(map) = value.as_object() else { return };
        if let Some(name) =
            map.get("$ref").and_then(Value::as_str).and_then(|r| r.strip_prefix("#/components/schemas/"))
        {
            refs.push(name.to_string());
        }
        found.extend(KEYWORDS.into_iter().filter(|k| map.contains_key(*k)).map(|k| (pointer.clone(), k)));
        for (key, child) in map {
            match (key.as_str(), child) {
                ("properties", Value::Object(properties)) => {
                    for (name, sub) in properties {
                        schema(sub, format!("{pointer}/properties/{}", escape(name)), found, refs);
                    }
                }
                ("oneOf" | "anyOf" | "allOf", Value::Array(branches)) => {
                    for (i, sub) in branches.iter().enumerate() {
                        schema(sub, format!("{pointer}/{key}/{i}"), found, refs);
                    }
                }
                ("items" | "additionalProperties", sub) => schema(sub, format!("{pointer}/{key}"), found, refs),
                _ => {}
            }
        }
    }
    let doc = document();
    let (mut found, mut refs) = (BTreeSet::new(), Vec::new());
    for (path, operations) in doc["paths"].as_object().unwrap() {
        for (method, operation) in operations.as_object().unwrap() {
            let at = format!("/paths/{}/{method}", escape(path));
            for (i, p) in operation["parameters"].as_array().into_iter().flatten().enumerate() {
                schema(&p["schema"], format!("{at}/parameters/{i}/schema"), &mut found, &mut refs);
            }
            for (media, content) in
                operation.pointer("/requestBody/content").and_then(Value::as_object).into_iter().flatten()
            {
                schema(
                    &content["schema"],
                    format!("{at}/requestBody/content/{}/schema", escape(media)),
                    &mut found,
                    &mut refs,
                );
            }
        }
    }
    let mut seen = BTreeSet::new();
    while let Some(name) = refs.pop() {
        if seen.insert(name.clone()) {
            schema(&doc["components"]["schemas"][&name], format!("/components/schemas/{name}"), &mut found, &mut refs);
        }
    }
    found
}

#[test]
fn every_request_rule_of_the_document_is_a_contract_fact() {
    let known: BTreeSet<(String, &str)> = facts().0.into_iter().map(|(p, k, _)| (p, k)).collect();
    let rules = request_rules();
    assert!(rules.len() > 100, "{} rules found", rules.len());
    let unknown: Vec<String> =
        rules.into_iter().filter(|rule| !known.contains(rule)).map(|(p, k)| format!("{p} {k}")).collect();
    assert!(unknown.is_empty(), "rules of the document that paperlens_core::contract lacks:\n{}", unknown.join("\n"));
}

#[test]
fn the_sandboxs_tables_are_the_contracts() {
    let sortable: BTreeSet<&str> = Papers::fields().iter().filter(|f| f.caps.sort).map(|f| f.name).collect();
    assert_eq!(sortable, c::META_SORTABLE.into_iter().collect());
    for (op, wire) in Op::ALL.into_iter().zip(c::FILTER_OPERATORS) {
        assert_eq!(Op::parse(wire), Some(op));
        assert_eq!(format!("{}{}", c::FILTER_OPERATOR_PREFIX, op.short_name()), *wire);
    }
    let venue_types: Vec<&str> =
        paperlens_sandbox::service::corpus::VenueType::ALL.iter().map(|v| v.as_str()).collect();
    assert_eq!(venue_types, c::VENUE_TYPES);
}

// -- the sandbox at the bounds ---------------------------------------------------------------

fn service() -> &'static Service {
    static SERVICE: OnceLock<Service> = OnceLock::new();
    SERVICE.get_or_init(|| Service::build(ServiceConfig { papers: 300, seed: 7, int64_as_string: false }))
}

fn call(method: &str, path: &str, query: Vec<(String, String)>, body: Option<Value>) -> (u16, Value) {
    let request = ServiceRequest {
        method: method.into(),
        path: path.into(),
        query,
        body: body.map(|b| b.to_string()).unwrap_or_default().into(),
        access: Access::Full,
        request_id: "contract-test".into(),
    };
    let response = service().handle(&request);
    (response.status, serde_json::from_slice(&response.body).unwrap_or(Value::Null))
}

/// A structured paper with entities, and a subtype of the capability taxonomy.
fn structured() -> (String, String) {
    let corpus = service().corpus();
    let id = corpus.papers.iter().find_map(|p| p.schema_id.clone()).expect("a structured paper");
    let (_, capabilities) = call("GET", "/paper-schema", Vec::new(), None);
    let subtype = capabilities["entity_taxonomy"]["subtypes"]["Component"][0].as_str().expect("a subtype").to_string();
    (id, subtype)
}

/// `value` put at the dotted place `at` of `base` (a number steps into an array).
fn with(base: &Value, at: &str, value: Value) -> Value {
    let mut body = base.clone();
    let mut slot = &mut body;
    for part in at.split('.') {
        slot = match part.parse::<usize>() {
            Ok(i) => &mut slot[i],
            Err(_) => &mut slot[part],
        };
    }
    *slot = value;
    body
}

/// The parameter name an error gives for the dotted place `at` (`items.0.x`: `items[0].x`).
fn param_name(at: &str) -> String {
    let mut name = String::new();
    for part in at.split('.') {
        match part.parse::<usize>() {
            Ok(i) => name.push_str(&format!("[{i}]")),
            Err(_) if name.is_empty() => name.push_str(part),
            Err(_) => name.push_str(&format!(".{part}")),
        }
    }
    name
}

/// Where a probed value goes: a POST body at a dotted place, or a GET query parameter (a list
/// as repeated pairs) next to fixed ones.
enum Place {
    /// `named`: the parameter a refusal names, when not the place itself.
    Body {
        path: String,
        base: Value,
        at: &'static str,
        named: Option<&'static str>,
    },
    Query {
        path: String,
        fixed: Vec<(&'static str, String)>,
        name: &'static str,
    },
}

impl Place {
    fn body(path: impl Into<String>, base: Value, at: &'static str) -> Place {
        Place::Body { path: path.into(), base, at, named: None }
    }

    fn query(path: impl Into<String>, name: &'static str) -> Place {
        Place::Query { path: path.into(), fixed: Vec::new(), name }
    }

    fn name(&self) -> String {
        match self {
            Place::Body { named: Some(named), .. } => named.to_string(),
            Place::Body { at, .. } => param_name(at),
            Place::Query { name, .. } => name.to_string(),
        }
    }

    fn send(&self, value: Value) -> (u16, Value) {
        match self {
            Place::Body { path, base, at, .. } => call("POST", path, Vec::new(), Some(with(base, at, value))),
            Place::Query { path, fixed, name } => {
                let mut query: Vec<(String, String)> = fixed.iter().map(|(k, v)| (k.to_string(), v.clone())).collect();
                let values = match value {
                    Value::Array(items) => items,
                    single => vec![single],
                };
                for v in values {
                    query.push((name.to_string(), v.as_str().map_or_else(|| v.to_string(), str::to_string)));
                }
                call("GET", path, query, None)
            }
        }
    }

    /// The answer is a success.
    fn accepts(&self, value: Value, what: &str) -> Result<(), String> {
        match self.send(value) {
            (200, _) => Ok(()),
            (status, body) => Err(format!("{} ({what}): refused with {status}: {body}", self.name())),
        }
    }

    /// The answer is a 400 naming this parameter.
    fn refuses(&self, value: Value, what: &str) -> Result<(), String> {
        let (status, body) = self.send(value);
        let named = body["details"]["parameter"].as_str().unwrap_or_default();
        if status == 400 && named == self.name() {
            Ok(())
        } else {
            Err(format!("{} ({what}): expected a 400 naming it, got {status}: {body}", self.name()))
        }
    }
}

/// A list of `n` items made by `item`.
fn list(n: usize, item: &dyn Fn(usize) -> Value) -> Value {
    Value::Array((0..n).map(item).collect())
}

/// Lists where the contract caps none are probed with this many items.
const LONG: usize = 1000;

fn probe_items(place: &Place, count: Count, item: &dyn Fn(usize) -> Value) -> Vec<String> {
    let mut checks = vec![place.accepts(list(count.min.max(1), item), "fewest")];
    if count.min > 0 {
        checks.push(place.refuses(list(count.min - 1, item), "one too few"));
    }
    if count.max == usize::MAX {
        checks.push(place.accepts(list(LONG, item), "uncapped, many"));
    } else {
        checks.push(place.accepts(list(count.max, item), "most"));
        checks.push(place.refuses(list(count.max + 1, item), "one too many"));
    }
    checks.into_iter().filter_map(Result::err).collect()
}

fn probe_bound(place: &Place, bound: Bound) -> Vec<String> {
    let mut checks = vec![place.accepts(json!(bound.min), "min"), place.refuses(json!(bound.min - 1), "below")];
    if bound.max != i64::MAX {
        checks.push(place.accepts(json!(bound.max), "max"));
        checks.push(place.refuses(json!(bound.max + 1), "above"));
    }
    checks.into_iter().filter_map(Result::err).collect()
}

fn probe_chars(place: &Place, count: Count) -> Vec<String> {
    let text = |n: usize| json!("x".repeat(n));
    let mut checks = vec![place.accepts(text(count.min.max(1)), "shortest")];
    if count.min > 0 {
        checks.push(place.refuses(text(count.min - 1), "too short"));
    }
    if count.max == usize::MAX {
        checks.push(place.accepts(text(LONG * 5), "uncapped, long"));
    } else {
        checks.push(place.accepts(text(count.max), "longest"));
        checks.push(place.refuses(text(count.max + 1), "too long"));
    }
    checks.into_iter().filter_map(Result::err).collect()
}

/// Places in a body of `path` (with the fields of `base`), by where the probed value goes.
fn at(path: impl Into<String>, base: Value) -> impl Fn(&'static str) -> Place {
    let path = path.into();
    move |at| Place::body(path.clone(), base.clone(), at)
}

/// Item `i` of a probed list.
type Item<'a> = &'a dyn Fn(usize) -> Value;

#[test]
fn the_sandbox_takes_each_list_up_to_its_cap_and_uncapped_lists_without_one() {
    let (sid, subtype) = structured();
    let search = at("/paper-schema/search", json!({"query": "q"}));
    let related = at("/paper-schema/entities/related-papers", json!({"query": "q"}));
    let entities = at("/paper-schema/entities/search", json!({"query": "q"}));
    let relations = at("/paper-schema/relations/search", json!({}));
    let evidence = at("/paper-schema/evidence/search", json!({"groups": ["formula"], "key": "k"}));
    let hydrate = at("/paper-schema/hydrate-items", json!({"items": [{"schema_id": sid}]}));
    let list = |name| Place::query(format!("/paper-schema/schemas/{sid}/entities"), name);
    let seed = Place::body(format!("/paper-schema/schemas/{sid}/related-papers"), json!({}), "signals");
    let ids: Item = &|i| json!(format!("s{i}"));
    let numbers: Item = &|i| json!(i);
    let component: Item = &|_| json!("Component");
    let subtype: Item = &|_| json!(subtype);
    let marker_item: Item = &|_| json!({"schema_id": sid, "marker_nums": [1]});
    let seed_paper: Item = &|_| json!(sid);
    let cases: Vec<(Place, Count, Item)> = vec![
        (at("/paper-schema/search", json!({}))("filters.schema_ids"), lists::SCHEMA_IDS, ids),
        (search("filters.dois"), lists::DOIS, ids),
        (search("filters.authors"), lists::AUTHORS, ids),
        (search("filters.venues"), lists::VENUES, ids),
        (search("sort"), lists::SORT, &|_| json!({"field": "year"})),
        (related("entity_types"), lists::ENTITY_KINDS, component),
        (related("entity_subtypes"), lists::ENTITY_KINDS, subtype),
        (related("exclude_schema_ids"), lists::EXCLUDE_SCHEMA_IDS, ids),
        (seed, lists::SIGNALS, &|i| json!(c::SIGNALS[i % c::SIGNALS.len()])),
        (entities("filters.schema_ids"), lists::SCHEMA_IDS, ids),
        (entities("filters.entity_types"), lists::ENTITY_KINDS, component),
        (entities("filters.entity_subtypes"), lists::ENTITY_KINDS, subtype),
        (entities("filters.sections"), lists::SECTIONS, ids),
        (list("entity_types"), lists::ENTITY_KINDS, component),
        (list("entity_subtypes"), lists::ENTITY_KINDS, subtype),
        (list("sections"), lists::SECTIONS, ids),
        (relations("filters.schema_ids"), lists::SCHEMA_IDS, ids),
        (relations("filters.source_entity_ids"), lists::ENTITY_IDS, ids),
        (relations("filters.target_entity_ids"), lists::ENTITY_IDS, ids),
        (relations("filters.relation_types"), lists::RELATION_TYPES, &|_| json!("evaluates")),
        (evidence("groups"), lists::EVIDENCE_GROUPS, &|i| json!(c::EVIDENCE_GROUPS[i % c::EVIDENCE_GROUPS.len()])),
        (evidence("schema_ids"), lists::SCHEMA_IDS, ids),
        (at("/paper-schema/resolve-provenance", json!({"schema_id": sid}))("marker_nums"), lists::LOCATORS, numbers),
        (at("/paper-schema/resolve-provenance", json!({}))("paragraph_ids"), lists::LOCATORS, ids),
        (hydrate("items"), lists::HYDRATE_ITEMS, marker_item),
        (hydrate("items.0.paragraph_ids"), lists::ITEM_LOCATORS, ids),
        (hydrate("items.0.marker_nums"), lists::ITEM_LOCATORS, numbers),
        (
            at("/paper-schema/materials", json!({"per_schema_term_limit": 0}))("schema_ids"),
            lists::MATERIALS_PAPERS,
            seed_paper,
        ),
        (at("/meta-search", json!({"page_size": 1}))("facets"), c::FACETS, &|_| json!({"field": "language"})),
        (at("/agentic-search", json!({"query": "q"}))("filters.citation_count"), c::RANGE_PAIR, &|_| json!(10)),
    ];
    let failures: Vec<String> =
        cases.iter().flat_map(|(place, count, item)| probe_items(place, *count, *item)).collect();
    assert!(failures.is_empty(), "the sandbox differs from the contract:\n{}", failures.join("\n"));
}

#[test]
fn the_sandbox_takes_each_integer_within_its_bound_and_each_text_within_its_length() {
    let (sid, _) = structured();
    let corpus = service().corpus();
    let doc_id = corpus.papers.iter().find_map(|p| p.doc_id.clone()).expect("a full text");
    let schema = |rest: &str| format!("/paper-schema/schemas/{sid}/{rest}");
    let get = |rest: &str, name| Place::query(schema(rest), name);
    let agentic = at("/agentic-search", json!({"query": "q"}));
    let meta = at("/meta-search", json!({"facets": [{"field": "language"}]}));
    let search = at("/paper-schema/search", json!({"query": "q"}));
    let relations = at("/paper-schema/relations/search", json!({"filters": {"schema_ids": [sid]}}));
    let provenance = at("/paper-schema/resolve-provenance", json!({"paragraph_ids": ["p"]}));
    let in_paper = at("/paper-schema/search-in-schema", json!({"schema_id": sid, "query": "q"}));
    let hydrate = at("/paper-schema/hydrate-items", json!({"items": [{"schema_id": sid, "marker_nums": [1]}]}));
    let materials = at("/paper-schema/materials", json!({"schema_ids": [sid]}));
    let content = |fixed: Vec<(&'static str, String)>, name| Place::Query { path: "/content".into(), fixed, name };
    let relations_page = json!({"unique_id": corpus.papers[0].unique_id, "relation": "CITATIONS"});
    let bounds: Vec<(Place, Bound)> = vec![
        (agentic("top_k"), c::TOP_K),
        (agentic("sub_queries"), c::SUB_QUERIES),
        (content(vec![("doc_id", doc_id.clone()), ("offset", "0".into())], "limit"), c::CONTENT_LIMIT),
        (content(vec![("doc_id", doc_id)], "offset"), c::CONTENT_OFFSET),
        (meta("page"), c::PAGE),
        (meta("page_size"), c::PAGE_SIZE),
        (meta("facets.0.size"), c::FACET_SIZE),
        (at("/meta-paper-relations", relations_page)("page_size"), c::PAGE_SIZE),
        (search("size"), c::SEARCH_SIZE),
        (at("/paper-schema/search", json!({}))("filters.published_year_gte"), c::PUBLISHED_YEAR),
        (at("/paper-schema/search", json!({}))("filters.published_year_lte"), c::PUBLISHED_YEAR),
        (at("/paper-schema/entities/related-papers", json!({"query": "q"}))("size"), c::SEARCH_SIZE),
        (Place::body(schema("related-papers"), json!({}), "size"), c::RELATED_PAPERS_SIZE),
        (at("/paper-schema/entities/search", json!({"query": "q"}))("size"), c::SEARCH_SIZE),
        (get("entities", "size"), c::LIST_SIZE),
        (get("entities/e1", "relation_limit"), c::RELATION_LIMIT),
        (relations("size"), c::SEARCH_SIZE),
        (get("citations", "size"), c::LIST_SIZE),
        (get("citation-graph", "depth"), c::DEPTH),
        (get("citation-graph", "max_nodes"), c::MAX_NODES),
        (get("citation-graph", "max_edges"), c::MAX_EDGES),
        (at("/paper-schema/evidence/search", json!({"groups": ["formula"], "key": "k"}))("size"), c::SEARCH_SIZE),
        (provenance("window"), c::PROVENANCE_WINDOW),
        (provenance("max_segments"), c::MAX_SEGMENTS),
        (in_paper("top_k"), c::IN_PAPER_TOP_K),
        (in_paper("window"), c::WINDOW),
        (hydrate("window"), c::WINDOW),
        (hydrate("max_segments_per_item"), c::MAX_SEGMENTS_PER_ITEM),
        (materials("per_schema_entity_limit"), c::PER_SCHEMA_ENTITY_LIMIT),
        (materials("per_schema_relation_limit"), c::PER_SCHEMA_RELATION_LIMIT),
        (materials("per_schema_attribute_limit"), c::PER_SCHEMA_ATTRIBUTE_LIMIT),
        (materials("per_schema_term_limit"), c::PER_SCHEMA_TERM_LIMIT),
    ];
    let texts: Vec<(Place, Count)> = vec![
        (at("/agentic-search", json!({}))("query"), c::AGENTIC_QUERY_CHARS),
        (at("/paper-schema/search", json!({}))("query"), c::QUERY_CHARS),
        (at("/paper-schema/entities/related-papers", json!({}))("query"), c::QUERY_CHARS),
        (at("/paper-schema/entities/search", json!({}))("query"), c::QUERY_CHARS),
        (relations("evidence_query"), c::QUERY_CHARS),
        (at("/paper-schema/search-in-schema", json!({"schema_id": sid}))("query"), c::QUERY_CHARS),
        (in_paper("section_hint"), c::SECTION_HINT_CHARS),
        (at("/paper-schema/evidence/search", json!({"groups": ["formula"]}))("query"), Count::UNBOUNDED),
        (
            at("/paper-schema/hydrate-items", json!({"items": [{"schema_id": sid}]}))("items.0.hydration_query"),
            Count::UNBOUNDED,
        ),
    ];
    let mut failures: Vec<String> = bounds.iter().flat_map(|(place, bound)| probe_bound(place, *bound)).collect();
    failures.extend(texts.iter().flat_map(|(place, count)| probe_chars(place, *count)));
    assert!(failures.is_empty(), "the sandbox differs from the contract:\n{}", failures.join("\n"));
}

#[test]
fn the_sandbox_offers_each_enumeration_of_the_contract() {
    let (sid, _) = structured();
    let agentic = at("/agentic-search", json!({"query": "q", "source_types": ["web"]}));
    let meta = at("/meta-search", json!({"query": "q", "sort": [{"field": "fwci"}]}));
    let search = at("/paper-schema/search", json!({"query": "q", "sort": [{"field": "year"}]}));
    let evidence = at("/paper-schema/evidence/search", json!({"key": "k", "groups": ["formula"]}));
    let boosts = at("/meta-search", json!({"query": "q"}));
    let unique_id = &service().corpus().papers[0].unique_id;
    let sort_field = Place::Body {
        path: "/meta-search".into(),
        base: json!({"sort": [{}]}),
        at: "sort.0.field",
        named: Some("sort"),
    };
    let enumerations: Vec<(Place, &[&str])> = vec![
        (agentic("retrieval"), &c::RETRIEVAL_MODES),
        (agentic("source_types.0"), &c::SOURCE_TYPES),
        (agentic("filters.publication_venue_type"), &c::VENUE_TYPES),
        (agentic("filters.topics.logic"), &c::TOPIC_LOGIC),
        (agentic("filters.topics.dimensions.primary_topic_domain"), &c::TOPIC_DOMAINS),
        (at("/meta-search", json!({}))("collection"), &c::COLLECTIONS),
        (meta("sort.0.order"), &c::SORT_ORDERS),
        (sort_field, &c::META_SORTABLE),
        (boosts("freshness_boost"), &c::BOOST_LEVELS),
        (boosts("impact_boost"), &c::BOOST_LEVELS),
        (boosts("language_affinity"), &c::BOOST_LEVELS),
        (at("/meta-paper-relations", json!({ "unique_id": unique_id }))("relation"), &c::PAPER_RELATIONS),
        (search("sort.0.field"), &c::PAPER_SORTABLE),
        (search("sort.0.order"), &c::PAPER_SORT_ORDERS),
        (
            Place::body(format!("/paper-schema/schemas/{sid}/related-papers"), json!({"signals": [""]}), "signals.0"),
            &c::SIGNALS,
        ),
        (
            at("/paper-schema/relations/search", json!({"filters": {"schema_ids": [sid]}}))("include_context"),
            &c::INCLUDE_CONTEXT,
        ),
        (Place::query(format!("/paper-schema/schemas/{sid}/citation-graph"), "direction"), &c::DIRECTIONS),
        (evidence("groups.0"), &c::EVIDENCE_GROUPS),
        (evidence("group_operator"), &c::GROUP_OPERATORS),
        (at("/paper-schema/materials", json!({"schema_ids": [sid]}))("goal"), &c::GOALS),
    ];
    let mut failures = Vec::new();
    for (place, values) in &enumerations {
        failures.extend(values.iter().filter_map(|value| place.accepts(json!(value), value).err()));
        failures.extend(place.refuses(json!("no-such-value"), "outside").err());
    }
    for op in c::FILTER_OPERATORS {
        let text = ["FILTER_OP_CONTAINS", "FILTER_OP_MATCH", "FILTER_OP_MATCH_PHRASE"].contains(op);
        let (field, value) =
            if text { ("title", json!("quantum")) } else { ("publication_published_year", json!(2020)) };
        let value = if c::ARRAY_OPERATORS.contains(op) { json!([value]) } else { value };
        let filter = json!({"field": field, "operator": op, "value": value});
        let (status, answer) = call("POST", "/meta-search", Vec::new(), Some(json!({ "filters": [filter] })));
        if status != 200 {
            failures.push(format!("filter operator {op}: {status}: {answer}"));
        }
    }
    assert!(failures.is_empty(), "the sandbox differs from the contract:\n{}", failures.join("\n"));
}
