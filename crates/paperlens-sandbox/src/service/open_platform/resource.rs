//! `GET /resource`: binary attachments (figures as PNG, supplements as CSV).

use bytes::Bytes;

use super::params::query_param;
use super::permissions::full_text_visible;
use crate::service::error::{Result, STANDARD};
use crate::service::{Service, ServiceRequest, ServiceResponse};

pub fn handle(service: &Service, request: &ServiceRequest) -> Result<ServiceResponse> {
    let file_name = query_param(&request.query, "file_name")
        .ok_or_else(|| STANDARD.invalid_param("file_name", "'file_name' is required"))?;
    if file_name.is_empty() {
        return Err(STANDARD.invalid_param("file_name", "'file_name' must not be empty"));
    }
    if file_name.starts_with('/') {
        return Err(STANDARD.invalid_param("file_name", "'file_name' must be a relative path (no leading '/')"));
    }
    if file_name.contains("..") || file_name.contains('\\') {
        return Err(STANDARD.invalid_param("file_name", "'file_name' must not contain '..' or a backslash"));
    }
    let corpus = service.corpus();
    // The contract lists no 404 here: a name that names no object is a bad parameter (400).
    let attachment = corpus
        .attachment(file_name)
        .ok_or_else(|| STANDARD.invalid_param("file_name", format!("no resource named '{file_name}'")))?;
    let paper = &corpus.papers[attachment.paper as usize];
    if !full_text_visible(request.access, paper) {
        return Err(STANDARD.forbidden(format!(
            "the token has no permission for the resources of {} (not open access)",
            paper.unique_id
        )));
    }
    Ok(ServiceResponse {
        status: 200,
        headers: vec![
            ("content-type".into(), attachment.content_type.into()),
            ("content-disposition".into(), format!("attachment; filename=\"{}\"", attachment.file_name)),
            ("cache-control".into(), "private, no-store".into()),
        ],
        body: Bytes::from(attachment.bytes),
    })
}
