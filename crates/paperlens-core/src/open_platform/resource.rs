//! `GET /resource`: a binary attachment by its relative object path.

use crate::error::Error;
use crate::request::ApiRequest;
use crate::request_type::{request, Operation};
use crate::validate::{self as v, Check};

request! {
    query Resource {
        file_name: String,
    }
}

impl Operation for Resource {
    fn validate(&self) -> Check {
        v::chars("file_name", &self.file_name, 1, usize::MAX)?;
        if self.file_name.starts_with('/') {
            return Err(Error::validation("file_name", "must be a relative path (no leading '/')", &self.file_name));
        }
        v::safe_path("file_name", &self.file_name)
    }

    fn request(&self) -> ApiRequest {
        ApiRequest::get("/resource", vec![("file_name".into(), self.file_name.clone())], None)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    #[test]
    fn path_rules() {
        assert!(crate::open_platform::prepare("resource", json!({"file_name": "figures/a/fig1.png"}), true).is_ok());
        for bad in ["", "/etc/passwd", "a/../b", "a\\b"] {
            assert!(crate::open_platform::prepare("resource", json!({"file_name": bad}), true).is_err(), "{bad}");
        }
    }
}
