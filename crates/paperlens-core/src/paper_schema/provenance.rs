//! Back to the source paragraphs: locators resolved, keyword search inside one paper, and
//! batch hydration of structure items.

use super::{given_list, given_text, post, BASE};
use crate::contract::{self as c, lists};
use crate::error::Error;
use crate::request_type::request;
use crate::validate::rule::{items, non_empty, text, within};
use crate::validate::Check;
use crate::validate::Rules;

request! {
    /// `POST /paper-schema/resolve-provenance`: exactly one locator mode, `schema_id` with
    /// `marker_nums`, or `paragraph_ids`.
    body ResolveProvenance => post(format!("{BASE}/resolve-provenance")) requires(ResolveProvenance::check_mode) {
        schema_id: Option<String> [non_empty()],
        marker_nums: Option<Vec<i64>> [items(lists::LOCATORS)],
        paragraph_ids: Option<Vec<String>> [items(lists::LOCATORS)],
        window: Option<i64> [within(c::PROVENANCE_WINDOW)],
        max_segments: Option<i64> [within(c::MAX_SEGMENTS)],
    }
}

impl ResolveProvenance {
    fn check_mode(&self) -> Check {
        let markers = self.schema_id.is_some() || self.marker_nums.is_some();
        match (markers, self.paragraph_ids.is_some()) {
            (true, true) => Err(Error::rule(
                "paragraph_ids",
                "use exactly one locator mode: schema_id with marker_nums, or paragraph_ids, not both",
            )),
            (false, false) => Err(Error::rule(
                "paragraph_ids",
                "one locator mode is required: schema_id with marker_nums, or paragraph_ids",
            )),
            (true, false) if self.schema_id.is_none() => Err(Error::rule("schema_id", "is required with marker_nums")),
            (true, false) if self.marker_nums.is_none() => {
                Err(Error::rule("marker_nums", "is required with schema_id"))
            }
            _ => Ok(()),
        }
    }
}

request! {
    /// `POST /paper-schema/search-in-schema`: keyword search in the body of one paper.
    body SearchInPaper => post(format!("{BASE}/search-in-schema")) {
        schema_id: String [non_empty()],
        query: String [text(c::QUERY_CHARS)],
        section_hint: Option<String> [text(c::SECTION_HINT_CHARS)],
        prefer_url: Option<bool>,
        prefer_code: Option<bool>,
        top_k: Option<i64> [within(c::IN_PAPER_TOP_K)],
        window: Option<i64> [within(c::WINDOW)],
    }
}

request! {
    /// `POST /paper-schema/hydrate-items`: source paragraphs for 1-50 structure items.
    body HydrateItems => post(format!("{BASE}/hydrate-items")) {
        items: Vec<HydrateItem> [items(lists::HYDRATE_ITEMS), each_item()],
        window: Option<i64> [within(c::WINDOW)],
        max_segments_per_item: Option<i64> [within(c::MAX_SEGMENTS_PER_ITEM)],
        prefer_url_or_code: Option<bool>,
    }
}

request! {
    /// One item: its paper, and exact locators or a query for a search inside that paper.
    body HydrateItem {
        schema_id: Option<String>,
        paragraph_ids: Option<Vec<String>> [items(lists::ITEM_LOCATORS)],
        marker_nums: Option<Vec<i64>> [items(lists::ITEM_LOCATORS)],
        hydration_query: Option<String>,
    }
}

/// Each item names its paper, and locators or a query.
fn each_item(param: &str, items: &[HydrateItem]) -> Check {
    for (i, item) in items.iter().enumerate() {
        let param = format!("{param}[{i}]");
        if !given_text(&item.schema_id) {
            return Err(Error::validation(format!("{param}.schema_id"), "is required", &item.schema_id));
        }
        let located = given_list(&item.paragraph_ids) || given_list(&item.marker_nums);
        if !located && !given_text(&item.hydration_query) {
            return Err(Error::validation(param, "needs paragraph_ids, marker_nums or hydration_query", item));
        }
        item.rules(&format!("{param}."))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use crate::paper_schema::testing::{assert_rules, body, prepare};

    #[test]
    fn resolve_provenance_modes() {
        let markers = prepare(
            "schema.resolve_provenance",
            json!({"schema_id": "s1", "marker_nums": [3, 17], "window": 5, "max_segments": 100}),
        );
        assert_eq!(markers.path, "/paper-schema/resolve-provenance");
        assert_eq!(
            body(&markers),
            json!({"schema_id": "s1", "marker_nums": [3, 17], "window": 5, "max_segments": 100})
        );
        let paragraphs = prepare("schema.resolve_provenance", json!({"paragraph_ids": ["p1"], "schema_id": null}));
        assert_eq!(body(&paragraphs), json!({"paragraph_ids": ["p1"]}));
        let ids = |n: usize| (0..n).map(|i| format!("p{i}")).collect::<Vec<_>>();
        assert_rules(
            "schema.resolve_provenance",
            &[
                (json!({}), "paragraph_ids"),
                (json!({"window": 1}), "paragraph_ids"),
                (json!({"schema_id": "s", "marker_nums": [1], "paragraph_ids": ["p"]}), "paragraph_ids"),
                (json!({"schema_id": "s", "paragraph_ids": ["p"]}), "paragraph_ids"),
                (json!({"marker_nums": [1], "paragraph_ids": ["p"]}), "paragraph_ids"),
                (json!({"marker_nums": [1]}), "schema_id"),
                (json!({"schema_id": "s"}), "marker_nums"),
                (json!({"schema_id": "", "marker_nums": [1]}), "schema_id"),
                (json!({"schema_id": "s", "marker_nums": []}), "marker_nums"),
                (json!({"schema_id": "s", "marker_nums": (0..101).collect::<Vec<_>>()}), "marker_nums"),
                (json!({"paragraph_ids": []}), "paragraph_ids"),
                (json!({"paragraph_ids": ids(101)}), "paragraph_ids"),
                (json!({"paragraph_ids": ["p"], "window": 6}), "window"),
                (json!({"paragraph_ids": ["p"], "window": -1}), "window"),
                (json!({"paragraph_ids": ["p"], "max_segments": 0}), "max_segments"),
                (json!({"paragraph_ids": ["p"], "max_segments": 101}), "max_segments"),
            ],
        );
    }

    #[test]
    fn search_in_paper() {
        let request = prepare(
            "schema.search_in_paper",
            json!({"schema_id": "s1", "query": "github code", "section_hint": "Experiments", "prefer_code": true, "top_k": 20, "window": 0}),
        );
        assert_eq!(request.path, "/paper-schema/search-in-schema");
        assert_eq!(
            body(&request),
            json!({"schema_id": "s1", "query": "github code", "section_hint": "Experiments", "prefer_code": true, "top_k": 20, "window": 0})
        );
        prepare("schema.search_in_paper", json!({"schema_id": "s1", "query": "q", "section_hint": "x".repeat(300)}));
        assert_rules(
            "schema.search_in_paper",
            &[
                (json!({"schema_id": "", "query": "q"}), "schema_id"),
                (json!({"schema_id": "s", "query": ""}), "query"),
                (json!({"schema_id": "s", "query": "x".repeat(501)}), "query"),
                (json!({"schema_id": "s", "query": "q", "section_hint": "x".repeat(301)}), "section_hint"),
                (json!({"schema_id": "s", "query": "q", "top_k": 0}), "top_k"),
                (json!({"schema_id": "s", "query": "q", "top_k": 21}), "top_k"),
                (json!({"schema_id": "s", "query": "q", "window": 6}), "window"),
            ],
        );
    }

    #[test]
    fn hydrate_items() {
        let items = json!([
            {"schema_id": "s1", "paragraph_ids": ["p1"]},
            {"schema_id": "s1", "marker_nums": [4]},
            {"schema_id": "s2", "hydration_query": "code release"}
        ]);
        let request = prepare(
            "schema.hydrate_items",
            json!({"items": items, "window": 0, "max_segments_per_item": 20, "prefer_url_or_code": true}),
        );
        assert_eq!(request.path, "/paper-schema/hydrate-items");
        assert_eq!(
            body(&request),
            json!({"items": items, "window": 0, "max_segments_per_item": 20, "prefer_url_or_code": true})
        );
        let fifty_one: Vec<_> = (0..51).map(|_| json!({"schema_id": "s", "marker_nums": [1]})).collect();
        let ok = json!({"schema_id": "s", "marker_nums": [1]});
        assert_rules(
            "schema.hydrate_items",
            &[
                (json!({"items": []}), "items"),
                (json!({ "items": fifty_one }), "items"),
                (json!({"items": [ok, {"paragraph_ids": ["p"]}]}), "items[1].schema_id"),
                (json!({"items": [{"schema_id": "", "paragraph_ids": ["p"]}]}), "items[0].schema_id"),
                (json!({"items": [{"schema_id": "s"}]}), "items[0]"),
                (json!({"items": [{"schema_id": "s", "paragraph_ids": [], "hydration_query": ""}]}), "items[0]"),
                (json!({"items": [ok], "window": 6}), "window"),
                (json!({"items": [ok], "max_segments_per_item": 0}), "max_segments_per_item"),
                (json!({"items": [ok], "max_segments_per_item": 21}), "max_segments_per_item"),
            ],
        );
    }
}
