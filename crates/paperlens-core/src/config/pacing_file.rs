//! Where `shared_pacing=True` keeps its file: a per-user folder on a local disk. The user's
//! runtime folder (`XDG_RUNTIME_DIR`, a tmpfs) if set; else their cache folder unless it is on
//! a network file system (NFS, Lustre, GPFS, ...: the home folder of most clusters, where
//! `flock` is per host, per process or absent); else a folder of their own in the temporary
//! folder (`$TMPDIR`, then `/tmp`), made with mode 0700. The file system is told by its type
//! (`statfs` magic numbers). With no local folder left, the error says to pass a local path
//! or a Redis URL.

use std::path::{Path, PathBuf};

use crate::error::Error;

const FILE_NAME: &str = "pacing.json";

/// The default pacing file, from the environment variables `env` reads.
pub fn default_file(env: impl Fn(&str) -> Option<String>) -> Result<PathBuf, Error> {
    default_file_on(env, network_file_system)
}

/// [`default_file`], with `network(path)` telling the network file system `path` is on.
fn default_file_on(
    env: impl Fn(&str) -> Option<String>,
    network: impl Fn(&Path) -> Option<&'static str>,
) -> Result<PathBuf, Error> {
    let var = |name: &str| env(name).filter(|v| !v.is_empty()).map(PathBuf::from);
    if let Some(dir) = var("XDG_RUNTIME_DIR").or_else(|| var("LOCALAPPDATA")) {
        return Ok(dir.join("paperlens").join(FILE_NAME));
    }
    let mut refused = Vec::new();
    if let Some(cache) = var("HOME").map(|home| home.join(".cache")) {
        match network(&cache) {
            None => return Ok(cache.join("paperlens").join(FILE_NAME)),
            Some(kind) => refused.push(format!("{} is on {kind}", cache.display())),
        }
    }
    let mut temporary = vec![var("TMPDIR").unwrap_or_else(std::env::temp_dir), PathBuf::from("/tmp")];
    temporary.dedup();
    for dir in temporary {
        match network(&dir) {
            None => return Ok(own_folder(&dir)?.join(FILE_NAME)),
            Some(kind) => refused.push(format!("{} is on {kind}", dir.display())),
        }
    }
    Err(Error::Configuration(format!(
        "shared_pacing=True: no local folder for the pacing file ({}), and file locks on network file \
         systems are unreliable; pass shared_pacing= the path of a file on a local disk, or a redis:// URL \
         (which also shares pacing across machines)",
        refused.join("; ")
    )))
}

/// `<dir>/paperlens-<uid>`, made with mode 0700 if missing; one made by someone else, or open
/// to others, is refused (another user could otherwise read or swap the state).
fn own_folder(dir: &Path) -> Result<PathBuf, Error> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::{DirBuilderExt, MetadataExt};
        // SAFETY: geteuid has no preconditions and cannot fail.
        let uid = unsafe { libc::geteuid() };
        let folder = dir.join(format!("paperlens-{uid}"));
        let refused = |why: String| {
            Error::Configuration(format!(
                "shared_pacing=True: the folder {} {why}; remove it, or pass shared_pacing= the path of a file",
                folder.display()
            ))
        };
        match std::fs::DirBuilder::new().mode(0o700).create(&folder) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
            Err(e) => return Err(refused(format!("cannot be made ({e})"))),
        }
        let meta = std::fs::symlink_metadata(&folder).map_err(|e| refused(format!("cannot be read ({e})")))?;
        if !meta.file_type().is_dir() {
            return Err(refused("is not a folder".into()));
        }
        if meta.uid() != uid {
            return Err(refused(format!("belongs to another user (uid {})", meta.uid())));
        }
        if meta.mode() & 0o077 != 0 {
            return Err(refused(format!("is open to other users (mode {:o})", meta.mode() & 0o777)));
        }
        Ok(folder)
    }
    #[cfg(not(unix))]
    Ok(dir.join("paperlens"))
}

/// The network file system `path` (or, if it does not exist yet, its nearest existing
/// ancestor) is on, by `statfs` type; `None`: a local one, or not known to be remote.
#[cfg(target_os = "linux")]
fn network_file_system(path: &Path) -> Option<&'static str> {
    use std::os::unix::ffi::OsStrExt;
    const KINDS: [(u32, &str); 15] = [
        (0x6969, "NFS"),
        (0x0BD0_0BD0, "Lustre"),
        (0x4750_4653, "GPFS"),
        (0xFF53_4D42, "CIFS"),
        (0xFE53_4D42, "SMB2"),
        (0x517B, "SMB"),
        (0x00C3_6400, "CephFS"),
        (0x5346_414F, "AFS"),
        (0x6B41_4653, "AFS"),
        (0x1983_0326, "BeeGFS"),
        (0xAAD7_AAEA, "PanFS"),
        (0x2003_0528, "OrangeFS"),
        (0x7375_7245, "Coda"),
        (0x0102_1997, "9P"),
        (0x6573_5546, "FUSE (often a network file system)"),
    ];
    let existing = path.ancestors().find(|p| p.exists())?;
    let name = std::ffi::CString::new(existing.as_os_str().as_bytes()).ok()?;
    // SAFETY: `stat` is plain data, written by statfs on success.
    let mut stat: libc::statfs = unsafe { std::mem::zeroed() };
    if unsafe { libc::statfs(name.as_ptr(), &mut stat) } != 0 {
        return None;
    }
    // The magic numbers are 32-bit; f_type's width differs by platform.
    #[allow(clippy::unnecessary_cast)]
    let kind = stat.f_type as u32;
    KINDS.iter().find(|(magic, _)| *magic == kind).map(|(_, name)| *name)
}

#[cfg(not(target_os = "linux"))]
fn network_file_system(_path: &Path) -> Option<&'static str> {
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env<'a>(vars: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<String> + 'a {
        move |name| vars.iter().find(|(n, _)| *n == name).map(|(_, v)| v.to_string())
    }

    /// Every path under `prefix` is on NFS.
    fn nfs_under(prefix: &Path) -> impl Fn(&Path) -> Option<&'static str> + '_ {
        move |path| path.starts_with(prefix).then_some("NFS")
    }

    #[test]
    fn the_runtime_folder_first_then_a_local_cache_folder() {
        let local = |_: &Path| None;
        let runtime = default_file_on(env(&[("XDG_RUNTIME_DIR", "/run/user/1"), ("HOME", "/h")]), local).unwrap();
        assert_eq!(runtime, PathBuf::from("/run/user/1/paperlens/pacing.json"));
        let cache = default_file_on(env(&[("HOME", "/h")]), local).unwrap();
        assert_eq!(cache, PathBuf::from("/h/.cache/paperlens/pacing.json"));
    }

    #[cfg(unix)]
    #[test]
    fn a_home_on_nfs_gives_a_private_folder_in_the_local_temporary_folder() {
        use std::os::unix::fs::PermissionsExt;
        let tmp = tempfile::tempdir().unwrap();
        let tmpdir = tmp.path().to_str().unwrap();
        let file = default_file_on(env(&[("HOME", "/nfs/home/me"), ("TMPDIR", tmpdir)]), nfs_under(Path::new("/nfs")));
        let file = file.unwrap();
        let uid = unsafe { libc::geteuid() };
        assert_eq!(file, tmp.path().join(format!("paperlens-{uid}")).join("pacing.json"));
        let mode = std::fs::metadata(file.parent().unwrap()).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o700);
        // Again: the folder made before is ours and private, so it is used.
        let again = default_file_on(env(&[("HOME", "/nfs/home/me"), ("TMPDIR", tmpdir)]), nfs_under(Path::new("/nfs")));
        assert_eq!(again.unwrap(), file);
    }

    #[cfg(unix)]
    #[test]
    fn a_folder_open_to_others_is_refused() {
        use std::os::unix::fs::PermissionsExt;
        let tmp = tempfile::tempdir().unwrap();
        let uid = unsafe { libc::geteuid() };
        let planted = tmp.path().join(format!("paperlens-{uid}"));
        std::fs::create_dir(&planted).unwrap();
        std::fs::set_permissions(&planted, std::fs::Permissions::from_mode(0o777)).unwrap();
        let vars = [("TMPDIR", tmp.path().to_str().unwrap())];
        let err = default_file_on(env(&vars), |_| None).unwrap_err().to_string();
        assert!(err.contains(&format!("{} is open to other users (mode 777)", planted.display())), "{err}");
    }

    #[test]
    fn with_every_folder_on_a_network_file_system_the_error_says_to_use_a_local_path_or_redis() {
        let err = default_file_on(env(&[("HOME", "/h"), ("TMPDIR", "/scratch")]), |_| Some("Lustre"));
        let err = err.unwrap_err().to_string();
        assert!(err.contains("/h/.cache is on Lustre; /scratch is on Lustre; /tmp is on Lustre"), "{err}");
        assert!(err.contains("a file on a local disk, or a redis:// URL"), "{err}");
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn a_local_folder_is_told_local_by_its_file_system_type() {
        let tmp = tempfile::tempdir().unwrap();
        assert_eq!(network_file_system(tmp.path()), None);
        assert_eq!(network_file_system(&tmp.path().join("not").join("made").join("yet")), None);
        assert_eq!(network_file_system(Path::new("/proc")), None);
    }
}
