//! The door between the HTTP shell and the service logic.

pub mod corpus;
pub mod cursor;
pub mod error;
pub mod fragments;
pub mod growth;
pub mod indexes;
pub mod open_platform;
pub mod paper_schema;
pub mod rng;
pub mod search;

#[cfg(test)]
mod tests;

use std::sync::OnceLock;

use bytes::Bytes;

use corpus::Corpus;
use error::ApiError;
use growth::Growth;
use indexes::Indexes;
use open_platform::agentic_search::hits::HitCache;
use open_platform::meta_catalog::CatalogCache;
use open_platform::meta_search::record_json::RecordJsons;
use paper_schema::index::SchemaIndex;

/// What the token of a request may see.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    /// Every field and every full text.
    Full,
    /// Limited field permissions: some fields and full texts answer 403.
    Restricted,
}

/// How the corpus is generated and how responses are serialized.
#[derive(Debug, Clone)]
pub struct ServiceConfig {
    pub papers: usize,
    pub seed: u64,
    /// Serialize int64 counts (`total_count`, facet `doc_count`) as JSON strings.
    pub int64_as_string: bool,
}

/// One authenticated request, as the HTTP shell hands it over.
#[derive(Debug, Clone)]
pub struct ServiceRequest {
    pub method: String,
    /// Path without the query string, e.g. `/meta-search`.
    pub path: String,
    /// Decoded query parameters in order (repeated names allowed).
    pub query: Vec<(String, String)>,
    pub body: Bytes,
    pub access: Access,
    /// Echoed as `request_id` in error bodies.
    pub request_id: String,
}

impl ServiceRequest {
    /// A `POST` of a JSON body without query parameters, handed to [`Service::handle`] past
    /// the HTTP shell (the reports in examples/ measure the service alone).
    pub fn post(path: &str, body: &serde_json::Value, access: Access) -> ServiceRequest {
        ServiceRequest {
            method: "POST".into(),
            path: path.into(),
            query: Vec::new(),
            body: Bytes::from(body.to_string()),
            access,
            request_id: "local".into(),
        }
    }
}

/// The answer: status, extra headers (Content-Type included) and body bytes.
#[derive(Debug, Clone)]
pub struct ServiceResponse {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Bytes,
}

/// The service over one generated corpus: immutable after `build`, so `handle` runs
/// concurrently from any number of threads.
pub struct Service {
    config: ServiceConfig,
    corpus: Corpus,
    indexes: Indexes,
    catalog_cache: CatalogCache,
    hit_cache: HitCache,
    record_json: RecordJsons,
    /// Built on the first `/paper-schema` request that needs it.
    schema_index: OnceLock<SchemaIndex>,
    growth: Growth,
}

impl Service {
    pub fn build(config: ServiceConfig) -> Service {
        let corpus = Corpus::generate(config.papers, config.seed);
        let indexes = Indexes::build(&corpus);
        Service {
            config,
            hit_cache: HitCache::new(indexes.chunks.len()),
            record_json: RecordJsons::new(&corpus),
            corpus,
            indexes,
            catalog_cache: CatalogCache::default(),
            schema_index: OnceLock::new(),
            growth: Growth::default(),
        }
    }

    /// The service with about `share` of its papers hidden from `/meta-search` until
    /// [`Service::reveal`], or until `reveal_after` requests have been handled (see [`growth`]).
    pub fn growing(mut self, share: f64, reveal_after: Option<u64>) -> Service {
        self.growth = Growth::new(self.corpus.papers.len(), self.config.seed, share, reveal_after);
        self
    }

    /// Reveals the hidden papers: the corpus has grown.
    pub fn reveal(&self) {
        self.growth.reveal();
    }

    /// Which papers are hidden from searches now.
    pub fn growth(&self) -> &Growth {
        &self.growth
    }

    pub fn config(&self) -> &ServiceConfig {
        &self.config
    }

    /// The generated corpus (records, full texts, figures, structured paper data).
    pub fn corpus(&self) -> &Corpus {
        &self.corpus
    }

    pub fn indexes(&self) -> &Indexes {
        &self.indexes
    }

    /// The indexes of the structured papers (built on first use).
    pub fn schema_index(&self) -> &SchemaIndex {
        self.schema_index.get_or_init(|| SchemaIndex::build(&self.corpus))
    }

    fn catalog_cache(&self) -> &CatalogCache {
        &self.catalog_cache
    }

    fn hit_cache(&self) -> &HitCache {
        &self.hit_cache
    }

    fn record_json(&self) -> &RecordJsons {
        &self.record_json
    }

    pub fn handle(&self, request: &ServiceRequest) -> ServiceResponse {
        self.growth.count_request();
        let method = request.method.as_str();
        let read = method.eq_ignore_ascii_case("GET") || method.eq_ignore_ascii_case("HEAD");
        let post = method.eq_ignore_ascii_case("POST");
        let (allowed, result) = match request.path.as_str() {
            "/agentic-search" => ("POST", post.then(|| open_platform::agentic_search::handle(self, request))),
            "/content" => ("GET", read.then(|| open_platform::content::handle(self, request))),
            "/resource" => ("GET", read.then(|| open_platform::resource::handle(self, request))),
            "/meta-catalog" => ("GET", read.then(|| open_platform::meta_catalog::handle(self, request))),
            "/meta-search" => ("POST", post.then(|| open_platform::meta_search::handle(self, request))),
            "/meta-paper-relations" => ("POST", post.then(|| open_platform::paper_relations::handle(self, request))),
            path => match paper_schema::route(self, request, read, post) {
                Some(routed) => routed,
                None => {
                    return ApiError::not_found(format!("no operation at path '{path}'"))
                        .into_response(&request.request_id)
                }
            },
        };
        match result {
            Some(Ok(response)) => response,
            Some(Err(error)) => error.into_response(&request.request_id),
            None => {
                let mut response = ApiError {
                    status: 405,
                    code: "METHOD_NOT_ALLOWED",
                    message: format!("{} does not accept {}; use {allowed}", request.path, method.to_ascii_uppercase()),
                    details: None,
                }
                .into_response(&request.request_id);
                response.headers.push(("allow".into(), allowed.into()));
                response
            }
        }
    }
}
