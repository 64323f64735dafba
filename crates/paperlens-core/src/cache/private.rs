//! What makes the cache the user's own: the per-user secret its entries are authenticated
//! with, and the checks of the folders it lives in.
//!
//! The secret is 32 random bytes, hex in `<config>/paperlens/cache-key` (`<config>`:
//! `$XDG_CONFIG_HOME`, else `%APPDATA%`, else `~/.config`), a 0600 file of a 0700 folder,
//! created whole or not at all (a temporary file linked into place, never replacing one
//! another process made first). Another user cannot read it, so cannot write an entry this
//! user accepts, even into a folder both may write.

use std::fs;
use std::io::{ErrorKind, Read, Write};
use std::path::{Path, PathBuf};

use tempfile::NamedTempFile;

const KEY_FILE: &str = "cache-key";
pub const KEY_BYTES: usize = 32;

/// The per-user secret of the cache, made on first use; the error says what is wrong, naming
/// the file or folder.
pub fn user_secret() -> Result<[u8; KEY_BYTES], String> {
    let folder = config_folder()?.join("paperlens");
    private_folder(&folder, 0o077)?;
    let path = folder.join(KEY_FILE);
    match read_secret(&path) {
        Err(e) if e.kind() == ErrorKind::NotFound => {}
        other => return other.map_err(|e| format!("the cache key {}: {e}", path.display())),
    }
    let fresh: [u8; KEY_BYTES] = rand::random();
    let written = (|| {
        let mut file = NamedTempFile::with_prefix_in(".cache-key-", &folder)?; // mode 0600
        file.write_all(hex(&fresh).as_bytes())?;
        file.as_file().sync_all()?;
        file.persist_noclobber(&path).map_err(|e| e.error)
    })();
    match written {
        Ok(_) => Ok(fresh),
        // Another process made it first: its secret is the one.
        Err(e) if e.kind() == ErrorKind::AlreadyExists => {
            read_secret(&path).map_err(|e| format!("the cache key {}: {e}", path.display()))
        }
        Err(e) => Err(format!("could not write the cache key {}: {e}", path.display())),
    }
}

fn config_folder() -> Result<PathBuf, String> {
    let var = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty()).map(PathBuf::from);
    var("XDG_CONFIG_HOME")
        .or_else(|| var("APPDATA"))
        .or_else(|| var("HOME").map(|home| home.join(".config")))
        .ok_or_else(|| "no folder for the cache key: neither XDG_CONFIG_HOME, APPDATA nor HOME is set".to_string())
}

fn read_secret(path: &Path) -> std::io::Result<[u8; KEY_BYTES]> {
    let file = open_no_follow(path)?;
    let meta = file.metadata()?;
    if let Some(why) = not_private(&meta, 0o077) {
        return Err(std::io::Error::other(format!("{why}; remove it and a new key is made")));
    }
    let mut text = String::new();
    file.take(2 * KEY_BYTES as u64 + 1).read_to_string(&mut text)?;
    let bytes = unhex(text.trim()).filter(|b| b.len() == KEY_BYTES);
    let bytes = bytes.ok_or_else(|| std::io::Error::other("is not a key (64 hex digits); remove it"))?;
    let mut key = [0u8; KEY_BYTES];
    key.copy_from_slice(&bytes);
    Ok(key)
}

#[cfg(unix)]
fn open_no_follow(path: &Path) -> std::io::Result<fs::File> {
    use std::os::unix::fs::OpenOptionsExt;
    let opened = fs::OpenOptions::new().read(true).custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK).open(path);
    opened.map_err(|e| match e.raw_os_error() {
        Some(libc::ELOOP) => std::io::Error::other("is a symbolic link (never followed); remove it"),
        _ => e,
    })
}

#[cfg(not(unix))]
fn open_no_follow(path: &Path) -> std::io::Result<fs::File> {
    fs::File::open(path)
}

/// Makes `folder` (mode 0700), or checks the one there: this user's, a folder, and no
/// permission of `forbidden` (0o077: nobody else's; 0o022: nobody else may write).
pub fn private_folder(folder: &Path, forbidden: u32) -> Result<(), String> {
    let made = {
        let mut builder = fs::DirBuilder::new();
        builder.recursive(true);
        #[cfg(unix)]
        std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
        builder.create(folder)
    };
    made.map_err(|e| format!("could not make the folder {}: {e}", folder.display()))?;
    let meta = fs::metadata(folder).map_err(|e| format!("{}: {e}", folder.display()))?;
    match not_private(&meta, forbidden) {
        None => Ok(()),
        Some(why) => Err(format!("the folder {} {why}", folder.display())),
    }
}

/// Why `meta` is not this user's alone (`forbidden`: the permission bits others may not have).
#[cfg(unix)]
fn not_private(meta: &fs::Metadata, forbidden: u32) -> Option<String> {
    use std::os::unix::fs::MetadataExt;
    // SAFETY: geteuid has no preconditions and cannot fail.
    let me = unsafe { libc::geteuid() };
    let mode = meta.mode() & 0o7777;
    if !(meta.is_dir() || meta.is_file()) {
        Some("is neither a folder nor a regular file".into())
    } else if meta.uid() != me {
        Some(format!("belongs to uid {}, not to this user (uid {me})", meta.uid()))
    } else if mode & forbidden != 0 {
        let who = if forbidden & 0o044 != 0 { "others may read or write it" } else { "others may write into it" };
        Some(format!("has mode {mode:04o} ({who})"))
    } else {
        None
    }
}

#[cfg(not(unix))]
fn not_private(_meta: &fs::Metadata, _forbidden: u32) -> Option<String> {
    None
}

pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn unhex(text: &str) -> Option<Vec<u8>> {
    if !text.len().is_multiple_of(2) || !text.is_ascii() {
        return None;
    }
    (0..text.len()).step_by(2).map(|i| u8::from_str_radix(&text[i..i + 2], 16).ok()).collect()
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn a_folder_others_may_write_is_refused_and_a_fresh_one_is_private() {
        let dir = tempfile::tempdir().unwrap();
        let fresh = dir.path().join("a/b");
        private_folder(&fresh, 0o077).unwrap();
        assert_eq!(fs::metadata(&fresh).unwrap().permissions().mode() & 0o777, 0o700);
        fs::set_permissions(&fresh, fs::Permissions::from_mode(0o777)).unwrap();
        let refused = private_folder(&fresh, 0o022).unwrap_err();
        assert_eq!(refused, format!("the folder {} has mode 0777 (others may write into it)", fresh.display()));
        fs::set_permissions(&fresh, fs::Permissions::from_mode(0o755)).unwrap();
        assert!(private_folder(&fresh, 0o022).is_ok());
        assert!(private_folder(&fresh, 0o077).unwrap_err().ends_with("has mode 0755 (others may read or write it)"));
    }

    #[test]
    fn a_key_that_is_a_link_or_readable_by_others_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let other = dir.path().join("other");
        fs::write(&other, hex(&[7; KEY_BYTES])).unwrap();
        fs::set_permissions(&other, fs::Permissions::from_mode(0o600)).unwrap();
        assert_eq!(read_secret(&other).unwrap(), [7; KEY_BYTES]);
        let link = dir.path().join("link");
        std::os::unix::fs::symlink(&other, &link).unwrap();
        assert!(read_secret(&link).is_err());
        fs::set_permissions(&other, fs::Permissions::from_mode(0o644)).unwrap();
        assert!(read_secret(&other).unwrap_err().to_string().contains("has mode 0644"));
        fs::set_permissions(&other, fs::Permissions::from_mode(0o600)).unwrap();
        fs::write(&other, "not hex").unwrap();
        assert!(read_secret(&other).unwrap_err().to_string().contains("is not a key"));
    }
}
