//! How requests reach the service: which certificate authorities are trusted and which proxy carries them.
//!
//! Trusted roots: the system store (replaced, as with OpenSSL, by `SSL_CERT_FILE` / `SSL_CERT_DIR`
//! when either is set), `REQUESTS_CA_BUNDLE` when set, `ca_bundle=`, and the bundled Mozilla roots.
//!
//! Proxy: `proxy=` when given, else `HTTPS_PROXY` / `ALL_PROXY` from the environment; `NO_PROXY`
//! applies to both. An `https` base URL is reached through a `CONNECT` tunnel, so the proxy sees
//! only ciphertext. A plain-`http` base URL (allowed for loopback only) is always reached
//! directly: through a proxy, the token would be readable by it.

use std::collections::HashMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::SystemTime;

use reqwest::{redirect, Certificate, NoProxy, Proxy};
use rustls_pki_types::pem::PemObject;
use rustls_pki_types::CertificateDer;

use crate::config::ClientConfig;
use crate::error::Error;
use crate::fork::ForkLocal;

pub const SSL_CERT_FILE_ENV: &str = "SSL_CERT_FILE";
pub const SSL_CERT_DIR_ENV: &str = "SSL_CERT_DIR";
pub const REQUESTS_CA_BUNDLE_ENV: &str = "REQUESTS_CA_BUNDLE";

/// The HTTP client for `config`, reading the trust and proxy environment variables now.
pub fn http_client(config: &ClientConfig, redirect: redirect::Policy) -> Result<reqwest::Client, Error> {
    let mut builder = reqwest::Client::builder()
        .connect_timeout(config.connect_timeout)
        .redirect(redirect)
        .tcp_nodelay(true)
        // The transport decompresses gzip answers itself, counting both sides (see `transport`).
        .gzip(false)
        .pool_max_idle_per_host(128);
    for root in trusted_roots(config.ca_bundle.as_deref(), |name| std::env::var_os(name))? {
        builder = builder.add_root_certificate(Certificate::from_der(root.as_ref()).map_err(start_error)?);
    }
    builder = if config.base_url.scheme() == "http" {
        builder.no_proxy()
    } else if let Some(proxy) = &config.proxy {
        let proxy = Proxy::all(proxy.url.as_str()).map_err(|e| proxy.error(&e.without_url().to_string()))?;
        builder.proxy(proxy.no_proxy(NoProxy::from_env()))
    } else {
        builder // reqwest reads HTTPS_PROXY, ALL_PROXY and NO_PROXY when it builds
    };
    builder.build().map_err(start_error)
}

fn start_error(e: reqwest::Error) -> Error {
    Error::Configuration(format!("could not start the HTTP client: {}", e.without_url()))
}

/// The certificates trusted on top of the bundled roots, each one usable as a trust anchor.
fn trusted_roots(
    ca_bundle: Option<&Path>,
    env: impl Fn(&str) -> Option<OsString>,
) -> Result<Vec<CertificateDer<'static>>, Error> {
    let env_path = |name: &str| env(name).filter(|v| !v.is_empty()).map(PathBuf::from);
    let (cert_file, cert_dirs) = (env_path(SSL_CERT_FILE_ENV), env(SSL_CERT_DIR_ENV).filter(|v| !v.is_empty()));
    let mut stores = Vec::new();
    if cert_file.is_none() && cert_dirs.is_none() {
        // A machine without a system store still has the bundled roots: nothing to report.
        stores.push(remembered(Store::System, Path::new(""), || {
            Ok(anchors(rustls_native_certs::load_native_certs().certs))
        })?);
    }
    if let Some(path) = &cert_file {
        stores.push(remembered(Store::File, path, || read_bundle(SSL_CERT_FILE_ENV, path))?);
    }
    for dir in cert_dirs.iter().flat_map(std::env::split_paths) {
        stores.push(remembered(Store::Dir, &dir, || {
            Ok(anchors(rustls_native_certs::load_certs_from_paths(None, Some(&dir)).certs))
        })?);
    }
    if let Some(path) = env_path(REQUESTS_CA_BUNDLE_ENV) {
        stores.push(remembered(Store::File, &path, || read_bundle(REQUESTS_CA_BUNDLE_ENV, &path))?);
    }
    if let Some(path) = ca_bundle {
        stores.push(remembered(Store::File, path, || read_bundle("ca_bundle", path))?);
    }
    let mut roots: Vec<_> = stores.iter().flat_map(|store| store.iter().cloned()).collect();
    roots.sort_unstable_by(|a, b| a.as_ref().cmp(b.as_ref()));
    roots.dedup();
    Ok(roots)
}

/// System stores hold a few certificates that cannot serve as anchors; they must not stop the client.
fn anchors(mut certs: Vec<CertificateDer<'static>>) -> Vec<CertificateDer<'static>> {
    certs.retain(|cert| webpki::anchor_from_trusted_cert(cert).is_ok());
    certs
}

/// The usable certificates of a PEM file named by setting `name`; unreadable or certificate-less is an error.
fn read_bundle(name: &str, path: &Path) -> Result<Vec<CertificateDer<'static>>, Error> {
    let problem = |what: String| {
        Error::Configuration(format!("{name} {:?}: {what}; expected a PEM file of CA certificates", path.display()))
    };
    let bytes = std::fs::read(path).map_err(|e| problem(format!("cannot read it ({e})")))?;
    let certs = CertificateDer::pem_slice_iter(&bytes)
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| problem(format!("malformed PEM ({e})")))?;
    let usable = anchors(certs);
    if usable.is_empty() {
        Err(problem("no usable certificate in it".into()))
    } else {
        Ok(usable)
    }
}

#[derive(Clone, Copy, PartialEq, Eq, Hash)]
enum Store {
    System,
    File,
    Dir,
}

type Fingerprint = Option<(u64, Option<SystemTime>)>;
type Stored = (Fingerprint, Arc<Vec<CertificateDer<'static>>>);

/// Stores read before, by kind and path. Reading a system store takes milliseconds and clients are
/// made often; a file or directory whose size or modification time changed is read again. A
/// forked child starts afresh (the parent's lock may have been held by a thread of its own).
static STORES: ForkLocal<Mutex<HashMap<(Store, PathBuf), Stored>>> = ForkLocal::empty();

fn remembered(
    store: Store,
    path: &Path,
    load: impl FnOnce() -> Result<Vec<CertificateDer<'static>>, Error>,
) -> Result<Arc<Vec<CertificateDer<'static>>>, Error> {
    let fingerprint = std::fs::metadata(path).ok().map(|m| (m.len(), m.modified().ok()));
    let key = (store, path.to_path_buf());
    if let Some((seen, certs)) =
        STORES.get_or_init(Mutex::default).lock().unwrap_or_else(PoisonError::into_inner).get(&key)
    {
        if *seen == fingerprint {
            return Ok(Arc::clone(certs));
        }
    }
    let certs = Arc::new(load()?);
    STORES
        .get_or_init(Mutex::default)
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .insert(key, (fingerprint, Arc::clone(&certs)));
    Ok(certs)
}

#[cfg(test)]
mod tests {
    use super::*;

    use std::io::Write;

    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    use tokio::net::TcpListener;

    use crate::config::ConfigInput;

    /// A self-signed CA certificate made for these tests.
    const TEST_CA: &str = "-----BEGIN CERTIFICATE-----
MIIBjzCCATWgAwIBAgIUXR5ishW6/2ZVlCnDjsCvcvekzvIwCgYIKoZIzj0EAwIw
HDEaMBgGA1UEAwwRcGFwZXJsZW5zIHRlc3QgQ0EwIBcNMjYxMTIzMTMyNzUyWhgP
MjEyNjEwMzAxMzI3NTJaMBwxGjAYBgNVBAMMEXBhcGVybGVucyB0ZXN0IENBMFkw
EwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE05+abDvhlT2nYg6WOU0FJ7eZnczN6XJY
LktvIcl2PvjOXfCwFo1XO4nKzlaPwbZDfMVY1PkSbcZMUZL+KVDFCKNTMFEwHQYD
VR0OBBYEFG837uY7A0EWVUpdFXMunLL7P6lHMB8GA1UdIwQYMBaAFG837uY7A0EW
VUpdFXMunLL7P6lHMA8GA1UdEwEB/wQFMAMBAf8wCgYIKoZIzj0EAwIDSAAwRQIh
AO/4q9469wgDAAvxAMYiZbkkmQZbYUjQEru9389KPG85AiAkcHyZz2Yg0qcvGoa8
JvzM5DqKWXCoJcoSeQvyUgJKFg==
-----END CERTIFICATE-----
";

    fn pem_file(text: &str) -> tempfile::NamedTempFile {
        let mut file = tempfile::NamedTempFile::new().unwrap();
        file.write_all(text.as_bytes()).unwrap();
        file
    }

    fn test_ca_der() -> CertificateDer<'static> {
        CertificateDer::from_pem_slice(TEST_CA.as_bytes()).unwrap()
    }

    fn env_of(vars: &[(&str, &Path)]) -> impl Fn(&str) -> Option<OsString> {
        let vars: HashMap<String, OsString> =
            vars.iter().map(|(k, v)| (k.to_string(), v.as_os_str().to_owned())).collect();
        move |name| vars.get(name).cloned()
    }

    #[test]
    fn each_source_adds_its_certificates() {
        let file = pem_file(TEST_CA);
        for source in [SSL_CERT_FILE_ENV, REQUESTS_CA_BUNDLE_ENV] {
            let roots = trusted_roots(None, env_of(&[(source, file.path())])).unwrap();
            assert!(roots.contains(&test_ca_der()), "{source}");
        }
        let empty_dir = tempfile::tempdir().unwrap();
        let only_dir = env_of(&[(SSL_CERT_DIR_ENV, empty_dir.path())]);
        assert!(!trusted_roots(None, &only_dir).unwrap().contains(&test_ca_der()));
        assert!(trusted_roots(Some(file.path()), &only_dir).unwrap().contains(&test_ca_der()));
    }

    #[test]
    fn ssl_cert_file_replaces_the_system_store() {
        let file = pem_file(TEST_CA);
        let roots = trusted_roots(None, env_of(&[(SSL_CERT_FILE_ENV, file.path())])).unwrap();
        assert_eq!(roots, vec![test_ca_der()]);
    }

    #[test]
    fn a_changed_bundle_is_read_again() {
        let file = pem_file(TEST_CA);
        assert!(trusted_roots(Some(file.path()), env_of(&[])).unwrap().contains(&test_ca_der()));
        std::fs::write(file.path(), "no longer a certificate\n").unwrap();
        assert!(trusted_roots(Some(file.path()), env_of(&[])).is_err());
    }

    #[test]
    fn a_bad_bundle_names_its_setting_and_path() {
        let missing = Path::new("/nonexistent/ca.pem");
        let garbage = pem_file("not a certificate\n");
        let key_only = pem_file("-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n");
        for bad in [missing, garbage.path(), key_only.path()] {
            for (setting, env) in [
                ("ca_bundle", env_of(&[])),
                (SSL_CERT_FILE_ENV, env_of(&[(SSL_CERT_FILE_ENV, bad)])),
                (REQUESTS_CA_BUNDLE_ENV, env_of(&[(REQUESTS_CA_BUNDLE_ENV, bad)])),
            ] {
                let ca_bundle = (setting == "ca_bundle").then_some(bad);
                let message = trusted_roots(ca_bundle, env).unwrap_err().to_string();
                assert!(message.starts_with(&format!("{setting} {:?}: ", bad.display())), "{message}");
            }
        }
    }

    fn config(base_url: &str, proxy: &str) -> ClientConfig {
        let input = ConfigInput {
            api_token: Some("token".into()),
            base_url: Some(base_url.into()),
            proxy: Some(proxy.into()),
            ..Default::default()
        };
        ClientConfig::resolve(input, |_| None).unwrap()
    }

    /// Accepts one connection and returns the first line it receives, answering `reply`.
    async fn first_line(listener: TcpListener, reply: &'static [u8]) -> String {
        let (mut socket, _) = listener.accept().await.unwrap();
        let mut buffer = vec![0; 4096];
        let read = socket.read(&mut buffer).await.unwrap();
        socket.write_all(reply).await.unwrap();
        String::from_utf8_lossy(&buffer[..read]).lines().next().unwrap_or_default().to_string()
    }

    #[tokio::test]
    async fn https_goes_through_a_connect_tunnel() {
        let proxy = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let proxy_url = format!("http://{}", proxy.local_addr().unwrap());
        let seen = tokio::spawn(first_line(proxy, b"HTTP/1.1 502 Bad Gateway\r\ncontent-length: 0\r\n\r\n"));
        let client = http_client(&config("https://paperlens.example", &proxy_url), redirect::Policy::none()).unwrap();
        let sent = client.get("https://paperlens.example/x").bearer_auth("token").send().await;
        assert!(sent.is_err(), "the proxy refused the tunnel");
        assert_eq!(seen.await.unwrap(), "CONNECT paperlens.example:443 HTTP/1.1");
    }

    #[tokio::test]
    async fn plain_http_never_goes_through_a_proxy() {
        let server = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let base_url = format!("http://{}", server.local_addr().unwrap());
        let seen = tokio::spawn(first_line(server, b"HTTP/1.1 204 No Content\r\n\r\n"));
        // Nothing listens at the proxy's port: a proxied request would fail.
        let client = http_client(&config(&base_url, "http://127.0.0.1:9"), redirect::Policy::none()).unwrap();
        let answer = client.get(format!("{base_url}/x")).send().await.unwrap();
        assert_eq!(answer.status(), 204);
        assert_eq!(seen.await.unwrap(), "GET /x HTTP/1.1");
    }
}
