//! `NativeClient`: every operation is one core future, run here with the GIL released
//! (sync) or handed to asyncio (async). No logic of its own beyond that.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;

use paperlens_core::config::SharedPacing;
use paperlens_core::open_platform::download_target;
use paperlens_core::{prepare, ApiRequest, ClientConfig, ConfigInput, DownloadProgress, Error, Transport};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString};
use pythonize::Depythonizer;

use crate::completions::{Completions, Outcome};
use crate::decode::{page_rows, BytesAnswer, JsonAnswer};
use crate::errors::{to_py_err, to_py_err_attached};
use crate::events::PythonLog;
use crate::runtime::block_on;

#[pyclass(frozen, module = "paperlens._paperlens")]
pub struct NativeClient {
    transport: Transport,
    events: Arc<PythonLog>,
}

/// `rate_limits` as Python gives it: `"default"`, `None` (off) or a mapping of overrides.
fn rate_limits_input(value: &Bound<'_, PyAny>) -> PyResult<Option<Option<HashMap<String, u32>>>> {
    if value.is_none() {
        return Ok(Some(None));
    }
    if let Ok(text) = value.cast::<PyString>() {
        if text.to_str()? == "default" {
            return Ok(None);
        }
    }
    let map: HashMap<String, u32> = value.extract().map_err(|_| {
        to_py_err(
            value.py(),
            Error::Configuration("rate_limits must be \"default\", None or a dict of requests per minute".into()),
        )
    })?;
    Ok(Some(Some(map)))
}

/// `max_concurrency` as Python gives it: `None` (the default bound) or a positive int.
fn max_concurrency_input(value: Option<i64>) -> Result<Option<usize>, Error> {
    value
        .map(|n| {
            usize::try_from(n)
                .ok()
                .filter(|n| *n >= 1)
                .ok_or_else(|| Error::Configuration(format!("max_concurrency must be at least 1, got {n}")))
        })
        .transpose()
}

/// `shared_pacing` as Python gives it: `False`/`None` (off), `True` (the default file) or a path.
fn shared_pacing_input(value: Option<&Bound<'_, PyAny>>) -> PyResult<SharedPacing> {
    let Some(value) = value.filter(|v| !v.is_none()) else { return Ok(SharedPacing::Off) };
    if let Ok(flag) = value.extract::<bool>() {
        return Ok(if flag { SharedPacing::DefaultFile } else { SharedPacing::Off });
    }
    let path: PathBuf = value.extract().map_err(|_| {
        to_py_err(value.py(), Error::Configuration("shared_pacing must be True, False or the path of a file".into()))
    })?;
    Ok(SharedPacing::File(path))
}

#[pymethods]
impl NativeClient {
    #[new]
    #[pyo3(signature = (*, api_token, base_url, timeout, connect_timeout, max_retries, retry_backoff,
                        max_rate_limit_wait, service_source, rate_limits, validate, user_agent,
                        cache_dir=None, cache_ttl=None, ca_bundle=None, proxy=None, max_concurrency=None,
                        shared_pacing=None))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        api_token: Option<String>,
        base_url: Option<String>,
        timeout: Option<f64>,
        connect_timeout: Option<f64>,
        max_retries: Option<u32>,
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
        max_concurrency: Option<i64>,
        shared_pacing: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<NativeClient> {
        let input = ConfigInput {
            api_token,
            base_url,
            timeout,
            connect_timeout,
            max_retries,
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
            max_concurrency: max_concurrency_input(max_concurrency).map_err(|e| to_py_err(py, e))?,
            shared_pacing: shared_pacing_input(shared_pacing)?,
        };
        let config = ClientConfig::resolve(input, |name| std::env::var(name).ok()).map_err(|e| to_py_err(py, e))?;
        let events = Arc::new(PythonLog::new(py)?);
        let transport = Transport::new(config, events.clone()).map_err(|e| to_py_err(py, e))?;
        Ok(NativeClient { transport, events })
    }

    /// A client sharing this one's connection pool and pacing, with other call settings.
    #[pyo3(signature = (*, timeout=None, max_retries=None, retry_backoff=None, max_rate_limit_wait=None, validate=None))]
    fn with_options(
        &self,
        timeout: Option<f64>,
        max_retries: Option<u32>,
        retry_backoff: Option<f64>,
        max_rate_limit_wait: Option<f64>,
        validate: Option<bool>,
    ) -> PyResult<NativeClient> {
        let mut config = self.transport.config().clone();
        let seconds = |name: &str, value: f64| {
            if value.is_finite() && value >= 0.0 {
                Ok(std::time::Duration::from_secs_f64(value))
            } else {
                Err(to_py_err_attached(Error::Configuration(format!(
                    "{name} must be a non-negative number of seconds"
                ))))
            }
        };
        if let Some(t) = timeout {
            config.timeout = seconds("timeout", t)?;
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
    fn clear_cache(&self, py: Python<'_>) -> PyResult<usize> {
        let Some(cache) = self.transport.cache() else { return Ok(0) };
        py.detach(|| cache.clear()).map_err(|e| {
            to_py_err(
                py,
                Error::Io { message: format!("could not clear the response cache: {e}"), request_id: String::new() },
            )
        })
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
    fn call<'py>(&self, py: Python<'py>, operation: &str, params: &Bound<'py, PyDict>) -> PyResult<Bound<'py, PyAny>> {
        let request = self.prepare(py, operation, params)?;
        let transport = self.transport.clone();
        let rows = page_rows(operation);
        let answer = block_on(py, async move {
            let response = transport.execute(&request).await?;
            Ok::<_, Error>(JsonAnswer::new(rows, response))
        })?;
        answer.map_err(|e| to_py_err(py, e))?.into_pyobject(py)
    }

    /// The awaitable twin of [`call`]; must be called with a running event loop.
    fn call_async<'py>(
        &self,
        py: Python<'py>,
        operation: &str,
        params: &Bound<'py, PyDict>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let request = self.prepare(py, operation, params)?;
        let transport = self.transport.clone();
        let rows = page_rows(operation);
        pyo3_async_runtimes::tokio::future_into_py(py, async move {
            let response = transport.execute(&request).await.map_err(to_py_err_attached)?;
            Ok(JsonAnswer::new(rows, response))
        })
    }

    /// Fetches a binary resource; returns `(data, content_type, content_disposition, request_id)`.
    fn fetch<'py>(&self, py: Python<'py>, params: &Bound<'py, PyDict>) -> PyResult<Bound<'py, PyAny>> {
        let request = self.prepare(py, "resource", params)?;
        let transport = self.transport.clone();
        let response = block_on(py, async move { transport.execute(&request).await })?;
        BytesAnswer(response.map_err(|e| to_py_err(py, e))?).into_pyobject(py)
    }

    fn fetch_async<'py>(&self, py: Python<'py>, params: &Bound<'py, PyDict>) -> PyResult<Bound<'py, PyAny>> {
        let request = self.prepare(py, "resource", params)?;
        let transport = self.transport.clone();
        pyo3_async_runtimes::tokio::future_into_py(py, async move {
            transport.execute(&request).await.map(BytesAnswer).map_err(to_py_err_attached)
        })
    }

    /// Starts an operation whose answer arrives through `completions` under `id` (the asyncio
    /// path): `kind` is `json`, `bytes` (a resource) or `download` (to `dest`). Parameter
    /// errors raise here, before anything is sent.
    #[pyo3(signature = (kind, operation, params, completions, id, dest=None, progress=None))]
    #[allow(clippy::too_many_arguments)]
    fn submit(
        &self,
        py: Python<'_>,
        kind: &str,
        operation: &str,
        params: &Bound<'_, PyDict>,
        completions: &Completions,
        id: u64,
        dest: Option<PathBuf>,
        progress: Option<Py<PyAny>>,
    ) -> PyResult<()> {
        let transport = self.transport.clone();
        let shared = completions.shared();
        match (kind, dest) {
            ("json", _) => {
                let request = self.prepare(py, operation, params)?;
                let rows = page_rows(operation);
                shared.spawn(id, async move {
                    Outcome::Json(transport.execute(&request).await.map(|r| JsonAnswer::new(rows, r)))
                });
            }
            ("bytes", _) => {
                let request = self.prepare(py, "resource", params)?;
                shared.spawn(id, async move { Outcome::Bytes(transport.execute(&request).await) });
            }
            ("download", Some(dest)) => {
                let (request, file_name) = self.prepare_download(py, params)?;
                let progress = progress.map(python_progress);
                shared.spawn(id, async move {
                    Outcome::Download(download(transport, request, file_name, dest, progress).await)
                });
            }
            _ => return Err(pyo3::exceptions::PyValueError::new_err(format!("unknown submission kind {kind:?}"))),
        }
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
    ) -> PyResult<(PathBuf, String)> {
        let (request, file_name) = self.prepare_download(py, params)?;
        let transport = self.transport.clone();
        let progress = progress.map(python_progress);
        block_on(py, download(transport, request, file_name, dest, progress))?.map_err(|e| to_py_err(py, e))
    }

    #[pyo3(signature = (params, dest, progress=None))]
    fn download_async<'py>(
        &self,
        py: Python<'py>,
        params: &Bound<'py, PyDict>,
        dest: PathBuf,
        progress: Option<Py<PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let (request, file_name) = self.prepare_download(py, params)?;
        let transport = self.transport.clone();
        let progress = progress.map(python_progress);
        pyo3_async_runtimes::tokio::future_into_py(py, async move {
            download(transport, request, file_name, dest, progress).await.map_err(to_py_err_attached)
        })
    }
}

impl NativeClient {
    fn prepare(&self, py: Python<'_>, operation: &str, params: &Bound<'_, PyDict>) -> PyResult<ApiRequest> {
        self.events.refresh(py);
        let mut params = Depythonizer::from_object(params.as_any());
        prepare(operation, &mut params, self.transport.config().validate).map_err(|e| to_py_err(py, e))
    }

    fn prepare_download(&self, py: Python<'_>, params: &Bound<'_, PyDict>) -> PyResult<(ApiRequest, String)> {
        let file_name: String = params.get_item("file_name")?.map(|f| f.extract()).transpose()?.unwrap_or_default();
        Ok((self.prepare(py, "resource", params)?, file_name))
    }
}

/// A Python callable as a download progress callback; what it raises is reported as
/// unraisable, never failing the download.
fn python_progress(callback: Py<PyAny>) -> Arc<DownloadProgress> {
    Arc::new(move |written: u64, total: Option<u64>| {
        Python::attach(|py| {
            if let Err(error) = callback.call1(py, (written, total)) {
                error.write_unraisable(py, Some(callback.bind(py)));
            }
        })
    })
}

async fn download(
    transport: Transport,
    request: ApiRequest,
    file_name: String,
    dest: PathBuf,
    progress: Option<Arc<DownloadProgress>>,
) -> Result<(PathBuf, String), Error> {
    let dir = if dest.is_dir() { dest.clone() } else { dest.parent().map(PathBuf::from).unwrap_or_default() };
    let dir = if dir.as_os_str().is_empty() { PathBuf::from(".") } else { dir };
    let (response, file) = transport.download_with_progress(&request, &dir, progress.as_deref()).await?;
    let target = download_target(&dest, &file_name, response.header("content-disposition"));
    file.persist(&target).map_err(|e| Error::Io {
        message: format!("could not move the download into {}: {}", target.display(), e.error),
        request_id: response.request_id.clone(),
    })?;
    Ok((target, response.request_id))
}
