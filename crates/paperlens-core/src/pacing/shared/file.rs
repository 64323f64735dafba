//! The windows of the processes of one machine, kept in a JSON file. Each step takes an
//! advisory lock on a lock file beside it (`<file>.lock`), reads the state, steps it and
//! writes it back by rename (a temporary file, flushed to disk, renamed over the state), so a
//! crash at any moment leaves either the old state or the new one, never a truncated one.
//!
//! The lock is only ever tried (`LOCK_NB`): while another process holds it, the step waits
//! on the runtime's timer between attempts, never on a blocked thread, and `fork()` is held
//! off only while the lock is actually held (a child would inherit it). A sharer that stalls
//! while holding it costs the others at most their call's `deadline` (or the client's
//! `timeout` per attempt without one). Times are on the machine's monotonic clock, which
//! every process reads alike and no wall-clock step moves.
//!
//! A file system without working locks (`flock` failing with ENOSYS or ENOLCK, as on Lustre
//! mounted without `flock`) is an error naming the file and the fix, when the client starts
//! and at any step: pacing never silently stops being shared.

use std::collections::BTreeMap;
use std::fs::{File, OpenOptions};
use std::io::{ErrorKind, Read, Write};
use std::path::{Path, PathBuf};
use std::time::Duration;

use fs4::fs_std::FileExt;
use tokio::time::Instant;

use super::{Store, WindowStep};
use crate::config::ClientConfig;
use crate::error::Error;
use crate::pacing::gate::Step;
use crate::pacing::window::Window;

/// `{client key: {quota name: window}}`.
type Windows = BTreeMap<String, BTreeMap<String, Window>>;

/// The first pause between two attempts at the lock, doubled up to [`LONGEST_PAUSE`].
const FIRST_PAUSE: Duration = Duration::from_millis(1);
const LONGEST_PAUSE: Duration = Duration::from_millis(50);

pub struct FileStore {
    path: PathBuf,
    lock_path: PathBuf,
    key: String,
    /// How long a step waits for the lock before it fails (a call's deadline may end it first).
    patience: Duration,
}

/// Whether one attempt got the lock.
enum Attempt<R> {
    Done(R),
    Busy,
}

impl FileStore {
    /// Checks at once that the file's folder can be made, the lock file created, and that
    /// its file system supports locks.
    pub fn open(path: &Path, key: String, config: &ClientConfig) -> Result<FileStore, Error> {
        let mut lock_path = path.as_os_str().to_owned();
        lock_path.push(".lock");
        let store = FileStore { path: path.to_path_buf(), lock_path: lock_path.into(), key, patience: config.timeout };
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            create_private_dir(dir).map_err(|e| store.unusable(&e))?;
        }
        let _no_fork = crate::fork::hold_off_fork();
        // Held by another process is as good a proof as taken: locks work there.
        store.try_lock().map_err(|e| store.lock_error(&e))?;
        Ok(store)
    }

    /// The lock, if free now; dropping the file unlocks it. A fresh descriptor each time: one
    /// inherited by a forked child would share its lock with us.
    fn try_lock(&self) -> std::io::Result<Option<File>> {
        let mut options = OpenOptions::new();
        options.read(true).write(true).create(true).truncate(false);
        #[cfg(unix)]
        std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
        let file = options.open(&self.lock_path)?;
        Ok(FileExt::try_lock_exclusive(&file)?.then_some(file))
    }

    /// One attempt: if the lock is free, `step` applied to the window of `quota` and kept.
    fn attempt<R>(&self, quota: &'static str, step: impl Fn(&mut Window, Duration) -> R) -> Result<Attempt<R>, Error> {
        let _no_fork = crate::fork::hold_off_fork();
        let Some(_locked) = self.try_lock().map_err(|e| self.lock_error(&e))? else {
            return Ok(Attempt::Busy);
        };
        let now = monotonic_now();
        let old = self.read().map_err(|e| self.io_error("read", &e))?;
        let mut windows: Windows = serde_json::from_slice(&old).unwrap_or_default();
        let result = step(windows.entry(self.key.clone()).or_default().entry(quota.to_string()).or_default(), now);
        for quotas in windows.values_mut() {
            quotas.retain(|_, window| !window.is_idle(now));
        }
        windows.retain(|_, quotas| !quotas.is_empty());
        let new = serde_json::to_vec(&windows).expect("windows always serialize");
        if new != old {
            self.write(&new).map_err(|e| self.io_error("write", &e))?;
        }
        Ok(Attempt::Done(result))
    }

    fn read(&self) -> std::io::Result<Vec<u8>> {
        let mut text = Vec::new();
        match File::open(&self.path) {
            Ok(mut file) => file.read_to_end(&mut text).map(|_| text),
            Err(e) if e.kind() == ErrorKind::NotFound => Ok(text),
            Err(e) => Err(e),
        }
    }

    /// Writes `json` as the new state: a temporary file beside it, flushed, renamed over it.
    fn write(&self, json: &[u8]) -> std::io::Result<()> {
        let dir = self.path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
        let mut temporary = tempfile::Builder::new().prefix(".pacing-").tempfile_in(dir)?;
        temporary.write_all(json)?;
        temporary.as_file().sync_all()?;
        temporary.persist(&self.path).map_err(|e| e.error)?;
        Ok(())
    }

    fn unusable(&self, error: &std::io::Error) -> Error {
        Error::Configuration(format!("shared_pacing: cannot use the file {}: {error}", self.path.display()))
    }

    fn lock_error(&self, error: &std::io::Error) -> Error {
        let unsupported = [libc::ENOSYS, libc::ENOLCK, libc::EOPNOTSUPP];
        if error.raw_os_error().is_some_and(|code| unsupported.contains(&code)) {
            return Error::Configuration(format!(
                "shared_pacing: the file system of {} does not support file locks ({error}), so the \
                 processes cannot share pacing through it; pass shared_pacing= the path of a file on a \
                 local disk (a folder under /tmp), or a redis:// URL to share across machines",
                self.lock_path.display()
            ));
        }
        self.unusable(error)
    }

    fn io_error(&self, what: &str, error: &std::io::Error) -> Error {
        Error::Io {
            message: format!("shared_pacing: cannot {what} the file {}: {error}", self.path.display()),
            request_id: String::new(),
            errno: error.raw_os_error(),
        }
    }
}

impl Store for FileStore {
    fn update<'a, R: Send + 'a>(&'a self, quota: &'static str, step: impl WindowStep<R> + 'a) -> Step<'a, R> {
        Box::pin(async move {
            let started = Instant::now();
            let mut pause = FIRST_PAUSE;
            loop {
                if let Attempt::Done(result) = self.attempt(quota, &step)? {
                    return Ok(result);
                }
                if started.elapsed() >= self.patience {
                    return Err(Error::Timeout {
                        message: format!(
                            "shared_pacing: the lock file {} stayed held by another process for {:.1} s \
                             (the client's timeout); that process may be stalled",
                            self.lock_path.display(),
                            started.elapsed().as_secs_f64()
                        ),
                        request_id: String::new(),
                    });
                }
                // A little jitter, so that processes let go at once do not retry in step.
                let jitter = Duration::from_micros(rand::random::<u64>() % 1000);
                tokio::time::sleep(pause + jitter).await;
                pause = (pause * 2).min(LONGEST_PAUSE);
            }
        })
    }

    fn describe(&self) -> String {
        format!("the file {}", self.path.display())
    }
}

/// The time on the machine's monotonic clock, counting time suspended (Linux's
/// `CLOCK_BOOTTIME`): the same in every process of the machine, moved by no wall-clock step.
#[cfg(unix)]
pub fn monotonic_now() -> Duration {
    #[cfg(any(target_os = "linux", target_os = "android"))]
    const CLOCK: libc::clockid_t = libc::CLOCK_BOOTTIME;
    #[cfg(not(any(target_os = "linux", target_os = "android")))]
    const CLOCK: libc::clockid_t = libc::CLOCK_MONOTONIC;
    let mut time = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: `time` is a valid timespec to write to; the clock exists on this platform.
    let failed = unsafe { libc::clock_gettime(CLOCK, &mut time) };
    assert_eq!(failed, 0, "the monotonic clock cannot be read");
    Duration::new(u64::try_from(time.tv_sec).unwrap_or_default(), u32::try_from(time.tv_nsec).unwrap_or_default())
}

/// Elsewhere the wall clock, the only one every process reads alike (a state it steps into
/// the future is reset).
#[cfg(not(unix))]
pub fn monotonic_now() -> Duration {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default()
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
    use std::sync::Arc;

    use super::*;
    use crate::config::{ConfigInput, PacingStore};
    use crate::events::EventSink;
    use crate::pacing::gate::Cell;
    use crate::pacing::shared::scenarios::{self, two_sharers_and_another_token, Told};
    use crate::pacing::shared::Shared;
    use crate::pacing::window::{STALE, WINDOW};
    use crate::request::Quota;

    fn config(token: &str, timeout: f64) -> ClientConfig {
        let input = ConfigInput {
            api_token: Some(token.into()),
            base_url: Some("https://api.example.org".into()),
            timeout: Some(timeout),
            ..Default::default()
        };
        ClientConfig::resolve(input, |_| None).unwrap()
    }

    fn window_told(path: &Path, token: &str, told: &Arc<Told>) -> Box<dyn Cell> {
        let events: Arc<dyn EventSink> = told.clone();
        let config = config(token, 30.0);
        Shared::open(&PacingStore::File(path.into()), &config).unwrap().window(Quota::MetaSearch, Some(2), &events)
    }

    fn window(path: &Path, token: &str) -> Box<dyn Cell> {
        window_told(path, token, &Told::sink())
    }

    fn windows(path: &Path) -> Windows {
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
    }

    #[tokio::test]
    async fn two_handles_on_one_file_share_the_window_and_never_store_the_token() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("sub").join("pacing.json");
        two_sharers_and_another_token(|token| window(&path, token)).await;
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(!text.contains("tok-"), "{text}");
        assert_eq!(windows(&path).len(), 2);
        // The state, its lock file and nothing else (no temporary file left behind).
        let mut names: Vec<String> = std::fs::read_dir(path.parent().unwrap())
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        names.sort();
        assert_eq!(names, ["pacing.json", "pacing.json.lock"]);
    }

    #[tokio::test]
    async fn a_window_left_by_a_client_gone_is_dropped_by_the_next_write_of_any_client() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("pacing.json");
        let other = window(&path, "tok-other");
        // A request left in flight by a process that died just over STALE + WINDOW ago.
        let long_ago = monotonic_now().saturating_sub(STALE + WINDOW + Duration::from_secs(1));
        let mut gone = Window::default();
        assert_eq!(gone.take(1, Some(2), long_ago), Ok(()));
        let state = BTreeMap::from([("gone".to_string(), BTreeMap::from([("meta-search".to_string(), gone)]))]);
        std::fs::write(&path, serde_json::to_vec(&state).unwrap()).unwrap();
        assert_eq!(other.take(2).await.unwrap(), Ok(()));
        assert_eq!(windows(&path).keys().count(), 1, "only the live client's window is kept");
        assert!(!windows(&path).contains_key("gone"));
    }

    #[tokio::test]
    async fn a_state_moved_an_hour_ahead_is_reset_with_a_warning_and_waits_no_window() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("pacing.json");
        let told = Told::sink();
        let a = window_told(&path, "t", &told);
        let move_ahead = |by: Duration| {
            let moved: Windows = windows(&path)
                .into_iter()
                .map(|(key, quotas)| (key, quotas.into_iter().map(|(q, w)| (q, w.shifted(by))).collect()))
                .collect();
            std::fs::write(&path, serde_json::to_vec(&moved).unwrap()).unwrap();
        };
        scenarios::a_state_from_the_future_is_reset(&*a, move_ahead, &told).await;
    }

    #[tokio::test]
    async fn a_holder_that_stalls_costs_a_step_its_patience_then_lets_go() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("pacing.json");
        let store = FileStore::open(&path, "k".into(), &config("t", 0.3)).unwrap();
        let held = store.try_lock().unwrap().expect("free at first");
        let started = std::time::Instant::now();
        let err = store.update("meta-search", |_, _| ()).await.unwrap_err();
        assert!(matches!(err, Error::Timeout { .. }), "{err:?}");
        assert!(err.to_string().contains("pacing.json.lock stayed held by another process"), "{err}");
        assert!(started.elapsed() >= Duration::from_millis(300));
        drop(held);
        assert_eq!(store.update("meta-search", |_, _| 7).await.unwrap(), 7);
    }

    #[tokio::test]
    async fn the_state_is_replaced_whole_and_a_damaged_one_starts_afresh() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("pacing.json");
        let a = window(&path, "t");
        assert_eq!(a.take(1).await.unwrap(), Ok(()));
        #[cfg(unix)]
        let inode = |p: &Path| std::os::unix::fs::MetadataExt::ino(&std::fs::metadata(p).unwrap());
        #[cfg(unix)]
        let before = inode(&path);
        assert_eq!(a.take(2).await.unwrap(), Ok(()));
        #[cfg(unix)]
        assert_ne!(inode(&path), before, "written by rename, not in place");
        std::fs::write(&path, b"{\"half a wri").unwrap();
        assert_eq!(a.take(3).await.unwrap(), Ok(()), "a damaged state is a fresh one");
        assert_eq!(a.take(4).await.unwrap(), Ok(()));
        assert_eq!(windows(&path).len(), 1);
        let Err(wait) = a.take(5).await.unwrap() else { panic!("2 a minute") };
        assert!(wait <= WINDOW, "{wait:?}");
    }

    #[test]
    fn an_unusable_file_is_a_configuration_error() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("pacing.json.lock")).unwrap();
        let err = FileStore::open(&dir.path().join("pacing.json"), "k".into(), &config("t", 1.0)).err().unwrap();
        assert!(err.to_string().starts_with("shared_pacing: cannot use the file"), "{err}");
    }

    #[test]
    fn a_file_system_without_locks_is_an_error_naming_the_file_and_the_fix() {
        let store = FileStore::open(&tempfile::tempdir().unwrap().path().join("p.json"), "k".into(), &config("t", 1.0));
        let store = store.unwrap();
        for code in [libc::ENOSYS, libc::ENOLCK] {
            let err = store.lock_error(&std::io::Error::from_raw_os_error(code));
            let Error::Configuration(message) = err else { panic!("{err:?}") };
            assert!(message.contains("p.json.lock does not support file locks"), "{message}");
            assert!(message.contains("a local disk") && message.contains("redis://"), "{message}");
        }
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn the_clock_is_monotonic_and_the_same_in_every_process() {
        let (a, b) = (monotonic_now(), monotonic_now());
        assert!(a <= b);
        let theirs: f64 = String::from_utf8(
            std::process::Command::new("python3")
                .args(["-c", "import time; print(time.clock_gettime(time.CLOCK_BOOTTIME))"])
                .output()
                .unwrap()
                .stdout,
        )
        .unwrap()
        .trim()
        .parse()
        .unwrap();
        let ours = monotonic_now().as_secs_f64();
        assert!(b.as_secs_f64() <= theirs && theirs <= ours, "{b:?} {theirs} {ours}");
    }
}
