//! paperlens-core: the client side of the paperlens service in plain Rust.
//!
//! Data flows one way: parameters are deserialized into an operation's request type
//! ([`operation::prepare`]), validated against the spec's bounds, turned into an
//! [`ApiRequest`], and sent by the [`Transport`] (pacing, retries, request ids), which
//! returns the raw [`ApiResponse`]. Decoding the body into Python objects is the
//! binding layer's job. Nothing here knows about Python.

pub mod bibtex;
pub mod cache;
pub mod config;
pub mod contract;
pub mod error;
pub mod events;
pub mod fork;
pub mod network;
pub mod open_platform;
pub mod operation;
pub mod pacing;
pub mod paper_schema;
pub mod proxy;
pub mod request;
pub mod request_type;
pub mod retry;
pub mod surrogates;
pub mod transport;
pub mod validate;

pub use cache::ResponseCache;
pub use config::{CacheConfig, ClientConfig, ConfigInput, Secret};
pub use error::{ApiError, Error};
pub use events::{Event, EventSink};
pub use operation::prepare;
pub use request::{ApiRequest, ApiResponse, Quota};
pub use surrogates::decode_replacing_lone_surrogates;
pub use transport::{Body, BodySink, DownloadProgress, Transport};
