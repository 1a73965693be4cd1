//! Checking one input.

use std::sync::atomic::{AtomicU64, Ordering};

use crate::errors::{Finder, Located};
use crate::input::{self, Contents, Input};

/// How much of each input to look at for the binary test (as git and
/// ripgrep do: a NUL byte near the start means binary).
const BINARY_SNIFF: usize = 8 * 1024;

/// What `check` should do.
#[derive(Clone, Copy, Debug)]
pub struct CheckOptions {
    /// Keep at most this many errors per input (`None`: all); all are counted.
    pub keep: Option<usize>,
    /// Skip inputs that look binary.
    pub skip_binary: bool,
    /// Only validity matters: stop at the first error.
    pub quiet: bool,
}

/// The result of checking one input.
#[derive(Debug)]
pub enum Outcome {
    /// The input was read to the end (or, with `quiet`, to its first error).
    Checked {
        /// Bytes read.
        bytes: u64,
        /// The errors kept, in order.
        errors: Vec<Located>,
        /// All errors by kind.
        counts: [u64; 6],
    },
    /// Skipped because it looks binary.
    SkippedBinary,
    /// Could not be read.
    Unreadable(String),
}

impl Outcome {
    /// True if the input was read and had errors.
    pub fn is_invalid(&self) -> bool {
        matches!(self, Outcome::Checked { counts, .. } if counts.iter().any(|&c| c > 0))
    }
}

/// Checks one input; `progress` counts the bytes done.
pub fn check(input: &Input, options: CheckOptions, progress: &AtomicU64) -> Outcome {
    match input::open(input) {
        Err(err) => Outcome::Unreadable(err.to_string()),
        Ok(Contents::Whole(whole)) => {
            let bytes = whole.bytes();
            let outcome = check_whole(bytes, options);
            progress.fetch_add(bytes.len() as u64, Ordering::Relaxed);
            outcome
        }
        Ok(Contents::Stream(mut reader)) => match check_stream(&mut *reader, options, progress) {
            Ok(outcome) => outcome,
            Err(err) => Outcome::Unreadable(err.to_string()),
        },
    }
}

fn looks_binary(start: &[u8]) -> bool {
    start[..start.len().min(BINARY_SNIFF)].contains(&0)
}

fn check_whole(bytes: &[u8], options: CheckOptions) -> Outcome {
    if options.skip_binary && looks_binary(bytes) {
        return Outcome::SkippedBinary;
    }
    let len = bytes.len() as u64;
    // The common case, valid input, costs one pass of the fastest validator.
    if is_valid_parallel(bytes) {
        return Outcome::Checked {
            bytes: len,
            errors: Vec::new(),
            counts: [0; 6],
        };
    }
    let keep = if options.quiet { Some(1) } else { options.keep };
    let mut finder = Finder::new(keep);
    if options.quiet {
        // One error is enough to decide; don't scan the rest.
        let err = utf8kit::validate(bytes).err();
        let end = err.map_or(bytes.len(), |e| {
            e.valid_up_to() + e.error_len().unwrap_or(bytes.len() - e.valid_up_to())
        });
        finder.feed(&bytes[..end]);
    } else {
        finder.feed(bytes);
    }
    finder.finish();
    {
        let (errors, counts) = finder.into_parts();
        Outcome::Checked {
            bytes: len,
            counts,
            errors,
        }
    }
}

/// Inputs at least this large are validated by several threads at once: a
/// mapped file is then paged in by all cores, which is what limits the speed.
const PARALLEL_MIN: usize = 64 << 20;

/// `utf8kit::is_valid`, split over the cores for large inputs. Each piece
/// starts on a character boundary (found by stepping back over at most 3
/// continuation bytes), so the pieces are valid exactly when the whole is.
fn is_valid_parallel(bytes: &[u8]) -> bool {
    if bytes.len() < PARALLEL_MIN {
        return utf8kit::is_valid(bytes);
    }
    let threads = crate::cores();
    if threads < 2 {
        return utf8kit::is_valid(bytes);
    }
    let mut cuts = vec![0];
    for i in 1..threads {
        let mut cut = bytes.len() / threads * i;
        let floor = cut.saturating_sub(3);
        while cut > floor && (bytes[cut] as i8) < -0x40 {
            cut -= 1;
        }
        cuts.push(cut);
    }
    cuts.push(bytes.len());
    std::thread::scope(|scope| {
        let workers: Vec<_> = cuts
            .windows(2)
            .skip(1)
            .map(|w| {
                let piece = &bytes[w[0]..w[1]];
                scope.spawn(move || utf8kit::is_valid(piece))
            })
            .collect();
        let first = utf8kit::is_valid(&bytes[..cuts[1]]);
        workers
            .into_iter()
            .fold(first, |ok, w| w.join().unwrap_or(false) && ok)
    })
}

fn check_stream(
    reader: &mut dyn std::io::Read,
    options: CheckOptions,
    progress: &AtomicU64,
) -> std::io::Result<Outcome> {
    let mut buf = vec![0; input::CHUNK];
    let mut finder = Finder::new(if options.quiet { Some(1) } else { options.keep });
    let mut total = 0u64;
    let mut first = true;
    loop {
        let n = input::fill(reader, &mut buf)?;
        if n == 0 {
            break;
        }
        let chunk = &buf[..n];
        if first && options.skip_binary && looks_binary(chunk) {
            return Ok(Outcome::SkippedBinary);
        }
        first = false;
        finder.feed(chunk);
        total += n as u64;
        progress.fetch_add(n as u64, Ordering::Relaxed);
        if options.quiet && finder.total() > 0 {
            break;
        }
    }
    finder.finish();
    Ok({
        let (errors, counts) = finder.into_parts();
        Outcome::Checked {
            bytes: total,
            counts,
            errors,
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The parallel split agrees with core whatever lies around each cut.
    #[test]
    fn parallel_validation_agrees_with_core_around_every_cut() {
        let unit = "ж世😀a".as_bytes(); // 2 + 3 + 4 + 1 bytes: cuts land everywhere
        let mut text = Vec::with_capacity(PARALLEL_MIN + 64);
        while text.len() < PARALLEL_MIN + 32 {
            text.extend_from_slice(unit);
        }
        assert!(is_valid_parallel(&text));
        let threads = crate::cores();
        for i in 1..threads.max(2) {
            let cut = text.len() / threads.max(2) * i;
            for at in cut.saturating_sub(5)..cut + 5 {
                for bad in [0x80, 0xC0, 0xFF, b'x'] {
                    let mut broken = text.clone();
                    broken[at] = bad;
                    assert_eq!(
                        is_valid_parallel(&broken),
                        core::str::from_utf8(&broken).is_ok(),
                        "byte {bad:02X} at {at}"
                    );
                }
            }
        }
    }
}
