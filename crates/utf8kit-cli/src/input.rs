//! Reading inputs: memory-mapped files, buffered small files, and streams
//! (pipes, stdin) read in constant memory.

use std::fs::File;
use std::io::{self, Read};
use std::path::{Path, PathBuf};

/// Files at least this large are memory-mapped instead of read.
const MMAP_THRESHOLD: u64 = 1 << 20;

/// Streams are read in chunks of this size.
pub const CHUNK: usize = 1 << 18;

/// One input: a file or standard input.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Input {
    /// Standard input, read as a stream.
    Stdin,
    /// A path on disk.
    File(PathBuf),
}

impl Input {
    /// `-` means standard input.
    pub fn from_arg(path: &Path) -> Input {
        if path.as_os_str() == "-" {
            Input::Stdin
        } else {
            Input::File(path.to_path_buf())
        }
    }

    /// The name used in reports. File names that are not UTF-8 are shown with
    /// U+FFFD in place of their bad bytes rather than refused.
    pub fn display_name(&self) -> String {
        match self {
            Input::Stdin => "<stdin>".to_owned(),
            Input::File(p) => p.to_string_lossy().into_owned(),
        }
    }
}

/// The bytes of an input, however they are best obtained.
pub enum Contents {
    /// A regular file in memory (read or mapped).
    Whole(Whole),
    /// A stream to be read chunk by chunk.
    Stream(Box<dyn Read>),
}

/// A whole file's bytes.
pub enum Whole {
    /// Read into memory.
    Read(Vec<u8>),
    /// Memory-mapped.
    Mapped(memmap2::Mmap),
}

impl Whole {
    /// The bytes.
    pub fn bytes(&self) -> &[u8] {
        match self {
            Whole::Read(v) => v,
            Whole::Mapped(m) => m,
        }
    }
}

/// Opens an input: large regular files are mapped, small ones read, and
/// anything else (stdin, pipes, devices) is streamed.
pub fn open(input: &Input) -> io::Result<Contents> {
    let path = match input {
        Input::Stdin => return Ok(Contents::Stream(Box::new(io::stdin()))),
        Input::File(p) => p,
    };
    let mut file = File::open(path)?;
    let meta = file.metadata()?;
    if meta.is_dir() {
        return Err(io::Error::other("is a directory"));
    }
    if !meta.is_file() {
        return Ok(Contents::Stream(Box::new(file)));
    }
    if meta.len() >= MMAP_THRESHOLD {
        // SAFETY: the map is only read. If another process truncates the file
        // while it is mapped, reads past the new end fault (SIGBUS), as with
        // ripgrep and every mmap-based reader; the file is opened read-only
        // and we never write through the map.
        if let Ok(map) = unsafe { memmap2::Mmap::map(&file) } {
            return Ok(Contents::Whole(Whole::Mapped(map)));
        }
        // Some file systems cannot map files; read them instead.
    }
    // Read exactly what the size promises (plus one byte to notice growth)
    // with plain reads: `read_to_end` would ask the size again.
    let expected = usize::try_from(meta.len()).unwrap_or(0);
    let mut buf = vec![0; expected + 1];
    let n = fill(&mut file, &mut buf)?;
    buf.truncate(n);
    if n > expected {
        // The file grew while we read it: take the rest too.
        file.read_to_end(&mut buf)?;
    }
    Ok(Contents::Whole(Whole::Read(buf)))
}

/// Reads from `reader` into `buf` until it is full or the input ends;
/// returns how many bytes were read. Interrupted reads are retried.
pub fn fill(reader: &mut dyn Read, buf: &mut [u8]) -> io::Result<usize> {
    let mut filled = 0;
    while filled < buf.len() {
        match reader.read(&mut buf[filled..]) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(filled)
}
