//! `POST /meta-paper-relations`: citations, references or related works of one paper.

use crate::contract::{PAGE, PAGE_SIZE, PAPER_RELATIONS};
use crate::request::ApiRequest;
use crate::request_type::{request, Operation};
use crate::validate::rule::{at_least, non_empty, one_of, within};

request! {
    body PaperRelations {
        unique_id: String [non_empty()],
        relation: String [one_of(&PAPER_RELATIONS)],
        page: Option<i64> [at_least(PAGE.min)],
        page_size: Option<i64> [within(PAGE_SIZE)],
    }
}

impl Operation for PaperRelations {
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
        assert!(crate::open_platform::prepare("paper_relations", ok, true).is_ok());
        for bad in [
            json!({"unique_id": "", "relation": "CITATIONS"}),
            json!({"unique_id": "W1", "relation": "citations"}),
            json!({"unique_id": "W1", "relation": "CITATIONS", "page": 0}),
            json!({"unique_id": "W1", "relation": "CITATIONS", "page_size": 201}),
        ] {
            assert!(crate::open_platform::prepare("paper_relations", bad.clone(), true).is_err(), "{bad}");
        }
    }
}
