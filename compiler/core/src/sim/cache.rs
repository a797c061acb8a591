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
    let marker = dir.join(COMPLETE);
    if marker.is_file() {
        // Record the use for `prune` (least recently used entries go first).
        if let Ok(f) = std::fs::File::options().append(true).open(&marker) {
            let _ = f.set_modified(SystemTime::now());
        }
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

/// Default size cap of the cache root: `$QRTL_SIM_CACHE_MAX_MB` MiB, else
/// 4 GiB.
pub fn default_max_bytes() -> u64 {
    std::env::var("QRTL_SIM_CACHE_MAX_MB")
        .ok()
        .and_then(|v| v.trim().parse::<u64>().ok())
        .unwrap_or(4096)
        .saturating_mul(1 << 20)
}

fn dir_size(dir: &Path) -> u64 {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return 0;
    };
    rd.flatten()
        .map(|e| match e.file_type() {
            Ok(t) if t.is_dir() => dir_size(&e.path()),
            Ok(_) => e.metadata().map(|m| m.len()).unwrap_or(0),
            Err(_) => 0,
        })
        .sum()
}

/// Shrink the cache under `root` to at most `max_bytes`, removing the least
/// recently used entries first, and remove scratch directories (`.tmp`,
/// `.runs`) left over by processes more than a day ago. An entry is first
/// renamed away (atomically), so a concurrent lookup either finds it whole
/// or rebuilds it. Returns the number of entries removed.
pub fn prune(root: &Path, max_bytes: u64) -> Result<usize, SimError> {
    let day = std::time::Duration::from_secs(24 * 3600);
    let now = SystemTime::now();
    for scratch in [".tmp", ".runs"] {
        if let Ok(rd) = std::fs::read_dir(root.join(scratch)) {
            for e in rd.flatten() {
                let old = e
                    .metadata()
                    .and_then(|m| m.modified())
                    .is_ok_and(|t| now.duration_since(t).unwrap_or_default() > day);
                if old {
                    let _ = std::fs::remove_dir_all(e.path());
                }
            }
        }
    }
    let rd = match std::fs::read_dir(root) {
        Ok(rd) => rd,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(0),
        Err(e) => return Err(io_err(root)(e)),
    };
    let mut entries: Vec<(SystemTime, u64, PathBuf)> = rd
        .flatten()
        .filter(|e| !e.file_name().to_string_lossy().starts_with('.'))
        .filter_map(|e| {
            let used = std::fs::metadata(e.path().join(COMPLETE))
                .and_then(|m| m.modified())
                .ok()?;
            Some((used, dir_size(&e.path()), e.path()))
        })
        .collect();
    entries.sort_by_key(|e| std::cmp::Reverse(e.0));
    let mut total = 0u64;
    let mut removed = 0;
    for (_, size, path) in entries {
        total = total.saturating_add(size);
        if total <= max_bytes {
            continue;
        }
        let doomed = TempDir::new(&root.join(".tmp"))?;
        let target = doomed.path().join("entry");
        if std::fs::rename(&path, &target).is_ok() {
            removed += 1;
        }
        drop(doomed);
    }
    Ok(removed)
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

    #[test]
    fn prune_removes_least_recently_used_entries() {
        let root = std::env::temp_dir().join(format!("qrtl-prune-test-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        for k in ["a", "b", "c"] {
            get_or_build(&root, k, |tmp| {
                std::fs::write(tmp.join("blob"), vec![0u8; 1000]).unwrap();
                Ok(())
            })
            .unwrap();
        }
        let age = |k: &str, secs: u64| {
            let f = std::fs::File::options()
                .append(true)
                .open(root.join(k).join(COMPLETE))
                .unwrap();
            f.set_modified(SystemTime::now() - std::time::Duration::from_secs(secs))
                .unwrap();
        };
        age("a", 300);
        age("b", 100);
        age("c", 200);
        // A hit makes "a" the most recently used.
        assert!(
            get_or_build(&root, "a", |_| panic!("cached"))
                .unwrap()
                .cached
        );
        assert_eq!(prune(&root, 2500).unwrap(), 1);
        assert!(root.join("a").is_dir() && root.join("b").is_dir());
        assert!(!root.join("c").exists());
        assert_eq!(prune(&root, 2500).unwrap(), 0);
        assert_eq!(prune(&root, 0).unwrap(), 2);
        assert_eq!(std::fs::read_dir(root.join(".tmp")).unwrap().count(), 0);
        std::fs::remove_dir_all(&root).unwrap();
        assert_eq!(prune(&root, 0).unwrap(), 0);
    }
}
