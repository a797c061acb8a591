//! The simulation build cache.
//!
//! An entry is a directory `<root>/<key>/` named by the SHA-256 of
//! everything that goes into a build (RTL sources, generated driver or test
//! bench, simulator and its version, trace variant). It is built in a
//! private temporary directory `<root>/.tmp-*` and renamed into place, so
//! processes that build the same key at once never see a half-built entry:
//! the first rename wins and the others discard their copy. C++ objects are
//! also shared across entries through ccache (`OBJCACHE=ccache`).
//!
//! Root: `$QRTL_SIM_CACHE`, else `<cargo target dir>/qrtl-sim-cache`
//! (`$CARGO_TARGET_DIR`, or the nearest ancestor of the running executable
//! holding cargo's `CACHEDIR.TAG`), else `<system temp>/qrtl-sim-cache`.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

use sha2::{Digest, Sha256};

use super::{io_err, SimError};

/// Marker written last into a complete entry.
const COMPLETE: &str = "complete";

/// The default cache root (see the module docs).
pub fn default_cache_root() -> PathBuf {
    if let Some(d) = std::env::var_os("QRTL_SIM_CACHE").filter(|d| !d.is_empty()) {
        return PathBuf::from(d);
    }
    if let Some(d) = std::env::var_os("CARGO_TARGET_DIR").filter(|d| !d.is_empty()) {
        return PathBuf::from(d).join("qrtl-sim-cache");
    }
    if let Ok(exe) = std::env::current_exe() {
        for dir in exe.ancestors().skip(1) {
            if dir.join("CACHEDIR.TAG").is_file() {
                return dir.join("qrtl-sim-cache");
            }
        }
    }
    std::env::temp_dir().join("qrtl-sim-cache")
}

/// SHA-256 over named parts (each length-prefixed, so no two different
/// part lists hash the same input), as lowercase hex.
pub fn key(parts: &[(&str, &[u8])]) -> String {
    let mut h = Sha256::new();
    for (name, bytes) in parts {
        h.update((name.len() as u64).to_le_bytes());
        h.update(name.as_bytes());
        h.update((bytes.len() as u64).to_le_bytes());
        h.update(bytes);
    }
    h.finalize().iter().map(|b| format!("{b:02x}")).collect()
}

/// A cache entry.
#[derive(Clone, Debug)]
pub struct CacheEntry {
    pub dir: PathBuf,
    /// The entry existed before this lookup.
    pub cached: bool,
}

/// A directory removed when dropped.
pub struct TempDir {
    path: PathBuf,
}

impl TempDir {
    /// A fresh directory under `parent` (created if needed).
    pub fn new(parent: &Path) -> Result<TempDir, SimError> {
        static COUNTER: AtomicU64 = AtomicU64::new(0);
        std::fs::create_dir_all(parent).map_err(io_err(parent))?;
        let nanos = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.subsec_nanos())
            .unwrap_or(0);
        loop {
            let n = COUNTER.fetch_add(1, Ordering::Relaxed);
            let path = parent.join(format!("{}-{n}-{nanos}", std::process::id()));
            match std::fs::create_dir(&path) {
                Ok(()) => return Ok(TempDir { path }),
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
                Err(e) => return Err(io_err(&path)(e)),
            }
        }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Keep the directory: it is no longer removed on drop.
    fn into_path(self) -> PathBuf {
        let p = self.path.clone();
        std::mem::forget(self);
        p
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.path);
    }
}

/// The entry for `key` under `root`, running `build` in a temporary
/// directory and renaming it into place when it is missing.
pub fn get_or_build(
    root: &Path,
    key: &str,
    build: impl FnOnce(&Path) -> Result<(), SimError>,
) -> Result<CacheEntry, SimError> {
    let dir = root.join(key);
    if dir.join(COMPLETE).is_file() {
        return Ok(CacheEntry { dir, cached: true });
    }
    let tmp = TempDir::new(&root.join(".tmp"))?;
    build(tmp.path())?;
    let marker = tmp.path().join(COMPLETE);
    std::fs::write(&marker, key).map_err(io_err(&marker))?;
    let tmp_path = tmp.into_path();
    match std::fs::rename(&tmp_path, &dir) {
        Ok(()) => Ok(CacheEntry { dir, cached: false }),
        Err(e) => {
            // Another process finished the same build first: use its entry.
            let _ = std::fs::remove_dir_all(&tmp_path);
            if dir.join(COMPLETE).is_file() {
                Ok(CacheEntry { dir, cached: false })
            } else {
                Err(io_err(&dir)(e))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_separates_parts() {
        let a = key(&[("ab", b"c")]);
        let b = key(&[("a", b"bc")]);
        assert_ne!(a, b);
        assert_eq!(a.len(), 64);
        assert_eq!(a, key(&[("ab", b"c")]));
    }

    #[test]
    fn concurrent_builds_of_one_key_agree() {
        let root = std::env::temp_dir().join(format!("qrtl-cache-test-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        let results: Vec<_> = std::thread::scope(|s| {
            let hs: Vec<_> = (0..4)
                .map(|i| {
                    let root = &root;
                    s.spawn(move || {
                        get_or_build(root, "k", |tmp| {
                            std::thread::sleep(std::time::Duration::from_millis(20));
                            std::fs::write(tmp.join("out"), format!("{i}")).unwrap();
                            Ok(())
                        })
                        .unwrap()
                    })
                })
                .collect();
            hs.into_iter().map(|h| h.join().unwrap()).collect()
        });
        assert!(results.iter().all(|e| e.dir == root.join("k")));
        assert!(root.join("k/out").is_file());
        let again = get_or_build(&root, "k", |_| panic!("must not rebuild")).unwrap();
        assert!(again.cached);
        // No temporary directory is left behind.
        assert_eq!(std::fs::read_dir(root.join(".tmp")).unwrap().count(), 0);
        std::fs::remove_dir_all(&root).unwrap();
    }
}
