//! The documents named on a `filter` command line: one per file (`--split
//! none`), or NUL-separated documents in each file (`--split nul`, XML
//! forbids NUL), named `FILE#N` (0-based; `-#N` for standard input). A
//! stream is read incrementally, one document at a time: only the
//! documents in flight are ever in memory.
//!
//! Framing: every document ends at a NUL or at the end of the stream; a
//! final NUL does not start another document, so `a\0b` and `a\0b\0` are
//! the same two documents, an empty stream holds none, and `a\0\0b` holds
//! an empty document in the middle (which the engine reports as malformed).

use std::io::{self, BufRead, BufReader, Read};
use std::path::{Path, PathBuf};

use clap::ValueEnum;

/// Read size of the stream readers.
const READ_BUFFER: usize = 256 * 1024;

/// `--split`: how the input files hold documents.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum)]
pub enum SplitArg {
    /// One document per file.
    #[default]
    None,
    /// Documents separated by NUL bytes, reported as FILE#N.
    Nul,
}

/// Where one document's bytes are.
#[derive(Debug)]
pub enum Doc {
    /// A whole file, read by the worker.
    File(PathBuf),
    /// The whole standard input, read by the worker.
    Stdin,
    /// A document cut out of a stream.
    Bytes(Vec<u8>),
    /// The input could not be read.
    Unreadable(io::Error),
}

impl Doc {
    /// About how many bytes the document has, for batching (`jobs`): a
    /// file's length, standard input as a full batch.
    pub fn weight(&self) -> usize {
        match self {
            Doc::File(path) => std::fs::metadata(path).map_or(0, |m| m.len() as usize),
            Doc::Stdin => crate::jobs::BATCH_WEIGHT,
            Doc::Bytes(bytes) => bytes.len(),
            Doc::Unreadable(_) => 0,
        }
    }
}

/// A document and the name it is reported under.
#[derive(Debug)]
pub struct NamedDoc {
    pub name: String,
    pub doc: Doc,
}

/// The documents of `files`, in order, read lazily.
pub fn documents(files: &[PathBuf], split: SplitArg) -> impl Iterator<Item = NamedDoc> + '_ {
    files
        .iter()
        .flat_map(move |f| -> Box<dyn Iterator<Item = NamedDoc>> {
            let name = f.display().to_string();
            match split {
                SplitArg::None => Box::new(std::iter::once(whole(name, f))),
                SplitArg::Nul => match open(f) {
                    Ok(r) => Box::new(stream(name, r)),
                    Err(e) => Box::new(std::iter::once(NamedDoc {
                        name,
                        doc: Doc::Unreadable(e),
                    })),
                },
            }
        })
}

fn is_stdin(f: &Path) -> bool {
    f.as_os_str() == "-"
}

fn whole(name: String, f: &Path) -> NamedDoc {
    let doc = if is_stdin(f) {
        Doc::Stdin
    } else {
        Doc::File(f.to_path_buf())
    };
    NamedDoc { name, doc }
}

/// A buffered reader of a file, or of standard input for `-`.
fn open(f: &Path) -> io::Result<Box<dyn BufRead>> {
    let r: Box<dyn Read> = if is_stdin(f) {
        Box::new(io::stdin())
    } else {
        Box::new(std::fs::File::open(f)?)
    };
    Ok(Box::new(BufReader::with_capacity(READ_BUFFER, r)))
}

/// The NUL-separated documents of one stream, named `NAME#N`; a read
/// error ends the stream as an unreadable document.
fn stream(name: String, r: impl BufRead) -> impl Iterator<Item = NamedDoc> {
    NulDocs::new(r).enumerate().map(move |(i, d)| NamedDoc {
        name: format!("{name}#{i}"),
        doc: match d {
            Ok(bytes) => Doc::Bytes(bytes),
            Err(e) => Doc::Unreadable(e),
        },
    })
}

/// NUL-separated documents read one at a time from a buffered reader.
pub struct NulDocs<R> {
    reader: R,
    done: bool,
}

impl<R: BufRead> NulDocs<R> {
    pub fn new(reader: R) -> Self {
        NulDocs {
            reader,
            done: false,
        }
    }
}

impl<R: BufRead> Iterator for NulDocs<R> {
    type Item = io::Result<Vec<u8>>;

    /// The next document without its NUL; `None` at the end of the stream
    /// and after a read error (reported once).
    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        let mut doc = Vec::new();
        match self.reader.read_until(0, &mut doc) {
            Ok(0) => {
                self.done = true;
                None
            }
            Ok(_) => {
                if doc.last() == Some(&0) {
                    doc.pop();
                }
                Some(Ok(doc))
            }
            Err(e) => {
                self.done = true;
                Some(Err(e))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn docs(bytes: &[u8]) -> Vec<Vec<u8>> {
        NulDocs::new(bytes).map(|d| d.unwrap()).collect()
    }

    #[test]
    fn nul_framing() {
        let v = |s: &[&str]| s.iter().map(|d| d.as_bytes().to_vec()).collect::<Vec<_>>();
        assert_eq!(docs(b"<a/>\0<b/>"), v(&["<a/>", "<b/>"]));
        assert_eq!(docs(b"<a/>\0<b/>\0"), v(&["<a/>", "<b/>"]));
        assert_eq!(docs(b"<a/>\0\0<b/>"), v(&["<a/>", "", "<b/>"]));
        assert_eq!(docs(b"\0"), v(&[""]));
        assert_eq!(docs(b""), v(&[]));
        assert_eq!(docs(b"<a/>"), v(&["<a/>"]));
    }

    #[test]
    fn documents_longer_than_the_read_buffer() {
        let big = vec![b'x'; 3 * 1024 + 17];
        let mut s = big.clone();
        s.push(0);
        s.extend_from_slice(&big);
        let r = BufReader::with_capacity(64, &s[..]);
        let got: Vec<_> = NulDocs::new(r).map(|d| d.unwrap()).collect();
        assert_eq!(got, vec![big.clone(), big]);
    }

    /// A reader failing after its first bytes.
    struct Failing(bool);

    impl Read for Failing {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            if std::mem::replace(&mut self.0, true) {
                return Err(io::Error::other("disk on fire"));
            }
            buf[..6].copy_from_slice(b"<a/>\0<");
            Ok(6)
        }
    }

    #[test]
    fn a_read_error_ends_the_stream_once() {
        let got: Vec<_> = stream("s".into(), BufReader::new(Failing(false))).collect();
        assert_eq!(got.len(), 2);
        assert_eq!(got[0].name, "s#0");
        assert!(matches!(&got[0].doc, Doc::Bytes(b) if b == b"<a/>"));
        assert_eq!(got[1].name, "s#1");
        assert!(matches!(&got[1].doc, Doc::Unreadable(e) if e.to_string() == "disk on fire"));
    }

    #[test]
    fn files_are_named_per_mode() {
        let dir = std::env::temp_dir().join(format!("qrtl-split-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let f = dir.join("s.bin");
        std::fs::write(&f, b"<a/>\0<b/>\0").unwrap();
        let missing = dir.join("missing.bin");
        let files = vec![f.clone(), missing.clone()];
        let names = |split| -> Vec<String> { documents(&files, split).map(|d| d.name).collect() };
        let (f, missing) = (f.display().to_string(), missing.display().to_string());
        assert_eq!(names(SplitArg::None), vec![f.clone(), missing.clone()]);
        assert_eq!(
            names(SplitArg::Nul),
            vec![format!("{f}#0"), format!("{f}#1"), missing.clone()]
        );
        let last = documents(&files, SplitArg::Nul).last().unwrap();
        assert!(matches!(last.doc, Doc::Unreadable(_)));
    }
}
