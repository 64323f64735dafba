//! `GET /meta-catalog`: the metadata fields the token may use.

use super::content::present;
use crate::contract::COLLECTIONS;
use crate::request::ApiRequest;
use crate::request_type::{request, Operation};
use crate::validate::rule::one_of;

request! {
    query MetaCatalog {
        collection: Option<String> [one_of(&COLLECTIONS)],
        include_sample_values: Option<bool>,
        include_field_stats: Option<bool>,
    }
}

impl Operation for MetaCatalog {
    fn request(&self) -> ApiRequest {
        let query = [
            ("collection", self.collection.clone()),
            ("include_sample_values", self.include_sample_values.map(|b| b.to_string())),
            ("include_field_stats", self.include_field_stats.map(|b| b.to_string())),
        ];
        ApiRequest::get("/meta-catalog", present(query), None)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    #[test]
    fn booleans_are_sent_as_words() {
        let request = crate::open_platform::prepare(
            "meta_catalog",
            json!({"include_field_stats": true, "collection": "authors"}),
            true,
        )
        .unwrap();
        assert_eq!(
            request.query,
            vec![("collection".into(), "authors".into()), ("include_field_stats".into(), "true".into())]
        );
        assert!(crate::open_platform::prepare("meta_catalog", json!({"collection": "venues"}), true).is_err());
    }
}
