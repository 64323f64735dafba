//! `GET /paper-schema`: the capability contract (version, taxonomies, evidence groups, limits).

use super::{get, Query, BASE};
use crate::request::ApiRequest;
use crate::request_type::{request, Operation};

request! {
    /// Takes no parameters besides the token.
    query Capabilities {}
}

impl Operation for Capabilities {
    fn request(&self) -> ApiRequest {
        get(BASE.to_string(), Query::default())
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use crate::paper_schema::testing::prepare;

    #[test]
    fn plain_get_of_the_root() {
        let request = prepare("schema.capabilities", json!({}));
        assert_eq!((request.method.as_str(), request.path.as_str()), ("GET", "/paper-schema"));
        assert!(request.query.is_empty() && request.body.is_none());
        assert!(crate::paper_schema::prepare("schema.capabilities", json!({"verbose": true}), true).is_err());
    }
}
