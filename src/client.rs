//! `NativeClient`: turns the Python arguments of each method into an [`Operation`] and runs
//! it the method's way (sync, awaitable, or submitted to `Completions`). No logic of its own.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;

use paperlens_core::config::{
    self, seconds, BoundsInput, RateLimitEntries, SharedPacing, MAX_COMPRESSION_RATIO, MAX_CONCURRENCY,
    MAX_DOWNLOAD_BYTES, MAX_RESPONSE_BYTES, MAX_RETRIES, RATE_LIMIT,
};
use paperlens_core::operation::as_given;
use paperlens_core::{prepare, ApiRequest, ClientConfig, ConfigInput, Error, Quota, Transport};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString};
use pythonize::Depythonizer;

use crate::completions::Completions;
use crate::decode::page_rows;
use crate::errors::PyPaperlensErr;
use crate::events::PythonLog;
use crate::ints::{setting, Int};
use crate::operation::{Operation, Pending};
use crate::runtime::runtime;

#[pyclass(frozen, module = "paperlens._paperlens")]
pub struct NativeClient {
    transport: Transport,
    events: Arc<PythonLog>,
}

/// `rate_limits` as Python gives it: `"default"`, `None` (off) or a dict of overrides, read in
/// its order (the first bad entry is the one said).
fn rate_limits_input(value: &Bound<'_, PyAny>) -> PyResult<Option<Option<RateLimitEntries>>> {
    if value.is_none() {
        return Ok(Some(None));
    }
    if let Ok(text) = value.cast::<PyString>() {
        if text.to_str()? == "default" {
            return Ok(None);
        }
    }
    let not_a_dict = || {
        PyPaperlensErr::from(Error::Configuration(
            "rate_limits must be \"default\", None or a dict of requests per minute".into(),
        ))
    };
    let entries = value.cast::<PyDict>().map_err(|_| not_a_dict())?.iter().map(|(resource, per_minute)| {
        let resource: String = resource.extract().map_err(|_| not_a_dict())?;
        Ok(rate_limit_of(&resource, &per_minute)?)
    });
    Ok(Some(Some(entries.collect::<PyResult<_>>()?)))
}

/// The quota of the `rate_limits` entry of `resource` and its requests per minute, `value`;
/// an unknown quota, then a value of another kind or past 32 bits, is an error naming it.
fn rate_limit_of(resource: &str, value: &Bound<'_, PyAny>) -> Result<(Quota, u32), PyPaperlensErr> {
    let quota = config::quota_named(resource)?;
    let refused = |rule: &str| PyPaperlensErr::from(config::rate_limit_error(resource, rule));
    let per_minute = match value.extract::<Int<u32>>() {
        Ok(per_minute) => per_minute.held_or(|negative, written| refused(&RATE_LIMIT.outside(negative, written)))?,
        Err(_) => return Err(refused(&format!("requests per minute must be a whole number, got {}", shown(value)))),
    };
    Ok((quota, per_minute))
}

/// `value` as Python writes it (its `repr`), shortened; empty when it has none.
fn shown(value: &Bound<'_, PyAny>) -> String {
    value.repr().map(|repr| paperlens_core::error::shortened(repr.to_string())).unwrap_or_default()
}

/// The read bounds as Python gives them.
fn bounds_input(
    max_response_bytes: Option<Int<i64>>,
    max_download_bytes: Option<Int<i64>>,
    max_compression_ratio: Option<Int<i64>>,
) -> Result<BoundsInput, PyPaperlensErr> {
    Ok(BoundsInput {
        max_response_bytes: setting(max_response_bytes, MAX_RESPONSE_BYTES)?,
        max_download_bytes: setting(max_download_bytes, MAX_DOWNLOAD_BYTES)?,
        max_compression_ratio: setting(max_compression_ratio, MAX_COMPRESSION_RATIO)?,
    })
}

/// `shared_pacing` as Python gives it: `False`/`None` (off), `True` (the default file), a path,
/// or a `scheme://` URL (the core accepts Redis ones).
fn shared_pacing_input(value: Option<&Bound<'_, PyAny>>) -> PyResult<SharedPacing> {
    let Some(value) = value.filter(|v| !v.is_none()) else { return Ok(SharedPacing::Off) };
    if let Ok(flag) = value.extract::<bool>() {
        return Ok(if flag { SharedPacing::DefaultFile } else { SharedPacing::Off });
    }
    let path: PathBuf = value.extract().map_err(|_| {
        PyPaperlensErr::from(Error::Configuration(
            "shared_pacing must be True, False, the path of a file or a redis:// URL".into(),
        ))
    })?;
    match path.to_str().filter(|text| url_scheme(text).is_some()) {
        Some(url) => Ok(SharedPacing::Url(url.to_string())),
        None => Ok(SharedPacing::File(path)),
    }
}

/// The scheme of a `scheme://...` URL (RFC 3986: a letter, then letters, digits, `+`, `-`, `.`).
fn url_scheme(text: &str) -> Option<&str> {
    let (scheme, _) = text.split_once("://")?;
    let mut chars = scheme.chars();
    let well_formed = chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'));
    well_formed.then_some(scheme)
}

#[pymethods]
impl NativeClient {
    #[new]
    #[pyo3(signature = (*, api_token, base_url, timeout, connect_timeout, max_retries, retry_backoff,
                        max_rate_limit_wait, service_source, rate_limits, validate, user_agent,
                        cache_dir=None, cache_ttl=None, ca_bundle=None, proxy=None, max_concurrency=None,
                        shared_pacing=None, deadline=None, max_response_bytes=None, max_download_bytes=None,
                        max_compression_ratio=None))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        api_token: Option<String>,
        base_url: Option<String>,
        timeout: Option<f64>,
        connect_timeout: Option<f64>,
        max_retries: Option<Int<u32>>,
        retry_backoff: Option<f64>,
        max_rate_limit_wait: Option<f64>,
        service_source: Option<String>,
        rate_limits: &Bound<'_, PyAny>,
        validate: Option<bool>,
        user_agent: Option<String>,
        cache_dir: Option<PathBuf>,
        cache_ttl: Option<f64>,
        ca_bundle: Option<PathBuf>,
        proxy: Option<String>,
        max_concurrency: Option<Int<i64>>,
        shared_pacing: Option<&Bound<'_, PyAny>>,
        deadline: Option<f64>,
        max_response_bytes: Option<Int<i64>>,
        max_download_bytes: Option<Int<i64>>,
        max_compression_ratio: Option<Int<i64>>,
    ) -> PyResult<NativeClient> {
        let bounds = bounds_input(max_response_bytes, max_download_bytes, max_compression_ratio)?;
        let input = ConfigInput {
            api_token,
            base_url,
            timeout,
            connect_timeout,
            deadline,
            max_retries: setting(max_retries, MAX_RETRIES)?,
            retry_backoff,
            max_rate_limit_wait,
            service_source,
            rate_limits: rate_limits_input(rate_limits)?,
            validate,
            user_agent,
            cache_dir,
            // From Python, `None` means "entries never expire"; the default is Python's.
            cache_ttl: Some(cache_ttl),
            ca_bundle,
            proxy,
            max_concurrency: setting(max_concurrency, MAX_CONCURRENCY)?,
            shared_pacing: shared_pacing_input(shared_pacing)?,
            bounds,
        };
        let config = ClientConfig::resolve(input, |name| std::env::var(name).ok()).map_err(PyPaperlensErr::from)?;
        let events = Arc::new(PythonLog::new(py)?);
        let transport = Transport::new(config, events.clone()).map_err(PyPaperlensErr::from)?;
        Ok(NativeClient { transport, events })
    }

    /// A client sharing this one's connection pool and pacing, with other call settings.
    #[pyo3(signature = (*, timeout=None, max_retries=None, retry_backoff=None, max_rate_limit_wait=None, validate=None,
                        deadline=None, max_response_bytes=None, max_download_bytes=None, max_compression_ratio=None))]
    #[allow(clippy::too_many_arguments)]
    fn with_options(
        &self,
        timeout: Option<f64>,
        max_retries: Option<Int<u32>>,
        retry_backoff: Option<f64>,
        max_rate_limit_wait: Option<f64>,
        validate: Option<bool>,
        deadline: Option<f64>,
        max_response_bytes: Option<Int<i64>>,
        max_download_bytes: Option<Int<i64>>,
        max_compression_ratio: Option<Int<i64>>,
    ) -> Result<NativeClient, PyPaperlensErr> {
        let mut config = self.transport.config().clone();
        let max_retries = setting(max_retries, MAX_RETRIES)?;
        config.bounds =
            config.bounds.with(bounds_input(max_response_bytes, max_download_bytes, max_compression_ratio)?)?;
        if let Some(t) = timeout {
            config.timeout = seconds("timeout", t)?;
        }
        if deadline.is_some() {
            config.deadline = config::deadline(deadline)?;
        }
        if let Some(b) = retry_backoff {
            config.retry_backoff = seconds("retry_backoff", b)?;
        }
        if let Some(w) = max_rate_limit_wait {
            config.max_rate_limit_wait = seconds("max_rate_limit_wait", w)?;
        }
        config.max_retries = max_retries.unwrap_or(config.max_retries);
        config.validate = validate.unwrap_or(config.validate);
        Ok(NativeClient { transport: self.transport.with_config(config), events: self.events.clone() })
    }

    /// The response cache's directory, or `None` when caching is off.
    #[getter]
    fn cache_dir(&self) -> Option<PathBuf> {
        self.transport.cache().map(|c| c.dir().to_path_buf())
    }

    /// The response cache's TTL in seconds; `None` when entries never expire (or no cache).
    #[getter]
    fn cache_ttl(&self) -> Option<f64> {
        self.transport.cache().and_then(|c| c.ttl()).map(|t| t.as_secs_f64())
    }

    /// Removes every cached answer; returns how many were removed (0 when caching is off).
    fn clear_cache(&self, py: Python<'_>) -> Result<usize, PyPaperlensErr> {
        let Some(cache) = self.transport.cache() else { return Ok(0) };
        let cleared = py.detach(|| cache.clear()).map_err(|e| Error::Io {
            message: format!("could not clear the response cache: {e}"),
            request_id: String::new(),
            errno: e.raw_os_error(),
        })?;
        Ok(cleared)
    }

    /// Registers `callback(kind, wait_seconds, message)` for the transport's events of this
    /// client and those derived from it (`kind`: request, response, retry, paced, cache_hit);
    /// returns an id for `remove_listener`. Called from the I/O threads, with the GIL.
    fn add_listener(&self, callback: Py<PyAny>) -> u64 {
        self.events.add_listener(callback)
    }

    fn remove_listener(&self, id: u64) -> bool {
        self.events.remove_listener(id)
    }

    #[getter]
    fn base_url(&self) -> String {
        self.transport.config().base_url.to_string()
    }

    /// The token in use (given or from the environment), for pickling the client's settings
    /// only: never to be shown.
    fn api_token(&self) -> String {
        self.transport.config().token.expose().to_string()
    }

    /// The pacing's requests per minute in force now, by quota resource (`meta-search`,
    /// `paper-schema`: the configured limit, or a lower one learned from 429s) and by
    /// operation slowed down after 429s; what is not paced is absent.
    fn pacing_rates(&self, py: Python<'_>) -> Result<HashMap<&'static str, u32>, PyPaperlensErr> {
        let rates = py.detach(|| runtime().block_on(self.transport.pacing_rates()))?;
        Ok(rates.into_iter().collect())
    }

    #[getter]
    fn timeout(&self) -> f64 {
        self.transport.config().timeout.as_secs_f64()
    }

    #[getter]
    fn max_retries(&self) -> u32 {
        self.transport.config().max_retries
    }

    #[getter]
    fn validate(&self) -> bool {
        self.transport.config().validate
    }

    /// Calls a JSON operation; returns `(decoded body, request_id)`.
    fn call(&self, py: Python<'_>, operation: &str, params: &Bound<'_, PyDict>) -> PyResult<Py<PyAny>> {
        self.json_operation(operation, params)?.run_blocking(py, self.transport.clone())
    }

    /// Starts a JSON operation now; its answer is waited for later ([`Pending::wait`]).
    /// Parameter errors raise here, before anything is sent.
    fn start(&self, operation: &str, params: &Bound<'_, PyDict>) -> PyResult<Pending> {
        Ok(self.json_operation(operation, params)?.start(self.transport.clone()))
    }

    /// The awaitable twin of [`call`]; must be called with a running event loop.
    fn call_async<'py>(
        &self,
        py: Python<'py>,
        operation: &str,
        params: &Bound<'py, PyDict>,
    ) -> PyResult<Bound<'py, PyAny>> {
        self.json_operation(operation, params)?.run_awaitable(py, self.transport.clone())
    }

    /// Fetches a binary resource; returns `(data, content_type, content_disposition, request_id)`.
    fn fetch(&self, py: Python<'_>, params: &Bound<'_, PyDict>) -> PyResult<Py<PyAny>> {
        self.bytes_operation(params)?.run_blocking(py, self.transport.clone())
    }

    fn fetch_async<'py>(&self, py: Python<'py>, params: &Bound<'py, PyDict>) -> PyResult<Bound<'py, PyAny>> {
        self.bytes_operation(params)?.run_awaitable(py, self.transport.clone())
    }

    /// Starts an operation whose answer arrives through `completions` under `id` (the asyncio
    /// path): `kind` is `json`, `bytes` (a resource) or `download` (to `dest`). Parameter
    /// errors raise here, before anything is sent.
    #[pyo3(signature = (kind, operation, params, completions, id, dest=None, progress=None))]
    #[allow(clippy::too_many_arguments)]
    fn submit(
        &self,
        kind: &str,
        operation: &str,
        params: &Bound<'_, PyDict>,
        completions: &Completions,
        id: u64,
        dest: Option<PathBuf>,
        progress: Option<Py<PyAny>>,
    ) -> PyResult<()> {
        let operation = match (kind, dest) {
            ("json", _) => self.json_operation(operation, params)?,
            ("bytes", _) => self.bytes_operation(params)?,
            ("download", Some(dest)) => self.download_operation(params, dest, progress)?,
            _ => return Err(PyValueError::new_err(format!("unknown submission kind {kind:?}"))),
        };
        completions.spawn(id, operation.run(self.transport.clone()));
        Ok(())
    }

    /// Streams a resource to `dest` atomically; returns `(path, request_id)`. `progress`, if
    /// given, is called `(bytes_written, content_length_or_None)` as the body arrives.
    #[pyo3(signature = (params, dest, progress=None))]
    fn download(
        &self,
        py: Python<'_>,
        params: &Bound<'_, PyDict>,
        dest: PathBuf,
        progress: Option<Py<PyAny>>,
    ) -> PyResult<Py<PyAny>> {
        self.download_operation(params, dest, progress)?.run_blocking(py, self.transport.clone())
    }

    #[pyo3(signature = (params, dest, progress=None))]
    fn download_async<'py>(
        &self,
        py: Python<'py>,
        params: &Bound<'py, PyDict>,
        dest: PathBuf,
        progress: Option<Py<PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        self.download_operation(params, dest, progress)?.run_awaitable(py, self.transport.clone())
    }
}

/// What the Python arguments of each kind of operation ask of the core; errors in the
/// parameters raise here, before anything is sent.
impl NativeClient {
    fn json_operation(&self, operation: &str, params: &Bound<'_, PyDict>) -> PyResult<Operation> {
        Ok(Operation::Json { request: self.prepare(operation, params)?, rows: page_rows(operation) })
    }

    fn bytes_operation(&self, params: &Bound<'_, PyDict>) -> PyResult<Operation> {
        Ok(Operation::Bytes(self.prepare("resource", params)?))
    }

    fn download_operation(
        &self,
        params: &Bound<'_, PyDict>,
        dest: PathBuf,
        progress: Option<Py<PyAny>>,
    ) -> PyResult<Operation> {
        let file_name: String = params.get_item("file_name")?.map(|f| f.extract()).transpose()?.unwrap_or_default();
        // Not a parameter of the request: whether the download may replace a file at `dest`.
        let overwrite: bool = params.get_item("overwrite")?.map(|o| o.extract()).transpose()?.unwrap_or(false);
        let request = params.copy()?;
        if request.contains("overwrite")? {
            request.del_item("overwrite")?;
        }
        let request = self.prepare("resource", &request)?;
        Ok(Operation::Download { request, file_name, dest, progress, overwrite })
    }

    fn prepare(&self, operation: &str, params: &Bound<'_, PyDict>) -> PyResult<ApiRequest> {
        self.events.refresh(params.py());
        prepared(operation, params, self.transport.config().validate)
    }
}

/// Refuses `params` as `operation` refuses them before it sends (the contract's rules),
/// sending nothing: for settings kept to be sent later, checked when given.
#[pyfunction]
pub fn check_params(operation: &str, params: &Bound<'_, PyDict>) -> PyResult<()> {
    prepared(operation, params, true).map(drop)
}

/// The request of `operation` from Python's `params`, checked against the contract when
/// `validate`; an error shows the value as the caller wrote it.
fn prepared(operation: &str, params: &Bound<'_, PyDict>, validate: bool) -> PyResult<ApiRequest> {
    let given = as_given(&mut Depythonizer::from_object(params.as_any()));
    let prepared = given.and_then(|given| prepare(operation, given, validate));
    Ok(prepared.map_err(|error| shown_as_given(error, params.as_any())).map_err(PyPaperlensErr::from)?)
}

/// A validation error that shows no value gets the `repr` of the value at its parameter, as
/// the caller wrote it (a type error from the conversion, a rule on a whole part).
fn shown_as_given(error: Error, params: &Bound<'_, PyAny>) -> Error {
    match error {
        Error::Validation { param, rule, value } if value.is_empty() => {
            let value = value_at(params, &param).map(|v| shown(&v)).unwrap_or_default();
            Error::Validation { param, rule, value }
        }
        other => other,
    }
}

/// The value at a parameter path (`filters.dois`, `items[2].marker_nums[0]`), if present.
fn value_at<'py>(params: &Bound<'py, PyAny>, path: &str) -> Option<Bound<'py, PyAny>> {
    let mut value = params.clone();
    for part in path.split('.') {
        let (name, indices) = part.split_once('[').map_or((part, ""), |(name, rest)| (name, rest));
        if !name.is_empty() {
            value = value.get_item(name).ok()?;
        }
        for index in indices.split('[').filter(|i| !i.is_empty()) {
            value = value.get_item(index.trim_end_matches(']').parse::<usize>().ok()?).ok()?;
        }
    }
    Some(value)
}
