//! An opt-in cache of successful read answers on disk, so that a re-run notebook cell
//! costs no quota and sends no request.
//!
//! An entry is keyed by the base URL, a token *identity* (a truncated salted hash, never
//! the token), the method, the path, the query and the body. It is one file,
//! `<dir>/<2 hex>/<64 hex>.plc`, written to a temporary file in the same directory and
//! renamed into place, so several processes may share a directory: a reader sees a whole
//! entry or none. After its magic comes an HMAC-SHA256 of the rest (header and body) under
//! the user's secret (kept by `cache::private`): an entry damaged on disk (a byte changed,
//! cut short, of another key) or written by anybody without that secret (another user
//! forging one from its file name) is never served but deleted, reported
//! ([`Lookup::Damaged`]) and fetched again. An entry older than the TTL, or written by
//! another version of the format, is a miss (replaced on the next successful answer).
//! The directory must be the user's and writable by nobody else (made with mode 0700 when
//! missing): [`ResponseCache::open`] refuses another. Caching is best effort: an unwritable
//! directory never fails a call.

use std::fs;
use std::io::{ErrorKind, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use bytes::Bytes;
use hmac::{Hmac, Mac};
use reqwest::header::{HeaderMap, HeaderValue, CONTENT_DISPOSITION, CONTENT_TYPE};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use tempfile::NamedTempFile;

use crate::config::Secret;
use crate::request::{ApiRequest, ApiResponse};

mod private;
use private::{hex, KEY_BYTES};

/// The format's version: entries of another one are misses (PLC1 had no checksum, PLC2 a
/// bare SHA-256 that anybody could compute).
const MAGIC: &[u8; 5] = b"PLC3\n";
const EXTENSION: &str = "plc";
const TEMP_PREFIX: &str = ".tmp-";
/// Why an entry whose HMAC does not verify is not served.
const UNAUTHENTIC: &str = "fails its authentication (damaged, or not written with this user's cache key)";
/// Answers larger than this are not stored.
pub const MAX_ENTRY_BYTES: usize = 64 << 20;
/// Temporary files older than this are debris of a crashed writer.
const STALE_TEMP: Duration = Duration::from_secs(3600);

/// The identity of a token in cache keys: a salted SHA-256, truncated. It tells tokens
/// apart without storing anything from which the token could be recovered.
pub fn token_identity(token: &Secret) -> String {
    let mut hash = Sha256::new();
    hash.update(b"paperlens-cache-token-identity-v1\0");
    hash.update(token.expose().as_bytes());
    hex(&hash.finalize()[..12])
}

/// A cache key: which answer an entry holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CacheKey(String);

impl CacheKey {
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// What an entry records besides the body.
#[derive(Debug, Serialize, Deserialize)]
struct Header {
    key: String,
    stored_at: f64,
    status: u16,
    request_id: String,
    content_type: Option<String>,
    content_disposition: Option<String>,
    body_len: usize,
}

/// What the cache holds for a key.
#[derive(Debug)]
pub enum Lookup {
    Hit(Hit),
    /// No entry, an expired one, or one of another format version.
    Miss,
    /// An entry that fails its checks (now deleted): `reason` says which.
    Damaged {
        path: PathBuf,
        reason: &'static str,
    },
}

impl Lookup {
    pub fn hit(self) -> Option<Hit> {
        match self {
            Lookup::Hit(hit) => Some(hit),
            _ => None,
        }
    }
}

/// A successful answer read back from the cache.
#[derive(Debug)]
pub struct Hit {
    pub response: ApiResponse,
    /// How long ago the answer was stored.
    pub age: Duration,
}

#[derive(Clone)]
pub struct ResponseCache {
    dir: PathBuf,
    ttl: Option<Duration>,
    base_url: String,
    identity: String,
    /// The key of the entries' HMAC.
    secret: [u8; KEY_BYTES],
}

impl std::fmt::Debug for ResponseCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ResponseCache").field("dir", &self.dir).field("ttl", &self.ttl).finish_non_exhaustive()
    }
}

impl ResponseCache {
    /// A cache in `dir` for answers of `base_url` to `token`; `ttl` `None`: entries never
    /// expire. `dir` is made (mode 0700) if missing; the error (naming the folder or the key
    /// file, and why) refuses a directory of another user or one others may write, and a
    /// missing or unsafe per-user secret.
    pub fn open(dir: PathBuf, ttl: Option<Duration>, base_url: &str, token: &Secret) -> Result<ResponseCache, String> {
        private::private_folder(&dir, 0o022)?;
        Ok(ResponseCache::with_secret(dir, ttl, base_url, token, private::user_secret()?))
    }

    /// [`open`](Self::open) with the given secret and no check of `dir`.
    pub fn with_secret(
        dir: PathBuf,
        ttl: Option<Duration>,
        base_url: &str,
        token: &Secret,
        secret: [u8; KEY_BYTES],
    ) -> ResponseCache {
        ResponseCache { dir, ttl, base_url: base_url.to_string(), identity: token_identity(token), secret }
    }

    /// The authenticator of an entry's `rest` (its length-prefixed header and body).
    fn mac(&self) -> Hmac<Sha256> {
        Hmac::<Sha256>::new_from_slice(&self.secret).expect("HMAC takes a key of any length")
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    pub fn ttl(&self) -> Option<Duration> {
        self.ttl
    }

    /// The key of `request`. Every part is length-prefixed, so no two requests share one.
    pub fn key(&self, request: &ApiRequest) -> CacheKey {
        let mut hash = Sha256::new();
        let mut part = |bytes: &[u8]| {
            hash.update((bytes.len() as u64).to_le_bytes());
            hash.update(bytes);
        };
        part(b"paperlens-cache-v1");
        part(self.base_url.as_bytes());
        part(self.identity.as_bytes());
        part(request.method.as_str().as_bytes());
        part(request.path.as_bytes());
        part(&(request.query.len() as u64).to_le_bytes());
        for (name, value) in &request.query {
            part(name.as_bytes());
            part(value.as_bytes());
        }
        part(request.body.as_deref().unwrap_or(b"\0no body"));
        CacheKey(hex(&hash.finalize()))
    }

    fn path(&self, key: &CacheKey) -> PathBuf {
        self.dir.join(&key.0[..2]).join(format!("{}.{EXTENSION}", key.0))
    }

    /// The stored answer of `key`, if there is a whole one younger than the TTL. A damaged
    /// entry is deleted, so that it is fetched again and replaced.
    pub fn get(&self, key: &CacheKey) -> Lookup {
        let path = self.path(key);
        let Ok(raw) = fs::read(&path) else {
            return Lookup::Miss;
        };
        let Some(rest) = raw.strip_prefix(MAGIC) else {
            return Lookup::Miss;
        };
        let (header, body) = match self.check(rest, key) {
            Ok(entry) => entry,
            Err(reason) => {
                let _ = fs::remove_file(&path);
                return Lookup::Damaged { path, reason };
            }
        };
        let now = unix_now();
        // A clock set back makes an entry look young; one from the future is not trusted.
        let age = now - header.stored_at;
        if !(age.is_finite() && age >= -60.0) {
            return Lookup::Miss;
        }
        let age = Duration::from_secs_f64(age.max(0.0));
        if self.ttl.is_some_and(|ttl| age >= ttl) {
            return Lookup::Miss;
        }
        let mut headers = HeaderMap::new();
        for (name, value) in [(CONTENT_TYPE, &header.content_type), (CONTENT_DISPOSITION, &header.content_disposition)]
        {
            if let Some(value) = value.as_deref().and_then(|v| HeaderValue::from_str(v).ok()) {
                headers.insert(name, value);
            }
        }
        let response = ApiResponse {
            status: header.status,
            headers,
            body: Bytes::copy_from_slice(body),
            request_id: header.request_id,
        };
        Lookup::Hit(Hit { response, age })
    }

    /// Whether an answer may be stored: a whole success, not a `partial=true` one.
    pub fn storable(response: &ApiResponse, body: &[u8]) -> bool {
        if !(200..300).contains(&response.status) || body.len() > MAX_ENTRY_BYTES {
            return false;
        }
        let json = response.header("content-type").is_some_and(|t| t.contains("json"));
        if !json {
            return true;
        }
        #[derive(Deserialize)]
        struct Partial {
            #[serde(default)]
            partial: Option<bool>,
        }
        matches!(serde_json::from_slice::<Partial>(body), Ok(Partial { partial: None | Some(false) }))
    }

    /// Stores `body` as the answer of `key`: a temporary file renamed into place.
    pub fn put(&self, key: &CacheKey, response: &ApiResponse, body: &[u8]) -> std::io::Result<()> {
        let path = self.path(key);
        let dir = path.parent().expect("an entry path has a parent");
        let mut shard = fs::DirBuilder::new();
        shard.recursive(true);
        #[cfg(unix)]
        std::os::unix::fs::DirBuilderExt::mode(&mut shard, 0o700);
        shard.create(dir)?;
        let header = Header {
            key: key.0.clone(),
            stored_at: unix_now(),
            status: response.status,
            request_id: response.request_id.clone(),
            content_type: response.header("content-type").map(str::to_string),
            content_disposition: response.header("content-disposition").map(str::to_string),
            body_len: body.len(),
        };
        let header = serde_json::to_vec(&header).expect("a header serializes");
        let length = (header.len() as u32).to_le_bytes();
        let digest = self.mac().chain_update(length).chain_update(&header).chain_update(body).finalize().into_bytes();
        let mut file = NamedTempFile::with_prefix_in(TEMP_PREFIX, dir)?;
        file.write_all(MAGIC)?;
        file.write_all(&digest)?;
        file.write_all(&length)?;
        file.write_all(&header)?;
        file.write_all(body)?;
        file.flush()?;
        file.persist(&path).map_err(|e| e.error)?;
        Ok(())
    }

    /// Removes every entry (and the debris of interrupted writes); returns how many entries
    /// were removed. Files that are not the cache's own are left alone.
    pub fn clear(&self) -> std::io::Result<usize> {
        let mut removed = 0;
        let shards = match fs::read_dir(&self.dir) {
            Ok(shards) => shards,
            Err(e) if e.kind() == ErrorKind::NotFound => return Ok(0),
            Err(e) => return Err(e),
        };
        for shard in shards.flatten() {
            let name = shard.file_name();
            let name = name.to_string_lossy();
            if name.len() != 2 || !name.bytes().all(|b| b.is_ascii_hexdigit()) || !shard.path().is_dir() {
                continue;
            }
            let entries = match fs::read_dir(shard.path()) {
                Ok(entries) => entries,
                // Another process clearing the same directory removed this shard just now.
                Err(e) if e.kind() == ErrorKind::NotFound => continue,
                Err(e) => return Err(e),
            };
            for entry in entries.flatten() {
                let file = entry.file_name();
                let file = file.to_string_lossy();
                let ours = file.ends_with(&format!(".{EXTENSION}"));
                let debris = file.starts_with(TEMP_PREFIX) && is_stale(&entry.path());
                if (ours || debris) && remove(&entry.path())? {
                    removed += usize::from(ours);
                }
            }
            // Only an empty shard goes; another process may be writing into it.
            let _ = fs::remove_dir(shard.path());
        }
        Ok(removed)
    }

    /// The header and body of an entry (after its magic), if it is whole, authentic and of `key`.
    fn check<'a>(&self, rest: &'a [u8], key: &CacheKey) -> Result<(Header, &'a [u8]), &'static str> {
        let (digest, rest) = rest.split_first_chunk::<32>().ok_or("cut short")?;
        if self.mac().chain_update(rest).verify_slice(digest).is_err() {
            return Err(UNAUTHENTIC);
        }
        let (len, rest) = rest.split_first_chunk::<4>().ok_or("cut short")?;
        let len = u32::from_le_bytes(*len) as usize;
        if rest.len() < len {
            return Err("cut short");
        }
        let (header, body) = rest.split_at(len);
        let header: Header = serde_json::from_slice(header).map_err(|_| "unreadable header")?;
        if header.key != key.0 {
            return Err("the entry of another request");
        }
        if body.len() != header.body_len {
            return Err("body of the wrong length");
        }
        Ok((header, body))
    }
}

fn remove(path: &Path) -> std::io::Result<bool> {
    match fs::remove_file(path) {
        Ok(()) => Ok(true),
        Err(e) if e.kind() == ErrorKind::NotFound => Ok(false),
        Err(e) => Err(e),
    }
}

fn is_stale(path: &Path) -> bool {
    let modified = fs::metadata(path).and_then(|m| m.modified());
    modified.ok().and_then(|m| m.elapsed().ok()).is_some_and(|age| age > STALE_TEMP)
}

fn unix_now() -> f64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0.0, |d| d.as_secs_f64())
}

#[cfg(test)]
mod tests {
    use super::*;
    use reqwest::Method;

    fn cache(dir: &Path, ttl: Option<Duration>, token: &str) -> ResponseCache {
        ResponseCache::with_secret(
            dir.to_path_buf(),
            ttl,
            "http://127.0.0.1:1/",
            &Secret::new(token.into()),
            [1; KEY_BYTES],
        )
    }

    fn request(body: &str) -> ApiRequest {
        ApiRequest {
            method: Method::POST,
            path: "/meta-search".into(),
            query: vec![],
            body: Some(Bytes::from(body.to_string())),
            quota: None,
        }
    }

    fn response(body: &str) -> ApiResponse {
        let mut headers = HeaderMap::new();
        headers.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
        ApiResponse { status: 200, headers, body: Bytes::from(body.to_string()), request_id: "rid-1".into() }
    }

    #[test]
    fn stores_and_reads_back() {
        let dir = tempfile::tempdir().unwrap();
        let cache = cache(dir.path(), Some(Duration::from_secs(60)), "tok");
        let key = cache.key(&request(r#"{"query":"x"}"#));
        assert!(cache.get(&key).hit().is_none());
        cache.put(&key, &response("{}"), br#"{"results":[]}"#).unwrap();
        let hit = cache.get(&key).hit().unwrap();
        assert_eq!(&hit.response.body[..], br#"{"results":[]}"#);
        assert_eq!(hit.response.request_id, "rid-1");
        assert_eq!(hit.response.header("content-type"), Some("application/json"));
    }

    #[test]
    fn keys_differ_by_body_query_path_and_token_and_never_hold_the_token() {
        let dir = tempfile::tempdir().unwrap();
        let a = cache(dir.path(), None, "secret-token-a");
        let b = cache(dir.path(), None, "secret-token-b");
        let key = a.key(&request("{}"));
        assert_eq!(key, a.key(&request("{}")));
        assert_ne!(key, a.key(&request(r#"{"page":2}"#)));
        assert_ne!(key, b.key(&request("{}")));
        let mut get = request("{}");
        get.path = "/meta-catalog".into();
        assert_ne!(key, a.key(&get));
        let mut query = get.clone();
        query.query = vec![("collection".into(), "x".into())];
        assert_ne!(a.key(&get), a.key(&query));
        a.put(&key, &response("{}"), b"{}").unwrap();
        for entry in walk(dir.path()) {
            let text = String::from_utf8_lossy(&fs::read(&entry).unwrap()).into_owned();
            assert!(!text.contains("secret-token"), "{text}");
            assert!(!entry.to_string_lossy().contains("secret-token"));
        }
        assert!(!token_identity(&Secret::new("secret-token-a".into())).contains("secret"));
    }

    fn walk(dir: &Path) -> Vec<PathBuf> {
        let mut out = Vec::new();
        for entry in fs::read_dir(dir).unwrap().flatten() {
            if entry.path().is_dir() {
                out.extend(walk(&entry.path()));
            } else {
                out.push(entry.path());
            }
        }
        out
    }

    #[test]
    fn expired_entries_are_ignored() {
        let dir = tempfile::tempdir().unwrap();
        let cache = cache(dir.path(), Some(Duration::ZERO), "tok");
        let key = cache.key(&request("{}"));
        cache.put(&key, &response("{}"), b"{}").unwrap();
        assert!(cache.get(&key).hit().is_none());
    }

    fn damaged(lookup: Lookup) -> &'static str {
        match lookup {
            Lookup::Damaged { reason, .. } => reason,
            other => panic!("not reported damaged: {other:?}"),
        }
    }

    #[test]
    fn damaged_entries_are_reported_and_deleted_never_served() {
        let dir = tempfile::tempdir().unwrap();
        let cache = cache(dir.path(), None, "tok");
        let key = cache.key(&request("{}"));
        let body = br#"{"total_count":170,"results":[1,2,3]}"#;
        cache.put(&key, &response("{}"), body).unwrap();
        let path = cache.path(&key);
        let whole = fs::read(&path).unwrap();
        // Same length, one byte changed: in the body (a digit, a bracket), the header, the checksum.
        let digit = whole.len() - body.len() + 16;
        assert_eq!(whole[digit], b'7');
        for (at, byte) in [(digit, b'1'), (whole.len() - 1, b' '), (MAGIC.len() + 40, b'x'), (MAGIC.len(), 0)] {
            let mut changed = whole.clone();
            changed[at] = if changed[at] == byte { byte ^ 1 } else { byte };
            fs::write(&path, &changed).unwrap();
            assert_eq!(damaged(cache.get(&key)), UNAUTHENTIC);
            assert!(!path.exists(), "a damaged entry is deleted");
        }
        fs::write(&path, &whole[..whole.len() - 3]).unwrap();
        assert_eq!(damaged(cache.get(&key)), UNAUTHENTIC);
        fs::write(&path, &whole[..MAGIC.len() + 10]).unwrap();
        assert_eq!(damaged(cache.get(&key)), "cut short");
        // An entry of another key copied over this one's name is not served.
        let other = cache.key(&request("[]"));
        cache.put(&other, &response("{}"), b"[]").unwrap();
        fs::copy(cache.path(&other), &path).unwrap();
        assert_eq!(damaged(cache.get(&key)), "the entry of another request");
        // Garbage, or an entry of the format before checksums, is a miss (replaced on the next put).
        fs::write(&path, b"garbage").unwrap();
        assert!(matches!(cache.get(&key), Lookup::Miss));
        fs::write(&path, [b"PLC1\n".as_slice(), &whole[MAGIC.len() + 32..]].concat()).unwrap();
        assert!(matches!(cache.get(&key), Lookup::Miss));
        cache.put(&key, &response("{}"), body).unwrap();
        assert_eq!(&cache.get(&key).hit().unwrap().response.body[..], body);
    }

    #[test]
    fn an_entry_forged_without_the_users_secret_is_never_served() {
        let dir = tempfile::tempdir().unwrap();
        let cache = cache(dir.path(), None, "tok");
        let key = cache.key(&request("{}"));
        cache.put(&key, &response("{}"), br#"{"results":["real"]}"#).unwrap();
        let path = cache.path(&key);
        // Another user knows the format and, from the file name, the key; not the secret.
        let header = serde_json::json!({"key": key.as_str(), "stored_at": unix_now(), "status": 200,
            "request_id": "forged", "content_type": "application/json", "content_disposition": null, "body_len": 21});
        let header = serde_json::to_vec(&header).unwrap();
        let rest = [&(header.len() as u32).to_le_bytes()[..], &header, br#"{"results":["forged"]}"#].concat();
        let theirs = ResponseCache::with_secret(dir.path().into(), None, "x", &Secret::new("t".into()), [2; KEY_BYTES]);
        for digest in
            [Sha256::digest(&rest).to_vec(), theirs.mac().chain_update(&rest).finalize().into_bytes().to_vec()]
        {
            fs::write(&path, [&MAGIC[..], &digest, &rest].concat()).unwrap();
            assert_eq!(damaged(cache.get(&key)), UNAUTHENTIC);
            assert!(!path.exists());
        }
    }

    #[test]
    fn partial_and_error_answers_are_not_storable() {
        let ok = response("");
        assert!(ResponseCache::storable(&ok, br#"{"partial":false,"items":[]}"#));
        assert!(ResponseCache::storable(&ok, br#"{"items":[]}"#));
        assert!(!ResponseCache::storable(&ok, br#"{"partial":true,"items":[]}"#));
        assert!(!ResponseCache::storable(&ok, b"not json"));
        let mut png = response("");
        png.headers.insert(CONTENT_TYPE, HeaderValue::from_static("image/png"));
        assert!(ResponseCache::storable(&png, b"\x89PNG"));
        png.status = 404;
        assert!(!ResponseCache::storable(&png, b"{}"));
    }

    #[test]
    fn clear_removes_entries_only() {
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join("notes.txt"), b"mine").unwrap();
        let cache = cache(dir.path(), None, "tok");
        for body in ["{}", "[]", "1"] {
            let key = cache.key(&request(body));
            cache.put(&key, &response("{}"), b"{}").unwrap();
        }
        assert_eq!(cache.clear().unwrap(), 3);
        assert!(cache.get(&cache.key(&request("{}"))).hit().is_none());
        assert!(dir.path().join("notes.txt").exists());
        assert_eq!(cache.clear().unwrap(), 0);
        assert_eq!(
            ResponseCache::with_secret(dir.path().join("absent"), None, "x", &Secret::new("t".into()), [1; KEY_BYTES])
                .clear()
                .unwrap(),
            0
        );
    }

    #[test]
    fn concurrent_writers_of_one_key_leave_a_whole_entry() {
        let dir = tempfile::tempdir().unwrap();
        let cache = cache(dir.path(), None, "tok");
        let key = cache.key(&request("{}"));
        std::thread::scope(|scope| {
            for i in 0..8 {
                let (cache, key) = (&cache, &key);
                scope.spawn(move || {
                    let body = format!("{{\"writer\":{i},\"pad\":\"{}\"}}", "x".repeat(100_000));
                    for _ in 0..20 {
                        cache.put(key, &response("{}"), body.as_bytes()).unwrap();
                        let hit = cache.get(key).hit().expect("a whole entry is always there once written");
                        assert!(serde_json::from_slice::<serde_json::Value>(&hit.response.body).is_ok());
                    }
                });
            }
        });
    }
}
