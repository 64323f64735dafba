//! The proxy of a client's settings, and URLs as messages show them: a password never appears.
//! The settings and the HTTP client both use them; they live apart from both so that neither needs the other.

use std::fmt;

use url::Url;

use crate::error::Error;

/// A validated proxy URL (`http://` or `https://`, optionally with `user:password@`).
/// Its `Debug`, and every error that names it, hide the password.
#[derive(Clone, PartialEq, Eq)]
pub struct ProxyUrl {
    pub(crate) url: Url,
}

impl ProxyUrl {
    pub fn parse(raw: &str) -> Result<ProxyUrl, Error> {
        // The raw text may hold a password: only the parser's reason is repeated.
        let url = Url::parse(raw.trim()).map_err(|e| {
            Error::Configuration(format!("proxy is not a URL ({e}); expected http://host:port or https://host:port"))
        })?;
        let proxy = ProxyUrl { url };
        if !matches!(proxy.url.scheme(), "http" | "https") {
            return Err(proxy.error("only http:// and https:// proxies are supported"));
        }
        if proxy.url.host_str().unwrap_or_default().is_empty() {
            return Err(proxy.error("the URL has no host"));
        }
        if proxy.url.query().is_some() || proxy.url.fragment().is_some() || proxy.url.path() != "/" {
            return Err(proxy.error("a proxy URL has no path, query or fragment"));
        }
        Ok(proxy)
    }

    pub(crate) fn error(&self, reason: &str) -> Error {
        Error::Configuration(format!("proxy {self:?}: {reason}"))
    }
}

impl fmt::Debug for ProxyUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?}", shown(&self.url).as_str())
    }
}

/// `url` as messages and reprs show it: a password replaced by `***`.
pub(crate) fn shown(url: &Url) -> Url {
    let mut shown = url.clone();
    if shown.password().is_some() {
        let _ = shown.set_password(Some("***"));
    }
    shown
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn proxy_urls_are_checked_and_passwords_hidden() {
        let proxy = ProxyUrl::parse("http://alice:s3cret@proxy.example:3128").unwrap();
        assert_eq!(format!("{proxy:?}"), "\"http://alice:***@proxy.example:3128/\"");
        assert!(ProxyUrl::parse("https://proxy.example").is_ok());
        for bad in ["proxy.example:3128", "socks5://h:1", "http://h:1/path", "http://h:1/?q", "ftp://h", "::"] {
            let message = ProxyUrl::parse(bad).unwrap_err().to_string();
            assert!(message.starts_with("proxy"), "{bad}: {message}");
        }
        let message = ProxyUrl::parse("socks5://bob:hunter2@h:1").unwrap_err().to_string();
        assert!(!message.contains("hunter2"), "{message}");
    }
}
