//! The windows of the processes of one machine, kept in a JSON file read and rewritten under
//! an advisory lock for each step. Should the file become unusable mid-run, pacing goes on
//! within this process alone.

use std::collections::BTreeMap;
use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use fs4::fs_std::FileExt;

use super::Store;
use crate::error::Error;
use crate::pacing::gate::{done, Step};
use crate::pacing::window::Window;

/// `{client key: {quota name: window}}`.
type Windows = BTreeMap<String, BTreeMap<String, Window>>;

pub struct FileStore {
    path: PathBuf,
    key: String,
    /// Each quota's window while the file cannot be used.
    fallback: Mutex<BTreeMap<&'static str, Window>>,
}

impl FileStore {
    /// Checks at once that the file can be created and locked.
    pub fn open(path: &Path, key: String) -> Result<FileStore, Error> {
        let store = FileStore { path: path.to_path_buf(), key, fallback: Mutex::default() };
        let _no_fork = crate::fork::hold_off_fork();
        store
            .locked()
            .map_err(|e| Error::Configuration(format!("shared_pacing: cannot use the file {}: {e}", path.display())))?;
        Ok(store)
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

    /// Applies `step` to a window under the file's lock (closing the file unlocks it).
    /// A child forked meanwhile would keep the lock as long as it lives: fork waits.
    fn update_now<R>(&self, quota: &'static str, now: Duration, step: impl FnOnce(&mut Window) -> R) -> R {
        let _no_fork = crate::fork::hold_off_fork();
        let Ok(mut file) = self.locked() else {
            let mut fallback = self.fallback.lock().unwrap_or_else(|p| p.into_inner());
            return step(fallback.entry(quota).or_default());
        };
        let mut text = String::new();
        let mut windows: Windows =
            file.read_to_string(&mut text).ok().and_then(|_| serde_json::from_str(&text).ok()).unwrap_or_default();
        let result = step(windows.entry(self.key.clone()).or_default().entry(quota.to_string()).or_default());
        for quotas in windows.values_mut() {
            quotas.retain(|_, window| !window.is_idle(now));
        }
        windows.retain(|_, quotas| !quotas.is_empty());
        let json = serde_json::to_vec(&windows).expect("windows always serialize");
        let _ = file.set_len(0).and_then(|()| file.seek(SeekFrom::Start(0))).and_then(|_| file.write_all(&json));
        result
    }
}

impl Store for FileStore {
    fn now(&self) -> Duration {
        SystemTime::now().duration_since(UNIX_EPOCH).unwrap_or_default()
    }

    fn update<'a, R: Send + 'a>(
        &'a self,
        quota: &'static str,
        now: Duration,
        step: impl Fn(&mut Window) -> R + Send + 'a,
    ) -> Step<'a, R> {
        done(self.update_now(quota, now, step))
    }
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
    use crate::config::{ClientConfig, ConfigInput, PacingStore};
    use crate::pacing::gate::Cell;
    use crate::pacing::shared::scenarios::two_sharers_and_another_token;
    use crate::pacing::shared::Shared;
    use crate::pacing::window::{STALE, WINDOW};
    use crate::request::Quota;

    fn window(path: &Path, token: &str) -> Box<dyn Cell> {
        let input = ConfigInput {
            api_token: Some(token.into()),
            base_url: Some("https://api.example.org".into()),
            ..Default::default()
        };
        let config = ClientConfig::resolve(input, |_| None).unwrap();
        Shared::open(&PacingStore::File(path.into()), &config).unwrap().window(Quota::MetaSearch, Some(2))
    }

    #[tokio::test]
    async fn two_handles_on_one_file_share_the_window_and_never_store_the_token() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("sub").join("pacing.json");
        two_sharers_and_another_token(|token| window(&path, token)).await;
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(!text.contains("tok-"), "{text}");
        assert_eq!(serde_json::from_str::<Windows>(&text).unwrap().len(), 2);
    }

    #[tokio::test]
    async fn a_window_left_by_a_client_gone_is_dropped_by_the_next_write_of_any_client() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("pacing.json");
        let (gone, other) = (window(&path, "tok-gone"), window(&path, "tok-other"));
        let now = gone.now();
        // A request in flight when its process died: it counts until stale.
        assert_eq!(gone.take(1, now).await.unwrap(), Ok(()));
        let stale = now + STALE + WINDOW;
        assert_eq!(other.take(2, stale - Duration::from_millis(1)).await.unwrap(), Ok(()));
        assert_eq!(serde_json::from_str::<Windows>(&std::fs::read_to_string(&path).unwrap()).unwrap().len(), 2);
        assert_eq!(other.take(3, stale).await.unwrap(), Ok(()));
        let windows: Windows = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        assert_eq!(windows.len(), 1, "{windows:?}");
    }

    #[test]
    fn an_unusable_file_is_a_configuration_error() {
        let dir = tempfile::tempdir().unwrap();
        let err = FileStore::open(dir.path(), "k".into()).err().unwrap();
        assert!(err.to_string().starts_with("shared_pacing: cannot use the file"), "{err}");
    }
}
