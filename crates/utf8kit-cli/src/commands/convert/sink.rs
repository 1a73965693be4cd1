//! Where converted bytes go, and how they get there safely: a file is
//! written to a temporary file beside it, synced, and renamed over the
//! target only when the whole conversion succeeded.

use std::fs::{self, File};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use tempfile::NamedTempFile;

/// Set by tests to stop the process between writing the temporary file and
/// renaming it, as a crash or `kill -9` would.
const ABORT_BEFORE_RENAME: &str = "UTF8KIT_TEST_ABORT_BEFORE_RENAME";

/// An output being written.
pub enum Sink {
    /// Standard output.
    Stdout(io::StdoutLock<'static>),
    /// A device or pipe named with `-o`: written directly.
    Direct(File),
    /// A regular file target, written through a temporary file.
    Replace {
        /// The file being written.
        temp: NamedTempFile,
        /// The file it will replace.
        target: PathBuf,
        /// Keep the target's old contents as `NAME.orig`.
        backup: bool,
    },
}

impl Sink {
    /// Standard output.
    pub fn stdout() -> Sink {
        Sink::Stdout(io::stdout().lock())
    }

    /// Output to `path`: regular files (existing or new) are replaced
    /// atomically, anything else (e.g. `/dev/full`, a FIFO) is written directly.
    pub fn to_path(path: &Path, backup: bool) -> io::Result<Sink> {
        match fs::metadata(path) {
            Ok(meta) if !meta.is_file() => {
                Ok(Sink::Direct(fs::OpenOptions::new().write(true).open(path)?))
            }
            _ => {
                let dir = match path.parent() {
                    Some(p) if !p.as_os_str().is_empty() => p,
                    _ => Path::new("."),
                };
                let temp = tempfile::Builder::new()
                    .prefix(".utf8kit-")
                    .suffix(".tmp")
                    .tempfile_in(dir)?;
                Ok(Sink::Replace {
                    temp,
                    target: path.to_path_buf(),
                    backup,
                })
            }
        }
    }

    /// Writes converted bytes.
    pub fn write_all(&mut self, bytes: &[u8]) -> io::Result<()> {
        match self {
            Sink::Stdout(out) => out.write_all(bytes),
            Sink::Direct(file) => file.write_all(bytes),
            Sink::Replace { temp, .. } => temp.write_all(bytes),
        }
    }

    /// Makes the output final: flushes, and for a replaced file syncs it,
    /// copies the old file's permissions, keeps a backup if asked, then
    /// renames it over the target. Dropping a sink without committing it
    /// leaves the target untouched and deletes the temporary file.
    pub fn commit(self) -> io::Result<()> {
        match self {
            Sink::Stdout(mut out) => out.flush(),
            Sink::Direct(mut file) => {
                file.flush()?;
                file.sync_all().or_else(ignore_unsupported_sync)
            }
            Sink::Replace {
                temp,
                target,
                backup,
            } => {
                temp.as_file().sync_all()?;
                if let Ok(meta) = fs::metadata(&target) {
                    fs::set_permissions(temp.path(), meta.permissions())?;
                    if backup {
                        make_backup(&target)?;
                    }
                }
                if std::env::var_os(ABORT_BEFORE_RENAME).is_some() {
                    std::process::abort();
                }
                temp.persist(&target).map_err(|e| e.error)?;
                Ok(())
            }
        }
    }
}

/// Devices such as `/dev/null` refuse fsync; that is not a failure.
fn ignore_unsupported_sync(err: io::Error) -> io::Result<()> {
    match err.raw_os_error() {
        Some(22) | Some(25) | Some(95) => Ok(()), // EINVAL, ENOTTY, EOPNOTSUPP
        _ => Err(err),
    }
}

/// `NAME.orig` gets the current contents of `target`: a hard link when the
/// file system allows (instant, atomic), a copy otherwise.
fn make_backup(target: &Path) -> io::Result<()> {
    let mut name = target.as_os_str().to_owned();
    name.push(".orig");
    let backup = PathBuf::from(name);
    if backup.exists() {
        fs::remove_file(&backup)?;
    }
    fs::hard_link(target, &backup).or_else(|_| fs::copy(target, &backup).map(|_| ()))
}
