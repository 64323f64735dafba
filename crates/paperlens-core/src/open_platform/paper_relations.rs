//! `POST /meta-paper-relations`: citations, references or related works of one paper.

use serde::{Deserialize, Serialize};

use crate::operation::Operation;
use crate::request::ApiRequest;
use crate::validate::{self as v, Check};

#[serde_with::skip_serializing_none]
#[derive(Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct PaperRelations {
    pub unique_id: String,
    pub relation: String,
    pub page: Option<i64>,
    pub page_size: Option<i64>,
}

impl Operation for PaperRelations {
    fn validate(&self) -> Check {
        v::chars("unique_id", &self.unique_id, 1, usize::MAX)?;
        v::one_of("relation", Some(&self.relation), &["CITATIONS", "REFERENCES", "RELATED_WORKS"])?;
        v::at_least("page", self.page, 1)?;
        v::range("page_size", self.page_size, 1, 200)
    }

    fn request(&self) -> ApiRequest {
        ApiRequest::post_json("/meta-paper-relations", self, None)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    #[test]
    fn bounds() {
        let ok = json!({"unique_id": "W1", "relation": "CITATIONS", "page": 2, "page_size": 200});
        assert!(crate::prepare("paper_relations", ok, true).is_ok());
        for bad in [
            json!({"unique_id": "", "relation": "CITATIONS"}),
            json!({"unique_id": "W1", "relation": "citations"}),
            json!({"unique_id": "W1", "relation": "CITATIONS", "page": 0}),
            json!({"unique_id": "W1", "relation": "CITATIONS", "page_size": 201}),
        ] {
            assert!(crate::prepare("paper_relations", bad.clone(), true).is_err(), "{bad}");
        }
    }
}
