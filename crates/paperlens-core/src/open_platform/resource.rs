//! `GET /resource`: a binary attachment by its relative object path.

use std::path::{Path, PathBuf};

use crate::error::Error;
use crate::operation::{request, Operation};
use crate::request::ApiRequest;
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

/// Where a download of `file_name` to `dest` lands: `dest` itself, or inside `dest` when it
/// is a directory, named by the `Content-Disposition` filename or the last path segment.
pub fn download_target(dest: &Path, file_name: &str, content_disposition: Option<&str>) -> PathBuf {
    if !dest.is_dir() {
        return dest.to_path_buf();
    }
    let name = content_disposition
        .and_then(disposition_filename)
        .filter(|n| is_plain_file_name(n))
        .or_else(|| file_name.rsplit('/').next().map(str::to_string).filter(|n| is_plain_file_name(n)))
        .unwrap_or_else(|| "resource".to_string());
    dest.join(name)
}

fn disposition_filename(header: &str) -> Option<String> {
    header.split(';').map(str::trim).find_map(|part| {
        let value = part.strip_prefix("filename=")?;
        Some(value.trim_matches('"').to_string())
    })
}

/// A name that stays inside the destination directory.
fn is_plain_file_name(name: &str) -> bool {
    !name.is_empty() && name != "." && name != ".." && !name.contains(['/', '\\', '\0'])
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn path_rules() {
        assert!(crate::prepare("resource", json!({"file_name": "figures/a/fig1.png"}), true).is_ok());
        for bad in ["", "/etc/passwd", "a/../b", "a\\b"] {
            assert!(crate::prepare("resource", json!({"file_name": bad}), true).is_err(), "{bad}");
        }
    }

    #[test]
    fn target_inside_a_directory() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("x.png");
        assert_eq!(download_target(&file, "figures/fig1.png", None), file);
        assert_eq!(download_target(dir.path(), "figures/fig1.png", None), dir.path().join("fig1.png"));
        let named = download_target(dir.path(), "f/x", Some("attachment; filename=\"fig 2.png\""));
        assert_eq!(named, dir.path().join("fig 2.png"));
        let escaping = download_target(dir.path(), "f/x", Some("attachment; filename=\"../../evil\""));
        assert_eq!(escaping, dir.path().join("x"));
    }
}
