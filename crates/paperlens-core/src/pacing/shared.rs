//! A quota window shared by the processes of one machine that use the same token and base
//! URL: kept in a JSON file, read and rewritten under an advisory lock for each step. The
//! file names each client by a hash of its token and base URL; the token itself is never
//! written. Times are seconds since the Unix epoch, the one clock all processes read.
//!
//! Should the file become unusable mid-run, pacing goes on within this process alone.

use std::collections::BTreeMap;
use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use fs4::fs_std::FileExt;
use sha2::{Digest, Sha256};

use super::gate::Cell;
use super::window::Window;
use super::Outcome;
use crate::config::ClientConfig;
use crate::error::Error;
use crate::request::Quota;

/// How often a waiting request looks again at what the other processes did.
const RECHECK: Duration = Duration::from_millis(50);

/// `{client key: {quota name: window}}`.
type Windows = BTreeMap<String, BTreeMap<String, Window>>;

pub struct SharedWindow {
    path: PathBuf,
    key: String,
    quota: &'static str,
    configured: Option<u32>,
    fallback: Mutex<Window>,
}

impl SharedWindow {
    /// Checks at once that the file can be created and locked.
    pub fn open(
        path: &Path,
        config: &ClientConfig,
        quota: Quota,
        configured: Option<u32>,
    ) -> Result<SharedWindow, Error> {
        let shared = SharedWindow {
            path: path.to_path_buf(),
            key: client_key(config),
            quota: quota.name(),
            configured,
            fallback: Mutex::default(),
        };
        let _no_fork = crate::fork::hold_off_fork();
        shared
            .locked()
            .map_err(|e| Error::Configuration(format!("shared_pacing: cannot use the file {}: {e}", path.display())))?;
        Ok(shared)
    }

    fn locked(&self) -> std::io::Result<File> {
        if let Some(dir) = self.path.parent().filter(|d| !d.as_os_str().is_empty()) {
            create_private_dir(dir)?;
        }
        let mut options = OpenOptions::new();
        options.read(true).write(true).create(true).truncate(false);
        #[cfg(unix)]
        std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
        let file = options.open(&self.path)?;
        FileExt::lock_exclusive(&file)?;
        Ok(file)
    }

    /// Applies `step` to this quota's window under the file's lock (closing the file unlocks it).
    /// A child forked meanwhile would keep the lock as long as it lives: fork waits.
    fn update<R>(&self, now: Duration, step: impl FnOnce(&mut Window) -> R) -> R {
        let _no_fork = crate::fork::hold_off_fork();
        let Ok(mut file) = self.locked() else {
            return step(&mut self.fallback.lock().unwrap_or_else(|p| p.into_inner()));
        };
        let mut text = String::new();
        let mut windows: Windows =
            file.read_to_string(&mut text).ok().and_then(|_| serde_json::from_str(&text).ok()).unwrap_or_default();
        let result = step(windows.entry(self.key.clone()).or_default().entry(self.quota.to_string()).or_default());
        for quotas in windows.values_mut() {
            quotas.retain(|_, window| !window.is_idle(now));
        }
        windows.retain(|_, quotas| !quotas.is_empty());
        let json = serde_json::to_vec(&windows).expect("windows always serialize");
        let _ = file.set_len(0).and_then(|()| file.seek(SeekFrom::Start(0))).and_then(|_| file.write_all(&json));
        result
    }
}

impl Cell for SharedWindow {
    fn now(&self) -> Duration {
        SystemTime::now().duration_since(UNIX_EPOCH).unwrap_or_default()
    }

    fn take(&self, id: u64, now: Duration) -> Result<(), Duration> {
        self.update(now, |window| window.take(id, self.configured, now))
    }

    fn finish(&self, id: u64, outcome: Outcome, now: Duration) {
        self.update(now, |window| window.finish(id, outcome, self.configured, now));
    }

    fn per_minute(&self, now: Duration) -> Option<u32> {
        self.update(now, |window| window.per_minute(self.configured, now))
    }

    fn recheck(&self) -> Option<Duration> {
        Some(RECHECK)
    }
}

/// Who shares: the same token against the same service. A hash, so the file never holds the token.
fn client_key(config: &ClientConfig) -> String {
    let mut hash = Sha256::new();
    hash.update(config.token.expose().as_bytes());
    hash.update(b"\n");
    hash.update(config.base_url.as_str().as_bytes());
    hash.finalize()[..16].iter().map(|b| format!("{b:02x}")).collect()
}

fn create_private_dir(dir: &Path) -> std::io::Result<()> {
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
    builder.create(dir)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::ConfigInput;

    fn config(token: &str) -> ClientConfig {
        let input = ConfigInput {
            api_token: Some(token.into()),
            base_url: Some("https://api.example.org".into()),
            ..Default::default()
        };
        ClientConfig::resolve(input, |_| None).unwrap()
    }

    #[test]
    fn two_handles_on_one_file_share_the_window_and_never_store_the_token() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("sub").join("pacing.json");
        let a = SharedWindow::open(&path, &config("tok-secret"), Quota::MetaSearch, Some(2)).unwrap();
        let b = SharedWindow::open(&path, &config("tok-secret"), Quota::MetaSearch, Some(2)).unwrap();
        let other = SharedWindow::open(&path, &config("tok-other"), Quota::MetaSearch, Some(2)).unwrap();
        let now = a.now();
        assert_eq!(a.take(1, now), Ok(()));
        assert_eq!(b.take(2, now), Ok(()));
        assert!(a.take(3, now).is_err(), "the window is full for both");
        assert_eq!(other.take(4, now), Ok(()), "another token has its own window");
        b.finish(1, Outcome::Refused { pause: None }, now);
        assert_eq!(a.take(3, now), Ok(()), "a refusal seen by one frees the slot for all");
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(!text.contains("tok-"), "{text}");
        assert_eq!(serde_json::from_str::<Windows>(&text).unwrap().len(), 2);
    }

    #[test]
    fn an_unusable_file_is_a_configuration_error() {
        let dir = tempfile::tempdir().unwrap();
        let err = SharedWindow::open(dir.path(), &config("t"), Quota::PaperSchema, None).err().unwrap();
        assert!(err.to_string().starts_with("shared_pacing: cannot use the file"), "{err}");
    }
}
