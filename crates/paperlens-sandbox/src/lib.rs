//! The paperlens sandbox: a local, contract-faithful implementation of the service.
//!
//! Two rooms with one door between them:
//! - [`service`]: the service itself, a pure function from a [`ServiceRequest`] to a
//!   [`ServiceResponse`] over a generated corpus (no sockets, no axum types);
//! - [`server`]: the HTTP shell (axum) around it: authentication, request ids, rate
//!   limits, fault injection, request recording and `/openapi.json`.

pub mod server;
pub mod service;

pub use server::{Fault, FaultKind, RateLimitKind, RecordedRequest, Sandbox, SandboxConfig, PAPERS};
pub use service::{Access, Service, ServiceConfig, ServiceRequest, ServiceResponse};
